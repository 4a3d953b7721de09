//! The proxy's counters, and the state file that tells `slmcode status` where a running proxy
//! is: `serve.json` in the config directory (address, pid, start time), written atomically when
//! the proxy starts listening and removed when it stops. The counters themselves are asked for
//! on `GET /slmcode/status`, so they are always current; a file whose proxy does not answer is
//! stale (a proxy that was killed).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};

use crate::files::{self, FileError};

/// The state file's name, in the config directory.
pub const STATE_FILE: &str = "serve.json";

/// What the counters say (`GET /slmcode/status`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Every request answered, refused ones included (asking for the counters is not one).
    pub requests: u64,
    /// Relayed unchanged.
    pub passthrough: u64,
    /// `response_format` requests through the call path.
    pub structured: u64,
    /// `tools` requests through the call path.
    pub tools: u64,
    /// Call-path requests answered with a validated value or tool calls.
    pub succeeded: u64,
    /// Call-path requests that failed (every attempt spent, the deadline, the upstream).
    pub failed: u64,
    /// Relayed requests the upstream answered with an error, could not be reached for, or
    /// broke off midway.
    pub upstream_errors: u64,
    /// Refused before anything was sent upstream: a wrong key, an unknown route, a body too
    /// large or not JSON, and `busy`.
    pub refused: u64,
    /// Of those, refused because every slot was taken (503).
    pub busy: u64,
    /// Requests being handled now.
    pub in_flight: u64,
}

/// The live counters.
#[derive(Debug, Default)]
pub(super) struct Live {
    requests: AtomicU64,
    passthrough: AtomicU64,
    structured: AtomicU64,
    tools: AtomicU64,
    succeeded: AtomicU64,
    failed: AtomicU64,
    upstream_errors: AtomicU64,
    refused: AtomicU64,
    busy: AtomicU64,
    in_flight: AtomicU64,
}

fn bump(counter: &AtomicU64) {
    counter.fetch_add(1, Ordering::Relaxed);
}

impl Live {
    /// Takes a slot when fewer than `limit` are taken; give it back with [`Live::leave`].
    pub fn enter(&self, limit: u32) -> bool {
        let taken = self.in_flight.fetch_add(1, Ordering::SeqCst);
        if taken >= u64::from(limit) {
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            return false;
        }
        bump(&self.requests);
        true
    }

    pub fn in_flight(&self) -> u64 {
        self.in_flight.load(Ordering::SeqCst)
    }

    pub fn leave(&self) {
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
    }

    /// A request refused before it could take a slot (unreadable, too large).
    pub fn count_request(&self) {
        bump(&self.requests);
    }

    pub fn count_passthrough(&self) {
        bump(&self.passthrough);
    }

    pub fn count_structured(&self, tools: bool, succeeded: bool) {
        bump(if tools { &self.tools } else { &self.structured });
        bump(if succeeded {
            &self.succeeded
        } else {
            &self.failed
        });
    }

    pub fn count_upstream_error(&self) {
        bump(&self.upstream_errors);
    }

    /// A refusal; `busy` ones were never given a slot, so they count as a request here.
    pub fn count_refused(&self, busy: bool) {
        bump(&self.refused);
        if busy {
            bump(&self.busy);
            bump(&self.requests);
        }
    }

    pub fn snapshot(&self) -> Counters {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        Counters {
            requests: load(&self.requests),
            passthrough: load(&self.passthrough),
            structured: load(&self.structured),
            tools: load(&self.tools),
            succeeded: load(&self.succeeded),
            failed: load(&self.failed),
            upstream_errors: load(&self.upstream_errors),
            refused: load(&self.refused),
            busy: load(&self.busy),
            in_flight: self.in_flight.load(Ordering::SeqCst),
        }
    }
}

/// What `serve.json` holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServeState {
    /// Where the proxy listens (`127.0.0.1:8090`).
    pub address: String,
    /// Its process id.
    pub pid: u32,
    /// When it started, in Unix seconds.
    pub started_at: u64,
    /// The endpoint it forwards to, without a password.
    pub endpoint: String,
}

/// Writes the state file in `dir` atomically (making `dir` when needed).
pub fn write_state(dir: &Path, state: &ServeState) -> Result<(), FileError> {
    files::write_json_atomic(&dir.join(STATE_FILE), state)
}

/// The state file in `dir`, when there is one and it reads as one.
pub fn read_state(dir: &Path) -> Option<ServeState> {
    let bytes = files::read_regular(&dir.join(STATE_FILE)).ok()??;
    serde_json::from_slice(&bytes).ok()
}

/// Removes the state file in `dir` when it is this process's (another proxy may have started
/// since and written its own).
pub fn remove_state(dir: &Path, pid: u32) {
    if read_state(dir).is_some_and(|state| state.pid == pid) {
        let _ = std::fs::remove_file(dir.join(STATE_FILE));
    }
}

/// Whether a proxy named by the state file answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProxyState {
    /// It answered with its counters.
    Running,
    /// Nothing answers at the address: a proxy that was killed left its file.
    Stale,
    /// Nothing was asked.
    NotChecked,
}

/// A proxy `slmcode status` found through the state file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProxyStatus {
    /// Whether it answered.
    pub state: ProxyState,
    /// Where it listens.
    pub address: String,
    /// Its process id.
    pub pid: u32,
    /// When it started, in Unix seconds.
    pub started_at: u64,
    /// The endpoint it forwards to.
    pub endpoint: String,
    /// Its counters; null unless it is running.
    pub counters: Option<Counters>,
}

/// The proxy the state file in `dir` names, asked for its counters on `GET /slmcode/status`
/// within `timeout` (`None`: not asked); `None` when there is no state file.
pub fn proxy_status(dir: &Path, timeout: Option<std::time::Duration>) -> Option<ProxyStatus> {
    let state = read_state(dir)?;
    let counters = timeout.and_then(|timeout| ask_counters(&state.address, timeout));
    Some(ProxyStatus {
        state: match (timeout, &counters) {
            (None, _) => ProxyState::NotChecked,
            (Some(_), Some(_)) => ProxyState::Running,
            (Some(_), None) => ProxyState::Stale,
        },
        address: state.address,
        pid: state.pid,
        started_at: state.started_at,
        endpoint: state.endpoint,
        counters,
    })
}

fn ask_counters(address: &str, timeout: std::time::Duration) -> Option<Counters> {
    let agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .max_redirects(0)
        .build()
        .new_agent();
    let mut response = agent
        .get(format!("http://{address}{}", super::STATUS_PATH))
        .call()
        .ok()?;
    let text = response
        .body_mut()
        .with_config()
        .limit(64 * 1024)
        .read_to_string()
        .ok()?;
    serde_json::from_str(&text).ok()
}
