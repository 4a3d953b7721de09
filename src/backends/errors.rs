//! Failed calls: the six error classes, [`classify`], and [`CallError`], the one error type every
//! request returns.
//!
//! The classes decide what happens next: `transient`
//! (connection failure, 5xx) and `rate_limited` (429 or a `Retry-After`) are retried;
//! `permanent` (400, 401, 403, 404, 413, 422, and a failed TLS handshake: [`TlsFailure`]),
//! `context_overflow` (a 400 that says the context was exceeded), `canceled` (deadline or
//! cancellation) and `unknown` are not. A CallError never
//! holds the API key: bodies are excerpted after the key is masked, and the request (with its
//! header) is never kept. Uses nothing else in the crate.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

/// How a failed call is handled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorClass {
    /// A connection failure or a 5xx: retried (a local server that is loading refuses
    /// connections for a few seconds).
    Transient,
    /// 429, or any answer with `Retry-After`: retried, honouring the hint.
    RateLimited,
    /// 400, 401, 403, 404, 413, 422, or a TLS handshake that failed: not retried; retrying
    /// burns a prefill, or meets the same server with the same certificate, for nothing.
    Permanent,
    /// The input does not fit the context window: not retried; shrink it or raise the window.
    ContextOverflow,
    /// The deadline passed or the call was cancelled: not retried.
    Canceled,
    /// Anything else: not retried, so a broken request surfaces instead of being replayed.
    Unknown,
}

impl ErrorClass {
    /// The class's name, as in `--json` output.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorClass::Transient => "transient",
            ErrorClass::RateLimited => "rate_limited",
            ErrorClass::Permanent => "permanent",
            ErrorClass::ContextOverflow => "context_overflow",
            ErrorClass::Canceled => "canceled",
            ErrorClass::Unknown => "unknown",
        }
    }

    /// Whether the retry policy retries this class.
    pub const fn is_retried(self) -> bool {
        matches!(self, ErrorClass::Transient | ErrorClass::RateLimited)
    }
}

impl fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What went wrong with one HTTP exchange, before classification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransportFailure {
    /// The server answered with a non-2xx status.
    Status {
        /// The HTTP status.
        status: u16,
        /// The body (already masked of the key).
        body: String,
        /// The parsed `Retry-After` hint, if any.
        retry_after: Option<Duration>,
    },
    /// No connection: reset, unreachable, name not resolved.
    Connection(String),
    /// The connection was refused: nothing listens on the port (a server that is loading its
    /// model has bound it already on the engines slmcode serves, and answers 503).
    Refused(String),
    /// A connection, but no TLS session on it.
    Tls(TlsFailure),
    /// A timeout or the caller's deadline.
    TimedOut(String),
    /// The answer was larger than the response size cap.
    TooLarge(u64),
    /// A 2xx answer that is not a chat completion, or an HTTP protocol error.
    Malformed(String),
}

/// Why a TLS handshake failed, as far as it tells what to fix. Every one is permanent: the
/// same port, or the same certificate, fails the same way on the next try.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TlsFailure {
    /// What came back is not TLS: an `https://` endpoint on a port that speaks plain HTTP (as
    /// local engines do by default).
    NotTls,
    /// The certificate is self-signed, or issued by an authority outside the roots slmcode
    /// trusts (the public ones built into it, not the system's store).
    UntrustedCertificate,
    /// The certificate is refused for another reason (expired, issued for another name,
    /// revoked), as the TLS library words it.
    InvalidCertificate(String),
    /// Any other failure of the handshake, as the TLS library words it.
    Handshake(String),
}

impl TlsFailure {
    /// What to do about it, in a sentence without commands (the CLI adds those).
    pub fn remedy(&self) -> &'static str {
        match self {
            TlsFailure::NotTls => {
                "if the server speaks plain HTTP (local engines do by default), write the \
                 endpoint with http://"
            }
            TlsFailure::UntrustedCertificate => {
                "slmcode trusts only the public certificate authorities built into it (Mozilla's \
                 list), not the system's certificate store: give the server a certificate from \
                 one of them, or reach a server on this machine over http://"
            }
            TlsFailure::InvalidCertificate(_) => {
                "renew or reissue the server's certificate for the name in the endpoint (and \
                 check this machine's clock)"
            }
            TlsFailure::Handshake(_) => {
                "check that the endpoint's port serves TLS, or reach a server on this machine \
                 over http://"
            }
        }
    }
}

impl fmt::Display for TlsFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TLS failed: ")?;
        match self {
            TlsFailure::NotTls => {
                f.write_str("the server on that port does not speak TLS (a plain-HTTP server?)")
            }
            TlsFailure::UntrustedCertificate => f.write_str(
                "the server's certificate is not trusted (self-signed, or issued by an \
                 authority slmcode does not know)",
            ),
            TlsFailure::InvalidCertificate(reason) => {
                write!(f, "the server's certificate is refused: {reason}")
            }
            TlsFailure::Handshake(reason) => f.write_str(reason),
        }
    }
}

/// Substrings that mean "the context window was exceeded", as engines actually send them:
/// OpenAI `code: context_length_exceeded` / "This model's maximum context length is N tokens";
/// vLLM the same sentence (400 BadRequestError, vllm-project/vllm#20409); llama-server
/// `type: exceed_context_size_error`, "the request exceeds the available context size"
/// (ggml-org/llama.cpp#15780, 400 since #16486; older builds: 500 "Context size has been
/// exceeded", llama.cpp#19774); Ollama passes llama-server's error through (ollama#16800);
/// llama-cpp-python "Requested tokens (N) exceed context window of M".
const CONTEXT_OVERFLOW_MARKERS: [&str; 7] = [
    "context_length_exceeded",
    "maximum context length",
    "exceed_context_size_error",
    "exceeds the available context size",
    "context size has been exceeded",
    "exceed context window",
    "is too long and exceeds limit",
];

/// Whether an error body says the context window was exceeded.
pub fn is_context_overflow(body: &str) -> bool {
    let lowered = body.to_ascii_lowercase();
    CONTEXT_OVERFLOW_MARKERS
        .iter()
        .any(|marker| lowered.contains(marker))
}

/// The class of a failure (see [`ErrorClass`]). A context-overflow message wins over its
/// status: besides the usual 400, older llama-server and llama-cpp-python send it
/// with 500, and retrying that would re-run the same prefill for nothing.
pub fn classify(failure: &TransportFailure) -> ErrorClass {
    match failure {
        TransportFailure::Status {
            status,
            body,
            retry_after,
        } => {
            if matches!(status, 400 | 413 | 422 | 500) && is_context_overflow(body) {
                ErrorClass::ContextOverflow
            } else if *status == 429 || retry_after.is_some() {
                ErrorClass::RateLimited
            } else if (500..=599).contains(status) {
                ErrorClass::Transient
            } else if matches!(status, 400 | 401 | 403 | 404 | 413 | 422) {
                ErrorClass::Permanent
            } else {
                ErrorClass::Unknown
            }
        }
        TransportFailure::Connection(_) | TransportFailure::Refused(_) => ErrorClass::Transient,
        TransportFailure::Tls(_) => ErrorClass::Permanent,
        TransportFailure::TimedOut(_) => ErrorClass::Canceled,
        TransportFailure::TooLarge(_) | TransportFailure::Malformed(_) => ErrorClass::Unknown,
    }
}

/// How many characters of a body an error keeps.
pub const BODY_EXCERPT_CHARS: usize = 300;

/// The first [`BODY_EXCERPT_CHARS`] characters of `body` on one line, whitespace collapsed.
pub fn excerpt(body: &str) -> String {
    excerpt_chars(body, BODY_EXCERPT_CHARS)
}

/// The first `limit` characters of `text` on one line, with `...` when cut.
pub fn excerpt_chars(text: &str, limit: usize) -> String {
    let collapsed: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= limit {
        collapsed
    } else {
        let cut: String = collapsed.chars().take(limit).collect();
        format!("{cut}...")
    }
}

/// A failed call: its class, the status and a short body excerpt when the server answered, the
/// server's `Retry-After` hint, and how many attempts were made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub struct CallError {
    /// How the failure is handled.
    pub class: ErrorClass,
    /// The HTTP status, when the server answered.
    pub status: Option<u16>,
    /// A short excerpt of the answer's body (or of the transport error), never the key.
    pub detail: String,
    /// The server's `Retry-After` hint.
    pub retry_after: Option<Duration>,
    /// How many attempts were made before giving up (1 when not retried).
    pub attempts: u32,
    /// The TLS failure, when that is what it was (the detail says it too; this says what to
    /// fix: [`TlsFailure::remedy`]).
    pub tls: Option<TlsFailure>,
    /// Whether the connection was refused: nothing listens at the endpoint (start the server,
    /// or fix the port). Retried only for a short grace (`REFUSED_GRACE`).
    pub refused: bool,
    /// For a refused connection, when the endpoint began refusing in this process (the
    /// transport's `refusing_since`): the grace runs
    /// from then, so a probe and the call after it share one.
    pub refusing_since: Option<std::time::Instant>,
}

impl CallError {
    /// Classifies a failure into an error (one attempt so far).
    pub fn from_failure(failure: TransportFailure) -> CallError {
        let class = classify(&failure);
        let tls = match &failure {
            TransportFailure::Tls(tls) => Some(tls.clone()),
            _ => None,
        };
        let refused = matches!(failure, TransportFailure::Refused(_));
        let (status, detail, retry_after) = match failure {
            TransportFailure::Status {
                status,
                body,
                retry_after,
            } => (Some(status), excerpt(&body), retry_after),
            TransportFailure::Connection(detail) | TransportFailure::Refused(detail) => {
                (None, excerpt(&detail), None)
            }
            TransportFailure::Tls(tls) => (None, excerpt(&tls.to_string()), None),
            TransportFailure::TimedOut(detail) => (None, excerpt(&detail), None),
            TransportFailure::TooLarge(limit) => (
                None,
                format!("the answer was larger than the {limit}-byte limit"),
                None,
            ),
            TransportFailure::Malformed(detail) => (None, excerpt(&detail), None),
        };
        CallError {
            class,
            status,
            detail,
            retry_after,
            attempts: 1,
            tls,
            refused,
            refusing_since: None,
        }
    }

    /// Whether the server said it is loading: a 503 whose body says so, as llama-server's
    /// `Loading model` does from the moment it binds its port until the model is in memory.
    /// Worth waiting for within the call's deadline. Any 503 is transient and never evidence
    /// against a field, but an overloaded server (`overloaded`, `busy`) gets the retry policy's
    /// attempts, not a deadline's worth of polls.
    pub fn is_loading(&self) -> bool {
        self.status == Some(503) && self.detail.to_ascii_lowercase().contains("loading")
    }
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.status {
            Some(status) => write!(f, "{} error: HTTP {status}: {}", self.class, self.detail)?,
            None => write!(f, "{} error: {}", self.class, self.detail)?,
        }
        if self.attempts > 1 {
            write!(f, " (after {} attempts)", self.attempts)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(status: u16, body: &str) -> ErrorClass {
        classify(&TransportFailure::Status {
            status,
            body: body.to_owned(),
            retry_after: None,
        })
    }

    #[test]
    fn every_listed_status_has_its_class() {
        for code in [500, 502, 503, 504] {
            assert_eq!(status(code, "busy"), ErrorClass::Transient, "{code}");
        }
        assert_eq!(status(429, "slow down"), ErrorClass::RateLimited);
        for code in [400, 401, 403, 404, 413, 422] {
            assert_eq!(status(code, "no"), ErrorClass::Permanent, "{code}");
        }
        for code in [301, 405, 409, 418] {
            assert_eq!(status(code, "?"), ErrorClass::Unknown, "{code}");
        }
        let hinted = TransportFailure::Status {
            status: 503,
            body: String::new(),
            retry_after: Some(Duration::from_secs(2)),
        };
        assert_eq!(classify(&hinted), ErrorClass::RateLimited);
    }

    #[test]
    fn connection_refused_is_transient_tls_permanent_and_timeouts_canceled() {
        assert_eq!(
            classify(&TransportFailure::Connection("connection reset".to_owned())),
            ErrorClass::Transient
        );
        let refused =
            CallError::from_failure(TransportFailure::Refused("connection refused".to_owned()));
        assert_eq!(refused.class, ErrorClass::Transient);
        assert!(refused.refused && !refused.is_loading());
        let loading = CallError::from_failure(TransportFailure::Status {
            status: 503,
            body: r#"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#
                .to_owned(),
            retry_after: None,
        });
        assert!(loading.is_loading() && !loading.refused);
        let overloaded = CallError::from_failure(TransportFailure::Status {
            status: 503,
            body: r#"{"error":{"message":"The engine is currently overloaded"}}"#.to_owned(),
            retry_after: None,
        });
        assert!(!overloaded.is_loading());
        assert_eq!(
            classify(&TransportFailure::TimedOut("deadline".to_owned())),
            ErrorClass::Canceled
        );
        assert_eq!(
            classify(&TransportFailure::TooLarge(10)),
            ErrorClass::Unknown
        );
        for tls in [
            TlsFailure::NotTls,
            TlsFailure::UntrustedCertificate,
            TlsFailure::InvalidCertificate("expired".to_owned()),
            TlsFailure::Handshake("received fatal alert: HandshakeFailure".to_owned()),
        ] {
            let error = CallError::from_failure(TransportFailure::Tls(tls.clone()));
            assert_eq!(error.class, ErrorClass::Permanent, "{tls}");
            assert!(error.detail.starts_with("TLS failed: "), "{error}");
            assert_eq!(error.tls, Some(tls));
        }
        assert_eq!(
            classify(&TransportFailure::Malformed("not json".to_owned())),
            ErrorClass::Unknown
        );
    }

    #[test]
    fn context_overflow_messages_engines_send() {
        // OpenAI (and DeepSeek, which copies it).
        let openai = r#"{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#;
        // vLLM.
        let vllm = r#"{"object":"error","message":"This model's maximum context length is 6048 tokens. However, you requested 6616 tokens (568 in the messages, 6048 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}"#;
        // llama-server, current.
        let llama = r#"{"error":{"code":400,"message":"request (4390 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4390,"n_ctx":4096}}"#;
        // Ollama passing llama-server's error through.
        let ollama = r#"{"error":"{\"error\":{\"code\":400,\"message\":\"request (351 tokens) exceeds the available context size (256 tokens), try increasing it\",\"type\":\"exceed_context_size_error\"}}"}"#;
        for body in [openai, vllm, llama, ollama] {
            assert_eq!(status(400, body), ErrorClass::ContextOverflow, "{body}");
        }
        // Older llama-server and llama-cpp-python answer 500.
        let old_llama = r#"{"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}"#;
        assert_eq!(status(500, old_llama), ErrorClass::ContextOverflow);
        let python = "Requested tokens (2285) exceed context window of 2048";
        assert_eq!(status(500, python), ErrorClass::ContextOverflow);
        // A 400 about something else stays permanent.
        assert_eq!(
            status(
                400,
                r#"{"error":{"message":"Unrecognized request argument supplied: grammar"}}"#
            ),
            ErrorClass::Permanent
        );
    }

    #[test]
    fn errors_render_with_class_status_and_excerpt() {
        let error = CallError::from_failure(TransportFailure::Status {
            status: 400,
            body: format!("bad\n  request {}", "x".repeat(400)),
            retry_after: None,
        });
        let text = error.to_string();
        assert!(
            text.starts_with("permanent error: HTTP 400: bad request xxx"),
            "{text}"
        );
        assert!(text.ends_with("..."), "{text}");
        assert!(text.len() < 400);
    }

    #[test]
    fn only_transient_and_rate_limited_are_retried() {
        let retried: Vec<ErrorClass> = [
            ErrorClass::Transient,
            ErrorClass::RateLimited,
            ErrorClass::Permanent,
            ErrorClass::ContextOverflow,
            ErrorClass::Canceled,
            ErrorClass::Unknown,
        ]
        .into_iter()
        .filter(|class| class.is_retried())
        .collect();
        assert_eq!(retried, [ErrorClass::Transient, ErrorClass::RateLimited]);
    }
}
