//! The mechanism chain at request time: which wire forms this call may try, in order (the walk
//! down it is [`super::walk`]).
//!
//! The forms come from the negotiated capabilities (the selected form, then every weaker form the
//! probe found supported, minus every form demoted by now, then prompt-only), from a forced
//! mechanism (its forms, then prompt-only), or are prompt-only alone (`structured_decoding = off`,
//! a tool-using role without a typed tool set, or a tool turn that may not be constrained). A tool
//! turn keeps only the forms that enforce a tool constraint, and sends the compiled tools on them
//! ([`super::turn`]); its prompt-only floor carries native tools. A strict form is used only for a
//! strict-ready schema: for any other schema it becomes json_schema without `strict`, so a strict
//! server is never sent a strict request it must reject. On llama-server (the engine the call
//! follows: the `llamacpp` provider, or `openai-compatible` in front of a server whose fingerprint
//! says llama.cpp; see `backends::engine`) the derived grammar goes first when the grammar form is
//! on the chain: with compact whitespace (the default `grammar_whitespace`) a real small model gave
//! more valid answers in less time under it than under the server's own json_schema conversion
//! (bench/README.md, "Defaults"), and for a schema with a `number` or a `format` it is also the
//! only exact one (the server's converter lets `maximum` and a 7-digit exponent through, and a
//! `uri` came back as `"9%"`). With pretty whitespace the model did worse under the derived
//! grammar, so then only such schemas, and every schema that is not a contract's, go to it
//! first: a schema nobody here wrote can take the server down through its own json_schema
//! conversion (JSONSchemaBench's `Github_medium/o13136.json`, a recursive `$ref` under `allOf`,
//! made llama-server exit), where the grammar derived for it is served normally. There a
//! caller's schema that does not derive keeps the negotiated order (its grammar would allow any
//! JSON value).

use serde_json::Value;

use crate::config::{Provider, Settings, StructuredDecoding};
use crate::schema::Mechanism;
use crate::schema::gbnf::{self, Whitespace};

use super::context::CallContext;
use super::outcome::ChainSource;
use super::request::{CallPlan, StructuredRequest};
use crate::backends::capabilities::{GuidedField, WireForm};

/// The mechanism chain of one call: its wire forms in order, prompt-only (`None`) last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct MechanismChain {
    forms: Vec<Option<WireForm>>,
    at: usize,
    /// Where the first form came from.
    pub source: ChainSource,
}

impl MechanismChain {
    /// The chain for `request` (see the module docs).
    pub fn new(
        settings: &Settings,
        request: &StructuredRequest,
        plan: &CallPlan,
        context: &CallContext,
    ) -> MechanismChain {
        let (source, forms) = match &plan.turn {
            // A tool turn: the contracts' chain with only the forms that enforce a tool
            // constraint on it, when the turn may be constrained at all.
            Some(turn) if turn.constrains_on(context.engine().provider) => {
                let (source, mut forms) = forms(settings, request, plan, context);
                forms.retain(|form| turn.carried_by(*form));
                (source, forms)
            }
            Some(_) => (ChainSource::Tools, Vec::new()),
            None if plan.untyped_tools => (ChainSource::Tools, Vec::new()),
            None => forms(settings, request, plan, context),
        };
        let mut forms: Vec<Option<WireForm>> = forms.into_iter().map(Some).collect();
        forms.push(None);
        MechanismChain {
            forms,
            at: 0,
            source,
        }
    }

    /// The current form (`None`: prompt-only).
    pub fn current(&self) -> Option<WireForm> {
        self.forms[self.at]
    }

    /// The first form.
    pub fn first(&self) -> Option<WireForm> {
        self.forms[0]
    }

    /// Moves to the next form; the last (prompt-only) is never left.
    pub fn advance(&mut self) {
        self.at = (self.at + 1).min(self.forms.len() - 1);
    }

    /// Takes `form` out of the rest of the chain (it was found not enforced).
    pub fn drop_form(&mut self, form: WireForm) {
        let current = self.current();
        let mut index = 0;
        self.forms.retain(|entry| {
            let keep = *entry != Some(form) || index < self.at;
            index += 1;
            keep
        });
        if current == Some(form) {
            self.at = self.at.min(self.forms.len() - 1);
        }
    }
}

/// The forms of a request that may be constrained: forced, off, or negotiated (see the
/// module docs).
fn forms(
    settings: &Settings,
    request: &StructuredRequest,
    plan: &CallPlan,
    context: &CallContext,
) -> (ChainSource, Vec<WireForm>) {
    let capabilities = &context.negotiation.capabilities;
    if let Some(mechanism) = request.mechanism {
        let forms = forced_forms(mechanism, capabilities.guided_field);
        return (
            ChainSource::Forced,
            strict_adjusted(forms, plan.strict_ready),
        );
    }
    if settings.structured_decoding == StructuredDecoding::Off {
        return (ChainSource::StructuredDecodingOff, Vec::new());
    }
    let demoted = context.demoted_forms();
    let mut forms = Vec::new();
    if let Some(start) = capabilities.wire_form() {
        let first = WireForm::ALL.iter().position(|form| *form == start);
        for form in WireForm::ALL.into_iter().skip(first.unwrap_or(0)) {
            let supported = capabilities
                .outcomes
                .get(&form)
                .is_some_and(|outcome| outcome.is_supported());
            if form == start || supported {
                forms.push(form);
            }
        }
    }
    let mut forms = strict_adjusted(forms, plan.strict_ready);
    forms.retain(|form| !demoted.contains(form));
    let schema = match &plan.turn {
        Some(turn) => turn.compiled.schema.as_ref().unwrap_or(&plan.schema),
        None => &plan.schema,
    };
    if context.engine().provider == Provider::LlamaCpp && grammar_goes_first(plan, schema) {
        grammar_first(&mut forms);
    }
    (ChainSource::Negotiated, forms)
}

/// Whether the derived grammar goes before json_schema on llama-server (see the module docs):
/// with compact whitespace, for a schema the server's converter does not enforce, and for
/// every schema that is not a contract's and derives.
fn grammar_goes_first(plan: &CallPlan, schema: &Value) -> bool {
    plan.grammar_whitespace == Whitespace::Compact
        || needs_the_derived_grammar(schema)
        || (!plan.contract && gbnf::derive_with(schema, plan.grammar_whitespace).is_ok())
}

/// Whether `schema` holds a `number` or a `format` anywhere: what llama-server's json_schema
/// converter does not enforce (see the module docs).
fn needs_the_derived_grammar(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            let number = match map.get("type") {
                Some(Value::String(kind)) => kind == "number",
                Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "number"),
                _ => false,
            };
            number
                || map.get("format").is_some_and(Value::is_string)
                || map.values().any(needs_the_derived_grammar)
        }
        Value::Array(items) => items.iter().any(needs_the_derived_grammar),
        _ => false,
    }
}

/// Moves the grammar form ahead of the json_schema forms, when it is on the chain.
fn grammar_first(forms: &mut Vec<WireForm>) {
    let Some(grammar) = forms.iter().position(|form| *form == WireForm::Grammar) else {
        return;
    };
    let Some(schema) = forms
        .iter()
        .position(|form| matches!(form, WireForm::JsonSchemaStrict | WireForm::JsonSchema))
    else {
        return;
    };
    if schema < grammar {
        let form = forms.remove(grammar);
        forms.insert(schema, form);
    }
}

/// The forms a forced mechanism tries, strongest first.
fn forced_forms(mechanism: Mechanism, guided_field: GuidedField) -> Vec<WireForm> {
    match mechanism {
        Mechanism::JsonSchema => vec![WireForm::JsonSchemaStrict, WireForm::JsonSchema],
        Mechanism::GuidedJson => {
            let preferred = guided_field.wire_form();
            let other = match preferred {
                WireForm::GuidedJson => WireForm::StructuredOutputs,
                _ => WireForm::GuidedJson,
            };
            vec![preferred, other]
        }
        Mechanism::GbnfGrammar => vec![WireForm::Grammar],
        Mechanism::JsonObject => vec![WireForm::JsonObject],
        Mechanism::PromptOnly => Vec::new(),
    }
}

/// Strict only for a strict-ready schema: otherwise json_schema without `strict`.
fn strict_adjusted(forms: Vec<WireForm>, strict_ready: bool) -> Vec<WireForm> {
    let mut adjusted: Vec<WireForm> = Vec::with_capacity(forms.len());
    for form in forms {
        let form = if form == WireForm::JsonSchemaStrict && !strict_ready {
            WireForm::JsonSchema
        } else {
            form
        };
        if !adjusted.contains(&form) {
            adjusted.push(form);
        }
    }
    adjusted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_becomes_plain_json_schema_for_a_schema_that_is_not_strict_ready() {
        let forms = vec![
            WireForm::JsonSchemaStrict,
            WireForm::JsonSchema,
            WireForm::Grammar,
        ];
        assert_eq!(strict_adjusted(forms.clone(), true), forms);
        assert_eq!(
            strict_adjusted(forms, false),
            [WireForm::JsonSchema, WireForm::Grammar]
        );
    }

    #[test]
    fn forced_guided_tries_the_preferred_field_first() {
        assert_eq!(
            forced_forms(Mechanism::GuidedJson, GuidedField::GuidedJson),
            [WireForm::GuidedJson, WireForm::StructuredOutputs]
        );
        assert_eq!(
            forced_forms(Mechanism::GuidedJson, GuidedField::StructuredOutputs),
            [WireForm::StructuredOutputs, WireForm::GuidedJson]
        );
        assert!(forced_forms(Mechanism::PromptOnly, GuidedField::default()).is_empty());
    }

    #[test]
    fn dropping_a_form_keeps_the_position_on_the_next_form() {
        let mut chain = MechanismChain {
            forms: vec![Some(WireForm::JsonSchema), Some(WireForm::JsonObject), None],
            at: 0,
            source: ChainSource::Negotiated,
        };
        chain.drop_form(WireForm::JsonSchema);
        assert_eq!(chain.current(), Some(WireForm::JsonObject));
        chain.drop_form(WireForm::JsonObject);
        assert_eq!(chain.current(), None);
        chain.advance();
        assert_eq!(chain.current(), None);
    }
}
