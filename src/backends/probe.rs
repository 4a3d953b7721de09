//! Probing: asking an endpoint, cheaply and under one deadline, which constraint wire forms it
//! really enforces.
//!
//! The preset's priors pick the forms worth a request. Each runs on its own thread next to a
//! plain request (the baseline: reachability, latency, and whether a failure is the field's
//! fault) and the fingerprint routes; the caller gets a [`ProbeReport`] when everything answered
//! or when the deadline passes, whichever is first, so a probe never takes longer than its
//! deadline and never returns an error. A server that is still loading (503) or rate limits
//! (429) is retried within the deadline per the retry policy; a refused connection only for
//! the policy's short grace (nobody listens: the probe fails fast). Acceptance is not enforcement:
//! the probe schema has one boolean and one property whose only allowed value is an improbable
//! string, the prompt describes neither, and only an answer that satisfies the schema counts
//! (for `json_object`: a JSON object although the prompt asked for none). An answer cut by
//! `finish_reason: length` proves nothing and is sent once more with a larger budget.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use crate::repair::{self, Reasoning};
use crate::schema::{Constraint, Validator, validator};

use super::capabilities::{FormOutcome, GuidedField, WireForm};
use super::chat::{ChatMessage, ChatRequest, ChatResponse};
use super::errors::{CallError, ErrorClass, excerpt_chars};
use super::fingerprint::{self, Fingerprint};
use super::retry::{Jitter, RetryPolicy};
use super::target::Target;
use super::transport::Client;

/// The improbable value the probe schema's second property must have.
pub const PROBE_MARKER: &str = "slm-7qz";

/// The probe prompt: it describes neither property, and asks for no JSON (it contains the word
/// JSON only because OpenAI refuses `json_object` when no message mentions it).
pub const PROBE_PROMPT: &str = "Say hello in one short sentence. Do not use JSON.";

/// The first completion budget. A byte-level tokenizer needs about 45 tokens for the answer.
pub const FIRST_BUDGET: u32 = 64;

/// The budget of the one re-send after an answer cut by `finish_reason: length`.
pub const SECOND_BUDGET: u32 = 512;

/// The name sent with json_schema probes.
pub const PROBE_SCHEMA_NAME: &str = "slmcode_probe";

/// A hand-written GBNF grammar for exactly the probe schema's instances (bounded whitespace).
pub const PROBE_GRAMMAR: &str = r#"root ::= "{" ws "\"ok\"" ws ":" ws boolean ws "," ws "\"marker\"" ws ":" ws "\"slm-7qz\"" ws "}"
boolean ::= "true" | "false"
ws ::= [ \t\n]{0,2}
"#;

/// The probe schema: one boolean, one property whose only value is [`PROBE_MARKER`]. Simple
/// enough for OpenAI's `strict: true`.
pub fn probe_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "ok": {"type": "boolean"},
            "marker": {"type": "string", "enum": [PROBE_MARKER]}
        },
        "required": ["ok", "marker"],
        "additionalProperties": false
    })
}

fn probe_validator() -> &'static Arc<Validator> {
    static VALIDATOR: OnceLock<Arc<Validator>> = OnceLock::new();
    VALIDATOR.get_or_init(|| validator(&probe_schema()).expect("the probe schema compiles"))
}

/// Whether `content` (after any leading reasoning block) satisfies what `form` asked for.
pub fn is_enforced(form: WireForm, content: &str) -> bool {
    let answer = strip_reasoning(content).trim();
    let Ok(value) = serde_json::from_str::<Value>(answer) else {
        return false;
    };
    match form {
        WireForm::JsonObject => value.is_object(),
        _ => probe_validator().validate(&value).is_ok(),
    }
}

/// A reasoning model's block before its answer (`<think>`, `<thinking>`, `<reasoning>` or
/// `<thought>`: every tag the repair ladder knows, [`crate::repair::REASONING_TAGS`]) is not
/// part of the constrained answer. A block that never closes is left in place: then no answer
/// follows it.
pub(crate) fn strip_reasoning(content: &str) -> &str {
    match repair::reasoning(content) {
        Reasoning::Removed(end) => &content[end..],
        _ => content.trim_start(),
    }
}

/// The constraint a probe of `form` sends, and the guided field it goes in.
pub fn probe_constraint(form: WireForm) -> (Constraint, GuidedField) {
    let schema = probe_schema();
    match form {
        WireForm::JsonSchemaStrict | WireForm::JsonSchema => (
            Constraint::JsonSchema {
                name: PROBE_SCHEMA_NAME.to_owned(),
                schema,
                strict: form == WireForm::JsonSchemaStrict,
            },
            GuidedField::StructuredOutputs,
        ),
        WireForm::StructuredOutputs => (
            Constraint::GuidedJson { schema },
            GuidedField::StructuredOutputs,
        ),
        WireForm::GuidedJson => (Constraint::GuidedJson { schema }, GuidedField::GuidedJson),
        WireForm::Grammar => (
            Constraint::Grammar {
                gbnf: PROBE_GRAMMAR.to_owned(),
            },
            GuidedField::StructuredOutputs,
        ),
        WireForm::JsonObject => (Constraint::JsonObject, GuidedField::StructuredOutputs),
    }
}

/// What one probe found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProbeReport {
    /// Every wire form's outcome.
    pub outcomes: BTreeMap<WireForm, FormOutcome>,
    /// Whether the probe succeeded (the server answered with a 2xx); only then is it trusted.
    pub probed: bool,
    /// Whether the server answered at all (any HTTP status).
    pub reachable: bool,
    /// The plain request's round trip, in milliseconds.
    pub latency_ms: Option<u64>,
    /// Why the plain request failed, when it did.
    pub baseline_error: Option<String>,
    /// The HTTP status the plain request failed with, when the server answered one (a 401
    /// means the key was refused, a 404 a wrong endpoint or model).
    pub baseline_status: Option<u16>,
    /// How the plain request failed, when it did: its class tells an answer that is not a
    /// chat completion from no answer at all, and a TLS failure says what to fix. `None` also
    /// when it had no answer by the deadline.
    #[serde(skip)]
    pub baseline_failure: Option<CallError>,
    /// The server's fingerprint (unknown parts empty).
    pub fingerprint: Fingerprint,
    /// How long the probe took, in milliseconds.
    pub elapsed_ms: u64,
    /// The deadline it ran under, in milliseconds.
    pub deadline_ms: u64,
    /// The forms that got no answer: none by the deadline, or a request that failed without
    /// an HTTP status. On a busy or slow server that queues the probe's requests, this says
    /// nothing about the form.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unanswered: Vec<WireForm>,
}

/// How one form's probe ended, before the baseline is known.
enum FormResult {
    Enforced,
    NotEnforced(String),
    CutTwice,
    Failed(CallError),
}

enum Job {
    Baseline(Result<(ChatResponse, Duration), CallError>),
    Form(WireForm, FormResult),
    Fingerprint(Fingerprint),
}

/// Probes `target` under `timeout` (see the module docs). Never fails and never takes longer
/// than `timeout` (plus the time to assemble the report).
pub fn probe(target: &Target, timeout: Duration) -> ProbeReport {
    let started = Instant::now();
    let deadline = started + timeout;
    let preset = target.preset();
    let client = target.client();
    let (sender, receiver) = mpsc::channel::<Job>();
    let json_schema_unavailable = target.json_schema_unavailable();
    let forms: Vec<WireForm> = WireForm::ALL
        .into_iter()
        .filter(|form| preset.worth_probing(*form))
        .filter(|form| {
            json_schema_unavailable.is_none()
                || !matches!(form, WireForm::JsonSchemaStrict | WireForm::JsonSchema)
        })
        .collect();
    let mut pending = forms.len() + 2;

    {
        let (client, sender, model) = (client.clone(), sender.clone(), target.model.clone());
        std::thread::spawn(move || {
            let request = probe_request(model, 16);
            let sent = Instant::now();
            let result = send_within(
                &client,
                &request,
                &Constraint::None,
                GuidedField::default(),
                deadline,
            )
            .map(|response| (response, sent.elapsed()));
            let _ = sender.send(Job::Baseline(result));
        });
    }
    let thinking = preset.thinking_fields(target.thinking);
    for form in forms.iter().copied() {
        let (client, sender, model) = (client.clone(), sender.clone(), target.model.clone());
        let thinking = thinking.clone();
        std::thread::spawn(move || {
            let result = probe_form(&client, form, model, &thinking, deadline);
            let _ = sender.send(Job::Form(form, result));
        });
    }
    {
        let (client, sender, model) = (client.clone(), sender.clone(), target.model.clone());
        let routes = preset.fingerprint;
        std::thread::spawn(move || {
            let found = fingerprint::fetch(&client, routes, model.as_deref(), deadline);
            let _ = sender.send(Job::Fingerprint(found));
        });
    }
    drop(sender);

    let mut baseline = None;
    let mut results = BTreeMap::new();
    let mut found = Fingerprint::default();
    while pending > 0 {
        let remaining = deadline.saturating_duration_since(Instant::now());
        match receiver.recv_timeout(remaining) {
            Ok(Job::Baseline(result)) => baseline = Some(result),
            Ok(Job::Form(form, result)) => {
                results.insert(form, result);
            }
            Ok(Job::Fingerprint(fingerprint)) => found = fingerprint,
            Err(_) => break,
        }
        pending -= 1;
    }

    let deadline_text = format!(
        "no answer within the {} s probe deadline",
        timeout.as_secs_f64()
    );
    let baseline_status = match &baseline {
        Some(Err(error)) => error.status,
        _ => None,
    };
    let baseline_error = match &baseline {
        Some(Ok(_)) => None,
        Some(Err(error)) => Some(error.to_string()),
        None => Some(deadline_text.clone()),
    };
    let baseline_failure = match &baseline {
        Some(Err(error)) => Some(error.clone()),
        _ => None,
    };
    let mut reachable = matches!(
        &baseline,
        Some(Ok(_))
            | Some(Err(CallError {
                status: Some(_),
                ..
            }))
    );
    let mut answered = matches!(&baseline, Some(Ok(_)));
    let mut unanswered = Vec::new();
    let mut outcomes = BTreeMap::new();
    for form in WireForm::ALL {
        let outcome = if !preset.worth_probing(form) {
            FormOutcome::Untested {
                reason: preset.not_probed_reason(form),
            }
        } else if let (Some(reason), WireForm::JsonSchemaStrict | WireForm::JsonSchema) =
            (&json_schema_unavailable, form)
        {
            FormOutcome::Untested {
                reason: reason.clone(),
            }
        } else {
            match results.remove(&form) {
                None => {
                    unanswered.push(form);
                    FormOutcome::Untested {
                        reason: deadline_text.clone(),
                    }
                }
                Some(FormResult::Enforced) => {
                    (reachable, answered) = (true, true);
                    FormOutcome::Supported
                }
                Some(FormResult::NotEnforced(answer)) => {
                    (reachable, answered) = (true, true);
                    FormOutcome::NotEnforced { answer }
                }
                Some(FormResult::CutTwice) => {
                    (reachable, answered) = (true, true);
                    FormOutcome::Untested {
                        reason: format!(
                            "inconclusive: the answer was cut by max_tokens at {FIRST_BUDGET} and {SECOND_BUDGET} tokens"
                        ),
                    }
                }
                Some(FormResult::Failed(error)) => {
                    reachable |= error.status.is_some();
                    if error.status.is_none() {
                        unanswered.push(form);
                    }
                    failed_outcome(error, &baseline)
                }
            }
        };
        outcomes.insert(form, outcome);
    }
    ProbeReport {
        outcomes,
        probed: answered,
        reachable,
        latency_ms: match &baseline {
            Some(Ok((_, latency))) => Some(latency.as_millis() as u64),
            _ => None,
        },
        baseline_error,
        baseline_status,
        baseline_failure,
        fingerprint: found,
        elapsed_ms: started.elapsed().as_millis() as u64,
        deadline_ms: timeout.as_millis() as u64,
        unanswered,
    }
}

/// A failed form is the field's fault only when the plain request went through; otherwise the
/// server (or the key, or the model name) is the problem and the form stays untested.
fn failed_outcome(
    error: CallError,
    baseline: &Option<Result<(ChatResponse, Duration), CallError>>,
) -> FormOutcome {
    match (error.status, baseline) {
        (Some(status), Some(Ok(_))) => FormOutcome::Rejected {
            status,
            body: error.detail,
        },
        (Some(_), Some(Err(plain))) => FormOutcome::Untested {
            reason: format!("the plain request failed as well ({plain})"),
        },
        _ => FormOutcome::Untested {
            reason: error.to_string(),
        },
    }
}

fn probe_request(model: Option<String>, max_tokens: u32) -> ChatRequest {
    ChatRequest {
        messages: vec![ChatMessage::user(PROBE_PROMPT)],
        model,
        max_tokens: Some(max_tokens),
        temperature: Some(0.0),
        ..ChatRequest::default()
    }
}

/// Probes `form`, with the `thinking` switch the calls send (the client drops a switch the
/// server refuses by name, for this form and the ones after it, as it does for a call).
fn probe_form(
    client: &Client,
    form: WireForm,
    model: Option<String>,
    thinking: &serde_json::Map<String, Value>,
    deadline: Instant,
) -> FormResult {
    let (constraint, guided_field) = probe_constraint(form);
    let mut request = probe_request(model, FIRST_BUDGET);
    request.thinking = thinking.clone();
    for budget in [FIRST_BUDGET, SECOND_BUDGET] {
        request.max_tokens = Some(budget);
        let response = match send_within(client, &request, &constraint, guided_field, deadline) {
            Ok(response) => response,
            Err(error) => return FormResult::Failed(error),
        };
        // A server whose chat template opens a reasoning block files what the constraint made
        // as reasoning: read as the call path reads it.
        let content = response
            .misfiled_answer()
            .or(response.content.as_deref())
            .unwrap_or("");
        if is_enforced(form, content) {
            return FormResult::Enforced;
        }
        if !response.is_truncated() {
            return FormResult::NotEnforced(excerpt_chars(content, 80));
        }
    }
    FormResult::CutTwice
}

/// Sends one probe request, retrying within `deadline` as the retry policy says
/// ([`RetryPolicy::next_wait`]): a server that said it is loading (503) is tried again until
/// the deadline, and so is a rate limit (429); a refused connection only within the short
/// grace of a server that is just binding its port (nobody listens: the probe fails fast);
/// other transient failures (500, 502, 504, a reset) get the policy's 3 attempts.
fn send_within(
    client: &Client,
    request: &ChatRequest,
    constraint: &Constraint,
    guided_field: GuidedField,
    deadline: Instant,
) -> Result<ChatResponse, CallError> {
    let policy = RetryPolicy::default();
    let mut jitter = Jitter::from_entropy();
    let since = Instant::now();
    let mut other_failures = 0;
    let mut retry = 0;
    loop {
        let remaining = deadline.saturating_duration_since(Instant::now());
        if remaining < Duration::from_millis(10) {
            return Err(CallError {
                class: ErrorClass::Canceled,
                status: None,
                detail: "the probe deadline passed".to_owned(),
                retry_after: None,
                attempts: retry + 1,
                tls: None,
                refused: false,
                refusing_since: None,
            });
        }
        let mut error = match client.chat(request, constraint, guided_field, remaining) {
            Ok(response) => return Ok(response),
            Err(error) => error,
        };
        error.attempts = retry + 1;
        retry += 1;
        // A rate limit is waited out until the deadline like a loading server (whose waits
        // grow with every try); the other failures count against the policy's attempts.
        let counted = if error.class == ErrorClass::RateLimited {
            1
        } else if error.is_loading() {
            retry
        } else {
            other_failures += 1;
            other_failures
        };
        let Some(wait) = policy.next_wait(counted, &error, since, Some(deadline), &mut jitter)
        else {
            return Err(error);
        };
        std::thread::sleep(wait);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::REASONING_TAGS;

    #[test]
    fn only_the_probe_instance_counts_as_enforced() {
        let good = format!(r#"{{"ok": true, "marker": "{PROBE_MARKER}"}}"#);
        for form in [
            WireForm::JsonSchemaStrict,
            WireForm::StructuredOutputs,
            WireForm::Grammar,
        ] {
            assert!(is_enforced(form, &good), "{form}");
            for tag in REASONING_TAGS {
                assert!(
                    is_enforced(form, &format!("  <{tag}>hmm</{tag}>\n{good}\n")),
                    "{form} after <{tag}>"
                );
                assert!(
                    !is_enforced(form, &format!("<{tag}>{good}")),
                    "{form}: an unclosed <{tag}> holds no answer"
                );
            }
            assert!(
                !is_enforced(form, r#"{"ok": true, "marker": "other"}"#),
                "{form}"
            );
            assert!(
                !is_enforced(form, &format!("```json\n{good}\n```")),
                "{form}"
            );
            assert!(!is_enforced(form, "Hello there!"), "{form}");
        }
        assert!(is_enforced(
            WireForm::JsonObject,
            r#"{"greeting": "hello"}"#
        ));
        assert!(!is_enforced(WireForm::JsonObject, r#"["hello"]"#));
        assert!(!is_enforced(WireForm::JsonObject, "Hello! {\"a\": 1}"));
    }

    #[test]
    fn probe_constraints_use_the_form_and_a_strict_compatible_schema() {
        let (constraint, field) = probe_constraint(WireForm::GuidedJson);
        assert_eq!(constraint.mechanism(), crate::schema::Mechanism::GuidedJson);
        assert_eq!(field, GuidedField::GuidedJson);
        match probe_constraint(WireForm::JsonSchemaStrict).0 {
            Constraint::JsonSchema { strict, schema, .. } => {
                assert!(strict);
                assert_eq!(schema["additionalProperties"], json!(false));
            }
            other => panic!("{other:?}"),
        }
        assert!(PROBE_GRAMMAR.contains(PROBE_MARKER));
        assert!(!PROBE_PROMPT.contains("ok") && !PROBE_PROMPT.contains("marker"));
    }
}
