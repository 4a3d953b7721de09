//! [`CallContext`]: everything a structured call uses besides the settings and the request:
//! the target and its client, the negotiated capabilities, the capabilities cache that
//! demotions, enforcement failures and text fallbacks are written to, the repair stats file,
//! the retry policy, and (for tests) the jitter seed and the sleep function.
//!
//! A context may serve many calls. What a call learns (demotions, enforcement failures) is
//! written to the cache when there is one, and also kept in the context, so the next call
//! through the same context starts at the right wire form even though the process-wide negotiation
//! memo still holds what was negotiated before.

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use crate::config::Settings;
use crate::files::stats::STATS_FILE;
use crate::repair::FailureClass;

use crate::backends::cache::{CacheEntry, CapabilityCache, Demotion};
use crate::backends::capabilities::WireForm;
use crate::backends::engine::Engine;
use crate::backends::negotiate::{NegotiateOptions, Negotiation, Negotiator};
use crate::backends::retry::RetryPolicy;
use crate::backends::target::Target;
use crate::backends::target::TargetError;
use crate::backends::transport::Client;

/// A function that waits (the retry policy's backoff); injectable so tests need not sleep.
pub type Sleep = Arc<dyn Fn(Duration) + Send + Sync>;

/// How far the answer being streamed has come: what a progress display shows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallProgress {
    /// Which answer of the call (1 for the first, 2 for the first re-ask, ...).
    pub attempt: u32,
    /// Text chunks received for this answer (one token each on most engines).
    pub tokens: u64,
    /// Chunks per second since the first one, once there is a rate.
    pub tokens_per_second: Option<f64>,
    /// Time since the call started.
    pub elapsed: Duration,
}

/// A function told about every chunk of text as it arrives; it must return quickly.
pub type ProgressReport = Arc<dyn Fn(&CallProgress) + Send + Sync>;

/// What the context learned across calls.
#[derive(Debug, Default)]
pub(super) struct Learned {
    /// Forms demoted through this context.
    pub demoted: Vec<WireForm>,
    /// Enforcement failures in a row, when there is no cache to keep them (or its file is from
    /// a newer slmcode): an entry that is never written.
    pub scratch: Option<CacheEntry>,
}

/// The endpoint side of a structured call. Build it from settings ([`CallContext::from_settings`])
/// or from parts ([`CallContext::new`]) and adjust it with the `with_` methods.
pub struct CallContext {
    /// What the call talks to.
    pub target: Target,
    /// The capabilities to start from, and how they were found.
    pub negotiation: Negotiation,
    pub(super) client: Client,
    pub(super) cache: Option<CapabilityCache>,
    /// Whether the cache file was written by a newer slmcode, looked at once: such a file is
    /// kept as it is, and this context records in memory only, as it does without a cache.
    pub(super) cache_kept: OnceLock<bool>,
    pub(super) stats_file: Option<PathBuf>,
    pub(super) retry: RetryPolicy,
    pub(super) jitter_seed: Option<u64>,
    pub(super) sleep: Sleep,
    pub(super) progress: Option<ProgressReport>,
    pub(super) learned: Mutex<Learned>,
    pub(super) settings: Settings,
}

impl fmt::Debug for CallContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallContext")
            .field("target", &self.target)
            .field("negotiation", &self.negotiation)
            .field("cache", &self.cache)
            .field("stats_file", &self.stats_file)
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl CallContext {
    /// A context for `target` with `negotiation`: no cache, the repair stats in the settings'
    /// config directory (none without one), the default retry policy, real sleeps.
    pub fn new(settings: Settings, target: Target, negotiation: Negotiation) -> CallContext {
        CallContext {
            stats_file: settings.config_dir.as_ref().map(|dir| dir.join(STATS_FILE)),
            settings,
            client: target.client(),
            target,
            negotiation,
            cache: None,
            cache_kept: OnceLock::new(),
            retry: RetryPolicy::default(),
            jitter_seed: None,
            sleep: Arc::new(std::thread::sleep),
            progress: None,
            learned: Mutex::new(Learned::default()),
        }
    }

    /// The context the settings describe: their target, negotiated by the process-wide
    /// [`Negotiator`] (probing when nothing is cached), the capabilities cache and the repair
    /// stats in the settings' config directory (neither without one).
    pub fn from_settings(settings: &Settings) -> Result<CallContext, TargetError> {
        CallContext::negotiate(
            settings,
            Negotiator::global(),
            &NegotiateOptions::from_settings(settings),
        )
    }

    /// The context for the settings' target, negotiated by `negotiator` with `options`; the
    /// cache is `options.cache`; the stats file as [`CallContext::new`] has it.
    pub fn negotiate(
        settings: &Settings,
        negotiator: &Negotiator,
        options: &NegotiateOptions,
    ) -> Result<CallContext, TargetError> {
        let (target, _) = Target::from_settings(settings)?;
        let negotiation = negotiator.negotiate(&target, options);
        Ok(CallContext::new(settings.clone(), target, negotiation)
            .with_cache(options.cache.clone()))
    }

    /// Writes demotions and enforcement failures to `cache` (and reads recorded ones from it).
    pub fn with_cache(mut self, cache: Option<CapabilityCache>) -> CallContext {
        self.cache = cache;
        self.cache_kept = OnceLock::new();
        self
    }

    /// The engine calls through this context are shaped for ([`Negotiation::engine`]).
    pub fn engine(&self) -> Engine {
        self.negotiation.engine()
    }

    /// The settings every call through this context runs with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Runs calls with `settings` instead (same target, negotiation and learned state).
    pub fn with_settings(mut self, settings: Settings) -> CallContext {
        self.settings = settings;
        self
    }

    /// Adds each call's repair statistics to this file (when `record_stats` is on).
    pub fn with_stats_file(mut self, path: Option<PathBuf>) -> CallContext {
        self.stats_file = path;
        self
    }

    /// Retries with `policy` instead of the default.
    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> CallContext {
        self.retry = policy;
        self
    }

    /// Draws backoff jitter from a fixed seed (tests).
    pub fn with_jitter_seed(mut self, seed: u64) -> CallContext {
        self.jitter_seed = Some(seed);
        self
    }

    /// Waits with `sleep` instead of `std::thread::sleep` (tests record the waits).
    pub fn with_sleep(mut self, sleep: impl Fn(Duration) + Send + Sync + 'static) -> CallContext {
        self.sleep = Arc::new(sleep);
        self
    }

    /// Tells `report` about every chunk of text as it arrives (a progress display).
    pub fn with_progress(
        mut self,
        report: impl Fn(&CallProgress) + Send + Sync + 'static,
    ) -> CallContext {
        self.progress = Some(Arc::new(report));
        self
    }

    /// Asks for whole answers instead of event streams (a server or proxy that mangles them).
    pub fn without_streaming(mut self) -> CallContext {
        self.client = self.client.without_streaming();
        self
    }

    /// Teaches the client what the cache says the server refuses (sampling fields,
    /// streaming), so this process does not learn it again with a failed request.
    pub(super) fn recall_refusals(&self) {
        if let Some(cache) = &self.cache
            && let (Some(entry), _) = cache.get(&self.negotiation.key)
        {
            self.client
                .learn_refusals(&entry.refused_fields, entry.refuses_streaming);
        }
    }

    /// Writes what the client learned the server refuses to the cache, when it is news.
    pub(super) fn remember_refusals(&self) -> Option<String> {
        let (fields, refuses_streaming) = self.client.refusals();
        if fields.is_empty() && !refuses_streaming {
            return None;
        }
        let cache = self.writable_cache()?;
        let (entry, _) = cache.get(&self.negotiation.key);
        let known = entry.as_ref().is_some_and(|entry| {
            fields
                .iter()
                .all(|field| entry.refused_fields.contains(field))
                && entry.refuses_streaming >= refuses_streaming
        });
        if known {
            return None;
        }
        cache
            .record_refusals(
                &self.negotiation.key,
                &fields,
                refuses_streaming,
                &self.negotiation.capabilities,
            )
            .err()
            .map(|error| format!("what the server refuses was not recorded: {error}"))
    }

    /// The capabilities cache, if any.
    pub fn cache(&self) -> Option<&CapabilityCache> {
        self.cache.as_ref()
    }

    /// The cache to record in: none without a cache, or when its file was written by a newer
    /// slmcode (the negotiation already warned about that file; it is never written).
    fn writable_cache(&self) -> Option<&CapabilityCache> {
        let cache = self.cache.as_ref()?;
        let kept = *self
            .cache_kept
            .get_or_init(|| cache.read().newer_version.is_some());
        (!kept).then_some(cache)
    }

    /// Every demoted form known now: the negotiation's, the cache's current entry's (another
    /// process may have demoted since), and this context's.
    pub(super) fn demoted_forms(&self) -> Vec<WireForm> {
        let mut forms: Vec<WireForm> = self
            .negotiation
            .demotions
            .iter()
            .map(|demotion| demotion.form)
            .collect();
        if let Some(cache) = &self.cache
            && let (Some(entry), _) = cache.get(&self.negotiation.key)
        {
            forms.extend(entry.demoted_forms());
        }
        forms.extend(self.learned().demoted.iter().copied());
        forms.sort();
        forms.dedup();
        forms
    }

    pub(super) fn learned(&self) -> std::sync::MutexGuard<'_, Learned> {
        self.learned
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Records a demotion: in the cache when there is one, and in the context. Returns a
    /// warning when the cache could not be written.
    pub(super) fn record_demotion(&self, demotion: &Demotion) -> Option<String> {
        self.learned().demoted.push(demotion.form);
        let cache = self.writable_cache()?;
        cache
            .record_demotion(
                &self.negotiation.key,
                demotion.clone(),
                &self.negotiation.capabilities,
            )
            .err()
            .map(|error| {
                format!(
                    "the demotion of {} was not recorded: {error}",
                    demotion.form
                )
            })
    }

    /// Records in the cache, when there is one, that a call fell back to its last answer's
    /// text after a failure of `class` (`text_fallback`); returns a warning when the cache
    /// could not be written.
    pub(super) fn record_text_fallback(&self, class: FailureClass) -> Option<String> {
        let cache = self.writable_cache()?;
        cache
            .record_text_fallback(
                &self.negotiation.key,
                class.as_str(),
                &self.negotiation.capabilities,
            )
            .err()
            .map(|error| format!("the text fallback was not recorded: {error}"))
    }

    /// Counts one answer under `form` (see [`CacheEntry::count_enforcement`]); returns the
    /// demotion it made, if any, and a warning when the cache could not be written.
    ///
    /// [`CacheEntry::count_enforcement`]: crate::backends::cache::CacheEntry::count_enforcement
    pub(super) fn record_enforcement(
        &self,
        form: WireForm,
        failed: bool,
        answer: &str,
        threshold: u32,
    ) -> (Option<Demotion>, Option<String>) {
        let key = &self.negotiation.key;
        let Some(cache) = self.writable_cache() else {
            let mut learned = self.learned();
            let capabilities = &self.negotiation.capabilities;
            let (_, demotion) = learned
                .scratch
                .get_or_insert_with(|| CacheEntry::new(key, capabilities, None, None, Vec::new()))
                .count_enforcement(form, failed, answer, threshold);
            if let Some(demotion) = &demotion {
                learned.demoted.push(demotion.form);
            }
            return (demotion, None);
        };
        // A parsed answer writes only when there is a count to reset.
        if !failed {
            let (entry, _) = cache.get(key);
            if entry.is_none_or(|entry| !entry.enforcement_failures.contains_key(&form)) {
                return (None, None);
            }
        }
        match cache.record_enforcement(
            key,
            form,
            failed,
            answer,
            threshold,
            &self.negotiation.capabilities,
        ) {
            Ok((_, demotion, _)) => {
                if let Some(demotion) = &demotion {
                    self.learned().demoted.push(demotion.form);
                }
                (demotion, None)
            }
            Err(error) => (
                None,
                Some(format!(
                    "the enforcement failure of {form} was not recorded: {error}"
                )),
            ),
        }
    }
}
