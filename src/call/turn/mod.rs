//! Tool turns: a structured request that carries a typed tool set ([`ToolSet`]) and a
//! [`ToolChoice`], constrained like any other structured answer.
//!
//! Upstream, by choice and mechanism:
//! - a local engine that enforces json_schema, guided_json or a grammar, under `required` or a
//!   named tool, gets the compiled constraint (the `oneOf` over the tools, or its GBNF; a named
//!   tool: only its branch) in place of native `tools`, and the tools described in the system
//!   message by [`crate::tools::describe`] (a constrained request carries no `tools` field);
//! - under `auto` (also when the request gives no `tool_choice`: OpenAI's default), on a
//!   grammar engine the call-or-text grammar ([`Policy::CallOrText`]: a call held to its tool's
//!   schema, or free text), elsewhere native tools unconstrained; beside a schema the answer is
//!   JSON, so the union of the calls and that schema, on any enforcing form (where the union
//!   cannot be compiled, native tools unconstrained);
//! - hosted APIs (OpenAI, Azure: no logit access), engines without an enforcing mechanism, and
//!   the prompt-only floor of the mechanism chain get native `tools` and `tool_choice`, and
//!   `parallel_tool_calls: false` with serial tools where the engine takes it. llama.cpp's
//!   server accepts a named `tool_choice` but does not honour it (and a bare name is a 400): on
//!   that floor it gets only the named tool, with `tool_choice: required`. The engine is the
//!   one the call follows (`backends::engine`): under `openai-compatible`, the one the server's
//!   fingerprint names;
//! - `none`: no tools on the wire at all.
//!
//! The mechanism chain, its demotions and enforcement checks are the contracts' ones
//! ([`super::chain`]), with only the enforcing forms on it. Downstream ([`read`]) is always on,
//! whatever went upstream; failures are classed `unknown_tool`, `tool_not_chosen` and
//! `invalid_arguments` (or `prose`, `truncated`, ... when there is no call), and re-asked with
//! the tool wording of [`reask`], never "only JSON".

mod messages;
pub(super) mod read;
pub(super) mod reask;

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::Value;

use crate::config::Provider;
use crate::schema::gbnf::Whitespace;
use crate::schema::{Constraint, Mechanism, Problem};
use crate::tools::{
    self, CompileError, CompileOptions, CompiledTools, Policy, ToolChoice, ToolRequest, ToolSet,
};

use super::outcome::ToolsMeta;
use super::request::RequestError;
use crate::backends::capabilities::WireForm;
use crate::backends::chat::{ChatMessage, ChatRequest};

pub(crate) use messages::{answered_calls, calls_as_text};
pub use messages::{assistant_message, tool_result_message};

/// One request's tools, compiled for its choice.
#[derive(Clone, Debug)]
pub(crate) struct ToolTurn {
    /// The tools.
    pub tools: ToolSet,
    /// The choice, with its default filled in.
    pub choice: ToolChoice,
    /// The compiled constraint and its policy.
    pub compiled: Arc<CompiledTools>,
    /// Whether an answer's calls are cut to the first.
    pub serial: bool,
    /// Whether the request has a schema (under `auto`, a plain answer must satisfy it).
    pub has_schema: bool,
    /// The content ids of the calls the conversation already holds with their results, since
    /// the last user message ([`answered_calls`]): under `auto`, making only such calls again
    /// is `repeated_call`.
    pub answered: HashSet<String>,
}

impl ToolTurn {
    /// The turn for `tools` under `choice` (`None`: `auto`, OpenAI's default); no turn for
    /// `none` beside a schema, which is an ordinary structured request.
    pub fn new(
        tools: &ToolSet,
        choice: Option<ToolChoice>,
        schema: Option<&Value>,
        serial: bool,
        whitespace: Whitespace,
    ) -> Result<Option<ToolTurn>, RequestError> {
        let choice = choice.unwrap_or(ToolChoice::Auto);
        if choice == ToolChoice::None && schema.is_some() {
            return Ok(None);
        }
        let compiled = match (&choice, schema) {
            // Beside a schema the answer is JSON: the union of the calls and that schema.
            (ToolChoice::Auto, Some(schema)) => {
                let union = CompileOptions::new(ToolChoice::Auto)
                    .with_answer(schema.clone())
                    .with_whitespace(whitespace);
                match tools::compile(tools, &union) {
                    Ok(compiled) => compiled,
                    // No union: native tools, unconstrained, and extraction afterwards.
                    Err(
                        error @ (CompileError::AnswerShape { .. } | CompileError::Grammar { .. }),
                    ) => Arc::new(tools::compile_unconstrained(
                        tools,
                        ToolChoice::Auto,
                        format!(
                            "tool_choice auto beside a schema: the calls and the answer do not compile into one constraint ({error}), so the request goes unconstrained and calls written as text are extracted"
                        ),
                    )),
                    Err(error) => return Err(error.into()),
                }
            }
            _ => tools::compile(
                tools,
                &CompileOptions::new(choice.clone()).with_whitespace(whitespace),
            )?,
        };
        Ok(Some(ToolTurn {
            tools: tools.clone(),
            choice,
            compiled,
            serial,
            has_schema: schema.is_some(),
            answered: HashSet::new(),
        }))
    }

    /// Whether a plain answer is the request's schema (`auto` beside a schema): then the
    /// schema's instructions stay in the prompt.
    pub fn answers_in_schema(&self) -> bool {
        self.choice == ToolChoice::Auto && self.has_schema
    }

    /// Whether this turn may be constrained on `provider`: the policy constrains and the
    /// provider is not a hosted API.
    pub fn constrains_on(&self, provider: Provider) -> bool {
        matches!(
            self.compiled.policy,
            Policy::Constrained | Policy::CallOrText
        ) && !hosted(provider)
    }

    /// Whether `form` can carry this turn's constraint: a form that enforces a tool constraint,
    /// and under call-or-text only a grammar (a JSON Schema cannot leave the answer free).
    pub fn carried_by(&self, form: WireForm) -> bool {
        enforces_tools(form)
            && (self.compiled.policy != Policy::CallOrText
                || form.mechanism() == Mechanism::GbnfGrammar)
    }

    /// Whether `text`, an answer under a form that claims to enforce this turn's constraint,
    /// is evidence for or against that claim: under call-or-text only an answer that opened a
    /// call is (text is one of the choices).
    pub fn checks_enforcement(&self, text: &str) -> bool {
        self.compiled.policy != Policy::CallOrText || text.trim_start().starts_with('{')
    }

    /// The constraint `form` sends, and what its projection left out (per tool, as problems).
    pub fn wire(&self, form: WireForm) -> (Constraint, Vec<Problem>) {
        let projected = self.compiled.project(form.mechanism());
        let notes = projected
            .notes
            .into_iter()
            .map(|note| Problem {
                pointer: note.pointer,
                keyword: note.keyword,
                reason: match note.tool {
                    Some(tool) => format!("tool {tool}: {}", note.reason),
                    None => note.reason,
                },
            })
            .collect();
        (projected.constraint, notes)
    }

    /// `chat` as a request with `constraint` sends it: constrained, without `tools` and with the
    /// tools described in the system message; unconstrained, with the native fields (and, to a
    /// local server, the description too).
    pub fn on_wire(
        &self,
        chat: &ChatRequest,
        constraint: &Constraint,
        provider: Provider,
    ) -> ChatRequest {
        let mut chat = chat.clone();
        if self.compiled.policy == Policy::NoTools {
            return chat;
        }
        if *constraint != Constraint::None {
            self.describe_in_system_message(&mut chat);
            return chat;
        }
        // A local server shows native tools to the model only when its chat template renders
        // them: llama.cpp with a template that has no tools (SmolLM2's, measured) drops them
        // without a word, and the model never learns there are tools. Described in the prompt
        // as well, the model can write a call that extraction reads. Hosted APIs render them.
        if !hosted(provider) {
            self.describe_in_system_message(&mut chat);
        }
        // The native fields as `tools compile --format request` gives them: one policy.
        let ToolRequest::Native { tools, tool_choice } = tools::plan_request(
            &self.compiled,
            &self.tools,
            Mechanism::PromptOnly,
            hosted(provider),
        ) else {
            return chat;
        };
        match (&self.choice, provider) {
            // llama.cpp does not honour a named choice: offer only that tool, and require it.
            (ToolChoice::Tool(name), Provider::LlamaCpp) => {
                let only: Vec<Value> = tools
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|tool| {
                        tool.pointer("/function/name") == Some(&Value::from(name.as_str()))
                    })
                    .cloned()
                    .collect();
                chat.tools = Some(Value::Array(only));
                chat.tool_choice = Some(ToolChoice::Required.openai());
            }
            _ => {
                chat.tools = Some(tools);
                chat.tool_choice = Some(tool_choice);
            }
        }
        if self.serial && takes_parallel_tool_calls(provider) {
            chat.parallel_tool_calls = Some(false);
        }
        chat
    }

    /// `chat` as a request that leaves only an answer in text sends it: the tools described as
    /// always (the conversation refers to them), none offered natively.
    pub fn answer_only(&self, chat: &ChatRequest) -> ChatRequest {
        let mut chat = chat.clone();
        self.describe_in_system_message(&mut chat);
        chat
    }

    /// Puts [`tools::describe`]'s text at the end of the system message (or in a new one).
    fn describe_in_system_message(&self, chat: &mut ChatRequest) {
        let described = tools::describe(&self.tools, &self.choice, self.compiled.answer.as_ref());
        match chat.messages.first_mut() {
            Some(first) if first.role == "system" => {
                let text = first.content.as_deref().unwrap_or("").trim_end();
                first.content = Some(if text.is_empty() {
                    described
                } else {
                    format!("{text}\n\n{described}")
                });
            }
            _ => chat.messages.insert(0, ChatMessage::system(described)),
        }
    }

    /// `meta.tools` for an answer to a request with `constraint`.
    pub fn meta(&self, constraint: bool, dropped_calls: u32) -> ToolsMeta {
        let carried = if self.compiled.policy == Policy::NoTools {
            "nothing"
        } else if constraint {
            "constraint"
        } else {
            "native_tools"
        };
        ToolsMeta {
            choice: self.choice.clone(),
            policy: self.compiled.policy,
            carried,
            key: self.compiled.key.clone(),
            dropped_calls,
        }
    }
}

/// Whether `form` enforces a tool constraint: json_schema, guided_json or a grammar (JSON mode
/// only forces some object, so a tool turn there goes native).
pub(super) fn enforces_tools(form: WireForm) -> bool {
    matches!(
        form.mechanism(),
        Mechanism::JsonSchema | Mechanism::GuidedJson | Mechanism::GbnfGrammar
    )
}

/// Hosted APIs: no logit access, so never a synthesised constraint, only native tools.
fn hosted(provider: Provider) -> bool {
    matches!(provider, Provider::OpenAi | Provider::Azure)
}

/// Engines that document `parallel_tool_calls` (OpenAI, Azure, vLLM, SGLang, llama-server,
/// LM Studio). Ollama, oMLX and unknown servers are not sent it: a strict proxy refuses a
/// field it does not know.
fn takes_parallel_tool_calls(provider: Provider) -> bool {
    matches!(
        provider,
        Provider::OpenAi
            | Provider::Azure
            | Provider::Vllm
            | Provider::Sglang
            | Provider::LlamaCpp
            | Provider::LmStudio
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::tools::native_tools;

    fn tools() -> ToolSet {
        ToolSet::from_value(&json!([
            {"name": "read_file", "description": "Read a file.", "parameters": {"type": "object",
                "properties": {"path": {"type": "string"}}, "required": ["path"]}},
            {"name": "list_dir", "parameters": {"type": "object", "properties": {}}}
        ]))
        .unwrap()
    }

    fn turn(choice: ToolChoice, schema: Option<&Value>) -> ToolTurn {
        ToolTurn::new(&tools(), Some(choice), schema, true, Whitespace::Compact)
            .unwrap()
            .unwrap()
    }

    fn chat() -> ChatRequest {
        ChatRequest {
            messages: vec![ChatMessage::user("read the README")],
            ..ChatRequest::default()
        }
    }

    #[test]
    fn auto_is_call_or_text_alone_and_the_union_beside_a_schema() {
        let plain = turn(ToolChoice::Auto, None);
        assert_eq!(plain.compiled.policy, Policy::CallOrText);
        assert_eq!(plain.compiled.answer, None);
        assert!(plain.carried_by(WireForm::Grammar));
        assert!(!plain.carried_by(WireForm::JsonSchema));
        assert!(!plain.carried_by(WireForm::GuidedJson));
        assert!(plain.checks_enforcement(" {\"name\": \"read_file\"}"));
        assert!(!plain.checks_enforcement("The README is short."));
        // No tool_choice is OpenAI's default, auto, with or without a schema.
        let missing = ToolTurn::new(&tools(), None, None, true, Whitespace::Compact)
            .unwrap()
            .unwrap();
        assert_eq!(missing.choice, ToolChoice::Auto);
        let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}},
            "required": ["ok"], "additionalProperties": false});
        let with_schema = turn(ToolChoice::Auto, Some(&schema));
        assert_eq!(with_schema.compiled.answer, Some(schema));
        // An answer shape a call could satisfy: no union, native and unconstrained.
        let open = json!({"type": "object"});
        let unconstrained = turn(ToolChoice::Auto, Some(&open));
        assert_eq!(unconstrained.compiled.policy, Policy::Unconstrained);
        assert!(!unconstrained.constrains_on(Provider::LlamaCpp));
    }

    #[test]
    fn hosted_apis_are_never_constrained() {
        let required = turn(ToolChoice::Required, None);
        assert!(required.constrains_on(Provider::Vllm));
        assert!(!required.constrains_on(Provider::OpenAi));
        assert!(!required.constrains_on(Provider::Azure));
    }

    #[test]
    fn a_constrained_request_describes_the_tools_and_carries_none() {
        let required = turn(ToolChoice::Required, None);
        let (constraint, _) = required.wire(WireForm::Grammar);
        let sent = required.on_wire(&chat(), &constraint, Provider::LlamaCpp);
        assert!(sent.tools.is_none() && sent.tool_choice.is_none());
        assert_eq!(sent.messages[0].role, "system");
        assert!(
            sent.messages[0]
                .content
                .as_deref()
                .unwrap()
                .contains("- read_file: Read a file.")
        );
        let mut with_system = chat();
        with_system
            .messages
            .insert(0, ChatMessage::system("Be brief."));
        let sent = required.on_wire(&with_system, &constraint, Provider::LlamaCpp);
        assert_eq!(sent.messages.len(), 2);
        assert!(
            sent.messages[0]
                .content
                .as_deref()
                .unwrap()
                .starts_with("Be brief.\n\nYou can call these tools:")
        );
    }

    #[test]
    fn native_requests_carry_tools_choice_and_parallel_where_taken() {
        let required = turn(ToolChoice::Required, None);
        let sent = required.on_wire(&chat(), &Constraint::None, Provider::Vllm);
        assert_eq!(sent.tools, Some(native_tools(&tools())));
        assert_eq!(sent.tool_choice, Some(json!("required")));
        assert_eq!(sent.parallel_tool_calls, Some(false));
        let ollama = required.on_wire(&chat(), &Constraint::None, Provider::Ollama);
        assert_eq!(ollama.parallel_tool_calls, None);
        let named = turn(ToolChoice::Tool("list_dir".into()), None);
        let llama = named.on_wire(&chat(), &Constraint::None, Provider::LlamaCpp);
        assert_eq!(
            llama.tool_choice,
            Some(json!("required")),
            "never a named choice to llama.cpp"
        );
        assert_eq!(llama.tools.as_ref().unwrap().as_array().unwrap().len(), 1);
        assert_eq!(
            llama.tools.as_ref().unwrap()[0]["function"]["name"],
            "list_dir"
        );
        let openai = named.on_wire(&chat(), &Constraint::None, Provider::OpenAi);
        assert_eq!(
            openai.tool_choice,
            Some(json!({"type": "function", "function": {"name": "list_dir"}}))
        );
        let none = ToolTurn::new(
            &tools(),
            Some(ToolChoice::None),
            None,
            true,
            Whitespace::Compact,
        )
        .unwrap()
        .unwrap();
        let sent = none.on_wire(&chat(), &Constraint::None, Provider::OpenAi);
        assert_eq!(sent, chat(), "none: no tools on the wire");
        assert_eq!(none.meta(false, 0).carried, "nothing");
    }
}
