//! What extraction gives back: the calls it kept ([`ExtractedCall`], each with where in the text
//! it was found, [`CallSource`]), the calls serial tools dropped ([`DroppedCall`]), and why no
//! valid call came out ([`ExtractError`]).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::repair::{Coercion, FailureClass, Rung};
use crate::schema::ValidationError;

/// Where in the text a call was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallSource {
    /// A `<tool_call>` block (or `tool_calls`, `function_call`, `tool_use`).
    ToolCallTag,
    /// A `<function=NAME>` block or Mistral's `[TOOL_CALLS]NAME[ARGS]`.
    FunctionTag,
    /// A markdown code fence.
    Fence,
    /// JSON in the text itself (the whole text, or a part of it).
    Bare,
    /// A call written as Python: `read_file(path="a")`, `[f(x=1)]`, a ` ```tool_code ` block.
    Python,
}

impl CallSource {
    /// The source's name in `--json` output.
    pub const fn as_str(self) -> &'static str {
        match self {
            CallSource::ToolCallTag => "tool_call_tag",
            CallSource::FunctionTag => "function_tag",
            CallSource::Fence => "fence",
            CallSource::Bare => "bare",
            CallSource::Python => "python",
        }
    }
}

/// A call whose tool exists and whose arguments satisfy the tool's schema.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExtractedCall {
    /// The tool's name.
    pub name: String,
    /// The arguments, valid against the tool's schema.
    pub arguments: Value,
    /// Where the call was found.
    pub source: CallSource,
    /// The highest repair rung the call needed, over its text and its arguments (`none` when
    /// both were valid as written).
    pub rung: Rung,
    /// Every rung that changed something, in ladder order.
    pub rungs_changed: Vec<Rung>,
    /// What coercion changed in the arguments, each at its pointer.
    pub coercions: Vec<Coercion>,
    /// How the call was written, when it was not the plain `{"name", "arguments"}` form.
    pub notes: Vec<String>,
}

impl ExtractedCall {
    /// The call as `{"name": N, "arguments": {...}}`.
    pub fn call(&self) -> Value {
        serde_json::json!({"name": self.name, "arguments": self.arguments})
    }
}

/// A call that was found but not kept.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DroppedCall {
    /// The name as written, when there was one.
    pub name: Option<String>,
    /// Why it was not kept.
    pub reason: String,
}

/// The calls found in one text.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Extraction {
    /// The calls kept: one with serial tools, every one otherwise.
    pub calls: Vec<ExtractedCall>,
    /// The calls found and not kept.
    pub dropped: Vec<DroppedCall>,
}

/// Why no valid call came out of a text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExtractError {
    /// The text holds no tool call.
    #[error("{message}")]
    NoCall {
        /// `empty`, `prose` or `malformed`.
        class: FailureClass,
        /// What was found instead.
        message: String,
    },
    /// A call is cut off.
    #[error("{}: {message}", tool.as_ref().map_or_else(|| "a tool call is cut off".to_owned(), |tool| format!("the {tool} call is cut off")))]
    Truncated {
        /// The tool it calls, when the name was complete.
        tool: Option<String>,
        /// Where and how it stops.
        message: String,
        /// The members of the call (or of its arguments) that were complete.
        partial: Option<Map<String, Value>>,
    },
    /// A call names a tool that is not in the set.
    #[error("the text calls {name:?}, which is not one of the tools ({})", known.join(", "))]
    UnknownTool {
        /// The name as written.
        name: String,
        /// Every tool's name.
        known: Vec<String>,
    },
    /// A call's arguments do not satisfy its tool's schema (or are not an object).
    #[error("the {tool} call's arguments do not satisfy its schema: {}", describe(.errors, .message))]
    InvalidArguments {
        /// The tool called.
        tool: String,
        /// Every validation error, with its pointer into the arguments.
        errors: Vec<ValidationError>,
        /// What is wrong when there are no validation errors (arguments that are not JSON).
        message: String,
        /// The arguments as far as they could be read.
        arguments: Option<Value>,
    },
}

fn describe(errors: &[ValidationError], message: &str) -> String {
    if errors.is_empty() {
        message.to_owned()
    } else {
        errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ")
    }
}
