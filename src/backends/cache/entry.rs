//! What the capabilities cache keeps for one (provider, endpoint, model) ([`CacheEntry`], found
//! by its [`CacheKey`]): the probe's findings and the server's fingerprint, and what requests
//! learned since: demotions, answers a form did not enforce, refused fields, a failed probe,
//! text fallbacks. An entry selects again when a form is demoted. No secret is ever in an
//! entry: there is no field for one, and body excerpts were masked by the transport.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::config::Provider;
use crate::schema::Mechanism;

use super::super::capabilities::{Capabilities, FormOutcome, GuidedField, WireForm};
use super::super::errors::excerpt;
use super::super::fingerprint::Fingerprint;
use super::super::time::{format_rfc3339, now_rfc3339, parse_rfc3339};

/// What identifies an entry.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CacheKey {
    /// The provider.
    pub provider: Provider,
    /// The normalised endpoint, as displayed.
    pub endpoint: String,
    /// The model id; empty when none is configured.
    pub model: String,
}

/// A request-time demotion: a wire form the server refused, and when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Demotion {
    /// The wire form that was demoted.
    pub form: WireForm,
    /// The HTTP status that said no (absent when the failure had none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// When, RFC 3339 UTC.
    pub at: String,
    /// A short excerpt of the server's answer.
    pub body: String,
}

impl Demotion {
    /// A demotion of `form` now, with the status and an excerpt of `body`.
    pub fn now(form: WireForm, status: Option<u16>, body: &str) -> Demotion {
        Demotion {
            form,
            status,
            at: now_rfc3339(),
            body: excerpt(body),
        }
    }
}

/// How long a failed probe is remembered across processes: runs within it do not probe again
/// (each would pay the probe's deadline against a server that hangs or is still loading) and
/// use prompt-only JSON. Short, because a server is usually started soon after; `doctor` and
/// `probe --refresh` probe afresh.
pub const FAILED_PROBE_LIFETIME: Duration = Duration::from_secs(60);

/// A probe that got no answer: no connection, no answer in time, or a server still loading
/// (503) at its deadline. Kept in an entry no successful probe stands behind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedProbe {
    /// When, RFC 3339 UTC.
    pub at: String,
    /// Why the plain request failed.
    pub error: String,
    /// The status the server answered, when it answered (a 503 while loading).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Whether the connection was refused (nobody listens).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
}

impl FailedProbe {
    /// A failure recorded now.
    pub fn now(error: &str, status: Option<u16>, refused: bool) -> FailedProbe {
        FailedProbe {
            at: now_rfc3339(),
            error: excerpt(error),
            status,
            refused,
        }
    }

    /// Until when it stands (RFC 3339 UTC); `None` when `at` does not parse.
    pub fn until(&self) -> Option<String> {
        until(&self.at, FAILED_PROBE_LIFETIME)
    }

    /// Whether it still stands: recorded less than [`FAILED_PROBE_LIFETIME`] ago.
    pub fn is_fresh(&self) -> bool {
        is_fresh(&self.at, FAILED_PROBE_LIFETIME)
    }
}

/// How long the result of an [`IncompleteProbe`] is used before a call probes again. The
/// probe's requests wait in a busy server's queue behind each other, so the last ones miss the
/// deadline whatever form they ask for; a weaker form found meanwhile must not stand for good.
pub const INCOMPLETE_PROBE_LIFETIME: Duration = Duration::from_secs(600);

/// A probe that succeeded but got no answer, by its deadline, for forms stronger than the one
/// it selected: its result stands for [`INCOMPLETE_PROBE_LIFETIME`], then a call probes again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IncompleteProbe {
    /// When, RFC 3339 UTC.
    pub at: String,
    /// The stronger forms that got no answer, strongest first.
    pub unanswered: Vec<WireForm>,
}

impl IncompleteProbe {
    /// A probe finished now without an answer for `unanswered`.
    pub fn now(unanswered: Vec<WireForm>) -> IncompleteProbe {
        IncompleteProbe {
            at: now_rfc3339(),
            unanswered,
        }
    }

    /// Until when its result stands (RFC 3339 UTC); `None` when `at` does not parse.
    pub fn until(&self) -> Option<String> {
        until(&self.at, INCOMPLETE_PROBE_LIFETIME)
    }

    /// The unanswered forms' names, comma-separated.
    pub fn form_names(&self) -> String {
        let names: Vec<&str> = self.unanswered.iter().map(|form| form.as_str()).collect();
        names.join(", ")
    }

    /// Whether its result still stands: recorded less than [`INCOMPLETE_PROBE_LIFETIME`] ago.
    pub fn is_fresh(&self) -> bool {
        is_fresh(&self.at, INCOMPLETE_PROBE_LIFETIME)
    }
}

fn until(at: &str, lifetime: Duration) -> Option<String> {
    parse_rfc3339(at).map(|at| format_rfc3339(at + lifetime))
}

/// Whether `at` is less than `lifetime` ago (a time in the future, from a clock set back, does
/// not count as fresh beyond the lifetime either); `false` when it does not parse.
fn is_fresh(at: &str, lifetime: Duration) -> bool {
    let Some(at) = parse_rfc3339(at) else {
        return false;
    };
    match SystemTime::now().duration_since(at) {
        Ok(age) => age < lifetime,
        Err(ahead) => ahead.duration() < lifetime,
    }
}

/// The calls through one (provider, endpoint, model) whose every attempt failed and whose last
/// answer's text was given back as plain text instead (`text_fallback`, seed 004's backstop):
/// how often, and the last time and why. It tells which model leans on the backstop; nothing
/// reads it to decide a call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextFallbacks {
    /// How many calls fell back to text.
    pub count: u64,
    /// When the last one did, RFC 3339 UTC.
    pub last_at: String,
    /// The failure class of its last answer (`prose`, `truncated`, ...).
    pub last_class: String,
}

/// Everything known about one (provider, endpoint, model).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheEntry {
    /// The provider.
    pub provider: Provider,
    /// The normalised endpoint.
    pub endpoint: String,
    /// The model id; empty when none is configured.
    pub model: String,
    /// The selected mechanism (after demotions).
    pub mechanism: Mechanism,
    /// Whether json_schema requests carry `strict: true`.
    pub strict: bool,
    /// Which field guided decoding uses.
    pub guided_field: GuidedField,
    /// Whether a successful probe stands behind the entry.
    pub probed: bool,
    /// When the probe ran, RFC 3339 UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probed_at: Option<String>,
    /// Each wire form's probe outcome.
    #[serde(default)]
    pub outcomes: BTreeMap<WireForm, FormOutcome>,
    /// The server's fingerprint at probe time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Fingerprint>,
    /// Request-time demotions, oldest first.
    #[serde(default)]
    pub demotions: Vec<Demotion>,
    /// Per wire form, how many answers in a row did not parse although the form claims to
    /// enforce (see [`CacheEntry::count_enforcement`]); forms at zero are left out.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub enforcement_failures: BTreeMap<WireForm, u32>,
    /// Sampling fields the server refused by name (a proxy that checks fields): not sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused_fields: Vec<String>,
    /// Whether the server refused to stream: answers are asked for whole.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refuses_streaming: bool,
    /// The last probe, when it got no answer and no successful probe stands behind the entry
    /// (see [`FAILED_PROBE_LIFETIME`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_probe: Option<FailedProbe>,
    /// The calls that fell back to the last answer's text (see [`TextFallbacks`]); absent until
    /// one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_fallbacks: Option<TextFallbacks>,
    /// The probe behind the entry got no answer for forms stronger than the one it selected
    /// (see [`IncompleteProbe`]); absent when it got every answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete_probe: Option<IncompleteProbe>,
}

impl CacheEntry {
    /// The entry's key.
    pub fn key(&self) -> CacheKey {
        CacheKey {
            provider: self.provider,
            endpoint: self.endpoint.clone(),
            model: self.model.clone(),
        }
    }

    /// An entry for `key` holding `capabilities`.
    pub fn new(
        key: &CacheKey,
        capabilities: &Capabilities,
        probed_at: Option<String>,
        fingerprint: Option<Fingerprint>,
        demotions: Vec<Demotion>,
    ) -> CacheEntry {
        CacheEntry {
            provider: key.provider,
            endpoint: key.endpoint.clone(),
            model: key.model.clone(),
            mechanism: capabilities.mechanism,
            strict: capabilities.strict,
            guided_field: capabilities.guided_field,
            probed: capabilities.probed,
            probed_at,
            outcomes: capabilities.outcomes.clone(),
            fingerprint,
            demotions,
            enforcement_failures: BTreeMap::new(),
            refused_fields: Vec::new(),
            refuses_streaming: false,
            failed_probe: None,
            text_fallbacks: None,
            incomplete_probe: None,
        }
    }

    /// The demoted wire forms.
    pub fn demoted_forms(&self) -> Vec<WireForm> {
        self.demotions
            .iter()
            .map(|demotion| demotion.form)
            .collect()
    }

    /// The entry's capabilities.
    pub fn capabilities(&self) -> Capabilities {
        Capabilities {
            mechanism: self.mechanism,
            strict: self.strict,
            guided_field: self.guided_field,
            probed: self.probed,
            outcomes: self.outcomes.clone(),
        }
    }

    /// Counts one answer under `form` (a server that accepts a form does not always enforce
    /// it): `failed`
    /// (the answer did not parse although the form claims to enforce) adds one to the form's
    /// failures in a row; a parsed answer resets them. The failure that reaches `threshold`
    /// marks the form not enforced (its outcome keeps `answer`) and demotes it exactly like a
    /// rejection; the demotion is returned. Returns the count after this answer.
    pub fn count_enforcement(
        &mut self,
        form: WireForm,
        failed: bool,
        answer: &str,
        threshold: u32,
    ) -> (u32, Option<Demotion>) {
        if !failed {
            self.enforcement_failures.remove(&form);
            return (0, None);
        }
        let count = self.enforcement_failures.entry(form).or_insert(0);
        *count += 1;
        let count = *count;
        if count < threshold || self.demoted_forms().contains(&form) {
            return (count, None);
        }
        self.enforcement_failures.remove(&form);
        let answer = super::super::errors::excerpt_chars(answer, 80);
        self.outcomes.insert(
            form,
            FormOutcome::NotEnforced {
                answer: answer.clone(),
            },
        );
        let demotion = Demotion::now(
            form,
            None,
            &format!("accepted but not enforced: {count} answers in a row did not parse: {answer}"),
        );
        self.demote(demotion.clone());
        (count, Some(demotion))
    }

    /// Records `demotion` and selects again without the demoted forms.
    pub fn demote(&mut self, demotion: Demotion) {
        self.demotions.push(demotion);
        let selected =
            Capabilities::select(self.outcomes.clone(), &self.demoted_forms(), self.probed);
        self.mechanism = selected.mechanism;
        self.strict = selected.strict;
        self.guided_field = selected.guided_field;
    }
}
