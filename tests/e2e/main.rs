//! End-to-end tests against a real llama.cpp server with a tiny random-weight model
//! (`shared/real-engine/start.sh`). A random model's unconstrained output is never JSON, so
//! anything well-formed in an answer was made so by the server's constrained decoding.
//!
//! They run only when `SLMCODE_E2E_ENDPOINT` is set:
//!
//! ```sh
//! eval "$(../shared/real-engine/start.sh)"; cargo test --test e2e; kill "$SLMCODE_E2E_PID"
//! ```
//!
//! Without it, each test prints that it was skipped and passes.

#[path = "../cli/util.rs"]
mod util;

mod doctor;

/// The real server's endpoint and model, or `None` (and a note) when the variable is unset.
pub fn real_engine(test: &str) -> Option<(String, String)> {
    match std::env::var("SLMCODE_E2E_ENDPOINT") {
        Ok(endpoint) if !endpoint.is_empty() => {
            let model = std::env::var("SLMCODE_E2E_MODEL").unwrap_or_else(|_| "tiny".to_owned());
            Some((endpoint, model))
        }
        _ => {
            eprintln!("{test}: skipped (SLMCODE_E2E_ENDPOINT is not set; see tests/e2e/main.rs)");
            None
        }
    }
}
