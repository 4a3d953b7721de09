//! How one request carries a compiled tool set: as a constraint on the output, as the
//! provider's native `tools` and `tool_choice`, or not at all.
//!
//! - A constraint only where the engine applies it to the decoder: a local engine with
//!   json_schema, guided_json or a grammar. The output then IS the call
//!   (`{"name", "arguments"}`), so the request carries no `tools` (llama-server refuses a custom
//!   grammar beside tools, and slmcode sends no constraint beside tools either); the tools
//!   and their descriptions belong in the prompt.
//! - Under `auto` without an answer shape, a constraint only as a grammar (one call, or text):
//!   a JSON Schema cannot leave the answer free.
//! - Native tools everywhere else: hosted APIs (no grammar lever), json_object and prompt_only
//!   backends, and `auto` without an answer shape where there is no grammar. `tool_choice` goes with them in OpenAI's
//!   spelling, and `parallel_tool_calls: false`, because tool-using roles take one call per
//!   turn (serial tools). Whatever comes back is read by [`super::extract`].
//! - Nothing for `tool_choice: none`.

use serde_json::{Value, json};

use super::{CompiledTools, Policy, ToolSet};
use crate::schema::{Constraint, Mechanism};

/// What a request carries for its tools.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolRequest {
    /// No tools and no constraint (`tool_choice: none`).
    Nothing,
    /// The provider's own tool calling: the tools in OpenAI's `tools` form, `tool_choice`, and
    /// `parallel_tool_calls: false`.
    Native {
        /// The `tools` array.
        tools: Value,
        /// The `tool_choice` value.
        tool_choice: Value,
    },
    /// The output constrained to a call (or the answer shape); no `tools` in the request.
    Constrained(Constraint),
}

impl ToolRequest {
    /// A short name for `--json` output: `nothing`, `native_tools`, `constraint`.
    pub const fn kind(&self) -> &'static str {
        match self {
            ToolRequest::Nothing => "nothing",
            ToolRequest::Native { .. } => "native_tools",
            ToolRequest::Constrained(_) => "constraint",
        }
    }
}

/// How to send `compiled` to a backend whose selected mechanism is `mechanism`; `hosted` is a
/// hosted API (OpenAI, Azure), which never gets a synthesised constraint.
pub fn plan_request(
    compiled: &CompiledTools,
    tools: &ToolSet,
    mechanism: Mechanism,
    hosted: bool,
) -> ToolRequest {
    let enforcing = matches!(
        mechanism,
        Mechanism::JsonSchema | Mechanism::GuidedJson | Mechanism::GbnfGrammar
    );
    match compiled.policy {
        Policy::NoTools => ToolRequest::Nothing,
        Policy::Constrained if enforcing && !hosted => {
            ToolRequest::Constrained(compiled.constraint(mechanism))
        }
        Policy::CallOrText if mechanism == Mechanism::GbnfGrammar && !hosted => {
            ToolRequest::Constrained(compiled.constraint(mechanism))
        }
        Policy::Constrained | Policy::Unconstrained | Policy::CallOrText => ToolRequest::Native {
            tools: native_tools(tools),
            tool_choice: compiled.choice.openai(),
        },
    }
}

/// The tool set in OpenAI's `tools` form, with each schema as it was written.
pub fn native_tools(tools: &ToolSet) -> Value {
    Value::Array(
        tools
            .tools()
            .iter()
            .map(|tool| {
                let mut function = serde_json::Map::new();
                function.insert("name".to_owned(), json!(tool.name));
                if let Some(description) = &tool.description {
                    function.insert("description".to_owned(), json!(description));
                }
                if tool.parameters_given {
                    function.insert("parameters".to_owned(), tool.parameters.clone());
                }
                json!({"type": "function", "function": function})
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{CompileOptions, ToolChoice, compile};

    fn tools() -> ToolSet {
        ToolSet::from_json(
            r#"{"tools":[{"name":"get_time","description":"Now.","input_schema":{"type":"object","properties":{"zone":{"type":"string"}}}},{"name":"ping"}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn local_enforcing_engines_get_the_constraint_only() {
        let tools = tools();
        let compiled = compile(&tools, &CompileOptions::new(ToolChoice::Required)).unwrap();
        for mechanism in [
            Mechanism::JsonSchema,
            Mechanism::GuidedJson,
            Mechanism::GbnfGrammar,
        ] {
            let planned = plan_request(&compiled, &tools, mechanism, false);
            assert_eq!(
                planned,
                ToolRequest::Constrained(compiled.constraint(mechanism))
            );
        }
    }

    #[test]
    fn hosted_weak_and_auto_go_native() {
        let tools = tools();
        let required = compile(&tools, &CompileOptions::new(ToolChoice::Required)).unwrap();
        let native = ToolRequest::Native {
            tools: json!([
                {"type": "function", "function": {"name": "get_time", "description": "Now.", "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}}}},
                {"type": "function", "function": {"name": "ping"}}
            ]),
            tool_choice: json!("required"),
        };
        assert_eq!(
            plan_request(&required, &tools, Mechanism::JsonSchema, true),
            native
        );
        assert_eq!(
            plan_request(&required, &tools, Mechanism::JsonObject, false),
            native
        );
        assert_eq!(
            plan_request(&required, &tools, Mechanism::PromptOnly, false),
            native
        );
        let auto = compile(&tools, &CompileOptions::new(ToolChoice::Auto)).unwrap();
        for (mechanism, hosted) in [
            (Mechanism::JsonSchema, false),
            (Mechanism::GuidedJson, false),
            (Mechanism::GbnfGrammar, true),
        ] {
            let ToolRequest::Native { tool_choice, .. } =
                plan_request(&auto, &tools, mechanism, hosted)
            else {
                panic!("auto goes native where only a JSON Schema or nothing can be sent");
            };
            assert_eq!(tool_choice, json!("auto"));
        }
        assert!(matches!(
            plan_request(&auto, &tools, Mechanism::GbnfGrammar, false),
            ToolRequest::Constrained(Constraint::Grammar { .. })
        ));
        let none = compile(&tools, &CompileOptions::new(ToolChoice::None)).unwrap();
        assert_eq!(
            plan_request(&none, &tools, Mechanism::GbnfGrammar, false),
            ToolRequest::Nothing
        );
        let named = compile(
            &tools,
            &CompileOptions::new(ToolChoice::Tool("ping".into())),
        )
        .unwrap();
        let ToolRequest::Native { tool_choice, .. } =
            plan_request(&named, &tools, Mechanism::JsonSchema, true)
        else {
            panic!("hosted goes native");
        };
        assert_eq!(
            tool_choice,
            json!({"type": "function", "function": {"name": "ping"}})
        );
    }
}
