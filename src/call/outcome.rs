//! What a structured call returns: the value with its [`CallMeta`], or a [`CallFailure`]
//! (a request the path cannot make, an endpoint failure, or a [`SchemaViolation`] carrying the
//! evidence: validation errors, bounded raw text, the complete members of a truncated object
//! and the required ones still missing).

use std::fmt;
use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::repair::{Coercion, FailureClass, Repetition, Rung};
use crate::schema::{Mechanism, Problem, ValidationError};

use super::reask::ReaskAction;
use super::request::RequestError;
use crate::backends::cache::Demotion;
use crate::backends::capabilities::WireForm;
use crate::backends::chat::Usage;
use crate::backends::engine::Engine;
use crate::backends::errors::CallError;
use crate::backends::stream::StreamEnding;

/// How much of a failed answer's text a [`SchemaViolation`] keeps, in characters.
pub const RAW_TEXT_LIMIT: usize = 4000;

/// Why the answer did not come from a first-try constrained request, most significant first
/// (the first that applies is reported).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DegradeReason {
    /// `structured_decoding` is off: prompt-only JSON and repair, by the user's choice.
    StructuredDecodingOff,
    /// A tool turn went with native tools, unconstrained (a hosted API, `auto` without a
    /// union, `structured_decoding` aside), or a tool-using role asked without a typed tool set.
    ToolsInRequest,
    /// A wire form was rejected or found not enforced during this call, and a weaker one answered.
    Demoted,
    /// No constraint mechanism was available for the endpoint: prompt-only and repair.
    NoConstraint,
    /// The first answer failed and a re-ask produced the value.
    Reasked,
    /// The answer needed the repair ladder (beyond rung `none`).
    Repaired,
}

impl DegradeReason {
    /// The reason's name, as in `--json` output.
    pub const fn as_str(self) -> &'static str {
        match self {
            DegradeReason::StructuredDecodingOff => "structured_decoding_off",
            DegradeReason::ToolsInRequest => "tools_in_request",
            DegradeReason::Demoted => "demoted",
            DegradeReason::NoConstraint => "no_constraint",
            DegradeReason::Reasked => "reasked",
            DegradeReason::Repaired => "repaired",
        }
    }
}

impl fmt::Display for DegradeReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What decided the mechanism chain of this call, and so its first form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChainSource {
    /// The negotiated capabilities (probe, cache or prior).
    Negotiated,
    /// The request forced a mechanism.
    Forced,
    /// `structured_decoding` is off.
    StructuredDecodingOff,
    /// A tool turn that may not be constrained, or a tool-using role without a typed tool set.
    Tools,
}

/// One re-ask this call sent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reask {
    /// The failure class of the answer before it.
    pub class: FailureClass,
    /// What the re-ask did.
    pub action: ReaskAction,
    /// Its completion budget.
    pub max_tokens: u32,
    /// Its temperature.
    pub temperature: Option<f64>,
    /// Its seed.
    pub seed: Option<u64>,
}

/// What happened during one call (`meta` in `generate --json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct CallMeta {
    /// The mechanism of the last answer (the one that produced the value, on success).
    pub mechanism: Mechanism,
    /// Its wire form; null for prompt_only.
    pub wire_form: Option<WireForm>,
    /// What decided the mechanism chain (see [`ChainSource`]).
    pub source: ChainSource,
    /// The mechanism the chain started at.
    pub first_mechanism: Mechanism,
    /// Demotions this call made and recorded (status, time, body excerpt).
    pub demotions: Vec<Demotion>,
    /// The repair rung that gave the value (`none`: valid as it came); null on failure.
    pub repair_rung: Option<Rung>,
    /// Every repair rung that changed the last answer, in ladder order.
    pub rungs_changed: Vec<Rung>,
    /// What the `coerce` repair rung changed in the last answer.
    pub coercions: Vec<Coercion>,
    /// Answers asked for: the first and each re-ask.
    pub attempts: u32,
    /// The re-asks, in order.
    pub reasks: Vec<Reask>,
    /// Re-asks sent (the first answer not counted): `reasks.len()`. A re-ask, not a retry:
    /// the JSON name is older than the glossary; transport retries are `transport_retries`.
    pub retry_count: u32,
    /// Transport retries, reported apart: the same request again after a transient failure,
    /// a rate limit or an idle stream.
    pub transport_retries: u32,
    /// Every HTTP request sent: answers, retries, rejected forms, plain resends.
    pub requests: u32,
    /// Why the value is not a first-try constrained answer; null when it is.
    pub degrade_reason: Option<DegradeReason>,
    /// The last answer's finish reason (null when slmcode closed the stream).
    pub finish_reason: Option<String>,
    /// Whether the last answer came as an event stream (false: the server sent it whole).
    pub streamed: bool,
    /// How the last answer ended: on its own, or cut by slmcode and why.
    pub stream_end: StreamEnding,
    /// The loop in the last answer, when it looped.
    pub repetition: Option<Repetition>,
    /// The generation rate of the last answer, in tokens per second, when it was measured.
    pub tokens_per_second: Option<f64>,
    /// The call's deadline, in seconds.
    pub deadline_s: f64,
    /// The whole call's time, in milliseconds.
    pub elapsed_ms: u64,
    /// Token counts summed over every answer, when the server reported them.
    pub tokens: Option<Usage>,
    /// What the projection left out of the last constrained wire form.
    pub notes: Vec<Problem>,
    /// Things worth knowing that did not stop the call (a cache or stats file not written).
    pub warnings: Vec<String>,
    /// What the tool turn did; null for a request without a typed tool set.
    pub tools: Option<ToolsMeta>,
    /// The last answer's reasoning, kept apart from the answer: never validated, never
    /// repaired. Null when the model did not reason (or the engine did not return it).
    pub reasoning: Option<ReasoningMeta>,
    /// The engine the requests were shaped for, and how it was known: the provider setting,
    /// or the server's fingerprint under `openai-compatible`.
    pub engine: Engine,
}

/// Where a thinking model's reasoning came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasoningSource {
    /// A field of its own in the answer (`reasoning_content`, `reasoning`, `thinking`): the
    /// engine separated it, and the answer is the message content.
    Field,
    /// A leading block in the text (`<think>...</think>` and the other tags the repair ladder
    /// knows), skipped before the answer is read.
    Inline,
}

/// The reasoning of the last answer (`meta.reasoning`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReasoningMeta {
    /// Where it came from.
    pub source: ReasoningSource,
    /// Its text, cut to [`RAW_TEXT_LIMIT`] characters (an inline block without its tags).
    pub text: String,
    /// Whether `text` was cut.
    pub text_cut: bool,
    /// Whether the answer ended inside the reasoning (no closing tag; or, from a separate
    /// field, no content after it).
    pub unfinished: bool,
}

/// What the model answered.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// A value that satisfies the original schema.
    Value(Value),
    /// The answer of a tool turn: the calls (cut to the first with serial tools), each
    /// validated against its tool's parameters when the request carried a typed tool set, and
    /// the text that came with them. No calls: the model answered in text (`tool_choice` auto
    /// or none).
    Tools {
        /// The calls, in order.
        calls: Vec<ParsedToolCall>,
        /// The message text, when there was any beside the calls (or instead of them).
        content: Option<String>,
    },
}

/// Where a tool call came from: the server's `tool_calls`, or the text (and how it was written).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallOrigin {
    /// The server's native `tool_calls`.
    Native,
    /// Written in the text ([`crate::tools::CallSource`] says how).
    Text(crate::tools::CallSource),
}

/// One tool call, with its arguments parsed (and validated, for a typed tool set).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParsedToolCall {
    /// The server's id for a native call; for a call written as text,
    /// [`crate::tools::call_id`]: `call_` and 16 hex digits of a SHA-256 of its content.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, a JSON object.
    pub arguments: Value,
    /// Where the call came from.
    pub origin: CallOrigin,
    /// The repair rung the call needed (`none`: valid as written).
    pub rung: Rung,
}

/// What a tool turn did (`meta.tools`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolsMeta {
    /// The `tool_choice` the turn was made with.
    pub choice: crate::tools::ToolChoice,
    /// What the `tool_choice` policy decided for the tool set.
    pub policy: crate::tools::Policy,
    /// How the last request carried the tools: `constraint`, `native_tools` or `nothing`.
    pub carried: &'static str,
    /// The content address of the compiled tool set.
    pub key: String,
    /// Calls the answer held beyond the first that serial tools dropped.
    pub dropped_calls: u32,
}

/// A successful structured call.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct StructuredOutcome {
    /// The answer.
    pub answer: Answer,
    /// What happened.
    pub meta: CallMeta,
}

impl StructuredOutcome {
    /// The validated value, unless the answer was a tool turn's.
    pub fn value(&self) -> Option<&Value> {
        match &self.answer {
            Answer::Value(value) => Some(value),
            Answer::Tools { .. } => None,
        }
    }

    /// The tool calls, when the answer was a tool turn's (empty: it answered in text).
    pub fn tool_calls(&self) -> &[ParsedToolCall] {
        match &self.answer {
            Answer::Tools { calls, .. } => calls,
            Answer::Value(_) => &[],
        }
    }
}

/// No trustworthy value after every attempt: the evidence.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SchemaViolation {
    /// Why the last answer failed.
    pub class: FailureClass,
    /// The repair ladder's one-line description of the last failure.
    pub message: String,
    /// Validation errors of the last answer against the original schema (wrong shape).
    pub errors: Vec<ValidationError>,
    /// The last answer's text, cut to [`RAW_TEXT_LIMIT`] characters.
    pub raw: String,
    /// Whether `raw` was cut.
    pub raw_cut: bool,
    /// For a truncated top-level object: the members that were complete. Evidence, not a
    /// result: nothing in it was validated.
    pub partial: Option<Map<String, Value>>,
    /// For a truncated top-level object: the required names not in `partial`.
    pub missing_required: Vec<String>,
    /// With the `text_fallback` setting on (seed 004's backstop): the last answer's whole text
    /// (not cut), for a caller that prefers text to nothing to give back as plain text, with
    /// this failure beside it as a warning. `None` when the setting is off, or when the last
    /// answer held no text but whitespace (there is nothing to fall back to). The call has
    /// counted it in the capabilities cache, when there is one.
    pub text_fallback: Option<String>,
    /// What happened.
    pub meta: CallMeta,
}

impl fmt::Display for SchemaViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tool_turn = self.meta.tools.is_some();
        let what = match self.class {
            FailureClass::Empty => "the answer was empty",
            FailureClass::Prose | FailureClass::Malformed if tool_turn => {
                "the answer held no tool call"
            }
            FailureClass::Truncated if tool_turn => "the answer's tool call was cut off",
            FailureClass::Prose => "the answer held no JSON",
            FailureClass::Malformed => "the answer was JSON that could not be repaired",
            FailureClass::Truncated => "the answer was truncated JSON",
            FailureClass::WrongShape => "the answer does not satisfy the schema",
            FailureClass::Repetition => "the answer looped",
            FailureClass::UnknownTool => "the answer called a tool that does not exist",
            FailureClass::ToolNotChosen => "the answer called another tool than the one required",
            FailureClass::InvalidArguments => {
                "the answer called a tool with arguments that violate its parameters"
            }
            FailureClass::RepeatedCall => {
                "the answer repeated a tool call whose result the conversation already holds"
            }
        };
        let attempts = self.meta.attempts;
        // Say so when nothing constrained the model: that is usually the whole story.
        let unconstrained = match self.meta.degrade_reason {
            Some(DegradeReason::StructuredDecodingOff) => {
                ", structured_decoding is off: nothing constrained the output"
            }
            Some(DegradeReason::NoConstraint) => {
                ", no constraint mechanism is available for this endpoint"
            }
            _ => "",
        };
        write!(
            f,
            "{what} after {attempts} attempt{} ({}{unconstrained}): {}",
            if attempts == 1 { "" } else { "s" },
            self.meta.mechanism,
            self.message
        )
    }
}

/// The call's deadline passed during an answer: what had arrived by then.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct DeadlineExceeded {
    /// The deadline that passed.
    pub deadline: Duration,
    /// The answer's text as far as it came, cut to [`RAW_TEXT_LIMIT`] characters.
    pub raw: String,
    /// Whether `raw` was cut.
    pub raw_cut: bool,
    /// For an object: the members that were complete (not validated).
    pub partial: Option<Map<String, Value>>,
    /// For an object: the required names not in `partial`.
    pub missing_required: Vec<String>,
    /// What happened.
    pub meta: CallMeta,
}

impl fmt::Display for DeadlineExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let attempt = self.meta.attempts;
        write!(
            f,
            "the call's deadline of {} s passed during answer {attempt} ({}), after {} characters",
            self.deadline.as_secs_f64(),
            self.meta.mechanism,
            self.raw.chars().count()
        )?;
        if self.raw_cut {
            f.write_str(" and more")?;
        }
        Ok(())
    }
}

/// Why a structured call failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallFailure {
    /// The request cannot be made (unknown contract, no schema, a schema that does not
    /// compile, no messages). Nothing was sent.
    #[error(transparent)]
    Request(#[from] RequestError),
    /// The endpoint failed (after the retries its class allows); never a demotion.
    #[error("{error}")]
    Endpoint {
        /// The failure, classified.
        error: CallError,
        /// What happened before it.
        meta: Box<CallMeta>,
    },
    /// Every attempt's answer failed extraction or validation.
    #[error("{0}")]
    SchemaViolation(Box<SchemaViolation>),
    /// The call's deadline passed (class `canceled`), with what had arrived by then.
    #[error("{0}")]
    DeadlineExceeded(Box<DeadlineExceeded>),
}

impl CallFailure {
    /// The meta of a call that sent something.
    pub fn meta(&self) -> Option<&CallMeta> {
        match self {
            CallFailure::Request(_) => None,
            CallFailure::Endpoint { meta, .. } => Some(meta),
            CallFailure::SchemaViolation(violation) => Some(&violation.meta),
            CallFailure::DeadlineExceeded(exceeded) => Some(&exceeded.meta),
        }
    }
}

/// `text` cut to [`RAW_TEXT_LIMIT`] characters, and whether it was cut.
pub(super) fn bounded(text: &str) -> (String, bool) {
    match text.char_indices().nth(RAW_TEXT_LIMIT) {
        Some((at, _)) => (text[..at].to_owned(), true),
        None => (text.to_owned(), false),
    }
}

/// Adds `usage` to `total`.
pub(super) fn add_usage(total: &mut Option<Usage>, usage: Usage) {
    if usage == Usage::default() {
        return;
    }
    let sum = |left: Option<u64>, right: Option<u64>| match (left, right) {
        (None, None) => None,
        (left, right) => Some(left.unwrap_or(0) + right.unwrap_or(0)),
    };
    let current = total.get_or_insert_with(Usage::default);
    current.prompt_tokens = sum(current.prompt_tokens, usage.prompt_tokens);
    current.completion_tokens = sum(current.completion_tokens, usage.completion_tokens);
    current.total_tokens = sum(current.total_tokens, usage.total_tokens);
    current.cached_prompt_tokens = sum(current.cached_prompt_tokens, usage.cached_prompt_tokens);
}
