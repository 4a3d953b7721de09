//! Capabilities: what an endpoint was found to do with each constrained-decoding wire form, and
//! the mechanism that follows from it.
//!
//! A [`WireForm`] is one concrete way of sending a constraint (json_schema with and without
//! `strict`, vLLM's `structured_outputs` and legacy `guided_json`, `grammar`, `json_object`).
//! Probing records a [`FormOutcome`] per form; [`Capabilities::select`] picks the strongest form
//! that is supported and not demoted. The zero value, [`Capabilities::floor`], is `prompt_only`:
//! an unreachable or hostile endpoint degrades instead of failing. Uses `schema` only.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::schema::Mechanism;

/// One concrete wire form of a constraint. Each is probed, cached and demoted on its own, so a
/// server that rejects `strict: true` keeps json_schema without strict, and a vLLM that dropped
/// `guided_json` keeps `structured_outputs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum WireForm {
    /// `response_format: {"type": "json_schema", "json_schema": {..., "strict": true}}`.
    JsonSchemaStrict,
    /// The same without `strict` (or `strict: false`).
    JsonSchema,
    /// vLLM 0.10.2 and later: `structured_outputs: {"json": schema}`.
    StructuredOutputs,
    /// vLLM before 0.12: `guided_json: schema` (deprecated in 0.10.2, removed in 0.12).
    GuidedJson,
    /// llama.cpp's `grammar: "<GBNF>"`.
    Grammar,
    /// `response_format: {"type": "json_object"}`.
    JsonObject,
}

impl WireForm {
    /// Every wire form, strongest first.
    pub const ALL: [WireForm; 6] = [
        WireForm::JsonSchemaStrict,
        WireForm::JsonSchema,
        WireForm::StructuredOutputs,
        WireForm::GuidedJson,
        WireForm::Grammar,
        WireForm::JsonObject,
    ];

    /// The name used in the cache, in `--json` output and in messages.
    pub const fn as_str(self) -> &'static str {
        match self {
            WireForm::JsonSchemaStrict => "json_schema_strict",
            WireForm::JsonSchema => "json_schema",
            WireForm::StructuredOutputs => "structured_outputs",
            WireForm::GuidedJson => "guided_json",
            WireForm::Grammar => "grammar",
            WireForm::JsonObject => "json_object",
        }
    }

    /// The mechanism this form belongs to.
    pub const fn mechanism(self) -> Mechanism {
        match self {
            WireForm::JsonSchemaStrict | WireForm::JsonSchema => Mechanism::JsonSchema,
            WireForm::StructuredOutputs | WireForm::GuidedJson => Mechanism::GuidedJson,
            WireForm::Grammar => Mechanism::GbnfGrammar,
            WireForm::JsonObject => Mechanism::JsonObject,
        }
    }

    /// What goes on the wire, for humans (`doctor`, `probe`).
    pub const fn wire(self) -> &'static str {
        match self {
            WireForm::JsonSchemaStrict => "response_format json_schema, strict: true",
            WireForm::JsonSchema => "response_format json_schema, no strict",
            WireForm::StructuredOutputs => "structured_outputs.json (vLLM >= 0.10.2)",
            WireForm::GuidedJson => "guided_json (vLLM < 0.12)",
            WireForm::Grammar => "grammar (GBNF)",
            WireForm::JsonObject => "response_format json_object",
        }
    }
}

impl fmt::Display for WireForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which field vLLM guided decoding goes in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GuidedField {
    /// `structured_outputs: {"json": schema}` (vLLM 0.10.2 and later).
    #[default]
    StructuredOutputs,
    /// `guided_json: schema` (vLLM before 0.12).
    GuidedJson,
}

impl GuidedField {
    /// The wire form that carries guided decoding in this field.
    pub const fn wire_form(self) -> WireForm {
        match self {
            GuidedField::StructuredOutputs => WireForm::StructuredOutputs,
            GuidedField::GuidedJson => WireForm::GuidedJson,
        }
    }
}

/// What a probe found out about one wire form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum FormOutcome {
    /// The server accepted the field and the answer satisfied the probe schema: enforced.
    Supported,
    /// The server said no: the status and a short excerpt of its body.
    Rejected {
        /// The HTTP status.
        status: u16,
        /// The first few hundred characters of the body.
        body: String,
    },
    /// The server accepted the field (2xx) but the answer did not satisfy it: not trusted.
    NotEnforced {
        /// The first characters of the answer, so the user sees what came back.
        answer: String,
    },
    /// Not probed, or no conclusion (not worth probing for this provider, no answer in time,
    /// the plain request failed as well, an answer cut twice by `max_tokens`).
    Untested {
        /// Why.
        reason: String,
    },
}

impl FormOutcome {
    /// The outcome's name: `supported`, `rejected`, `not_enforced`, `untested`.
    pub const fn name(&self) -> &'static str {
        match self {
            FormOutcome::Supported => "supported",
            FormOutcome::Rejected { .. } => "rejected",
            FormOutcome::NotEnforced { .. } => "not_enforced",
            FormOutcome::Untested { .. } => "untested",
        }
    }

    /// Why, in one line, for tables.
    pub fn detail(&self) -> String {
        match self {
            FormOutcome::Supported => "accepted and enforced".to_owned(),
            FormOutcome::Rejected { status, body } => format!("HTTP {status}: {body}"),
            FormOutcome::NotEnforced { answer } => {
                format!("accepted, but the answer ignored it: {answer}")
            }
            FormOutcome::Untested { reason } => reason.clone(),
        }
    }

    /// Whether this outcome lets the form be selected.
    pub const fn is_supported(&self) -> bool {
        matches!(self, FormOutcome::Supported)
    }
}

/// The mechanism to use for an endpoint and how sure slmcode is about it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    /// The selected mechanism.
    pub mechanism: Mechanism,
    /// Whether json_schema requests carry `strict: true`.
    pub strict: bool,
    /// Which field guided decoding uses (meaningful with `guided_json`).
    pub guided_field: GuidedField,
    /// Whether a successful probe stands behind this; a prior is a hint, not a finding.
    pub probed: bool,
    /// What each wire form did when probed (every form has an entry once probed).
    pub outcomes: BTreeMap<WireForm, FormOutcome>,
}

impl Capabilities {
    /// The zero value: prompt-only with repair, nothing probed.
    pub fn floor() -> Capabilities {
        Capabilities {
            mechanism: Mechanism::PromptOnly,
            strict: false,
            guided_field: GuidedField::default(),
            probed: false,
            outcomes: BTreeMap::new(),
        }
    }

    /// The strongest supported form among `outcomes`, skipping `demoted` ones.
    pub fn select(
        outcomes: BTreeMap<WireForm, FormOutcome>,
        demoted: &[WireForm],
        probed: bool,
    ) -> Capabilities {
        let usable = |form: WireForm| {
            !demoted.contains(&form) && outcomes.get(&form).is_some_and(FormOutcome::is_supported)
        };
        let mut capabilities = Capabilities {
            probed,
            ..Capabilities::floor()
        };
        if let Some(form) = WireForm::ALL.into_iter().find(|form| usable(*form)) {
            capabilities.mechanism = form.mechanism();
            capabilities.strict = form == WireForm::JsonSchemaStrict;
            capabilities.guided_field = if form == WireForm::GuidedJson {
                GuidedField::GuidedJson
            } else {
                GuidedField::StructuredOutputs
            };
        }
        capabilities.outcomes = outcomes;
        capabilities
    }

    /// The wire form requests will use, or `None` for prompt-only.
    pub fn wire_form(&self) -> Option<WireForm> {
        match self.mechanism {
            Mechanism::JsonSchema if self.strict => Some(WireForm::JsonSchemaStrict),
            Mechanism::JsonSchema => Some(WireForm::JsonSchema),
            Mechanism::GuidedJson => Some(self.guided_field.wire_form()),
            Mechanism::GbnfGrammar => Some(WireForm::Grammar),
            Mechanism::JsonObject => Some(WireForm::JsonObject),
            Mechanism::PromptOnly => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcomes(supported: &[WireForm]) -> BTreeMap<WireForm, FormOutcome> {
        WireForm::ALL
            .into_iter()
            .map(|form| {
                let outcome = if supported.contains(&form) {
                    FormOutcome::Supported
                } else {
                    FormOutcome::NotEnforced {
                        answer: "Sure!".to_owned(),
                    }
                };
                (form, outcome)
            })
            .collect()
    }

    #[test]
    fn the_strongest_supported_form_wins() {
        let selected = Capabilities::select(
            outcomes(&[WireForm::JsonSchemaStrict, WireForm::Grammar]),
            &[],
            true,
        );
        assert_eq!(selected.mechanism, Mechanism::JsonSchema);
        assert!(selected.strict);
        assert_eq!(selected.wire_form(), Some(WireForm::JsonSchemaStrict));
    }

    #[test]
    fn strict_rejected_is_json_schema_without_strict() {
        let selected = Capabilities::select(outcomes(&[WireForm::JsonSchema]), &[], true);
        assert_eq!(selected.mechanism, Mechanism::JsonSchema);
        assert!(!selected.strict);
    }

    #[test]
    fn demoted_forms_are_skipped() {
        let selected = Capabilities::select(
            outcomes(&[WireForm::JsonSchemaStrict, WireForm::GuidedJson]),
            &[WireForm::JsonSchemaStrict],
            true,
        );
        assert_eq!(selected.mechanism, Mechanism::GuidedJson);
        assert_eq!(selected.guided_field, GuidedField::GuidedJson);
        assert_eq!(selected.wire_form(), Some(WireForm::GuidedJson));
    }

    #[test]
    fn nothing_supported_is_the_floor() {
        let selected = Capabilities::select(outcomes(&[]), &[], true);
        assert_eq!(selected.mechanism, Mechanism::PromptOnly);
        assert!(selected.probed);
        assert_eq!(selected.wire_form(), None);
    }

    #[test]
    fn outcomes_serialize_with_their_name() {
        let json = serde_json::to_value(FormOutcome::Rejected {
            status: 400,
            body: "nope".to_owned(),
        })
        .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"outcome": "rejected", "status": 400, "body": "nope"})
        );
        let back: FormOutcome = serde_json::from_value(json).unwrap();
        assert_eq!(back.name(), "rejected");
    }
}
