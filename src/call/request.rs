//! What a caller asks a structured call for ([`StructuredRequest`]), and the plan the call path
//! makes of it: the original schema (what validation uses), the instructions injected into the
//! system message, the stop sequences, whether tools ride along, and the budgets.
//!
//! The output's schema comes from a contract, a caller's schema, or a role: a role's decoding
//! ([`normalize_decoding`](crate::agents::normalize_decoding)) decides the stop sequences and
//! whether the request may be constrained at all (a tool-using role never is), and names the
//! contract when no schema is given. The instructions are the contract's prompt (injected under
//! every mechanism, grammar included: a grammar guarantees well-formed output, not meaningful
//! output), or for a caller's schema the caller's prompt plus the schema itself.

use std::time::Duration;

use serde_json::Value;

use crate::agents::{self, Decoding, JSON_STOP, RoleKind, RoleSpec, UnknownRoleContract};
use crate::config::{Settings, Thinking};
use crate::schema::gbnf::Whitespace;
use crate::schema::{self, Mechanism, SchemaError, UnknownContract};
use crate::tools::{CompileError, SCHEMA_NAME, ToolChoice, ToolSet};

use super::turn::{ToolTurn, answered_calls, calls_as_text};
use crate::backends::presets::preset;

use crate::backends::chat::{ChatMessage, ChatRequest};

/// The ceiling a truncation re-ask may raise `max_tokens` to, unless the request sets its own:
/// doubling stops here, because a larger budget than this rarely fits a local model's context.
pub const DEFAULT_MAX_TOKENS_CAP: u32 = 8192;

/// The sentence every injected instruction carries (a caller's schema's too).
pub use crate::schema::JSON_ONLY;

/// Where the output's schema comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum OutputSchema {
    /// A registered contract, by name (`plan`, `scope_judge`).
    Contract(String),
    /// A caller's JSON Schema. `name` goes in json_schema's `name` (sanitised to OpenAI's
    /// `^[a-zA-Z0-9_-]{1,64}$`); `prompt`, when given, tells the model what the fields mean.
    User {
        /// A short name for the output.
        name: String,
        /// The schema; validation honours every keyword in it.
        schema: Value,
        /// What the fields mean, in words.
        prompt: Option<String>,
    },
}

/// One structured request: what to produce, the conversation, and per-call overrides of the
/// settings. Build it with [`StructuredRequest::contract`], [`StructuredRequest::schema`] or
/// [`StructuredRequest::role`], then add messages.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StructuredRequest {
    /// The role making the request: decides stop sequences, whether the request may be
    /// constrained (tool-using roles never are), and the contract when `schema` is `None`.
    pub role: Option<RoleSpec>,
    /// The output's schema; `None` takes the role's contract.
    pub schema: Option<OutputSchema>,
    /// The conversation (a caller's system message is kept, followed by the instructions).
    pub messages: Vec<ChatMessage>,
    /// The tools the model may call: a tool turn (see `call::turn`). The request is then
    /// constrained by `tool_choice` (never by the schema), and its answer is read as tool calls.
    pub tools: Option<ToolSet>,
    /// Whether and which tool must be called; `None`: `required` when the request has no
    /// schema (a tool turn asks for a call), `auto` when it has one (a call, or the schema's
    /// answer).
    pub tool_choice: Option<ToolChoice>,
    /// Whether an answer's tool calls are cut to the first (and `parallel_tool_calls: false`
    /// sent where the engine takes it); `None`: the role's serial tools, otherwise every call
    /// is kept.
    pub serial_tools: Option<bool>,
    /// The first completion budget; `None` takes `max_tokens` from the settings.
    pub max_tokens: Option<u32>,
    /// How far a truncation re-ask may raise the budget; `None` is the larger of
    /// [`DEFAULT_MAX_TOKENS_CAP`] and the first budget.
    pub max_tokens_cap: Option<u32>,
    /// How many failure-matched re-asks may be sent; `None` takes `reask` from the settings.
    pub reask: Option<u32>,
    /// Forces a mechanism for this call: negotiation is bypassed and recorded demotions are
    /// ignored, but a rejection still walks down to the floor (and is recorded). It wins over
    /// `structured_decoding = off` (it is the narrower, per-call choice), not over tools.
    pub mechanism: Option<Mechanism>,
    /// A sampling seed, for repeatable answers.
    pub seed: Option<u64>,
    /// The sampling temperature; `None` takes `temperature` from the settings.
    pub temperature: Option<f64>,
    /// The deadline of the whole call; `None` takes `call_timeout_s` from the settings.
    pub call_timeout: Option<Duration>,
}

impl StructuredRequest {
    /// Whether the request can be made under `settings`: the checks
    /// [`structured_call`](super::structured_call) makes before it sends anything (messages, the
    /// role, the schema and the tools compiled), for a caller that must commit to an answer
    /// before the call has one. `slmcode serve` starts a streamed answer before the call ends,
    /// and can still refuse a request that cannot be made with a status only until then.
    pub fn check(&self, settings: &Settings) -> Result<(), RequestError> {
        let plan = CallPlan::resolve(settings, self)?;
        schema::validator(&plan.schema)?;
        Ok(())
    }

    /// A request for the contract `name`.
    pub fn contract(name: impl Into<String>) -> StructuredRequest {
        StructuredRequest {
            schema: Some(OutputSchema::Contract(name.into())),
            ..StructuredRequest::default()
        }
    }

    /// A request for a caller's schema, named `output` on the wire.
    pub fn schema(schema: Value) -> StructuredRequest {
        StructuredRequest {
            schema: Some(OutputSchema::User {
                name: "output".to_owned(),
                schema,
                prompt: None,
            }),
            ..StructuredRequest::default()
        }
    }

    /// A request made by `role`, for the role's contract.
    pub fn role(role: RoleSpec) -> StructuredRequest {
        StructuredRequest {
            role: Some(role),
            ..StructuredRequest::default()
        }
    }

    /// The same request made by `role` (its decoding applies; the schema stays).
    pub fn with_role(mut self, role: RoleSpec) -> StructuredRequest {
        self.role = Some(role);
        self
    }

    /// Names a caller's schema (no effect on a contract).
    pub fn named(mut self, new_name: impl Into<String>) -> StructuredRequest {
        if let Some(OutputSchema::User { name, .. }) = &mut self.schema {
            *name = new_name.into();
        }
        self
    }

    /// Describes a caller's schema's fields (no effect on a contract, which has its prompt).
    pub fn prompt(mut self, text: impl Into<String>) -> StructuredRequest {
        if let Some(OutputSchema::User { prompt, .. }) = &mut self.schema {
            *prompt = Some(text.into());
        }
        self
    }

    /// Appends a system message.
    pub fn system(mut self, text: impl Into<String>) -> StructuredRequest {
        self.messages.push(ChatMessage::system(text));
        self
    }

    /// Appends a user message.
    pub fn user(mut self, text: impl Into<String>) -> StructuredRequest {
        self.messages.push(ChatMessage::user(text));
        self
    }

    /// Sets the first completion budget.
    pub fn max_tokens(mut self, budget: u32) -> StructuredRequest {
        self.max_tokens = Some(budget);
        self
    }

    /// Sets how many re-asks may be sent.
    pub fn reask(mut self, reask: u32) -> StructuredRequest {
        self.reask = Some(reask);
        self
    }

    /// Sets the deadline of the whole call.
    pub fn call_timeout(mut self, deadline: Duration) -> StructuredRequest {
        self.call_timeout = Some(deadline);
        self
    }

    /// Forces a mechanism for this call.
    pub fn mechanism(mut self, mechanism: Mechanism) -> StructuredRequest {
        self.mechanism = Some(mechanism);
        self
    }

    /// Makes the request a tool turn over `tools` under `choice`.
    pub fn tools(mut self, tools: ToolSet, choice: ToolChoice) -> StructuredRequest {
        self.tools = Some(tools);
        self.tool_choice = Some(choice);
        self
    }

    /// Keeps only the first tool call of an answer (`true`), or every one (`false`).
    pub fn serial_tools(mut self, serial: bool) -> StructuredRequest {
        self.serial_tools = Some(serial);
        self
    }
}

/// A request the call path cannot make.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The named contract does not exist.
    #[error(transparent)]
    UnknownContract(#[from] UnknownContract),
    /// The role names a contract that does not exist.
    #[error(transparent)]
    UnknownRoleContract(#[from] UnknownRoleContract),
    /// Neither a schema nor a role with a contract.
    #[error("role `{role}` is {kind} and has no contract; give it a schema")]
    NoSchema {
        /// The role's id.
        role: String,
        /// How the role's output is shaped (`free_text`, `plain`).
        kind: &'static str,
    },
    /// No role, no schema and no tools at all.
    #[error("a structured request needs a contract, a schema, a role or tools")]
    NothingToProduce,
    /// The tool set does not compile for the `tool_choice` (a named tool that is not in the
    /// set, a schema with no grammar).
    #[error("the tools do not compile: {0}")]
    Tools(#[from] CompileError),
    /// The caller's schema does not compile.
    #[error("the schema does not compile: {0}")]
    InvalidSchema(#[from] SchemaError),
    /// No message to answer.
    #[error("a structured request needs at least one message")]
    NoMessages,
}

/// What the call path makes of a request.
#[derive(Clone, Debug)]
pub(super) struct CallPlan {
    /// The original schema: validation always uses it (`{}` for a tool turn without one).
    pub schema: Value,
    /// The name on the wire.
    pub name: String,
    /// Whether the schema meets OpenAI's strict rules (a contract's tested mark, or the lint).
    pub strict_ready: bool,
    /// Whether the schema is a contract's, tested on every engine; a caller's schema or a tool
    /// set is not, and an engine's own conversion of it is trusted less (see `super::chain`).
    pub contract: bool,
    /// The first request, instructions injected, without a constraint (and for a tool turn,
    /// without its tools: [`ToolTurn`] puts them on each request as its wire form wants them);
    /// to a local engine, earlier tool calls also written as text ([`calls_as_text`]).
    pub request: ChatRequest,
    /// Whether a tool-using role asks without a typed tool set (then nothing is constrained).
    pub untyped_tools: bool,
    /// The stop sequences, applied to the answer after its reasoning (by the watcher). The
    /// server gets them too only under `thinking = off`, or from a hosted API that never
    /// shows reasoning: every other engine applies `stop` inside the reasoning as well, where
    /// a thinking model's headings and notes would end it.
    pub stop: Vec<String>,
    /// The system message sent instead of the request's first under an exact constraint that
    /// enforces the schema, with `brief_instructions` on: the contract's brief prompt.
    pub enforced_system: Option<ChatMessage>,
    /// The ceiling of a truncation re-ask's budget.
    pub max_tokens_cap: u32,
    /// How many re-asks may be sent.
    pub reask: u32,
    /// The deadline of the whole call.
    pub call_timeout: Duration,
    /// The whitespace a derived grammar allows.
    pub grammar_whitespace: Whitespace,
    /// The tool turn, when the request carries a typed tool set (and `tool_choice` is not
    /// `none` beside a schema, which makes it an ordinary structured request).
    pub turn: Option<ToolTurn>,
}

impl CallPlan {
    /// Resolves `request` against `settings`.
    pub fn resolve(
        settings: &Settings,
        request: &StructuredRequest,
    ) -> Result<CallPlan, RequestError> {
        if request.messages.is_empty() {
            return Err(RequestError::NoMessages);
        }
        let decoding = match &request.role {
            Some(role) => Some(agents::normalize_decoding(role)?),
            None => None,
        };
        let output = match output(request.schema.as_ref(), decoding.as_ref(), settings) {
            Ok(output) => Some(output),
            Err(RequestError::NothingToProduce | RequestError::NoSchema { .. })
                if request.tools.is_some() =>
            {
                None
            }
            Err(error) => return Err(error),
        };
        let contract =
            output.is_some() && !matches!(request.schema, Some(OutputSchema::User { .. }));
        let serial_tools = request.serial_tools.unwrap_or_else(|| {
            decoding
                .as_ref()
                .is_some_and(|decoding| decoding.serial_tools)
        });
        let turn = match &request.tools {
            Some(tools) => ToolTurn::new(
                tools,
                request.tool_choice.clone(),
                output.as_ref().map(|output| &output.0),
                serial_tools,
                settings.grammar_whitespace,
            )?
            .map(|mut turn| {
                turn.answered = answered_calls(&request.messages);
                turn
            }),
            None => None,
        };
        let (schema, name, strict_ready, mut instructions, brief) = output.unwrap_or_else(|| {
            (
                Value::Object(serde_json::Map::new()),
                SCHEMA_NAME.to_owned(),
                false,
                String::new(),
                None,
            )
        });
        if let Some(turn) = &turn
            && !turn.answers_in_schema()
        {
            // A call is required: the schema's instructions would ask for something else.
            instructions.clear();
        }
        // The stop sequences: the role's, or for an output with no role, those of a JSON-only
        // role (the commonest small-model failure is valid JSON followed by an essay); none
        // for a tool turn without a role.
        let stop: Vec<String> = match &decoding {
            Some(decoding) => decoding
                .stop
                .iter()
                .map(|stop| (*stop).to_owned())
                .collect(),
            None if turn.is_some() => Vec::new(),
            None => JSON_STOP.iter().map(|stop| (*stop).to_owned()).collect(),
        };
        let untyped_tools = turn.is_none()
            && decoding
                .as_ref()
                .is_some_and(|decoding| decoding.kind == RoleKind::ToolUsing);
        let budget = request.max_tokens.unwrap_or(settings.max_tokens).max(1);
        let mut messages = inject(&request.messages, &instructions);
        if !settings.provider.is_hosted() {
            // A local chat template may drop `tool_calls`: the calls go in the text as well.
            messages = calls_as_text(&messages);
        }
        // A tool turn's constraint is the calls', not the schema's: its instructions stay whole.
        let enforced_system = brief
            .filter(|_| turn.is_none())
            .and_then(|brief| inject(&request.messages, &brief).into_iter().next());
        let chat = ChatRequest {
            messages,
            model: None,
            max_tokens: Some(budget),
            temperature: Some(request.temperature.unwrap_or(settings.temperature)),
            stop: if settings.thinking == Thinking::Off
                || !preset(settings.provider).stops_reach_reasoning()
            {
                stop.clone()
            } else {
                Vec::new()
            },
            seed: request.seed,
            tools: None,
            tool_choice: None,
            parallel_tool_calls: None,
            sampling: serde_json::Map::new(),
            thinking: serde_json::Map::new(),
        };
        Ok(CallPlan {
            schema,
            name,
            strict_ready: strict_ready && turn.is_none(),
            contract: contract && turn.is_none(),
            request: chat,
            untyped_tools,
            stop,
            enforced_system,
            max_tokens_cap: request
                .max_tokens_cap
                .unwrap_or(DEFAULT_MAX_TOKENS_CAP)
                .max(budget),
            reask: request.reask.unwrap_or(settings.reask),
            call_timeout: request
                .call_timeout
                .unwrap_or(Duration::from_secs(settings.call_timeout_s)),
            grammar_whitespace: settings.grammar_whitespace,
            turn,
        })
    }
}

type Output = (Value, String, bool, String, Option<String>);

/// The schema, its wire name, strict readiness, the instructions and their brief form: a
/// contract's prompt (and its schema when `schema_in_prompt`) and, with `brief_instructions`,
/// its brief prompt; or a caller's prompt and schema, which have no brief form (the schema in
/// the prompt is all a model learns of a caller's fields).
fn output(
    schema: Option<&OutputSchema>,
    decoding: Option<&Decoding>,
    settings: &Settings,
) -> Result<Output, RequestError> {
    let contract_name = match (schema, decoding) {
        (Some(OutputSchema::Contract(name)), _) => name.as_str(),
        (
            Some(OutputSchema::User {
                name,
                schema,
                prompt,
            }),
            _,
        ) => {
            crate::schema::validator(schema)?;
            let mut instructions = String::new();
            if let Some(prompt) = prompt.as_deref().filter(|prompt| !prompt.trim().is_empty()) {
                instructions.push_str(prompt.trim_end());
                instructions.push_str("\n\n");
            }
            instructions.push_str(JSON_ONLY);
            instructions.push_str(" It must satisfy this JSON Schema:\n");
            instructions.push_str(&schema.to_string());
            return Ok((
                schema.clone(),
                wire_name(name),
                schema::is_strict_ready(schema),
                instructions,
                None,
            ));
        }
        (None, Some(decoding)) => match decoding.contract {
            Some(name) => name,
            None => {
                return Err(RequestError::NoSchema {
                    role: decoding.id.clone(),
                    kind: decoding.kind.as_str(),
                });
            }
        },
        (None, None) => return Err(RequestError::NothingToProduce),
    };
    let contract = schema::contract(contract_name)?;
    let mut instructions = contract.prompt().trim_end().to_owned();
    let mut brief = settings
        .brief_instructions
        .then(|| contract.brief_prompt().to_owned());
    if settings.schema_in_prompt {
        let schema = format!(
            "\n\nThe object must satisfy this JSON Schema:\n{}",
            contract.schema()
        );
        instructions.push_str(&schema);
        if let Some(brief) = &mut brief {
            brief.push_str(&schema);
        }
    }
    Ok((
        contract.schema().clone(),
        contract.name.to_owned(),
        contract.strict,
        instructions,
        brief,
    ))
}

/// `name` as OpenAI accepts it: `^[a-zA-Z0-9_-]{1,64}$`.
pub(super) fn wire_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    if cleaned.trim_matches('_').is_empty() {
        "output".to_owned()
    } else {
        cleaned
    }
}

/// The conversation with the instructions in the system message: a caller's leading system
/// message keeps its text first (one system message: some chat templates allow no other).
fn inject(messages: &[ChatMessage], instructions: &str) -> Vec<ChatMessage> {
    if instructions.is_empty() {
        return messages.to_vec();
    }
    let mut injected = Vec::with_capacity(messages.len() + 1);
    match messages.first() {
        Some(first) if first.role == "system" => {
            let caller = first.content.as_deref().unwrap_or("").trim_end();
            let text = if caller.is_empty() {
                instructions.to_owned()
            } else {
                format!("{caller}\n\n{instructions}")
            };
            injected.push(ChatMessage::system(text));
            injected.extend(messages[1..].iter().cloned());
        }
        _ => {
            injected.push(ChatMessage::system(instructions));
            injected.extend(messages.iter().cloned());
        }
    }
    injected
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn plan(request: &StructuredRequest) -> CallPlan {
        CallPlan::resolve(&Settings::default(), request).unwrap()
    }

    #[test]
    fn a_contract_injects_its_prompt_and_the_json_only_stops() {
        let plan = plan(&StructuredRequest::contract("plan").user("Add a cache."));
        let system = plan.request.messages[0].content.as_deref().unwrap();
        assert_eq!(
            system,
            schema::contract("plan").unwrap().prompt().trim_end()
        );
        assert_eq!(plan.request.messages[1], ChatMessage::user("Add a cache."));
        assert_eq!(plan.stop, JSON_STOP);
        assert!(
            plan.request.stop.is_empty(),
            "under thinking = auto the server gets no stops: they would cut a reasoning block"
        );
        assert_eq!(plan.request.max_tokens, Some(2048));
        assert_eq!(plan.max_tokens_cap, DEFAULT_MAX_TOKENS_CAP);
        assert!(plan.strict_ready && !plan.untyped_tools);
        assert_eq!((plan.name.as_str(), plan.reask), ("plan", 3));
    }

    #[test]
    fn a_callers_system_message_comes_first_in_the_one_system_message() {
        let request = StructuredRequest::contract("review")
            .system("You review Rust.")
            .user("diff");
        let plan = plan(&request);
        assert_eq!(plan.request.messages.len(), 2);
        let system = plan.request.messages[0].content.as_deref().unwrap();
        assert!(
            system.starts_with("You review Rust.\n\n# Review"),
            "{system}"
        );
        assert!(!plan.strict_ready, "review has optional fields");
    }

    #[test]
    fn a_user_schema_is_described_in_the_prompt_and_linted_for_strict() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}},
            "required": ["n"], "additionalProperties": false});
        let plan = plan(
            &StructuredRequest::schema(schema.clone())
                .named("my schema!")
                .prompt("`n` is the answer.")
                .user("six times seven"),
        );
        let system = plan.request.messages[0].content.as_deref().unwrap();
        assert_eq!(
            system,
            format!(
                "`n` is the answer.\n\n{JSON_ONLY} It must satisfy this JSON Schema:\n{schema}"
            )
        );
        assert_eq!(plan.name, "my_schema_");
        assert!(plan.strict_ready);
    }

    #[test]
    fn roles_decide_stops_tools_and_the_contract() {
        let worker = plan(&StructuredRequest::role(RoleSpec::new("go-worker")).user("go"));
        assert_eq!(worker.name, "worker");
        assert_eq!(worker.stop, JSON_STOP);
        let tooled =
            plan(&StructuredRequest::role(RoleSpec::new("worker").with_tools(["read"])).user("go"));
        assert!(tooled.untyped_tools);
        assert!(tooled.stop.is_empty() && tooled.request.stop.is_empty());
        let error = CallPlan::resolve(
            &Settings::default(),
            &StructuredRequest::role(RoleSpec::new("describer")).user("x"),
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "role `describer` is free_text and has no contract; give it a schema"
        );
    }

    #[test]
    fn the_server_gets_the_stops_only_when_thinking_is_off() {
        let request = StructuredRequest::contract("plan").user("Add a cache.");
        for (thinking, on_the_wire) in [
            (Thinking::Auto, false),
            (Thinking::On, false),
            (Thinking::Off, true),
        ] {
            let settings = Settings {
                thinking,
                ..Settings::default()
            };
            let plan = CallPlan::resolve(&settings, &request).unwrap();
            assert_eq!(plan.stop, JSON_STOP, "{thinking}");
            assert_eq!(!plan.request.stop.is_empty(), on_the_wire, "{thinking}");
        }
        // OpenAI never shows reasoning: its stops apply to the answer alone.
        let openai = Settings {
            provider: crate::config::Provider::OpenAi,
            ..Settings::default()
        };
        assert_eq!(
            CallPlan::resolve(&openai, &request).unwrap().request.stop,
            JSON_STOP
        );
    }

    fn read_tool() -> ToolSet {
        ToolSet::from_value(&json!([{"type": "function", "function": {"name": "read"}}])).unwrap()
    }

    #[test]
    fn a_tool_set_makes_a_tool_turn_whose_choice_is_auto_unless_given() {
        let mut bare = StructuredRequest::default().user("read it");
        bare.tools = Some(read_tool());
        let turn = plan(&bare).turn.expect("a tool turn");
        assert_eq!(turn.choice, ToolChoice::Auto, "OpenAI's default");
        assert!(plan(&bare).stop.is_empty());
        assert!(
            plan(&bare).request.messages[0].role == "user",
            "no empty system message"
        );
        let mut with_contract = StructuredRequest::contract("scope_judge").user("x");
        with_contract.tools = Some(read_tool());
        let planned = plan(&with_contract);
        assert_eq!(planned.turn.as_ref().unwrap().choice, ToolChoice::Auto);
        assert!(!planned.strict_ready, "a tool turn is never strict");
        let none = plan(
            &StructuredRequest::contract("scope_judge")
                .tools(read_tool(), ToolChoice::None)
                .user("x"),
        );
        assert!(
            none.turn.is_none(),
            "none beside a schema is a plain request"
        );
        assert!(none.request.tools.is_none());
        let unknown = CallPlan::resolve(
            &Settings::default(),
            &StructuredRequest::default()
                .tools(read_tool(), ToolChoice::Tool("write".into()))
                .user("x"),
        )
        .unwrap_err();
        assert!(matches!(unknown, RequestError::Tools(_)), "{unknown}");
    }

    #[test]
    fn bad_requests_are_typed_errors() {
        let settings = Settings::default();
        assert_eq!(
            CallPlan::resolve(&settings, &StructuredRequest::contract("plan")).unwrap_err(),
            RequestError::NoMessages
        );
        assert!(matches!(
            CallPlan::resolve(&settings, &StructuredRequest::contract("plna").user("x"))
                .unwrap_err(),
            RequestError::UnknownContract(_)
        ));
        assert!(matches!(
            CallPlan::resolve(
                &settings,
                &StructuredRequest::schema(json!({"type": 7})).user("x")
            )
            .unwrap_err(),
            RequestError::InvalidSchema(_)
        ));
    }

    #[test]
    fn wire_names_follow_openais_pattern() {
        assert_eq!(wire_name("plan"), "plan");
        assert_eq!(wire_name("a.b c"), "a_b_c");
        assert_eq!(wire_name(""), "output");
        assert_eq!(wire_name("..."), "output");
        assert_eq!(wire_name(&"x".repeat(80)).len(), 64);
    }
}
