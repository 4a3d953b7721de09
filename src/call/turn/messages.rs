//! The messages of the next turn: the assistant message that made the calls, and one `tool`
//! message per result with the matching `tool_call_id`, in OpenAI's chat form (which every
//! OpenAI-compatible engine takes). A harness appends them to its conversation and asks again.
//!
//! And the same conversation as a local model reads it ([`calls_as_text`]): a chat template
//! that renders only `content` (SmolLM2's, measured on llama.cpp: 61 prompt tokens with or
//! without the call) drops an assistant message's `tool_calls`, so the model would read a tool
//! result without the call it answers. To a local engine each call is also written into the
//! assistant's text, in the form the tools' description asks the model to write one, and each
//! result says which call it answers.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::super::outcome::ParsedToolCall;
use crate::backends::chat::ChatMessage;

/// The assistant message that made `calls` (with `content`, when it had text): each call with
/// its id, `type: function`, its name, and its arguments as a JSON string, as the API sends
/// them back.
///
/// ```
/// use serde_json::json;
/// use slmcode::call::{
///     CallOrigin, ParsedToolCall, StructuredRequest, assistant_message, tool_result_message,
/// };
/// use slmcode::repair::Rung;
/// use slmcode::tools::{ToolChoice, ToolSet};
///
/// let tools = ToolSet::from_json(r#"[{"name": "read_file"}]"#).unwrap();
/// let mut request = StructuredRequest::default()
///     .tools(tools, ToolChoice::Required)
///     .user("read the README");
/// // What `structured_call` returned: `outcome.tool_calls()`.
/// let calls = [ParsedToolCall {
///     id: "call_1".to_owned(),
///     name: "read_file".to_owned(),
///     arguments: json!({}),
///     origin: CallOrigin::Native,
///     rung: Rung::None,
/// }];
/// request.messages.push(assistant_message(&calls, None));
/// request.messages.push(tool_result_message(&calls[0], "# slmcode"));
/// assert_eq!(request.messages[2].tool_call_id.as_deref(), Some("call_1"));
/// ```
pub fn assistant_message(calls: &[ParsedToolCall], content: Option<&str>) -> ChatMessage {
    let calls: Vec<Value> = calls
        .iter()
        .map(|call| {
            json!({
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments.to_string()},
            })
        })
        .collect();
    ChatMessage {
        role: "assistant".to_owned(),
        content: content.map(str::to_owned),
        tool_calls: (!calls.is_empty()).then_some(Value::Array(calls)),
        tool_call_id: None,
    }
}

/// The `tool` message that answers `call` with `result`.
pub fn tool_result_message(call: &ParsedToolCall, result: impl Into<String>) -> ChatMessage {
    ChatMessage {
        role: "tool".to_owned(),
        content: Some(result.into()),
        tool_calls: None,
        tool_call_id: Some(call.id.clone()),
    }
}

/// `messages` as a local engine gets them: an assistant message's calls written into its text
/// as [`call_text`] writes them (one a line, after the message's own text), and a `tool`
/// message's result introduced by the tool and the id of the call it answers. The native
/// fields stay (`tool_calls`, `tool_call_id`): a server that checks that each result answers a
/// call still finds them, and a template that renders them shows the call twice, which costs
/// tokens but loses nothing. A message with no calls and a result with no id are unchanged.
pub(crate) fn calls_as_text(messages: &[ChatMessage]) -> Vec<ChatMessage> {
    let mut names: Vec<(String, String)> = Vec::new();
    messages
        .iter()
        .map(|message| {
            let mut message = message.clone();
            if let Some(Value::Array(calls)) = &message.tool_calls
                && message.role == "assistant"
                && !calls.is_empty()
            {
                let mut lines: Vec<String> = message
                    .content
                    .as_deref()
                    .map(str::trim)
                    .filter(|text| !text.is_empty())
                    .map(str::to_owned)
                    .into_iter()
                    .collect();
                for call in calls {
                    let name = call
                        .pointer("/function/name")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let arguments = match call.pointer("/function/arguments") {
                        // A JSON text, as the API sends it: written as the value it holds.
                        Some(Value::String(text)) => serde_json::from_str(text)
                            .unwrap_or_else(|_| Value::String(text.clone())),
                        Some(value) => value.clone(),
                        None => json!({}),
                    };
                    if let Some(id) = call.get("id").and_then(Value::as_str) {
                        names.push((id.to_owned(), name.to_owned()));
                    }
                    lines.push(call_text(name, &arguments));
                }
                message.content = Some(lines.join("\n"));
            } else if message.role == "tool"
                && let Some(id) = message.tool_call_id.as_deref()
            {
                let said = match names.iter().rev().find(|(known, _)| known == id) {
                    Some((_, name)) if !name.is_empty() => {
                        format!("The tool {name} (call {id}) returned:")
                    }
                    _ => format!("The call {id} returned:"),
                };
                let result = message.content.as_deref().unwrap_or("");
                message.content = Some(format!("{said}\n{result}"));
            }
            message
        })
        .collect()
}

/// One call as text, in the form [`crate::tools::describe`] asks a model to write a call:
/// `{"name": "<tool name>", "arguments": {<its arguments>}}`.
pub(crate) fn call_text(name: &str, arguments: &Value) -> String {
    format!(
        "{{\"name\": {}, \"arguments\": {}}}",
        Value::from(name),
        arguments
    )
}

/// The content ids ([`crate::tools::call_id`]) of the calls made since the last user message
/// whose results the conversation holds: what a model under `auto` should answer from, not
/// call again. A call the user asks for anew after its result (a later user message) is not
/// among them.
pub(crate) fn answered_calls(messages: &[ChatMessage]) -> HashSet<String> {
    let since = messages
        .iter()
        .rposition(|message| message.role == "user")
        .map_or(0, |at| at + 1);
    let recent = &messages[since..];
    let results: HashSet<&str> = recent
        .iter()
        .filter(|message| message.role == "tool")
        .filter_map(|message| message.tool_call_id.as_deref())
        .collect();
    let mut answered = HashSet::new();
    for message in recent.iter().filter(|message| message.role == "assistant") {
        let Some(Value::Array(calls)) = &message.tool_calls else {
            continue;
        };
        for call in calls {
            let answered_here = call
                .get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| results.contains(id));
            let Some(name) = call.pointer("/function/name").and_then(Value::as_str) else {
                continue;
            };
            let arguments = match call.pointer("/function/arguments") {
                Some(Value::String(text)) => match serde_json::from_str(text) {
                    Ok(value) => value,
                    Err(_) => continue,
                },
                Some(value) => value.clone(),
                None => json!({}),
            };
            if answered_here {
                answered.insert(crate::tools::call_id(name, &arguments));
            }
        }
    }
    answered
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::call::CallOrigin;
    use crate::repair::Rung;

    #[test]
    fn the_assistant_message_and_the_results_share_the_ids() {
        let call = ParsedToolCall {
            id: "call_1".to_owned(),
            name: "read_file".to_owned(),
            arguments: json!({"path": "README.md"}),
            origin: CallOrigin::Native,
            rung: Rung::None,
        };
        let assistant = assistant_message(std::slice::from_ref(&call), None);
        assert_eq!(
            serde_json::to_value(&assistant).unwrap(),
            json!({"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "read_file", "arguments": "{\"path\":\"README.md\"}"}}]})
        );
        let result = tool_result_message(&call, "# slmcode");
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({"role": "tool", "content": "# slmcode", "tool_call_id": "call_1"})
        );
        let text_only = assistant_message(&[], Some("no call needed"));
        assert_eq!(text_only.tool_calls, None);
        assert_eq!(text_only.content.as_deref(), Some("no call needed"));
    }

    fn call(id: &str, name: &str, arguments: Value) -> ParsedToolCall {
        ParsedToolCall {
            id: id.to_owned(),
            name: name.to_owned(),
            arguments,
            origin: CallOrigin::Native,
            rung: Rung::None,
        }
    }

    #[test]
    fn calls_reach_the_text_in_the_described_form_and_results_name_their_call() {
        let read = call("call_1", "read_file", json!({"path": "src/main.rs"}));
        let list = call("call_2", "list_dir", json!({}));
        let conversation = [
            ChatMessage::user("What does src/main.rs print?"),
            assistant_message(&[read.clone(), list.clone()], Some("Let me look. ")),
            tool_result_message(&read, "fn main() {}"),
            tool_result_message(&list, "src"),
            assistant_message(&[], Some("It prints nothing.")),
        ];
        let rendered = calls_as_text(&conversation);
        assert_eq!(rendered[0], conversation[0]);
        assert_eq!(
            rendered[1].content.as_deref(),
            Some(
                "Let me look.\n{\"name\": \"read_file\", \"arguments\": {\"path\":\"src/main.rs\"}}\n{\"name\": \"list_dir\", \"arguments\": {}}"
            )
        );
        assert_eq!(
            rendered[1].tool_calls, conversation[1].tool_calls,
            "the native calls stay"
        );
        assert_eq!(
            rendered[2].content.as_deref(),
            Some("The tool read_file (call call_1) returned:\nfn main() {}")
        );
        assert_eq!(rendered[2].tool_call_id.as_deref(), Some("call_1"));
        assert_eq!(
            rendered[3].content.as_deref(),
            Some("The tool list_dir (call call_2) returned:\nsrc")
        );
        assert_eq!(rendered[4], conversation[4]);
    }

    #[test]
    fn a_call_written_as_text_is_one_the_extraction_reads_back() {
        let text = call_text("read_file", &json!({"path": "a b.rs"}));
        let tools = crate::tools::ToolSet::from_value(&json!([{"name": "read_file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}]))
        .unwrap();
        let found = crate::tools::extract(&text, &tools, &Default::default()).unwrap();
        assert_eq!(found.calls.len(), 1, "{text}");
        assert_eq!(found.calls[0].name, "read_file");
        assert_eq!(found.calls[0].arguments, json!({"path": "a b.rs"}));
        assert!(found.calls[0].notes.is_empty(), "the plain form: {text}");
    }

    #[test]
    fn arguments_that_are_not_json_and_results_of_unknown_calls_are_kept_as_they_came() {
        let conversation = [
            ChatMessage {
                role: "assistant".to_owned(),
                content: None,
                tool_calls: Some(json!([{"id": "x", "type": "function",
                    "function": {"name": "run", "arguments": "ls -la"}}])),
                tool_call_id: None,
            },
            ChatMessage {
                role: "tool".to_owned(),
                content: Some("a.txt".to_owned()),
                tool_calls: None,
                tool_call_id: Some("elsewhere".to_owned()),
            },
            ChatMessage::new("tool", "no id"),
        ];
        let rendered = calls_as_text(&conversation);
        assert_eq!(
            rendered[0].content.as_deref(),
            Some("{\"name\": \"run\", \"arguments\": \"ls -la\"}")
        );
        assert_eq!(
            rendered[1].content.as_deref(),
            Some("The call elsewhere returned:\na.txt")
        );
        assert_eq!(rendered[2], conversation[2]);
    }

    #[test]
    fn answered_calls_are_those_with_a_result_since_the_last_user_message() {
        let call = |id: &str, path: &str| ParsedToolCall {
            id: id.to_owned(),
            name: "read_file".to_owned(),
            arguments: json!({"path": path}),
            origin: CallOrigin::Native,
            rung: Rung::None,
        };
        let first = call("call_1", "README.md");
        let unanswered = call("call_2", "src/main.rs");
        let mut messages = vec![
            ChatMessage::user("What is this project?"),
            assistant_message(&[first.clone(), unanswered], None),
            tool_result_message(&first, "# tally"),
        ];
        let answered = answered_calls(&messages);
        assert_eq!(
            answered,
            HashSet::from([crate::tools::call_id(
                "read_file",
                &json!({"path": "README.md"})
            )])
        );
        // The user asks again: reading the file anew is no repeat.
        messages.push(ChatMessage::user("I changed it. Read it again."));
        assert!(answered_calls(&messages).is_empty());
    }
}
