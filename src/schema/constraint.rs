//! What one structured request carries to hold the model to a schema, per mechanism: the
//! output of projection ([`crate::schema::project`]) and the input of the transport, which
//! writes it in the field names the engine wants.

use serde_json::Value;

use super::Mechanism;

/// The constraint one structured request carries, after projection for its mechanism.
///
/// This is the meaning, not the bytes: the transport decides the field names a given engine
/// wants (vLLM's `structured_outputs` or legacy `guided_json`, llama-server's `grammar`).
#[derive(Clone, Debug, PartialEq)]
pub enum Constraint {
    /// `response_format: {"type": "json_schema", "json_schema": {name, schema, strict}}`.
    JsonSchema {
        /// The `name` OpenAI requires (`^[a-zA-Z0-9_-]{1,64}$`).
        name: String,
        /// The projected schema.
        schema: Value,
        /// Whether to ask for `strict: true`; only for a schema that meets the strict rules.
        strict: bool,
    },
    /// vLLM guided decoding with a JSON Schema.
    GuidedJson {
        /// The projected schema.
        schema: Value,
    },
    /// A GBNF grammar.
    Grammar {
        /// The grammar text, with a `root` rule.
        gbnf: String,
    },
    /// `response_format: {"type": "json_object"}`.
    JsonObject,
    /// Nothing on the wire.
    None,
}

impl Constraint {
    /// The mechanism this constraint belongs to.
    pub fn mechanism(&self) -> Mechanism {
        match self {
            Constraint::JsonSchema { .. } => Mechanism::JsonSchema,
            Constraint::GuidedJson { .. } => Mechanism::GuidedJson,
            Constraint::Grammar { .. } => Mechanism::GbnfGrammar,
            Constraint::JsonObject => Mechanism::JsonObject,
            Constraint::None => Mechanism::PromptOnly,
        }
    }
}
