//! Extracting tool calls a model wrote as text.
//!
//! Three steps: [`segment`] finds where calls might be (tag blocks, fences, bare JSON), the
//! repair ladder ([`crate::repair::repair`]) turns each into a JSON value, and [`shape`] reads
//! the calls out of the value (or [`code`] finds the tool's name written just before an object
//! that is only the arguments: ReAct's `Action:` lines, leaked template tokens). A text with no
//! JSON call is read for calls written as Python ([`code::python_calls`]). Then each call's tool
//! is looked up (an unknown name is an error that lists the known ones) and its arguments are
//! repaired again against that tool's schema, which coerces what can be coerced losslessly and
//! validates the rest.
//!
//! Several calls in one text: with serial tools ([`ExtractOptions::serial`], the default, as
//! tool-using roles have) only the first is kept, and every later one is reported as dropped.
//! Order is text order, and a cut-off call counts: a text that ends inside its first call is
//! truncated even if the model meant to write more.

// A failed extraction is an ordinary outcome that carries its evidence (validation errors, the
// partial call), returned by value like the repair ladder's failures.
#![allow(clippy::result_large_err)]

mod code;
mod outcome;
mod segment;
mod shape;

use serde_json::{Map, Value};

use super::ToolSet;
use super::parse::Tool;
use crate::repair::{self, FailureClass, Reasoning, RepairFailure, RepairOptions, Repaired, Rung};

pub use outcome::{CallSource, DroppedCall, ExtractError, ExtractedCall, Extraction};
use segment::{Body, Origin, Segment};
use shape::RawCall;

/// How to extract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExtractOptions {
    /// Keep only the first call (serial tools); later ones are reported as dropped.
    pub serial: bool,
    /// The server stopped on length: the segment that runs to the end of the text is truncated.
    pub finish_reason_length: bool,
}

impl Default for ExtractOptions {
    /// Serial tools, no finish reason.
    fn default() -> Self {
        ExtractOptions {
            serial: true,
            finish_reason_length: false,
        }
    }
}

impl ExtractOptions {
    /// The same options, keeping only the first call (`true`) or every call.
    pub fn serial(mut self, serial: bool) -> ExtractOptions {
        self.serial = serial;
        self
    }

    /// The same options, knowing whether the server stopped on length.
    pub fn finish_reason_length(mut self, stopped_on_length: bool) -> ExtractOptions {
        self.finish_reason_length = stopped_on_length;
        self
    }
}

/// A call found in the text, parsed but not yet checked against its tool.
struct Found {
    source: CallSource,
    raw: RawCall,
    outer: Option<Repaired>,
    /// Rungs the finding itself stood for: `think` past a reasoning block, `fence` out of a
    /// code fence, `extract` out of prose.
    implied: Vec<Rung>,
}

/// One attempt at a call, in text order: found, or cut off.
enum Attempt {
    Call(Box<Found>),
    Truncated {
        name: Option<String>,
        failure: Box<RepairFailure>,
    },
}

/// Extracts the tool calls in `text`, checked against `tools`.
pub fn extract(
    text: &str,
    tools: &ToolSet,
    options: &ExtractOptions,
) -> Result<Extraction, ExtractError> {
    if text.trim().is_empty() {
        return Err(ExtractError::NoCall {
            class: FailureClass::Empty,
            message: "the text is empty".to_owned(),
        });
    }
    let answer = after_reasoning(text)?;
    let reasoning_removed = answer.len() != text.len();
    let is_tool = |name: &str| resolve(tools, name).is_some();
    let mut attempts: Vec<Attempt> = Vec::new();
    let mut first_failure: Option<RepairFailure> = None;
    let mut saw_json = false;
    // Where the previous segment ended: a name before an object is looked for after it.
    let mut floor = 0;
    for segment in segment::segments(answer) {
        let start = match &segment.body {
            Body::Json(body) => Some(body.as_ptr() as usize - answer.as_ptr() as usize),
            Body::Parameters(_) => None,
        };
        let name_before = |floor: usize| {
            start
                .filter(|_| segment.name.is_none())
                .and_then(|start| code::name_before(answer, floor, start, &is_tool))
        };
        let segment_floor = floor;
        if let (Some(start), Body::Json(body)) = (start, &segment.body) {
            floor = start + body.len();
        }
        let source = match segment.origin {
            Origin::ToolCallTag => CallSource::ToolCallTag,
            Origin::FunctionTag => CallSource::FunctionTag,
            Origin::Fence => CallSource::Fence,
            Origin::Bare => CallSource::Bare,
        };
        let length = options.finish_reason_length && segment.at_end;
        let mut implied = Vec::new();
        if reasoning_removed {
            implied.push(Rung::Think);
        }
        match segment.origin {
            Origin::Fence => implied.push(Rung::Fence),
            Origin::Bare if segment.surrounded => implied.push(Rung::Extract),
            _ => {}
        }
        match read_segment(&segment, tools, length) {
            Ok((value, outer)) => {
                saw_json = true;
                let raws = match segment.name {
                    Some(name) => vec![RawCall {
                        name: name.to_owned(),
                        arguments: value,
                        notes: Vec::new(),
                    }],
                    None => {
                        let mut raws = value
                            .as_ref()
                            .map(|value| shape::calls_in(value, &is_tool))
                            .unwrap_or_default();
                        if raws.is_empty()
                            && matches!(value, Some(Value::Object(_)))
                            && let Some(name) = name_before(segment_floor)
                        {
                            raws.push(RawCall {
                                name: name.to_owned(),
                                arguments: value,
                                notes: vec![format!(
                                    "the tool named before its arguments ({name})"
                                )],
                            });
                        }
                        raws
                    }
                };
                for raw in raws {
                    attempts.push(Attempt::Call(Box::new(Found {
                        source,
                        raw,
                        outer: outer.clone(),
                        implied: implied.clone(),
                    })));
                }
            }
            Err(failure) if failure.class == FailureClass::Truncated => {
                let before = name_before(segment_floor).map(str::to_owned);
                let name = segment.name.map(str::to_owned).or(before).or_else(|| {
                    failure
                        .partial
                        .as_ref()
                        .and_then(|partial| {
                            shape::calls_in(&Value::Object(partial.clone()), &is_tool).pop()
                        })
                        .map(|call| call.name)
                });
                attempts.push(Attempt::Truncated {
                    name,
                    failure: Box::new(failure),
                });
            }
            Err(failure) => {
                first_failure.get_or_insert(failure);
            }
        }
    }
    if attempts.is_empty() {
        python_attempts(answer, tools, reasoning_removed, &mut attempts);
    }
    if attempts.is_empty() {
        return Err(no_call(saw_json, first_failure));
    }
    let mut dropped = Vec::new();
    if options.serial && attempts.len() > 1 {
        for attempt in attempts.drain(1..) {
            let name = match attempt {
                Attempt::Call(found) => Some(found.raw.name),
                Attempt::Truncated { name, .. } => name,
            };
            dropped.push(DroppedCall {
                name,
                reason: "serial tools: only the first call in the text is kept".to_owned(),
            });
        }
    }
    let calls = attempts
        .into_iter()
        .map(|attempt| check(attempt, tools))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Extraction { calls, dropped })
}

/// Calls written as Python in `answer` (see [`code::python_calls`]), as attempts.
fn python_attempts(
    answer: &str,
    tools: &ToolSet,
    reasoning_removed: bool,
    attempts: &mut Vec<Attempt>,
) {
    let is_tool = |name: &str| resolve(tools, name).is_some();
    let properties = |name: &str| -> Vec<String> {
        resolve(tools, name)
            .and_then(|(tool, _)| tool.parameters.get("properties")?.as_object().cloned())
            .map(|properties| properties.keys().cloned().collect())
            .unwrap_or_default()
    };
    for call in code::python_calls(answer, &is_tool, &properties) {
        let options = RepairOptions::new().finish_reason_length(call.cut);
        match repair::repair(&call.arguments, &options) {
            Ok(repaired) => {
                let mut notes = vec!["written as a Python call".to_owned()];
                if call.positional {
                    notes.push(
                        "positional arguments read in the order of the schema's properties"
                            .to_owned(),
                    );
                }
                let mut implied = Vec::new();
                if reasoning_removed {
                    implied.push(Rung::Think);
                }
                implied.push(Rung::Extract);
                attempts.push(Attempt::Call(Box::new(Found {
                    source: CallSource::Python,
                    raw: RawCall {
                        name: call.name.to_owned(),
                        arguments: Some(repaired.value),
                        notes,
                    },
                    outer: None,
                    implied,
                })));
            }
            Err(failure) if failure.class == FailureClass::Truncated => {
                attempts.push(Attempt::Truncated {
                    name: Some(call.name.to_owned()),
                    failure: Box::new(failure),
                });
            }
            // Not literals after all: prose that happens to hold a tool's name.
            Err(_) => {}
        }
    }
}

/// The text after a reasoning block (`<think>...</think>` and the like, found as the repair
/// ladder finds it), where the calls are; a block that never closes means the model was cut
/// off while thinking.
fn after_reasoning(text: &str) -> Result<&str, ExtractError> {
    match repair::reasoning(text) {
        Reasoning::Absent => Ok(text),
        Reasoning::Removed(end) | Reasoning::Orphan(end) => Ok(&text[end..]),
        Reasoning::Unclosed { tag, .. } => Err(ExtractError::Truncated {
            tool: None,
            message: format!("the text ends inside its <{tag}> block, before any call"),
            partial: None,
        }),
    }
}

/// Parses a segment: the repaired value (`None` for a name-only function tag with an empty
/// body) and the repair that produced it.
fn read_segment(
    segment: &Segment<'_>,
    tools: &ToolSet,
    length: bool,
) -> Result<(Option<Value>, Option<Repaired>), RepairFailure> {
    match &segment.body {
        Body::Json(body) if segment.name.is_some() && body.trim().is_empty() && !length => {
            Ok((None, None))
        }
        Body::Json(body) => {
            let options = RepairOptions::new().finish_reason_length(length);
            let repaired = repair::repair(body, &options)?;
            Ok((Some(repaired.value.clone()), Some(repaired)))
        }
        Body::Parameters(pairs) => {
            let tool = segment
                .name
                .and_then(|name| resolve(tools, name))
                .map(|(tool, _)| tool);
            let arguments: Map<String, Value> = pairs
                .iter()
                .map(|(key, text)| ((*key).to_owned(), parameter_value(tool, key, text)))
                .collect();
            Ok((Some(Value::Object(arguments)), None))
        }
    }
}

/// A `<parameter=KEY>` value: the text itself where the schema allows a string (or says
/// nothing), otherwise the JSON it holds when it is JSON.
fn parameter_value(tool: Option<&Tool>, key: &str, text: &str) -> Value {
    let declared = tool
        .and_then(|tool| tool.parameters.get("properties"))
        .and_then(|properties| properties.get(key))
        .and_then(|property| property.get("type"));
    let allows_string = match declared {
        None => true,
        Some(Value::String(name)) => name == "string",
        Some(Value::Array(names)) => names.iter().any(|name| name == "string"),
        Some(_) => true,
    };
    if !allows_string && let Ok(value) = serde_json::from_str::<Value>(text.trim()) {
        return value;
    }
    Value::String(text.to_owned())
}

fn no_call(saw_json: bool, failure: Option<RepairFailure>) -> ExtractError {
    if saw_json {
        return ExtractError::NoCall {
            class: FailureClass::Prose,
            message: "the text holds JSON but no tool call: a call needs a tool name (`name`, `function` or `tool`) and its arguments (`arguments`, `parameters` or `input`)".to_owned(),
        };
    }
    match failure {
        // A call that loops is cut off by the ladder's own detector: the loop is the failure,
        // and the re-ask for it is not the one for prose.
        Some(failure) if failure.class == FailureClass::Repetition => ExtractError::NoCall {
            class: FailureClass::Repetition,
            message: failure.message,
        },
        Some(failure) if failure.class == FailureClass::Malformed => ExtractError::NoCall {
            class: FailureClass::Malformed,
            message: format!("the text holds no readable tool call: {}", failure.message),
        },
        _ => ExtractError::NoCall {
            class: FailureClass::Prose,
            message:
                "the text holds no tool call: no JSON object, <tool_call> block, fenced JSON or Python-style call"
                    .to_owned(),
        },
    }
}

/// The tool a written name means: the name itself, or the part after a namespace prefix such
/// as `functions.` (which models copy from OpenAI's internal format) when only that is a tool.
fn resolve<'tools>(tools: &'tools ToolSet, name: &str) -> Option<(&'tools Tool, Option<String>)> {
    let name = name.trim();
    if let Some(tool) = tools.get(name) {
        return Some((tool, None));
    }
    let (_, last) = name.rsplit_once('.')?;
    tools.get(last).map(|tool| {
        (
            tool,
            Some(format!("the name {name:?} was read as {last:?}")),
        )
    })
}

fn check(attempt: Attempt, tools: &ToolSet) -> Result<ExtractedCall, ExtractError> {
    let found = match attempt {
        Attempt::Truncated { name, failure } => {
            return Err(ExtractError::Truncated {
                tool: name
                    .and_then(|name| resolve(tools, &name).map(|(tool, _)| tool.name.clone())),
                message: failure.message,
                partial: failure.partial,
            });
        }
        Attempt::Call(found) => *found,
    };
    let Found {
        source,
        raw,
        outer,
        implied,
    } = found;
    let Some((tool, renamed)) = resolve(tools, &raw.name) else {
        return Err(ExtractError::UnknownTool {
            name: raw.name,
            known: tools.names().into_iter().map(str::to_owned).collect(),
        });
    };
    let mut notes = raw.notes;
    notes.extend(renamed);
    let (text, from_string) = match raw.arguments {
        None | Some(Value::Null) => {
            notes.push("no arguments given; read as {}".to_owned());
            ("{}".to_owned(), false)
        }
        Some(Value::String(text)) => {
            notes.push("arguments given as a JSON string".to_owned());
            (text, true)
        }
        Some(value @ Value::Object(_)) => (repair::to_compact(&value), false),
        Some(other) => {
            return Err(ExtractError::InvalidArguments {
                tool: tool.name.clone(),
                errors: Vec::new(),
                message: format!(
                    "arguments must be a JSON object, found {}",
                    crate::schema::json_kind(&other)
                ),
                arguments: Some(other),
            });
        }
    };
    let options = RepairOptions::new()
        .schema(&tool.parameters)
        .map_err(|error| ExtractError::InvalidArguments {
            tool: tool.name.clone(),
            errors: Vec::new(),
            message: format!("the tool's schema does not compile: {error}"),
            arguments: None,
        })?;
    let inner = repair::repair(&text, &options).map_err(|failure| match failure.class {
        FailureClass::Truncated => ExtractError::Truncated {
            tool: Some(tool.name.clone()),
            message: format!("its arguments string stops early: {}", failure.message),
            partial: failure.partial,
        },
        FailureClass::WrongShape => ExtractError::InvalidArguments {
            tool: tool.name.clone(),
            errors: failure.errors,
            message: failure.message,
            arguments: failure.value,
        },
        _ => ExtractError::InvalidArguments {
            tool: tool.name.clone(),
            errors: Vec::new(),
            message: if from_string {
                format!("the arguments string is not JSON: {}", failure.message)
            } else {
                failure.message
            },
            arguments: None,
        },
    })?;
    let mut rungs: Vec<Rung> = implied;
    let outer_rungs = outer.as_ref().map(|outer| outer.rungs_changed.as_slice());
    for rung in outer_rungs
        .unwrap_or_default()
        .iter()
        .chain(&inner.rungs_changed)
    {
        if !rungs.contains(rung) {
            rungs.push(*rung);
        }
    }
    rungs.sort();
    // The rung after which the call parsed and validated: the last one that changed anything.
    let rung = rungs.last().copied().unwrap_or(Rung::None);
    Ok(ExtractedCall {
        name: tool.name.clone(),
        arguments: inner.value,
        source,
        rung,
        rungs_changed: rungs,
        coercions: inner.coercions,
        notes,
    })
}
