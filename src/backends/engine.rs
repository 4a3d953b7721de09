//! The engine requests are shaped for: which provider's preset and wire quirks a call follows.
//!
//! It is the configured provider, except for the generic `openai-compatible`: when the server's
//! fingerprint names an engine slmcode knows ([`Fingerprint::engine`]: llama.cpp by `/props`,
//! Ollama by `/api/version`), requests follow that engine as if the provider had been set to
//! it. On llama.cpp the derived grammar goes before json_schema, a named `tool_choice` is sent
//! as that one tool under `required`, `parallel_tool_calls` goes along, and the anti-repetition
//! sampling is llama.cpp's; on Ollama the thinking switch is `reasoning_effort`. A provider the
//! user named is never overridden, whatever the server says. What is probed, and the cache
//! key, stay the configured provider's: the fingerprint comes with the probe, and the same
//! server under another provider name is another entry. Uses `config`.

use std::fmt;

use serde::Serialize;

use crate::config::Provider;

use super::fingerprint::Fingerprint;
use super::presets::{Preset, preset};

/// How slmcode knows which engine it talks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EngineSource {
    /// The `provider` setting: a named engine, or `openai-compatible` with no engine recognised.
    Setting,
    /// The server's fingerprint, under the generic `openai-compatible`.
    Fingerprint,
}

impl EngineSource {
    /// The name used in `--json` output.
    pub const fn as_str(self) -> &'static str {
        match self {
            EngineSource::Setting => "setting",
            EngineSource::Fingerprint => "fingerprint",
        }
    }
}

impl fmt::Display for EngineSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The engine requests follow (`engine` in `generate --json` meta, in `.connection` of
/// `status` and `doctor`): `{"provider", "source", "evidence"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Engine {
    /// The provider whose preset and wire quirks requests follow.
    pub provider: Provider,
    /// `setting` or `fingerprint`.
    pub source: EngineSource,
    /// What the server said that named the engine, and where (`llama.cpp b6123 (GET /props)`);
    /// null when the setting decided.
    pub evidence: Option<String>,
}

impl Engine {
    /// The engine for a `configured` provider and the server's `fingerprint` (see the module
    /// docs).
    pub fn of(configured: Provider, fingerprint: Option<&Fingerprint>) -> Engine {
        let recognised = fingerprint
            .filter(|_| configured == Provider::OpenAiCompatible)
            .and_then(Fingerprint::engine);
        match recognised {
            Some(found) => Engine {
                provider: found.provider,
                source: EngineSource::Fingerprint,
                evidence: Some(found.evidence),
            },
            None => Engine {
                provider: configured,
                source: EngineSource::Setting,
                evidence: None,
            },
        }
    }

    /// The preset requests follow.
    pub fn preset(&self) -> &'static Preset {
        preset(self.provider)
    }

    /// One line for humans: `llamacpp (the provider setting)`, or `llamacpp, recognised by
    /// the server's fingerprint: llama.cpp b6123 (GET /props)`.
    pub fn summary(&self) -> String {
        match (&self.source, &self.evidence) {
            (EngineSource::Fingerprint, Some(evidence)) => format!(
                "{}, recognised by the server's fingerprint: {evidence}",
                self.provider
            ),
            _ => format!("{} (the provider setting)", self.provider),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(text: &str) -> Fingerprint {
        Fingerprint {
            server: Some(text.to_owned()),
            ..Fingerprint::default()
        }
    }

    #[test]
    fn the_generic_provider_follows_the_engine_the_fingerprint_names() {
        let llama = server("llama.cpp b6500");
        let engine = Engine::of(Provider::OpenAiCompatible, Some(&llama));
        assert_eq!(engine.provider, Provider::LlamaCpp);
        assert_eq!(engine.source, EngineSource::Fingerprint);
        assert_eq!(
            engine.summary(),
            "llamacpp, recognised by the server's fingerprint: llama.cpp b6500 (GET /props)"
        );
        assert_eq!(
            serde_json::to_value(&engine).unwrap(),
            serde_json::json!({"provider": "llamacpp", "source": "fingerprint",
                "evidence": "llama.cpp b6500 (GET /props)"})
        );
        let ollama = Engine::of(Provider::OpenAiCompatible, Some(&server("ollama 0.12.6")));
        assert_eq!(ollama.provider, Provider::Ollama);
        // Nothing known, or nothing named: the setting stands.
        for fingerprint in [None, Some(&server("vllm 0.10.2"))] {
            let engine = Engine::of(Provider::OpenAiCompatible, fingerprint);
            assert_eq!(engine.provider, Provider::OpenAiCompatible);
            assert_eq!(engine.source, EngineSource::Setting);
        }
    }

    #[test]
    fn a_named_provider_is_never_overridden() {
        for provider in Provider::ALL {
            if provider == Provider::OpenAiCompatible {
                continue;
            }
            let engine = Engine::of(provider, Some(&server("llama.cpp b6500")));
            assert_eq!(engine.provider, provider);
            assert_eq!(engine.source, EngineSource::Setting);
            assert_eq!(engine.evidence, None);
            assert_eq!(
                engine.summary(),
                format!("{provider} (the provider setting)")
            );
        }
    }
}
