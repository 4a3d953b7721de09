//! Downstream, always on: what a tool turn's answer holds.
//!
//! - Native `tool_calls`: each call's tool is looked up (an unknown one is `unknown_tool`), its
//!   `arguments` string goes through the repair ladder against the tool's parameters (the rung
//!   is reported; arguments that stay invalid are `invalid_arguments`, a cut-off string
//!   `truncated`), and the server's id is kept.
//! - Text: calls written in it are found by [`crate::tools::extract`] (tags, fences, ReAct,
//!   Mistral, DeepSeek, Python-style) and checked the same way; each gets the id
//!   [`crate::tools::call_id`] derives from its content.
//! - A call to another tool than the named `tool_choice` is `tool_not_chosen`.
//! - No call: under `auto` the text is the answer (validated against the request's schema
//!   when it has one); otherwise it is a failure of the class extraction found (`empty`,
//!   `prose`, `malformed`).
//!
//! With serial tools only the first call is kept; how many were dropped is reported.

// A failed read is an ordinary outcome that carries its evidence, returned by value like the
// repair ladder's and extraction's failures.
#![allow(clippy::result_large_err)]

use crate::repair::{self, Coercion, FailureClass, RepairFailure, RepairOptions, Rung};
use crate::tools::{self, ExtractError, ExtractOptions, Policy, ToolChoice};

use super::super::outcome::{Answer, CallOrigin, ParsedToolCall};
use super::ToolTurn;
use crate::backends::chat::ToolCall;

/// A tool turn's answer, read.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TurnRead {
    pub answer: Answer,
    /// The highest rung any part needed.
    pub rung: Rung,
    pub rungs_changed: Vec<Rung>,
    pub coercions: Vec<Coercion>,
    /// Calls dropped by serial tools.
    pub dropped: u32,
}

impl TurnRead {
    /// A tool answer with no call yet (they are pushed as they are read) and `content`, with
    /// `dropped` calls left out by serial tools; no rung needed so far.
    fn tools(content: Option<String>, dropped: u32) -> TurnRead {
        TurnRead {
            answer: Answer::Tools {
                calls: Vec::new(),
                content,
            },
            rung: Rung::None,
            rungs_changed: Vec::new(),
            coercions: Vec::new(),
            dropped,
        }
    }
}

/// Why a tool turn's answer is not usable, and the tool the failing call named.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TurnFailure {
    pub failure: RepairFailure,
    pub called: Option<String>,
}

/// Reads one answer: `native` calls, else the `content` text; `truncated` when the server
/// stopped on length (or the answer was cut); `schema` checks a plain answer under `auto`
/// when the request has a schema. Under `auto`, an answer whose every call the conversation
/// already holds with its result is `repeated_call`.
pub(crate) fn read(
    turn: &ToolTurn,
    native: &[ToolCall],
    content: Option<&str>,
    truncated: bool,
    schema: Option<&RepairOptions<'_>>,
) -> Result<TurnRead, TurnFailure> {
    let read = read_answer(turn, native, content, truncated, schema)?;
    if turn.choice != ToolChoice::Auto || turn.answered.is_empty() {
        return Ok(read);
    }
    match &read.answer {
        Answer::Tools { calls, .. }
            if !calls.is_empty()
                && calls.iter().all(|call| {
                    turn.answered
                        .contains(&tools::call_id(&call.name, &call.arguments))
                }) =>
        {
            let name = calls[0].name.clone();
            Err(TurnFailure {
                failure: failure(
                    FailureClass::RepeatedCall,
                    format!(
                        "the answer calls {name} again with the arguments of a call whose result the conversation already holds"
                    ),
                ),
                called: Some(name),
            })
        }
        _ => Ok(read),
    }
}

/// [`read`] without the check for repeated calls.
fn read_answer(
    turn: &ToolTurn,
    native: &[ToolCall],
    content: Option<&str>,
    truncated: bool,
    schema: Option<&RepairOptions<'_>>,
) -> Result<TurnRead, TurnFailure> {
    let text = content.unwrap_or("");
    if !native.is_empty() && turn.compiled.policy != Policy::NoTools {
        return read_native(turn, native, text);
    }
    if turn.compiled.policy == Policy::NoTools {
        return plain_answer(text, truncated, schema);
    }
    let options = ExtractOptions {
        serial: turn.serial,
        finish_reason_length: truncated,
    };
    match tools::extract(text, &turn.tools, &options) {
        Ok(extraction) => {
            let mut read = TurnRead::tools(None, extraction.dropped.len() as u32);
            let mut calls = Vec::new();
            for call in extraction.calls {
                chosen(turn, &call.name)?;
                read.rung = read.rung.max(call.rung);
                merge(&mut read.rungs_changed, &call.rungs_changed);
                read.coercions.extend(call.coercions);
                calls.push(ParsedToolCall {
                    id: tools::call_id(&call.name, &call.arguments),
                    name: call.name,
                    arguments: call.arguments,
                    origin: CallOrigin::Text(call.source),
                    rung: call.rung,
                });
            }
            read.answer = Answer::Tools {
                calls,
                content: None,
            };
            Ok(read)
        }
        // Under `auto` an answer that opens with prose is an answer, whatever call-like text
        // it holds further on (code, an example object, a half-written call): only an answer
        // that opens a call is read as a call attempt, and re-asked when it fails.
        Err(_) if turn.choice == ToolChoice::Auto && !opens_a_call(text) => {
            plain_answer(text, truncated, schema)
        }
        Err(ExtractError::NoCall { class, message }) => {
            if turn.choice == ToolChoice::Auto {
                return plain_answer(text, truncated, schema);
            }
            Err(TurnFailure {
                failure: failure(class, message),
                called: None,
            })
        }
        Err(ExtractError::Truncated {
            tool,
            message,
            partial,
        }) => {
            let mut cut = failure(
                FailureClass::Truncated,
                match &tool {
                    Some(tool) => format!("the {tool} call is cut off: {message}"),
                    None => format!("a tool call is cut off: {message}"),
                },
            );
            cut.partial = partial;
            Err(TurnFailure {
                failure: cut,
                called: tool,
            })
        }
        Err(error @ ExtractError::UnknownTool { .. }) => {
            let ExtractError::UnknownTool { name, .. } = &error else {
                unreachable!("matched above")
            };
            Err(TurnFailure {
                called: Some(name.clone()),
                failure: failure(FailureClass::UnknownTool, error.to_string()),
            })
        }
        Err(error @ ExtractError::InvalidArguments { .. }) => {
            let message = error.to_string();
            let ExtractError::InvalidArguments {
                tool,
                errors,
                arguments,
                ..
            } = error
            else {
                unreachable!("matched above")
            };
            let mut invalid = failure(FailureClass::InvalidArguments, message);
            invalid.errors = errors;
            invalid.value = arguments;
            Err(TurnFailure {
                failure: invalid,
                called: Some(tool),
            })
        }
    }
}

/// The server's tool calls, each parsed and validated against its tool.
fn read_native(turn: &ToolTurn, native: &[ToolCall], text: &str) -> Result<TurnRead, TurnFailure> {
    let kept = if turn.serial { &native[..1] } else { native };
    let mut read = TurnRead::tools(None, (native.len() - kept.len()) as u32);
    let mut calls = Vec::with_capacity(kept.len());
    for call in kept {
        let called = Some(call.name.clone());
        let Some(tool) = turn.tools.get(&call.name) else {
            let known = turn.tools.names().join(", ");
            return Err(TurnFailure {
                failure: failure(
                    FailureClass::UnknownTool,
                    format!(
                        "the answer calls {:?}, which is not one of the tools ({known})",
                        call.name
                    ),
                ),
                called,
            });
        };
        chosen(turn, &call.name)?;
        let arguments = if call.arguments.trim().is_empty() {
            "{}"
        } else {
            call.arguments.as_str()
        };
        let options = RepairOptions::new()
            .schema(&tool.parameters)
            .map_err(|error| TurnFailure {
                failure: failure(
                    FailureClass::InvalidArguments,
                    format!("the {} tool's schema does not compile: {error}", tool.name),
                ),
                called: called.clone(),
            })?;
        let repaired = repair::repair(arguments, &options).map_err(|mut cause| {
            let class = match cause.class {
                FailureClass::Truncated => FailureClass::Truncated,
                _ => FailureClass::InvalidArguments,
            };
            cause.message = match cause.class {
                FailureClass::WrongShape => format!(
                    "the {} call's arguments do not satisfy its schema: {}",
                    tool.name,
                    cause
                        .errors
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
                FailureClass::Truncated => {
                    format!(
                        "the {} call's arguments string stops early: {}",
                        tool.name, cause.message
                    )
                }
                _ => format!(
                    "the {} call's arguments string is not JSON: {}",
                    tool.name, cause.message
                ),
            };
            cause.class = class;
            TurnFailure {
                failure: cause,
                called: called.clone(),
            }
        })?;
        read.rung = read.rung.max(repaired.rung);
        merge(&mut read.rungs_changed, &repaired.rungs_changed);
        read.coercions.extend(repaired.coercions);
        calls.push(ParsedToolCall {
            id: call
                .id
                .clone()
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| tools::call_id(&call.name, &repaired.value)),
            name: call.name.clone(),
            arguments: repaired.value,
            origin: CallOrigin::Native,
            rung: repaired.rung,
        });
    }
    read.answer = Answer::Tools {
        calls,
        content: Some(text.to_owned()).filter(|text| !text.trim().is_empty()),
    };
    Ok(read)
}

/// An answer without a call: the request's schema's value, or the text.
fn plain_answer(
    text: &str,
    truncated: bool,
    schema: Option<&RepairOptions<'_>>,
) -> Result<TurnRead, TurnFailure> {
    if let Some(options) = schema {
        let repaired = repair::repair(text, &options.clone().finish_reason_length(truncated))
            .map_err(|failure| TurnFailure {
                failure,
                called: None,
            })?;
        return Ok(TurnRead {
            answer: Answer::Value(repaired.value),
            rung: repaired.rung,
            rungs_changed: repaired.rungs_changed,
            coercions: repaired.coercions,
            dropped: 0,
        });
    }
    if text.trim().is_empty() {
        return Err(TurnFailure {
            failure: failure(FailureClass::Empty, "the answer is empty".to_owned()),
            called: None,
        });
    }
    Ok(TurnRead::tools(Some(text.to_owned()), 0))
}

/// Whether `text` opens the way a call does: a JSON object or array, a tag (`<tool_call>`,
/// `<function=...>`), a fenced block or a bracketed marker (`[TOOL_CALLS]`), after any
/// leading whitespace.
fn opens_a_call(text: &str) -> bool {
    text.trim_start().starts_with(['{', '[', '<', '`'])
}

/// A call to `name` respects a named choice only when it is that tool.
fn chosen(turn: &ToolTurn, name: &str) -> Result<(), TurnFailure> {
    match &turn.choice {
        ToolChoice::Tool(wanted) if wanted != name => Err(TurnFailure {
            failure: failure(
                FailureClass::ToolNotChosen,
                format!("the answer calls {name}, but tool_choice requires {wanted}"),
            ),
            called: Some(name.to_owned()),
        }),
        _ => Ok(()),
    }
}

fn merge(into: &mut Vec<Rung>, rungs: &[Rung]) {
    for rung in rungs {
        if !into.contains(rung) {
            into.push(*rung);
        }
    }
    into.sort();
}

/// A failure with only a class and a message.
pub(crate) fn failure(class: FailureClass, message: String) -> RepairFailure {
    RepairFailure {
        class,
        message,
        offset: None,
        errors: Vec::new(),
        partial: None,
        missing_required: Vec::new(),
        rungs_changed: Vec::new(),
        value: None,
        coercions: Vec::new(),
        repetition: None,
    }
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
