//! The structured call path: one function, [`structured_call`], that every structured request
//! takes, and that `slmcode generate` exposes.
//!
//! Given settings, a [`StructuredRequest`] (a contract, a caller's schema or a role, and the
//! messages) and a [`CallContext`] (the target, its negotiated capabilities, the cache), a call
//! is a short sequence of steps over one state (`Call`), each a function of its own:
//! 1. **plan** (`request::CallPlan::resolve`): the original schema, the contract's prompt (or the
//!    caller's prompt and schema) injected into the system message under every mechanism, the
//!    role's stop sequences, whether tools ride along, the budgets;
//! 2. **start** (`Call::start`): the mechanism chain (`chain`): prompt-only when
//!    `structured_decoding` is off or a tool-using role asks without a typed tool set; a tool
//!    turn (`turn`) keeps only the forms that enforce a tool constraint, or none on a hosted API;
//!    otherwise the negotiated (or forced) forms with the schema projected for each;
//! 3. **ask** (`Call::ask`): one answer, sent and watched as it streams (`walk`, `watch`),
//!    walking down the chain on a permanent rejection of a form's field (or on a non-4xx failure
//!    that the same request without the field does not have) to the plain request when the
//!    chain is exhausted: constrained decoding is never the reason a call fails. The walk
//!    returns what it learned (requests, demotions); only the call writes [`CallMeta`];
//! 4. **read** (`Call::read`, in `read`): the answer recorded, cut where the watcher ended it,
//!    counted toward the form's enforcement (two unparseable answers in a row under a form that
//!    claims to enforce mark it not enforced and demote it), then judged once: extracted and
//!    validated against the original schema with the repair ladder (a tool turn's answer: its
//!    calls, each against its tool), whatever the server claimed; a failure after a loop is a
//!    loop's;
//! 5. **next request** (`Call::next_request`): on a failure, at most `reask` re-asks matched to
//!    the failure class (the re-ask table, `reask`) within the call's deadline;
//! 6. **finish** (`Call::finish`, in `finish`): the value with its [`CallMeta`], or a
//!    [`CallFailure`]: an endpoint failure, or a [`SchemaViolation`] with the validation errors,
//!    the bounded raw text, and for a truncated object the complete members and the required
//!    ones missing; with `text_fallback` on, also the last answer's whole text for the caller to
//!    give back as plain text (seed 004's backstop), counted in the capabilities cache. A
//!    deadline that passed is not such a failure: what had arrived is a cut answer, not the
//!    model's last one. Repair statistics are added to the context's stats file when
//!    `record_stats` is on.
//!
//! The only retry is the retry policy's, per request.

mod chain;
mod context;
mod finish;
mod outcome;
mod read;
pub(crate) mod reask;
pub(crate) mod request;
mod turn;
mod walk;
mod watch;

#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::config::AntiRepetition;
use crate::repair::{FailureClass, RepairOptions, Stats};
use crate::schema::Mechanism;

use crate::backends::capabilities::WireForm;
use crate::backends::chat::ChatRequest;
use crate::backends::errors::{CallError, ErrorClass};
use crate::backends::stream::{StreamEnding, StreamLimits};

pub use context::{CallContext, CallProgress, ProgressReport, Sleep};
pub use outcome::{
    Answer, CallFailure, CallMeta, CallOrigin, ChainSource, DeadlineExceeded, DegradeReason,
    ParsedToolCall, RAW_TEXT_LIMIT, Reask, ReasoningMeta, ReasoningSource, SchemaViolation,
    StructuredOutcome, ToolsMeta,
};
pub use reask::ReaskAction;
use reask::{Allowance, reask_action};
pub use request::{DEFAULT_MAX_TOKENS_CAP, OutputSchema, RequestError, StructuredRequest};

use read::{Read, Reply};
use request::CallPlan;
use turn::read::TurnFailure;
use walk::Walk;

pub use turn::{assistant_message, tool_result_message};

/// Runs one structured request with the context's settings (see the module docs): asks, reads
/// the answer, and asks again as the failure calls for, until a value, the last re-ask, an
/// endpoint failure or the deadline.
pub fn structured_call(
    request: &StructuredRequest,
    context: &CallContext,
) -> Result<StructuredOutcome, CallFailure> {
    let started = Instant::now();
    let plan = CallPlan::resolve(&context.settings, request)?;
    // The schema compiled while planning; this only borrows the cached validator.
    let options = RepairOptions::new()
        .schema(&plan.schema)
        .map_err(RequestError::from)?;
    let mut call = Call::start(request, context, &plan, options, started);
    let ending = loop {
        let reply = match call.ask() {
            Ok(reply) => reply,
            Err(ending) => break ending,
        };
        match call.read(reply) {
            Read::Value(answer) => break Ending::Value(answer),
            Read::Deadline(text) => break Ending::Deadline(text),
            Read::Failed(failed, text) => {
                if let Err(ending) = call.next_request(failed, text) {
                    break ending;
                }
            }
        }
    };
    call.finish(ending)
}

/// How a call ended.
enum Ending {
    Value(Answer),
    Endpoint(CallError),
    /// The last answer failed and no re-ask was left; its text.
    Violation(Box<crate::repair::RepairFailure>, String),
    /// The deadline passed; the text that had arrived.
    Deadline(String),
}

/// One structured call under way: what it asks, where it stands, and its meta, which only the
/// call's steps write.
struct Call<'a> {
    context: &'a CallContext,
    plan: &'a CallPlan,
    options: RepairOptions<'a>,
    walk: Walk<'a>,
    started: Instant,
    deadline: Instant,
    /// The first request as the engine takes it; every re-ask is built on it.
    original: ChatRequest,
    /// The request the next answer is asked with.
    chat: ChatRequest,
    /// Its completion budget.
    budget: u32,
    /// The engine's anti-repetition sampling fields, for a re-ask after a loop.
    anti_repetition: Map<String, Value>,
    stats: Stats,
    meta: CallMeta,
}

impl<'a> Call<'a> {
    /// The call before its first answer, which began at `started` (its deadline counts from
    /// there): the walk down the chain set up, the first request shaped for the engine, the
    /// meta at its start.
    fn start(
        request: &StructuredRequest,
        context: &'a CallContext,
        plan: &'a CallPlan,
        options: RepairOptions<'a>,
        started: Instant,
    ) -> Call<'a> {
        let settings = &context.settings;
        context.recall_refusals();
        let deadline = started + plan.call_timeout;
        let limits = StreamLimits {
            idle: Duration::from_secs(settings.timeout_s.max(1)),
            deadline: Some(deadline),
        };
        let walk = Walk::new(settings, request, plan, context, limits);
        let engine = context.engine().preset();
        let anti_repetition = engine.anti_repetition_sampling();
        let mut original = plan.request.clone();
        original.model = context.target.model.clone();
        original.thinking = engine.thinking_fields(settings.thinking);
        if settings.anti_repetition == AntiRepetition::Always {
            original.sampling = anti_repetition.clone();
        }
        let first = walk.chain.first();
        let meta = CallMeta {
            mechanism: mechanism_of(first),
            wire_form: first,
            source: walk.chain.source,
            first_mechanism: mechanism_of(first),
            demotions: Vec::new(),
            repair_rung: None,
            rungs_changed: Vec::new(),
            coercions: Vec::new(),
            attempts: 0,
            reasks: Vec::new(),
            retry_count: 0,
            transport_retries: 0,
            requests: 0,
            degrade_reason: None,
            finish_reason: None,
            streamed: false,
            stream_end: StreamEnding::Finished,
            repetition: None,
            tokens_per_second: None,
            deadline_s: plan.call_timeout.as_secs_f64(),
            elapsed_ms: 0,
            tokens: None,
            notes: Vec::new(),
            warnings: Vec::new(),
            tools: plan.turn.as_ref().map(|turn| turn.meta(first.is_some(), 0)),
            reasoning: None,
            engine: context.engine(),
        };
        Call {
            context,
            plan,
            options,
            walk,
            started,
            deadline,
            chat: original.clone(),
            budget: original.max_tokens.unwrap_or(settings.max_tokens),
            original,
            anti_repetition,
            stats: Stats::new(),
            meta,
        }
    }

    /// Sends and watches: one answer asked for down the chain. An answer that the server's stop
    /// sequences ended inside the model's reasoning is asked for again, with the stops applied
    /// after the reasoning only (see [`Reply::stopped_in_reasoning`]).
    fn ask(&mut self) -> Result<Reply, Ending> {
        loop {
            self.meta.attempts += 1;
            let sent = self
                .walk
                .send(&self.chat, &self.options, self.meta.attempts);
            self.learn();
            let received = match sent {
                Ok(received) => received,
                Err(error)
                    if error.class == ErrorClass::Canceled && Instant::now() >= self.deadline =>
                {
                    return Err(Ending::Deadline(String::new()));
                }
                Err(error) => return Err(Ending::Endpoint(error)),
            };
            let reply = Reply::new(received);
            if self.chat.stop.is_empty() || !reply.stopped_in_reasoning() {
                return Ok(reply);
            }
            // Not the model's failure, and not a cut answer worth a larger budget: asked again
            // with the stops applied after the reasoning only, for the rest of the call.
            outcome::add_usage(
                &mut self.meta.tokens,
                reply.received.streamed.response.usage,
            );
            self.meta
                .warnings
                .push(read::STOPPED_IN_REASONING.to_owned());
            self.original.stop.clear();
            self.chat.stop.clear();
        }
    }

    /// Takes what the walk learned into the meta.
    fn learn(&mut self) {
        let learned = self.walk.take_learned();
        self.meta.requests += learned.requests;
        self.meta.transport_retries += learned.transport_retries;
        self.meta.demotions.extend(learned.demotions);
        self.meta.warnings.extend(learned.warnings);
    }

    /// Decides the next request after a failed answer: the re-ask its class calls for
    /// ([`reask_action`]), while the re-ask count and the deadline leave room for one; otherwise
    /// the call ends with the failure.
    fn next_request(&mut self, failed: Box<TurnFailure>, text: String) -> Result<(), Ending> {
        let failure = &failed.failure;
        if self.meta.reasks.len() as u32 >= self.plan.reask {
            return Err(Ending::Violation(Box::new(failed.failure), text));
        }
        let action = reask_action(failure.class);
        let allowance = Allowance {
            budget: self.budget,
            cap: self.plan.max_tokens_cap,
            room: room(self.deadline, self.meta.tokens_per_second),
            sampling: self.anti_repetition.clone(),
            fresh_seed: self.walk.fresh_seed(),
        };
        let next = match &self.plan.turn {
            Some(turn) => {
                reask::reask_tool_request(action, &self.original, &failed, turn, &text, &allowance)
            }
            None => reask::reask_request(action, &self.original, failure, &text, &allowance),
        };
        let Some(next) = next else {
            self.meta.warnings.push(format!(
                "no re-ask after the {} answer: the call's deadline leaves no room for one",
                failure.class
            ));
            return Err(Ending::Violation(Box::new(failed.failure), text));
        };
        if failure.class == FailureClass::RepeatedCall
            && self.plan.turn.as_ref().is_some_and(|turn| !turn.has_schema)
        {
            // The results are in the conversation: the re-asks offer the model no tool again
            // (the re-ask's `repeated_call` class in the meta says why).
            self.walk.answer_only = true;
        }
        self.budget = next.max_tokens.unwrap_or(self.budget);
        self.meta.reasks.push(Reask {
            class: failure.class,
            action,
            max_tokens: self.budget,
            temperature: next.temperature,
            seed: next.seed,
        });
        self.chat = next;
        Ok(())
    }
}

/// How many tokens fit in what is left of the deadline at `rate`, keeping a tenth for the
/// prompt and the round trip; `None` without a rate.
fn room(deadline: Instant, rate: Option<f64>) -> Option<u32> {
    let rate = rate?;
    let left = deadline
        .saturating_duration_since(Instant::now())
        .as_secs_f64();
    Some((left * 0.9 * rate).min(f64::from(u32::MAX)) as u32)
}

fn mechanism_of(form: Option<WireForm>) -> Mechanism {
    form.map_or(Mechanism::PromptOnly, WireForm::mechanism)
}
