//! The mechanism chain at request time: which wire forms this call may try, in order, and the
//! exchange that walks down it.
//!
//! The forms come from the negotiated capabilities (the selected form, then every weaker form the
//! probe found supported, minus every form demoted by now, then prompt-only), from a forced
//! mechanism (its forms, then prompt-only), or are prompt-only alone (`structured_decoding = off`,
//! a tool-using role without a typed tool set, or a tool turn that may not be constrained). A tool
//! turn keeps only the forms that enforce a tool constraint, and sends the compiled tools on them
//! ([`super::turn`]); its prompt-only floor carries native tools. A strict form is used only for a
//! strict-ready schema: for any other schema it becomes json_schema without `strict`, so a strict
//! server is never sent a strict request it must reject. On llama-server (the engine the call
//! follows: the `llamacpp` provider, or `openai-compatible` in front of a server whose fingerprint
//! says llama.cpp; see `backends::engine`) the derived grammar goes first when the grammar form is
//! on the chain: with compact whitespace (the default `grammar_whitespace`) a real small model gave
//! more valid answers in less time under it than under the server's own json_schema conversion
//! (bench/README.md, "Defaults"), and for a schema with a `number` or a `format` it is also the
//! only exact one (the server's converter lets `maximum` and a 7-digit exponent through, and a
//! `uri` came back as `"9%"`). With pretty whitespace the model did worse under the derived
//! grammar, so then only such schemas go to it first.
//!
//! [`Exchange::send`] sends one request on the current form with the retry policy (the only
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

use serde_json::Value;

use crate::config::{Provider, Settings, StructuredDecoding};
use crate::repair::{RepairOptions, RepetitionDetector};
use crate::schema::gbnf::Whitespace;
use crate::schema::{self, Constraint, Mechanism, Problem};

use super::super::cache::Demotion;
use super::super::capabilities::{GuidedField, WireForm};
use super::super::chat::ChatRequest;
use super::super::errors::{CallError, ErrorClass};
use super::super::retry::Jitter;
use super::super::stream::{Flow, StreamLimits, Streamed};
use super::context::{CallContext, CallProgress};
use super::outcome::{CallMeta, ChainSource};
use super::request::{Plan, StructuredRequest};
use super::watch::{Verdict, Watcher};

/// How many unparseable answers in a row under a form mark it not enforced.
pub const ENFORCEMENT_THRESHOLD: u32 = 2;

/// The mechanism chain of one call: its wire forms in order, prompt-only (`None`) last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct MechanismChain {
    forms: Vec<Option<WireForm>>,
    at: usize,
    /// Where the first form came from.
    pub source: ChainSource,
}

impl MechanismChain {
    /// The chain for `request` (see the module docs).
    pub fn new(
        settings: &Settings,
        request: &StructuredRequest,
        plan: &Plan,
        context: &CallContext,
    ) -> MechanismChain {
        let (source, forms) = match &plan.turn {
            // A tool turn: the contracts' chain with only the forms that enforce a tool
            // constraint on it, when the turn may be constrained at all.
            Some(turn) if turn.constrains_on(context.engine().provider) => {
                let (source, mut forms) = forms(settings, request, plan, context);
                forms.retain(|form| turn.carried_by(*form));
                (source, forms)
            }
            Some(_) => (ChainSource::Tools, Vec::new()),
            None if plan.tools => (ChainSource::Tools, Vec::new()),
            None => forms(settings, request, plan, context),
        };
        let mut forms: Vec<Option<WireForm>> = forms.into_iter().map(Some).collect();
        forms.push(None);
        MechanismChain {
            forms,
            at: 0,
            source,
        }
    }

    /// The current form (`None`: prompt-only).
    pub fn current(&self) -> Option<WireForm> {
        self.forms[self.at]
    }

    /// The first form.
    pub fn first(&self) -> Option<WireForm> {
        self.forms[0]
    }

    /// Moves to the next form; the last (prompt-only) is never left.
    fn advance(&mut self) {
        self.at = (self.at + 1).min(self.forms.len() - 1);
    }

    /// Takes `form` out of the rest of the chain (it was found not enforced).
    fn drop_form(&mut self, form: WireForm) {
        let current = self.current();
        let mut index = 0;
        self.forms.retain(|entry| {
            let keep = *entry != Some(form) || index < self.at;
            index += 1;
            keep
        });
        if current == Some(form) {
            self.at = self.at.min(self.forms.len() - 1);
        }
    }
}

/// The forms of a request that may be constrained: forced, off, or negotiated (see the
/// module docs).
fn forms(
    settings: &Settings,
    request: &StructuredRequest,
    plan: &Plan,
    context: &CallContext,
) -> (ChainSource, Vec<WireForm>) {
    let capabilities = &context.negotiation.capabilities;
    if let Some(mechanism) = request.mechanism {
        let forms = forced_forms(mechanism, capabilities.guided_field);
        return (
            ChainSource::Forced,
            strict_adjusted(forms, plan.strict_ready),
        );
    }
    if settings.structured_decoding == StructuredDecoding::Off {
        return (ChainSource::StructuredDecodingOff, Vec::new());
    }
    let demoted = context.demoted_forms();
    let mut forms = Vec::new();
    if let Some(start) = capabilities.wire_form() {
        let first = WireForm::ALL.iter().position(|form| *form == start);
        for form in WireForm::ALL.into_iter().skip(first.unwrap_or(0)) {
            let supported = capabilities
                .outcomes
                .get(&form)
                .is_some_and(|outcome| outcome.is_supported());
            if form == start || supported {
                forms.push(form);
            }
        }
    }
    let mut forms = strict_adjusted(forms, plan.strict_ready);
    forms.retain(|form| !demoted.contains(form));
    let schema = match &plan.turn {
        Some(turn) => turn.compiled.schema.as_ref().unwrap_or(&plan.schema),
        None => &plan.schema,
    };
    if context.engine().provider == Provider::LlamaCpp
        && (plan.grammar_whitespace == Whitespace::Compact || needs_the_derived_grammar(schema))
    {
        grammar_first(&mut forms);
    }
    (ChainSource::Negotiated, forms)
}

/// Whether `schema` holds a `number` or a `format` anywhere: what llama-server's json_schema
/// converter does not enforce (see the module docs).
fn needs_the_derived_grammar(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            let number = match map.get("type") {
                Some(Value::String(kind)) => kind == "number",
                Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "number"),
                _ => false,
            };
            number
                || map.get("format").is_some_and(Value::is_string)
                || map.values().any(needs_the_derived_grammar)
        }
        Value::Array(items) => items.iter().any(needs_the_derived_grammar),
        _ => false,
    }
}

/// Moves the grammar form ahead of the json_schema forms, when it is on the chain.
fn grammar_first(forms: &mut Vec<WireForm>) {
    let Some(grammar) = forms.iter().position(|form| *form == WireForm::Grammar) else {
        return;
    };
    let Some(schema) = forms
        .iter()
        .position(|form| matches!(form, WireForm::JsonSchemaStrict | WireForm::JsonSchema))
    else {
        return;
    };
    if schema < grammar {
        let form = forms.remove(grammar);
        forms.insert(schema, form);
    }
}

/// The forms a forced mechanism tries, strongest first.
fn forced_forms(mechanism: Mechanism, guided_field: GuidedField) -> Vec<WireForm> {
    match mechanism {
        Mechanism::JsonSchema => vec![WireForm::JsonSchemaStrict, WireForm::JsonSchema],
        Mechanism::GuidedJson => {
            let preferred = guided_field.wire_form();
            let other = match preferred {
                WireForm::GuidedJson => WireForm::StructuredOutputs,
                _ => WireForm::GuidedJson,
            };
            vec![preferred, other]
        }
        Mechanism::GbnfGrammar => vec![WireForm::Grammar],
        Mechanism::JsonObject => vec![WireForm::JsonObject],
        Mechanism::PromptOnly => Vec::new(),
    }
}

/// Strict only for a strict-ready schema: otherwise json_schema without `strict`.
fn strict_adjusted(forms: Vec<WireForm>, strict_ready: bool) -> Vec<WireForm> {
    let mut adjusted: Vec<WireForm> = Vec::with_capacity(forms.len());
    for form in forms {
        let form = if form == WireForm::JsonSchemaStrict && !strict_ready {
            WireForm::JsonSchema
        } else {
            form
        };
        if !adjusted.contains(&form) {
            adjusted.push(form);
        }
    }
    adjusted
}

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
fn wire(form: Option<WireForm>, plan: &Plan) -> Wire {
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

/// One answer as it came: the exchange, the form it was sent with (`None`: plain), and the
/// watcher's verdict on its text.
pub(super) struct Received {
    pub streamed: Streamed,
    pub form: Option<WireForm>,
    pub verdict: Option<Verdict>,
}

/// One call's walk down the chain.
pub(super) struct Exchange<'a> {
    context: &'a CallContext,
    plan: &'a Plan,
    /// The mechanism chain.
    pub chain: MechanismChain,
    /// Draws backoff jitter and the fresh seeds of anti-repetition re-asks.
    pub jitter: Jitter,
    limits: StreamLimits,
    started: Instant,
    /// Rejections not yet confirmed by a later success.
    suspected: Vec<Demotion>,
    /// Whether the requests from now on leave a tool turn's model only an answer in text: no
    /// tools offered, and on a grammar form a grammar of text alone. Set after a repeated call
    /// under `auto`, when the results the model needs are in the conversation already.
    pub answer_only: bool,
}

impl<'a> Exchange<'a> {
    /// An exchange for `plan` through `context`, with every request bounded by `limits`.
    pub fn new(
        settings: &Settings,
        request: &StructuredRequest,
        plan: &'a Plan,
        context: &'a CallContext,
        limits: StreamLimits,
    ) -> Exchange<'a> {
        Exchange {
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
        }
    }

    /// Sends `chat` on the current form, walking down as the module docs say, with every
    /// answer watched by a [`Watcher`] over `options`.
    pub fn send(
        &mut self,
        chat: &ChatRequest,
        options: &RepairOptions<'_>,
        meta: &mut CallMeta,
    ) -> Result<Received, CallError> {
        loop {
            let form = self.chain.current();
            let wire = if self.answer_only {
                answer_only_wire(form)
            } else {
                wire(form, self.plan)
            };
            let sent = self.on_wire(chat, &wire);
            let error = match self.with_retries(&sent, &wire.constraint, wire.field, options, meta)
            {
                Ok((streamed, verdict)) => {
                    self.confirm(meta);
                    meta.notes = wire.notes;
                    return Ok(Received {
                        streamed,
                        form,
                        verdict,
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
            meta.requests += 1;
            let plain_chat = self.on_wire(chat, &Wire::plain());
            let Ok((plain, verdict)) = self.exchange(
                &plain_chat,
                &Constraint::None,
                GuidedField::default(),
                options,
                meta.attempts,
            ) else {
                return Err(error);
            };
            meta.requests += 1;
            // The constrained request again, as the first went (a tool turn's tools described).
            let again =
                match self.exchange(&sent, &wire.constraint, wire.field, options, meta.attempts) {
                    Ok((streamed, verdict)) => {
                        self.confirm(meta);
                        meta.notes = wire.notes;
                        return Ok(Received {
                            streamed,
                            form: Some(form),
                            verdict,
                        });
                    }
                    Err(again) => again,
                };
            if !calls_for_plain_resend(&again) {
                // Not the same failure twice: no evidence against the field. The plain answer
                // serves this call; nothing is demoted.
                self.confirm(meta);
                meta.notes.clear();
                return Ok(Received {
                    streamed: plain,
                    form: None,
                    verdict,
                });
            }
            self.suspect(form, &error);
            self.confirm(meta);
            self.chain.advance();
            if self.chain.current().is_none() {
                meta.notes.clear();
                return Ok(Received {
                    streamed: plain,
                    form: None,
                    verdict,
                });
            }
        }
    }

    /// `chat` as a request with `wire` sends it: a tool turn puts its tools on it as the
    /// form wants them (see [`super::turn`]); under an exact constraint, the plan's brief
    /// system message stands for the first (see [`Plan::enforced_system`]); any other request
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
        constraint: &Constraint,
        field: GuidedField,
        options: &RepairOptions<'_>,
        meta: &mut CallMeta,
    ) -> Result<(Streamed, Option<Verdict>), CallError> {
        let context = self.context;
        let deadline = self.limits.deadline;
        let attempt = meta.attempts;
        let mut sent = 0;
        let mut jitter = self.jitter.clone();
        let result = context.retry.run(
            deadline,
            &mut jitter,
            |wait| (context.sleep)(wait),
            |_| {
                sent += 1;
                self.exchange(chat, constraint, field, options, attempt)
            },
        );
        self.jitter = jitter;
        meta.requests += sent;
        meta.transport_retries += sent.saturating_sub(1);
        result
    }

    /// One HTTP exchange, its text watched as it arrives (a whole answer is judged at once).
    fn exchange(
        &self,
        chat: &ChatRequest,
        constraint: &Constraint,
        field: GuidedField,
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
            constraint,
            field,
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
                if watcher.feed(progress.content).is_some() {
                    return Flow::Stop;
                }
                // A thinking model that loops in a reasoning field of its own.
                if let Some(found) = reasoning.feed(progress.reasoning) {
                    reasoning_loop = Some(Verdict::Repetition(found.clone()));
                    return Flow::Stop;
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
    fn confirm(&mut self, meta: &mut CallMeta) {
        if self.suspected.is_empty() {
            return;
        }
        let known = self.context.demoted_forms();
        for demotion in std::mem::take(&mut self.suspected) {
            if !known.contains(&demotion.form)
                && let Some(warning) = self.context.record_demotion(&demotion)
            {
                meta.warnings.push(warning);
            }
            meta.demotions.push(demotion);
        }
    }

    /// Counts an answer under `form` that was not cut by the budget: an answer that does not
    /// parse is an enforcement failure; the failure that reaches [`ENFORCEMENT_THRESHOLD`] in a
    /// row marks the form not enforced and demotes it.
    pub fn check_enforcement(&mut self, form: WireForm, text: &str, meta: &mut CallMeta) {
        let failed = !parses(text);
        let (demotion, warning) =
            self.context
                .record_enforcement(form, failed, text, ENFORCEMENT_THRESHOLD);
        meta.warnings.extend(warning);
        if let Some(demotion) = demotion {
            self.chain.drop_form(demotion.form);
            meta.demotions.push(demotion);
        }
    }
}

/// Whether an answer is JSON as it stands (a leading reasoning block and surrounding
/// whitespace aside): what a mechanism that enforces must produce. Syntax only: a number past
/// a double's range (`-911e5807`, which llama-server's schema converter lets through) is JSON
/// the decoder was right to allow, not a sign that the field was ignored; the repair ladder and
/// validation deal with its value.
fn parses(text: &str) -> bool {
    let answer = super::super::probe::strip_reasoning(text).trim();
    serde_json::from_str::<serde::de::IgnoredAny>(answer).is_ok()
}

#[cfg(test)]
#[path = "chain_tests.rs"]
mod tests;
