//! The process memo: [`Negotiator`] negotiates once per (provider, endpoint, model) for the
//! life of the value, and concurrent callers for the same key collapse onto one probe (a
//! `OnceLock` per key). A failed probe's result is the exception: it is kept only for a backoff
//! ([`FAILED_PROBE_BACKOFF`], doubling after every failure up to [`FAILED_PROBE_BACKOFF_CAP`]);
//! the next caller after it probes again. So is a probe that got no answer for forms stronger
//! than the one it found (a busy server): kept for [`INCOMPLETE_PROBE_LIFETIME`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::config::StructuredDecoding;

use super::super::cache::{CacheKey, FAILED_PROBE_LIFETIME, INCOMPLETE_PROBE_LIFETIME};
use super::super::target::Target;
use super::{NegotiateOptions, Negotiation, forced_off, resolve};

/// How long a process keeps a failed probe's result before the next caller probes again; it
/// doubles after every failure in a row, up to [`FAILED_PROBE_BACKOFF_CAP`].
pub const FAILED_PROBE_BACKOFF: Duration = Duration::from_secs(5);

/// The longest in-process backoff after failed probes: the cross-process lifetime.
pub const FAILED_PROBE_BACKOFF_CAP: Duration = FAILED_PROBE_LIFETIME;

type Cell = Arc<OnceLock<Negotiation>>;

/// One key's memo: the negotiation, and after a failed probe when to probe again.
#[derive(Debug, Default)]
struct KeyMemo {
    cell: Cell,
    /// Failed probes in a row.
    failures: u32,
    /// When the failed result stops being used (`None`: it is kept, or nothing failed).
    retry_at: Option<Instant>,
    /// Whether the cell replaced a failed result: whoever resolves it probes, whatever failure
    /// the cache holds.
    reprobe: bool,
}

/// Negotiates capabilities, memoised per (provider, endpoint, model) for the life of the value,
/// except a failed probe's result, which is kept only for a backoff (see the module docs).
/// [`Negotiator::global`] is the process-wide one the structured call path uses.
#[derive(Debug)]
pub struct Negotiator {
    memo: Mutex<HashMap<CacheKey, KeyMemo>>,
    backoff: Duration,
    incomplete_lifetime: Duration,
}

impl Default for Negotiator {
    fn default() -> Negotiator {
        Negotiator {
            memo: Mutex::default(),
            backoff: FAILED_PROBE_BACKOFF,
            incomplete_lifetime: INCOMPLETE_PROBE_LIFETIME,
        }
    }
}

impl Negotiator {
    /// A negotiator with an empty memo.
    pub fn new() -> Negotiator {
        Negotiator::default()
    }

    /// Keeps a failed probe's result for `backoff` (doubling per failure) instead of
    /// `FAILED_PROBE_BACKOFF`.
    pub fn with_failure_backoff(mut self, backoff: Duration) -> Negotiator {
        self.backoff = backoff;
        self
    }

    /// Keeps an incomplete probe's result for `lifetime` instead of
    /// `INCOMPLETE_PROBE_LIFETIME`.
    pub fn with_incomplete_lifetime(mut self, lifetime: Duration) -> Negotiator {
        self.incomplete_lifetime = lifetime;
        self
    }

    /// The process-wide negotiator.
    pub fn global() -> &'static Negotiator {
        static GLOBAL: OnceLock<Negotiator> = OnceLock::new();
        GLOBAL.get_or_init(Negotiator::new)
    }

    fn memo(&self) -> std::sync::MutexGuard<'_, HashMap<CacheKey, KeyMemo>> {
        self.memo
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The key's cell, and whether it replaced a failed result whose backoff ran out (then a
    /// recent failure in the cache must not be reused either: this process probes again; every
    /// caller that shares the cell is told so, whichever of them resolves it).
    fn cell(&self, key: &CacheKey, fresh: bool) -> (Cell, bool) {
        let mut memo = self.memo();
        let entry = memo.entry(key.clone()).or_default();
        let expired = entry
            .retry_at
            .is_some_and(|retry_at| Instant::now() >= retry_at);
        if fresh || expired {
            entry.cell = Cell::default();
            entry.retry_at = None;
            entry.reprobe = expired;
        }
        (entry.cell.clone(), entry.reprobe)
    }

    /// Notes how `cell` was resolved: a failed probe starts (or lengthens) the backoff; a
    /// success clears the count of failures, and an incomplete one is kept for its lifetime.
    fn settle(&self, key: &CacheKey, cell: &Cell, negotiation: &Negotiation) {
        let mut memo = self.memo();
        let Some(entry) = memo
            .get_mut(key)
            .filter(|entry| Arc::ptr_eq(&entry.cell, cell))
        else {
            return;
        };
        if !negotiation.probe_failed() {
            entry.failures = 0;
            if negotiation.incomplete_probe.is_some() && entry.retry_at.is_none() {
                entry.retry_at = Some(Instant::now() + self.incomplete_lifetime);
            }
            return;
        }
        if entry.retry_at.is_none() {
            let factor = 1_u32.checked_shl(entry.failures).unwrap_or(u32::MAX);
            let backoff = self
                .backoff
                .saturating_mul(factor)
                .min(FAILED_PROBE_BACKOFF_CAP);
            entry.failures = entry.failures.saturating_add(1);
            entry.retry_at = Some(Instant::now() + backoff);
        }
    }

    /// The capabilities for `target` (see the module docs). Never fails.
    pub fn negotiate(&self, target: &Target, options: &NegotiateOptions) -> Negotiation {
        if options.structured_decoding == StructuredDecoding::Off {
            return forced_off(target, options);
        }
        if !options.allow_probe {
            return resolve(target, options, true);
        }
        let key = target.key();
        if options.refresh {
            let negotiation = resolve(target, options, false);
            let (cell, _) = self.cell(&key, true);
            let _ = cell.set(negotiation.clone());
            self.settle(&key, &cell, &negotiation);
            return negotiation;
        }
        let (cell, reprobe) = self.cell(&key, false);
        let negotiation = cell
            .get_or_init(|| resolve(target, options, !reprobe))
            .clone();
        self.settle(&key, &cell, &negotiation);
        negotiation
    }
}
