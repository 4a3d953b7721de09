//! A streamed chat completion: [`Client::chat_stream`] asks for `stream: true` (with
//! `stream_options.include_usage`, so the usage comes in the last chunk), reads the answer event
//! by event ([`super::events`]), shows every chunk to a watcher that may stop the answer, and
//! bounds the wait twice: an idle timeout between two reads (a slow model that is producing
//! tokens is never taken for a dead endpoint) and the call's deadline, at which the answer so
//! far is returned as it is. Stopping drops the connection, and the engines end a generation
//! whose client went away (llama.cpp frees the slot). A server that answers a streamed request
//! with a whole JSON body is read as one, and so is an empty body or one whose type is not
//! `text/event-stream` and that does not open with an event field either: they fail as a
//! non-streamed answer would, never as an empty stream; a body without a single `data:` line is
//! no event stream either. A server that refuses
//! streaming (a 400 or 422 that names `stream`) is asked again without it, and the client stops
//! asking for streams. A sampling field the server refuses by name is dropped the same way.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use crate::schema::Constraint;

use super::capabilities::GuidedField;
use super::chat::{ChatRequest, ChatResponse, build_body, parse_chat_response};
use super::errors::{CallError, ErrorClass, TransportFailure};
use super::events::{Assembler, Event, EventReader};
use super::transport::{Client, tls_failure};

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
    /// Close the stream now: the answer is decided, and ended as this says (a complete value,
    /// a stop sequence, a loop).
    Stop(StreamEnding),
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

/// How an answer's stream ended: on its own, or cut, and why. The transport knows the first and
/// the deadline; why a watcher cut it, the watcher says (`Flow::Stop`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamEnding {
    /// The server finished the answer (`finish_reason` says how).
    Finished,
    /// A complete value had closed and what followed was not part of it: the rest was not
    /// generated.
    Done,
    /// The answer looped (`repetition` says how) and was cut off.
    Repetition,
    /// The call's deadline passed during the answer.
    Deadline,
    /// One of the call's stop sequences appeared after the reasoning: the answer ends there
    /// (slmcode applies them, not the server, unless `thinking = off`).
    Stop,
}

impl StreamEnding {
    /// The ending's name, as in `--json` output.
    pub const fn as_str(self) -> &'static str {
        match self {
            StreamEnding::Finished => "finished",
            StreamEnding::Done => "done",
            StreamEnding::Repetition => "repetition",
            StreamEnding::Deadline => "deadline",
            StreamEnding::Stop => "stop",
        }
    }
}

impl fmt::Display for StreamEnding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
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
    pub end: StreamEnding,
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
        let labelled_events = may_be_event_stream(&response);
        let cap = self.max_response_bytes();
        let body = response
            .into_body()
            .into_with_config()
            .limit(cap.saturating_mul(STREAM_WIRE_FACTOR))
            .reader();
        let mut reader = BufReader::new(body);
        let first = match first_byte(&mut reader) {
            Ok(first) => first,
            Err(error) => return Err(self.io_error(error, limits, started)),
        };
        // Whatever is not an event stream is judged as a whole answer, so an empty body or a
        // web page fails as it fails a non-streamed call ("HTTP 200 but the body is not JSON"),
        // not as a stream that ended before the model wrote anything.
        if first.is_none()
            || first == Some(b'{')
            || !(labelled_events || opens_event_stream(reader.buffer()))
        {
            return self.read_whole(reader, cap, limits, started, watch);
        }
        let head = self.mask(&String::from_utf8_lossy(
            &reader.buffer()[..reader.buffer().len().min(HEAD_BYTES)],
        ));
        self.read_events(EventReader::new(reader), &head, cap, limits, started, watch)
    }

    /// Reads an event stream; `head` is how the body began, for the error of a body that turns
    /// out to hold no event.
    fn read_events<R: BufRead>(
        &self,
        mut events: EventReader<R>,
        head: &str,
        cap: u64,
        limits: &StreamLimits,
        started: Instant,
        watch: &mut dyn FnMut(&Progress<'_>) -> Flow,
    ) -> Result<Streamed, CallError> {
        let mut assembler = Assembler::new();
        let mut first_text: Option<Instant> = None;
        let mut last_text = started;
        let mut end = StreamEnding::Finished;
        loop {
            let event = match events.next_event() {
                Ok(event) => event,
                Err(error) => match self.io_error(error, limits, started) {
                    error if error.class == ErrorClass::Canceled && past(limits.deadline) => {
                        end = StreamEnding::Deadline;
                        break;
                    }
                    error => return Err(error),
                },
            };
            let payload = match event {
                // Not even `data: [DONE]`: something else than an event stream (a proxy's
                // page sent without a type), which must not pass for an empty answer.
                Event::Done if !events.saw_data() => {
                    return Err(CallError::from_failure(TransportFailure::Malformed(
                        format!(
                            "HTTP 200 but the body is not JSON, nor an event stream (it has no `data:` line): {head}"
                        ),
                    )));
                }
                Event::Done => match assembler.not_a_completion() {
                    Some(detail) => {
                        return Err(CallError::from_failure(TransportFailure::Malformed(
                            self.mask(&detail),
                        )));
                    }
                    None => break,
                },
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
            if let Flow::Stop(ending) = watch(&progress) {
                end = ending;
                break;
            }
            if past(limits.deadline) {
                end = StreamEnding::Deadline;
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
            StreamEnding::Finished
        } else {
            let progress = Progress {
                content,
                reasoning,
                text_chunks: 1,
                elapsed,
            };
            match watch(&progress) {
                Flow::Stop(ending) => ending,
                Flow::Continue => StreamEnding::Finished,
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
    pub(super) fn read_error(
        &self,
        error: ureq::Error,
        limits: &StreamLimits,
        started: Instant,
    ) -> CallError {
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

/// How much of the start of a body the error of a body that is no event stream quotes (the
/// error keeps less: [`super::errors::excerpt`]).
const HEAD_BYTES: usize = 1024;

/// Whether an answer may be an event stream: its `Content-Type` says so, or it has none. Any
/// other type (`text/html`, `application/json`) is a whole answer.
fn may_be_event_stream(response: &ureq::http::Response<ureq::Body>) -> bool {
    let Some(value) = response.headers().get("content-type") else {
        return true;
    };
    value.to_str().is_ok_and(|value| {
        value
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .eq_ignore_ascii_case("text/event-stream")
    })
}

/// Whether `start`, the first bytes of a body, begins with an event stream's field or comment:
/// a stream a proxy labelled `text/plain` is still read as one.
fn opens_event_stream(start: &[u8]) -> bool {
    [&b"data:"[..], b":", b"event:", b"id:", b"retry:"]
        .iter()
        .any(|field| start.starts_with(field))
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
mod tests {
    use super::*;

    #[test]
    fn only_a_refusal_that_names_streaming_turns_streaming_off() {
        let error = |status, body: &str| {
            CallError::from_failure(TransportFailure::Status {
                status,
                body: body.to_owned(),
                retry_after: None,
            })
        };
        assert!(refuses_streaming(&error(
            400,
            "stream_options is not supported"
        )));
        assert!(refuses_streaming(&error(
            422,
            "Streaming is not available for this model"
        )));
        assert!(!refuses_streaming(&error(
            400,
            "upstream rejected response_format"
        )));
        assert!(!refuses_streaming(&error(500, "stream broke")));
        assert!(!refuses_streaming(&error(400, "invalid grammar")));
    }

    #[test]
    fn the_generation_rate_needs_two_chunks_and_some_time() {
        let timing = Timing {
            first_text: Some(Duration::from_millis(100)),
            generating: Duration::from_secs(2),
            text_chunks: 101,
        };
        assert_eq!(timing.chunks_per_second(), Some(50.0));
        let one = Timing {
            text_chunks: 1,
            ..timing
        };
        assert_eq!(one.chunks_per_second(), None);
    }
}
