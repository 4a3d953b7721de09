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
mod tests {
    use serde_json::json;

    use super::*;
    use crate::schema::gbnf::Whitespace;
    use crate::tools::{CallSource, ToolSet};

    fn tools() -> ToolSet {
        ToolSet::from_value(&json!([
            {"name": "read_file", "parameters": {"type": "object",
                "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["path"], "additionalProperties": false}},
            {"name": "list_dir"}
        ]))
        .unwrap()
    }

    fn turn(choice: ToolChoice, serial: bool) -> ToolTurn {
        ToolTurn::new(&tools(), Some(choice), None, serial, Whitespace::Compact)
            .unwrap()
            .unwrap()
    }

    fn native(id: Option<&str>, name: &str, arguments: &str) -> ToolCall {
        ToolCall {
            id: id.map(str::to_owned),
            name: name.to_owned(),
            arguments: arguments.to_owned(),
        }
    }

    fn calls(read: &TurnRead) -> &[ParsedToolCall] {
        match &read.answer {
            Answer::Tools { calls, .. } => calls,
            Answer::Value(_) => panic!("not a tool answer"),
        }
    }

    fn class(result: Result<TurnRead, TurnFailure>) -> (FailureClass, Option<String>) {
        let failure = result.expect_err("a failure");
        (failure.failure.class, failure.called)
    }

    #[test]
    fn native_arguments_are_repaired_validated_and_keep_their_ids() {
        let turn = turn(ToolChoice::Required, false);
        let read = read(
            &turn,
            &[
                native(
                    Some("call_9"),
                    "read_file",
                    "{'path': 'a.rs', 'limit': '10',}",
                ),
                native(None, "list_dir", ""),
            ],
            None,
            false,
            None,
        )
        .unwrap();
        let calls = calls(&read);
        assert_eq!(calls[0].id, "call_9");
        assert_eq!(calls[0].arguments, json!({"path": "a.rs", "limit": 10}));
        assert_eq!(calls[0].origin, CallOrigin::Native);
        assert!(calls[0].rung > Rung::None, "repaired: {:?}", calls[0].rung);
        assert_eq!(read.rung, calls[0].rung);
        assert_eq!(calls[1].arguments, json!({}));
        assert_eq!(
            calls[1].id,
            tools::call_id("list_dir", &json!({})),
            "no id: derived"
        );
        assert_eq!(read.dropped, 0);
    }

    #[test]
    fn native_failures_have_their_own_classes() {
        let required = turn(ToolChoice::Required, true);
        assert_eq!(
            class(read(
                &required,
                &[native(None, "open", "{}")],
                None,
                false,
                None
            )),
            (FailureClass::UnknownTool, Some("open".to_owned()))
        );
        let bad = read(
            &required,
            &[native(None, "read_file", "{\"path\": {\"x\": 1}}")],
            None,
            false,
            None,
        );
        let failure = bad.expect_err("invalid").failure;
        assert_eq!(failure.class, FailureClass::InvalidArguments);
        assert_eq!(failure.errors[0].pointer, "/path");
        assert_eq!(
            class(read(
                &required,
                &[native(None, "read_file", "{\"path\": \"a")],
                None,
                false,
                None
            ))
            .0,
            FailureClass::Truncated
        );
        let named = turn(ToolChoice::Tool("read_file".into()), true);
        assert_eq!(
            class(read(
                &named,
                &[native(None, "list_dir", "{}")],
                None,
                false,
                None
            )),
            (FailureClass::ToolNotChosen, Some("list_dir".to_owned()))
        );
    }

    #[test]
    fn serial_tools_keep_the_first_native_call_and_count_the_rest() {
        let turn = turn(ToolChoice::Required, true);
        let read = read(
            &turn,
            &[
                native(Some("a"), "list_dir", "{}"),
                native(Some("b"), "read_file", "{\"path\": \"x\"}"),
                native(Some("c"), "no_such_tool", "{}"),
            ],
            Some("checking"),
            false,
            None,
        )
        .unwrap();
        assert_eq!(calls(&read).len(), 1);
        assert_eq!(read.dropped, 2);
        assert!(
            matches!(&read.answer, Answer::Tools { content: Some(text), .. } if text == "checking")
        );
    }

    #[test]
    fn calls_written_as_text_are_extracted_with_a_content_id() {
        let turn = turn(ToolChoice::Required, true);
        let text = "I will read it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}\n</tool_call>\n<tool_call>{\"name\": \"list_dir\", \"arguments\": {}}</tool_call>";
        let read = read(&turn, &[], Some(text), false, None).unwrap();
        let call = &calls(&read)[0];
        assert_eq!(call.name, "read_file");
        assert_eq!(call.origin, CallOrigin::Text(CallSource::ToolCallTag));
        assert_eq!(
            call.id,
            tools::call_id("read_file", &json!({"path": "README.md"}))
        );
        assert_eq!(read.dropped, 1);
        let python = read_text(&turn, "read_file(path=\"src/main.rs\", **{\"limit\": 5})");
        assert_eq!(
            calls(&python)[0].arguments,
            json!({"path": "src/main.rs", "limit": 5})
        );
    }

    fn read_text(turn: &ToolTurn, text: &str) -> TurnRead {
        read(turn, &[], Some(text), false, None).unwrap()
    }

    #[test]
    fn text_failures_have_their_classes_and_the_tool_named() {
        let required = turn(ToolChoice::Required, true);
        assert_eq!(
            class(read(
                &required,
                &[],
                Some("I cannot call tools."),
                false,
                None
            ))
            .0,
            FailureClass::Prose
        );
        assert_eq!(
            class(read(&required, &[], Some("  "), false, None)).0,
            FailureClass::Empty
        );
        assert_eq!(
            class(read(
                &required,
                &[],
                Some("{\"name\": \"open\", \"arguments\": {}}"),
                false,
                None
            )),
            (FailureClass::UnknownTool, Some("open".to_owned()))
        );
        assert_eq!(
            class(read(
                &required,
                &[],
                Some("{\"name\": \"read_file\", \"arguments\": {\"path\": {\"x\": 1}}}"),
                false,
                None
            )),
            (FailureClass::InvalidArguments, Some("read_file".to_owned()))
        );
        assert_eq!(
            class(read(
                &required,
                &[],
                Some("{\"name\": \"read_file\", \"arguments\": {\"pa"),
                true,
                None
            ))
            .0,
            FailureClass::Truncated
        );
        let named = turn(ToolChoice::Tool("list_dir".into()), true);
        assert_eq!(
            class(read(
                &named,
                &[],
                Some("{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}"),
                false,
                None
            ))
            .0,
            FailureClass::ToolNotChosen
        );
    }

    #[test]
    fn auto_reads_a_plain_answer_as_content_or_the_schemas_value() {
        let auto = turn(ToolChoice::Auto, true);
        let prose = read_text(&auto, "It is a CLI.");
        assert!(
            matches!(prose.answer, Answer::Tools { content: Some(text), .. } if text == "It is a CLI.")
        );
        let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}},
            "required": ["ok"], "additionalProperties": false});
        let with_schema = ToolTurn::new(&tools(), None, Some(&schema), true, Whitespace::Compact)
            .unwrap()
            .unwrap();
        let options = RepairOptions::new().schema(&schema).unwrap();
        let value = read(
            &with_schema,
            &[],
            Some("```json\n{\"ok\": true}\n```"),
            false,
            Some(&options),
        )
        .unwrap();
        assert_eq!(value.answer, Answer::Value(json!({"ok": true})));
        assert_eq!(value.rung, Rung::Fence);
        let wrong = read(
            &with_schema,
            &[],
            Some("{\"ok\": 3}"),
            false,
            Some(&options),
        );
        assert_eq!(class(wrong).0, FailureClass::WrongShape);
    }

    #[test]
    fn none_takes_the_text_as_it_is() {
        let none = turn(ToolChoice::None, true);
        let answered = read(
            &none,
            &[native(None, "read_file", "{}")],
            Some("Hello."),
            false,
            None,
        )
        .unwrap();
        assert_eq!(
            answered.answer,
            Answer::Tools {
                calls: Vec::new(),
                content: Some("Hello.".to_owned())
            }
        );
    }

    #[test]
    fn under_auto_prose_that_holds_call_like_text_is_the_answer() {
        let auto = turn(ToolChoice::Auto, true);
        // SmolLM2 through the proxy under PydanticAI's auto: prose, then code with an object that
        // reads as a cut-off call.
        let prose = "Here's a concise version of your code:\n```javascript\nconsole.log(new \
                     FileWriter({name:'test',filename:\"test.txt\",";
        let answered = read_text(&auto, prose);
        assert!(
            matches!(&answered.answer, Answer::Tools { calls, content: Some(text) } if calls.is_empty() && text == prose),
            "{answered:?}"
        );
        let unknown = "Try this: {\"name\": \"delete_everything\", \"arguments\": {}}";
        assert!(matches!(
            read_text(&auto, unknown).answer,
            Answer::Tools { ref calls, .. } if calls.is_empty()
        ));
        // An answer that opens a call is a call attempt: a cut-off one is a failure to re-ask.
        let cut = read(
            &auto,
            &[],
            Some("{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/ma"),
            true,
            None,
        )
        .unwrap_err();
        assert_eq!(cut.failure.class, FailureClass::Truncated);
        // Under required the same prose is no call at all.
        let required = turn(ToolChoice::Required, true);
        assert!(read(&required, &[], Some(unknown), false, None).is_err());
    }

    #[test]
    fn under_auto_only_calls_already_answered_are_a_repeated_call() {
        let mut auto = turn(ToolChoice::Auto, true);
        auto.answered = [crate::tools::call_id(
            "read_file",
            &json!({"path": "README.md"}),
        )]
        .into();
        let again = read(
            &auto,
            &[],
            Some(r#"{"name": "read_file", "arguments": {"path": "README.md"}}"#),
            false,
            None,
        )
        .unwrap_err();
        assert_eq!(again.failure.class, FailureClass::RepeatedCall);
        assert_eq!(again.called.as_deref(), Some("read_file"));
        // The same call natively, with the keys in another order: the same content.
        let native_again = read(
            &auto,
            &[native(Some("x"), "read_file", r#"{"path":"README.md"}"#)],
            None,
            false,
            None,
        )
        .unwrap_err();
        assert_eq!(native_again.failure.class, FailureClass::RepeatedCall);
        // Another file, or a text answer, is fine.
        let other = read_text(
            &auto,
            r#"{"name": "read_file", "arguments": {"path": "Cargo.toml"}}"#,
        );
        assert!(matches!(other.answer, Answer::Tools { ref calls, .. } if calls.len() == 1));
        read_text(&auto, "The README says hello.");
        // Under required a call is what was asked for, repeated or not.
        let mut required = turn(ToolChoice::Required, true);
        required.answered = auto.answered.clone();
        read_text(
            &required,
            r#"{"name": "read_file", "arguments": {"path": "README.md"}}"#,
        );
    }
}
