//! Negotiation: from settings to the capabilities a request uses, through the capabilities
//! cache, the server's fingerprint, a probe, or the preset's prior. [`Negotiator`] keeps what
//! it found for the life of the process (see [`memo`]).
//!
//! A cached entry is trusted until the server's fingerprint changes or the user asks for
//! `refresh`; only a successful probe is written to the cache as capabilities; an unsuccessful
//! one keeps an earlier successful entry and otherwise degrades to `prompt_only`. A failed
//! probe is not sticky:
//! - across processes, a probe that got no answer (no connection, nothing in time, a server
//!   still loading) is recorded in the cache and reused for
//!   [`FAILED_PROBE_LIFETIME`](super::cache::FAILED_PROBE_LIFETIME), so repeated runs against
//!   a dead server do not each pay the probe's deadline; `refresh` ignores it;
//! - in a process, the memo keeps a failed result only for a backoff (see [`memo`]), so a
//!   long-lived process climbs back up once the server is up.
//!
//! Nor is a probe that succeeded but got no answer, by its deadline, for forms stronger than
//! the one it found: a busy server queues the probe's requests, and the last ones miss the
//! deadline whatever they ask. Its result is cached with an
//! [`IncompleteProbe`](super::cache::IncompleteProbe) and used for
//! [`INCOMPLETE_PROBE_LIFETIME`](super::cache::INCOMPLETE_PROBE_LIFETIME), in the cache as in
//! the memo; then a call probes again.
//!
//! With `structured_decoding = off` nothing is probed at all.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::config::{Settings, StructuredDecoding};
use crate::schema::Mechanism;

use super::cache::{CacheEntry, CacheKey, CapabilityCache, Demotion, FailedProbe, IncompleteProbe};
use super::capabilities::{Capabilities, FormOutcome, WireForm};
use super::engine::Engine;
use super::fingerprint::{self, Fingerprint};
use super::probe::{ProbeReport, probe};
use super::target::Target;
use super::time::now_rfc3339;

mod memo;

pub use memo::Negotiator;

/// Where the capabilities in a [`Negotiation`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CapabilitySource {
    /// A probe run by this call (or by a concurrent caller it collapsed onto).
    Probe,
    /// The capabilities cache.
    Cache,
    /// The provider preset's prior guess: nothing was probed.
    Prior,
    /// `structured_decoding = off`: prompt-only by the user's choice.
    ForcedOff,
}

impl CapabilitySource {
    /// The name used in `--json` output.
    pub const fn as_str(self) -> &'static str {
        match self {
            CapabilitySource::Probe => "probe",
            CapabilitySource::Cache => "cache",
            CapabilitySource::Prior => "prior",
            CapabilitySource::ForcedOff => "forced_off",
        }
    }
}

/// How [`Negotiator::negotiate`] may find capabilities.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct NegotiateOptions {
    /// `auto` or `off` (off: prompt-only, nothing probed).
    pub structured_decoding: StructuredDecoding,
    /// Probe again even when the cache has an entry.
    pub refresh: bool,
    /// Whether a probe may be sent at all (`false`: cache or prior only).
    pub allow_probe: bool,
    /// Whether a cached entry is checked against the live server's fingerprint.
    pub check_fingerprint: bool,
    /// The probe's deadline.
    pub probe_timeout: Duration,
    /// The cache to read and write (`None`: memory only).
    pub cache: Option<CapabilityCache>,
}

impl NegotiateOptions {
    /// The options a structured call uses: probe when needed, check the fingerprint, the
    /// settings' deadline and decoding switch, the cache in the settings' config directory
    /// (none without one).
    pub fn from_settings(settings: &Settings) -> NegotiateOptions {
        NegotiateOptions {
            structured_decoding: settings.structured_decoding,
            refresh: false,
            allow_probe: true,
            check_fingerprint: true,
            probe_timeout: Duration::from_secs(settings.probe_timeout_s.max(1)),
            cache: settings.config_dir.as_deref().map(CapabilityCache::in_dir),
        }
    }
}

/// The capabilities to use for a target, where they came from, and what was learned on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Negotiation {
    /// The cache key.
    pub key: CacheKey,
    /// The capabilities to use.
    pub capabilities: Capabilities,
    /// Where they came from.
    pub source: CapabilitySource,
    /// When the probe behind them ran (RFC 3339 UTC).
    pub probed_at: Option<String>,
    /// The server's fingerprint (from the probe or the cache).
    pub fingerprint: Option<Fingerprint>,
    /// Request-time demotions recorded for this key.
    pub demotions: Vec<Demotion>,
    /// The probe this call ran, if it ran one.
    pub report: Option<ProbeReport>,
    /// Things the user may want to know (a corrupt cache replaced, a changed server re-probed,
    /// a cache that could not be written).
    pub warnings: Vec<String>,
    /// The earlier failed probe this negotiation reused instead of probing (see the module
    /// docs); `None` when it probed or found a successful probe.
    pub failed_probe: Option<FailedProbe>,
    /// The probe behind the capabilities (this call's or the cached one) got no answer for
    /// forms stronger than the one it selected: they stand only for a while.
    pub incomplete_probe: Option<IncompleteProbe>,
}

impl Negotiation {
    /// The engine requests follow: the provider, or under `openai-compatible` the engine the
    /// server's fingerprint names ([`Engine::of`]).
    pub fn engine(&self) -> Engine {
        Engine::of(self.key.provider, self.fingerprint.as_ref())
    }

    /// Whether no probe has succeeded behind these capabilities, and one failed: this call's,
    /// or a recent one it reused.
    pub fn probe_failed(&self) -> bool {
        !self.capabilities.probed
            && (self.failed_probe.is_some()
                || self.report.as_ref().is_some_and(|report| !report.probed))
    }
}

impl Negotiation {
    /// One sentence on why this mechanism was selected.
    pub fn reason(&self) -> String {
        let capabilities = &self.capabilities;
        match self.source {
            CapabilitySource::ForcedOff => {
                "structured_decoding is off: prompt-only JSON and repair".to_owned()
            }
            CapabilitySource::Prior => {
                format!("not probed: the {} preset's prior guess", self.key.provider)
            }
            CapabilitySource::Cache if self.failed_probe.is_some() => {
                let failed = self.failed_probe.as_ref().expect("checked");
                format!(
                    "the endpoint did not answer the probe at {} ({}); not probed again until {} \
                     (`slmcode probe --refresh` probes now): prompt-only JSON and repair",
                    failed.at,
                    failed.error,
                    failed.until().as_deref().unwrap_or("a minute later")
                )
            }
            CapabilitySource::Probe | CapabilitySource::Cache => {
                let from = if self.source == CapabilitySource::Probe {
                    "the probe"
                } else {
                    "the cached probe"
                };
                match capabilities.wire_form() {
                    Some(form) => match &self.incomplete_probe {
                        None => {
                            format!("the strongest form {from} found enforced: {}", form.wire())
                        }
                        Some(incomplete) => format!(
                            "the strongest form {from} found enforced, {}, while it got no \
                             answer in time for {}; probed again after {}",
                            form.wire(),
                            incomplete.form_names(),
                            incomplete.until().as_deref().unwrap_or("a while")
                        ),
                    },
                    None if !capabilities.probed => {
                        "the endpoint did not answer the probe: prompt-only JSON and repair"
                            .to_owned()
                    }
                    None if capabilities
                        .outcomes
                        .values()
                        .any(|outcome| *outcome == FormOutcome::Supported) =>
                    {
                        format!(
                            "every form {from} found enforced was demoted at request time (see the demotions): prompt-only JSON and repair"
                        )
                    }
                    None => format!(
                        "no constraint form was enforced in {from}: prompt-only JSON and repair"
                    ),
                }
            }
        }
    }
}

fn forced_off(target: &Target, options: &NegotiateOptions) -> Negotiation {
    let key = target.key();
    let (entry, warning) = match &options.cache {
        Some(cache) => cache.get(&key),
        None => (None, None),
    };
    let mut capabilities = Capabilities::floor();
    if let Some(entry) = &entry {
        capabilities.outcomes = entry.outcomes.clone();
        capabilities.probed = entry.probed;
    }
    Negotiation {
        key,
        capabilities,
        source: CapabilitySource::ForcedOff,
        probed_at: entry.as_ref().and_then(|entry| entry.probed_at.clone()),
        fingerprint: entry.as_ref().and_then(|entry| entry.fingerprint.clone()),
        demotions: entry.map(|entry| entry.demotions).unwrap_or_default(),
        report: None,
        warnings: warning.into_iter().collect(),
        failed_probe: None,
        incomplete_probe: None,
    }
}

fn from_entry(key: CacheKey, entry: CacheEntry, warnings: Vec<String>) -> Negotiation {
    Negotiation {
        key,
        capabilities: entry.capabilities(),
        source: CapabilitySource::Cache,
        probed_at: entry.probed_at,
        fingerprint: entry.fingerprint,
        demotions: entry.demotions,
        report: None,
        warnings,
        failed_probe: entry.failed_probe.filter(FailedProbe::is_fresh),
        incomplete_probe: entry.incomplete_probe,
    }
}

/// The preset's prior, with every form marked untested.
pub fn prior(target: &Target) -> Capabilities {
    let preset = target.preset();
    let outcomes = WireForm::ALL
        .into_iter()
        .map(|form| {
            let reason = if preset.worth_probing(form) {
                "not probed yet (run `slmcode probe`)".to_owned()
            } else {
                preset.not_probed_reason(form)
            };
            (form, FormOutcome::Untested { reason })
        })
        .collect();
    Capabilities {
        mechanism: preset.prior.mechanism,
        strict: preset.prior.strict && preset.prior.mechanism == Mechanism::JsonSchema,
        guided_field: preset.guided_field,
        probed: false,
        outcomes,
    }
}

/// Negotiates from the cache or a probe; `reuse_failure`: a recent failed or incomplete probe
/// in the cache stands in for a probe (unless `options.refresh`).
fn resolve(target: &Target, options: &NegotiateOptions, reuse_failure: bool) -> Negotiation {
    let key = target.key();
    let mut warnings = Vec::new();
    let snapshot = options
        .cache
        .as_ref()
        .map(CapabilityCache::read)
        .unwrap_or_default();
    warnings.extend(snapshot.warning);
    // A file from a newer slmcode is kept as it is: this run neither reads nor writes it.
    let writable_cache = options
        .cache
        .as_ref()
        .filter(|_| snapshot.newer_version.is_none());
    let entry = snapshot
        .entries
        .into_iter()
        .find(|entry| entry.key() == key);
    let mut keep_demotions = entry
        .as_ref()
        .map(|entry| entry.demotions.clone())
        .unwrap_or_default();

    // A probe that missed stronger forms (a busy server) stands only for a while.
    if let Some(entry) = entry.clone().filter(|entry| {
        entry.probed
            && !options.refresh
            && entry
                .incomplete_probe
                .as_ref()
                .is_none_or(|incomplete| reuse_failure && incomplete.is_fresh())
    }) {
        let changed = if options.check_fingerprint && options.allow_probe {
            fingerprint_change(target, &entry, options.probe_timeout)
        } else {
            None
        };
        match changed {
            None => return from_entry(key, entry, warnings),
            Some(change) => {
                warnings.push(format!(
                    "the server changed since the last probe ({change}): probed again"
                ));
                keep_demotions.clear();
            }
        }
    }
    if !options.allow_probe {
        if let Some(entry) = entry {
            return from_entry(key, entry, warnings);
        }
        return Negotiation {
            key,
            capabilities: prior(target),
            source: CapabilitySource::Prior,
            probed_at: None,
            fingerprint: None,
            demotions: Vec::new(),
            report: None,
            warnings,
            failed_probe: None,
            incomplete_probe: None,
        };
    }
    if reuse_failure
        && !options.refresh
        && let Some(entry) = entry.clone().filter(|entry| {
            !entry.probed
                && entry
                    .failed_probe
                    .as_ref()
                    .is_some_and(FailedProbe::is_fresh)
        })
    {
        let mut negotiation = from_entry(key, entry, warnings);
        negotiation.capabilities = Capabilities {
            outcomes: negotiation.capabilities.outcomes,
            ..Capabilities::floor()
        };
        return negotiation;
    }

    let report = probe(target, options.probe_timeout);
    if !report.probed {
        if let Some(entry) = entry.filter(|entry| entry.probed) {
            warnings.push(format!(
                "the probe got no answer ({}); using the result cached at {}",
                report.baseline_error.as_deref().unwrap_or("no 2xx answer"),
                entry.probed_at.as_deref().unwrap_or("an unknown time")
            ));
            let mut negotiation = from_entry(key, entry, warnings);
            negotiation.report = Some(report);
            return negotiation;
        }
        let mut capabilities = Capabilities::floor();
        capabilities.outcomes = report.outcomes.clone();
        // Nothing answered (no connection, nothing in time), or the server was still loading:
        // worth remembering for a while. A refused key, an unknown model, a TLS failure or an
        // answer that is no chat completion comes at once, and is the user's to fix.
        let remembered = match &report.baseline_failure {
            None => true,
            Some(failure) => {
                failure.is_loading()
                    || (failure.status.is_none()
                        && failure.tls.is_none()
                        && failure.class != super::errors::ErrorClass::Unknown)
            }
        };
        if let Some(cache) = writable_cache.filter(|_| remembered) {
            let failed = FailedProbe::now(
                report.baseline_error.as_deref().unwrap_or("no answer"),
                report.baseline_status,
                report
                    .baseline_failure
                    .as_ref()
                    .is_some_and(|failure| failure.refused),
            );
            match cache.record_failed_probe(&key, failed, &capabilities) {
                Ok(Some(warning)) if warnings.contains(&warning) => {}
                Ok(warning) => warnings.extend(warning),
                Err(error) => warnings.push(format!("the failed probe was not cached: {error}")),
            }
        }
        return Negotiation {
            key,
            capabilities,
            source: CapabilitySource::Probe,
            probed_at: None,
            fingerprint: Some(report.fingerprint.clone()).filter(|found| !found.is_empty()),
            demotions: keep_demotions,
            report: Some(report),
            warnings,
            failed_probe: None,
            incomplete_probe: None,
        };
    }
    let demoted: Vec<WireForm> = keep_demotions
        .iter()
        .map(|demotion| demotion.form)
        .collect();
    let capabilities = Capabilities::select(report.outcomes.clone(), &demoted, true);
    let probed_at = now_rfc3339();
    let fingerprint = Some(report.fingerprint.clone()).filter(|found| !found.is_empty());
    let incomplete = incomplete_probe(&report, &capabilities, &demoted);
    if let Some(incomplete) = &incomplete {
        warnings.push(format!(
            "the probe got no answer in time for {} (a busy or slow server): {} until {}, then \
             probed again (`slmcode probe --refresh` probes now)",
            incomplete.form_names(),
            capabilities
                .wire_form()
                .map_or("prompt-only JSON", WireForm::as_str),
            incomplete.until().as_deref().unwrap_or("a while later"),
        ));
    }
    if let Some(cache) = writable_cache {
        let mut entry = CacheEntry::new(
            &key,
            &capabilities,
            Some(probed_at.clone()),
            fingerprint.clone(),
            keep_demotions.clone(),
        );
        entry.incomplete_probe = incomplete.clone();
        match cache.store(entry) {
            // The read before the probe said the same (a corrupt file, now replaced): once is
            // enough.
            Ok(Some(warning)) if warnings.contains(&warning) => {}
            Ok(warning) => warnings.extend(warning),
            Err(error) => warnings.push(format!("the probe result was not cached: {error}")),
        }
    }
    Negotiation {
        key,
        capabilities,
        source: CapabilitySource::Probe,
        probed_at: Some(probed_at),
        fingerprint,
        demotions: keep_demotions,
        report: Some(report),
        warnings,
        failed_probe: None,
        incomplete_probe: incomplete,
    }
}

/// The forms stronger than the selected one that got no answer from `report`, if any, as an
/// [`IncompleteProbe`] recorded now (a demoted form is not waited for).
fn incomplete_probe(
    report: &ProbeReport,
    selected: &Capabilities,
    demoted: &[WireForm],
) -> Option<IncompleteProbe> {
    let selected = selected.wire_form();
    let unanswered: Vec<WireForm> = WireForm::ALL
        .into_iter()
        .take_while(|form| Some(*form) != selected)
        .filter(|form| report.unanswered.contains(form) && !demoted.contains(form))
        .collect();
    (!unanswered.is_empty()).then(|| IncompleteProbe::now(unanswered))
}

/// How the live server differs from the cached entry's fingerprint, if it does.
fn fingerprint_change(target: &Target, entry: &CacheEntry, timeout: Duration) -> Option<String> {
    let cached = entry.fingerprint.as_ref()?;
    // The model list is not compared (see `Fingerprint::change_from`), so it is not fetched.
    let routes: Vec<_> = target
        .preset()
        .fingerprint
        .iter()
        .copied()
        .filter(|route| *route != super::presets::FingerprintRoute::Models)
        .collect();
    if routes.is_empty() {
        return None;
    }
    // A quick look, not a probe: a few seconds at most.
    let deadline = Instant::now() + timeout.min(Duration::from_secs(3));
    let live = fingerprint::fetch(&target.client(), &routes, target.model.as_deref(), deadline);
    live.change_from(cached)
}
