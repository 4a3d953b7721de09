//! The walk down the mechanism chain: one answer asked for on the chain's current form, and
//! every step down the chain that the server's answers call for.
//!
//! [`Walk::send`] sends one request on the current form with the retry policy (the only
//! retry on this path: the provider's own fixed-delay retry is not used) and walks down:
//! - a permanent rejection (400, 404, 413, 422; a context overflow is its own class) of a
//!   constrained request, which differs from the plain one only by its constrained field, moves
//!   to the next form at once;
//! - a constrained request that still fails after its retries with a 500 or a broken answer
//!   (never a 502, 503 or 504: those say the server is loading or overloaded, not that it
//!   refuses the field) is sent once without the field; if that succeeds, the constrained
//!   request is sent once more, and only when it fails the same way again is the field the
//!   cause: the evidence twice in a row. A server that recovered in between answers the
//!   second constrained request, and nothing is demoted;
//! - rejections become demotions, recorded in the cache with status, time and body excerpt,
//!   as soon as a later request on the chain succeeds. Until then they are only suspected: if
//!   the plain request fails as well (a wrong model name, a bad key), the server is the
//!   problem, nothing is demoted, and the error is returned;
//! - every other failure (rate limits and transient errors after their retries, cancellations,
//!   context overflows, authentication) is returned as it is and never demotes.

use std::borrow::Cow;
use std::time::Instant;

use crate::config::Settings;
use crate::repair::{RepairOptions, RepetitionDetector};
use crate::schema::{self, Constraint, Problem};

use super::chain::MechanismChain;
use super::context::{CallContext, CallProgress};
use super::request::{CallPlan, StructuredRequest};
use super::watch::{Verdict, Watcher};
use crate::backends::cache::Demotion;
use crate::backends::capabilities::{GuidedField, WireForm};
use crate::backends::chat::ChatRequest;
use crate::backends::errors::{CallError, ErrorClass};
use crate::backends::retry::Jitter;
use crate::backends::stream::{Flow, StreamEnding, StreamLimits, Streamed};

/// How many unparseable answers in a row under a form mark it not enforced.
pub const ENFORCEMENT_THRESHOLD: u32 = 2;

/// A constraint ready for the wire, and what its projection left out.
struct Wire {
    constraint: Constraint,
    field: GuidedField,
    notes: Vec<Problem>,
}

/// The constraint `form` sends for `plan`: the schema's projection for the form's mechanism
/// ([`schema::project`]), named with the plan's name (the contract's name, or the caller's),
/// and strict exactly when the form is the strict one (which only a strict-ready schema
/// reaches).
fn wire(form: Option<WireForm>, plan: &CallPlan) -> Wire {
    let Some(form) = form else {
        return Wire::plain();
    };
    let field = match form {
        WireForm::GuidedJson => GuidedField::GuidedJson,
        _ => GuidedField::StructuredOutputs,
    };
    if let Some(turn) = &plan.turn {
        let (constraint, notes) = turn.wire(form);
        return Wire {
            constraint,
            field,
            notes,
        };
    }
    let projection = schema::project_with(&plan.schema, form.mechanism(), plan.grammar_whitespace);
    let constraint = match projection.constraint {
        Constraint::JsonSchema { schema, .. } => Constraint::JsonSchema {
            name: plan.name.clone(),
            schema,
            strict: form == WireForm::JsonSchemaStrict,
        },
        other => other,
    };
    Wire {
        constraint,
        field,
        notes: projection.notes,
    }
}

impl Wire {
    /// Nothing on the wire.
    fn plain() -> Wire {
        Wire {
            constraint: Constraint::None,
            field: GuidedField::default(),
            notes: Vec::new(),
        }
    }

    /// Whether the constraint enforces the whole schema: a grammar, strict json_schema or
    /// guided decoding, with nothing left out by the projection.
    fn is_exact(&self) -> bool {
        self.notes.is_empty()
            && matches!(
                self.constraint,
                Constraint::Grammar { .. }
                    | Constraint::GuidedJson { .. }
                    | Constraint::JsonSchema { strict: true, .. }
            )
    }
}

/// The wire of a request that leaves only an answer in text: the text grammar on a grammar
/// form, nothing on any other.
fn answer_only_wire(form: Option<WireForm>) -> Wire {
    let constraint = match form {
        Some(WireForm::Grammar) => Constraint::Grammar {
            gbnf: crate::tools::TEXT_GRAMMAR.to_owned(),
        },
        _ => Constraint::None,
    };
    Wire {
        constraint,
        field: GuidedField::default(),
        notes: Vec::new(),
    }
}

/// Whether a failure of a constrained request is a permanent rejection of its field.
fn is_rejection(error: &CallError) -> bool {
    error.class == ErrorClass::Permanent && matches!(error.status, Some(400 | 404 | 413 | 422))
}

/// Whether a failure of a constrained request (after its retries) calls for the plain resend:
/// a 500 (how llama-cpp-python and early-2025 llama-server say no to a field), or an answer
/// that is not a chat completion. Never a connection failure, a 502, 503 or 504 (a server
/// loading or overloaded), a 4xx, a rate limit, a cancellation or a context overflow.
fn calls_for_plain_resend(error: &CallError) -> bool {
    match error.class {
        ErrorClass::Transient => error.status == Some(500),
        ErrorClass::Unknown => !error
            .status
            .is_some_and(|status| (400..500).contains(&status)),
        _ => false,
    }
}

/// One answer as it came: the HTTP exchange, the form it was sent with (`None`: plain), the
/// watcher's verdict on its text, and what the projection left out of that form.
pub(super) struct Received {
    pub streamed: Streamed,
    pub form: Option<WireForm>,
    pub verdict: Option<Verdict>,
    pub notes: Vec<Problem>,
}

/// What a walk learned that the call reports: the requests it sent, the demotions it made and
/// the warnings that came with them. Taken by the call after each step ([`Walk::take_learned`]).
#[derive(Debug, Default)]
pub(super) struct Learned {
    /// HTTP requests sent: answers, retries, rejected forms, plain resends.
    pub requests: u32,
    /// Of those, the same request again after a transient failure.
    pub transport_retries: u32,
    /// Forms this call demoted, in order, with their evidence.
    pub demotions: Vec<Demotion>,
    /// What the cache said back when a demotion or an enforcement count was recorded.
    pub warnings: Vec<String>,
}

/// One call's walk down the mechanism chain.
pub(super) struct Walk<'a> {
    context: &'a CallContext,
    plan: &'a CallPlan,
    /// The mechanism chain.
    pub chain: MechanismChain,
    /// Draws backoff jitter and the fresh seeds of anti-repetition re-asks.
    jitter: Jitter,
    limits: StreamLimits,
    started: Instant,
    /// Rejections not yet confirmed by a later success.
    suspected: Vec<Demotion>,
    /// Whether the requests from now on leave a tool turn's model only an answer in text: no
    /// tools offered, and on a grammar form a grammar of text alone. Set after a repeated call
    /// under `auto`, when the results the model needs are in the conversation already.
    pub answer_only: bool,
    learned: Learned,
}

impl<'a> Walk<'a> {
    /// A walk for `plan` through `context`, with every request bounded by `limits`.
    pub fn new(
        settings: &Settings,
        request: &StructuredRequest,
        plan: &'a CallPlan,
        context: &'a CallContext,
        limits: StreamLimits,
    ) -> Walk<'a> {
        Walk {
            context,
            plan,
            chain: MechanismChain::new(settings, request, plan, context),
            jitter: context
                .jitter_seed
                .map_or_else(Jitter::from_entropy, Jitter::seeded),
            limits,
            started: Instant::now(),
            suspected: Vec::new(),
            answer_only: false,
            learned: Learned::default(),
        }
    }

    /// What the walk learned since the last time this was called.
    pub fn take_learned(&mut self) -> Learned {
        std::mem::take(&mut self.learned)
    }

    /// A fresh sampling seed, for a re-ask that must not repeat the last answer.
    pub fn fresh_seed(&mut self) -> u64 {
        self.jitter.next_u64() >> 33
    }

    /// Asks for answer number `attempt` with `chat` on the current form, walking down as the
    /// module docs say, with every answer watched by a [`Watcher`] over `options`.
    pub fn send(
        &mut self,
        chat: &ChatRequest,
        options: &RepairOptions<'_>,
        attempt: u32,
    ) -> Result<Received, CallError> {
        loop {
            let form = self.chain.current();
            let wire = if self.answer_only {
                answer_only_wire(form)
            } else {
                wire(form, self.plan)
            };
            let sent = self.on_wire(chat, &wire);
            let error = match self.with_retries(&sent, &wire, options, attempt) {
                Ok((streamed, verdict)) => {
                    self.confirm();
                    return Ok(Received {
                        streamed,
                        form,
                        verdict,
                        notes: wire.notes,
                    });
                }
                Err(error) => error,
            };
            let Some(form) = form else {
                return Err(error);
            };
            if is_rejection(&error) {
                self.suspect(form, &error);
                self.chain.advance();
                continue;
            }
            if !calls_for_plain_resend(&error) {
                return Err(error);
            }
            self.learned.requests += 1;
            let plain_chat = self.on_wire(chat, &Wire::plain());
            let Ok((plain, verdict)) = self.exchange(&plain_chat, &Wire::plain(), options, attempt)
            else {
                return Err(error);
            };
            self.learned.requests += 1;
            // The constrained request again, as the first went (a tool turn's tools described).
            let again = match self.exchange(&sent, &wire, options, attempt) {
                Ok((streamed, verdict)) => {
                    self.confirm();
                    return Ok(Received {
                        streamed,
                        form: Some(form),
                        verdict,
                        notes: wire.notes,
                    });
                }
                Err(again) => again,
            };
            if !calls_for_plain_resend(&again) {
                // Not the same failure twice: no evidence against the field. The plain answer
                // serves this call; nothing is demoted.
                self.confirm();
                return Ok(Received {
                    streamed: plain,
                    form: None,
                    verdict,
                    notes: Vec::new(),
                });
            }
            self.suspect(form, &error);
            self.confirm();
            self.chain.advance();
            if self.chain.current().is_none() {
                return Ok(Received {
                    streamed: plain,
                    form: None,
                    verdict,
                    notes: Vec::new(),
                });
            }
        }
    }

    /// `chat` as a request with `wire` sends it: a tool turn puts its tools on it as the
    /// form wants them (see [`super::turn`]); under an exact constraint, the plan's brief
    /// system message stands for the first (see [`CallPlan::enforced_system`]); any other request
    /// goes as it is.
    fn on_wire<'c>(&self, chat: &'c ChatRequest, wire: &Wire) -> Cow<'c, ChatRequest> {
        match (&self.plan.turn, &self.plan.enforced_system) {
            (Some(turn), _) if self.answer_only => Cow::Owned(turn.answer_only(chat)),
            (Some(turn), _) => {
                Cow::Owned(turn.on_wire(chat, &wire.constraint, self.context.engine().provider))
            }
            (None, Some(system))
                if wire.is_exact()
                    && chat
                        .messages
                        .first()
                        .is_some_and(|first| first.role == "system") =>
            {
                let mut brief = chat.clone();
                brief.messages[0] = system.clone();
                Cow::Owned(brief)
            }
            (None, _) => Cow::Borrowed(chat),
        }
    }

    /// One request with the retry policy (whose waits stop at the call's deadline); counts
    /// requests and retries.
    fn with_retries(
        &mut self,
        chat: &ChatRequest,
        wire: &Wire,
        options: &RepairOptions<'_>,
        attempt: u32,
    ) -> Result<(Streamed, Option<Verdict>), CallError> {
        let context = self.context;
        let deadline = self.limits.deadline;
        let mut sent = 0;
        let mut jitter = self.jitter.clone();
        let result = context.retry.run(
            deadline,
            &mut jitter,
            |wait| (context.sleep)(wait),
            |_| {
                sent += 1;
                self.exchange(chat, wire, options, attempt)
            },
        );
        self.jitter = jitter;
        self.learned.requests += sent;
        self.learned.transport_retries += sent.saturating_sub(1);
        result
    }

    /// One HTTP exchange, its text watched as it arrives (a whole answer is judged at once).
    fn exchange(
        &self,
        chat: &ChatRequest,
        wire: &Wire,
        options: &RepairOptions<'_>,
        attempt: u32,
    ) -> Result<(Streamed, Option<Verdict>), CallError> {
        // A tool turn's text may go on after a value (a closing tag, a second call): only a
        // loop ends it early.
        let mut watcher = if self.plan.turn.is_some() {
            Watcher::loops_only(options)
        } else {
            Watcher::new(options)
        }
        .with_stops(&self.plan.stop);
        let mut reasoning = RepetitionDetector::new();
        let mut reasoning_loop = None;
        let report = self.context.progress.as_ref();
        let started = self.started;
        let mut first_text: Option<Instant> = None;
        let streamed = self.context.client.chat_stream(
            chat,
            &wire.constraint,
            wire.field,
            &self.limits,
            &mut |progress| {
                if let Some(report) = report {
                    let now = Instant::now();
                    let first = *first_text.get_or_insert(now);
                    let seconds = (now - first).as_secs_f64();
                    report(&CallProgress {
                        attempt,
                        tokens: progress.text_chunks,
                        tokens_per_second: (progress.text_chunks >= 2 && seconds > 0.0)
                            .then(|| (progress.text_chunks - 1) as f64 / seconds),
                        elapsed: now - started,
                    });
                }
                if let Some(verdict) = watcher.feed(progress.content) {
                    return Flow::Stop(verdict.ending());
                }
                // A thinking model that loops in a reasoning field of its own.
                if let Some(found) = reasoning.feed(progress.reasoning) {
                    reasoning_loop = Some(Verdict::Repetition(found.clone()));
                    return Flow::Stop(StreamEnding::Repetition);
                }
                Flow::Continue
            },
        )?;
        let verdict = watcher.verdict().cloned().or(reasoning_loop);
        Ok((streamed, verdict))
    }

    fn suspect(&mut self, form: WireForm, error: &CallError) {
        self.suspected
            .push(Demotion::now(form, error.status, &error.detail));
    }

    /// A request on the chain succeeded: every suspected rejection was the field's fault.
    fn confirm(&mut self) {
        if self.suspected.is_empty() {
            return;
        }
        let known = self.context.demoted_forms();
        for demotion in std::mem::take(&mut self.suspected) {
            if !known.contains(&demotion.form)
                && let Some(warning) = self.context.record_demotion(&demotion)
            {
                self.learned.warnings.push(warning);
            }
            self.learned.demotions.push(demotion);
        }
    }

    /// Counts an answer under `form` that was not cut by the budget and did or did not parse
    /// (`parsed`): an answer that does not is an enforcement failure; the failure that reaches
    /// [`ENFORCEMENT_THRESHOLD`] in a row marks the form not enforced and demotes it.
    pub fn count_enforcement(&mut self, form: WireForm, parsed: bool, text: &str) {
        let (demotion, warning) =
            self.context
                .record_enforcement(form, !parsed, text, ENFORCEMENT_THRESHOLD);
        self.learned.warnings.extend(warning);
        if let Some(demotion) = demotion {
            self.chain.drop_form(demotion.form);
            self.learned.demotions.push(demotion);
        }
    }
}

/// Whether an answer is JSON as it stands (a leading reasoning block and surrounding
/// whitespace aside): what a mechanism that enforces must produce. Syntax only: a number past
/// a double's range (`-911e5807`, which llama-server's schema converter lets through) is JSON
/// the decoder was right to allow, not a sign that the field was ignored; the repair ladder and
/// validation deal with its value.
pub(super) fn parses(text: &str) -> bool {
    let answer = crate::backends::probe::strip_reasoning(text).trim();
    serde_json::from_str::<serde::de::IgnoredAny>(answer).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enforcement_looks_at_syntax_not_at_what_a_double_holds() {
        assert!(parses(r#"{"score": -911e5807, "url": "x"}"#));
        assert!(parses("<think>hm</think>\n {\"a\": [1, 2.5e-999]} "));
        for broken in [
            "Sure! {\"a\": 1}",
            "{\"a\": 1,}",
            "{'a': 1}",
            "{\"a\": 1",
            "{\"a\": 01}",
            "",
        ] {
            assert!(!parses(broken), "{broken}");
        }
    }

    #[test]
    fn only_field_rejections_and_non_4xx_failures_walk_down() {
        let error = |class, status| CallError {
            class,
            status,
            detail: String::new(),
            retry_after: None,
            attempts: 1,
            tls: None,
            refused: false,
            refusing_since: None,
        };
        assert!(is_rejection(&error(ErrorClass::Permanent, Some(400))));
        // A failed TLS handshake (permanent, no status) is no field's fault: it ends the call.
        assert!(!is_rejection(&error(ErrorClass::Permanent, None)));
        assert!(!calls_for_plain_resend(&error(ErrorClass::Permanent, None)));
        assert!(is_rejection(&error(ErrorClass::Permanent, Some(422))));
        assert!(!is_rejection(&error(ErrorClass::Permanent, Some(401))));
        assert!(!is_rejection(&error(
            ErrorClass::ContextOverflow,
            Some(400)
        )));
        assert!(calls_for_plain_resend(&error(
            ErrorClass::Transient,
            Some(500)
        )));
        // Loading, overloaded, a gateway, no connection: transient, never the field's fault.
        for status in [Some(502), Some(503), Some(504), None] {
            assert!(
                !calls_for_plain_resend(&error(ErrorClass::Transient, status)),
                "{status:?}"
            );
        }
        assert!(calls_for_plain_resend(&error(ErrorClass::Unknown, None)));
        assert!(!calls_for_plain_resend(&error(
            ErrorClass::Unknown,
            Some(405)
        )));
        assert!(!calls_for_plain_resend(&error(
            ErrorClass::RateLimited,
            Some(429)
        )));
        assert!(!calls_for_plain_resend(&error(ErrorClass::Canceled, None)));
        assert!(!calls_for_plain_resend(&error(
            ErrorClass::ContextOverflow,
            Some(500)
        )));
    }

    #[test]
    fn parsing_allows_a_reasoning_block_and_whitespace_only() {
        assert!(parses("  {\"a\": 1}\n"));
        assert!(parses("<think>hm</think>{\"a\": 1}"));
        assert!(!parses("```json\n{\"a\": 1}\n```"));
        assert!(!parses("Sure: {\"a\": 1}"));
        assert!(!parses("{\"a\": 1,}"));
    }
}
