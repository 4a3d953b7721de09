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
