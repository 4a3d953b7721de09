//! The proxy's HTTP/1.1 on `std::net`: request heads are parsed by `httparse`, and this module
//! only frames what comes around them, with a bound on everything a client controls.
//!
//! Why not a server crate: `tiny_http` 0.12 (the newest) allocates a request's declared
//! `Content-Length` in one piece when a handler answers without reading the body, so a request
//! that declares a terabyte aborts the whole process (tests/cli/serve_hostile.rs has the
//! request); `astra` buffers up to 16 pieces of a streamed body before it writes any, which
//! would hold an event stream back.
//!
//! Bounds: a head of at most [`MAX_HEAD_BYTES`] and [`MAX_HEADERS`] headers (431 past them), read
//! within [`HEAD_TIMEOUT`] of its first byte; a body of at most the caller's limit (413,
//! refused from the declared length before a byte of it is read); a body sent in chunks is
//! refused (411: OpenAI clients send a length); a client that sends nothing for
//! [`IDLE_TIMEOUT`] is dropped. A connection is kept alive between answers, event streams
//! included, unless the client asks to close it; an answer that breaks off ends it.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::backends::relay::Relayed;
use crate::backends::transport::MASK;

/// The largest request head read.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;

/// The most headers a request may have.
pub const MAX_HEADERS: usize = 100;

/// How long a request head may take to arrive once it has begun.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a connection may stay silent: between requests, or in the middle of a body.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// One request, its body read.
#[derive(Debug)]
pub struct Request {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// The headers, names as sent.
    pub headers: Vec<(String, String)>,
    /// The body.
    pub body: Vec<u8>,
    /// Whether the connection may carry another request after the answer.
    pub keep_alive: bool,
}

impl Request {
    /// A header's value (case-insensitive name).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }
}

/// What was read from a connection instead of a request.
#[derive(Debug)]
pub enum ReadError {
    /// The client closed the connection (or went silent) between requests: nothing to answer.
    Closed,
    /// A request that cannot be taken: answer this status and reason, then close.
    Refuse(u16, String),
}

/// A client connection.
pub struct Connection {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Connection {
    /// Wraps an accepted stream.
    pub fn new(stream: TcpStream) -> io::Result<Connection> {
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(IDLE_TIMEOUT))?;
        let writer = stream.try_clone()?;
        Ok(Connection {
            reader: BufReader::with_capacity(16 * 1024, stream),
            writer,
        })
    }

    /// Reads the next request, its body at most `limit` bytes.
    pub fn read_request(&mut self, limit: u64) -> Result<Request, ReadError> {
        let head = self.read_head()?;
        let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut parsed = httparse::Request::new(&mut headers);
        let length = match parsed.parse(&head) {
            Ok(httparse::Status::Complete(length)) => length,
            Ok(httparse::Status::Partial) => {
                return Err(bad_request("the request head is incomplete"));
            }
            Err(httparse::Error::TooManyHeaders) => {
                return Err(ReadError::Refuse(
                    431,
                    format!("more than {MAX_HEADERS} headers"),
                ));
            }
            Err(error) => return Err(bad_request(&format!("malformed request: {error}"))),
        };
        debug_assert_eq!(length, head.len());
        let method = parsed.method.unwrap_or("").to_owned();
        let target = parsed.path.unwrap_or("");
        let path = target.split('?').next().unwrap_or("").to_owned();
        let version = parsed.version.unwrap_or(1);
        let headers: Vec<(String, String)> = parsed
            .headers
            .iter()
            .map(|header| {
                (
                    header.name.to_owned(),
                    String::from_utf8_lossy(header.value).trim().to_owned(),
                )
            })
            .collect();
        let find = |name: &str| {
            headers
                .iter()
                .find(|(key, _)| key.eq_ignore_ascii_case(name))
                .map(|(_, value)| value.as_str())
        };
        let connection = find("connection").map(str::to_ascii_lowercase);
        let keep_alive = match (version, connection.as_deref()) {
            (_, Some(value)) if value.contains("close") => false,
            (0, Some(value)) => value.contains("keep-alive"),
            (0, None) => false,
            _ => true,
        };
        if find("transfer-encoding").is_some() {
            return Err(ReadError::Refuse(
                411,
                "a body sent in chunks is not taken: send it with a Content-Length".to_owned(),
            ));
        }
        let declared = match find("content-length") {
            None => 0,
            Some(text) => text
                .parse::<u64>()
                .map_err(|_| bad_request("the Content-Length is not a number"))?,
        };
        if declared > limit {
            return Err(ReadError::Refuse(
                413,
                format!("the request body is larger than {limit} bytes"),
            ));
        }
        if find("expect").is_some_and(|value| value.eq_ignore_ascii_case("100-continue")) {
            self.writer
                .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
                .map_err(|_| ReadError::Closed)?;
        }
        // `declared` is at most `limit`, which the caller keeps small.
        let mut body = vec![0; declared as usize];
        self.reader
            .read_exact(&mut body)
            .map_err(|_| ReadError::Closed)?;
        Ok(Request {
            method,
            path,
            headers,
            body,
            keep_alive,
        })
    }

    /// The bytes of one request head, up to and including the blank line, within
    /// [`HEAD_TIMEOUT`] of its first byte however slowly they come.
    fn read_head(&mut self) -> Result<Vec<u8>, ReadError> {
        let mut head: Vec<u8> = Vec::new();
        let mut started: Option<Instant> = None;
        loop {
            if let Some(began) = started {
                let left = HEAD_TIMEOUT
                    .checked_sub(began.elapsed())
                    .filter(|left| !left.is_zero())
                    .ok_or(ReadError::Closed)?;
                let _ = self.reader.get_ref().set_read_timeout(Some(left));
            }
            let available = self.reader.fill_buf().map_err(|_| ReadError::Closed)?;
            if available.is_empty() {
                return Err(ReadError::Closed);
            }
            started.get_or_insert_with(Instant::now);
            let scan_from = head.len().saturating_sub(3);
            head.extend_from_slice(available);
            let taken = available.len();
            // Blank lines before a request line are tolerated (RFC 9112, 2.2).
            let blank = head
                .iter()
                .take_while(|byte| matches!(byte, b'\r' | b'\n'))
                .count();
            let end = if blank == head.len() {
                None
            } else {
                head_end(&head[blank..], scan_from.saturating_sub(blank)).map(|end| end + blank)
            };
            match end {
                Some(end) => {
                    // Give back what belongs to the body.
                    self.reader.consume(taken - (head.len() - end));
                    head.truncate(end);
                    head.drain(..blank);
                    let _ = self.reader.get_ref().set_read_timeout(Some(IDLE_TIMEOUT));
                    return Ok(head);
                }
                None => self.reader.consume(taken),
            }
            if head.len() > MAX_HEAD_BYTES {
                return Err(ReadError::Refuse(
                    431,
                    format!("the request head is larger than {MAX_HEAD_BYTES} bytes"),
                ));
            }
        }
    }

    /// Answers `body` as JSON with `status` and extra headers; returns whether the connection
    /// can carry another request.
    pub fn respond_json(
        &mut self,
        status: u16,
        body: &Value,
        headers: &[(&str, String)],
        keep_alive: bool,
    ) -> bool {
        self.respond_bytes(
            status,
            "application/json",
            body.to_string().as_bytes(),
            headers,
            keep_alive,
        )
    }

    /// Answers `bytes` whole.
    pub fn respond_bytes(
        &mut self,
        status: u16,
        content_type: &str,
        bytes: &[u8],
        headers: &[(&str, String)],
        keep_alive: bool,
    ) -> bool {
        let length = bytes.len().to_string();
        let head = response_head(
            status,
            content_type,
            &[("Content-Length", &length)],
            headers,
            keep_alive,
        );
        let sent = self
            .writer
            .write_all(head.as_bytes())
            .and_then(|()| self.writer.write_all(bytes))
            .and_then(|()| self.writer.flush());
        sent.is_ok() && keep_alive
    }

    fn start_chunked(
        &mut self,
        status: u16,
        content_type: &str,
        headers: &[(&str, String)],
        keep_alive: bool,
    ) -> io::Result<()> {
        let head = response_head(
            status,
            content_type,
            &[
                ("Cache-Control", "no-cache"),
                ("Transfer-Encoding", "chunked"),
            ],
            headers,
            keep_alive,
        );
        self.writer.write_all(head.as_bytes())?;
        self.writer.flush()
    }

    fn piece(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        // One write per piece: with Nagle off, three small writes are three packets.
        let mut framed = format!("{:x}\r\n", bytes.len()).into_bytes();
        framed.extend_from_slice(bytes);
        framed.extend_from_slice(b"\r\n");
        self.writer.write_all(&framed)?;
        self.writer.flush()
    }

    fn end_chunked(&mut self) -> io::Result<()> {
        self.writer.write_all(b"0\r\n\r\n")?;
        self.writer.flush()
    }

    /// Sends the head of a `200` event stream, before there is anything to put in it: its
    /// events follow with [`Connection::send_event`] and [`Connection::send_comment`], and
    /// [`Connection::end_events`] ends it.
    pub fn start_events(&mut self, keep_alive: bool) -> io::Result<()> {
        self.start_chunked(200, "text/event-stream", &[], keep_alive)
    }

    /// Sends one event: `data: DATA` and the blank line that ends it.
    pub fn send_event(&mut self, data: &str) -> io::Result<()> {
        self.piece(format!("data: {data}\n\n").as_bytes())
    }

    /// Sends a comment line (`: TEXT`), which every event-stream reader skips: bytes that
    /// keep a waiting client's read timeout from running out.
    pub fn send_comment(&mut self, text: &str) -> io::Result<()> {
        self.piece(format!(": {text}\n\n").as_bytes())
    }

    /// Ends an event stream; returns whether the connection can carry another request.
    pub fn end_events(&mut self, keep_alive: bool) -> bool {
        self.end_chunked().is_ok() && keep_alive
    }

    /// Relays an upstream 2xx answer as it arrives, each piece written and flushed as it is
    /// read, with `key` masked out (the last bytes of a piece that could begin it are held
    /// back until the next). When the client goes away first, the upstream answer is dropped,
    /// which closes its connection and stops the generation on the server; when the upstream
    /// fails midway, the answer is left without its last chunk and the connection is closed,
    /// so the client sees it is incomplete.
    pub fn respond_relayed(
        &mut self,
        relayed: Relayed,
        key: Option<&str>,
        keep_alive: bool,
    ) -> Result<(), RelayBroken> {
        let Relayed {
            status,
            content_type,
            mut body,
        } = relayed;
        let content_type = content_type.unwrap_or_else(|| "application/json".to_owned());
        self.start_chunked(status, &content_type, &[], keep_alive)
            .map_err(|_| RelayBroken::Client)?;
        let mut masker = Masker::new(key);
        let mut buffer = vec![0; 16 * 1024];
        loop {
            let read = match body.read(&mut buffer) {
                Ok(0) => break,
                Ok(read) => read,
                Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return Err(RelayBroken::Upstream),
            };
            let masked = masker.push(&buffer[..read]);
            self.piece(&masked).map_err(|_| RelayBroken::Client)?;
        }
        let rest = masker.finish();
        self.piece(&rest)
            .and_then(|()| self.end_chunked())
            .map_err(|_| RelayBroken::Client)
    }
}

/// Which side broke off a relayed answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelayBroken {
    /// The client went away (or could not be written to).
    Client,
    /// The upstream failed in the middle of its answer.
    Upstream,
}

/// Replaces a key in bytes that arrive in pieces, so a key split between two pieces is
/// caught too: what could be the start of the key is held back until the next piece.
pub(super) struct Masker<'a> {
    key: Option<&'a [u8]>,
    held: Vec<u8>,
}

impl<'a> Masker<'a> {
    pub fn new(key: Option<&'a str>) -> Masker<'a> {
        Masker {
            key: key.filter(|key| !key.is_empty()).map(str::as_bytes),
            held: Vec::new(),
        }
    }

    /// The next piece, masked, less the tail held back.
    pub fn push(&mut self, piece: &[u8]) -> Vec<u8> {
        let Some(key) = self.key else {
            return piece.to_vec();
        };
        self.held.extend_from_slice(piece);
        let mut out = Vec::with_capacity(self.held.len());
        let mut at = 0;
        while at + key.len() <= self.held.len() {
            if self.held[at..].starts_with(key) {
                out.extend_from_slice(MASK.as_bytes());
                at += key.len();
            } else {
                out.push(self.held[at]);
                at += 1;
            }
        }
        self.held.drain(..at);
        out
    }

    /// What was held back: too short to be the key.
    pub fn finish(self) -> Vec<u8> {
        self.held
    }
}

/// Where the head ends (after its blank line), looking from `from` on.
fn head_end(bytes: &[u8], from: usize) -> Option<usize> {
    (from..bytes.len()).find_map(|at| {
        if bytes[at..].starts_with(b"\r\n\r\n") {
            Some(at + 4)
        } else if bytes[at..].starts_with(b"\n\n") {
            Some(at + 2)
        } else {
            None
        }
    })
}

fn bad_request(message: &str) -> ReadError {
    ReadError::Refuse(400, message.to_owned())
}

/// A response's head: the status line, its type, how its body is framed, whether the
/// connection stays open, the caller's headers, and the blank line.
fn response_head(
    status: u16,
    content_type: &str,
    framing: &[(&str, &str)],
    headers: &[(&str, String)],
    keep_alive: bool,
) -> String {
    let mut head = status_line(status);
    push_header(&mut head, "Content-Type", content_type);
    for (name, value) in framing {
        push_header(&mut head, name, value);
    }
    let connection = if keep_alive { "keep-alive" } else { "close" };
    push_header(&mut head, "Connection", connection);
    for (name, value) in headers {
        push_header(&mut head, name, value);
    }
    head.push_str("\r\n");
    head
}

fn status_line(status: u16) -> String {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        405 => "Method Not Allowed",
        411 => "Length Required",
        413 => "Content Too Large",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    };
    format!("HTTP/1.1 {status} {reason}\r\n")
}

/// Adds a header line; a value with a line break (never one of ours) is left out rather than
/// let it split the head.
fn push_header(head: &mut String, name: &str, value: &str) {
    if !value.contains(['\r', '\n']) && !name.contains(['\r', '\n', ':']) {
        head.push_str(name);
        head.push_str(": ");
        head.push_str(value);
        head.push_str("\r\n");
    }
}
