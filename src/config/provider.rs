use std::fmt;
use std::str::FromStr;

/// The kind of server slmcode talks to. Each has a preset in the backends layer (default
/// endpoint, key variable, auth header, which mechanisms are worth probing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
