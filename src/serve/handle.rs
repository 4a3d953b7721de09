//! One connection's requests: routing, the proxy's key, the call path or the relay, the
//! answer, the counters and the log record.

use std::io::Read;
use std::net::TcpStream;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::call::{
    CallFailure, SchemaViolation, StructuredOutcome, StructuredRequest, structured_call,
};

use super::http::{Connection, ReadError, RelayBroken, Request};
use super::translate::{self, ClientAsk, Route, Stamp, Structured};
use super::{LOGGED_CONTENT_CHARS, LogRecord, RequestKind, STATUS_PATH, Shared};

/// Serves the requests of one connection until it closes or an answer ends it.
pub(super) fn connection(shared: &Shared, stream: TcpStream) {
    let Ok(mut connection) = Connection::new(stream) else {
        return;
    };
    loop {
        let request = match connection.read_request(shared.options.max_body_bytes) {
            Ok(request) => request,
            Err(ReadError::Closed) => return,
            Err(ReadError::Refuse(status, message)) => {
                let started = Instant::now();
                let code = match status {
                    413 => "request_too_large",
                    411 => "length_required",
                    431 => "headers_too_large",
                    _ => "invalid_request",
                };
                let mut record = record_for("-", "-");
                let refusal = Refusal::new(status, code, &message);
                refuse(shared, &mut connection, &mut record, refusal, false);
                shared.counters.count_request();
                finish(shared, record, started);
                return;
            }
        };
        // The counters are answered even with every slot taken: `slmcode status` would call a
        // busy proxy stale otherwise. Reading them is not a request to count.
        if request.path == STATUS_PATH {
            if !status(shared, &mut connection, &request) {
                return;
            }
            continue;
        }
        if !shared.counters.enter(shared.options.max_connections) {
            if !busy(shared, &mut connection, &request) {
                return;
            }
            continue;
        }
        let keep = handle(shared, &mut connection, request);
        shared.counters.leave();
        if !keep {
            return;
        }
    }
}

/// Refuses a connection past the cap on open connections, without reading it.
pub(super) fn too_many_connections(shared: &Shared, stream: TcpStream) {
    if let Ok(mut connection) = Connection::new(stream) {
        let body = busy_body(shared);
        connection.respond_json(503, &body, &[("Retry-After", "1".to_owned())], false);
    }
    shared.counters.count_refused(true);
    let mut record = record_for("-", "-");
    record.status = 503;
    record.class = Some("busy".to_owned());
    finish(shared, record, Instant::now());
}

fn busy_body(shared: &Shared) -> Value {
    translate::error_body(
        &format!(
            "slmcode serve is handling {} requests, its limit (serve_max_connections); try again",
            shared.options.max_connections
        ),
        "server_busy",
        "busy",
        None,
    )
}

/// Answers 503 at once: every slot is taken. Returns whether the connection goes on.
fn busy(shared: &Shared, connection: &mut Connection, request: &Request) -> bool {
    let started = Instant::now();
    let body = busy_body(shared);
    let keep = connection.respond_json(
        503,
        &body,
        &[("Retry-After", "1".to_owned())],
        request.keep_alive,
    );
    shared.counters.count_refused(true);
    let mut record = record_for(&request.method, &request.path);
    record.status = 503;
    record.class = Some("busy".to_owned());
    finish(shared, record, started);
    keep
}

/// Answers the counters; returns whether the connection goes on.
fn status(shared: &Shared, connection: &mut Connection, request: &Request) -> bool {
    let started = Instant::now();
    let counters = serde_json::to_value(shared.counters.snapshot()).unwrap_or(Value::Null);
    let keep = connection.respond_json(200, &counters, &[], request.keep_alive);
    let mut record = record_for(&request.method, &request.path);
    record.kind = RequestKind::Status;
    finish(shared, record, started);
    keep
}

/// A request refused in OpenAI shape before anything was sent upstream.
struct Refusal<'a> {
    status: u16,
    code: &'a str,
    message: &'a str,
    param: Option<&'a str>,
}

impl<'a> Refusal<'a> {
    fn new(status: u16, code: &'a str, message: &'a str) -> Refusal<'a> {
        Refusal {
            status,
            code,
            message,
            param: None,
        }
    }

    /// A 400 naming the field at fault, when there is one.
    fn bad_request(message: &'a str, param: Option<&'a str>) -> Refusal<'a> {
        Refusal {
            param,
            ..Refusal::new(400, "invalid_request", message)
        }
    }
}

/// Answers `refusal`, counts it and notes it in `record`; returns whether the connection goes
/// on.
fn refuse(
    shared: &Shared,
    connection: &mut Connection,
    record: &mut LogRecord,
    refusal: Refusal,
    keep_alive: bool,
) -> bool {
    record.status = refusal.status;
    record.class = Some(refusal.code.to_owned());
    let body = translate::error_body(
        refusal.message,
        "invalid_request_error",
        refusal.code,
        refusal.param,
    );
    shared.counters.count_refused(false);
    connection.respond_json(refusal.status, &body, &[], keep_alive)
}

fn record_for(method: &str, path: &str) -> LogRecord {
    LogRecord {
        method: method.to_owned(),
        path: path.to_owned(),
        status: 200,
        kind: RequestKind::Refused,
        stream: false,
        mechanism: None,
        rung: None,
        reasks: None,
        class: None,
        request: None,
        answer: None,
        duration_ms: 0,
    }
}

/// `text` cut to [`LOGGED_CONTENT_CHARS`] characters.
fn cut(text: &str) -> String {
    match text.char_indices().nth(LOGGED_CONTENT_CHARS) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_owned(),
    }
}

/// The text of a chat body's last message, for a log that shows content.
fn last_message(body: &Value) -> Option<String> {
    let content = body.get("messages")?.as_array()?.last()?.get("content")?;
    Some(cut(&match content {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }))
}

fn finish(shared: &Shared, mut record: LogRecord, started: Instant) {
    record.duration_ms = started.elapsed().as_millis() as u64;
    (shared.log)(&record);
}

/// One request: returns whether the connection goes on.
fn handle(shared: &Shared, connection: &mut Connection, request: Request) -> bool {
    let started = Instant::now();
    let mut record = record_for(&request.method, &request.path);
    let route = request
        .path
        .strip_prefix("/v1")
        .unwrap_or(&request.path)
        .to_owned();
    let keep_alive = request.keep_alive;
    let mut refused = |record: &mut LogRecord, refusal: Refusal| {
        refuse(shared, connection, record, refusal, keep_alive)
    };
    let keep = if !authorized(shared, &request) {
        refused(
            &mut record,
            Refusal::new(
                401,
                "invalid_api_key",
                "the proxy's key is missing or wrong: send it as `Authorization: Bearer KEY`",
            ),
        )
    } else {
        match (request.method.as_str(), route.as_str()) {
            ("POST", "/chat/completions") => chat(shared, connection, request, &mut record),
            ("GET", "/models") => {
                record.kind = RequestKind::Passthrough;
                shared.counters.count_passthrough();
                relay(shared, connection, None, keep_alive, &mut record)
            }
            (method, "/chat/completions" | "/models") => refused(
                &mut record,
                Refusal::new(
                    405,
                    "method_not_allowed",
                    &format!("{method} is not allowed on {}", request.path),
                ),
            ),
            _ => refused(
                &mut record,
                Refusal::new(
                    404,
                    "not_found",
                    &format!(
                        "slmcode serve has no route {}: it serves /v1/chat/completions and \
                         /v1/models",
                        request.path
                    ),
                ),
            ),
        }
    };
    finish(shared, record, started);
    keep
}

/// Whether the request carries the proxy's key (always, when none is set). The comparison
/// takes the same time wherever the first difference is.
fn authorized(shared: &Shared, request: &Request) -> bool {
    let Some(key) = &shared.options.key else {
        return true;
    };
    let given = request
        .header("authorization")
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

fn chat(
    shared: &Shared,
    connection: &mut Connection,
    request: Request,
    record: &mut LogRecord,
) -> bool {
    let keep_alive = request.keep_alive;
    let parsed: Value = match serde_json::from_slice(&request.body) {
        Ok(value) => value,
        Err(error) => {
            let message = format!("the body is not JSON: {error}");
            let refusal = Refusal::bad_request(&message, None);
            return refuse(shared, connection, record, refusal, keep_alive);
        }
    };
    if shared.options.log_content {
        record.request = last_message(&parsed);
    }
    let structured = match translate::classify(&parsed) {
        Ok(Route::Passthrough) => {
            record.kind = RequestKind::Passthrough;
            record.stream = parsed.get("stream") == Some(&Value::Bool(true));
            shared.counters.count_passthrough();
            return relay(shared, connection, Some(&request.body), keep_alive, record);
        }
        Ok(Route::Structured(structured)) => structured,
        Err(error) => {
            let refusal = Refusal::bad_request(&error.message, error.param.as_deref());
            return refuse(shared, connection, record, refusal, keep_alive);
        }
    };
    let tools = structured.tools();
    let Structured { request: call, ask } = *structured;
    record.kind = if tools {
        RequestKind::Tools
    } else {
        RequestKind::Structured
    };
    record.stream = ask.stream;
    if ask.stream {
        return streamed(shared, connection, &call, &ask, tools, record, keep_alive);
    }
    let result = structured_call(&call, &shared.context);
    whole(shared, connection, result, &ask, tools, record, keep_alive)
}

/// How often a client waiting for a streamed call-path answer is sent a comment line. The
/// shortest read timeout a client is likely to have without choosing one is httpx's default,
/// 5 s (the OpenAI SDKs set 600 s, a harness's own httpx client may not); a comment every 2 s
/// arrives in time even when it is late, and 20 bytes every 2 s cost nothing.
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(2);

/// The comment's text: event-stream readers skip comments whatever they say; this one says
/// whose it is, as a hosted gateway's does (OpenRouter's `: OPENROUTER PROCESSING`).
const KEEPALIVE_COMMENT: &str = "slmcode processing";

/// A call-path answer sent whole once the call has ended: the completion with the meta in
/// headers, or the failure with its status. Returns whether the connection goes on.
fn whole(
    shared: &Shared,
    connection: &mut Connection,
    result: Result<StructuredOutcome, CallFailure>,
    ask: &ClientAsk,
    tools: bool,
    record: &mut LogRecord,
    keep_alive: bool,
) -> bool {
    match result {
        Ok(outcome) => {
            note_answer(shared, record, tools, &outcome);
            let headers = translate::meta_headers(&outcome.meta);
            let body = translate::completion(&outcome, &stamp(shared, ask));
            connection.respond_json(200, &body, &headers, keep_alive)
        }
        Err(CallFailure::SchemaViolation(violation)) if violation.text_fallback.is_some() => {
            let text = note_fallback(shared, record, tools, &violation);
            let mut headers = translate::meta_headers(&violation.meta);
            headers.push((
                translate::FALLBACK_HEADER,
                violation.class.as_str().to_owned(),
            ));
            let body = translate::fallback(&violation, text, &stamp(shared, ask));
            connection.respond_json(200, &body, &headers, keep_alive)
        }
        Err(failure) => {
            let (status, body, class) = translate::failure(&failure);
            note_failure(shared, record, tools, &failure, &body, class);
            record.status = status;
            let mut headers = failure
                .meta()
                .map(translate::meta_headers)
                .unwrap_or_default();
            headers.push(("x-slmcode-class", class.to_owned()));
            connection.respond_json(status, &body, &headers, keep_alive)
        }
    }
}

/// A call-path answer for a client that asked for a stream. A request that cannot be made is
/// refused with its status; otherwise the event stream's head goes out at once, a comment
/// every [`KEEPALIVE_INTERVAL`] while the call runs (the answer only exists when the call has
/// validated it), then the chunks and `[DONE]`, or the failure as one event
/// `{"error": ...}` (the body a whole answer would have had, which OpenAI's SDKs raise as an
/// error) and the stream's end. The meta is in the last chunk's `slmcode` field: the headers
/// left before it was known. Returns whether the connection goes on.
fn streamed(
    shared: &Shared,
    connection: &mut Connection,
    call: &StructuredRequest,
    ask: &ClientAsk,
    tools: bool,
    record: &mut LogRecord,
    keep_alive: bool,
) -> bool {
    if let Err(error) = call.check(shared.context.settings()) {
        let failure = CallFailure::Request(error);
        return whole(
            shared,
            connection,
            Err(failure),
            ask,
            tools,
            record,
            keep_alive,
        );
    }
    let mut present = connection.start_events(keep_alive).is_ok();
    let result = call_while_waiting(shared, connection, call, &mut present);
    record.status = 200;
    let sent = match &result {
        Ok(outcome) => {
            note_answer(shared, record, tools, outcome);
            let chunks = translate::completion_chunks(outcome, ask, &stamp(shared, ask));
            present && send_answer(connection, &chunks)
        }
        Err(CallFailure::SchemaViolation(violation)) if violation.text_fallback.is_some() => {
            // The head has left: the failure's class is in the last chunk's `slmcode`, not in
            // a header.
            let text = note_fallback(shared, record, tools, violation);
            let chunks = translate::fallback_chunks(violation, text, ask, &stamp(shared, ask));
            present && send_answer(connection, &chunks)
        }
        Err(failure) => {
            let (_, body, class) = translate::failure(failure);
            note_failure(shared, record, tools, failure, &body, class);
            present && connection.send_event(&body.to_string()).is_ok()
        }
    };
    if !sent {
        // A failed call keeps its own class in the log; an answer that found no one to take
        // it is the client's doing.
        record
            .class
            .get_or_insert_with(|| "client_closed".to_owned());
        return false;
    }
    connection.end_events(keep_alive)
}

/// Sends an answer's chunks into an open event stream, then `[DONE]`; whether all arrived.
fn send_answer(connection: &mut Connection, chunks: &[Value]) -> bool {
    chunks
        .iter()
        .try_for_each(|chunk| connection.send_event(&chunk.to_string()))
        .and_then(|()| connection.send_event("[DONE]"))
        .is_ok()
}

/// Runs the call on a thread of its own while this one keeps the client's read timeout from
/// running out with a comment every [`KEEPALIVE_INTERVAL`]. `present` says whether the client
/// can still be written to: after a failed write nothing more is written, and the call runs
/// on to its end (its deadline bounds it; the call path has no way to be stopped midway).
fn call_while_waiting(
    shared: &Shared,
    connection: &mut Connection,
    call: &StructuredRequest,
    present: &mut bool,
) -> Result<StructuredOutcome, CallFailure> {
    std::thread::scope(|scope| {
        let (done, finished) = mpsc::channel::<()>();
        let running = std::thread::Builder::new()
            .name("slmcode-serve-call".to_owned())
            .spawn_scoped(scope, move || {
                let result = structured_call(call, &shared.context);
                let _ = done.send(());
                result
            });
        let Ok(running) = running else {
            // No thread to be had: the call runs here, and the client waits in silence.
            return structured_call(call, &shared.context);
        };
        // Ends when the call has said it is done, or has panicked and never will.
        while let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(KEEPALIVE_INTERVAL) {
            if *present {
                *present = connection.send_comment(KEEPALIVE_COMMENT).is_ok();
            }
        }
        running
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Notes a text fallback in the log record and the counters (a failed call answered 200 with
/// its last text); returns that text.
fn note_fallback<'a>(
    shared: &Shared,
    record: &mut LogRecord,
    tools: bool,
    violation: &'a SchemaViolation,
) -> &'a str {
    let text = violation.text_fallback.as_deref().unwrap_or_default();
    record.mechanism = Some(violation.meta.mechanism.to_string());
    record.reasks = Some(violation.meta.reasks.len());
    record.status = 200;
    record.class = Some(violation.class.as_str().to_owned());
    if shared.options.log_content {
        record.answer = Some(cut(text));
    }
    shared.counters.count_structured(tools, false);
    text
}

/// Notes a call's answer in the log record and the counters.
fn note_answer(shared: &Shared, record: &mut LogRecord, tools: bool, outcome: &StructuredOutcome) {
    record.mechanism = Some(outcome.meta.mechanism.to_string());
    record.rung = outcome
        .meta
        .repair_rung
        .map(|rung| rung.as_str().to_owned());
    record.reasks = Some(outcome.meta.reasks.len());
    record.status = 200;
    shared.counters.count_structured(tools, true);
    if shared.options.log_content {
        record.answer = Some(cut(&translate::answer_text(&outcome.answer)));
    }
}

/// Notes a call's failure (its error `body` and `class`) in the log record and the counters.
fn note_failure(
    shared: &Shared,
    record: &mut LogRecord,
    tools: bool,
    failure: &CallFailure,
    body: &Value,
    class: &str,
) {
    if let Some(meta) = failure.meta() {
        record.mechanism = Some(meta.mechanism.to_string());
        record.reasks = Some(meta.reasks.len());
    }
    record.class = Some(class.to_owned());
    if shared.options.log_content {
        record.answer = body.pointer("/error/raw").and_then(Value::as_str).map(cut);
    }
    shared.counters.count_structured(tools, false);
}

fn stamp(shared: &Shared, ask: &ClientAsk) -> Stamp {
    let created = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    let number = shared
        .next_id
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
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

/// The most of an upstream error body relayed: an error explains itself in far less.
const RELAYED_ERROR_LIMIT: u64 = 1 << 20;

/// Relays the request to the upstream and its answer back (a 2xx as it arrives, an error
/// whole), with the upstream key masked out; returns whether the connection goes on.
fn relay(
    shared: &Shared,
    connection: &mut Connection,
    body: Option<&[u8]>,
    keep_alive: bool,
    record: &mut LogRecord,
) -> bool {
    let path = if body.is_some() {
        "/chat/completions"
    } else {
        "/models"
    };
    let settings = shared.context.settings();
    let idle = Duration::from_secs(settings.timeout_s.max(1));
    let whole = Duration::from_secs(settings.call_timeout_s.max(1));
    match shared.upstream.relay(path, body, idle, whole) {
        Ok(relayed) => {
            let status = relayed.status;
            record.status = status;
            if !(200..300).contains(&status) {
                record.class = Some(format!("upstream_{status}"));
                shared.counters.count_upstream_error();
                let mut bytes = Vec::new();
                let _ = relayed
                    .body
                    .take(RELAYED_ERROR_LIMIT)
                    .read_to_end(&mut bytes);
                let text = shared.upstream.mask(&String::from_utf8_lossy(&bytes));
                let content_type = relayed
                    .content_type
                    .unwrap_or_else(|| "application/json".to_owned());
                return connection.respond_bytes(
                    status,
                    &content_type,
                    text.as_bytes(),
                    &[],
                    keep_alive,
                );
            }
            match connection.respond_relayed(relayed, shared.upstream.masked_key(), keep_alive) {
                Ok(()) => keep_alive,
                Err(RelayBroken::Client) => {
                    record.class = Some("client_closed".to_owned());
                    false
                }
                Err(RelayBroken::Upstream) => {
                    record.class = Some("upstream_broke_off".to_owned());
                    shared.counters.count_upstream_error();
                    false
                }
            }
        }
        Err(error) => {
            record.status = 502;
            record.class = Some(error.class.as_str().to_owned());
            shared.counters.count_upstream_error();
            let message = shared.upstream.mask(&error.to_string());
            let mut body =
                translate::error_body(&message, "upstream_error", error.class.as_str(), None);
            body["error"]["class"] = json!(error.class.as_str());
            connection.respond_json(502, &body, &[], keep_alive)
        }
    }
}
