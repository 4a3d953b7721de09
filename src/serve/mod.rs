//! `slmcode serve`: an OpenAI-compatible proxy in front of the configured endpoint, so a
//! harness that speaks only the OpenAI chat API gets the structured call path with no code
//! change.
//!
//! [`Proxy::bind`] listens (on 127.0.0.1 unless told otherwise) and [`Proxy::run`] serves until
//! a stop flag is set: synchronous, one thread per connection (`httparse` for request
//! heads, every client-controlled size and wait bounded), at most `max_connections` requests
//! handled at once (one more is answered 503 at once) and four times as many connections open,
//! `ureq` upstream. Routes:
//! - `POST /v1/chat/completions` (also without `/v1`): a request with `response_format` or
//!   `tools` runs [`structured_call`](crate::call::structured_call) ([`translate`] maps
//!   both ways), and a client that asked for a stream gets the event stream's head at once and a
//!   comment line every two seconds until the call has its answer; any other is relayed
//!   unchanged, an event stream chunk by chunk as it arrives;
//! - `GET /v1/models`: relayed;
//! - `GET /slmcode/status`: the counters ([`Counters`]), for `slmcode status`; answered even
//!   when every slot is taken, and not counted as a request.
//!
//! The upstream key is the client's ([`crate::backends::Client`]) and is never sent to a
//! client (it is masked out of everything relayed back, in case the upstream echoes it) nor
//! logged; the client's own `Authorization` is checked against the proxy's key when
//! one is set (401 otherwise) and never forwarded. Every request ends in one [`LogRecord`] given
//! to the caller's logger: this module never prints.

mod handle;
mod http;
mod state;
pub mod translate;

#[cfg(test)]
mod tests;

use std::fmt;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::backends::transport::Client;
use crate::call::CallContext;
use crate::config::{Secret, Settings};

pub use state::{
    Counters, ProxyState, ProxyStatus, STATE_FILE, ServeState, proxy_status, read_state,
    remove_state, write_state,
};

/// The largest request body the proxy reads; a larger one is answered 413 without reading it.
pub const MAX_BODY_BYTES: u64 = 16 * 1024 * 1024;

/// How long a stop waits for requests in flight before it returns anyway.
pub const STOP_GRACE: Duration = Duration::from_secs(10);

/// How the proxy listens and whom it serves.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ProxyOptions {
    /// Where to listen (port 0: a free one; [`Proxy::local_addr`] says which).
    pub listen: SocketAddr,
    /// The key clients must send as `Authorization: Bearer KEY`; `None`: none is asked for.
    pub key: Option<Secret>,
    /// How many requests are handled at once.
    pub max_connections: u32,
    /// The largest request body read.
    pub max_body_bytes: u64,
    /// Whether log records carry the content: the last message of a chat request and, on the
    /// call path, the answer (each cut to [`LOGGED_CONTENT_CHARS`]). Off unless asked for.
    pub log_content: bool,
}

impl ProxyOptions {
    /// The options `slmcode serve` starts from: the settings' `serve_listen` and
    /// `serve_max_connections`, bodies up to [`MAX_BODY_BYTES`], no key asked of clients (the
    /// settings name the variable that holds one, `serve_key_env`, but never its value), no
    /// content in the log.
    pub fn from_settings(settings: &Settings) -> ProxyOptions {
        ProxyOptions {
            listen: settings.serve_listen,
            key: None,
            max_connections: settings.serve_max_connections,
            max_body_bytes: MAX_BODY_BYTES,
            log_content: false,
        }
    }
}

/// The route that answers the counters, for `slmcode status`.
const STATUS_PATH: &str = "/slmcode/status";

/// How much of a message or an answer a log record keeps, in characters.
pub const LOGGED_CONTENT_CHARS: usize = 500;

/// Which path a request took.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestKind {
    /// Relayed unchanged.
    Passthrough,
    /// A `response_format` request through the call path.
    Structured,
    /// A `tools` request through the call path.
    Tools,
    /// The counters route.
    Status,
    /// Refused before anything was sent upstream (401, 404, 405, 413, 400, 503).
    Refused,
}

impl RequestKind {
    /// The kind's name, as in the log line.
    pub const fn as_str(self) -> &'static str {
        match self {
            RequestKind::Passthrough => "passthrough",
            RequestKind::Structured => "structured",
            RequestKind::Tools => "tools",
            RequestKind::Status => "status",
            RequestKind::Refused => "refused",
        }
    }
}

/// What one request did: the log line's content. Never the key, never the content.
#[derive(Clone, Debug, Serialize)]
pub struct LogRecord {
    /// The HTTP method.
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The status sent.
    pub status: u16,
    /// Which path it took.
    pub kind: RequestKind,
    /// Whether the answer went back as an event stream.
    pub stream: bool,
    /// The mechanism of the last answer (call path only).
    pub mechanism: Option<String>,
    /// The repair rung that gave the value (call path only, on success).
    pub rung: Option<String>,
    /// Re-asks sent (call path only).
    pub reasks: Option<usize>,
    /// The failure class, or why the request was refused.
    pub class: Option<String>,
    /// The last message of the request, when content is logged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    /// The call path's answer (the validated JSON, the tool calls, or the failed text), when
    /// content is logged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    /// From the request's arrival to the end of the answer, in milliseconds.
    pub duration_ms: u64,
}

impl fmt::Display for LogRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {} {}",
            self.method,
            self.path,
            self.status,
            self.kind.as_str()
        )?;
        if self.stream {
            f.write_str(" stream")?;
        }
        if let Some(mechanism) = &self.mechanism {
            write!(f, " mechanism={mechanism}")?;
        }
        if let Some(rung) = &self.rung {
            write!(f, " rung={rung}")?;
        }
        if let Some(reasks) = self.reasks {
            write!(f, " reasks={reasks}")?;
        }
        if let Some(class) = &self.class {
            write!(f, " class={class}")?;
        }
        write!(f, " {}ms", self.duration_ms)?;
        if let Some(request) = &self.request {
            write!(f, " request={request:?}")?;
        }
        if let Some(answer) = &self.answer {
            write!(f, " answer={answer:?}")?;
        }
        Ok(())
    }
}

/// Where log records go.
pub type Logger = Arc<dyn Fn(&LogRecord) + Send + Sync>;

/// The proxy could not listen.
#[derive(Debug, thiserror::Error)]
#[error("cannot listen on {address}: {reason}")]
pub struct BindError {
    /// The address asked for.
    pub address: SocketAddr,
    /// Why not.
    pub reason: String,
}

/// A listening proxy.
pub struct Proxy {
    listener: TcpListener,
    address: SocketAddr,
    shared: Arc<Shared>,
}

impl fmt::Debug for Proxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Proxy")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

/// What every connection's thread shares.
struct Shared {
    context: CallContext,
    upstream: Client,
    options: ProxyOptions,
    counters: state::Live,
    connections: AtomicU64,
    log: Logger,
    next_id: AtomicU64,
}

impl Proxy {
    /// Listens on `options.listen`; requests go to `context`'s target under its settings.
    pub fn bind(
        context: CallContext,
        options: ProxyOptions,
        log: Logger,
    ) -> Result<Proxy, BindError> {
        let bind_error = |error: std::io::Error| BindError {
            address: options.listen,
            reason: error.to_string(),
        };
        let listener = TcpListener::bind(options.listen).map_err(bind_error)?;
        let address = listener.local_addr().map_err(bind_error)?;
        let upstream = context.target.client();
        Ok(Proxy {
            listener,
            address,
            shared: Arc::new(Shared {
                context,
                upstream,
                options,
                counters: state::Live::default(),
                connections: AtomicU64::new(0),
                log,
                next_id: AtomicU64::new(1),
            }),
        })
    }

    /// The address it listens on.
    pub fn local_addr(&self) -> SocketAddr {
        self.address
    }

    /// The counters so far.
    pub fn counters(&self) -> Counters {
        self.shared.counters.snapshot()
    }

    /// Serves until `stop` is set, then waits up to [`STOP_GRACE`] for requests in flight.
    /// Connections still open then are left to end with the process.
    pub fn run(&self, stop: &AtomicBool) {
        let most_connections = u64::from(self.shared.options.max_connections) * 4;
        std::thread::scope(|scope| {
            // Accepting blocks; a stop is noticed here and wakes it with a connection of its own.
            scope.spawn(|| {
                while !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(50));
                }
                let _ = std::net::TcpStream::connect_timeout(&self.address, Duration::from_secs(1));
            });
            self.accept(stop, most_connections);
        });
        let started = Instant::now();
        while self.shared.counters.in_flight() > 0 && started.elapsed() < STOP_GRACE {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn accept(&self, stop: &AtomicBool, most_connections: u64) {
        while !stop.load(Ordering::SeqCst) {
            let stream = match self.listener.accept() {
                Ok((stream, _)) => stream,
                // One failed accept (a client gone already, no descriptor left for now):
                // the next one may be fine.
                Err(_) => {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                }
            };
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let shared = self.shared.clone();
            if shared.connections.fetch_add(1, Ordering::SeqCst) >= most_connections {
                shared.connections.fetch_sub(1, Ordering::SeqCst);
                handle::too_many_connections(&shared, stream);
                continue;
            }
            let guard = ConnectionGuard(shared);
            // A thread that cannot be made drops the closure, the guard and the stream.
            let _ = std::thread::Builder::new()
                .name("slmcode-serve".to_owned())
                .spawn(move || {
                    let guard = guard;
                    handle::connection(&guard.0, stream);
                });
        }
    }
}

/// An open connection, counted until its thread ends.
struct ConnectionGuard(Arc<Shared>);

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::SeqCst);
    }
}
