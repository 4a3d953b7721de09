//! The key registry: every setting's name, what it is for, the values it accepts, its default,
//! its environment variable and flag, and the one function that parses and normalises its text.
//!
//! [`KEYS`] is the single table that resolution, `config get/set/unset/list`, `readiness`, the
//! README and error messages read. Adding a setting means adding a field to
//! [`Settings`](super::Settings), a [`Key`] variant and a row here.

use std::fmt;

use super::parse;
use super::values::{Secret, StructuredDecoding, Value};
use super::{Provider, Settings};

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
    /// `timeout_s`
    TimeoutS,
    /// `probe_timeout_s`
    ProbeTimeoutS,
    /// `max_parallel`
    MaxParallel,
    /// `llm_retry_count`
    LlmRetryCount,
    /// `llm_retry_delay_ms`
    LlmRetryDelayMs,
    /// `reask`
    Reask,
    /// `record_stats`
    RecordStats,
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
    read: fn(&Settings) -> Value,
}

/// The registry, in [`Key`] order (a test holds that).
pub static KEYS: [KeySpec; 15] = [
    KeySpec {
        key: Key::Provider,
        name: "provider",
        doc: "the kind of server: decides the default endpoint, the key variable and which mechanisms are probed",
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
        read: |settings| Value::Text(settings.provider.as_str().to_owned()),
    },
    KeySpec {
        key: Key::Endpoint,
        name: "endpoint",
        doc: "the OpenAI-style base URL; a bare server address gets /v1 appended (not for azure)",
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
            Some(secret) => Value::Secret(secret.clone()),
            None => Value::Unset,
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
        read: |settings| Value::Text(settings.structured_decoding.as_str().to_owned()),
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
        read: |settings| Value::Integer(settings.max_tokens.into()),
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
        read: |settings| Value::Float(settings.temperature),
    },
    KeySpec {
        key: Key::TimeoutS,
        name: "timeout_s",
        doc: "timeout of one request, in seconds (a cold local model loads within it)",
        accepted: "a whole number of seconds from 1 to 86400",
        default: "120",
        environment: "SLMCODE_TIMEOUT_S",
        flag: "--timeout",
        secret: false,
        apply: |settings, text| {
            settings.timeout_s = parse::integer(text, 1, 86_400)?;
            Ok(())
        },
        read: |settings| Value::Integer(settings.timeout_s),
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
        read: |settings| Value::Integer(settings.probe_timeout_s),
    },
    KeySpec {
        key: Key::MaxParallel,
        name: "max_parallel",
        doc: "how many requests may be in flight against the endpoint at once",
        accepted: "a whole number from 1 to 256",
        default: "1",
        environment: "SLMCODE_MAX_PARALLEL",
        flag: "--max-parallel",
        secret: false,
        apply: |settings, text| {
            settings.max_parallel = narrow(parse::integer(text, 1, 256)?);
            Ok(())
        },
        read: |settings| Value::Integer(settings.max_parallel.into()),
    },
    KeySpec {
        key: Key::LlmRetryCount,
        name: "llm_retry_count",
        doc: "fixed-delay retries of the ordinary (unstructured) path; structured requests never use them",
        accepted: "a whole number from 0 to 10",
        default: "2",
        environment: "SLMCODE_LLM_RETRY_COUNT",
        flag: "--llm-retry-count",
        secret: false,
        apply: |settings, text| {
            settings.llm_retry_count = narrow(parse::integer(text, 0, 10)?);
            Ok(())
        },
        read: |settings| Value::Integer(settings.llm_retry_count.into()),
    },
    KeySpec {
        key: Key::LlmRetryDelayMs,
        name: "llm_retry_delay_ms",
        doc: "the delay between those retries, in milliseconds",
        accepted: "a whole number of milliseconds from 0 to 600000",
        default: "1000",
        environment: "SLMCODE_LLM_RETRY_DELAY_MS",
        flag: "--llm-retry-delay-ms",
        secret: false,
        apply: |settings, text| {
            settings.llm_retry_delay_ms = parse::integer(text, 0, 600_000)?;
            Ok(())
        },
        read: |settings| Value::Integer(settings.llm_retry_delay_ms),
    },
    KeySpec {
        key: Key::Reask,
        name: "reask",
        doc: "how many failure-matched repair prompts one structured call may send",
        accepted: "a whole number from 0 to 5",
        default: "1",
        environment: "SLMCODE_REASK",
        flag: "--reask",
        secret: false,
        apply: |settings, text| {
            settings.reask = narrow(parse::integer(text, 0, 5)?);
            Ok(())
        },
        read: |settings| Value::Integer(settings.reask.into()),
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
        read: |settings| Value::Bool(settings.record_stats),
    },
];

fn optional_text(text: Option<&str>) -> Value {
    text.map_or(Value::Unset, |text| Value::Text(text.to_owned()))
}

/// Every range above fits in a `u32`; the parsers already enforced it.
fn narrow(number: u64) -> u32 {
    u32::try_from(number).unwrap_or(u32::MAX)
}

impl Key {
    /// Every key, in registry order.
    pub const ALL: [Key; 15] = [
        Key::Provider,
        Key::Endpoint,
        Key::Model,
        Key::ApiKeyEnv,
        Key::ApiKey,
        Key::StructuredDecoding,
        Key::MaxTokens,
        Key::Temperature,
        Key::TimeoutS,
        Key::ProbeTimeoutS,
        Key::MaxParallel,
        Key::LlmRetryCount,
        Key::LlmRetryDelayMs,
        Key::Reask,
        Key::RecordStats,
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
    pub fn parse(self, text: &str) -> Result<Value, InvalidValue> {
        let mut scratch = Settings::default();
        self.apply(&mut scratch, text)?;
        Ok(self.read(&scratch))
    }

    /// Parses `text` and stores it in `settings`.
    pub fn apply(self, settings: &mut Settings, text: &str) -> Result<(), InvalidValue> {
        (self.spec().apply)(settings, text).map_err(|reason| InvalidValue {
            key: self,
            given: (!self.hides_given()).then(|| text.to_owned()),
            reason,
        })
    }

    /// This key's current value in `settings`.
    pub fn read(self, settings: &Settings) -> Value {
        (self.spec().read)(settings)
    }

    /// A secret, and a variable name that may be a pasted secret, are never echoed.
    fn hides_given(self) -> bool {
        self.spec().secret || self == Key::ApiKeyEnv
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
    let closest = KEYS
        .iter()
        .map(|spec| (edit_distance(&folded, spec.name), spec.key))
        .min_by_key(|(distance, _)| *distance)
        .filter(|(distance, _)| *distance <= allowed)
        .map(|(_, key)| key);
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

/// Levenshtein distance over bytes (key names are ASCII).
fn edit_distance(left: &str, right: &str) -> usize {
    let right = right.as_bytes();
    let mut previous: Vec<usize> = (0..=right.len()).collect();
    let mut current = vec![0; right.len() + 1];
    for (row, left_byte) in left.bytes().enumerate() {
        current[0] = row + 1;
        for (column, right_byte) in right.iter().enumerate() {
            let substitution = previous[column] + usize::from(left_byte != *right_byte);
            current[column + 1] = substitution
                .min(previous[column + 1] + 1)
                .min(current[column] + 1);
        }
        std::mem::swap(&mut previous, &mut current);
    }
    previous[right.len()]
}

/// A name that is not a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown key `{given}`{}", match suggestion { Some(key) => format!("; did you mean `{key}`?"), None => String::new() })]
pub struct UnknownKey {
    /// The name as given.
    pub given: String,
    /// The nearest valid key, when one is near.
    pub suggestion: Option<Key>,
}

/// A value a key does not accept. The message names the key, the reason and the accepted
/// values; it quotes the value except for secrets.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid value {}for {key}: {reason}; expected {}",
    match given { Some(text) => format!("`{text}` "), None => String::new() },
    key.spec().accepted
)]
pub struct InvalidValue {
    /// The key the value was for.
    pub key: Key,
    /// The text as given; `None` for values that must not be echoed.
    pub given: Option<String>,
    /// Why it was refused (`out of range`, `the scheme must be http or https`).
    pub reason: String,
}

#[cfg(test)]
mod tests {
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
                Value::Unset => assert!(spec.default.starts_with("(unset"), "{}", spec.name),
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
            Value::Secret(Secret::new("sk-abc"))
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
            (Key::MaxParallel, "1", "256"),
            (Key::LlmRetryCount, "0", "10"),
            (Key::LlmRetryDelayMs, "0", "600000"),
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
        assert_eq!(Key::Temperature.parse("0.2").unwrap(), Value::Float(0.2));
        assert_eq!(Key::Temperature.parse("1").unwrap(), Value::Float(1.0));
        assert_eq!(
            refused(Key::Temperature, "3"),
            "invalid value `3` for temperature: out of range; expected a number from 0 to 2"
        );
    }

    #[test]
    fn record_stats_values() {
        assert_eq!(Key::RecordStats.parse("no").unwrap(), Value::Bool(false));
        assert_eq!(Key::RecordStats.parse("ON").unwrap(), Value::Bool(true));
        assert_eq!(
            refused(Key::RecordStats, "sometimes"),
            "invalid value `sometimes` for record_stats: not a switch; expected true or false \
             (also yes/no, on/off, 1/0)"
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
            "unknown key `max_token`; did you mean `max_tokens`?"
        );
        assert_eq!(
            Key::from_name("qqq").unwrap_err().to_string(),
            "unknown key `qqq`"
        );
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("model", "model"), 0);
    }
}
