//! `slmcode generate --tools`: the output of a tool turn.
//!
//! stdout is `{"tool_calls": [{"id", "name", "arguments"}], "content"}`: the calls in order
//! (one with serial tools), and the text that came with them or instead of them (`null` when
//! there was none; the validated value when the request had a schema and the model answered
//! instead of calling). `--json` puts that object under `value`, beside `meta`, and each call
//! also says where it came from (`origin`) and the repair rung it needed (`rung`).

use serde::Serialize;
use serde_json::Value;
use slmcode::call::{
    Answer, CallMeta, CallOrigin, ParsedToolCall, SchemaViolation, StructuredOutcome,
};
use slmcode::repair::{self, FailureClass, Rung};

use crate::cli::exit::{self, CliError};
use crate::cli::printer::Printer;

/// One call on stdout.
#[derive(Debug, Serialize)]
struct Call<'a> {
    /// The server's id, or for a call written as text `call_` and 16 hex digits of a SHA-256
    /// of its name and canonical arguments.
    id: &'a str,
    /// The tool.
    name: &'a str,
    /// The arguments, valid against the tool's parameters.
    arguments: &'a Value,
}

/// stdout of `generate --tools`.
#[derive(Debug, Serialize)]
struct Turn<'a> {
    /// The calls.
    tool_calls: Vec<Call<'a>>,
    /// The text, the validated value, or null.
    content: Option<Value>,
}

/// One call in `--json`.
#[derive(Debug, Serialize)]
struct DetailedCall<'a> {
    id: &'a str,
    name: &'a str,
    arguments: &'a Value,
    /// `native` or `{"text": "<how it was written>"}`.
    origin: CallOrigin,
    /// The repair rung the call needed.
    rung: Rung,
}

/// `value` in `--json`.
#[derive(Debug, Serialize)]
struct DetailedTurn<'a> {
    tool_calls: Vec<DetailedCall<'a>>,
    content: Option<Value>,
}

/// `--json` of a successful `generate --tools`.
#[derive(Debug, Serialize)]
struct Generated<'a> {
    value: DetailedTurn<'a>,
    meta: &'a CallMeta,
}

/// Prints a tool turn's outcome (see the module docs).
pub fn print(outcome: &StructuredOutcome, pretty: bool, printer: &Printer) -> Result<(), CliError> {
    let (calls, content): (&[ParsedToolCall], Option<Value>) = match &outcome.answer {
        Answer::Tools { calls, content } => (calls, content.clone().map(Value::String)),
        Answer::Value(value) => (&[], Some(value.clone())),
    };
    if printer.json() {
        printer.json_value(&Generated {
            value: DetailedTurn {
                tool_calls: calls
                    .iter()
                    .map(|call| DetailedCall {
                        id: &call.id,
                        name: &call.name,
                        arguments: &call.arguments,
                        origin: call.origin,
                        rung: call.rung,
                    })
                    .collect(),
                content,
            },
            meta: &outcome.meta,
        })?;
        return Ok(());
    }
    for call in calls.iter().filter(|call| call.rung != Rung::None) {
        printer.note(&format!(
            "{}: repaired (rung {})",
            call.name,
            call.rung.as_str()
        ));
    }
    if let Some(tools) = &outcome.meta.tools
        && tools.dropped_calls > 0
    {
        printer.note(&format!(
            "serial tools: {} later call{} dropped",
            tools.dropped_calls,
            if tools.dropped_calls == 1 { "" } else { "s" }
        ));
    }
    let turn = Turn {
        tool_calls: calls
            .iter()
            .map(|call| Call {
                id: &call.id,
                name: &call.name,
                arguments: &call.arguments,
            })
            .collect(),
        content,
    };
    let value = serde_json::to_value(&turn).map_err(anyhow::Error::from)?;
    let text = if pretty {
        repair::to_pretty(&value)
    } else {
        repair::to_compact(&value)
    };
    printer.line(&text)?;
    Ok(())
}

/// What to do about a tool turn that failed; `max_tokens` is the budget the call was given.
pub fn hint(violation: &SchemaViolation, max_tokens: u32) -> String {
    match violation.class {
        // Without a tool call, the class says what came instead of the call.
        FailureClass::Empty | FailureClass::Prose | FailureClass::Malformed => format!(
            "the model answered without a tool call under {}: try --reask 5 --call-timeout 120, or --tool-choice auto to accept an answer",
            violation.meta.mechanism
        ),
        FailureClass::WrongShape => {
            "the model answered instead of calling, and the answer does not satisfy the schema: try --reask 5 --call-timeout 120".to_owned()
        }
        // A loop and a truncation read as they do without tools: the re-asks tried, and a
        // budget the deadline cut points at the deadline.
        FailureClass::Repetition | FailureClass::Truncated => {
            super::violation_hint(violation, max_tokens)
        }
        class => exit::failure(class).call_hint(""),
    }
}
