//! The retry policy: 3 attempts, 500 ms base, 20 s ceiling, exponential backoff with full jitter;
//! a server's `Retry-After` always wins, clamped to the ceiling.
//!
//! Full jitter (a delay drawn uniformly from zero to the exponential cap) matters with several
//! requests against one local server that serialises inference: lockstep retries would turn a
//! recovery into a thundering herd. The randomness is a small seeded generator ([`Jitter`]) so
//! tests can fix it. Only transient and rate-limited failures are retried (see
//! [`ErrorClass::is_retried`](super::errors::ErrorClass::is_retried)), with two exceptions to
//! the count of attempts:
//! - a server that said it is loading (a 503 that says so, see [`CallError::is_loading`]) is
//!   worth waiting for: with a deadline it is tried again until the deadline, every
//!   [`LOADING_POLL`] at most;
//! - a refused connection means nobody listens: it is tried again every [`REFUSED_POLL`] only
//!   within [`REFUSED_GRACE`] of the endpoint's first refusal ([`refusing_since`]; a server
//!   that is just binding its port), then it is returned, so a dead server fails fast.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::errors::CallError;

/// How long a refused connection is tried again: long enough for a server that is just
/// binding its port, short enough that a dead one fails at once.
pub const REFUSED_GRACE: Duration = Duration::from_secs(2);

/// The wait between two tries of a refused connection.
pub const REFUSED_POLL: Duration = Duration::from_millis(250);

/// The most tries again of a refused connection: as many as fit in [`REFUSED_GRACE`].
pub const REFUSED_RETRIES: u32 = 8;

/// How close two refusals must come to belong to one streak (see [`refusing_since`]).
pub const REFUSAL_STREAK_GAP: Duration = Duration::from_secs(1);

/// When `endpoint` began refusing connections in this process, counting this refusal: the
/// first refusal of the current streak (refusals at most [`REFUSAL_STREAK_GAP`] apart). The
/// grace runs from there, so the probe and the call right after it share one grace and a dead
/// server fails within it, not within one grace per step.
pub fn refusing_since(endpoint: &str) -> Instant {
    static STREAKS: OnceLock<Mutex<HashMap<String, (Instant, Instant)>>> = OnceLock::new();
    let now = Instant::now();
    let mut streaks = STREAKS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let (first, last) = streaks.entry(endpoint.to_owned()).or_insert((now, now));
    if now.saturating_duration_since(*last) > REFUSAL_STREAK_GAP {
        *first = now;
    }
    *last = now;
    *first
}

/// The longest wait between two tries of a server that said it is loading.
pub const LOADING_POLL: Duration = Duration::from_secs(2);

/// A seeded source of jitter (SplitMix64): deterministic for a seed, cheap, and good enough to
/// spread retries; not for anything secret.
#[derive(Clone, Debug)]
pub struct Jitter {
    state: u64,
}

impl Jitter {
    /// A generator with a fixed seed, for tests.
    pub fn seeded(seed: u64) -> Jitter {
        Jitter { state: seed }
    }

    /// A generator seeded from the clock, the process id and a per-process counter, so
    /// concurrent callers (threads or processes) do not retry in lockstep.
    pub fn from_entropy() -> Jitter {
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|elapsed| elapsed.as_nanos() as u64)
            .unwrap_or(0);
        let count = COUNTER.fetch_add(1, Ordering::Relaxed);
        Jitter::seeded(
            nanos
                ^ u64::from(std::process::id()).rotate_left(32)
                ^ count.wrapping_mul(0x9E37_79B9_7F4A_7C15),
        )
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut mixed = self.state;
        mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        mixed ^ (mixed >> 31)
    }

    /// A duration drawn uniformly from `[0, cap]` (millisecond resolution).
    pub fn up_to(&mut self, cap: Duration) -> Duration {
        let millis = cap.as_millis() as u64;
        Duration::from_millis(self.next_u64() % (millis + 1))
    }
}

/// How failed calls are retried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub attempts: u32,
    /// The cap of the first backoff; each retry doubles it.
    pub base: Duration,
    /// No backoff and no `Retry-After` wait exceeds this.
    pub ceiling: Duration,
}

impl Default for RetryPolicy {
    /// 3 attempts, 500 ms base, 20 s ceiling: enough to ride out a server restart, short
    /// enough that a dead endpoint fails within a minute.
    fn default() -> RetryPolicy {
        RetryPolicy {
            attempts: 3,
            base: Duration::from_millis(500),
            ceiling: Duration::from_secs(20),
        }
    }
}

impl RetryPolicy {
    /// The exponential cap before the `retry`-th retry (1 for the first): `base * 2^(retry-1)`,
    /// never above the ceiling.
    pub fn cap(&self, retry: u32) -> Duration {
        let factor = 1_u32
            .checked_shl(retry.saturating_sub(1))
            .unwrap_or(u32::MAX);
        self.base.saturating_mul(factor).min(self.ceiling)
    }

    /// How long to wait before the `retry`-th retry: the server's hint when it gave one
    /// (clamped to the ceiling), otherwise a full-jitter draw from `[0, cap(retry)]`.
    pub fn delay(
        &self,
        retry: u32,
        retry_after: Option<Duration>,
        jitter: &mut Jitter,
    ) -> Duration {
        match retry_after {
            Some(hint) => hint.min(self.ceiling),
            None => jitter.up_to(self.cap(retry)),
        }
    }

    /// The wait before trying again after `error`, or `None` when it is not tried again:
    /// `retry` retries made so far (1 for the first), `since` the first attempt's start (see
    /// the module docs for the loading and refused rules).
    pub fn next_wait(
        &self,
        retry: u32,
        error: &CallError,
        since: Instant,
        deadline: Option<Instant>,
        jitter: &mut Jitter,
    ) -> Option<Duration> {
        if !error.class.is_retried() {
            return None;
        }
        if error.refused {
            // A steady poll for the grace, whatever the policy's attempts: a server that is
            // binding its port is up within it, and one that is not, is not coming. The grace
            // began with the endpoint's first refusal in this process, when that was earlier.
            let since = error
                .refusing_since
                .map_or(since, |streak| streak.min(since));
            let spent = retry > REFUSED_RETRIES || since.elapsed() + REFUSED_POLL > REFUSED_GRACE;
            let late = deadline.is_some_and(|deadline| Instant::now() + REFUSED_POLL >= deadline);
            return (!spent && !late).then_some(REFUSED_POLL);
        }
        let loading = error.is_loading() && deadline.is_some();
        if retry >= self.attempts && !loading {
            return None;
        }
        let wait = match error.retry_after {
            None if loading => jitter.up_to(self.cap(retry).min(LOADING_POLL)),
            hint => self.delay(retry, hint, jitter),
        };
        if deadline.is_some_and(|deadline| Instant::now() + wait >= deadline) {
            return None;
        }
        Some(wait)
    }

    /// Runs `call` until it succeeds, or [`RetryPolicy::next_wait`] says not to try again: a
    /// class that is not retried, no attempts left (a loading server aside), a refused
    /// connection past its grace, or a wait that would pass `deadline`. `sleep` is injectable
    /// for tests. The returned error carries the number of attempts made.
    pub fn run<T>(
        &self,
        deadline: Option<Instant>,
        jitter: &mut Jitter,
        mut sleep: impl FnMut(Duration),
        mut call: impl FnMut(u32) -> Result<T, CallError>,
    ) -> Result<T, CallError> {
        let since = Instant::now();
        let mut attempt = 1;
        loop {
            match call(attempt) {
                Ok(value) => return Ok(value),
                Err(mut error) => {
                    error.attempts = attempt;
                    let Some(wait) = self.next_wait(attempt, &error, since, deadline, jitter)
                    else {
                        return Err(error);
                    };
                    sleep(wait);
                    attempt += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::errors::{ErrorClass, TransportFailure};

    #[test]
    fn caps_double_up_to_the_ceiling() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.cap(1), Duration::from_millis(500));
        assert_eq!(policy.cap(2), Duration::from_millis(1000));
        assert_eq!(policy.cap(3), Duration::from_millis(2000));
        assert_eq!(policy.cap(7), Duration::from_secs(20));
        assert_eq!(policy.cap(200), Duration::from_secs(20));
    }

    #[test]
    fn full_jitter_stays_within_zero_and_the_cap_and_spreads() {
        let policy = RetryPolicy::default();
        let mut jitter = Jitter::seeded(42);
        for retry in 1..=8 {
            let cap = policy.cap(retry);
            let draws: Vec<Duration> = (0..2000)
                .map(|_| policy.delay(retry, None, &mut jitter))
                .collect();
            assert!(draws.iter().all(|delay| *delay <= cap), "retry {retry}");
            let below_half = draws.iter().filter(|delay| **delay < cap / 2).count();
            // Uniform: about half below the midpoint; far from all-or-nothing.
            assert!(
                (700..1300).contains(&below_half),
                "retry {retry}: {below_half}"
            );
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_delays() {
        let policy = RetryPolicy::default();
        let draw = |seed| {
            let mut jitter = Jitter::seeded(seed);
            (1..=3)
                .map(|retry| policy.delay(retry, None, &mut jitter))
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
        assert_ne!(draw(7), draw(8));
    }

    #[test]
    fn retry_after_wins_and_is_clamped() {
        let policy = RetryPolicy::default();
        let mut jitter = Jitter::seeded(1);
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(7)), &mut jitter),
            Duration::from_secs(7)
        );
        assert_eq!(
            policy.delay(1, Some(Duration::from_secs(3600)), &mut jitter),
            Duration::from_secs(20)
        );
    }

    fn failure(status: u16) -> CallError {
        CallError::from_failure(TransportFailure::Status {
            status,
            body: String::new(),
            retry_after: None,
        })
    }

    #[test]
    fn transient_failures_are_retried_three_times_in_all() {
        let policy = RetryPolicy::default();
        let mut slept = Vec::new();
        let mut calls = 0;
        let result: Result<(), CallError> = policy.run(
            None,
            &mut Jitter::seeded(3),
            |wait| slept.push(wait),
            |_| {
                calls += 1;
                Err(failure(503))
            },
        );
        let error = result.unwrap_err();
        assert_eq!(calls, 3);
        assert_eq!(error.attempts, 3);
        assert_eq!(error.class, ErrorClass::Transient);
        assert_eq!(slept.len(), 2);
        assert!(slept[0] <= Duration::from_millis(500));
        assert!(slept[1] <= Duration::from_millis(1000));
    }

    #[test]
    fn permanent_failures_are_not_retried_and_recovery_returns_the_value() {
        let policy = RetryPolicy::default();
        let mut calls = 0;
        let result: Result<(), CallError> = policy.run(
            None,
            &mut Jitter::seeded(3),
            |_| {},
            |_| {
                calls += 1;
                Err(failure(400))
            },
        );
        assert_eq!(result.unwrap_err().attempts, 1);
        assert_eq!(calls, 1);

        let value = policy.run(
            None,
            &mut Jitter::seeded(3),
            |_| {},
            |attempt| {
                if attempt < 3 {
                    Err(failure(502))
                } else {
                    Ok(attempt)
                }
            },
        );
        assert_eq!(value, Ok(3));
    }

    fn loading() -> CallError {
        CallError::from_failure(TransportFailure::Status {
            status: 503,
            body: r#"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#
                .to_owned(),
            retry_after: None,
        })
    }

    #[test]
    fn a_loading_server_is_waited_for_past_the_attempts_until_it_answers() {
        let policy = RetryPolicy::default();
        let deadline = Instant::now() + Duration::from_secs(600);
        let mut slept = Vec::new();
        let value = policy.run(
            Some(deadline),
            &mut Jitter::seeded(3),
            |wait| slept.push(wait),
            |attempt| {
                if attempt <= 8 {
                    Err(loading())
                } else {
                    Ok(attempt)
                }
            },
        );
        assert_eq!(value, Ok(9));
        assert_eq!(slept.len(), 8);
        assert!(slept.iter().all(|wait| *wait <= LOADING_POLL), "{slept:?}");

        // Without a deadline there is nothing to wait within: the policy's 3 attempts.
        let mut calls = 0;
        let result: Result<(), CallError> = policy.run(
            None,
            &mut Jitter::seeded(3),
            |_| {},
            |_| {
                calls += 1;
                Err(loading())
            },
        );
        assert_eq!((calls, result.unwrap_err().attempts), (3, 3));
        // Other 5xx keep their 3 attempts, deadline or not: a gateway, an overloaded server.
        for status in [502, 503] {
            let mut calls = 0;
            let _ = policy.run(
                Some(deadline),
                &mut Jitter::seeded(3),
                |_| {},
                |_| -> Result<(), CallError> {
                    calls += 1;
                    Err(failure(status))
                },
            );
            assert_eq!(calls, 3, "{status}");
        }
    }

    #[test]
    fn a_refused_connection_is_tried_again_only_within_the_grace() {
        let policy = RetryPolicy::default();
        let refused =
            CallError::from_failure(TransportFailure::Refused("connection refused".to_owned()));
        let mut jitter = Jitter::seeded(5);
        let deadline = Some(Instant::now() + Duration::from_secs(600));
        // Just started: tried again, past the policy's attempts, up to the grace's worth.
        for retry in 1..=REFUSED_RETRIES {
            assert_eq!(
                policy.next_wait(retry, &refused, Instant::now(), deadline, &mut jitter),
                Some(REFUSED_POLL)
            );
        }
        assert_eq!(
            policy.next_wait(
                REFUSED_RETRIES + 1,
                &refused,
                Instant::now(),
                deadline,
                &mut jitter
            ),
            None
        );
        // The grace is spent (the first attempt began long enough ago): returned at once.
        let long_ago = Instant::now() - REFUSED_GRACE;
        assert_eq!(
            policy.next_wait(1, &refused, long_ago, deadline, &mut jitter),
            None
        );
        // An endpoint that has refused since long ago: not tried again, even by a new caller.
        let mut streak = refused.clone();
        streak.refusing_since = Some(long_ago);
        assert_eq!(
            policy.next_wait(1, &streak, Instant::now(), deadline, &mut jitter),
            None
        );
        // A 503 from the same moment is still worth waiting for.
        assert!(
            policy
                .next_wait(5, &loading(), long_ago, deadline, &mut jitter)
                .is_some()
        );
    }

    #[test]
    fn refusals_close_together_are_one_streak() {
        let endpoint = "http://127.0.0.1:9/v1 (streak test)";
        let first = refusing_since(endpoint);
        assert_eq!(refusing_since(endpoint), first);
        assert_ne!(refusing_since("another endpoint"), first);
    }

    #[test]
    fn a_wait_past_the_deadline_is_not_taken() {
        let policy = RetryPolicy::default();
        let deadline = Instant::now() + Duration::from_millis(100);
        let mut error = failure(429);
        error.retry_after = Some(Duration::from_secs(5));
        let mut calls = 0;
        let result: Result<(), CallError> = policy.run(
            Some(deadline),
            &mut Jitter::seeded(3),
            |_| panic!("slept"),
            |_| {
                calls += 1;
                Err(error.clone())
            },
        );
        assert_eq!(result.unwrap_err().class, ErrorClass::RateLimited);
        assert_eq!(calls, 1);
    }
}
