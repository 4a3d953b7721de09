//! Between the OpenAI chat API and the structured call path: which path a client's request
//! takes ([`classify`]), the [`StructuredRequest`] it becomes, and the chat completion (whole
//! or as event-stream chunks) or the OpenAI-shaped error that goes back.
//!
//! Statuses of a failed structured request (the README documents them):
//! - 400: the request cannot be made (a schema that does not compile, no messages, tools that
//!   do not compile, a message part that is not text);
//! - 422: every attempt's answer failed (`code` is the failure class, with the validation
//!   errors and `partial`), or the call's deadline passed (`code: canceled`). Not a 5xx on
//!   purpose: OpenAI SDKs retry a 5xx twice, which would run the whole call path twice more.
//!   With `text_fallback` on, an answer failure whose last answer has text is a 200 instead
//!   ([`fallback`]): that text as ordinary content, the failure in `slmcode.failure` and the
//!   `x-slmcode-failure` header;
//! - 429: the upstream's rate limit, after the retry policy gave up;
//! - 400 `context_overflow`: the conversation does not fit the upstream's context;
//! - 502: any other upstream failure (unreachable, an error status, not a chat completion).
//!
//! A streamed request (`stream: true`) that passed the request checks has had its `200` head
//! sent before the call ends (`handle` keeps the client waiting with comment lines); its failure
//! goes in the stream as one event holding the same body, which OpenAI's SDKs raise as an error.

use serde_json::{Value, json};

use crate::backends::ErrorClass;
use crate::backends::chat::{ChatMessage, Usage};
use crate::call::{
    Answer, CallFailure, CallMeta, OutputSchema, SchemaViolation, StructuredOutcome,
    StructuredRequest,
};
use crate::tools::{ToolChoice, ToolSet};

/// Which path a chat request takes.
#[derive(Debug)]
pub enum Route {
    /// Nothing for the call path to enforce: relayed unchanged.
    Passthrough,
    /// A `response_format` or `tools` request, as the call path takes it.
    Structured(Box<Structured>),
}

/// A structured request and what the client asked about the answer's form.
#[derive(Debug)]
pub struct Structured {
    /// The request for the call path, with the client's `temperature` when it set one.
    pub request: StructuredRequest,
    /// What the answer must look like.
    pub ask: ClientAsk,
}

impl Structured {
    /// Whether the request carries tools (the log and counters say `tools`).
    pub fn tools(&self) -> bool {
        self.request.tools.is_some()
    }
}

/// What the client asked about the answer's form.
#[derive(Clone, Debug, Default)]
pub struct ClientAsk {
    /// `stream: true`: the answer goes back as event-stream chunks.
    pub stream: bool,
    /// `stream_options.include_usage`: a last chunk carries the usage.
    pub include_usage: bool,
    /// The model the client named, echoed in the answer.
    pub model: Option<String>,
}

/// A request the proxy refuses before anything is sent (status 400).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct BadRequest {
    /// What is wrong, naming the field.
    pub message: String,
    /// The field, as OpenAI's `param`.
    pub param: Option<String>,
}

impl BadRequest {
    fn new(param: &str, message: impl Into<String>) -> BadRequest {
        BadRequest {
            message: message.into(),
            param: Some(param.to_owned()),
        }
    }
}

/// Decides the path of a chat-completions body.
pub fn classify(body: &Value) -> Result<Route, BadRequest> {
    let Some(object) = body.as_object() else {
        return Err(BadRequest {
            message: "the body must be a JSON object".to_owned(),
            param: None,
        });
    };
    let output = output_schema(object.get("response_format"))?;
    let tools = match object.get("tools") {
        Some(Value::Array(items)) if !items.is_empty() => Some(
            ToolSet::from_value(&Value::Array(items.clone()))
                .map_err(|error| BadRequest::new("tools", error.to_string()))?,
        ),
        _ => None,
    };
    let choice = match object.get("tool_choice") {
        Some(Value::Null) | None => None,
        Some(value) => Some(
            ToolChoice::from_value(value, "/tool_choice")
                .map_err(|error| BadRequest::new("tool_choice", error.to_string()))?,
        ),
    };
    // Tools the model may not call, and no output schema: a plain chat.
    let tools = tools.filter(|_| !(choice == Some(ToolChoice::None) && output.is_none()));
    if output.is_none() && tools.is_none() {
        return Ok(Route::Passthrough);
    }
    let mut request = StructuredRequest {
        schema: output,
        messages: messages(object.get("messages"))?,
        ..StructuredRequest::default()
    };
    if let Some(tools) = tools {
        request.tools = Some(tools);
        request.tool_choice = choice;
        if object.get("parallel_tool_calls") == Some(&Value::Bool(false)) {
            request.serial_tools = Some(true);
        }
    }
    let budget = object
        .get("max_completion_tokens")
        .or_else(|| object.get("max_tokens"));
    if let Some(budget) = budget.filter(|value| !value.is_null()) {
        let budget = budget
            .as_u64()
            .filter(|budget| *budget >= 1)
            .ok_or_else(|| BadRequest::new("max_tokens", "must be a whole number from 1"))?;
        request.max_tokens = Some(u32::try_from(budget).unwrap_or(u32::MAX));
    }
    request.seed = object.get("seed").and_then(Value::as_u64);
    request.temperature = match object.get("temperature") {
        None | Some(Value::Null) => None,
        Some(value) => Some(
            value
                .as_f64()
                .filter(|t| (0.0..=2.0).contains(t))
                .ok_or_else(|| BadRequest::new("temperature", "must be a number from 0 to 2"))?,
        ),
    };
    let ask = ClientAsk {
        stream: object.get("stream") == Some(&Value::Bool(true)),
        include_usage: body.pointer("/stream_options/include_usage") == Some(&Value::Bool(true)),
        model: object
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_owned),
    };
    Ok(Route::Structured(Box::new(Structured { request, ask })))
}

/// The output schema `response_format` asks for: a `json_schema`'s schema, or any object for
/// `json_object`; `None` for `text` or no `response_format`.
fn output_schema(format: Option<&Value>) -> Result<Option<OutputSchema>, BadRequest> {
    let Some(format) = format.filter(|format| !format.is_null()) else {
        return Ok(None);
    };
    match format.get("type").and_then(Value::as_str) {
        Some("text") => Ok(None),
        Some("json_object") => Ok(Some(OutputSchema::User {
            name: "json_object".to_owned(),
            schema: json!({"type": "object"}),
            prompt: None,
        })),
        Some("json_schema") => {
            let spec = format.get("json_schema").ok_or_else(|| {
                BadRequest::new(
                    "response_format.json_schema",
                    "missing for type json_schema",
                )
            })?;
            let schema = spec
                .get("schema")
                .cloned()
                .ok_or_else(|| BadRequest::new("response_format.json_schema.schema", "missing"))?;
            let name = spec
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("output")
                .to_owned();
            let prompt = spec
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned);
            Ok(Some(OutputSchema::User {
                name,
                schema,
                prompt,
            }))
        }
        _ => Err(BadRequest::new(
            "response_format.type",
            "expected text, json_object or json_schema",
        )),
    }
}

/// The conversation as the call path takes it: text content (a list of text parts joined),
/// an assistant's tool calls and a tool message's call id kept. (To a local engine the call
/// path also writes each call into the assistant's text, and names the call each result
/// answers: `calls_as_text` in `call/turn/messages.rs`.)
fn messages(value: Option<&Value>) -> Result<Vec<ChatMessage>, BadRequest> {
    let Some(Value::Array(items)) = value else {
        return Err(BadRequest::new("messages", "must be an array of messages"));
    };
    items
        .iter()
        .enumerate()
        .map(|(index, item)| {
            let param = format!("messages[{index}]");
            let role = item
                .get("role")
                .and_then(Value::as_str)
                .ok_or_else(|| BadRequest::new(&param, "needs a role"))?;
            // A developer message is the newer name for a system message.
            let role = if role == "developer" { "system" } else { role };
            let content = match item.get("content") {
                None | Some(Value::Null) => None,
                Some(Value::String(text)) => Some(text.clone()),
                Some(Value::Array(parts)) => Some(text_parts(parts, &param)?),
                Some(_) => return Err(BadRequest::new(&param, "content must be text or parts")),
            };
            Ok(ChatMessage {
                role: role.to_owned(),
                content,
                tool_calls: item.get("tool_calls").filter(|v| !v.is_null()).cloned(),
                tool_call_id: item
                    .get("tool_call_id")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            })
        })
        .collect()
}

fn text_parts(parts: &[Value], param: &str) -> Result<String, BadRequest> {
    let mut text = String::new();
    for part in parts {
        match (
            part.get("type").and_then(Value::as_str),
            part.get("text").and_then(Value::as_str),
        ) {
            (Some("text"), Some(piece)) => text.push_str(piece),
            _ => {
                return Err(BadRequest::new(
                    param,
                    "only text parts can be sent on the structured path",
                ));
            }
        }
    }
    Ok(text)
}

/// Identity of one answer: the completion id, when it was made and the model it names.
#[derive(Clone, Debug)]
pub struct Stamp {
    /// `chatcmpl-slmcode-...`.
    pub id: String,
    /// Unix seconds.
    pub created: u64,
    /// The client's model, else the configured one, else `slmcode`.
    pub model: String,
}

/// The answer's message, its finish reason, and the tool calls as OpenAI writes them.
fn message(answer: &Answer) -> (Value, &'static str) {
    match answer {
        Answer::Value(value) => (
            json!({"role": "assistant", "content": value.to_string()}),
            "stop",
        ),
        Answer::Tools { calls, content } => {
            let mut message = json!({"role": "assistant", "content": content});
            if calls.is_empty() {
                return (message, "stop");
            }
            let calls: Vec<Value> = calls
                .iter()
                .map(|call| {
                    json!({"id": call.id, "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments.to_string()}})
                })
                .collect();
            message["tool_calls"] = Value::Array(calls);
            (message, "tool_calls")
        }
    }
}

/// The answer as text: the validated JSON, or the tool calls (`name(arguments)`) and the text
/// beside them.
pub fn answer_text(answer: &Answer) -> String {
    match answer {
        Answer::Value(value) => value.to_string(),
        Answer::Tools { calls, content } => {
            let mut parts: Vec<String> = calls
                .iter()
                .map(|call| format!("{}({})", call.name, call.arguments))
                .collect();
            parts.extend(content.clone());
            parts.join(" ")
        }
    }
}

/// OpenAI's `usage`, summed over every answer of the call; zeros where the server said nothing.
pub fn usage(tokens: Option<&Usage>) -> Value {
    let tokens = tokens.cloned().unwrap_or_default();
    let prompt = tokens.prompt_tokens.unwrap_or(0);
    let completion = tokens.completion_tokens.unwrap_or(0);
    json!({"prompt_tokens": prompt, "completion_tokens": completion,
        "total_tokens": tokens.total_tokens.unwrap_or(prompt + completion)})
}

/// The answer as one chat completion, the call's meta in `slmcode`.
pub fn completion(outcome: &StructuredOutcome, stamp: &Stamp) -> Value {
    let (message, finish) = message(&outcome.answer);
    whole(
        message,
        finish,
        meta_value(&outcome.meta),
        outcome.meta.tokens.as_ref(),
        stamp,
    )
}

/// The answer as event-stream chunks (each one `data:` payload, `[DONE]` not included): the
/// role, the content, the tool calls, the finish reason (with the meta in `slmcode`), and the
/// usage when the client asked for it.
pub fn completion_chunks(
    outcome: &StructuredOutcome,
    ask: &ClientAsk,
    stamp: &Stamp,
) -> Vec<Value> {
    let (message, finish) = message(&outcome.answer);
    chunks(
        &message,
        finish,
        meta_value(&outcome.meta),
        outcome.meta.tokens.as_ref(),
        ask,
        stamp,
    )
}

/// Seed 004's backstop (`text_fallback` on, every attempt failed): the last answer's `text` as
/// an ordinary chat completion, its finish reason `stop` (`length` when the server cut the last
/// answer), and the failure in `slmcode.failure` beside the meta: `{class, message, errors,
/// partial, missing_required}`. The caller adds the `x-slmcode-failure` header
/// ([`FALLBACK_HEADER`]) where the head has not left yet.
pub fn fallback(violation: &SchemaViolation, text: &str, stamp: &Stamp) -> Value {
    let (message, finish, slmcode) = fallback_parts(violation, text);
    whole(
        message,
        finish,
        slmcode,
        violation.meta.tokens.as_ref(),
        stamp,
    )
}

/// [`fallback`] as event-stream payloads, for a client that asked for `stream: true`.
pub fn fallback_chunks(
    violation: &SchemaViolation,
    text: &str,
    ask: &ClientAsk,
    stamp: &Stamp,
) -> Vec<Value> {
    let (message, finish, slmcode) = fallback_parts(violation, text);
    chunks(
        &message,
        finish,
        slmcode,
        violation.meta.tokens.as_ref(),
        ask,
        stamp,
    )
}

/// The message, finish reason and `slmcode` field of a fallback.
fn fallback_parts(violation: &SchemaViolation, text: &str) -> (Value, &'static str, Value) {
    let message = json!({"role": "assistant", "content": text});
    let finish = if violation.meta.finish_reason.as_deref() == Some("length") {
        "length"
    } else {
        "stop"
    };
    let mut slmcode = meta_value(&violation.meta);
    slmcode["failure"] = json!({
        "class": violation.class.as_str(),
        "message": violation.to_string(),
        "errors": serde_json::to_value(&violation.errors).unwrap_or(Value::Null),
        "partial": violation.partial,
        "missing_required": violation.missing_required,
    });
    (message, finish, slmcode)
}

/// The header that tells a client an answer is seed 004's backstop, not a validated value: its
/// value is the failure class.
pub const FALLBACK_HEADER: &str = "x-slmcode-failure";

/// One chat completion of `message`.
fn whole(
    message: Value,
    finish: &str,
    slmcode: Value,
    tokens: Option<&Usage>,
    stamp: &Stamp,
) -> Value {
    json!({
        "id": stamp.id, "object": "chat.completion", "created": stamp.created, "model": stamp.model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": null}],
        "usage": usage(tokens),
        "slmcode": slmcode,
    })
}

/// `message` as event-stream chunks, `slmcode` on the one with the finish reason.
fn chunks(
    message: &Value,
    finish: &str,
    slmcode: Value,
    tokens: Option<&Usage>,
    ask: &ClientAsk,
    stamp: &Stamp,
) -> Vec<Value> {
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({"id": stamp.id, "object": "chat.completion.chunk", "created": stamp.created,
            "model": stamp.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": null}]})
    };
    let mut chunks = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    if let Some(content) = message.get("content").and_then(Value::as_str) {
        chunks.push(chunk(json!({"content": content}), None));
    }
    if let Some(Value::Array(calls)) = message.get("tool_calls") {
        let indexed: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(index, call)| {
                let mut call = call.clone();
                call["index"] = json!(index);
                call
            })
            .collect();
        chunks.push(chunk(json!({"tool_calls": indexed}), None));
    }
    let mut last = chunk(json!({}), Some(finish));
    last["slmcode"] = slmcode;
    chunks.push(last);
    if ask.include_usage {
        chunks.push(json!({"id": stamp.id, "object": "chat.completion.chunk",
            "created": stamp.created, "model": stamp.model, "choices": [],
            "usage": usage(tokens)}));
    }
    chunks
}

fn meta_value(meta: &CallMeta) -> Value {
    serde_json::to_value(meta).unwrap_or(Value::Null)
}

/// The `x-slmcode-*` headers of a call's meta.
pub fn meta_headers(meta: &CallMeta) -> Vec<(&'static str, String)> {
    let mut headers = vec![
        ("x-slmcode-mechanism", meta.mechanism.to_string()),
        (
            "x-slmcode-rung",
            // No rung gave a value when the call failed.
            meta.repair_rung
                .map_or("failed".to_owned(), |rung| rung.as_str().to_owned()),
        ),
        ("x-slmcode-reasks", meta.reasks.len().to_string()),
        ("x-slmcode-attempts", meta.attempts.to_string()),
        ("x-slmcode-stream-end", meta.stream_end.to_string()),
        ("x-slmcode-elapsed-ms", meta.elapsed_ms.to_string()),
    ];
    if let Some(reason) = meta.degrade_reason {
        headers.push(("x-slmcode-degraded", reason.to_string()));
    }
    headers
}

/// An OpenAI-shaped error: `{"error": {"message", "type", "param", "code", ...}}`.
pub fn error_body(message: &str, kind: &str, code: &str, param: Option<&str>) -> Value {
    json!({"error": {"message": message, "type": kind, "param": param, "code": code}})
}

/// The status and body of a failed structured call (see the module docs), with the
/// evidence: the failure class, validation errors, `partial` and `raw`; and its meta.
pub fn failure(failure: &CallFailure) -> (u16, Value, &'static str) {
    let message = failure.to_string();
    match failure {
        CallFailure::Request(_) => (
            400,
            error_body(&message, "invalid_request_error", "invalid_request", None),
            "invalid_request",
        ),
        CallFailure::Endpoint { error, meta } => {
            let (status, kind) = match error.class {
                ErrorClass::RateLimited => (429, "rate_limit_error"),
                ErrorClass::ContextOverflow => (400, "invalid_request_error"),
                _ => (502, "upstream_error"),
            };
            let class = error.class.as_str();
            let mut body = error_body(&message, kind, class, None);
            body["error"]["class"] = json!(class);
            body["error"]["upstream_status"] = json!(error.status);
            body["slmcode"] = meta_value(meta);
            (status, body, class)
        }
        CallFailure::SchemaViolation(violation) => {
            let class = violation.class.as_str();
            let mut body = error_body(&message, "slmcode_answer_failed", class, None);
            let detail = &mut body["error"];
            detail["class"] = json!(class);
            detail["errors"] = serde_json::to_value(&violation.errors).unwrap_or(Value::Null);
            detail["partial"] = json!(violation.partial);
            detail["missing_required"] = json!(violation.missing_required);
            detail["raw"] = json!(violation.raw);
            detail["raw_cut"] = json!(violation.raw_cut);
            body["slmcode"] = meta_value(&violation.meta);
            (422, body, class)
        }
        CallFailure::DeadlineExceeded(exceeded) => {
            let class = ErrorClass::Canceled.as_str();
            let mut body = error_body(&message, "slmcode_answer_failed", class, None);
            let detail = &mut body["error"];
            detail["class"] = json!(class);
            detail["errors"] = json!([]);
            detail["partial"] = json!(exceeded.partial);
            detail["missing_required"] = json!(exceeded.missing_required);
            detail["raw"] = json!(exceeded.raw);
            detail["raw_cut"] = json!(exceeded.raw_cut);
            body["slmcode"] = meta_value(&exceeded.meta);
            (422, body, class)
        }
    }
}
