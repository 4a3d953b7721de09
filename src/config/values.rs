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
}
