//! Finishing a call: its repair statistics counted and saved, its meta completed, and its
//! ending turned into the outcome or the failure the caller gets.

use crate::backends::stream::StreamEnding;
use crate::repair::{self, CallEnding, Rung};
use crate::schema::Mechanism;

use super::outcome::{
    CallFailure, CallMeta, ChainSource, DeadlineExceeded, DegradeReason, SchemaViolation,
    StructuredOutcome, bounded,
};
use super::{Call, Ending};

impl Call<'_> {
    /// The outcome of a call that ended with `ending`.
    pub(super) fn finish(mut self, ending: Ending) -> Result<StructuredOutcome, CallFailure> {
        self.save_stats(&ending);
        let settings = &self.context.settings;
        let mut meta = self.meta;
        meta.warnings.extend(self.context.remember_refusals());
        meta.retry_count = meta.reasks.len() as u32;
        meta.degrade_reason = degrade_reason(&meta);
        meta.elapsed_ms = self.started.elapsed().as_millis() as u64;
        match ending {
            Ending::Value(answer) => Ok(StructuredOutcome { answer, meta }),
            Ending::Endpoint(error) => Err(CallFailure::Endpoint {
                error,
                meta: Box::new(meta),
            }),
            Ending::Deadline(text) => {
                meta.stream_end = StreamEnding::Deadline;
                let cut = self.options.clone().finish_reason_length(true);
                let evidence = repair::repair(&text, &cut).err();
                let (raw, raw_cut) = bounded(&text);
                let (partial, missing_required) = evidence
                    .map(|failure| (failure.partial, failure.missing_required))
                    .unwrap_or_default();
                Err(CallFailure::DeadlineExceeded(Box::new(DeadlineExceeded {
                    deadline: self.plan.call_timeout,
                    raw,
                    raw_cut,
                    partial,
                    missing_required,
                    meta,
                })))
            }
            Ending::Violation(failure, text) => {
                let (raw, raw_cut) = bounded(&text);
                let text_fallback =
                    (settings.text_fallback && !text.trim().is_empty()).then(|| {
                        meta.warnings
                            .extend(self.context.record_text_fallback(failure.class));
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

    /// Counts how the call ended in the repair statistics, and adds them to the stats file
    /// when `record_stats` is on.
    fn save_stats(&mut self, ending: &Ending) {
        let reasked = !self.meta.reasks.is_empty();
        self.stats
            .record_call(match (ending, reasked, self.meta.repair_rung) {
                (Ending::Value(_), false, Some(Rung::None)) => CallEnding::AsIs,
                (Ending::Value(_), false, _) => CallEnding::Repaired,
                (Ending::Value(_), true, _) => CallEnding::Reasked,
                _ => CallEnding::Failed,
            });
        if !self.context.settings.record_stats {
            return;
        }
        let Some(path) = &self.context.stats_file else {
            return;
        };
        match crate::files::stats::add(&self.stats, path) {
            Ok(None) => {}
            Ok(Some(replaced)) => self
                .meta
                .warnings
                .push(format!("{replaced}; the repair stats start afresh")),
            Err(error) => self
                .meta
                .warnings
                .push(format!("repair stats not saved: {error}")),
        }
    }
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
