//! An engine emulator for tests: a real HTTP/1.1 server on 127.0.0.1 (std::net, one thread per
//! connection, `Connection: close`), started per test on a free port, whose profiles follow what
//! each engine documents (and, for llama-server, what tests/real-engine/README.md measured):
//! which body fields it enforces, which it ignores (200, unconstrained), which it rejects with
//! which status and body. Scripted faults cover the rest: 5xx then recovery, 429 with
//! `Retry-After`, a server that is still loading (connection refused until it binds), slow
//! answers, context overflow, oversized bodies; `finish_reason: length` comes from the token
//! budget (one token per character, like a byte-level tokenizer). A TLS handshake gets the
//! plain-text 400 a real plain-HTTP server sends, so an `https://` address of the emulator is
//! "not TLS on that port".
//!
//! Content obeys the constraint when the profile enforces it (the shortest instance of a schema,
//! the shortest member of a GBNF grammar) and is what a small model writes when it does not:
//! prose around a fenced object with a trailing comma, or the next scripted answer
//! ([`Emulator::script`]: what the model writes when nothing constrains its shape, in order; a
//! scripted answer is used only by a request the server accepted and did not constrain, or
//! constrained to JSON only with json_object, where the script should hold JSON).
//! Every request is recorded.
//!
//! Used by integration tests (`mod support`) and by the library's unit tests
//! (`#[path = "../../tests/support/emulator.rs"] mod emulator;`).
#![allow(dead_code)]

#[path = "emulator_chat.rs"]
mod chat;
#[path = "engine_profiles.rs"]
mod engine_profiles;
#[path = "gbnf_sample.rs"]
mod gbnf_sample;

// Not every user of the emulator needs every name.
#[allow(unused_imports)]
pub use engine_profiles::{BASIC_FIELDS, Field, OPENAI_FIELDS, Profile, Streaming, Thinker};

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// A fault applied to the next chat request instead of (or before) the normal answer.
#[derive(Clone, Debug)]
pub enum Fault {
    /// Answer this status and body, with an optional `Retry-After` header value.
    Status(u16, String, Option<String>),
    /// Wait this long, then answer normally.
    Delay(Duration),
    /// Answer 200 with a body of this many bytes.
    Oversized(usize),
    /// The profile's context-overflow error.
    ContextOverflow,
    /// Stream this many chunks of the answer, then send nothing for this long (a stalled
    /// server), then go on.
    Stall(usize, Duration),
}

/// How one streamed answer went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamRecord {
    /// Text chunks written (one per token).
    pub chunks: usize,
    /// Tokens the answer had in all (after the budget).
    pub tokens: usize,
    /// Whether it was sent to the end (false: the client closed the connection first).
    pub completed: bool,
}

/// A port on 127.0.0.1 that refuses connections for as long as this value lives: a socket is
/// bound to it and never listens, so the port stays dead and no other test can take it (a
/// listener bound and dropped leaves a port any parallel test may take next).
pub struct RefusingPort {
    fd: libc::c_int,
    port: u16,
}

impl RefusingPort {
    pub fn new() -> RefusingPort {
        // SAFETY: plain socket calls on a descriptor this value owns; every result is checked.
        unsafe {
            let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
            assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
            let mut address: libc::sockaddr_in = std::mem::zeroed();
            address.sin_family = libc::AF_INET as libc::sa_family_t;
            address.sin_addr.s_addr = u32::from_ne_bytes([127, 0, 0, 1]);
            let length = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
            let bound = libc::bind(fd, (&raw const address).cast(), length);
            assert_eq!(bound, 0, "bind: {}", std::io::Error::last_os_error());
            let mut length = length;
            let named = libc::getsockname(fd, (&raw mut address).cast(), &mut length);
            assert_eq!(named, 0, "getsockname: {}", std::io::Error::last_os_error());
            RefusingPort {
                fd,
                port: u16::from_be(address.sin_port),
            }
        }
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Starts listening on the port: from now on it accepts connections.
    pub fn listen(self) -> TcpListener {
        use std::os::fd::FromRawFd;
        let fd = self.fd;
        std::mem::forget(self);
        // SAFETY: `fd` is a bound TCP socket this value owned; the listener takes it over.
        unsafe {
            assert_eq!(
                libc::listen(fd, 128),
                0,
                "listen: {}",
                std::io::Error::last_os_error()
            );
            TcpListener::from_raw_fd(fd)
        }
    }
}

impl Drop for RefusingPort {
    fn drop(&mut self) {
        // SAFETY: closing the descriptor this value owns, once.
        unsafe {
            libc::close(self.fd);
        }
    }
}

/// What the model writes when nothing constrains it (see [`Emulator::script`]).
#[derive(Clone, Debug)]
pub enum Scripted {
    /// This text as the message content.
    Content(String),
    /// These tool calls (an OpenAI `tool_calls` array), no content.
    ToolCalls(Value),
    /// This text as the content, also under an enforced grammar or schema: what a model may
    /// write where the constraint leaves a choice (the test vouches that the text is in the
    /// constraint's language; the shortest member is what comes back otherwise).
    Member(String),
}

/// One request the emulator received.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// The query string, without `?`.
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Recorded {
    /// The body as JSON (`Null` when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// A header's value (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

struct Shared {
    profile: Mutex<Profile>,
    faults: Mutex<VecDeque<Fault>>,
    script: Mutex<VecDeque<Scripted>>,
    always_delay: Mutex<Option<Duration>>,
    schema_delay: Mutex<Option<Duration>>,
    token_delay: Mutex<Option<Duration>>,
    echo_key: AtomicBool,
    log: Mutex<Vec<Recorded>>,
    streams: Mutex<Vec<StreamRecord>>,
    stop: AtomicBool,
}

/// A running emulator. Dropping it stops accepting connections.
pub struct Emulator {
    port: u16,
    shared: Arc<Shared>,
}

impl Emulator {
    /// Starts `profile` on a free port now.
    pub fn start(profile: Profile) -> Emulator {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        let port = listener.local_addr().unwrap().port();
        let emulator = Emulator::new(profile, port);
        emulator.serve(listener);
        emulator
    }

    /// Takes a free port now and starts listening on it only after `delay`: until then
    /// connections are refused, as with a server that is still loading its model. The port is
    /// held (bound, not listening) from the start, so no other test can take it meanwhile.
    pub fn start_after(profile: Profile, delay: Duration) -> Emulator {
        let reserved = RefusingPort::new();
        let emulator = Emulator::new(profile, reserved.port());
        let shared = emulator.shared.clone();
        std::thread::spawn(move || {
            std::thread::sleep(delay);
            accept_loop(reserved.listen(), shared);
        });
        emulator
    }

    fn new(profile: Profile, port: u16) -> Emulator {
        Emulator {
            port,
            shared: Arc::new(Shared {
                profile: Mutex::new(profile),
                faults: Mutex::new(VecDeque::new()),
                script: Mutex::new(VecDeque::new()),
                always_delay: Mutex::new(None),
                schema_delay: Mutex::new(None),
                token_delay: Mutex::new(None),
                echo_key: AtomicBool::new(false),
                log: Mutex::new(Vec::new()),
                streams: Mutex::new(Vec::new()),
                stop: AtomicBool::new(false),
            }),
        }
    }

    fn serve(&self, listener: TcpListener) {
        let shared = self.shared.clone();
        std::thread::spawn(move || accept_loop(listener, shared));
    }

    /// The OpenAI-style base URL: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// The server root: `http://127.0.0.1:PORT`.
    pub fn root_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Queues faults for the next chat requests, in order.
    pub fn faults(&self, faults: impl IntoIterator<Item = Fault>) -> &Emulator {
        self.shared.faults.lock().unwrap().extend(faults);
        self
    }

    /// Queues what the model writes, in order, when a request is accepted and nothing
    /// constrains the answer's shape (a plain request, a field the profile ignores, or an
    /// enforced json_object: then the scripted text should be JSON). Budget and
    /// `finish_reason: length` apply as to any answer. Once the queue is empty, the default
    /// unconstrained answer comes back.
    pub fn script(&self, answers: impl IntoIterator<Item = Scripted>) -> &Emulator {
        self.shared.script.lock().unwrap().extend(answers);
        self
    }

    /// Queues unconstrained answers given as text (see [`Emulator::script`]).
    pub fn answers<I, S>(&self, answers: I) -> &Emulator
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.script(
            answers
                .into_iter()
                .map(|text| Scripted::Content(text.into())),
        )
    }

    /// Delays every chat answer by `delay`.
    pub fn always_delay(&self, delay: Duration) -> &Emulator {
        *self.shared.always_delay.lock().unwrap() = Some(delay);
        self
    }

    /// Delays every answer to a `response_format` of type `json_schema` by `delay` (`None`:
    /// no more): the requests that, on a busy server serving one at a time, wait behind the
    /// others.
    pub fn delay_json_schema(&self, delay: Option<Duration>) -> &Emulator {
        *self.shared.schema_delay.lock().unwrap() = delay;
        self
    }

    /// Waits this long after each streamed token (a model generating at a given rate).
    pub fn token_delay(&self, delay: Duration) -> &Emulator {
        *self.shared.token_delay.lock().unwrap() = Some(delay);
        self
    }

    /// Echoes the bearer token it is sent in 2xx answers, as a careless or hostile server
    /// might: as the model of a chat answer (in every chunk of a streamed one, the first cut
    /// in the middle of the token and sent in two writes apart) and in the models list.
    pub fn echo_key(&self) -> &Emulator {
        self.shared.echo_key.store(true, Ordering::SeqCst);
        self
    }

    /// How each streamed answer went, in order.
    pub fn streams(&self) -> Vec<StreamRecord> {
        self.shared.streams.lock().unwrap().clone()
    }

    /// Waits (up to two seconds) until `count` streamed answers have ended, by completion or
    /// because the client went away, and returns them.
    pub fn wait_for_streams(&self, count: usize) -> Vec<StreamRecord> {
        for _ in 0..200 {
            if self.streams().len() >= count {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        self.streams()
    }

    /// Changes the profile (a server upgraded in place).
    pub fn set_profile(&self, profile: Profile) {
        *self.shared.profile.lock().unwrap() = profile;
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.log.lock().unwrap().clone()
    }

    /// The JSON bodies of the chat-completions requests received so far.
    pub fn chat_bodies(&self) -> Vec<Value> {
        self.requests()
            .iter()
            .filter(|request| request.path.ends_with("/chat/completions"))
            .map(Recorded::json)
            .collect()
    }

    /// How many chat-completions requests arrived.
    pub fn chat_count(&self) -> usize {
        self.chat_bodies().len()
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(
            &([127, 0, 0, 1], self.port).into(),
            Duration::from_millis(200),
        );
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(stream) = stream else { continue };
        let shared = shared.clone();
        std::thread::spawn(move || {
            let _ = handle(stream, &shared);
        });
    }
}

/// The first byte of a TLS connection: the content type of a handshake record.
const TLS_HANDSHAKE_RECORD: u8 = 0x16;

fn handle(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    // A client that speaks TLS to this plain-HTTP port opens with a handshake record, not a
    // request line; every engine's HTTP server answers that with a plain-text 400 and closes.
    if reader.fill_buf()?.first() == Some(&TLS_HANDSHAKE_RECORD) {
        let body = "Bad Request";
        return stream.try_clone()?.write_all(
            format!(
                "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        );
    }
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_owned();
    let (path, query) = match parts.next().unwrap_or("").split_once('?') {
        Some((path, query)) => (path.to_owned(), query.to_owned()),
        None => (
            line.split_whitespace().nth(1).unwrap_or("").to_owned(),
            String::new(),
        ),
    };
    let mut headers = Vec::new();
    let mut length = 0;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header)?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
            headers.push((name.trim().to_owned(), value.trim().to_owned()));
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let recorded = Recorded {
        method,
        path,
        query,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    shared.log.lock().unwrap().push(recorded.clone());
    let profile = shared.profile.lock().unwrap().clone();
    if let Some(fixed) = &profile.fixed_answer {
        return respond_as(stream, fixed.status, fixed.content_type, &fixed.body, None);
    }
    let streamed = recorded.json().get("stream") == Some(&Value::Bool(true));
    if streamed
        && profile.streaming == Streaming::Refused
        && recorded.path.ends_with("/chat/completions")
    {
        let body = json!({"error": {"message": "'stream' is not supported by this server", "type": "invalid_request_error"}});
        return respond(stream, 400, &body.to_string(), None);
    }
    let reply = match (
        route(&recorded, &profile, shared),
        echoed_key(&recorded, shared),
    ) {
        (Reply::Answer(mut answer), Some(key)) => {
            answer.model = key;
            Reply::Answer(answer)
        }
        (reply, _) => reply,
    };
    match reply {
        Reply::Whole(status, body, extra) => respond(stream, status, &body, extra),
        Reply::Answer(answer) if streamed && profile.streaming == Streaming::Events => {
            let include_usage = recorded.json().pointer("/stream_options/include_usage")
                == Some(&Value::Bool(true));
            stream_answer(stream, &answer, include_usage, shared)
        }
        Reply::Answer(answer) => respond(stream, 200, &answer.whole().to_string(), None),
    }
}

/// The bearer token to echo, when [`Emulator::echo_key`] asked for it.
fn echoed_key(request: &Recorded, shared: &Shared) -> Option<String> {
    if !shared.echo_key.load(Ordering::SeqCst) {
        return None;
    }
    let token = request.header("authorization")?.strip_prefix("Bearer ")?;
    Some(token.to_owned())
}

/// What the emulator sends back for one request.
enum Reply {
    /// A body with its status and an optional extra header line.
    Whole(u16, String, Option<String>),
    /// A chat answer, sent whole or as events as the request and the profile say.
    Answer(Answer),
}

/// One chat answer.
struct Answer {
    model: String,
    /// The reasoning, returned in this field apart from the content.
    reasoning: Option<(&'static str, String)>,
    content: Option<String>,
    tool_calls: Option<Value>,
    finish: &'static str,
    completion_tokens: usize,
}

impl Answer {
    fn usage(&self) -> Value {
        json!({"prompt_tokens": 20, "completion_tokens": self.completion_tokens,
            "total_tokens": 20 + self.completion_tokens})
    }

    /// The answer as one chat-completions body.
    fn whole(&self) -> Value {
        let mut message = json!({"role": "assistant", "content": self.content});
        if let Some((field, reasoning)) = &self.reasoning {
            message[*field] = json!(reasoning);
        }
        if let Some(calls) = &self.tool_calls {
            message["tool_calls"] = calls.clone();
        }
        json!({
            "id": "chatcmpl-emulated", "object": "chat.completion", "created": 0, "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish}],
            "usage": self.usage()
        })
    }
}

fn chunk(model: &str, delta: Value, finish: Option<&str>) -> String {
    let chunk = json!({"id": "chatcmpl-emulated", "object": "chat.completion.chunk", "created": 0,
        "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
    format!("data: {chunk}\n\n")
}

/// Sends `answer` as server-sent events, one chunk per token (character), pacing and stalling
/// as the test asked, and records how far it got before the client went away.
fn stream_answer(
    mut stream: TcpStream,
    answer: &Answer,
    include_usage: bool,
    shared: &Shared,
) -> std::io::Result<()> {
    let token_delay = *shared.token_delay.lock().unwrap();
    let stall = {
        let mut faults = shared.faults.lock().unwrap();
        match faults.front() {
            Some(Fault::Stall(..)) => faults.pop_front(),
            _ => None,
        }
    };
    let split = |text: &str| -> Vec<String> { text.chars().map(String::from).collect() };
    let thoughts: Vec<String> = answer
        .reasoning
        .as_ref()
        .map(|(_, text)| split(text))
        .unwrap_or_default();
    let tokens = split(answer.content.as_deref().unwrap_or(""));
    let mut record = StreamRecord {
        chunks: 0,
        tokens: thoughts.len() + tokens.len(),
        completed: false,
    };
    let result = (|| -> std::io::Result<()> {
        stream.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
        )?;
        let first = chunk(
            &answer.model,
            json!({"role": "assistant", "content": null}),
            None,
        );
        if shared.echo_key.load(Ordering::SeqCst) {
            // Two reads on the other side: the token split between them.
            let cut = first.find(&answer.model).unwrap_or(0) + answer.model.len() / 2;
            stream.write_all(&first.as_bytes()[..cut])?;
            stream.flush()?;
            std::thread::sleep(Duration::from_millis(100));
            stream.write_all(&first.as_bytes()[cut..])?;
        } else {
            stream.write_all(first.as_bytes())?;
        }
        for thought in &thoughts {
            let field = answer
                .reasoning
                .as_ref()
                .map_or("reasoning_content", |(field, _)| field);
            stream.write_all(chunk(&answer.model, json!({field: thought}), None).as_bytes())?;
            stream.flush()?;
            record.chunks += 1;
        }
        for token in &tokens {
            if let Some(Fault::Stall(after, pause)) = &stall
                && record.chunks == *after
            {
                std::thread::sleep(*pause);
            }
            stream.write_all(chunk(&answer.model, json!({"content": token}), None).as_bytes())?;
            stream.flush()?;
            record.chunks += 1;
            if let Some(delay) = token_delay {
                std::thread::sleep(delay);
            }
        }
        if let Some(calls) = &answer.tool_calls {
            let indexed: Vec<Value> = calls
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
                .map(|(index, call)| {
                    let mut call = call.clone();
                    call["index"] = json!(index);
                    call
                })
                .collect();
            stream
                .write_all(chunk(&answer.model, json!({"tool_calls": indexed}), None).as_bytes())?;
        }
        stream.write_all(chunk(&answer.model, json!({}), Some(answer.finish)).as_bytes())?;
        if include_usage {
            let usage = json!({"id": "chatcmpl-emulated", "object": "chat.completion.chunk",
                "created": 0, "model": answer.model, "choices": [], "usage": answer.usage()});
            stream.write_all(format!("data: {usage}\n\n").as_bytes())?;
        }
        stream.write_all(b"data: [DONE]\n\n")?;
        stream.flush()?;
        record.completed = true;
        Ok(())
    })();
    shared.streams.lock().unwrap().push(record);
    result
}

fn respond(
    stream: TcpStream,
    status: u16,
    body: &str,
    extra: Option<String>,
) -> std::io::Result<()> {
    respond_as(stream, status, "application/json", body, extra)
}

/// Answers with this `Content-Type` (none when empty).
fn respond_as(
    mut stream: TcpStream,
    status: u16,
    content_type: &str,
    body: &str,
    extra: Option<String>,
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    };
    let mut head = format!("HTTP/1.1 {status} {reason}\r\n");
    if !content_type.is_empty() {
        head.push_str(&format!("Content-Type: {content_type}\r\n"));
    }
    head.push_str(&format!(
        "Content-Length: {}\r\nConnection: close\r\n",
        body.len()
    ));
    if let Some(extra) = extra {
        head.push_str(&extra);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    stream.flush()
}

fn not_found() -> Reply {
    Reply::Whole(
        404,
        json!({"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}})
            .to_string(),
        None,
    )
}

fn route(request: &Recorded, profile: &Profile, shared: &Shared) -> Reply {
    let found = |value: &Option<Value>| match value {
        Some(value) => Reply::Whole(200, value.to_string(), None),
        None => not_found(),
    };
    match (request.method.as_str(), request.path.as_str()) {
        ("GET", "/v1/models") => {
            let data: Vec<Value> = profile
                .models
                .iter()
                .map(|id| json!({"id": id, "object": "model", "owned_by": profile.name}))
                .chain(echoed_key(request, shared).map(|key| json!({"id": key, "object": "model"})))
                .collect();
            Reply::Whole(
                200,
                json!({"object": "list", "data": data}).to_string(),
                None,
            )
        }
        ("GET", "/props") => found(&profile.props),
        ("GET", "/version") => found(&profile.version),
        ("GET", "/api/version") => found(&profile.ollama_version),
        ("POST", "/api/show") => found(&profile.ollama_show),
        ("POST", "/v1/chat/completions") => chat::chat(request, profile, shared),
        _ => not_found(),
    }
}
