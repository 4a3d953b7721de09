//! Transport: one chat-completions exchange over `ureq`, and the small GETs a fingerprint needs.
//!
//! [`Client`] sends the body [`build_body`] makes with a timeout and a response size cap, the
//! key only in the auth header, and reads the answer with [`parse_chat_response`] (both in
//! [`super::chat`]). Failures come back as a classified
//! [`CallError`]; the key is masked out of every body excerpt and never appears in Debug output.
//! Retrying is [`RetryPolicy`](super::retry::RetryPolicy)'s job, not this module's.

use std::fmt;
use std::io::ErrorKind;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use crate::config::Secret;
use crate::schema::Constraint;

use super::capabilities::GuidedField;
use super::chat::{ChatRequest, ChatResponse, build_body, parse_chat_response};
use super::errors::{CallError, TlsFailure, TransportFailure};
use super::presets::AuthHeader;
use super::time::parse_http_date;
use crate::config::endpoint::Endpoint;

/// What stands in for the key wherever a server echoed it.
pub(crate) const MASK: &str = "<redacted>";

/// The default response size cap: 8 MiB is far above any structured answer and far below
/// anything that would hurt.
pub const DEFAULT_MAX_RESPONSE_BYTES: u64 = 8 * 1024 * 1024;

/// Parses `Retry-After`: delta-seconds or an HTTP date (a date in the past means now).
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let when = parse_http_date(value)?;
    Some(
        when.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

/// Sends requests to one endpoint. Cloning is cheap (the connection pool is shared).
#[derive(Clone)]
pub struct Client {
    agent: ureq::Agent,
    endpoint: Endpoint,
    auth: AuthHeader,
    key: Option<Secret>,
    max_response_bytes: u64,
    /// Whether chat requests ask for an event stream; cleared for good (for every clone) when
    /// the server refuses to stream.
    streaming: Arc<AtomicBool>,
    /// Sampling fields the server refused by name (a proxy that checks fields): never sent
    /// again by any clone.
    refused_sampling: Arc<Mutex<Vec<String>>>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("endpoint", &self.endpoint.to_string())
            .field("auth", &self.auth)
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .field("max_response_bytes", &self.max_response_bytes)
            .field("streaming", &self.streams())
            .finish()
    }
}

impl Client {
    /// A client for `endpoint`, sending `key` (if any) the way `auth` says.
    pub fn new(endpoint: Endpoint, auth: AuthHeader, key: Option<Secret>) -> Client {
        let agent = ureq::Agent::config_builder()
            // Statuses are answers to classify, not transport errors.
            .http_status_as_error(false)
            // A POST is never replayed to another host with our key.
            .max_redirects(0)
            .user_agent(concat!("slmcode/", env!("CARGO_PKG_VERSION")))
            .build()
            .new_agent();
        Client {
            agent,
            endpoint,
            auth,
            key: key.filter(|key| !key.expose().is_empty()),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            streaming: Arc::new(AtomicBool::new(true)),
            refused_sampling: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// The same client, asking for whole answers instead of event streams.
    pub fn without_streaming(self) -> Client {
        self.streaming.store(false, Ordering::Relaxed);
        self
    }

    /// Whether chat requests ask for an event stream (see [`Client::chat_stream`]).
    pub fn streams(&self) -> bool {
        self.streaming.load(Ordering::Relaxed)
    }

    /// Stops asking for event streams, on every clone of this client.
    pub(super) fn stop_streaming(&self) {
        self.streaming.store(false, Ordering::Relaxed);
    }

    /// `request` without the sampling and thinking fields this server refused.
    pub(super) fn accepted_sampling(&self, request: &ChatRequest) -> Option<ChatRequest> {
        let refused = self.refused();
        if !request
            .sampling
            .keys()
            .chain(request.thinking.keys())
            .any(|field| refused.contains(field))
        {
            return None;
        }
        let mut accepted = request.clone();
        accepted
            .sampling
            .retain(|field, _| !refused.contains(field));
        accepted
            .thinking
            .retain(|field, _| !refused.contains(field));
        Some(accepted)
    }

    /// When a rejection names one of the sampling fields of `request`, records them all as
    /// refused (a server that checks fields and refuses one penalty refuses the others too);
    /// when it names a thinking field, records that one. Says whether it recorded anything.
    pub(super) fn refuse_sampling(&self, request: &ChatRequest, error: &CallError) -> bool {
        if !matches!(error.status, Some(400 | 422)) {
            return false;
        }
        let named = |field: &String| error.detail.contains(field.as_str());
        let mut newly: Vec<String> = Vec::new();
        if request.sampling.keys().any(named) {
            newly.extend(request.sampling.keys().cloned());
        }
        newly.extend(
            request
                .thinking
                .keys()
                .filter(|field| named(field))
                .cloned(),
        );
        if newly.is_empty() {
            return false;
        }
        self.learn_refusals(&newly, false);
        true
    }

    /// What this client learned the server refuses: sampling fields, and streaming.
    pub fn refusals(&self) -> (Vec<String>, bool) {
        (self.refused(), !self.streams())
    }

    /// Stops sending `fields`, and stops asking for streams when `streaming` is refused: what
    /// an earlier client learned about the same server.
    pub fn learn_refusals(&self, fields: &[String], refuses_streaming: bool) {
        let mut refused = self
            .refused_sampling
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for field in fields {
            if !refused.contains(field) {
                refused.push(field.clone());
            }
        }
        if refuses_streaming {
            self.stop_streaming();
        }
    }

    fn refused(&self) -> Vec<String> {
        self.refused_sampling
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// The response size cap.
    pub(super) fn max_response_bytes(&self) -> u64 {
        self.max_response_bytes
    }

    /// The agent requests go through.
    pub(super) fn agent(&self) -> &ureq::Agent {
        &self.agent
    }

    /// The same client with another response size cap.
    pub fn with_max_response_bytes(mut self, limit: u64) -> Client {
        self.max_response_bytes = limit;
        self
    }

    /// The endpoint this client talks to.
    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// Sends one chat-completions request (no retry) with `timeout` for the whole exchange,
    /// without the sampling and thinking fields the server refused; a rejection that names one
    /// is sent again without it, like a streamed exchange.
    pub fn chat(
        &self,
        request: &ChatRequest,
        constraint: &Constraint,
        guided_field: GuidedField,
        timeout: Duration,
    ) -> Result<ChatResponse, CallError> {
        if let Some(accepted) = self.accepted_sampling(request) {
            return self.chat(&accepted, constraint, guided_field, timeout);
        }
        let started = Instant::now();
        let body = build_body(request, constraint, guided_field);
        let value = match self.post_json(&self.endpoint.chat_url(), &body, timeout) {
            Ok(value) => value,
            // A field the server does not take is dropped, not a reason to fail (and not a
            // rejection of the constrained field, which the probe would record).
            Err(error) if self.refuse_sampling(request, &error) => {
                let left = timeout.saturating_sub(started.elapsed());
                if left.is_zero() {
                    return Err(error);
                }
                return self.chat(request, constraint, guided_field, left);
            }
            Err(error) => return Err(error),
        };
        parse_chat_response(&value)
            .map_err(|detail| CallError::from_failure(TransportFailure::Malformed(detail)))
    }

    /// POSTs `body` to `url` and returns the JSON answer of a 2xx.
    pub fn post_json(
        &self,
        url: &str,
        body: &Value,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        let bytes = serde_json::to_vec(body).unwrap_or_default();
        let request = self
            .agent
            .post(url)
            .config()
            .timeout_global(Some(timeout))
            .build()
            .content_type("application/json");
        let request = self.authorize_post(request);
        self.finish(request.send(&bytes[..]), timeout)
    }

    /// GETs `url` and returns the JSON answer of a 2xx.
    pub fn get_json(&self, url: &str, timeout: Duration) -> Result<Value, CallError> {
        let request = self
            .agent
            .get(url)
            .config()
            .timeout_global(Some(timeout))
            .build();
        let request = self.authorize_get(request);
        self.finish(request.call(), timeout)
    }

    pub(super) fn authorize_get(
        &self,
        request: ureq::RequestBuilder<ureq::typestate::WithoutBody>,
    ) -> ureq::RequestBuilder<ureq::typestate::WithoutBody> {
        match (&self.key, self.auth) {
            (Some(key), AuthHeader::Bearer) => {
                request.header("Authorization", format!("Bearer {}", key.expose()))
            }
            (Some(key), AuthHeader::AzureApiKey) => request.header("api-key", key.expose()),
            (None, _) => request,
        }
    }

    pub(super) fn authorize_post(
        &self,
        request: ureq::RequestBuilder<ureq::typestate::WithBody>,
    ) -> ureq::RequestBuilder<ureq::typestate::WithBody> {
        match (&self.key, self.auth) {
            (Some(key), AuthHeader::Bearer) => {
                request.header("Authorization", format!("Bearer {}", key.expose()))
            }
            (Some(key), AuthHeader::AzureApiKey) => request.header("api-key", key.expose()),
            (None, _) => request,
        }
    }

    fn finish(
        &self,
        sent: Result<ureq::http::Response<ureq::Body>, ureq::Error>,
        timeout: Duration,
    ) -> Result<Value, CallError> {
        let mut response = sent.map_err(|error| self.transport_error(error, timeout))?;
        let status = response.status().as_u16();
        if !(200..300).contains(&status) {
            return Err(self.status_error(&mut response, timeout));
        }
        let bytes = response
            .body_mut()
            .with_config()
            .limit(self.max_response_bytes)
            .read_to_vec()
            .map_err(|error| self.transport_error(error, timeout))?;
        // A server that echoes the key (in an error, a model list, a proxy's reply) must not
        // put it into anything slmcode prints or caches: every body is read masked.
        let text = self.mask(&String::from_utf8_lossy(&bytes));
        serde_json::from_str(&text).map_err(|error| {
            CallError::from_failure(TransportFailure::Malformed(format!(
                "HTTP {status} but the body is not JSON ({error}): {text}"
            )))
        })
    }

    /// The error of a non-2xx answer: its status, its (masked) body and its `Retry-After`.
    pub(super) fn status_error(
        &self,
        response: &mut ureq::http::Response<ureq::Body>,
        timeout: Duration,
    ) -> CallError {
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|value| value.to_str().ok())
            .and_then(parse_retry_after);
        let bytes = match response
            .body_mut()
            .with_config()
            .limit(self.max_response_bytes)
            .read_to_vec()
        {
            Ok(bytes) => bytes,
            Err(error) => return self.transport_error(error, timeout),
        };
        CallError::from_failure(TransportFailure::Status {
            status,
            body: self.mask(&String::from_utf8_lossy(&bytes)),
            retry_after,
        })
    }

    pub(super) fn transport_error(&self, error: ureq::Error, timeout: Duration) -> CallError {
        if let Some(tls) = tls_failure(&error) {
            return CallError::from_failure(TransportFailure::Tls(tls));
        }
        let failure = match error {
            ureq::Error::Timeout(_) => TransportFailure::TimedOut(format!(
                "no answer within {:.1} s",
                timeout.as_secs_f64()
            )),
            ureq::Error::BodyExceedsLimit(limit) => TransportFailure::TooLarge(limit),
            ureq::Error::Io(io) if io.kind() == ErrorKind::TimedOut => TransportFailure::TimedOut(
                format!("no answer within {:.1} s", timeout.as_secs_f64()),
            ),
            ureq::Error::Io(io) if io.kind() == ErrorKind::ConnectionRefused => {
                TransportFailure::Refused(self.mask(&io.to_string()))
            }
            ureq::Error::Io(io) => TransportFailure::Connection(self.mask(&io.to_string())),
            ureq::Error::HostNotFound => TransportFailure::Connection("host not found".to_owned()),
            ureq::Error::ConnectionFailed => {
                TransportFailure::Connection("connection failed".to_owned())
            }
            other => TransportFailure::Malformed(self.mask(&other.to_string())),
        };
        self.classified(failure)
    }

    /// The error of `failure`; a refused connection carries when this endpoint began refusing.
    pub(super) fn classified(&self, failure: TransportFailure) -> CallError {
        let mut error = CallError::from_failure(failure);
        if error.refused {
            error.refusing_since = Some(super::retry::refusing_since(&self.endpoint.to_string()));
        }
        error
    }

    /// `text` with the key replaced by `<redacted>`, in case a server echoes it back: for
    /// anything from upstream that is shown to someone else.
    pub(crate) fn mask(&self, text: &str) -> String {
        match self.masked_key() {
            Some(key) => text.replace(key, MASK),
            None => text.to_owned(),
        }
    }

    /// The key [`Client::mask`] replaces, for a caller that masks bytes as they stream by:
    /// none when there is no key or it is too short to tell from ordinary text.
    pub(crate) fn masked_key(&self) -> Option<&str> {
        self.key
            .as_ref()
            .map(|key| key.expose())
            .filter(|key| key.len() >= 4)
    }
}

/// The TLS failure behind a failed exchange, if that is what it was: the one place a TLS
/// failure is told from a failure to connect, for whole answers and streams alike. rustls
/// reports through an `io::Error`, which ureq may wrap in its own error, and its body reader in
/// another `io::Error`; the chain is followed down to rustls' error.
pub(super) fn tls_failure(error: &(dyn std::error::Error + 'static)) -> Option<TlsFailure> {
    if let Some(tls) = error.downcast_ref::<rustls::Error>() {
        return Some(tls_failure_of(tls));
    }
    if let Some(io) = error.downcast_ref::<std::io::Error>() {
        return tls_failure(io.get_ref()?);
    }
    match error.downcast_ref::<ureq::Error>()? {
        ureq::Error::Rustls(tls) => Some(tls_failure_of(tls)),
        ureq::Error::Io(io) => tls_failure(io.get_ref()?),
        _ => None,
    }
}

fn tls_failure_of(error: &rustls::Error) -> TlsFailure {
    use rustls::{CertificateError, InvalidMessage};
    match error {
        // The first record's type is not one TLS has: the bytes are something else, most
        // likely an HTTP answer ("HTTP/1.1 400 ...") from a plain-HTTP port.
        rustls::Error::InvalidMessage(InvalidMessage::InvalidContentType) => TlsFailure::NotTls,
        // `Other` is what webpki's refusals rustls has no name for become; the one a
        // self-signed certificate meets first is "CA used as end entity".
        rustls::Error::InvalidCertificate(
            CertificateError::UnknownIssuer
            | CertificateError::BadSignature
            | CertificateError::Other(_),
        ) => TlsFailure::UntrustedCertificate,
        rustls::Error::InvalidCertificate(other) => {
            TlsFailure::InvalidCertificate(other.to_string())
        }
        other => TlsFailure::Handshake(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    //! `Retry-After`, the key kept out of everything but the auth header, TLS failures told
    //! apart, and sampling fields the server refuses.

    use serde_json::json;

    use super::*;
    use crate::backends::ErrorClass;
    use crate::backends::tests::request;

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        assert_eq!(parse_retry_after("3"), Some(Duration::from_secs(3)));
        assert_eq!(
            parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon"), None);
    }

    /// A one-shot server on 127.0.0.1 that answers every request with `answer(key)`, where
    /// `key` is the Authorization header it received.
    fn echoing_server(answer: fn(&str) -> String) -> String {
        use std::io::{BufRead, BufReader, Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}/v1", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming().take(2) {
                let mut stream = stream.unwrap();
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let (mut auth, mut length) = (String::new(), 0);
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some((name, value)) = line.split_once(": ") {
                        match name.to_ascii_lowercase().as_str() {
                            "authorization" => auth = value.to_owned(),
                            "content-length" => length = value.parse().unwrap(),
                            _ => {}
                        }
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                let reply = answer(&auth);
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reply}",
                    reply.len()
                );
            }
        });
        base
    }

    #[test]
    fn a_key_the_server_echoes_is_masked_in_answers_too() {
        let base = echoing_server(|auth| {
            json!({"data": [{"id": format!("model-for-{auth}")}],
            "choices": [{"message": {"content": format!("your key is {auth}")}, "finish_reason": "stop"}]})
        .to_string()
        });
        let endpoint =
            crate::config::endpoint::normalize_endpoint(crate::config::Provider::OpenAi, &base)
                .unwrap()
                .endpoint;
        let client = Client::new(
            endpoint,
            AuthHeader::Bearer,
            Some(Secret::new("sk-test-ECHOEDKEY")),
        );
        let models = client
            .get_json(&client.endpoint().url("/models"), Duration::from_secs(10))
            .unwrap();
        assert_eq!(
            models["data"][0]["id"],
            json!("model-for-Bearer <redacted>")
        );
        let answer = client
            .chat(
                &request(),
                &Constraint::None,
                GuidedField::StructuredOutputs,
                Duration::from_secs(10),
            )
            .unwrap();
        assert_eq!(
            answer.content.as_deref(),
            Some("your key is Bearer <redacted>")
        );
    }

    #[test]
    fn debug_output_never_shows_the_key() {
        let endpoint = crate::config::endpoint::normalize_endpoint(
            crate::config::Provider::OpenAi,
            "http://127.0.0.1:9/v1",
        )
        .unwrap()
        .endpoint;
        let client = Client::new(
            endpoint,
            AuthHeader::Bearer,
            Some(Secret::new("sk-test-DEBUGKEY")),
        );
        let debug = format!("{client:?}");
        assert!(!debug.contains("DEBUGKEY"), "{debug}");
        assert_eq!(client.mask("echo sk-test-DEBUGKEY"), "echo <redacted>");
    }

    /// `error` as rustls hands it to ureq: an `io::Error` of kind InvalidData around it.
    fn from_rustls(error: rustls::Error) -> ureq::Error {
        ureq::Error::Io(std::io::Error::new(ErrorKind::InvalidData, error))
    }

    #[test]
    fn tls_failures_are_told_apart_wherever_ureq_puts_them() {
        use rustls::{AlertDescription, CertificateError, InvalidMessage, OtherError};
        let plain_http = || rustls::Error::InvalidMessage(InvalidMessage::InvalidContentType);
        let self_signed = || {
            // What webpki's "CA used as end entity" reaches slmcode as: a name rustls does not have.
            let webpki = std::io::Error::other("CaUsedAsEndEntity");
            rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(Arc::new(webpki))))
        };
        for (error, expected) in [
            (from_rustls(plain_http()), TlsFailure::NotTls),
            (from_rustls(self_signed()), TlsFailure::UntrustedCertificate),
            (
                from_rustls(rustls::Error::InvalidCertificate(
                    CertificateError::UnknownIssuer,
                )),
                TlsFailure::UntrustedCertificate,
            ),
            (
                // Anything else wrong with a certificate, in rustls' words.
                ureq::Error::Rustls(rustls::Error::InvalidCertificate(CertificateError::Revoked)),
                TlsFailure::InvalidCertificate("Revoked".to_owned()),
            ),
            (
                from_rustls(rustls::Error::AlertReceived(
                    AlertDescription::HandshakeFailure,
                )),
                TlsFailure::Handshake("received fatal alert: HandshakeFailure".to_owned()),
            ),
        ] {
            assert_eq!(tls_failure(&error), Some(expected), "{error:?}");
        }
        // The body reader wraps ureq's error in an io::Error of its own.
        let in_body = std::io::Error::other(from_rustls(plain_http()));
        assert_eq!(tls_failure(&in_body), Some(TlsFailure::NotTls));
        // Other failures to connect or read are not TLS failures.
        for error in [
            ureq::Error::ConnectionFailed,
            ureq::Error::Io(std::io::Error::from(ErrorKind::ConnectionRefused)),
            ureq::Error::Io(std::io::Error::new(
                ErrorKind::InvalidData,
                "a line of the event stream is too long",
            )),
        ] {
            assert_eq!(tls_failure(&error), None, "{error:?}");
        }
    }

    #[test]
    fn a_tls_failure_is_permanent_and_says_what_it_was() {
        let endpoint = crate::config::endpoint::normalize_endpoint(
            crate::config::Provider::OpenAi,
            "https://127.0.0.1:9/v1",
        )
        .unwrap()
        .endpoint;
        let client = Client::new(endpoint, AuthHeader::Bearer, None);
        let error = client.transport_error(
            from_rustls(rustls::Error::InvalidMessage(
                rustls::InvalidMessage::InvalidContentType,
            )),
            Duration::from_secs(1),
        );
        assert_eq!(error.class, ErrorClass::Permanent);
        assert_eq!(error.status, None);
        assert_eq!(error.tls, Some(TlsFailure::NotTls));
        assert_eq!(
            error.to_string(),
            "permanent error: TLS failed: the server on that port does not speak TLS (a plain-HTTP \
         server?)"
        );
    }

    #[test]
    fn thinking_fields_ride_along_and_a_refused_one_is_dropped_alone() {
        let mut chat = request();
        chat.sampling
            .insert("repeat_penalty".to_owned(), json!(1.1));
        chat.thinking.insert(
            "chat_template_kwargs".to_owned(),
            json!({"enable_thinking": false}),
        );
        let body = build_body(&chat, &Constraint::None, GuidedField::default());
        assert_eq!(
            body["chat_template_kwargs"],
            json!({"enable_thinking": false})
        );
        assert_eq!(body["repeat_penalty"], json!(1.1));

        let endpoint = crate::backends::normalize_endpoint(
            crate::config::Provider::LlamaCpp,
            "http://127.0.0.1:9/v1",
        )
        .unwrap()
        .endpoint;
        let client = Client::new(endpoint, AuthHeader::Bearer, None);
        let refusal = CallError::from_failure(TransportFailure::Status {
            status: 400,
            body: r#"{"error": {"message": "unsupported parameter: chat_template_kwargs"}}"#
                .to_owned(),
            retry_after: None,
        });
        assert!(client.refuse_sampling(&chat, &refusal));
        let accepted = client.accepted_sampling(&chat).expect("one field dropped");
        assert!(accepted.thinking.is_empty());
        assert_eq!(accepted.sampling, chat.sampling, "the penalties stay");
        assert_eq!(client.refusals().0, ["chat_template_kwargs"]);
    }
}
