//! End-to-end tests against a real llama.cpp server with a tiny random-weight model
//! (`tests/real-engine/start.sh`; `SLMCODE_E2E_ENDPOINT` is its OpenAI-style base URL, ending
//! in `/v1`). A random model's unconstrained output is never JSON, so anything well-formed in
//! an answer was made so by the server's constrained decoding.
//!
//! `real_model` runs against a second server with a real small model (SmolLM2-135M-Instruct:
//! `MODEL=smollm2 tests/real-engine/start.sh`; `SLMCODE_E2E_REAL_ENDPOINT`): what only a real
//! model shows (loops, prose, a deadline that matters); `serve_frameworks` runs agent
//! frameworks through the proxy in front of it.
//!
//! `thinking` runs against a third one: the tiny model with a chat template that opens a
//! `<think>` block unless `enable_thinking` is false (`TEMPLATE=think tests/real-engine/start.sh`;
//! `SLMCODE_E2E_THINK_ENDPOINT`).
//!
//! Without the variables the tests that need them pass without running, so a developer's plain
//! `cargo test` works on a machine without an engine, and one line on the terminal says how
//! many were skipped and why. `.ci/run` sets `SLMCODE_REQUIRE_E2E=1`, under which a missing
//! engine is a failure. With the variables (what `.ci/run` does):
//!
//! ```sh
//! eval "$(tests/real-engine/start.sh)"
//! real=$(MODEL=smollm2 tests/real-engine/start.sh)
//! export SLMCODE_E2E_REAL_ENDPOINT=$(echo "$real" | sed -E 's/.*SLMCODE_E2E_ENDPOINT=([^ ]*).*/\1/')
//! cargo test --test e2e
//! ```

#[path = "../cli/util.rs"]
mod util;

mod doctor;
#[path = "../support/emulator.rs"]
mod emulator;
mod engine_safety;
mod generate;
mod grammar;
mod loading;
mod readme;
#[path = "../support/readme_runner.rs"]
mod readme_runner;
mod real_model;
mod serve_clients;
mod serve_frameworks;
#[path = "../support/skip.rs"]
mod skip;
mod thinking;
mod tool_calls;
mod tools;

use std::time::Duration;

use serde_json::Value;

pub use skip::skip;
use util::Slm;

/// A scratch world whose runs go to the llama.cpp server at `endpoint`, asking for `model`.
pub fn slm(endpoint: &str, model: &str) -> Slm {
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", endpoint)
        .env("SLMCODE_MODEL", model);
    slm
}

/// The real server's endpoint and model, or `None` (and a note) when the variable is unset.
pub fn real_engine(test: &str) -> Option<(String, String)> {
    let endpoint = endpoint(test)?;
    Some((endpoint, model()))
}

/// The engine's base URL, or `None` (after counting the test as skipped).
pub fn endpoint(test: &str) -> Option<String> {
    match std::env::var("SLMCODE_E2E_ENDPOINT") {
        Ok(endpoint) if !endpoint.trim().is_empty() => {
            Some(endpoint.trim_end_matches('/').to_owned())
        }
        _ => {
            skip(
                test,
                "SLMCODE_E2E_ENDPOINT is not set: start the tiny model with tests/real-engine/start.sh",
            );
            None
        }
    }
}

/// The endpoint of the tiny model served with a chat template that thinks
/// (`TEMPLATE=think tests/real-engine/start.sh`; `SLMCODE_E2E_THINK_ENDPOINT`), or `None` (after
/// counting the test as skipped).
pub fn think_endpoint(test: &str) -> Option<String> {
    match std::env::var("SLMCODE_E2E_THINK_ENDPOINT") {
        Ok(endpoint) if !endpoint.trim().is_empty() => {
            Some(endpoint.trim_end_matches('/').to_owned())
        }
        _ => {
            skip(
                test,
                "SLMCODE_E2E_THINK_ENDPOINT is not set: start the thinking template with TEMPLATE=think tests/real-engine/start.sh",
            );
            None
        }
    }
}

/// The model name to send (`SLMCODE_E2E_MODEL`, `tiny` by default).
pub fn model() -> String {
    std::env::var("SLMCODE_E2E_MODEL").unwrap_or_else(|_| "tiny".to_owned())
}

/// `POST {endpoint}/chat/completions` with `body`: the status and the parsed answer.
pub fn chat(endpoint: &str, body: &Value) -> (u16, Value) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(300)))
        .build()
        .into();
    let mut response = agent
        .post(format!("{endpoint}/chat/completions"))
        .header("content-type", "application/json")
        .send(body.to_string())
        .unwrap_or_else(|error| panic!("POST {endpoint}/chat/completions: {error}"));
    let status = response.status().as_u16();
    let text = response
        .body_mut()
        .read_to_string()
        .unwrap_or_else(|error| panic!("reading the answer: {error}"));
    let answer = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, answer)
}
