//! A quick reachability check for `status` and `doctor`: one `GET {endpoint}/models` with a
//! short timeout, its latency, and whether the configured model is listed. Not a probe: it
//! sends no chat request and learns nothing about constraints.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

use super::errors::CallError;
use super::target::Target;

/// What the quick check found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reachability {
    /// Whether the server answered at all (any HTTP status counts: it is there).
    pub reachable: bool,
    /// The round trip, in milliseconds, when it answered.
    pub latency_ms: Option<u64>,
    /// The HTTP status of a non-2xx answer.
    pub status: Option<u16>,
    /// Why it failed, when it did.
    pub error: Option<String>,
    /// The failure itself, when it failed (a TLS failure says what to fix).
    #[serde(skip)]
    pub failure: Option<CallError>,
    /// Whether the configured model is in the server's list (`None`: no model set, or no list).
    pub model_listed: Option<bool>,
    /// The models the server listed (at most 20).
    pub models: Vec<String>,
}

/// Checks `target` with one GET under `timeout`.
pub fn check(target: &Target, timeout: Duration) -> Reachability {
    let client = target.client();
    let started = Instant::now();
    match client.get_json(&target.endpoint.url("/models"), timeout) {
        Ok(body) => {
            let models: Vec<String> = body
                .get("data")
                .and_then(Value::as_array)
                .map(|models| {
                    models
                        .iter()
                        .filter_map(|model| model.get("id").and_then(Value::as_str))
                        .take(20)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            let model_listed = target
                .model
                .as_ref()
                .filter(|_| !models.is_empty())
                .map(|model| models.iter().any(|served| served == model));
            Reachability {
                reachable: true,
                latency_ms: Some(started.elapsed().as_millis() as u64),
                status: None,
                error: None,
                failure: None,
                model_listed,
                models,
            }
        }
        Err(error) => Reachability {
            reachable: error.status.is_some(),
            latency_ms: error.status.map(|_| started.elapsed().as_millis() as u64),
            status: error.status,
            error: Some(error.to_string()),
            model_listed: None,
            models: Vec::new(),
            failure: Some(error),
        },
    }
}
