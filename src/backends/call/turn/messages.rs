//! The messages of the next turn: the assistant message that made the calls, and one `tool`
//! message per result with the matching `tool_call_id`, in OpenAI's chat form (which every
//! OpenAI-compatible engine takes). A harness appends them to its conversation and asks again.

use serde_json::{Value, json};

use super::super::outcome::ParsedToolCall;
use crate::backends::chat::ChatMessage;

/// The assistant message that made `calls` (with `content`, when it had text): each call with
/// its id, `type: function`, its name, and its arguments as a JSON string, as the API sends
/// them back.
///
/// ```
/// use serde_json::json;
/// use slmcode::backends::call::{
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::call::CallOrigin;
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
}
