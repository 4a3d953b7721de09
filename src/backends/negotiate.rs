//! Negotiation: from settings to the capabilities a request uses, through the in-process memo,
//! the capabilities cache, the server's fingerprint, a probe, or the preset's prior.
//!
//! [`Negotiator::negotiate`] never fails. Concurrent callers for the same (provider, endpoint,
//! model) collapse onto one probe (a `OnceLock` per key); a cached entry is trusted until the
//! server's fingerprint changes or the user asks for `refresh`; only a successful probe is
//! written to the cache; an unsuccessful one keeps an earlier successful entry and otherwise
//! degrades to `prompt_only`. With `structured_decoding = off` nothing is probed at all.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::config::{Settings, StructuredDecoding};
use crate::schema::Mechanism;

use super::cache::{CacheEntry, CacheKey, CapabilityCache, Demotion};
use super::capabilities::{Capabilities, Outcome, WireForm};
use super::fingerprint::{self, Fingerprint};
use super::probe::{ProbeReport, Target, probe};
use super::time::now_rfc3339;
use crate::config::endpoint::{EndpointError, normalize_endpoint};

/// Where the capabilities in a [`Negotiation`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A probe run by this call (or by a concurrent caller it collapsed onto).
    Probe,
    /// The capabilities cache.
    Cache,
    /// The provider preset's prior guess: nothing was probed.
    Prior,
    /// `structured_decoding = off`: prompt-only by the user's choice.
    ForcedOff,
}

impl Source {
    /// The name used in `--json` output.
    pub const fn as_str(self) -> &'static str {
        match self {
            Source::Probe => "probe",
            Source::Cache => "cache",
            Source::Prior => "prior",
            Source::ForcedOff => "forced_off",
        }
    }
}

/// The settings a target could not be made from.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// No endpoint configured, and the provider has no default.
    #[error("no endpoint is set, and provider {0} has no default endpoint")]
    NoEndpoint(crate::config::Provider),
    /// The endpoint is not usable.
    #[error(transparent)]
    Endpoint(#[from] EndpointError),
}

impl Target {
    /// The target the settings describe: the configured endpoint (or the preset's default),
    /// normalised, and a note when normalisation changed what the user wrote.
    pub fn from_settings(settings: &Settings) -> Result<(Target, Option<String>), TargetError> {
        let preset = super::presets::preset(settings.provider);
        let (text, configured) = match (&settings.endpoint, preset.default_endpoint) {
            (Some(endpoint), _) => (endpoint.as_str(), true),
            (None, Some(default)) => (default, false),
            (None, None) => return Err(TargetError::NoEndpoint(settings.provider)),
        };
        let normalized = normalize_endpoint(settings.provider, text)?;
        let target = Target {
            provider: settings.provider,
            endpoint: normalized.endpoint.with_default_api_version(),
            model: settings.model.clone().filter(|model| !model.is_empty()),
            api_key: settings.api_key.clone(),
        };
        Ok((target, normalized.changed.filter(|_| configured)))
    }
}

/// How [`Negotiator::negotiate`] may find capabilities.
#[derive(Clone, Debug)]
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
    /// settings' deadline and decoding switch, the cache in the config directory.
    pub fn from_settings(settings: &Settings) -> NegotiateOptions {
        NegotiateOptions {
            structured_decoding: settings.structured_decoding,
            refresh: false,
            allow_probe: true,
            check_fingerprint: true,
            probe_timeout: Duration::from_secs(settings.probe_timeout_s.max(1)),
            cache: CapabilityCache::from_config_dir(),
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
    pub source: Source,
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
}

impl Negotiation {
    /// One sentence on why this mechanism was selected.
    pub fn reason(&self) -> String {
        let capabilities = &self.capabilities;
        match self.source {
            Source::ForcedOff => {
                "structured_decoding is off: prompt-only JSON and repair".to_owned()
            }
            Source::Prior => format!("not probed: the {} preset's prior guess", self.key.provider),
            Source::Probe | Source::Cache => {
                let from = if self.source == Source::Probe {
                    "the probe"
                } else {
                    "the cached probe"
                };
                match capabilities.wire_form() {
                    Some(form) => {
                        format!("the strongest form {from} found enforced: {}", form.wire())
                    }
                    None if !capabilities.probed => {
                        "the endpoint did not answer the probe: prompt-only JSON and repair"
                            .to_owned()
                    }
                    None if capabilities
                        .outcomes
                        .values()
                        .any(|outcome| *outcome == Outcome::Supported) =>
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

type Cell = Arc<OnceLock<Negotiation>>;

/// Negotiates capabilities, memoised per (provider, endpoint, model) for the life of the value.
/// [`Negotiator::global`] is the process-wide one the structured call path uses.
#[derive(Debug, Default)]
pub struct Negotiator {
    memo: Mutex<HashMap<CacheKey, Cell>>,
}

impl Negotiator {
    /// A negotiator with an empty memo.
    pub fn new() -> Negotiator {
        Negotiator::default()
    }

    /// The process-wide negotiator.
    pub fn global() -> &'static Negotiator {
        static GLOBAL: OnceLock<Negotiator> = OnceLock::new();
        GLOBAL.get_or_init(Negotiator::new)
    }

    fn cell(&self, key: &CacheKey, fresh: bool) -> Cell {
        let mut memo = self
            .memo
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if fresh {
            let cell = Cell::default();
            memo.insert(key.clone(), cell.clone());
            cell
        } else {
            memo.entry(key.clone()).or_default().clone()
        }
    }

    /// The capabilities for `target` (see the module docs). Never fails.
    pub fn negotiate(&self, target: &Target, options: &NegotiateOptions) -> Negotiation {
        if options.structured_decoding == StructuredDecoding::Off {
            return forced_off(target, options);
        }
        if !options.allow_probe {
            return resolve(target, options);
        }
        let key = target.key();
        if options.refresh {
            let negotiation = resolve(target, options);
            let cell = self.cell(&key, true);
            let _ = cell.set(negotiation.clone());
            return negotiation;
        }
        let cell = self.cell(&key, false);
        cell.get_or_init(|| resolve(target, options)).clone()
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
        source: Source::ForcedOff,
        probed_at: entry.as_ref().and_then(|entry| entry.probed_at.clone()),
        fingerprint: entry.as_ref().and_then(|entry| entry.fingerprint.clone()),
        demotions: entry.map(|entry| entry.demotions).unwrap_or_default(),
        report: None,
        warnings: warning.into_iter().collect(),
    }
}

fn from_entry(key: CacheKey, entry: CacheEntry, warnings: Vec<String>) -> Negotiation {
    Negotiation {
        key,
        capabilities: entry.capabilities(),
        source: Source::Cache,
        probed_at: entry.probed_at,
        fingerprint: entry.fingerprint,
        demotions: entry.demotions,
        report: None,
        warnings,
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
            (form, Outcome::Untested { reason })
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

fn resolve(target: &Target, options: &NegotiateOptions) -> Negotiation {
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

    if let Some(entry) = entry
        .clone()
        .filter(|entry| entry.probed && !options.refresh)
    {
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
            source: Source::Prior,
            probed_at: None,
            fingerprint: None,
            demotions: Vec::new(),
            report: None,
            warnings,
        };
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
        return Negotiation {
            key,
            capabilities,
            source: Source::Probe,
            probed_at: None,
            fingerprint: Some(report.fingerprint.clone()).filter(|found| !found.is_empty()),
            demotions: keep_demotions,
            report: Some(report),
            warnings,
        };
    }
    let demoted: Vec<WireForm> = keep_demotions
        .iter()
        .map(|demotion| demotion.form)
        .collect();
    let capabilities = Capabilities::select(report.outcomes.clone(), &demoted, true);
    let probed_at = now_rfc3339();
    let fingerprint = Some(report.fingerprint.clone()).filter(|found| !found.is_empty());
    if let Some(cache) = writable_cache {
        let entry = CacheEntry::new(
            &key,
            &capabilities,
            Some(probed_at.clone()),
            fingerprint.clone(),
            keep_demotions.clone(),
        );
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
        source: Source::Probe,
        probed_at: Some(probed_at),
        fingerprint,
        demotions: keep_demotions,
        report: Some(report),
        warnings,
    }
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
