//! Reading one answer: what it says about the engine (the mechanism that carried it, its finish
//! reason, its rate, its reasoning), where it ends, whether a form that claims to enforce did,
//! and what it holds: a value, or a failure in the class the next request is matched to.

use crate::repair::{self, FailureClass, Rung};

use super::outcome::{ReasoningMeta, ReasoningSource, add_usage, bounded};
use super::turn::read::TurnFailure;
use super::walk::{Received, parses};
use super::watch::Verdict;
use super::{Answer, Call};
use crate::backends::chat::{ChatResponse, ToolCall, Usage};
use crate::backends::stream::{StreamEnding, Timing};

/// The warning of an answer whose reasoning was ended by the server's stop sequences.
pub(super) const STOPPED_IN_REASONING: &str = "the server's stop sequences ended the answer inside the model's reasoning: asked again with them applied after the reasoning only";

/// The warning of an answer with reasoning and no content.
const ONLY_REASONING: &str = "the answer had reasoning but no content (the reasoning is never read as the answer): give the model more max_tokens to finish thinking, or set thinking = off";

/// The warning of a constrained answer the server returned as reasoning.
const MISFILED: &str = "the server returned the constrained answer as reasoning (the chat template opens a reasoning block and the constraint applies from the first token): read from the reasoning field; thinking = off puts it in the content";

/// One answer as it came, with its reasoning kept apart.
pub(super) struct Reply {
    pub received: Received,
    pub reasoning: Option<ReasoningMeta>,
}

impl Reply {
    pub fn new(received: Received) -> Reply {
        let reasoning = reasoning_meta(&received.streamed.response);
        Reply {
            received,
            reasoning,
        }
    }

    /// Whether the server's stop sequences ended the answer inside the model's reasoning (the
    /// model thinks although it was asked not to): stopped, no call, the reasoning unfinished.
    pub fn stopped_in_reasoning(&self) -> bool {
        let response = &self.received.streamed.response;
        response.finish_reason.as_deref() == Some("stop")
            && response.tool_calls.is_empty()
            && self
                .reasoning
                .as_ref()
                .is_some_and(|reasoning| reasoning.unfinished)
    }
}

/// An answer's text and calls, once recorded, and how its stream ended.
struct Recorded {
    text: String,
    native_calls: Vec<ToolCall>,
    end: StreamEnding,
    verdict: Option<Verdict>,
}

/// What an answer held.
pub(super) enum Read {
    Value(Answer),
    /// A failure, and the text it was read from.
    Failed(Box<TurnFailure>, String),
    /// The deadline passed while it came; what had arrived.
    Deadline(String),
}

impl Call<'_> {
    /// Reads `reply`: records it in the meta, cuts it where the watcher ended it, counts it
    /// toward the form's enforcement, and judges it: a value, or a failure classed for what it
    /// is.
    pub(super) fn read(&mut self, reply: Reply) -> Read {
        let form = reply.received.form;
        let Recorded {
            text: received,
            native_calls,
            end,
            verdict,
        } = self.record(reply);
        let mut text = received.clone();
        let Some(truncated) = self.cut(&mut text, end, verdict) else {
            return Read::Deadline(text);
        };
        let judged = self.judge(&text, &native_calls, form.is_some(), truncated);
        if let Some(form) = form
            && !truncated
            && native_calls.is_empty()
            && self
                .plan
                .turn
                .as_ref()
                .is_none_or(|turn| turn.checks_enforcement(&received))
        {
            // The text as it came, prose after a value included: under a form that claims to
            // enforce, that is the sign it does not. The judgement carries over when it read
            // the whole text as JSON as it stood; only otherwise is the text parsed again.
            let as_it_stood = judged.is_ok()
                && self.plan.turn.is_none()
                && self.meta.repair_rung == Some(Rung::None)
                && text.len() == received.len()
                && !received.starts_with('\u{feff}');
            let parsed = as_it_stood || parses(&received);
            self.walk.count_enforcement(form, parsed, &received);
            self.learn();
        }
        match judged {
            Ok(answer) => Read::Value(answer),
            Err(mut failed) => {
                self.reclass(&mut failed, truncated);
                let failure = &failed.failure;
                self.meta.rungs_changed = failure.rungs_changed.clone();
                self.meta.coercions = failure.coercions.clone();
                if self.meta.repetition.is_none() {
                    self.meta.repetition = failure.repetition.clone();
                }
                Read::Failed(failed, text)
            }
        }
    }

    /// Records what an answer says about the engine: the form that carried it, its finish
    /// reason, rate, tokens and reasoning; returns its text and native calls. A constrained
    /// answer the server filed as reasoning is read from there.
    fn record(&mut self, reply: Reply) -> Recorded {
        let Received {
            streamed,
            form,
            verdict,
            notes,
        } = reply.received;
        let response = streamed.response;
        self.meta.reasoning = reply.reasoning;
        self.meta.notes = notes;
        self.meta.mechanism = super::mechanism_of(form);
        self.meta.wire_form = form;
        self.meta.finish_reason = response.finish_reason.clone();
        self.meta.streamed = streamed.streamed;
        self.meta.tokens_per_second = generation_rate(&streamed.timing, &response.usage);
        self.meta.repetition = None;
        add_usage(&mut self.meta.tokens, response.usage);
        let misfiled = form.and(response.misfiled_answer().map(str::to_owned));
        self.warn_about_reasoning(&response, misfiled.is_some());
        Recorded {
            text: misfiled.unwrap_or_else(|| response.content.unwrap_or_default()),
            native_calls: response.tool_calls,
            end: streamed.end,
            verdict,
        }
    }

    /// Repairs and validates `text` against the schema (a tool turn's answer: its calls, each
    /// against its tool), recording the rungs and coercions of a value.
    fn judge(
        &mut self,
        text: &str,
        native_calls: &[ToolCall],
        constrained: bool,
        truncated: bool,
    ) -> Result<Answer, Box<TurnFailure>> {
        let (answer, rung, rungs_changed, coercions) = match &self.plan.turn {
            Some(turn) => {
                let schema = turn.has_schema.then_some(&self.options);
                let read =
                    super::turn::read::read(turn, native_calls, Some(text), truncated, schema);
                let dropped = read.as_ref().map_or(0, |read| read.dropped);
                self.meta.tools = Some(turn.meta(constrained, dropped));
                let read = read.map_err(Box::new)?;
                (read.answer, read.rung, read.rungs_changed, read.coercions)
            }
            None => {
                let options = self.options.clone().finish_reason_length(truncated);
                let repaired = repair::repair(text, &options);
                self.stats.record(&repaired);
                let repaired = repaired.map_err(|failure| {
                    Box::new(TurnFailure {
                        failure,
                        called: None,
                    })
                })?;
                (
                    Answer::Value(repaired.value),
                    repaired.rung,
                    repaired.rungs_changed,
                    repaired.coercions,
                )
            }
        };
        self.meta.repair_rung = Some(rung);
        self.meta.rungs_changed = rungs_changed;
        self.meta.coercions = coercions;
        Ok(answer)
    }

    /// Warns once per call of a constrained answer the server filed as reasoning, and of an
    /// answer with reasoning in a field of its own and no content.
    fn warn_about_reasoning(&mut self, response: &ChatResponse, misfiled: bool) {
        let warnings = &mut self.meta.warnings;
        if misfiled {
            self.meta.reasoning = None;
            if !warnings.iter().any(|known| known == MISFILED) {
                warnings.push(MISFILED.to_owned());
            }
        } else if response.is_blank()
            && self
                .meta
                .reasoning
                .as_ref()
                .is_some_and(|reasoning| reasoning.source == ReasoningSource::Field)
            && !warnings.iter().any(|known| known == ONLY_REASONING)
        {
            warnings.push(ONLY_REASONING.to_owned());
        }
    }

    /// Cuts `text` where the watcher ended the answer (a complete value, a stop sequence, a
    /// loop) and records how it ended; whether it is cut short (by a loop or the budget), or
    /// `None` when the call's deadline ended it.
    fn cut(
        &mut self,
        text: &mut String,
        end: StreamEnding,
        verdict: Option<Verdict>,
    ) -> Option<bool> {
        let (ending, truncated) = match (end, verdict) {
            (StreamEnding::Deadline, _) => {
                self.meta.stream_end = StreamEnding::Deadline;
                return None;
            }
            (_, Some(Verdict::Done { end })) => {
                text.truncate(end);
                (StreamEnding::Done, false)
            }
            (_, Some(Verdict::Stop { end })) => {
                text.truncate(end);
                (StreamEnding::Stop, false)
            }
            (_, Some(Verdict::Repetition(repetition))) => {
                // What a stream is cut at, also for a whole answer that went on past it.
                let mut end = repetition.end.min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                text.truncate(end);
                self.meta.repetition = Some(repetition);
                (StreamEnding::Repetition, true)
            }
            (_, None) => (
                StreamEnding::Finished,
                self.meta.finish_reason.as_deref() == Some("length"),
            ),
        };
        self.meta.stream_end = ending;
        Some(truncated)
    }

    /// Classes a failure for what it is: an answer cut off by a loop is the loop's failure,
    /// whatever the rest of the text looked like once cut; an empty answer cut by the budget
    /// while the model was still thinking is a truncation (more room is what it needs).
    fn reclass(&self, failed: &mut TurnFailure, truncated: bool) {
        let failure = &mut failed.failure;
        if matches!(
            failure.class,
            FailureClass::Truncated
                | FailureClass::Prose
                | FailureClass::Malformed
                | FailureClass::Empty
        ) && let Some(repetition) = &self.meta.repetition
        {
            failure.class = FailureClass::Repetition;
            failure.message = format!("the answer loops: {repetition}; {}", failure.message);
            failure.repetition = Some(repetition.clone());
        }
        if failure.class == FailureClass::Empty
            && truncated
            && self
                .meta
                .reasoning
                .as_ref()
                .is_some_and(|reasoning| reasoning.unfinished)
        {
            failure.class = FailureClass::Truncated;
            failure.message =
                "the token budget ran out inside the model's reasoning, before the answer"
                    .to_owned();
        }
    }
}

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
