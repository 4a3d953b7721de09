//! The structured call path: one function, [`structured_call`], that every structured request
//! takes, and that `slmcode generate` exposes.
//!
//! Given settings, a [`StructuredRequest`] (a contract, a caller's schema or a role, and the
//! messages) and a [`CallContext`] (the target, its negotiated capabilities, the cache), it
//! 1. plans the request: the original schema, the contract's prompt (or the
//!    caller's prompt and schema) injected into the system message under every mechanism, the
//!    role's stop sequences, whether tools ride along;
//! 2. walks the mechanism chain (`chain`): prompt-only when `structured_decoding` is off
//!    or a tool-using role asks without a typed tool set; a tool turn (`turn`) keeps only the
//!    forms that enforce a tool constraint, or none on a hosted API; otherwise the negotiated (or
//!    forced) forms with the schema projected for each, demoting a form on a permanent rejection of
//!    its field (or on a non-4xx failure that the same request without the field does not have),
//!    and falling to the plain request when the chain is exhausted: constrained decoding is never
//!    the reason a call fails;
//! 3. extracts and validates every answer against the original schema with the repair
//!    ladder (a tool turn's answer: its calls, each against its tool), whatever the server
//!    claimed, and counts an answer that does not parse under a
//!    form that claims to enforce (two in a row: the form is marked not enforced and demoted);
//! 4. on a failure, sends at most `reask` re-asks matched to the failure class ([`next_action`]);
//! 5. returns the value with its [`CallMeta`], or a [`CallFailure`]: an endpoint failure, or a
//!    [`SchemaViolation`] with the validation errors, the bounded raw text, and for a
//!    truncated object the complete members and the required ones missing; with
//!    `text_fallback` on, also the last answer's whole text for the caller to give back as
//!    plain text (seed 004's backstop), counted in the capabilities cache. A deadline that
//!    passed is not such a failure: what had arrived is a cut answer, not the model's last one.
//!
//! Repair statistics are added to the context's stats file when `record_stats` is on. The
//! only retry is the retry policy's, per request.

mod chain;
mod context;
pub(crate) mod evolve;
mod outcome;
pub(crate) mod request;
mod turn;
mod watch;

#[cfg(test)]
mod tests;

use std::time::{Duration, Instant};

use crate::config::AntiRepetition;
use crate::repair::{self, CallEnding, FailureClass, RepairOptions, Rung, Stats};
use crate::schema::Mechanism;

use super::capabilities::WireForm;
use super::chat::{ChatResponse, Usage};
use super::errors::{CallError, ErrorClass};
use super::stream::{StreamEnd, StreamLimits, Timing};

pub use chain::ENFORCEMENT_THRESHOLD;
pub use context::{CallContext, CallProgress, ProgressReport, Sleep};
pub use evolve::{Action, Allowance, EVOLVE, MIN_REASK_TOKENS, REASK_TEMPERATURE, next_action};
pub use outcome::{
    Answer, CallFailure, CallMeta, CallOrigin, ChainSource, DeadlineExceeded, DegradeReason,
    ParsedToolCall, RAW_TEXT_LIMIT, Reask, ReasoningMeta, ReasoningSource, SchemaViolation,
    StreamEnding, StructuredOutcome, ToolsMeta,
};
pub use request::{
    DEFAULT_MAX_TOKENS_CAP, JSON_ONLY, OutputSchema, RequestError, StructuredRequest,
};

use chain::{Exchange, Received};
use outcome::{add_usage, bounded};
use request::Plan;
use turn::read::TurnFailure;
use watch::Verdict;

pub use turn::{assistant_message, tool_result_message};

/// Runs one structured request with the context's settings (see the module docs).
pub fn structured_call(
    request: &StructuredRequest,
    context: &CallContext,
) -> Result<StructuredOutcome, CallFailure> {
    let settings = &context.settings;
    let started = Instant::now();
    let plan = Plan::resolve(settings, request)?;
    context.recall_refusals();
    // The schema compiled while planning; this only borrows the cached validator.
    let options = RepairOptions::new()
        .schema(&plan.schema)
        .map_err(request::RequestError::from)?;
    let deadline = started + plan.call_timeout;
    let limits = StreamLimits {
        idle: Duration::from_secs(settings.timeout_s.max(1)),
        deadline: Some(deadline),
    };
    let mut exchange = Exchange::new(settings, request, &plan, context, limits);
    let first = exchange.chain.first();
    let mut meta = CallMeta {
        mechanism: mechanism_of(first),
        wire_form: first,
        source: exchange.chain.source,
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
    let engine = context.engine().preset();
    let anti_repetition = engine.anti_repetition_sampling();
    let mut original = plan.request.clone();
    original.model = context.target.model.clone();
    original.thinking = engine.thinking_fields(settings.thinking);
    if settings.anti_repetition == AntiRepetition::Always {
        original.sampling = anti_repetition.clone();
    }
    let mut chat = original.clone();
    let mut budget = original.max_tokens.unwrap_or(settings.max_tokens);
    let mut stats = Stats::new();
    let result = loop {
        meta.attempts += 1;
        let received = match exchange.send(&chat, &options, &mut meta) {
            Ok(received) => received,
            Err(error) if error.class == ErrorClass::Canceled && Instant::now() >= deadline => {
                break Err(Failed::Deadline(String::new()));
            }
            Err(error) => break Err(Failed::Endpoint(error)),
        };
        let Received {
            streamed,
            form,
            verdict,
        } = received;
        let response = streamed.response;
        meta.reasoning = reasoning_meta(&response);
        if !chat.stop.is_empty()
            && response.finish_reason.as_deref() == Some("stop")
            && response.tool_calls.is_empty()
            && meta
                .reasoning
                .as_ref()
                .is_some_and(|reasoning| reasoning.unfinished)
        {
            // The server's stop sequences ended the answer inside the reasoning (the model
            // thinks although it was asked not to): not the model's failure, and not a cut
            // answer worth a larger budget. Asked again with the stops applied after the
            // reasoning only, once for the rest of the call.
            add_usage(&mut meta.tokens, response.usage);
            meta.warnings.push(STOPPED_IN_REASONING.to_owned());
            original.stop.clear();
            chat.stop.clear();
            continue;
        }
        meta.mechanism = mechanism_of(form);
        meta.wire_form = form;
        meta.finish_reason = response.finish_reason.clone();
        meta.streamed = streamed.streamed;
        meta.tokens_per_second = generation_rate(&streamed.timing, &response.usage);
        meta.repetition = None;
        add_usage(&mut meta.tokens, response.usage);
        let misfiled = form.and(response.misfiled_answer().map(str::to_owned));
        if misfiled.is_some() {
            meta.reasoning = None;
            if !meta.warnings.iter().any(|known| known == MISFILED) {
                meta.warnings.push(MISFILED.to_owned());
            }
        } else if response.is_blank()
            && meta
                .reasoning
                .as_ref()
                .is_some_and(|reasoning| reasoning.source == ReasoningSource::Field)
            && !meta.warnings.iter().any(|known| known == ONLY_REASONING)
        {
            meta.warnings.push(ONLY_REASONING.to_owned());
        }
        let native_calls = response.tool_calls;
        let received_text = misfiled.unwrap_or_else(|| response.content.unwrap_or_default());
        let mut text = received_text.clone();
        let truncated = match (streamed.end, verdict) {
            (StreamEnd::Deadline, _) => {
                meta.stream_end = StreamEnding::Deadline;
                break Err(Failed::Deadline(text));
            }
            (_, Some(Verdict::Done { end })) => {
                meta.stream_end = StreamEnding::Done;
                text.truncate(end);
                false
            }
            (_, Some(Verdict::Stop { end })) => {
                meta.stream_end = StreamEnding::Stop;
                text.truncate(end);
                false
            }
            (_, Some(Verdict::Repetition(repetition))) => {
                meta.stream_end = StreamEnding::Repetition;
                // What a stream is cut at, also for a whole answer that went on past it.
                let mut end = repetition.end.min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text.truncate(end);
                meta.repetition = Some(repetition);
                true
            }
            (_, None) => {
                meta.stream_end = StreamEnding::Finished;
                response.finish_reason.as_deref() == Some("length")
            }
        };
        if let Some(form) = form
            && !truncated
            && native_calls.is_empty()
            && plan
                .turn
                .as_ref()
                .is_none_or(|turn| turn.checks_enforcement(&received_text))
        {
            // The text as it came, prose after a value included: under a form that claims to
            // enforce, that is the sign it does not.
            exchange.check_enforcement(form, &received_text, &mut meta);
        }
        let read = match &plan.turn {
            Some(turn) => {
                let schema = turn.has_schema.then_some(&options);
                let read = turn::read::read(turn, &native_calls, Some(&text), truncated, schema);
                let dropped = read.as_ref().map_or(0, |read| read.dropped);
                meta.tools = Some(turn.meta(form.is_some(), dropped));
                read.map(|read| (read.answer, read.rung, read.rungs_changed, read.coercions))
            }
            None => {
                let repaired =
                    repair::repair(&text, &options.clone().finish_reason_length(truncated));
                stats.record(&repaired);
                repaired
                    .map(|repaired| {
                        (
                            Answer::Value(repaired.value),
                            repaired.rung,
                            repaired.rungs_changed,
                            repaired.coercions,
                        )
                    })
                    .map_err(|failure| TurnFailure {
                        failure,
                        called: None,
                    })
            }
        };
        // An answer cut off by a loop is the loop's failure, whatever the rest of the text
        // looked like once cut.
        let read = read.map_err(|mut failed| {
            if matches!(
                failed.failure.class,
                FailureClass::Truncated
                    | FailureClass::Prose
                    | FailureClass::Malformed
                    | FailureClass::Empty
            ) && let Some(repetition) = &meta.repetition
            {
                failed.failure.class = FailureClass::Repetition;
                failed.failure.message =
                    format!("the answer loops: {repetition}; {}", failed.failure.message);
                failed.failure.repetition = Some(repetition.clone());
            }
            failed
        });
        match read {
            Ok((answer, rung, rungs_changed, coercions)) => {
                meta.repair_rung = Some(rung);
                meta.rungs_changed = rungs_changed;
                meta.coercions = coercions;
                break Ok(answer);
            }
            Err(mut failed) => {
                if failed.failure.class == FailureClass::Empty
                    && truncated
                    && meta
                        .reasoning
                        .as_ref()
                        .is_some_and(|reasoning| reasoning.unfinished)
                {
                    // Not an empty answer: the budget ran out while the model was still
                    // thinking. More room is what it needs.
                    failed.failure.class = FailureClass::Truncated;
                    failed.failure.message =
                        "the token budget ran out inside the model's reasoning, before the answer"
                            .to_owned();
                }
                let failure = &failed.failure;
                meta.rungs_changed = failure.rungs_changed.clone();
                meta.coercions = failure.coercions.clone();
                if meta.repetition.is_none() {
                    meta.repetition = failure.repetition.clone();
                }
                if meta.reasks.len() as u32 >= plan.reask {
                    break Err(Failed::Violation(Box::new(failed.failure), text));
                }
                let action = next_action(failure.class);
                let allowance = Allowance {
                    budget,
                    cap: plan.max_tokens_cap,
                    room: room(deadline, meta.tokens_per_second),
                    sampling: anti_repetition.clone(),
                    fresh_seed: exchange.jitter.next_u64() >> 33,
                };
                let next = match &plan.turn {
                    Some(turn) => evolve::reask_tool_request(
                        action, &original, &failed, turn, &text, &allowance,
                    ),
                    None => evolve::reask_request(action, &original, failure, &text, &allowance),
                };
                let Some(next) = next else {
                    meta.warnings.push(format!(
                        "no re-ask after the {} answer: the call's deadline leaves no room for one",
                        failure.class
                    ));
                    break Err(Failed::Violation(Box::new(failed.failure), text));
                };
                if failure.class == FailureClass::RepeatedCall
                    && plan.turn.as_ref().is_some_and(|turn| !turn.has_schema)
                    && !exchange.answer_only
                {
                    // The results are in the conversation: the re-asks offer the model no tool
                    // again (the re-ask's `repeated_call` class in the meta says why).
                    exchange.answer_only = true;
                }
                chat = next;
                budget = chat.max_tokens.unwrap_or(budget);
                meta.reasks.push(Reask {
                    class: failure.class,
                    action,
                    max_tokens: budget,
                    temperature: chat.temperature,
                    seed: chat.seed,
                });
            }
        }
    };
    stats.record_call(match (&result, meta.reasks.is_empty(), meta.repair_rung) {
        (Err(_), _, _) => CallEnding::Failed,
        (Ok(_), false, _) => CallEnding::Reasked,
        (Ok(_), true, Some(Rung::None)) => CallEnding::AsIs,
        (Ok(_), true, _) => CallEnding::Repaired,
    });
    if settings.record_stats
        && let Some(path) = &context.stats_file
    {
        match crate::files::stats::add(&stats, path) {
            Ok(None) => {}
            Ok(Some(replaced)) => meta
                .warnings
                .push(format!("{replaced}; the repair stats start afresh")),
            Err(error) => meta
                .warnings
                .push(format!("repair stats not saved: {error}")),
        }
    }
    meta.warnings.extend(context.remember_refusals());
    meta.retry_count = meta.reasks.len() as u32;
    meta.degrade_reason = degrade_reason(&meta);
    meta.elapsed_ms = started.elapsed().as_millis() as u64;
    match result {
        Ok(answer) => Ok(StructuredOutcome { answer, meta }),
        Err(Failed::Endpoint(error)) => Err(CallFailure::Endpoint {
            error,
            meta: Box::new(meta),
        }),
        Err(Failed::Deadline(text)) => {
            meta.stream_end = StreamEnding::Deadline;
            let evidence = repair::repair(&text, &options.clone().finish_reason_length(true)).err();
            let (raw, raw_cut) = bounded(&text);
            let (partial, missing_required) = evidence
                .map(|failure| (failure.partial, failure.missing_required))
                .unwrap_or_default();
            Err(CallFailure::DeadlineExceeded(Box::new(DeadlineExceeded {
                deadline: plan.call_timeout,
                raw,
                raw_cut,
                partial,
                missing_required,
                meta,
            })))
        }
        Err(Failed::Violation(failure, text)) => {
            let (raw, raw_cut) = bounded(&text);
            let text_fallback = (settings.text_fallback && !text.trim().is_empty()).then(|| {
                meta.warnings
                    .extend(context.record_text_fallback(failure.class));
                text
            });
            Err(CallFailure::SchemaViolation(Box::new(SchemaViolation {
                class: failure.class,
                message: failure.message,
                errors: failure.errors,
                raw,
                raw_cut,
                partial: failure.partial,
                missing_required: failure.missing_required,
                text_fallback,
                meta,
            })))
        }
    }
}

/// The warning of an answer whose reasoning was ended by the server's stop sequences.
const STOPPED_IN_REASONING: &str = "the server's stop sequences ended the answer inside the model's reasoning: asked again with them applied after the reasoning only";

/// The warning of an answer with reasoning and no content.
const ONLY_REASONING: &str = "the answer had reasoning but no content (the reasoning is never read as the answer): give the model more max_tokens to finish thinking, or set thinking = off";

/// The warning of a constrained answer the server returned as reasoning.
const MISFILED: &str = "the server returned the constrained answer as reasoning (the chat template opens a reasoning block and the constraint applies from the first token): read from the reasoning field; thinking = off puts it in the content";

/// The reasoning of `response`, kept apart: the engine's own field, or a leading block of its
/// text.
fn reasoning_meta(response: &ChatResponse) -> Option<ReasoningMeta> {
    let content = response.content.as_deref().unwrap_or("");
    let (source, (text, unfinished)) = match &response.reasoning {
        Some(reasoning) => (
            ReasoningSource::Field,
            (reasoning.trim(), response.is_blank()),
        ),
        None => (ReasoningSource::Inline, repair::leading_reasoning(content)?),
    };
    let (text, text_cut) = bounded(text);
    Some(ReasoningMeta {
        source,
        text,
        text_cut,
        unfinished,
    })
}

/// How the loop ended without a value.
enum Failed {
    Endpoint(CallError),
    Violation(Box<repair::RepairFailure>, String),
    /// The deadline passed; the text that had arrived.
    Deadline(String),
}

/// Tokens per second of an answer's generation: the server's count of completion tokens when
/// it gave one, otherwise the text chunks, over the time from the first text to the last.
fn generation_rate(timing: &Timing, usage: &Usage) -> Option<f64> {
    let seconds = timing.generating.as_secs_f64();
    if seconds <= 0.0 {
        return None;
    }
    let tokens = usage.completion_tokens.unwrap_or(timing.text_chunks);
    (tokens >= 2).then(|| tokens.saturating_sub(1) as f64 / seconds)
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

/// The first reason that applies, in [`DegradeReason`]'s order.
fn degrade_reason(meta: &CallMeta) -> Option<DegradeReason> {
    match meta.source {
        ChainSource::StructuredDecodingOff => return Some(DegradeReason::StructuredDecodingOff),
        // `tool_choice: none` carries no tools: a plain text answer, nothing degraded.
        ChainSource::Tools => {
            let carried_nothing = meta
                .tools
                .as_ref()
                .is_some_and(|tools| tools.carried == "nothing");
            return (!carried_nothing).then_some(DegradeReason::ToolsInRequest);
        }
        ChainSource::Negotiated | ChainSource::Forced => {}
    }
    if !meta.demotions.is_empty() {
        Some(DegradeReason::Demoted)
    } else if meta.source == ChainSource::Negotiated
        && meta.first_mechanism == Mechanism::PromptOnly
    {
        Some(DegradeReason::NoConstraint)
    } else if !meta.reasks.is_empty() {
        Some(DegradeReason::Reasked)
    } else if meta.repair_rung.is_some_and(|rung| rung != Rung::None) {
        Some(DegradeReason::Repaired)
    } else {
        None
    }
}
