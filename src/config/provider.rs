//! Provider names: the kinds of server slmcode talks to, their spellings, and the few facts
//! about each that settings need (the conventional key variable, hosted or local).

use std::fmt;
use std::str::FromStr;

/// The kind of server slmcode talks to. Each has a preset in the backends layer (default
/// endpoint, key variable, auth header, which mechanisms are worth probing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Provider {
    /// The OpenAI API.
    OpenAi,
    /// Azure OpenAI (deployments, `api-key` header, `api-version`).
    Azure,
    /// vLLM's OpenAI-compatible server.
    Vllm,
    /// SGLang's OpenAI-compatible server.
    Sglang,
    /// llama.cpp's `llama-server`.
    LlamaCpp,
    /// LM Studio's local server.
    LmStudio,
    /// Ollama's OpenAI-compatible endpoint.
    Ollama,
    /// oMLX, an MLX server for Apple silicon.
    Omlx,
    /// Any other OpenAI-compatible server: nothing is assumed, everything is probed.
    OpenAiCompatible,
}

impl Provider {
    /// Every provider, in the order help and errors list them.
    pub const ALL: [Provider; 9] = [
        Provider::OpenAi,
        Provider::Azure,
        Provider::Vllm,
        Provider::Sglang,
        Provider::LlamaCpp,
        Provider::LmStudio,
        Provider::Ollama,
        Provider::Omlx,
        Provider::OpenAiCompatible,
    ];

    /// The canonical name, as stored in settings and the capabilities cache.
    pub const fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Azure => "azure",
            Provider::Vllm => "vllm",
            Provider::Sglang => "sglang",
            Provider::LlamaCpp => "llamacpp",
            Provider::LmStudio => "lmstudio",
            Provider::Ollama => "ollama",
            Provider::Omlx => "omlx",
            Provider::OpenAiCompatible => "openai-compatible",
        }
    }
}

impl Provider {
    /// The environment variable that conventionally holds this provider's API key, read after
    /// `api_key_env` and `SLMCODE_API_KEY` (see [`crate::config::resolve`]). `None` where the
    /// engine has no such convention.
    ///
    /// Sources: OpenAI's SDKs read `OPENAI_API_KEY`; Azure OpenAI samples use
    /// `AZURE_OPENAI_API_KEY`; `vllm serve` reads `VLLM_API_KEY` for its `--api-key`
    /// (docs.vllm.ai, serving/openai_compatible_server); llama.cpp registers `--api-key` with
    /// `set_env("LLAMA_API_KEY")` (ggml-org/llama.cpp `common/arg.cpp`); LM Studio's SDKs read
    /// `LM_API_TOKEN` (lmstudio.ai/docs/developer/core/authentication); Ollama documents
    /// `OLLAMA_API_KEY` (docs.ollama.com/api/authentication). SGLang and oMLX document none.
    /// `openai-compatible` deliberately has none: sending a real `OPENAI_API_KEY` to an unknown
    /// server would hand it to whoever runs that server.
    pub const fn key_env(self) -> Option<&'static str> {
        match self {
            Provider::OpenAi => Some("OPENAI_API_KEY"),
            Provider::Azure => Some("AZURE_OPENAI_API_KEY"),
            Provider::Vllm => Some("VLLM_API_KEY"),
            Provider::LlamaCpp => Some("LLAMA_API_KEY"),
            Provider::LmStudio => Some("LM_API_TOKEN"),
            Provider::Ollama => Some("OLLAMA_API_KEY"),
            Provider::Sglang | Provider::Omlx | Provider::OpenAiCompatible => None,
        }
    }

    /// Whether this is a hosted API (OpenAI, Azure) rather than a server the user runs: a hosted
    /// API needs a key, and its endpoint and model are not on the user's machine.
    pub const fn is_hosted(self) -> bool {
        matches!(self, Provider::OpenAi | Provider::Azure)
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A provider name that is not one of [`Provider::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown provider `{0}`; expected one of: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible"
)]
pub struct UnknownProvider(
    /// The name as it was given.
    pub String,
);

impl FromStr for Provider {
    type Err = UnknownProvider;

    /// Canonical names case-insensitively, plus the spellings users reach for first
    /// (`llama.cpp`, `llama-server`, `lm-studio`, `openai_compatible`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let folded = text.trim().to_ascii_lowercase().replace('_', "-");
        Ok(match folded.as_str() {
            "openai" => Provider::OpenAi,
            "azure" | "azure-openai" => Provider::Azure,
            "vllm" => Provider::Vllm,
            "sglang" => Provider::Sglang,
            "llamacpp" | "llama.cpp" | "llama-cpp" | "llama-server" => Provider::LlamaCpp,
            "lmstudio" | "lm-studio" => Provider::LmStudio,
            "ollama" => Provider::Ollama,
            "omlx" => Provider::Omlx,
            "openai-compatible" | "compatible" => Provider::OpenAiCompatible,
            _ => return Err(UnknownProvider(text.to_owned())),
        })
    }
}

impl serde::Serialize for Provider {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Provider {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
