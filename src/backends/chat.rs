//! The chat-completions wire format: the request ([`ChatMessage`], [`ChatRequest`]) and its JSON
//! body under each constraint ([`build_body`]: json_schema -> `response_format`, guided ->
//! `structured_outputs.json` or the legacy `guided_json`, grammar -> `grammar`, json_object ->
//! `response_format`, none -> nothing), and the answer read back from a body
//! ([`parse_chat_response`]: content, reasoning, finish_reason, usage, tool_calls). No I/O: the
//! exchange is [`super::transport`].

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::schema::Constraint;

use super::capabilities::GuidedField;

/// One chat message. Only the fields a structured call needs; tool calls pass through as JSON.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChatMessage {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    /// The text (absent on an assistant message that only calls tools).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// An assistant message's tool calls, as the server sent them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Value>,
    /// The call a `tool` message answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    /// A message with a role and text.
    pub fn new(role: &str, content: impl Into<String>) -> ChatMessage {
        ChatMessage {
            role: role.to_owned(),
            content: Some(content.into()),
            tool_calls: None,
            tool_call_id: None,
        }
    }

    /// A `system` message.
    pub fn system(content: impl Into<String>) -> ChatMessage {
        ChatMessage::new("system", content)
    }

    /// A `user` message.
    pub fn user(content: impl Into<String>) -> ChatMessage {
        ChatMessage::new("user", content)
    }
}

/// What one chat-completions request asks for, apart from the constraint.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatRequest {
    /// The conversation.
    pub messages: Vec<ChatMessage>,
    /// The model id; omitted when `None` (local servers serve one model).
    pub model: Option<String>,
    /// The completion budget.
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Stop sequences.
    pub stop: Vec<String>,
    /// A sampling seed, for repeatable answers.
    pub seed: Option<u64>,
    /// Tools, passed through as given (OpenAI `tools` array).
    pub tools: Option<Value>,
    /// `tool_choice`, passed through as given.
    pub tool_choice: Option<Value>,
    /// `parallel_tool_calls` (false: at most one call per answer), where the engine takes it.
    pub parallel_tool_calls: Option<bool>,
    /// Engine-specific sampling fields sent as they are (`repeat_penalty`, `dry_multiplier`,
    /// `frequency_penalty`, ...): what the provider's preset says its engine takes.
    pub sampling: Map<String, Value>,
    /// The fields that carry the `thinking` setting, as the provider's preset names them
    /// (`chat_template_kwargs`, `reasoning_effort`); each is dropped on its own when the
    /// server refuses it by name.
    pub thinking: Map<String, Value>,
}

/// The JSON body for `request` constrained by `constraint`. `guided_field` says where vLLM
/// guided decoding goes. Field names per engine: vLLM
/// <https://docs.vllm.ai/en/latest/features/structured_outputs/>, llama-server
/// <https://github.com/ggml-org/llama.cpp/tree/master/tools/server> (`grammar`), OpenAI
/// <https://platform.openai.com/docs/guides/structured-outputs> (`response_format`).
pub fn build_body(
    request: &ChatRequest,
    constraint: &Constraint,
    guided_field: GuidedField,
) -> Value {
    let mut body = Map::new();
    if let Some(model) = &request.model {
        body.insert("model".to_owned(), json!(model));
    }
    body.insert(
        "messages".to_owned(),
        serde_json::to_value(&request.messages).unwrap_or(Value::Array(Vec::new())),
    );
    if let Some(max_tokens) = request.max_tokens {
        body.insert("max_tokens".to_owned(), json!(max_tokens));
    }
    if let Some(temperature) = request.temperature {
        body.insert("temperature".to_owned(), json!(temperature));
    }
    if !request.stop.is_empty() {
        body.insert("stop".to_owned(), json!(request.stop));
    }
    if let Some(seed) = request.seed {
        body.insert("seed".to_owned(), json!(seed));
    }
    if let Some(tools) = &request.tools {
        body.insert("tools".to_owned(), tools.clone());
    }
    if let Some(tool_choice) = &request.tool_choice {
        body.insert("tool_choice".to_owned(), tool_choice.clone());
    }
    if let Some(parallel) = request.parallel_tool_calls {
        body.insert("parallel_tool_calls".to_owned(), json!(parallel));
    }
    for (field, value) in request.sampling.iter().chain(&request.thinking) {
        body.insert(field.clone(), value.clone());
    }
    body.insert("stream".to_owned(), json!(false));
    match constraint {
        Constraint::JsonSchema {
            name,
            schema,
            strict,
        } => {
            let mut json_schema = json!({"name": name, "schema": schema});
            if *strict {
                json_schema["strict"] = json!(true);
            }
            body.insert(
                "response_format".to_owned(),
                json!({"type": "json_schema", "json_schema": json_schema}),
            );
        }
        Constraint::GuidedJson { schema } => match guided_field {
            GuidedField::StructuredOutputs => {
                body.insert("structured_outputs".to_owned(), json!({"json": schema}));
            }
            GuidedField::GuidedJson => {
                body.insert("guided_json".to_owned(), schema.clone());
            }
        },
        Constraint::Grammar { gbnf } => {
            body.insert("grammar".to_owned(), json!(gbnf));
        }
        Constraint::JsonObject => {
            body.insert("response_format".to_owned(), json!({"type": "json_object"}));
        }
        Constraint::None => {}
    }
    Value::Object(body)
}

/// One tool call in an answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ToolCall {
    /// The call id, when the server gives one.
    pub id: Option<String>,
    /// The function name.
    pub name: String,
    /// The arguments as the model wrote them (a JSON text, not yet parsed).
    pub arguments: String,
}

/// Token counts the server reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Tokens in the prompt.
    pub prompt_tokens: Option<u64>,
    /// Tokens generated.
    pub completion_tokens: Option<u64>,
    /// Both.
    pub total_tokens: Option<u64>,
    /// Of the prompt's tokens, those the server took from its prompt cache instead of
    /// processing them (`prompt_tokens_details.cached_tokens`): on a local engine, the prompt is
    /// most of an answer's time, and a cached one costs next to nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_prompt_tokens: Option<u64>,
}

/// The fields engines return reasoning in, apart from the text, in the order they are read:
/// only the first one present counts (vLLM sends the same text under two of them).
pub(super) const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "thinking"];

/// A parsed chat-completions answer (the first choice).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChatResponse {
    /// The text; `None` when the message had none (a tool call only).
    pub content: Option<String>,
    /// The reasoning the engine returned apart from the text (`reasoning_content`,
    /// `reasoning` or `thinking`); never validated.
    pub reasoning: Option<String>,
    /// `stop`, `length`, `tool_calls`, ...
    pub finish_reason: Option<String>,
    /// Token counts, when reported.
    pub usage: Usage,
    /// Tool calls, in order.
    pub tool_calls: Vec<ToolCall>,
    /// The model that answered, when reported.
    pub model: Option<String>,
}

impl ChatResponse {
    /// Whether the answer was cut by the token budget.
    pub fn is_truncated(&self) -> bool {
        self.finish_reason.as_deref() == Some("length")
    }

    /// Whether the answer has neither text nor tool calls.
    pub fn is_blank(&self) -> bool {
        self.tool_calls.is_empty()
            && self
                .content
                .as_deref()
                .is_none_or(|content| content.trim().is_empty())
    }

    /// The value of a constrained answer the server filed as reasoning: no content, and a
    /// reasoning field that is one JSON value and nothing else. llama.cpp does this when the
    /// chat template opens a `<think>` block in the prompt and a grammar constrains every token
    /// from the first: the model could write nothing but the constrained value, and the
    /// server's reasoning parser, waiting for `</think>`, files it all as reasoning. Only the
    /// answer to a constrained request may be read this way; a model that merely thinks in
    /// JSON is never taken at its word.
    pub fn misfiled_answer(&self) -> Option<&str> {
        if !self.is_blank() {
            return None;
        }
        let reasoning = self.reasoning.as_deref()?.trim();
        serde_json::from_str::<serde::de::IgnoredAny>(reasoning)
            .is_ok()
            .then_some(reasoning)
    }
}

/// Parses a chat-completions body (the first choice). The error quotes the body: a server that
/// is not an OpenAI-compatible one (another application on the port, a wrong path behind a
/// proxy) is recognised by what it sent.
pub fn parse_chat_response(body: &Value) -> Result<ChatResponse, String> {
    let choice = body
        .get("choices")
        .and_then(|choices| choices.get(0))
        .ok_or_else(|| {
            format!("the answer is not a chat completion (it has no choices): {body}")
        })?;
    let message = choice.get("message").cloned().unwrap_or(Value::Null);
    let content = match message.get("content") {
        Some(Value::String(text)) => Some(text.clone()),
        // Content parts: keep the text ones, in order.
        Some(Value::Array(parts)) => Some(
            parts
                .iter()
                .filter_map(|part| part.get("text").and_then(Value::as_str))
                .collect::<String>(),
        ),
        _ => None,
    };
    let tool_calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .filter_map(|call| {
                    let function = call.get("function")?;
                    let arguments = match function.get("arguments") {
                        Some(Value::String(text)) => text.clone(),
                        Some(other) => other.to_string(),
                        None => String::new(),
                    };
                    Some(ToolCall {
                        id: call.get("id").and_then(Value::as_str).map(str::to_owned),
                        name: function.get("name")?.as_str()?.to_owned(),
                        arguments,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    let usage = body.get("usage").map_or_else(Usage::default, parse_usage);
    let reasoning = REASONING_FIELDS
        .iter()
        .find_map(|field| message.get(*field).and_then(Value::as_str))
        .filter(|text| !text.is_empty())
        .map(str::to_owned);
    Ok(ChatResponse {
        content,
        reasoning,
        finish_reason: choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(str::to_owned),
        usage,
        tool_calls,
        model: body.get("model").and_then(Value::as_str).map(str::to_owned),
    })
}

/// The token counts of a `usage` object.
pub(super) fn parse_usage(usage: &Value) -> Usage {
    Usage {
        prompt_tokens: usage.get("prompt_tokens").and_then(Value::as_u64),
        completion_tokens: usage.get("completion_tokens").and_then(Value::as_u64),
        total_tokens: usage.get("total_tokens").and_then(Value::as_u64),
        cached_prompt_tokens: usage
            .pointer("/prompt_tokens_details/cached_tokens")
            .and_then(Value::as_u64),
    }
}

#[cfg(test)]
mod tests {
    //! The wire format: each constraint in its field, tools, answers, reasoning fields, and an
    //! answer misfiled as reasoning.

    use serde_json::json;

    use super::*;
    use crate::backends::tests::request;

    #[test]
    fn each_constraint_goes_in_its_field() {
        let schema = json!({"type": "object"});
        let strict = build_body(
            &request(),
            &Constraint::JsonSchema {
                name: "plan".to_owned(),
                schema: schema.clone(),
                strict: true,
            },
            GuidedField::StructuredOutputs,
        );
        assert_eq!(
            strict["response_format"],
            json!({"type": "json_schema", "json_schema": {"name": "plan", "schema": schema, "strict": true}})
        );
        let loose = build_body(
            &request(),
            &Constraint::JsonSchema {
                name: "plan".to_owned(),
                schema: schema.clone(),
                strict: false,
            },
            GuidedField::StructuredOutputs,
        );
        assert!(
            loose["response_format"]["json_schema"]
                .get("strict")
                .is_none()
        );
        let guided = Constraint::GuidedJson {
            schema: schema.clone(),
        };
        assert_eq!(
            build_body(&request(), &guided, GuidedField::StructuredOutputs)["structured_outputs"],
            json!({"json": schema})
        );
        let legacy = build_body(&request(), &guided, GuidedField::GuidedJson);
        assert_eq!(legacy["guided_json"], schema);
        assert!(legacy.get("structured_outputs").is_none());
        let grammar = build_body(
            &request(),
            &Constraint::Grammar {
                gbnf: "root ::= \"x\"".to_owned(),
            },
            GuidedField::StructuredOutputs,
        );
        assert_eq!(grammar["grammar"], json!("root ::= \"x\""));
        assert_eq!(
            build_body(
                &request(),
                &Constraint::JsonObject,
                GuidedField::StructuredOutputs
            )["response_format"],
            json!({"type": "json_object"})
        );
        let plain = build_body(
            &request(),
            &Constraint::None,
            GuidedField::StructuredOutputs,
        );
        for field in [
            "response_format",
            "structured_outputs",
            "guided_json",
            "grammar",
        ] {
            assert!(plain.get(field).is_none(), "{field}");
        }
        assert_eq!(plain["model"], json!("m"));
        assert_eq!(plain["max_tokens"], json!(64));
        assert_eq!(plain["stop"], json!(["\n## "]));
        assert_eq!(plain["seed"], json!(7));
        assert_eq!(
            plain["messages"],
            json!([{"role": "user", "content": "hi"}])
        );
    }

    #[test]
    fn tools_pass_through_and_a_missing_model_is_omitted() {
        let mut with_tools = request();
        with_tools.model = None;
        with_tools.tools = Some(json!([{"type": "function", "function": {"name": "read"}}]));
        with_tools.tool_choice = Some(json!("required"));
        with_tools.parallel_tool_calls = Some(false);
        let body = build_body(
            &with_tools,
            &Constraint::None,
            GuidedField::StructuredOutputs,
        );
        assert!(body.get("model").is_none());
        assert_eq!(body["tools"][0]["function"]["name"], json!("read"));
        assert_eq!(body["tool_choice"], json!("required"));
        assert_eq!(body["parallel_tool_calls"], json!(false));
    }

    #[test]
    fn answers_parse_content_finish_reason_usage_and_tool_calls() {
        let body = json!({
            "model": "tiny",
            "choices": [{"finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null,
                "tool_calls": [{"id": "c1", "type": "function",
                    "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}}]}}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}
        });
        let parsed = parse_chat_response(&body).unwrap();
        assert_eq!(parsed.content, None);
        assert_eq!(parsed.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(parsed.usage.total_tokens, Some(8));
        assert_eq!(parsed.tool_calls[0].name, "read");
        assert_eq!(parsed.tool_calls[0].arguments, "{\"path\":\"a\"}");
        assert_eq!(parsed.model.as_deref(), Some("tiny"));
        assert_eq!(
            parsed.usage.cached_prompt_tokens, None,
            "not said: not counted"
        );
        let cached = json!({"choices": [{"message": {"content": "{}"}}], "usage": {
        "prompt_tokens": 458, "completion_tokens": 9, "total_tokens": 467,
        "prompt_tokens_details": {"cached_tokens": 457}}});
        assert_eq!(
            parse_chat_response(&cached)
                .unwrap()
                .usage
                .cached_prompt_tokens,
            Some(457)
        );
        let cut =
            json!({"choices": [{"finish_reason": "length", "message": {"content": "{\"a\":"}}]});
        assert!(parse_chat_response(&cut).unwrap().is_truncated());
        assert_eq!(
            parse_chat_response(&json!({"hello": "world"})).unwrap_err(),
            r#"the answer is not a chat completion (it has no choices): {"hello":"world"}"#
        );
    }

    #[test]
    fn reasoning_comes_from_whichever_field_the_engine_uses() {
        for field in ["reasoning_content", "reasoning", "thinking"] {
            let body = json!({"choices": [{"message": {"content": "{}", field: "hmm"},
            "finish_reason": "stop"}]});
            let response = parse_chat_response(&body).unwrap();
            assert_eq!(response.reasoning.as_deref(), Some("hmm"), "{field}");
            assert_eq!(response.content.as_deref(), Some("{}"));
        }
    }

    #[test]
    fn only_a_blank_answer_with_one_json_value_as_reasoning_is_a_misfiled_answer() {
        let answer = |content: Option<&str>, reasoning: &str, tool_calls: bool| ChatResponse {
            content: content.map(str::to_owned),
            reasoning: Some(reasoning.to_owned()),
            tool_calls: if tool_calls {
                vec![ToolCall {
                    id: None,
                    name: "read".to_owned(),
                    arguments: "{}".to_owned(),
                }]
            } else {
                Vec::new()
            },
            ..ChatResponse::default()
        };
        assert_eq!(
            answer(None, " {\"a\": 1}\n", false).misfiled_answer(),
            Some("{\"a\": 1}")
        );
        assert_eq!(
            answer(Some("  "), "[1]", false).misfiled_answer(),
            Some("[1]")
        );
        assert_eq!(answer(Some("{}"), "[1]", false).misfiled_answer(), None);
        assert_eq!(answer(None, "[1]", true).misfiled_answer(), None);
        assert_eq!(
            answer(None, "The user wants {\"a\": 1}.", false).misfiled_answer(),
            None,
            "a model that thinks about JSON is not taken at its word"
        );
    }
}
