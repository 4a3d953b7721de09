//! `slmcode serve`: an OpenAI-compatible proxy in front of the configured endpoint, so a
//! harness that speaks only the OpenAI chat API gets the structured call path with no code
//! change.
//!
//! [`Proxy::bind`] listens (on 127.0.0.1 unless told otherwise) and [`Proxy::run`] serves until
//! a stop flag is set: a synchronous HTTP server (`tiny_http`), one thread per request with a
//! limit (one more is answered 503 at once), `ureq` upstream. Routes:
//! - `POST /v1/chat/completions` (also without `/v1`): a request with `response_format` or
//!   `tools` runs [`structured_call`] ([`translate`] maps both ways); any other is relayed
//!   unchanged, an event stream chunk by chunk as it arrives;
//! - `GET /v1/models`: relayed;
//! - `GET /slmcode/status`: the counters ([`Counters`]), for `slmcode status`.
//!
//! The upstream key is the client's ([`crate::backends::Client`]) and is never sent to a
//! client nor logged; the client's own `Authorization` is checked against the proxy's key when
//! one is set (401 otherwise) and never forwarded. Every request ends in one [`LogRecord`] given
//! to the caller's logger: this module never prints.

mod http;
mod state;
pub mod translate;

#[cfg(test)]
mod tests;

use std::fmt;
use std::io::Read;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::{Value, json};

use crate::backends::call::{CallContext, structured_call};
use crate::backends::transport::Client;
use crate::config::{Secret, Settings};

pub use state::{
    Counters, ProxyStatus, STATE_FILE, ServeState, proxy_status, read_state, remove_state,
    write_state,
};
use translate::{ClientAsk, Route, Stamp, Structured};

/// The largest request body the proxy reads; a larger one is answered 413 without reading it.
pub const MAX_BODY_BYTES: u64 = 16 * 1024 * 1024;

/// How long a stop waits for requests in flight before it returns anyway.
pub const STOP_GRACE: Duration = Duration::from_secs(10);

/// How the proxy listens and whom it serves.
#[derive(Clone, Debug)]
pub struct ProxyOptions {
    /// Where to listen (port 0: a free one; [`Proxy::local_addr`] says which).
    pub listen: SocketAddr,
    /// The key clients must send as `Authorization: Bearer KEY`; `None`: none is asked for.
    pub key: Option<Secret>,
    /// How many requests are handled at once.
    pub max_connections: u32,
    /// The largest request body read.
    pub max_body_bytes: u64,
}

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
        write!(f, " {}ms", self.duration_ms)
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
    server: Arc<tiny_http::Server>,
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

/// What every request's thread shares.
struct Shared {
    settings: Settings,
    context: CallContext,
    upstream: Client,
    options: ProxyOptions,
    counters: state::Live,
    log: Logger,
    next_id: AtomicU64,
}

impl Proxy {
    /// Listens on `options.listen`; requests go to `context`'s target under `settings`.
    pub fn bind(
        settings: Settings,
        context: CallContext,
        options: ProxyOptions,
        log: Logger,
    ) -> Result<Proxy, BindError> {
        let server = tiny_http::Server::http(options.listen).map_err(|error| BindError {
            address: options.listen,
            reason: error.to_string(),
        })?;
        let address = server.server_addr().to_ip().unwrap_or(options.listen);
        let upstream = context.target.client();
        Ok(Proxy {
            server: Arc::new(server),
            address,
            shared: Arc::new(Shared {
                settings,
                context,
                upstream,
                options,
                counters: state::Live::default(),
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
    pub fn run(&self, stop: &AtomicBool) {
        while !stop.load(Ordering::SeqCst) {
            let request = match self.server.recv_timeout(Duration::from_millis(100)) {
                Ok(Some(request)) => request,
                Ok(None) => continue,
                // The listener failed for one connection; the next one may be fine.
                Err(_) => continue,
            };
            let shared = self.shared.clone();
            if !shared.counters.enter(shared.options.max_connections) {
                busy(&shared, request);
                continue;
            }
            let slot = Slot(shared);
            // A thread that cannot be made drops the closure: the slot is given back and
            // tiny_http answers the dropped request 500.
            let _ = std::thread::Builder::new()
                .name("slmcode-serve".to_owned())
                .spawn(move || {
                    let slot = slot;
                    handle(&slot.0, request);
                });
        }
        let started = Instant::now();
        while self.shared.counters.in_flight() > 0 && started.elapsed() < STOP_GRACE {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// A request's slot, given back when its thread ends (or was never made).
struct Slot(Arc<Shared>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.counters.leave();
    }
}

/// Answers 503 at once: every slot is taken.
fn busy(shared: &Shared, request: tiny_http::Request) {
    let started = Instant::now();
    let method = request.method().to_string();
    let path = path_of(request.url());
    let body = translate::error_body(
        &format!(
            "slmcode serve is handling {} requests, its limit (serve_max_connections); try again",
            shared.options.max_connections
        ),
        "server_busy",
        "busy",
        None,
    );
    http::respond_json(request, 503, &body, &[("retry-after", "1".to_owned())]);
    shared.counters.count_refused(true);
    finish(
        shared,
        LogRecord {
            method,
            path,
            status: 503,
            kind: RequestKind::Refused,
            stream: false,
            mechanism: None,
            rung: None,
            reasks: None,
            class: Some("busy".to_owned()),
            duration_ms: 0,
        },
        started,
    );
}

fn path_of(url: &str) -> String {
    url.split('?').next().unwrap_or("").to_owned()
}

fn finish(shared: &Shared, mut record: LogRecord, started: Instant) {
    record.duration_ms = started.elapsed().as_millis() as u64;
    (shared.log)(&record);
}

fn handle(shared: &Shared, request: tiny_http::Request) {
    let started = Instant::now();
    let method = request.method().to_string();
    let path = path_of(request.url());
    let mut record = LogRecord {
        method: method.clone(),
        path: path.clone(),
        status: 200,
        kind: RequestKind::Refused,
        stream: false,
        mechanism: None,
        rung: None,
        reasks: None,
        class: None,
        duration_ms: 0,
    };
    let route = path.strip_prefix("/v1").unwrap_or(&path).to_owned();
    if path == "/slmcode/status" {
        record.kind = RequestKind::Status;
        let counters = serde_json::to_value(shared.counters.snapshot()).unwrap_or(Value::Null);
        http::respond_json(request, 200, &counters, &[]);
        return finish(shared, record, started);
    }
    if !authorized(shared, &request) {
        record.status = 401;
        record.class = Some("unauthorized".to_owned());
        let body = translate::error_body(
            "the proxy's key is missing or wrong: send it as `Authorization: Bearer KEY`",
            "invalid_request_error",
            "invalid_api_key",
            None,
        );
        http::respond_json(request, 401, &body, &[]);
        shared.counters.count_refused(false);
        return finish(shared, record, started);
    }
    match (method.as_str(), route.as_str()) {
        ("POST", "/chat/completions") => chat(shared, request, &mut record),
        ("GET", "/models") => {
            record.kind = RequestKind::Passthrough;
            shared.counters.count_passthrough();
            record.status = relay(shared, request, None, &mut record);
        }
        (_, "/chat/completions" | "/models") => {
            record.status = 405;
            record.class = Some("method_not_allowed".to_owned());
            let body = translate::error_body(
                &format!("{method} is not allowed on {path}"),
                "invalid_request_error",
                "method_not_allowed",
                None,
            );
            http::respond_json(request, 405, &body, &[]);
            shared.counters.count_refused(false);
        }
        _ => {
            record.status = 404;
            record.class = Some("not_found".to_owned());
            let body = translate::error_body(
                &format!(
                    "slmcode serve has no route {path}: it serves /v1/chat/completions and /v1/models"
                ),
                "invalid_request_error",
                "not_found",
                None,
            );
            http::respond_json(request, 404, &body, &[]);
            shared.counters.count_refused(false);
        }
    }
    finish(shared, record, started);
}

/// Whether the request carries the proxy's key (always, when none is set). The comparison
/// takes the same time wherever the first difference is.
fn authorized(shared: &Shared, request: &tiny_http::Request) -> bool {
    let Some(key) = &shared.options.key else {
        return true;
    };
    let given = request
        .headers()
        .iter()
        .find(|header| header.field.equiv("Authorization"))
        .map(|header| header.value.as_str())
        .and_then(|value| value.strip_prefix("Bearer "))
        .unwrap_or("");
    let expected = key.expose().as_bytes();
    let given = given.trim().as_bytes();
    let mut difference = u8::from(expected.len() != given.len());
    for (index, byte) in expected.iter().enumerate() {
        difference |= byte ^ given.get(index).copied().unwrap_or(0);
    }
    difference == 0
}

fn chat(shared: &Shared, mut request: tiny_http::Request, record: &mut LogRecord) {
    let body = match http::read_body(&mut request, shared.options.max_body_bytes) {
        Ok(body) => body,
        Err(http::BodyError::TooLarge) => {
            record.status = 413;
            record.class = Some("too_large".to_owned());
            let body = translate::error_body(
                &format!(
                    "the request body is larger than {} bytes",
                    shared.options.max_body_bytes
                ),
                "invalid_request_error",
                "request_too_large",
                None,
            );
            http::respond_json_closing(request, 413, &body);
            shared.counters.count_refused(false);
            return;
        }
        Err(http::BodyError::Io) => {
            // The client went away while sending: nobody to answer.
            record.status = 400;
            record.class = Some("client_closed".to_owned());
            shared.counters.count_refused(false);
            return;
        }
    };
    let parsed: Value = match serde_json::from_slice(&body) {
        Ok(value) => value,
        Err(error) => {
            return bad_request(
                shared,
                request,
                record,
                &format!("the body is not JSON: {error}"),
                None,
            );
        }
    };
    let structured = match translate::classify(&parsed) {
        Ok(Route::Passthrough) => {
            record.kind = RequestKind::Passthrough;
            record.stream = parsed.get("stream") == Some(&Value::Bool(true));
            shared.counters.count_passthrough();
            record.status = relay(shared, request, Some(&body), record);
            return;
        }
        Ok(Route::Structured(structured)) => structured,
        Err(error) => {
            return bad_request(
                shared,
                request,
                record,
                &error.message,
                error.param.as_deref(),
            );
        }
    };
    let Structured {
        request: call,
        tools,
        ask,
        temperature,
    } = *structured;
    record.kind = if tools {
        RequestKind::Tools
    } else {
        RequestKind::Structured
    };
    record.stream = ask.stream;
    let mut settings = shared.settings.clone();
    if let Some(temperature) = temperature {
        settings.temperature = temperature;
    }
    let result = structured_call(&settings, &call, &shared.context);
    let stamp = stamp(shared, &ask);
    match result {
        Ok(outcome) => {
            record.mechanism = Some(outcome.meta.mechanism.to_string());
            record.rung = outcome
                .meta
                .repair_rung
                .map(|rung| rung.as_str().to_owned());
            record.reasks = Some(outcome.meta.reasks.len());
            record.status = 200;
            shared.counters.count_structured(tools, true);
            let headers = translate::meta_headers(&outcome.meta);
            if ask.stream {
                let chunks = translate::completion_chunks(&outcome, &ask, &stamp);
                http::respond_events(request, &chunks, &headers);
            } else {
                let body = translate::completion(&outcome, &stamp);
                http::respond_json(request, 200, &body, &headers);
            }
        }
        Err(failure) => {
            let (status, body, class) = translate::failure(&failure);
            if let Some(meta) = failure.meta() {
                record.mechanism = Some(meta.mechanism.to_string());
                record.reasks = Some(meta.reasks.len());
            }
            record.status = status;
            record.class = Some(class.to_owned());
            shared.counters.count_structured(tools, false);
            let mut headers = failure
                .meta()
                .map(translate::meta_headers)
                .unwrap_or_default();
            headers.push(("x-slmcode-class", class.to_owned()));
            http::respond_json(request, status, &body, &headers);
        }
    }
}

fn bad_request(
    shared: &Shared,
    request: tiny_http::Request,
    record: &mut LogRecord,
    message: &str,
    param: Option<&str>,
) {
    record.status = 400;
    record.class = Some("invalid_request".to_owned());
    let body = translate::error_body(message, "invalid_request_error", "invalid_request", param);
    http::respond_json(request, 400, &body, &[]);
    shared.counters.count_refused(false);
}

fn stamp(shared: &Shared, ask: &ClientAsk) -> Stamp {
    let created = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    let number = shared.next_id.fetch_add(1, Ordering::Relaxed);
    Stamp {
        id: format!("chatcmpl-slmcode-{created:x}-{number}"),
        created,
        model: ask
            .model
            .clone()
            .or_else(|| shared.context.target.model.clone())
            .unwrap_or_else(|| "slmcode".to_owned()),
    }
}

/// Relays the request to the upstream and its answer back; returns the status sent.
fn relay(
    shared: &Shared,
    request: tiny_http::Request,
    body: Option<&[u8]>,
    record: &mut LogRecord,
) -> u16 {
    let path = if body.is_some() {
        "/chat/completions"
    } else {
        "/models"
    };
    let idle = Duration::from_secs(shared.settings.timeout_s.max(1));
    let whole = Duration::from_secs(shared.settings.call_timeout_s.max(1));
    match shared.upstream.forward(path, body, idle, whole) {
        Ok(relayed) => {
            let status = relayed.status;
            if !(200..300).contains(&status) {
                record.class = Some(format!("upstream_{status}"));
                shared.counters.count_upstream_error();
                // An error body is small: read it whole, so the key can be masked out of it.
                let mut text = String::new();
                let _ = relayed
                    .body
                    .take(crate::backends::forward::RELAY_LIMIT.min(1 << 20))
                    .read_to_string(&mut text);
                let text = shared.upstream.redact(&text);
                http::respond_bytes(
                    request,
                    status,
                    relayed.content_type.as_deref(),
                    text.as_bytes(),
                );
                return status;
            }
            if !http::respond_relayed(request, relayed) {
                record.class = Some("client_closed".to_owned());
            }
            status
        }
        Err(error) => {
            record.class = Some(error.class.as_str().to_owned());
            shared.counters.count_upstream_error();
            let message = shared.upstream.redact(&error.to_string());
            let mut body =
                translate::error_body(&message, "upstream_error", error.class.as_str(), None);
            body["error"]["class"] = json!(error.class.as_str());
            http::respond_json(request, 502, &body, &[]);
            502
        }
    }
}
