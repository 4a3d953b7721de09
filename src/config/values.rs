//! The value types of individual settings: `structured_decoding`, the redacting [`Secret`],
//! and [`SettingValue`], one setting's normalised value as commands show and write it.

use std::fmt;
use std::str::FromStr;

/// Whether slmcode negotiates constrained decoding (`auto`) or always sends prompt-only
/// requests and relies on repair (`off`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StructuredDecoding {
    /// Negotiate the strongest mechanism the endpoint really supports.
    #[default]
    Auto,
    /// Prompt-only JSON and repair; nothing constrained on the wire.
    Off,
}

impl StructuredDecoding {
    /// The normalised spelling, as stored in the settings file.
    pub const fn as_str(self) -> &'static str {
        match self {
            StructuredDecoding::Auto => "auto",
            StructuredDecoding::Off => "off",
        }
    }
}

impl fmt::Display for StructuredDecoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `structured_decoding` value that is neither `auto`, `off`, nor an alias of `off`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid structured_decoding `{0}`; accepted: auto, off (or for off: none, false, 0, prompt, prompt-only)"
)]
pub struct InvalidStructuredDecoding(
    /// The value as it was given.
    pub String,
);

impl FromStr for StructuredDecoding {
    type Err = InvalidStructuredDecoding;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(StructuredDecoding::Auto),
            "off" | "none" | "false" | "0" | "prompt" | "prompt-only" => {
                Ok(StructuredDecoding::Off)
            }
            _ => Err(InvalidStructuredDecoding(text.to_owned())),
        }
    }
}

impl serde::Serialize for StructuredDecoding {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// When structured requests carry the engine's anti-repetition sampling (penalties on repeated
/// tokens and sequences, where the engine has them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum AntiRepetition {
    /// Every request: small models loop less from the first answer on.
    #[default]
    Always,
    /// Only the re-ask after an answer that looped.
    Reask,
    /// Never; a loop is still cut off and re-asked with a fresh seed and a small temperature.
    Off,
}

impl AntiRepetition {
    /// The spelling stored in the settings file.
    pub const fn as_str(self) -> &'static str {
        match self {
            AntiRepetition::Always => "always",
            AntiRepetition::Reask => "reask",
            AntiRepetition::Off => "off",
        }
    }
}

impl fmt::Display for AntiRepetition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for AntiRepetition {
    type Err = ();

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "always" | "on" | "true" => Ok(AntiRepetition::Always),
            "reask" => Ok(AntiRepetition::Reask),
            "off" | "never" | "false" => Ok(AntiRepetition::Off),
            _ => Err(()),
        }
    }
}

/// Whether a thinking model is asked to think before it answers, where the engine takes the
/// switch (`chat_template_kwargs.enable_thinking` on llama.cpp, vLLM and SGLang,
/// `reasoning_effort` on Ollama's `/v1`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Thinking {
    /// Nothing is sent: the model thinks or not as its chat template says. Stop sequences are
    /// applied by slmcode after the reasoning, never by the server.
    #[default]
    Auto,
    /// Asks the engine to skip the reasoning: shorter, faster answers from a thinking model.
    Off,
    /// Asks the engine for the reasoning.
    On,
}

impl Thinking {
    /// The spelling stored in the settings file.
    pub const fn as_str(self) -> &'static str {
        match self {
            Thinking::Auto => "auto",
            Thinking::Off => "off",
            Thinking::On => "on",
        }
    }
}

impl fmt::Display for Thinking {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Thinking {
    type Err = ();

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if text.trim().eq_ignore_ascii_case("auto") {
            return Ok(Thinking::Auto);
        }
        match super::parse::boolean(text) {
            Ok(true) => Ok(Thinking::On),
            Ok(false) => Ok(Thinking::Off),
            Err(_) => Err(()),
        }
    }
}

/// An API key. It is never shown: `Debug` prints a placeholder, there is no `Display`, and
/// [`Secret::expose`] is the one way to reach the text (for the request header).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Secret {
        Secret(key.into())
    }

    /// The key itself, for the one place that needs it: the request's auth header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// One setting's value after parsing and normalising, in the form `config get`, `config list`
/// and `readiness` show it and `config set` writes it.
///
/// In JSON: `null` when unset, a string, a number or a boolean; an API key is always the string
/// `"<set>"`, never its text.
#[derive(Clone, Debug, PartialEq)]
pub enum SettingValue {
    /// No value: the key's default is "nothing" (no model, no key, the preset's endpoint).
    Unset,
    /// A name, URL or identifier, normalised (`llamacpp`, `off`, `http://127.0.0.1:8080/v1`).
    Text(String),
    /// A whole number (counts, milliseconds, seconds, tokens).
    Integer(u64),
    /// A number with a fractional part (temperature).
    Float(f64),
    /// A switch.
    Bool(bool),
    /// An API key: shown as `<set>`, written to the file only through [`SettingValue::to_toml`].
    Secret(Secret),
}

impl SettingValue {
    /// The text a person reads: the value itself, `<set>` for a key, `(unset)` for nothing.
    pub fn display(&self) -> String {
        match self {
            SettingValue::Unset => "(unset)".to_owned(),
            SettingValue::Text(text) => text.clone(),
            SettingValue::Integer(number) => number.to_string(),
            SettingValue::Float(number) => number.to_string(),
            SettingValue::Bool(flag) => flag.to_string(),
            SettingValue::Secret(_) => "<set>".to_owned(),
        }
    }

    /// The TOML value `config set` writes: typed (an integer stays an integer), the key's text
    /// for a secret. `None` for [`SettingValue::Unset`], which is written by removing the key.
    pub fn to_toml(&self) -> Option<toml_edit::Value> {
        Some(match self {
            SettingValue::Unset => return None,
            SettingValue::Text(text) => toml_edit::Value::from(text.as_str()),
            SettingValue::Integer(number) => toml_edit::Value::from(i64::try_from(*number).ok()?),
            SettingValue::Float(number) => toml_edit::Value::from(*number),
            SettingValue::Bool(flag) => toml_edit::Value::from(*flag),
            SettingValue::Secret(secret) => toml_edit::Value::from(secret.expose()),
        })
    }
}

impl serde::Serialize for SettingValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SettingValue::Unset => serializer.serialize_none(),
            SettingValue::Text(text) => serializer.serialize_str(text),
            SettingValue::Integer(number) => serializer.serialize_u64(*number),
            SettingValue::Float(number) => serializer.serialize_f64(*number),
            SettingValue::Bool(flag) => serializer.serialize_bool(*flag),
            SettingValue::Secret(_) => serializer.serialize_str("<set>"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structured_decoding_aliases_normalise_to_off() {
        for alias in [
            "off",
            "none",
            "FALSE",
            "0",
            "prompt",
            "Prompt-Only",
            " off ",
        ] {
            assert_eq!(
                alias.parse::<StructuredDecoding>().unwrap(),
                StructuredDecoding::Off,
                "{alias}"
            );
        }
        assert_eq!(
            "AUTO".parse::<StructuredDecoding>().unwrap(),
            StructuredDecoding::Auto
        );
        let error = "on".parse::<StructuredDecoding>().unwrap_err().to_string();
        assert!(error.contains("auto, off"), "{error}");
    }

    #[test]
    fn secrets_do_not_debug_print() {
        let secret = Secret::new("sk-live-123");
        assert_eq!(format!("{secret:?}"), "Secret(<redacted>)");
        assert_eq!(secret.expose(), "sk-live-123");
    }

    #[test]
    fn a_secret_value_never_shows_its_text() {
        let value = SettingValue::Secret(Secret::new("sk-live-123"));
        assert_eq!(value.display(), "<set>");
        assert_eq!(serde_json::to_string(&value).unwrap(), r#""<set>""#);
        assert!(!format!("{value:?}").contains("sk-live"));
        assert_eq!(value.to_toml().unwrap().as_str(), Some("sk-live-123"));
    }

    #[test]
    fn values_serialise_typed() {
        assert_eq!(serde_json::to_string(&SettingValue::Unset).unwrap(), "null");
        assert_eq!(
            serde_json::to_string(&SettingValue::Integer(4)).unwrap(),
            "4"
        );
        assert_eq!(
            serde_json::to_string(&SettingValue::Float(0.5)).unwrap(),
            "0.5"
        );
        assert_eq!(
            serde_json::to_string(&SettingValue::Bool(true)).unwrap(),
            "true"
        );
        assert_eq!(SettingValue::Float(0.0).display(), "0");
        assert_eq!(SettingValue::Unset.display(), "(unset)");
        assert_eq!(
            SettingValue::Integer(7).to_toml().unwrap().as_integer(),
            Some(7)
        );
    }
}
