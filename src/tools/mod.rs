//! Tools as a constraint: compiling a request's tools into one per-turn constraint, and
//! extracting a tool call a model wrote as free text.
//!
//! # Compiling
//!
//! [`ToolSet::from_value`] reads the tools (OpenAI, bare function, or Anthropic form);
//! [`compile`] turns them and a [`ToolChoice`] into a [`CompiledTools`]: the JSON Schema of a
//! call (`oneOf` branches `{"name": {"const": N}, "arguments": <schema>}`, for json_schema and
//! guided_json engines), the GBNF derived from that same schema (for grammar engines), and
//! notes, per tool and JSON pointer, on what the grammar could not express. Compilations are
//! content-addressed: [`CompiledTools::key`] is the SHA-256 of the canonical tool set, choice
//! and answer shape, and [`compile`] keeps an in-process cache by that key.
//! [`CompiledTools::project`] gives the wire form for one mechanism through
//! [`crate::schema::project`], with what it drops mapped back to the tool and pointer.
//!
//! # The `tool_choice` policy
//!
//! `tool_choice` decides whether a hard constraint is even correct:
//! - `none`: no tools, no constraint ([`Policy::NoTools`]);
//! - `required` / `any`: the union of every tool's branch;
//! - a named tool: only that branch;
//! - `auto`: the model may decline to call a tool, and a constraint that cannot express
//!   declining forces a call. Forcing a call when the model should have answered trades a
//!   malformed-call error for a wrong-action error, which is worse: a malformed call is caught
//!   and repaired downstream, a well-formed wrong action is executed. So `auto` is
//!   [`Policy::CallOrText`]: one call, or text that does not open with `{`. A grammar says
//!   exactly that (the calls' grammar beside a free-text branch), so a call the model starts
//!   is held to the schema and an answer is left alone; no JSON Schema can, so under any other
//!   mechanism the request goes unconstrained and [`extract`] reads whatever call the model
//!   wrote. Measured on a real small model, the union of the calls with an answer object
//!   (`{"answer": "<text>"}`) made it call where it should answer (bench/README.md); that
//!   union remains for a caller who asks for it ([`CompileOptions::with_answer`]) and for
//!   `auto` beside an output schema, whose answer is JSON anyway.
//!
//! [`plan_request`] says how one request carries the result: the constraint (a local engine
//! that enforces json_schema, guided_json or a grammar), the provider's native `tools` and
//! `tool_choice` (hosted APIs, weaker mechanisms, `auto` where there is no grammar), or nothing.
//!
//! # Extracting
//!
//! [`extract`] finds tool calls in free text (`<tool_call>` blocks, fenced or bare JSON, the
//! common key spellings, arguments given as a JSON string), repairs each with the repair ladder
//! ([`crate::repair`](mod@crate::repair)) and validates its arguments against that tool's schema. Hosted APIs
//! take no grammar, so extraction stays on everywhere; a constrained turn simply needs no
//! repair.
//!
//! # In words, and ids
//!
//! [`describe`] renders the tools for the prompt (a constrained request carries no `tools`
//! field, so the model reads them there); [`call_id`] gives a call written as text a stable id
//! derived from its content.
//!
//! Uses [`crate::schema`] (validation, GBNF derivation) and [`crate::repair`](mod@crate::repair); no I/O.

mod canonical;
mod choice;
mod compile;
mod embed;
mod extract;
mod parse;
mod prompt;
mod request;

use std::sync::Arc;

use serde_json::Value;

use crate::memo::Memo;
use crate::schema::gbnf::Whitespace;
use crate::schema::{Constraint, Mechanism};

pub use choice::ToolChoice;
pub use compile::{CompiledTools, Policy, TEXT_GRAMMAR, ToolNote, default_answer};
pub use extract::{
    CallSource, DroppedCall, ExtractError, ExtractOptions, ExtractedCall, Extraction, extract,
};
pub use parse::{Tool, ToolSet, ToolSetError};
pub use prompt::{call_id, describe};
pub use request::{ToolRequest, native_tools, plan_request};

/// The name a tool-call schema goes by where an engine wants one (`json_schema.name`).
pub const SCHEMA_NAME: &str = "tool_call";

/// What to compile for: the `tool_choice`, and the answer shape that `auto` may choose instead
/// of a call.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct CompileOptions {
    /// Whether and which tool must be called.
    pub choice: ToolChoice,
    /// Under `auto`, the shape of a plain answer (an object schema that requires a member other
    /// than `name` and `arguments`). Ignored under the other choices.
    pub answer: Option<Value>,
    /// What the grammar allows between tokens ([`Whitespace::Pretty`] unless set).
    pub whitespace: Whitespace,
}

impl CompileOptions {
    /// Options for `choice`, without an answer shape.
    pub fn new(choice: ToolChoice) -> CompileOptions {
        CompileOptions {
            choice,
            answer: None,
            whitespace: Whitespace::Pretty,
        }
    }

    /// The same options with `whitespace` between the grammar's tokens: compact (none) keeps a
    /// small model from filling a call with newlines until its budget runs out.
    pub fn with_whitespace(mut self, whitespace: Whitespace) -> CompileOptions {
        self.whitespace = whitespace;
        self
    }

    /// The same options with `answer` as the alternative to a call under `auto`
    /// ([`default_answer`] is `{"answer": "<text>"}`).
    pub fn with_answer(mut self, answer: Value) -> CompileOptions {
        self.answer = Some(answer);
        self
    }
}

/// Why a tool set did not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompileError {
    /// `tool_choice` names a tool the set does not have.
    #[error("tool_choice names {name:?}, which is not one of the tools ({})", known.join(", "))]
    UnknownTool {
        /// The name given.
        name: String,
        /// Every tool's name.
        known: Vec<String>,
    },
    /// The answer shape cannot stand beside the calls.
    #[error("answer shape: {reason}")]
    AnswerShape {
        /// What is wrong with it.
        reason: String,
    },
    /// A tool's schema has no grammar (it accepts no value, refers to itself before any JSON,
    /// or is invalid where the derivation looked).
    #[error("{}{}: {reason}", tool.as_ref().map(|tool| format!("tool {tool}: ")).unwrap_or_default(), if pointer.is_empty() { "(root)" } else { pointer })]
    Grammar {
        /// The tool whose schema it is, when it is one tool's.
        tool: Option<String>,
        /// JSON pointer into that tool's schema (or into the combined schema).
        pointer: String,
        /// Why there is no grammar.
        reason: String,
    },
}

/// Compiles `tools` for `options`, or returns the compilation of an equal (canonical) tool set
/// from the process-wide cache.
pub fn compile(
    tools: &ToolSet,
    options: &CompileOptions,
) -> Result<Arc<CompiledTools>, CompileError> {
    static MEMO: Memo<String, CompiledTools> = Memo::new();
    let key = compile::key_of(tools, options);
    let hash = {
        let mut hasher = std::hash::DefaultHasher::new();
        std::hash::Hash::hash(&key, &mut hasher);
        std::hash::Hasher::finish(&hasher)
    };
    MEMO.get_or_try_insert(
        hash,
        |seen| *seen == key,
        || {
            let canonical = compile::canonical_tools(tools);
            let compiled = compile::compile_canonical(&canonical, options, key.clone())?;
            Ok((key.clone(), compiled))
        },
    )
}

/// Compiles without looking at or filling the cache (for benchmarks and one-off callers).
pub fn compile_uncached(
    tools: &ToolSet,
    options: &CompileOptions,
) -> Result<CompiledTools, CompileError> {
    let key = compile::key_of(tools, options);
    compile::compile_canonical(&compile::canonical_tools(tools), options, key)
}

/// `tools` under `choice`, sent without a constraint: for `auto` beside an answer shape the
/// union could not take (a call-or-text grammar would hold back an answer that is JSON).
pub(crate) fn compile_unconstrained(
    tools: &ToolSet,
    choice: ToolChoice,
    reason: String,
) -> CompiledTools {
    let key = compile::key_of(tools, &CompileOptions::new(choice.clone()));
    compile::unconstrained(key, choice, Policy::Unconstrained, reason)
}

/// The content address `tools` and `options` compile under, without compiling.
pub fn key(tools: &ToolSet, options: &CompileOptions) -> String {
    compile::key_of(tools, options)
}

/// The constraint one request carries for a compiled tool set, after projection for its
/// mechanism, and what the projection left out, per tool.
#[derive(Clone, Debug, PartialEq)]
pub struct ProjectedTools {
    /// What goes on the wire.
    pub constraint: Constraint,
    /// What [`crate::schema::project`] dropped or approximated for this mechanism, mapped back
    /// to the tool and the pointer in its schema.
    pub notes: Vec<ToolNote>,
}

impl CompiledTools {
    /// The constraint a request carries with `mechanism`: the call schema projected for
    /// json_schema and guided_json (named `tool_call`, never `strict`, since OpenAI's strict
    /// mode refuses a `oneOf` root), the grammar for gbnf_grammar, JSON mode for json_object,
    /// and nothing for prompt_only or when the policy constrains nothing.
    pub fn constraint(&self, mechanism: Mechanism) -> Constraint {
        self.project(mechanism).constraint
    }

    /// [`CompiledTools::constraint`] with the projection's notes, per tool.
    pub fn project(&self, mechanism: Mechanism) -> ProjectedTools {
        let unconstrained = ProjectedTools {
            constraint: Constraint::None,
            notes: Vec::new(),
        };
        match (&self.schema, &self.grammar) {
            // The grammar was derived at compile time; its notes are `self.notes`. Call-or-text
            // has only a grammar: no JSON Schema leaves the answer free beside a call.
            (_, Some(grammar)) if mechanism == Mechanism::GbnfGrammar => ProjectedTools {
                constraint: Constraint::Grammar {
                    gbnf: grammar.clone(),
                },
                notes: Vec::new(),
            },
            (Some(schema), Some(_)) => self.project_schema(schema, mechanism),
            _ => unconstrained,
        }
    }

    /// The call schema projected for `mechanism`, its notes mapped back to the tools.
    fn project_schema(&self, schema: &Value, mechanism: Mechanism) -> ProjectedTools {
        let projection = crate::schema::project(schema, mechanism);
        let constraint = match projection.constraint {
            Constraint::JsonSchema { schema, .. } => Constraint::JsonSchema {
                name: SCHEMA_NAME.to_owned(),
                schema,
                strict: false,
            },
            other => other,
        };
        ProjectedTools {
            constraint,
            notes: projection
                .notes
                .iter()
                .map(|note| compile::map_note(note, &self.origins))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests;
