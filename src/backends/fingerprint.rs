//! Server fingerprints: what the server says about itself (build, version, context size, model
//! capabilities, served models), so a server upgrade invalidates what was learned about it.
//!
//! Routes per engine: llama-server `GET /props` (`build_info`,
//! `default_generation_settings.n_ctx`; measured in tests/real-engine/README.md), vLLM
//! `GET /version` (`{"version": ...}`), Ollama `GET /api/version` and `POST /api/show {"model"}`
//! (`capabilities`, e.g. `thinking`; <https://docs.ollama.com/api-reference/show-model-details>),
//! and `GET {endpoint}/models` for every OpenAI-compatible server. Each route is best effort:
//! a route that fails leaves its part unknown, and unknown never counts as a change.
//!
//! A fingerprint can also name the engine ([`Fingerprint::engine`]): llama.cpp by `/props`
//! with a `build_info`, Ollama by `/api/version`. vLLM's `/version` is shown, but names no
//! engine: a `{"version": ...}` at `/version` is common to many servers.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::config::Provider;

use super::presets::FingerprintRoute;
use super::transport::Client;

/// How many model ids a fingerprint keeps (a hosted API lists hundreds).
const MAX_MODELS: usize = 50;

/// What [`fetch`] writes before llama-server's build in [`Fingerprint::server`].
const LLAMA_CPP_LABEL: &str = "llama.cpp";
/// What [`fetch`] writes before vLLM's version.
const VLLM_LABEL: &str = "vllm";
/// What [`fetch`] writes before Ollama's version.
const OLLAMA_LABEL: &str = "ollama";

/// The engines a fingerprint names: the label [`fetch`] writes in `server`, the route that
/// said it, and the provider whose preset fits the engine.
const NAMED_ENGINES: [(&str, &str, Provider); 2] = [
    (LLAMA_CPP_LABEL, "GET /props", Provider::LlamaCpp),
    (OLLAMA_LABEL, "GET /api/version", Provider::Ollama),
];

/// An engine a fingerprint names, and what the server said that names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecognisedEngine {
    /// The provider whose preset fits the engine.
    pub provider: Provider,
    /// What the server said, and where: `llama.cpp b6123 (GET /props)`.
    pub evidence: String,
}

/// What a server said about itself. Every part is optional: servers differ, and routes fail.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// Server and build, e.g. `llama.cpp b6123`, `vllm 0.10.2`, `ollama 0.12.6`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The context window the server runs with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_size: Option<u64>,
    /// Model capabilities the server reports (Ollama: `completion`, `tools`, `thinking`, ...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
    /// The served model ids (`/models`), at most 50; `None` when the route failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub models: Option<Vec<String>>,
}

impl Fingerprint {
    /// Whether nothing at all is known.
    pub fn is_empty(&self) -> bool {
        self.server.is_none()
            && self.context_size.is_none()
            && self.capabilities.is_empty()
            && self.models.is_none()
    }

    /// What changed from `earlier` to `self`, or `None` when nothing known on both sides
    /// differs. The model list is not compared: serving another model under the same server
    /// changes the cache key (the model), not the server.
    pub fn change_from(&self, earlier: &Fingerprint) -> Option<String> {
        let mut changes = Vec::new();
        if let (Some(before), Some(now)) = (&earlier.server, &self.server)
            && before != now
        {
            changes.push(format!("server {before} -> {now}"));
        }
        if let (Some(before), Some(now)) = (earlier.context_size, self.context_size)
            && before != now
        {
            changes.push(format!("context size {before} -> {now}"));
        }
        if !earlier.capabilities.is_empty()
            && !self.capabilities.is_empty()
            && earlier.capabilities != self.capabilities
        {
            changes.push(format!(
                "capabilities [{}] -> [{}]",
                earlier.capabilities.join(", "),
                self.capabilities.join(", ")
            ));
        }
        (!changes.is_empty()).then(|| changes.join("; "))
    }

    /// Whether `model` is among the served models: `None` when unknown (no list, or no model).
    pub fn lists_model(&self, model: Option<&str>) -> Option<bool> {
        let model = model?;
        let models = self.models.as_ref()?;
        Some(models.iter().any(|served| served == model))
    }

    /// The engine the server named (see the module docs), or `None`.
    pub fn engine(&self) -> Option<RecognisedEngine> {
        let server = self.server.as_deref()?;
        NAMED_ENGINES
            .into_iter()
            .find(|(label, _, _)| {
                server
                    .strip_prefix(label)
                    .is_some_and(|rest| rest.starts_with(' '))
            })
            .map(|(_, route, provider)| RecognisedEngine {
                provider,
                evidence: format!("{server} ({route})"),
            })
    }

    /// One line for humans: `llama.cpp b6123, n_ctx 4096`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if let Some(server) = &self.server {
            parts.push(server.clone());
        }
        if let Some(context_size) = self.context_size {
            parts.push(format!("n_ctx {context_size}"));
        }
        if !self.capabilities.is_empty() {
            parts.push(format!("capabilities: {}", self.capabilities.join(", ")));
        }
        if parts.is_empty() {
            "unknown".to_owned()
        } else {
            parts.join(", ")
        }
    }
}

/// Asks `routes` for a fingerprint, all within `deadline`. Never fails: what does not answer
/// stays unknown.
pub fn fetch(
    client: &Client,
    routes: &[FingerprintRoute],
    model: Option<&str>,
    deadline: Instant,
) -> Fingerprint {
    let mut fingerprint = Fingerprint::default();
    let root = client.endpoint().server_root().map(str::to_owned);
    let remaining = || deadline.saturating_duration_since(Instant::now());
    for route in routes {
        let timeout = remaining();
        if timeout < Duration::from_millis(5) {
            break;
        }
        match route {
            FingerprintRoute::Models => {
                if let Ok(body) = client.get_json(&client.endpoint().url("/models"), timeout) {
                    fingerprint.models = Some(model_ids(&body));
                }
            }
            FingerprintRoute::LlamaProps => {
                let Some(root) = &root else { continue };
                if let Ok(props) = client.get_json(&format!("{root}/props"), timeout) {
                    if let Some(build) = props.get("build_info").and_then(Value::as_str) {
                        fingerprint.server = Some(format!("{LLAMA_CPP_LABEL} {build}"));
                    }
                    fingerprint.context_size = props
                        .pointer("/default_generation_settings/n_ctx")
                        .or_else(|| props.get("n_ctx"))
                        .and_then(Value::as_u64);
                }
            }
            FingerprintRoute::VllmVersion => {
                let Some(root) = &root else { continue };
                if fingerprint.server.is_some() {
                    continue;
                }
                if let Ok(body) = client.get_json(&format!("{root}/version"), timeout)
                    && let Some(version) = body.get("version").and_then(Value::as_str)
                {
                    fingerprint.server = Some(format!("{VLLM_LABEL} {version}"));
                }
            }
            FingerprintRoute::OllamaVersion => {
                let Some(root) = &root else { continue };
                if fingerprint.server.is_some() {
                    continue;
                }
                let Ok(body) = client.get_json(&format!("{root}/api/version"), timeout) else {
                    continue;
                };
                let Some(version) = body.get("version").and_then(Value::as_str) else {
                    continue;
                };
                fingerprint.server = Some(format!("{OLLAMA_LABEL} {version}"));
                if let Some(model) = model
                    && let Ok(show) = client.post_json(
                        &format!("{root}/api/show"),
                        &json!({"model": model}),
                        remaining(),
                    )
                {
                    fingerprint.capabilities = show
                        .get("capabilities")
                        .and_then(Value::as_array)
                        .map(|list| {
                            list.iter()
                                .filter_map(Value::as_str)
                                .map(str::to_owned)
                                .collect()
                        })
                        .unwrap_or_default();
                }
            }
        }
    }
    fingerprint
}

/// Model ids from a `/models` answer (`data[].id`).
fn model_ids(body: &Value) -> Vec<String> {
    body.get("data")
        .and_then(Value::as_array)
        .map(|models| {
            models
                .iter()
                .filter_map(|model| model.get("id").and_then(Value::as_str))
                .take(MAX_MODELS)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_parts_that_differ_are_changes() {
        let before = Fingerprint {
            server: Some("llama.cpp b100".to_owned()),
            context_size: Some(4096),
            ..Fingerprint::default()
        };
        let unknown_now = Fingerprint::default();
        assert_eq!(unknown_now.change_from(&before), None);
        let same = before.clone();
        assert_eq!(same.change_from(&before), None);
        let upgraded = Fingerprint {
            server: Some("llama.cpp b200".to_owned()),
            ..before.clone()
        };
        assert_eq!(
            upgraded.change_from(&before).as_deref(),
            Some("server llama.cpp b100 -> llama.cpp b200")
        );
    }

    #[test]
    fn llama_cpp_and_ollama_are_named_and_a_bare_version_names_nothing() {
        let server = |text: &str| Fingerprint {
            server: Some(text.to_owned()),
            ..Fingerprint::default()
        };
        assert_eq!(
            server("llama.cpp b6500").engine(),
            Some(RecognisedEngine {
                provider: Provider::LlamaCpp,
                evidence: "llama.cpp b6500 (GET /props)".to_owned()
            })
        );
        assert_eq!(
            server("ollama 0.12.6").engine().map(|found| found.provider),
            Some(Provider::Ollama)
        );
        assert_eq!(server("vllm 0.10.2").engine(), None);
        assert_eq!(server("llama.cppx 1").engine(), None);
        assert_eq!(Fingerprint::default().engine(), None);
    }

    #[test]
    fn model_lists_answer_whether_a_model_is_served() {
        let fingerprint = Fingerprint {
            models: Some(model_ids(&json!({"data": [{"id": "tiny"}, {"id": "big"}]}))),
            ..Fingerprint::default()
        };
        assert_eq!(fingerprint.lists_model(Some("tiny")), Some(true));
        assert_eq!(fingerprint.lists_model(Some("other")), Some(false));
        assert_eq!(fingerprint.lists_model(None), None);
        assert_eq!(Fingerprint::default().lists_model(Some("tiny")), None);
    }
}
