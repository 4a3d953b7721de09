//! The key registry: every setting's name, what it is for, the values it accepts, its default,
//! its environment variable and flag, and the one function that parses and normalises its text.
//!
//! [`KEYS`] is the single table that resolution, `config get/set/unset/list`, `readiness`, the
//! README and error messages read. Adding a setting means adding a field to
//! [`Settings`](super::Settings), a [`Key`] variant and a row here.

use std::fmt;

use super::endpoint::redact_endpoint;
use super::parse;
use super::values::{AntiRepetition, Secret, SettingValue, StructuredDecoding, Thinking};
use super::{Provider, Settings};
use crate::schema::gbnf::Whitespace;

/// A setting's name, as a type: the keys of `config.toml`, `config get KEY` and so on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    /// `provider`
    Provider,
    /// `endpoint`
    Endpoint,
    /// `model`
    Model,
    /// `api_key_env`
    ApiKeyEnv,
    /// `api_key` (a literal key in the file: accepted, with a warning)
    ApiKey,
    /// `structured_decoding`
    StructuredDecoding,
    /// `max_tokens`
    MaxTokens,
    /// `temperature`
    Temperature,
    /// `anti_repetition`
    AntiRepetition,
    /// `thinking`
    Thinking,
    /// `grammar_whitespace`
    GrammarWhitespace,
    /// `schema_in_prompt`
    SchemaInPrompt,
    /// `brief_instructions`
    BriefInstructions,
    /// `timeout_s`
    TimeoutS,
    /// `call_timeout_s`
    CallTimeoutS,
    /// `probe_timeout_s`
    ProbeTimeoutS,
    /// `reask`
    Reask,
    /// `text_fallback`
    TextFallback,
    /// `record_stats`
    RecordStats,
    /// `serve_listen`
    ServeListen,
    /// `serve_key_env`
    ServeKeyEnv,
    /// `serve_max_connections`
    ServeMaxConnections,
}

/// One row of the registry. The parse and read functions are private: use [`Key::parse`],
/// [`Key::apply`] and [`Key::read`].
pub struct KeySpec {
    /// Which key this row describes.
    pub key: Key,
    /// The name in `config.toml` and on the command line.
    pub name: &'static str,
    /// What the setting is for, in one line (README, `config list`, help).
    pub doc: &'static str,
    /// The values it accepts, as error messages list them.
    pub accepted: &'static str,
    /// The default, as a person reads it.
    pub default: &'static str,
    /// The environment variable that sets it (`SLMCODE_<NAME>`).
    pub environment: &'static str,
    /// The flag that sets it, for commands that take it (provenance reads "flag --model").
    pub flag: &'static str,
    /// Whether the value is a secret, never to be shown or echoed in an error.
    pub secret: bool,
    apply: fn(&mut Settings, &str) -> Result<(), String>,
    read: fn(&Settings) -> SettingValue,
}

/// The registry, in [`Key`] order (a test holds that).
pub static KEYS: [KeySpec; 22] = [
    KeySpec {
        key: Key::Provider,
        name: "provider",
        doc: "the kind of server: decides the default endpoint, the key variable, which mechanisms are probed and how requests are shaped; openai-compatible follows the engine the server names (llama.cpp, Ollama)",
        accepted: "openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible",
        default: "openai-compatible",
        environment: "SLMCODE_PROVIDER",
        flag: "--provider",
        secret: false,
        apply: |settings, text| {
            settings.provider = text
                .parse::<Provider>()
                .map_err(|_| "unknown provider".to_owned())?;
            Ok(())
        },
        read: |settings| SettingValue::Text(settings.provider.as_str().to_owned()),
    },
    KeySpec {
        key: Key::Endpoint,
        name: "endpoint",
        doc: "the OpenAI-style base URL; a bare server address gets /v1 appended (azure: /openai/v1)",
        accepted: "an http(s) base URL such as http://127.0.0.1:8080/v1",
        default: "(unset: the provider's default)",
        environment: "SLMCODE_ENDPOINT",
        flag: "--endpoint",
        secret: false,
        apply: |settings, text| {
            settings.endpoint = Some(parse::endpoint(text)?);
            Ok(())
        },
        read: |settings| optional_text(settings.endpoint.as_deref()),
    },
    KeySpec {
        key: Key::Model,
        name: "model",
        doc: "the model id to request (an Azure deployment name on azure)",
        accepted: "a model id such as qwen2.5-coder:7b",
        default: "(unset: the server chooses)",
        environment: "SLMCODE_MODEL",
        flag: "--model",
        secret: false,
        apply: |settings, text| {
            settings.model = Some(parse::model(text)?);
            Ok(())
        },
        read: |settings| optional_text(settings.model.as_deref()),
    },
    KeySpec {
        key: Key::ApiKeyEnv,
        name: "api_key_env",
        doc: "the NAME of the environment variable that holds the API key",
        accepted: "an environment variable name such as MY_API_KEY",
        default: "(unset)",
        environment: "SLMCODE_API_KEY_ENV",
        flag: "--api-key-env",
        secret: false,
        apply: |settings, text| {
            settings.api_key_env = Some(parse::variable_name(text)?);
            Ok(())
        },
        read: |settings| optional_text(settings.api_key_env.as_deref()),
    },
    KeySpec {
        key: Key::ApiKey,
        name: "api_key",
        doc: "the API key itself: accepted in the file with a warning (mode 0600); prefer api_key_env",
        accepted: "a key without spaces",
        default: "(unset)",
        environment: "SLMCODE_API_KEY",
        flag: "--api-key",
        secret: true,
        apply: |settings, text| {
            settings.api_key = Some(Secret::new(parse::api_key(text)?));
            Ok(())
        },
        read: |settings| match &settings.api_key {
            Some(secret) => SettingValue::Secret(secret.clone()),
            None => SettingValue::Unset,
        },
    },
    KeySpec {
        key: Key::StructuredDecoding,
        name: "structured_decoding",
        doc: "auto negotiates the strongest enforced mechanism; off sends prompt-only requests and repairs",
        accepted: "auto, off (aliases for off: none, false, 0, prompt, prompt-only)",
        default: "auto",
        environment: "SLMCODE_STRUCTURED_DECODING",
        flag: "--structured-decoding",
        secret: false,
        apply: |settings, text| {
            settings.structured_decoding = text
                .parse::<StructuredDecoding>()
                .map_err(|_| "unknown mode".to_owned())?;
            Ok(())
        },
        read: |settings| SettingValue::Text(settings.structured_decoding.as_str().to_owned()),
    },
    KeySpec {
        key: Key::MaxTokens,
        name: "max_tokens",
        doc: "the completion budget of one structured request, in tokens",
        accepted: "a whole number from 1 to 1000000",
        default: "2048",
        environment: "SLMCODE_MAX_TOKENS",
        flag: "--max-tokens",
        secret: false,
        apply: |settings, text| {
            settings.max_tokens = narrow(parse::integer(text, 1, 1_000_000)?);
            Ok(())
        },
        read: |settings| SettingValue::Integer(settings.max_tokens.into()),
    },
    KeySpec {
        key: Key::Temperature,
        name: "temperature",
        doc: "sampling temperature of structured requests",
        accepted: "a number from 0 to 2",
        default: "0",
        environment: "SLMCODE_TEMPERATURE",
        flag: "--temperature",
        secret: false,
        apply: |settings, text| {
            settings.temperature = parse::float(text, 0.0, 2.0)?;
            Ok(())
        },
        read: |settings| SettingValue::Float(settings.temperature),
    },
    KeySpec {
        key: Key::AntiRepetition,
        name: "anti_repetition",
        doc: "when requests carry the engine's anti-repetition sampling (repeat and DRY penalties on llama.cpp, repetition_penalty on vLLM, frequency_penalty elsewhere)",
        accepted: "always, reask (only the re-ask after a loop), off",
        default: "always",
        environment: "SLMCODE_ANTI_REPETITION",
        flag: "--anti-repetition",
        secret: false,
        apply: |settings, text| {
            settings.anti_repetition = text
                .parse::<AntiRepetition>()
                .map_err(|_| "unknown mode".to_owned())?;
            Ok(())
        },
        read: |settings| SettingValue::Text(settings.anti_repetition.as_str().to_owned()),
    },
    KeySpec {
        key: Key::Thinking,
        name: "thinking",
        doc: "whether a thinking model reasons before it answers: auto sends nothing (the chat template decides), off and on send the engine's switch (chat_template_kwargs.enable_thinking on llama.cpp, vLLM and SGLang, reasoning_effort on Ollama)",
        accepted: "auto, off, on",
        default: "auto",
        environment: "SLMCODE_THINKING",
        flag: "--thinking",
        secret: false,
        apply: |settings, text| {
            settings.thinking = text
                .parse::<Thinking>()
                .map_err(|_| "unknown mode".to_owned())?;
            Ok(())
        },
        read: |settings| SettingValue::Text(settings.thinking.as_str().to_owned()),
    },
    KeySpec {
        key: Key::GrammarWhitespace,
        name: "grammar_whitespace",
        doc: "the whitespace a derived GBNF grammar allows between tokens: compact (none) or pretty (one line break and an indentation at most); on the call path for a contract's grammar and a tool turn's alike (`tools compile --format gbnf` prints the pretty one)",
        accepted: "compact, pretty",
        default: "compact",
        environment: "SLMCODE_GRAMMAR_WHITESPACE",
        flag: "--grammar-whitespace",
        secret: false,
        apply: |settings, text| {
            settings.grammar_whitespace = text
                .parse::<Whitespace>()
                .map_err(|_| "unknown whitespace".to_owned())?;
            Ok(())
        },
        read: |settings| SettingValue::Text(settings.grammar_whitespace.as_str().to_owned()),
    },
    KeySpec {
        key: Key::SchemaInPrompt,
        name: "schema_in_prompt",
        doc: "whether a contract's instructions carry its JSON Schema after the field descriptions",
        accepted: "true or false (also yes/no, on/off, 1/0)",
        default: "false",
        environment: "SLMCODE_SCHEMA_IN_PROMPT",
        flag: "--schema-in-prompt",
        secret: false,
        apply: |settings, text| {
            settings.schema_in_prompt = parse::boolean(text)?;
            Ok(())
        },
        read: |settings| SettingValue::Bool(settings.schema_in_prompt),
    },
    KeySpec {
        key: Key::BriefInstructions,
        name: "brief_instructions",
        doc: "whether a contract's instructions leave out what an exact constraint already enforces (types, bounds, enum lists, \"JSON only\") when one goes on the wire: a shorter prompt, each field's meaning and each list's bound on its items kept",
        accepted: "true or false (also yes/no, on/off, 1/0)",
        default: "false",
        environment: "SLMCODE_BRIEF_INSTRUCTIONS",
        flag: "--brief-instructions",
        secret: false,
        apply: |settings, text| {
            settings.brief_instructions = parse::boolean(text)?;
            Ok(())
        },
        read: |settings| SettingValue::Bool(settings.brief_instructions),
    },
    KeySpec {
        key: Key::TimeoutS,
        name: "timeout_s",
        doc: "the longest wait for the next piece of an answer, in seconds: the idle time between streamed chunks (a cold local model loads within it)",
        accepted: "a whole number of seconds from 1 to 86400",
        default: "120",
        environment: "SLMCODE_TIMEOUT_S",
        flag: "--timeout",
        secret: false,
        apply: |settings, text| {
            settings.timeout_s = parse::integer(text, 1, 86_400)?;
            Ok(())
        },
        read: |settings| SettingValue::Integer(settings.timeout_s),
    },
    KeySpec {
        key: Key::CallTimeoutS,
        name: "call_timeout_s",
        doc: "the deadline of one whole structured call, in seconds: every answer, retry and re-ask fits in it",
        accepted: "a whole number of seconds from 1 to 86400",
        default: "60",
        environment: "SLMCODE_CALL_TIMEOUT_S",
        flag: "--call-timeout",
        secret: false,
        apply: |settings, text| {
            settings.call_timeout_s = parse::integer(text, 1, 86_400)?;
            Ok(())
        },
        read: |settings| SettingValue::Integer(settings.call_timeout_s),
    },
    KeySpec {
        key: Key::ProbeTimeoutS,
        name: "probe_timeout_s",
        doc: "the whole probe's deadline, in seconds",
        accepted: "a whole number of seconds from 1 to 3600",
        default: "20",
        environment: "SLMCODE_PROBE_TIMEOUT_S",
        flag: "--probe-timeout",
        secret: false,
        apply: |settings, text| {
            settings.probe_timeout_s = parse::integer(text, 1, 3_600)?;
            Ok(())
        },
        read: |settings| SettingValue::Integer(settings.probe_timeout_s),
    },
    KeySpec {
        key: Key::Reask,
        name: "reask",
        doc: "the most failure-matched re-asks one structured call may send; the call's deadline (call_timeout_s) bounds them too",
        accepted: "a whole number from 0 to 5",
        default: "3",
        environment: "SLMCODE_REASK",
        flag: "--reask",
        secret: false,
        apply: |settings, text| {
            settings.reask = narrow(parse::integer(text, 0, 5)?);
            Ok(())
        },
        read: |settings| SettingValue::Integer(settings.reask.into()),
    },
    KeySpec {
        key: Key::TextFallback,
        name: "text_fallback",
        doc: "when every attempt of a structured call failed, give back the last answer's text as plain text instead of failing (seed 004's backstop): `generate` prints it with a warning and exits 8, `serve` answers it as ordinary content with the failure in `slmcode`",
        accepted: "true or false (also yes/no, on/off, 1/0)",
        default: "false",
        environment: "SLMCODE_TEXT_FALLBACK",
        flag: "--text-fallback",
        secret: false,
        apply: |settings, text| {
            settings.text_fallback = parse::boolean(text)?;
            Ok(())
        },
        read: |settings| SettingValue::Bool(settings.text_fallback),
    },
    KeySpec {
        key: Key::RecordStats,
        name: "record_stats",
        doc: "whether repair statistics are counted and kept in the config directory",
        accepted: "true or false (also yes/no, on/off, 1/0)",
        default: "true",
        environment: "SLMCODE_RECORD_STATS",
        flag: "--record-stats",
        secret: false,
        apply: |settings, text| {
            settings.record_stats = parse::boolean(text)?;
            Ok(())
        },
        read: |settings| SettingValue::Bool(settings.record_stats),
    },
    KeySpec {
        key: Key::ServeListen,
        name: "serve_listen",
        doc: "where `slmcode serve` listens: an address other than 127.0.0.1 or ::1 must be given on purpose",
        accepted: "an IP address and port such as 127.0.0.1:8090 (localhost:PORT is 127.0.0.1; port 0 picks a free one)",
        default: "127.0.0.1:8090",
        environment: "SLMCODE_SERVE_LISTEN",
        flag: "--listen",
        secret: false,
        apply: |settings, text| {
            settings.serve_listen = parse::listen_address(text)?;
            Ok(())
        },
        read: |settings| SettingValue::Text(settings.serve_listen.to_string()),
    },
    KeySpec {
        key: Key::ServeKeyEnv,
        name: "serve_key_env",
        doc: "the NAME of the environment variable that holds the key clients of `slmcode serve` must send (`Authorization: Bearer KEY`); unset: no key is asked for",
        accepted: "an environment variable name such as SLMCODE_PROXY_KEY",
        default: "(unset)",
        environment: "SLMCODE_SERVE_KEY_ENV",
        flag: "--key-env",
        secret: false,
        apply: |settings, text| {
            settings.serve_key_env = Some(parse::variable_name(text)?);
            Ok(())
        },
        read: |settings| optional_text(settings.serve_key_env.as_deref()),
    },
    KeySpec {
        key: Key::ServeMaxConnections,
        name: "serve_max_connections",
        doc: "how many requests `slmcode serve` handles at once; one more is answered 503 at once",
        accepted: "a whole number from 1 to 1024",
        default: "64",
        environment: "SLMCODE_SERVE_MAX_CONNECTIONS",
        flag: "--max-connections",
        secret: false,
        apply: |settings, text| {
            settings.serve_max_connections = narrow(parse::integer(text, 1, 1024)?);
            Ok(())
        },
        read: |settings| SettingValue::Integer(settings.serve_max_connections.into()),
    },
];

fn optional_text(text: Option<&str>) -> SettingValue {
    text.map_or(SettingValue::Unset, |text| {
        SettingValue::Text(text.to_owned())
    })
}

/// Every range above fits in a `u32`; the parsers already enforced it.
fn narrow(number: u64) -> u32 {
    u32::try_from(number).unwrap_or(u32::MAX)
}

impl Key {
    /// Every key, in registry order.
    pub const ALL: [Key; 22] = [
        Key::Provider,
        Key::Endpoint,
        Key::Model,
        Key::ApiKeyEnv,
        Key::ApiKey,
        Key::StructuredDecoding,
        Key::MaxTokens,
        Key::Temperature,
        Key::AntiRepetition,
        Key::Thinking,
        Key::GrammarWhitespace,
        Key::SchemaInPrompt,
        Key::BriefInstructions,
        Key::TimeoutS,
        Key::CallTimeoutS,
        Key::ProbeTimeoutS,
        Key::Reask,
        Key::TextFallback,
        Key::RecordStats,
        Key::ServeListen,
        Key::ServeKeyEnv,
        Key::ServeMaxConnections,
    ];

    /// This key's row in [`KEYS`].
    pub fn spec(self) -> &'static KeySpec {
        &KEYS[self as usize]
    }

    /// The name in `config.toml`.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The key called `name` exactly (keys are lower-case with underscores), or an error that
    /// suggests the nearest one.
    pub fn from_name(name: &str) -> Result<Key, UnknownKey> {
        KEYS.iter()
            .find(|spec| spec.name == name)
            .map(|spec| spec.key)
            .ok_or_else(|| UnknownKey {
                given: name.to_owned(),
                suggestion: nearest(name),
            })
    }

    /// Parses and normalises `text` as this key's value, without touching any settings.
    /// For `endpoint`, the result is tidied but `/v1` is not yet appended (that depends on the
    /// provider; see [`super::resolve`]).
    pub fn parse(self, text: &str) -> Result<SettingValue, InvalidValue> {
        let mut scratch = Settings::default();
        self.apply(&mut scratch, text)?;
        Ok(self.read(&scratch))
    }

    /// Parses `text` and stores it in `settings`.
    pub fn apply(self, settings: &mut Settings, text: &str) -> Result<(), InvalidValue> {
        (self.spec().apply)(settings, text).map_err(|reason| InvalidValue {
            key: self,
            given: self.quotable(text),
            reason,
        })
    }

    /// This key's current value in `settings`.
    pub fn read(self, settings: &Settings) -> SettingValue {
        (self.spec().read)(settings)
    }

    /// `text`, given for this key, as a message or a report may quote it: not at all for a
    /// secret or for a variable name (which may be a pasted key), and for an endpoint without
    /// its userinfo or a key in its query (which may hold a password or a key).
    pub fn quotable(self, text: &str) -> Option<String> {
        if self.spec().secret || matches!(self, Key::ApiKeyEnv | Key::ServeKeyEnv) {
            None
        } else if self == Key::Endpoint {
            Some(redact_endpoint(text))
        } else {
            Some(text.to_owned())
        }
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Key {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// The nearest key to a misspelt name: the smallest edit distance within a third of the
/// name's length (at least 2), else the first key that contains the name or is contained in it.
fn nearest(name: &str) -> Option<Key> {
    let folded = name.trim().to_ascii_lowercase().replace('-', "_");
    let allowed = (folded.len() / 3).max(2);
    let closest = crate::text::nearest(&folded, KEYS.iter().map(|spec| spec.name), |_| allowed)
        .and_then(|name| KEYS.iter().find(|spec| spec.name == name))
        .map(|spec| spec.key);
    closest.or_else(|| {
        (folded.len() >= 3)
            .then(|| {
                KEYS.iter()
                    .find(|spec| spec.name.contains(&folded) || folded.contains(spec.name))
                    .map(|spec| spec.key)
            })
            .flatten()
    })
}

/// Keys earlier versions had and this one does not, with why: a `config.toml` that still holds
/// one is read with a warning (the value is ignored), never refused.
/// - `max_parallel` limited nothing: local engines queue concurrent requests themselves
///   (llama-server's slots, `OLLAMA_NUM_PARALLEL`, vLLM's scheduler), and a caller that runs
///   several calls decides its own concurrency;
/// - `llm_retry_count` and `llm_retry_delay_ms` configured the fixed-delay retry of an
///   "ordinary path" slmcode does not have: every request is retried by the retry policy only.
pub const REMOVED_KEYS: [(&str, &str); 3] = [
    (
        "max_parallel",
        "slmcode never limited concurrency; the server queues parallel requests itself",
    ),
    (
        "llm_retry_count",
        "every request is retried by the retry policy (3 attempts, jittered backoff)",
    ),
    (
        "llm_retry_delay_ms",
        "every request is retried by the retry policy (3 attempts, jittered backoff)",
    ),
];

/// Why `name` is no longer a key, when it is one of [`REMOVED_KEYS`].
pub fn removed_key(name: &str) -> Option<(&'static str, &'static str)> {
    REMOVED_KEYS
        .iter()
        .copied()
        .find(|(removed, _)| *removed == name)
}

/// A name that is not a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", unknown_key_message(given, *suggestion))]
pub struct UnknownKey {
    /// The name as given.
    pub given: String,
    /// The nearest valid key, when one is near.
    pub suggestion: Option<Key>,
}

fn unknown_key_message(given: &str, suggestion: Option<Key>) -> String {
    match (removed_key(given), suggestion) {
        (Some((name, why)), _) => format!("`{name}` is no longer a setting: {why}"),
        (None, Some(key)) => format!(
            "unknown key `{given}`{}",
            crate::text::did_you_mean(key.name())
        ),
        (None, None) => format!("unknown key `{given}`"),
    }
}

/// A value a key does not accept. The message names the key, the reason and the accepted
/// values; it quotes the value as [`Key::quotable`] allows (never a secret, an endpoint without
/// its password).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid value {}for {key}: {reason}; expected {}",
    match given { Some(text) => format!("`{text}` "), None => String::new() },
    key.spec().accepted
)]
pub struct InvalidValue {
    /// The key the value was for.
    pub key: Key,
    /// The text as given, as [`Key::quotable`] quotes it; `None` for values that must not be
    /// echoed.
    pub given: Option<String>,
    /// Why it was refused (`out of range`, `the scheme must be http or https`).
    pub reason: String,
}

#[cfg(test)]
mod tests {
    //! The key registry: order, defaults, every key's parsing and normalising, suggestions.

    use super::*;

    #[test]
    fn the_registry_is_in_key_order_with_unique_names_and_variables() {
        for (index, key) in Key::ALL.iter().enumerate() {
            assert_eq!(KEYS[index].key, *key);
            assert_eq!(key.spec().key, *key);
            assert_eq!(
                key.spec().environment,
                format!("SLMCODE_{}", key.name().to_ascii_uppercase())
            );
            assert_eq!(Key::from_name(key.name()), Ok(*key));
        }
        let mut names: Vec<_> = KEYS.iter().map(|spec| spec.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), KEYS.len());
    }

    #[test]
    fn documented_defaults_match_settings_default() {
        let defaults = Settings::default();
        for spec in &KEYS {
            let value = spec.key.read(&defaults);
            match value {
                SettingValue::Unset => assert!(spec.default.starts_with("(unset"), "{}", spec.name),
                other => assert_eq!(other.display(), spec.default, "{}", spec.name),
            }
        }
    }

    #[track_caller]
    fn normalised(key: Key, text: &str) -> String {
        key.parse(text).unwrap().display()
    }

    #[track_caller]
    fn refused(key: Key, text: &str) -> String {
        key.parse(text).unwrap_err().to_string()
    }

    #[test]
    fn provider_values() {
        assert_eq!(normalised(Key::Provider, "llama.cpp"), "llamacpp");
        assert_eq!(normalised(Key::Provider, "LM-Studio"), "lmstudio");
        assert_eq!(
            normalised(Key::Provider, "openai_compatible"),
            "openai-compatible"
        );
        assert_eq!(
            refused(Key::Provider, "gemini"),
            "invalid value `gemini` for provider: unknown provider; expected openai, azure, vllm, \
         sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible"
        );
    }

    #[test]
    fn endpoint_values() {
        assert_eq!(
            normalised(Key::Endpoint, "http://127.0.0.1:8080/v1/"),
            "http://127.0.0.1:8080/v1"
        );
        // Completion with /v1 happens at resolution, once the provider is known.
        assert_eq!(
            normalised(Key::Endpoint, "http://127.0.0.1:8080"),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            refused(Key::Endpoint, "localhost:8080"),
            "invalid value `localhost:8080` for endpoint: not a URL (it must start with http:// \
         or https://); expected an http(s) base URL such as http://127.0.0.1:8080/v1"
        );
    }

    #[test]
    fn an_endpoint_with_a_password_is_quoted_without_it() {
        assert_eq!(
            refused(Key::Endpoint, "http://me:hunter2@127.0.0.1:8080/v1"),
            "invalid value `http://<redacted>@127.0.0.1:8080/v1` for endpoint: credentials do not \
         belong in the URL (use api_key_env); expected an http(s) base URL such as \
         http://127.0.0.1:8080/v1"
        );
        // Whatever the reason for the refusal, the password is not quoted.
        for given in [
            "me:hunter2@127.0.0.1:8080/v1",
            "http://me:hun/ter2@127.0.0.1:8080/v1",
            "http://me:hunter2@127.0.0.1:8080/v1#part",
        ] {
            let message = refused(Key::Endpoint, given);
            assert!(!message.contains("hunter2"), "{message}");
            assert!(
                message.contains("<redacted>@127.0.0.1:8080/v1"),
                "{message}"
            );
        }
    }

    #[test]
    fn model_values() {
        assert_eq!(
            normalised(Key::Model, " qwen2.5-coder:7b "),
            "qwen2.5-coder:7b"
        );
        assert_eq!(
            refused(Key::Model, " "),
            "invalid value ` ` for model: empty; expected a model id such as qwen2.5-coder:7b"
        );
    }

    #[test]
    fn api_key_env_values_are_never_echoed() {
        assert_eq!(normalised(Key::ApiKeyEnv, "MY_KEY"), "MY_KEY");
        let message = refused(Key::ApiKeyEnv, "sk-proj-abc123");
        assert!(!message.contains("sk-proj"), "{message}");
        assert!(message.starts_with("invalid value for api_key_env: not a variable name"));
    }

    #[test]
    fn api_key_values_are_secret() {
        assert_eq!(
            Key::ApiKey.parse(" sk-abc ").unwrap(),
            SettingValue::Secret(Secret::new("sk-abc"))
        );
        let message = refused(Key::ApiKey, "sk-abc def");
        assert!(!message.contains("sk-abc"), "{message}");
        assert_eq!(
            message,
            "invalid value for api_key: contains whitespace or a control character; expected a key without spaces"
        );
    }

    #[test]
    fn structured_decoding_values() {
        assert_eq!(normalised(Key::StructuredDecoding, "prompt-only"), "off");
        assert_eq!(normalised(Key::StructuredDecoding, "NONE"), "off");
        assert_eq!(normalised(Key::StructuredDecoding, "Auto"), "auto");
        assert_eq!(
            refused(Key::StructuredDecoding, "on"),
            "invalid value `on` for structured_decoding: unknown mode; expected auto, off \
         (aliases for off: none, false, 0, prompt, prompt-only)"
        );
    }

    #[test]
    fn integer_values_and_their_ranges() {
        for (key, low, high) in [
            (Key::MaxTokens, "1", "1000000"),
            (Key::TimeoutS, "1", "86400"),
            (Key::ProbeTimeoutS, "1", "3600"),
            (Key::Reask, "0", "5"),
        ] {
            assert_eq!(normalised(key, low), low, "{key}");
            assert_eq!(normalised(key, high), high, "{key}");
            let below = low.parse::<u64>().unwrap().checked_sub(1);
            if let Some(below) = below {
                assert!(key.parse(&below.to_string()).is_err(), "{key} {below}");
            }
            let above = high.parse::<u64>().unwrap() + 1;
            assert!(key.parse(&above.to_string()).is_err(), "{key} {above}");
            assert!(key.parse("-1").is_err(), "{key}");
            assert!(key.parse("1.5").is_err(), "{key}");
        }
        assert_eq!(
            refused(Key::MaxTokens, "0"),
            "invalid value `0` for max_tokens: out of range; expected a whole number from 1 to 1000000"
        );
    }

    #[test]
    fn temperature_values() {
        assert_eq!(
            Key::Temperature.parse("0.2").unwrap(),
            SettingValue::Float(0.2)
        );
        assert_eq!(
            Key::Temperature.parse("1").unwrap(),
            SettingValue::Float(1.0)
        );
        assert_eq!(
            refused(Key::Temperature, "3"),
            "invalid value `3` for temperature: out of range; expected a number from 0 to 2"
        );
    }

    #[test]
    fn record_stats_values() {
        assert_eq!(
            Key::RecordStats.parse("no").unwrap(),
            SettingValue::Bool(false)
        );
        assert_eq!(
            Key::RecordStats.parse("ON").unwrap(),
            SettingValue::Bool(true)
        );
        assert_eq!(
            refused(Key::RecordStats, "sometimes"),
            "invalid value `sometimes` for record_stats: not a switch; expected true or false \
         (also yes/no, on/off, 1/0)"
        );
    }

    #[test]
    fn text_fallback_is_a_switch_off_by_default() {
        assert_eq!(
            Key::TextFallback.read(&Settings::default()),
            SettingValue::Bool(false)
        );
        assert_eq!(
            Key::TextFallback.parse("on").unwrap(),
            SettingValue::Bool(true)
        );
        assert_eq!(
            refused(Key::TextFallback, "prose"),
            "invalid value `prose` for text_fallback: not a switch; expected true or false \
         (also yes/no, on/off, 1/0)"
        );
    }

    #[test]
    fn thinking_values() {
        assert_eq!(normalised(Key::Thinking, " AUTO "), "auto");
        for (text, mode) in [
            ("yes", "on"),
            ("1", "on"),
            ("True", "on"),
            ("no", "off"),
            ("0", "off"),
        ] {
            assert_eq!(normalised(Key::Thinking, text), mode, "{text}");
        }
        assert_eq!(
            refused(Key::Thinking, "sometimes"),
            "invalid value `sometimes` for thinking: unknown mode; expected auto, off, on"
        );
    }

    #[test]
    fn unknown_keys_suggest_the_nearest() {
        for (given, suggestion) in [
            ("max_token", Some(Key::MaxTokens)),
            ("modle", Some(Key::Model)),
            ("max-tokens", Some(Key::MaxTokens)),
            ("timeout", Some(Key::TimeoutS)),
            ("Provider", Some(Key::Provider)),
            ("structured", Some(Key::StructuredDecoding)),
            ("zzzzzzzz", None),
        ] {
            assert_eq!(
                Key::from_name(given).unwrap_err().suggestion,
                suggestion,
                "{given}"
            );
        }
        assert_eq!(
            Key::from_name("max_token").unwrap_err().to_string(),
            "unknown key `max_token` (did you mean `max_tokens`?)"
        );
        assert_eq!(
            Key::from_name("qqq").unwrap_err().to_string(),
            "unknown key `qqq`"
        );
    }
}
