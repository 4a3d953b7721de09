//! The constraint mechanisms, strongest first, and their names on the command line, in the
//! settings and in the capabilities cache.

use std::fmt;
use std::str::FromStr;

/// A way of asking an endpoint for structured output, strongest first.
///
/// The order of the variants is the mechanism chain's order: [`Mechanism::next_weaker`]
/// walks it down, and `Ord` compares strength (`JsonSchema < PromptOnly` means json_schema is
/// stronger).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mechanism {
    /// `response_format: {"type": "json_schema", ...}`.
    JsonSchema,
    /// vLLM guided decoding (`structured_outputs.json`, or the legacy `guided_json`).
    GuidedJson,
    /// A GBNF grammar in the `grammar` field (llama.cpp's server, LM Studio with GGUF models).
    GbnfGrammar,
    /// `response_format: {"type": "json_object"}`: some JSON, no shape.
    JsonObject,
    /// Nothing on the wire: the schema is described in the prompt and the output repaired.
    PromptOnly,
}

impl Mechanism {
    /// Every mechanism, strongest first.
    pub const ALL: [Mechanism; 5] = [
        Mechanism::JsonSchema,
        Mechanism::GuidedJson,
        Mechanism::GbnfGrammar,
        Mechanism::JsonObject,
        Mechanism::PromptOnly,
    ];

    /// The name used on the command line, in settings, in the cache and in `--json` output.
    pub const fn as_str(self) -> &'static str {
        match self {
            Mechanism::JsonSchema => "json_schema",
            Mechanism::GuidedJson => "guided_json",
            Mechanism::GbnfGrammar => "gbnf_grammar",
            Mechanism::JsonObject => "json_object",
            Mechanism::PromptOnly => "prompt_only",
        }
    }

    /// Rank in the mechanism chain: 1 for the strongest, 5 for the floor.
    pub const fn rank(self) -> u8 {
        self as u8 + 1
    }

    /// The next mechanism down, or `None` at the floor.
    pub const fn next_weaker(self) -> Option<Mechanism> {
        match self {
            Mechanism::JsonSchema => Some(Mechanism::GuidedJson),
            Mechanism::GuidedJson => Some(Mechanism::GbnfGrammar),
            Mechanism::GbnfGrammar => Some(Mechanism::JsonObject),
            Mechanism::JsonObject => Some(Mechanism::PromptOnly),
            Mechanism::PromptOnly => None,
        }
    }

    /// Whether the server is asked to enforce a shape (or at least JSON) while decoding.
    pub const fn constrains(self) -> bool {
        !matches!(self, Mechanism::PromptOnly)
    }
}

impl fmt::Display for Mechanism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mechanism name that is not one of [`Mechanism::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown mechanism `{0}`; expected one of: json_schema, guided_json, gbnf_grammar, json_object, prompt_only"
)]
pub struct UnknownMechanism(
    /// The name as it was given.
    pub String,
);

impl FromStr for Mechanism {
    type Err = UnknownMechanism;

    /// Accepts the canonical names, case-insensitively, with `-` for `_`, and the short
    /// forms users type (`grammar`, `gbnf`, `json`, `prompt`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let folded = text.trim().to_ascii_lowercase().replace('-', "_");
        Ok(match folded.as_str() {
            "json_schema" => Mechanism::JsonSchema,
            "guided_json" | "structured_outputs" => Mechanism::GuidedJson,
            "gbnf_grammar" | "gbnf" | "grammar" => Mechanism::GbnfGrammar,
            "json_object" | "json" | "json_mode" => Mechanism::JsonObject,
            "prompt_only" | "prompt" => Mechanism::PromptOnly,
            _ => return Err(UnknownMechanism(text.to_owned())),
        })
    }
}

impl serde::Serialize for Mechanism {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Mechanism {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_walks_down_in_rank_order() {
        let mut walked = vec![Mechanism::JsonSchema];
        while let Some(next) = walked.last().unwrap().next_weaker() {
            walked.push(next);
        }
        assert_eq!(walked, Mechanism::ALL);
        let ranks: Vec<u8> = walked.iter().map(|m| m.rank()).collect();
        assert_eq!(ranks, [1, 2, 3, 4, 5]);
    }

    #[test]
    fn names_round_trip_and_aliases_parse() {
        for mechanism in Mechanism::ALL {
            assert_eq!(mechanism.as_str().parse::<Mechanism>().unwrap(), mechanism);
            let json = serde_json::to_string(&mechanism).unwrap();
            assert_eq!(serde_json::from_str::<Mechanism>(&json).unwrap(), mechanism);
        }
        assert_eq!("GBNF".parse::<Mechanism>().unwrap(), Mechanism::GbnfGrammar);
        assert_eq!(
            "prompt-only".parse::<Mechanism>().unwrap(),
            Mechanism::PromptOnly
        );
        let error = "xml".parse::<Mechanism>().unwrap_err();
        assert!(error.to_string().contains("json_schema"), "{error}");
    }
}
