//! The structured call path: one function, [`structured_call`], that every structured request
//! takes (DESIGN.md, "The structured call path"), and that `slmcode generate` exposes.
//!
//! Given settings, a [`StructuredRequest`] (a contract, a caller's schema or a role, and the
//! messages) and a [`CallContext`] (the target, its negotiated capabilities, the cache), it
//! 1. plans the request ([`request`]): the original schema, the contract's prompt (or the
//!    caller's prompt and schema) injected into the system message under every mechanism, the
//!    role's stop sequences, whether tools ride along;
//! 2. walks the mechanism ladder ([`ladder`]): prompt-only when `structured_decoding` is off
//!    or the request carries tools; otherwise the negotiated (or forced) forms with the
//!    schema projected for each, demoting a form on a permanent rejection of its field (or on
//!    a non-4xx failure that the same request without the field does not have), and falling
//!    to the plain request when the ladder is exhausted: constrained decoding is never the
//!    reason a call fails;
//! 3. extracts and validates every answer against the original schema with the repair
//!    ladder, whatever the server claimed, and counts an answer that does not parse under a
//!    form that claims to enforce (two in a row: the form is marked not enforced and demoted);
//! 4. on a failure, sends at most `reask` re-asks matched to the failure class ([`evolve`]);
//! 5. returns the value with its [`CallMeta`], or a [`CallFailure`]: an endpoint failure, or a
//!    [`SchemaViolation`] with the validation errors, the bounded raw text, and for a
//!    truncated object the complete members and the required ones missing.
//!
//! Repair statistics are added to the context's stats file when `record_stats` is on. The
//! only retry is the retry policy's, per request; the provider's own fixed-delay retry
//! (`llm_retry_count`) is for the ordinary path and is not used here.

mod context;
pub mod evolve;
mod ladder;
mod outcome;
pub mod request;

#[cfg(test)]
mod tests;

use crate::config::Settings;
use crate::repair::{self, RepairOptions, Rung, Stats};
use crate::schema::Mechanism;

use super::capabilities::WireForm;
use super::errors::CallError;

pub use context::{CallContext, Sleep};
pub use evolve::{Action, EVOLVE, next_action};
pub use ladder::ENFORCEMENT_THRESHOLD;
pub use outcome::{
    Answer, CallFailure, CallMeta, DegradeReason, LadderSource, RAW_TEXT_LIMIT, Reask,
    SchemaViolation, StructuredOutcome,
};
pub use request::{
    DEFAULT_MAX_TOKENS_CAP, JSON_ONLY, OutputSchema, RequestError, StructuredRequest,
};

use ladder::Exchange;
use outcome::{add_usage, bounded};
use request::Plan;

/// Runs one structured request (see the module docs).
pub fn structured_call(
    settings: &Settings,
    request: &StructuredRequest,
    context: &CallContext,
) -> Result<StructuredOutcome, CallFailure> {
    let plan = Plan::resolve(settings, request)?;
    // The schema compiled while planning; this only borrows the cached validator.
    let options = RepairOptions::new()
        .schema(&plan.schema)
        .map_err(request::RequestError::from)?;
    let mut exchange = Exchange::new(settings, request, &plan, context);
    let first = exchange.ladder.first();
    let mut meta = CallMeta {
        mechanism: mechanism_of(first),
        wire_form: first,
        source: exchange.ladder.source,
        first_mechanism: mechanism_of(first),
        demotions: Vec::new(),
        repair_rung: None,
        rungs_changed: Vec::new(),
        coercions: Vec::new(),
        attempts: 0,
        reasks: Vec::new(),
        retry_count: 0,
        requests: 0,
        degrade_reason: None,
        finish_reason: None,
        tokens: None,
        notes: Vec::new(),
        warnings: Vec::new(),
    };
    let mut original = plan.request.clone();
    original.model = context.target.model.clone();
    let mut chat = original.clone();
    let mut budget = original.max_tokens.unwrap_or(settings.max_tokens);
    let mut stats = Stats::new();
    let result = loop {
        meta.attempts += 1;
        let (response, form) = match exchange.send(&chat, &mut meta) {
            Ok(answer) => answer,
            Err(error) => break Err(Failed::Endpoint(error)),
        };
        meta.mechanism = mechanism_of(form);
        meta.wire_form = form;
        meta.finish_reason = response.finish_reason.clone();
        add_usage(&mut meta.tokens, response.usage);
        if !response.tool_calls.is_empty() {
            let mut calls = response.tool_calls;
            if plan.serial_tools {
                calls.truncate(1);
            }
            break Ok(Answer::ToolCalls(calls));
        }
        let text = response.content.unwrap_or_default();
        let truncated = response.finish_reason.as_deref() == Some("length");
        if let Some(form) = form
            && !truncated
        {
            exchange.check_enforcement(form, &text, &mut meta);
        }
        let repaired = repair::repair(&text, &options.clone().finish_reason_length(truncated));
        stats.record(&repaired);
        match repaired {
            Ok(repaired) => {
                meta.repair_rung = Some(repaired.rung);
                meta.rungs_changed = repaired.rungs_changed;
                meta.coercions = repaired.coercions;
                break Ok(Answer::Value(repaired.value));
            }
            Err(failure) => {
                meta.rungs_changed = failure.rungs_changed.clone();
                meta.coercions = failure.coercions.clone();
                if meta.reasks.len() as u32 >= plan.reask {
                    break Err(Failed::Violation(Box::new(failure), text));
                }
                let action = next_action(failure.class);
                chat = evolve::reask_request(
                    action,
                    &original,
                    &failure,
                    &text,
                    budget,
                    plan.max_tokens_cap,
                );
                budget = chat.max_tokens.unwrap_or(budget);
                meta.reasks.push(Reask {
                    class: failure.class,
                    action,
                    max_tokens: budget,
                });
            }
        }
    };
    if settings.record_stats
        && let Some(path) = &context.stats_file
    {
        match stats.add_to_file(path) {
            Ok(None) => {}
            Ok(Some(replaced)) => meta
                .warnings
                .push(format!("{replaced}; the repair stats start afresh")),
            Err(error) => meta
                .warnings
                .push(format!("repair stats not saved: {error}")),
        }
    }
    meta.degrade_reason = degrade_reason(&meta);
    match result {
        Ok(answer) => Ok(StructuredOutcome { answer, meta }),
        Err(Failed::Endpoint(error)) => Err(CallFailure::Endpoint {
            error,
            meta: Box::new(meta),
        }),
        Err(Failed::Violation(failure, text)) => {
            let (raw, raw_cut) = bounded(&text);
            Err(CallFailure::SchemaViolation(Box::new(SchemaViolation {
                class: failure.class,
                message: failure.message,
                errors: failure.errors,
                raw,
                raw_cut,
                partial: failure.partial,
                missing_required: failure.missing_required,
                meta,
            })))
        }
    }
}

/// How the loop ended without a value.
enum Failed {
    Endpoint(CallError),
    Violation(Box<repair::RepairFailure>, String),
}

fn mechanism_of(form: Option<WireForm>) -> Mechanism {
    form.map_or(Mechanism::PromptOnly, WireForm::mechanism)
}

/// The first reason that applies, in [`DegradeReason`]'s order.
fn degrade_reason(meta: &CallMeta) -> Option<DegradeReason> {
    match meta.source {
        LadderSource::StructuredDecodingOff => return Some(DegradeReason::StructuredDecodingOff),
        LadderSource::Tools => return Some(DegradeReason::ToolsInRequest),
        LadderSource::Negotiated | LadderSource::Forced => {}
    }
    if !meta.demotions.is_empty() {
        Some(DegradeReason::Demoted)
    } else if meta.source == LadderSource::Negotiated
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
