//! The proxy's side of HTTP on top of `tiny_http`: reading a bounded body, answering JSON, and
//! answering an event stream piece by piece.
//!
//! `tiny_http` buffers a chunked body 8 KiB at a time, which would hold a streamed answer back
//! until 8 KiB of it had come. A stream therefore takes the connection's writer and frames
//! each piece as one chunk itself, flushing it as soon as it is written.

use std::io::{self, Read, Write};

use serde_json::Value;

use crate::backends::forward::Relayed;

/// Why a body was not read.
#[derive(Debug)]
pub enum BodyError {
    /// Larger than the limit (declared, or found while reading).
    TooLarge,
    /// The client went away or sent a broken body.
    Io,
}

/// The request's body, at most `limit` bytes: a declared length above it is refused before a
/// byte is read.
pub fn read_body(request: &mut tiny_http::Request, limit: u64) -> Result<Vec<u8>, BodyError> {
    if request
        .body_length()
        .is_some_and(|length| length as u64 > limit)
    {
        return Err(BodyError::TooLarge);
    }
    let mut body = Vec::new();
    request
        .as_reader()
        .take(limit + 1)
        .read_to_end(&mut body)
        .map_err(|_| BodyError::Io)?;
    if body.len() as u64 > limit {
        return Err(BodyError::TooLarge);
    }
    Ok(body)
}

fn header(name: &str, value: &str) -> Option<tiny_http::Header> {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

/// Answers `body` as JSON with `status` and extra headers. A client that went away is not an
/// error: there is nobody to tell.
pub fn respond_json(
    request: tiny_http::Request,
    status: u16,
    body: &Value,
    headers: &[(&str, String)],
) {
    let mut response =
        tiny_http::Response::from_data(body.to_string().into_bytes()).with_status_code(status);
    response.add_header(header("Content-Type", "application/json").expect("a valid header"));
    for (name, value) in headers {
        if let Some(header) = header(name, value) {
            response.add_header(header);
        }
    }
    let _ = request.respond(response);
}

/// [`respond_json`], then the connection is closed: what follows on it (the rest of a body
/// that was not read) is not a request.
pub fn respond_json_closing(request: tiny_http::Request, status: u16, body: &Value) {
    respond_json(request, status, body, &[("Connection", "close".to_owned())]);
}

/// Answers `bytes` with `status` and the upstream's content type.
pub fn respond_bytes(
    request: tiny_http::Request,
    status: u16,
    content_type: Option<&str>,
    bytes: &[u8],
) {
    let mut response = tiny_http::Response::from_data(bytes.to_vec()).with_status_code(status);
    if let Some(header) = header("Content-Type", content_type.unwrap_or("application/json")) {
        response.add_header(header);
    }
    let _ = request.respond(response);
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        _ => "OK",
    }
}

/// A chunked answer written straight to the connection, each piece flushed as it is written.
struct ChunkedWriter {
    inner: Box<dyn Write + Send>,
}

impl ChunkedWriter {
    fn start(
        request: tiny_http::Request,
        status: u16,
        content_type: &str,
        headers: &[(&str, String)],
    ) -> io::Result<ChunkedWriter> {
        let mut inner = request.into_writer();
        let mut head = format!(
            "HTTP/1.1 {status} {}\r\nContent-Type: {content_type}\r\nCache-Control: no-cache\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n",
            reason(status)
        );
        for (name, value) in headers {
            // Header values here are ours (the meta): no line breaks, but never trust that.
            if !value.contains(['\r', '\n']) {
                head.push_str(&format!("{name}: {value}\r\n"));
            }
        }
        head.push_str("\r\n");
        inner.write_all(head.as_bytes())?;
        inner.flush()?;
        Ok(ChunkedWriter { inner })
    }

    fn piece(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        write!(self.inner, "{:x}\r\n", bytes.len())?;
        self.inner.write_all(bytes)?;
        self.inner.write_all(b"\r\n")?;
        self.inner.flush()
    }

    fn end(mut self) -> io::Result<()> {
        self.inner.write_all(b"0\r\n\r\n")?;
        self.inner.flush()
    }
}

/// Answers `chunks` as server-sent events, each a `data:` line, then `data: [DONE]`.
pub fn respond_events(request: tiny_http::Request, chunks: &[Value], headers: &[(&str, String)]) {
    let sent = (|| -> io::Result<()> {
        let mut writer = ChunkedWriter::start(request, 200, "text/event-stream", headers)?;
        for chunk in chunks {
            writer.piece(format!("data: {chunk}\n\n").as_bytes())?;
        }
        writer.piece(b"data: [DONE]\n\n")?;
        writer.end()
    })();
    // A client that left has nobody to tell.
    drop(sent);
}

/// Relays an upstream 2xx answer as it arrives, piece by piece. Returns whether it was sent
/// to the end; when the client goes away first, the upstream connection is dropped too, which
/// stops the generation on the server.
pub fn respond_relayed(request: tiny_http::Request, relayed: Relayed) -> bool {
    let Relayed {
        status,
        content_type,
        mut body,
    } = relayed;
    let content_type = content_type.unwrap_or_else(|| "application/json".to_owned());
    let Ok(mut writer) = ChunkedWriter::start(request, status, &content_type, &[]) else {
        return false;
    };
    let mut buffer = vec![0; 16 * 1024];
    loop {
        let read = match body.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            // The upstream failed mid-answer: the body is left without its last chunk, and
            // closing the connection tells the client it is incomplete.
            Err(_) => return false,
        };
        if writer.piece(&buffer[..read]).is_err() {
            return false;
        }
    }
    writer.end().is_ok()
}
