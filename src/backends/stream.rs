//! A streamed chat completion: the server-sent events of a `stream: true` answer, read one event
//! at a time ([`EventReader`]), and the chunks assembled into the same [`ChatResponse`] a whole
//! answer gives ([`Assembler`]): the content and the reasoning as they grow, tool calls joined
//! by their index, the finish reason, and the usage of the last chunk that has one.
//!
//! Events are read line by line with a bound on the line ([`MAX_LINE`]), so a server that never
//! sends a line break cannot make the reader buffer without end. `data: [DONE]` ends the stream;
//! `: comments` (keep-alives) and fields other than `data` and `error` are skipped; an `error`
//! field (llama.cpp) or a `data` payload with an `error` member (vLLM, OpenAI) is the server
//! failing mid-answer.
//!
//! [`Client::chat_stream`] is the exchange: it asks for `stream: true` (with
//! `stream_options.include_usage`, so the usage comes in the last chunk), shows every chunk to a
//! watcher that may stop the answer, and bounds the wait twice: an idle timeout between two reads
//! (a slow model that is producing tokens is never taken for a dead endpoint) and the call's
//! deadline, at which the answer so far is returned as it is. Stopping drops the connection, and
//! the engines end a generation whose client went away (llama.cpp frees the slot). A server that
//! answers a streamed request with a whole JSON body is read as one; a server that refuses
//! streaming (a 400 or 422 that names `stream`) is asked again without it, and the client stops
//! asking for streams. A sampling field the server refuses by name is dropped the same way.

use std::io::{self, BufRead, BufReader, Read};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::schema::Constraint;

use super::capabilities::GuidedField;
use super::errors::{CallError, ErrorClass, TransportFailure};
use super::transport::{
    ChatRequest, ChatResponse, Client, ToolCall, Usage, build_body, parse_chat_response,
    parse_usage, tls_failure,
};

/// The longest line of an event stream that is read; a longer one is an error.
pub const MAX_LINE: usize = 4 * 1024 * 1024;

/// One event of the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A `data` payload (several `data` lines of one event joined with `\n`).
    Data(String),
    /// The server reported an error in the stream.
    Error(String),
    /// `data: [DONE]`, or the end of the body.
    Done,
}

/// Reads the events of a server-sent event stream.
pub struct EventReader<R> {
    reader: R,
    line: Vec<u8>,
    /// Whether the body ended.
    ended: bool,
}

impl<R: BufRead> EventReader<R> {
    /// A reader of the event stream in `reader`.
    pub fn new(reader: R) -> EventReader<R> {
        EventReader {
            reader,
            line: Vec::new(),
            ended: false,
        }
    }

    /// The next event; [`Event::Done`] at `[DONE]` and at the end of the body.
    pub fn next_event(&mut self) -> io::Result<Event> {
        let mut data: Option<String> = None;
        loop {
            if self.ended {
                return Ok(data.map_or(Event::Done, Event::Data));
            }
            if !self.read_line()? {
                self.ended = true;
                continue;
            }
            let line = String::from_utf8_lossy(&self.line);
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                match data.take() {
                    Some(payload) => return Ok(classify(payload)),
                    None => continue,
                }
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (line, ""),
            };
            match field {
                "data" => match &mut data {
                    Some(payload) => {
                        payload.push('\n');
                        payload.push_str(value);
                    }
                    None => data = Some(value.to_owned()),
                },
                "error" => return Ok(Event::Error(value.to_owned())),
                _ => {}
            }
        }
    }

    /// Reads one line (with its line break) into `self.line`; false at the end of the body.
    fn read_line(&mut self) -> io::Result<bool> {
        self.line.clear();
        loop {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                return Ok(!self.line.is_empty());
            }
            let (used, complete) = match memchr::memchr(b'\n', available) {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            if self.line.len() + used > MAX_LINE {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a line of the event stream is longer than {MAX_LINE} bytes"),
                ));
            }
            self.line.extend_from_slice(&available[..used]);
            self.reader.consume(used);
            if complete {
                return Ok(true);
            }
        }
    }
}

fn classify(payload: String) -> Event {
    if payload.trim() == "[DONE]" {
        Event::Done
    } else {
        Event::Data(payload)
    }
}

/// A tool call whose parts arrive over several chunks.
#[derive(Clone, Debug, Default)]
struct PartialCall {
    index: u64,
    id: Option<String>,
    name: String,
    arguments: String,
}

/// Joins the chunks of a streamed answer (the first choice).
#[derive(Clone, Debug, Default)]
pub struct Assembler {
    content: String,
    reasoning: String,
    saw_content: bool,
    calls: Vec<PartialCall>,
    finish_reason: Option<String>,
    usage: Usage,
    model: Option<String>,
    /// Chunks that carried content or reasoning text: one token each on the engines that
    /// stream token by token.
    pub text_chunks: u64,
}

/// What one chunk added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Added {
    /// Bytes of content added.
    pub content: usize,
    /// Bytes of reasoning added.
    pub reasoning: usize,
}

impl Assembler {
    /// An assembler that has seen nothing.
    pub fn new() -> Assembler {
        Assembler::default()
    }

    /// The content so far.
    pub fn content(&self) -> &str {
        &self.content
    }

    /// The reasoning so far (`reasoning_content` or `reasoning` deltas).
    pub fn reasoning(&self) -> &str {
        &self.reasoning
    }

    /// Adds one chunk (a `chat.completion.chunk` object). A chunk that carries an `error`
    /// member is the server failing mid-answer: its message is the error.
    pub fn add(&mut self, chunk: &Value) -> Result<Added, String> {
        if let Some(error) = chunk.get("error") {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            return Err(message);
        }
        if let Some(model) = chunk.get("model").and_then(Value::as_str) {
            self.model.get_or_insert_with(|| model.to_owned());
        }
        if let Some(usage) = chunk.get("usage").filter(|usage| usage.is_object()) {
            self.usage = parse_usage(usage);
        }
        let mut added = Added::default();
        let Some(choice) = chunk.get("choices").and_then(|choices| choices.get(0)) else {
            return Ok(added);
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
        }
        let Some(delta) = choice.get("delta") else {
            return Ok(added);
        };
        match delta.get("content") {
            Some(Value::String(text)) => {
                self.saw_content = true;
                self.content.push_str(text);
                added.content = text.len();
            }
            Some(Value::Array(parts)) => {
                self.saw_content = true;
                for text in parts
                    .iter()
                    .filter_map(|part| part.get("text").and_then(Value::as_str))
                {
                    self.content.push_str(text);
                    added.content += text.len();
                }
            }
            _ => {}
        }
        // The first of the names only: vLLM sends the same text under both of its names.
        if let Some(text) = ["reasoning_content", "reasoning", "thinking"]
            .iter()
            .find_map(|field| delta.get(*field).and_then(Value::as_str))
        {
            self.reasoning.push_str(text);
            added.reasoning += text.len();
        }
        if added.content + added.reasoning > 0 {
            self.text_chunks += 1;
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                self.add_call(position as u64, call);
            }
        }
        Ok(added)
    }

    fn add_call(&mut self, position: u64, call: &Value) {
        let index = call
            .get("index")
            .and_then(Value::as_u64)
            .unwrap_or(position);
        let slot = match self.calls.iter().position(|known| known.index == index) {
            Some(slot) => slot,
            None => {
                self.calls.push(PartialCall {
                    index,
                    ..PartialCall::default()
                });
                self.calls.len() - 1
            }
        };
        let partial = &mut self.calls[slot];
        if let Some(id) = call.get("id").and_then(Value::as_str) {
            partial.id = Some(id.to_owned());
        }
        if let Some(function) = call.get("function") {
            if let Some(name) = function.get("name").and_then(Value::as_str) {
                partial.name.push_str(name);
            }
            match function.get("arguments") {
                Some(Value::String(text)) => partial.arguments.push_str(text),
                Some(Value::Null) | None => {}
                Some(other) => partial.arguments.push_str(&other.to_string()),
            }
        }
    }

    /// The answer the chunks make.
    pub fn finish(self) -> ChatResponse {
        let mut calls = self.calls;
        calls.sort_by_key(|call| call.index);
        ChatResponse {
            content: (self.saw_content || calls.is_empty()).then_some(self.content),
            reasoning: (!self.reasoning.is_empty()).then_some(self.reasoning),
            finish_reason: self.finish_reason,
            usage: self.usage,
            tool_calls: calls
                .into_iter()
                .filter(|call| !call.name.is_empty())
                .map(|call| ToolCall {
                    id: call.id,
                    name: call.name,
                    arguments: call.arguments,
                })
                .collect(),
            model: self.model,
        }
    }
}

/// How a streamed exchange is bounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamLimits {
    /// The longest wait for the next piece of the answer (the headers, then each read).
    pub idle: Duration,
    /// When the whole call must be over; the answer so far is kept when it passes.
    pub deadline: Option<Instant>,
}

/// What a watcher says after each piece of text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep reading.
    Continue,
    /// Close the stream now: the answer is decided.
    Stop,
}

/// What a watcher sees after each chunk that added text.
#[derive(Clone, Copy, Debug)]
pub struct Progress<'a> {
    /// The content so far.
    pub content: &'a str,
    /// The reasoning so far.
    pub reasoning: &'a str,
    /// Chunks that carried text so far (one token each on most engines).
    pub text_chunks: u64,
    /// Time since the request was sent.
    pub elapsed: Duration,
}

/// How a streamed exchange ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamEnd {
    /// The server finished the answer (its finish reason says how).
    Finished,
    /// The watcher stopped it; the connection was closed.
    Stopped,
    /// The call's deadline passed during the answer: the answer is what arrived until then.
    Deadline,
}

/// When the text of an answer arrived.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    /// From the request to the first text.
    pub first_text: Option<Duration>,
    /// From the first text to the last.
    pub generating: Duration,
    /// Chunks that carried text.
    pub text_chunks: u64,
}

impl Timing {
    /// Text chunks per second of generation, when there were at least two.
    pub fn chunks_per_second(&self) -> Option<f64> {
        let seconds = self.generating.as_secs_f64();
        (self.text_chunks >= 2 && seconds > 0.0).then(|| (self.text_chunks - 1) as f64 / seconds)
    }
}

/// A streamed exchange's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Streamed {
    /// The answer (as far as it went).
    pub response: ChatResponse,
    /// How it ended.
    pub end: StreamEnd,
    /// Whether it came as an event stream (false: the server sent it whole).
    pub streamed: bool,
    /// When its text arrived.
    pub timing: Timing,
}

/// The wire cap of one event stream: every chunk repeats the ids and the model name, so a
/// stream is several times its text; the text itself is capped by the response size cap.
const STREAM_WIRE_FACTOR: u64 = 16;

impl Client {
    /// Sends one chat-completions request (no retry) as an event stream, showing the text to
    /// `watch` after every chunk that adds some, within `limits` (see the module docs).
    pub fn chat_stream(
        &self,
        request: &ChatRequest,
        constraint: &Constraint,
        guided_field: GuidedField,
        limits: &StreamLimits,
        watch: &mut dyn FnMut(&Progress<'_>) -> Flow,
    ) -> Result<Streamed, CallError> {
        if let Some(accepted) = self.accepted_sampling(request) {
            return self.chat_stream(&accepted, constraint, guided_field, limits, watch);
        }
        let started = Instant::now();
        let remaining = match limits.deadline {
            Some(deadline) => match deadline.checked_duration_since(started) {
                Some(left) if !left.is_zero() => Some(left),
                _ => return Err(deadline_error()),
            },
            None => None,
        };
        let streaming = self.streams();
        let mut body = build_body(request, constraint, guided_field);
        if streaming {
            body["stream"] = json!(true);
            body["stream_options"] = json!({"include_usage": true});
        }
        let bytes = serde_json::to_vec(&body).unwrap_or_default();
        let post = self
            .agent()
            .post(self.endpoint().chat_url())
            .config()
            .timeout_global(remaining)
            .timeout_per_read(Some(limits.idle))
            .build()
            .content_type("application/json")
            .header("Accept", "text/event-stream, application/json");
        let sent = self.authorize_post(post).send(&bytes[..]);
        let mut response = match sent {
            Ok(response) => response,
            Err(error) => return Err(self.read_error(error, limits, started)),
        };
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            let error = self.status_error(&mut response, limits.idle);
            if streaming && refuses_streaming(&error) {
                self.stop_streaming();
                return self.chat_stream(request, constraint, guided_field, limits, watch);
            }
            // A sampling field the server does not take is dropped, not a reason to fail (and
            // not a rejection of the constrained field, which the mechanism chain would demote).
            if self.refuse_sampling(request, &error) {
                return self.chat_stream(request, constraint, guided_field, limits, watch);
            }
            return Err(error);
        }
        let cap = self.max_response_bytes();
        let body = response
            .into_body()
            .into_with_config()
            .limit(cap.saturating_mul(STREAM_WIRE_FACTOR))
            .reader();
        let mut reader = BufReader::new(body);
        let whole = match first_byte(&mut reader) {
            Ok(first) => first == Some(b'{'),
            Err(error) => return Err(self.io_error(error, limits, started)),
        };
        if whole {
            return self.read_whole(reader, cap, limits, started, watch);
        }
        self.read_events(EventReader::new(reader), cap, limits, started, watch)
    }

    fn read_events<R: BufRead>(
        &self,
        mut events: EventReader<R>,
        cap: u64,
        limits: &StreamLimits,
        started: Instant,
        watch: &mut dyn FnMut(&Progress<'_>) -> Flow,
    ) -> Result<Streamed, CallError> {
        let mut assembler = Assembler::new();
        let mut first_text: Option<Instant> = None;
        let mut last_text = started;
        let mut end = StreamEnd::Finished;
        loop {
            let event = match events.next_event() {
                Ok(event) => event,
                Err(error) => match self.io_error(error, limits, started) {
                    error if error.class == ErrorClass::Canceled && past(limits.deadline) => {
                        end = StreamEnd::Deadline;
                        break;
                    }
                    error => return Err(error),
                },
            };
            let payload = match event {
                Event::Done => break,
                Event::Error(message) => return Err(mid_stream_error(&self.mask(&message))),
                Event::Data(payload) => payload,
            };
            let chunk: Value = serde_json::from_str(&payload).map_err(|error| {
                CallError::from_failure(TransportFailure::Malformed(format!(
                    "a chunk of the event stream is not JSON ({error}): {}",
                    self.mask(&payload)
                )))
            })?;
            let added = assembler
                .add(&chunk)
                .map_err(|message| mid_stream_error(&self.mask(&message)))?;
            if added.content + added.reasoning == 0 {
                continue;
            }
            let now = Instant::now();
            first_text.get_or_insert(now);
            last_text = now;
            if (assembler.content().len() + assembler.reasoning().len()) as u64 > cap {
                return Err(CallError::from_failure(TransportFailure::TooLarge(cap)));
            }
            let progress = Progress {
                content: assembler.content(),
                reasoning: assembler.reasoning(),
                text_chunks: assembler.text_chunks,
                elapsed: now - started,
            };
            if watch(&progress) == Flow::Stop {
                end = StreamEnd::Stopped;
                break;
            }
            if past(limits.deadline) {
                end = StreamEnd::Deadline;
                break;
            }
        }
        let timing = Timing {
            first_text: first_text.map(|first| first - started),
            generating: first_text.map_or(Duration::ZERO, |first| last_text - first),
            text_chunks: assembler.text_chunks,
        };
        // Dropping the reader here closes the connection: the server ends the generation.
        drop(events);
        Ok(Streamed {
            response: assembler.finish(),
            end,
            streamed: true,
            timing,
        })
    }

    /// A server that answered a streamed request with one JSON body.
    fn read_whole<R: Read>(
        &self,
        reader: R,
        cap: u64,
        limits: &StreamLimits,
        started: Instant,
        watch: &mut dyn FnMut(&Progress<'_>) -> Flow,
    ) -> Result<Streamed, CallError> {
        let mut bytes = Vec::new();
        if let Err(error) = reader.take(cap + 1).read_to_end(&mut bytes) {
            return Err(self.io_error(error, limits, started));
        }
        if bytes.len() as u64 > cap {
            return Err(CallError::from_failure(TransportFailure::TooLarge(cap)));
        }
        let text = self.mask(&String::from_utf8_lossy(&bytes));
        let value: Value = serde_json::from_str(&text).map_err(|error| {
            CallError::from_failure(TransportFailure::Malformed(format!(
                "HTTP 200 but the body is not JSON ({error}): {text}"
            )))
        })?;
        let response = parse_chat_response(&value)
            .map_err(|detail| CallError::from_failure(TransportFailure::Malformed(detail)))?;
        let elapsed = started.elapsed();
        let content = response.content.as_deref().unwrap_or("");
        let reasoning = response.reasoning.as_deref().unwrap_or("");
        let end = if content.is_empty() && reasoning.is_empty() {
            StreamEnd::Finished
        } else {
            let progress = Progress {
                content,
                reasoning,
                text_chunks: 1,
                elapsed,
            };
            match watch(&progress) {
                Flow::Stop => StreamEnd::Stopped,
                Flow::Continue => StreamEnd::Finished,
            }
        };
        Ok(Streamed {
            response,
            end,
            streamed: false,
            timing: Timing {
                first_text: Some(elapsed),
                generating: Duration::ZERO,
                text_chunks: 1,
            },
        })
    }

    /// A failed send or read, told apart: the deadline (canceled), the idle timeout
    /// (transient: nothing came for that long), or the transport's own failure (a TLS failure
    /// among them: see [`tls_failure`]).
    fn read_error(&self, error: ureq::Error, limits: &StreamLimits, started: Instant) -> CallError {
        if matches!(error, ureq::Error::Timeout(_)) {
            return timeout_error(limits, started);
        }
        self.transport_error(error, limits.idle)
    }

    fn io_error(&self, error: io::Error, limits: &StreamLimits, started: Instant) -> CallError {
        if matches!(
            error.kind(),
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
        ) {
            return timeout_error(limits, started);
        }
        if let Some(tls) = tls_failure(&error) {
            return CallError::from_failure(TransportFailure::Tls(tls));
        }
        let inner = error
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<ureq::Error>());
        match inner {
            Some(ureq::Error::Timeout(_)) => timeout_error(limits, started),
            Some(ureq::Error::BodyExceedsLimit(limit)) => {
                CallError::from_failure(TransportFailure::TooLarge(*limit))
            }
            _ if error.kind() == io::ErrorKind::ConnectionRefused => {
                self.classified(TransportFailure::Refused(self.mask(&error.to_string())))
            }
            _ => {
                CallError::from_failure(TransportFailure::Connection(self.mask(&error.to_string())))
            }
        }
    }
}

/// The first byte of the body that is not whitespace (`None`: an empty body).
fn first_byte<R: BufRead>(reader: &mut R) -> io::Result<Option<u8>> {
    loop {
        let available = reader.fill_buf()?;
        let Some(&byte) = available.first() else {
            return Ok(None);
        };
        if byte.is_ascii_whitespace() {
            reader.consume(1);
        } else {
            return Ok(Some(byte));
        }
    }
}

fn past(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|deadline| Instant::now() >= deadline)
}

fn deadline_error() -> CallError {
    CallError::from_failure(TransportFailure::TimedOut(
        "the call's deadline passed before the server answered".to_owned(),
    ))
}

fn timeout_error(limits: &StreamLimits, started: Instant) -> CallError {
    if past(limits.deadline) {
        return deadline_error();
    }
    let mut error = CallError::from_failure(TransportFailure::TimedOut(format!(
        "the server sent nothing for {:.0} s (after {:.0} s in all)",
        limits.idle.as_secs_f64(),
        started.elapsed().as_secs_f64()
    )));
    // Idle, not out of time: the call may try again within its deadline.
    error.class = ErrorClass::Transient;
    error
}

/// A server that failed in the middle of an answer: like a 5xx, worth one more try.
fn mid_stream_error(message: &str) -> CallError {
    let mut error = CallError::from_failure(TransportFailure::Malformed(format!(
        "the server failed during the answer: {message}"
    )));
    error.class = ErrorClass::Transient;
    error
}

/// Whether a rejected streamed request was rejected for streaming itself.
fn refuses_streaming(error: &CallError) -> bool {
    let detail = error.detail.to_ascii_lowercase();
    // "stream" as a word of its own or the start of one (`stream_options`, `streaming`), not
    // inside another ("upstream").
    let names_stream = detail.match_indices("stream").any(|(at, _)| {
        !detail[..at]
            .chars()
            .next_back()
            .is_some_and(|before| before.is_ascii_alphanumeric())
    });
    matches!(error.status, Some(400 | 422)) && names_stream
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
