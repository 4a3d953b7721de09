//! Relaying a request as it came: what `slmcode serve` does with a request that needs nothing
//! from the structured call path. The body is sent unchanged under the endpoint's path with
//! this client's key (never the caller's credentials), and the answer is handed back as a
//! stream so the caller can relay it piece by piece as it arrives.

use std::io::Read;
use std::time::{Duration, Instant};

use super::errors::CallError;
use super::stream::StreamLimits;
use super::transport::Client;

/// An upstream answer being relayed: its status, its content type and its body as it arrives.
pub struct Relayed {
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type` header, when there was one.
    pub content_type: Option<String>,
    /// The body; reads block until the next piece arrives (at most the idle timeout).
    pub body: Box<dyn Read + Send>,
}

impl std::fmt::Debug for Relayed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Relayed")
            .field("status", &self.status)
            .field("content_type", &self.content_type)
            .finish_non_exhaustive()
    }
}

/// The longest an upstream answer to a relayed request may be: a whole answer is far
/// smaller, and an event stream repeats the ids in every chunk.
pub const RELAY_LIMIT: u64 = 512 * 1024 * 1024;

impl Client {
    /// Sends `body` to `path` under the endpoint (`/chat/completions`) as a POST, or a GET
    /// without one, with this client's key. `idle` bounds the wait for each piece of the
    /// answer and `whole` the whole exchange. Any status is an answer to relay; only a
    /// failure to get one is an error.
    pub fn relay(
        &self,
        path: &str,
        body: Option<&[u8]>,
        idle: Duration,
        whole: Duration,
    ) -> Result<Relayed, CallError> {
        let url = self.endpoint().url(path);
        let started = Instant::now();
        let limits = StreamLimits {
            idle,
            deadline: Some(started + whole),
        };
        let sent = match body {
            Some(bytes) => {
                let post = self
                    .agent()
                    .post(&url)
                    .config()
                    .timeout_global(Some(whole))
                    .timeout_per_read(Some(idle))
                    .build()
                    .content_type("application/json");
                self.authorize_post(post).send(bytes)
            }
            None => {
                let get = self
                    .agent()
                    .get(&url)
                    .config()
                    .timeout_global(Some(whole))
                    .timeout_per_read(Some(idle))
                    .build();
                self.authorize_get(get).call()
            }
        };
        let response = sent.map_err(|error| self.read_error(error, &limits, started))?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let body = response
            .into_body()
            .into_with_config()
            .limit(RELAY_LIMIT)
            .reader();
        Ok(Relayed {
            status,
            content_type,
            body: Box::new(body),
        })
    }
}
