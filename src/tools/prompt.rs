//! The tools in words, for the prompt: the one place a tool set is rendered as text.
//!
//! A request constrained to a call carries no `tools` field (the constraint takes its place), so
//! the model reads the tools, their descriptions and their parameters in the system message
//! instead. [`describe`] writes that text, and [`call_id`] gives a call written as text the
//! stable id a harness answers it with.

use serde_json::Value;

use super::canonical::{content_address, write_value};
use super::{ToolChoice, ToolSet};

/// The system-message text for `tools` under `choice`: every tool with its description and its
/// parameters' JSON Schema, the form of a call, what the choice requires, and under `auto` with
/// an `answer` shape, how to answer without a call.
pub fn describe(tools: &ToolSet, choice: &ToolChoice, answer: Option<&Value>) -> String {
    let mut text = String::from("You can call these tools:");
    for tool in tools.tools() {
        if let ToolChoice::Tool(name) = choice
            && name != &tool.name
        {
            continue;
        }
        text.push_str("\n- ");
        text.push_str(&tool.name);
        if let Some(description) = tool
            .description
            .as_deref()
            .map(str::trim)
            .filter(|description| !description.is_empty())
        {
            text.push_str(": ");
            text.push_str(description);
        }
        text.push_str("\n  arguments (JSON Schema): ");
        text.push_str(&tool.parameters.to_string());
    }
    text.push_str(
        "\n\nTo call a tool, write one JSON object {\"name\": \"<tool name>\", \"arguments\": {<its arguments>}}.",
    );
    match choice {
        ToolChoice::Tool(name) => {
            text.push_str(&format!(" Call the tool {name}, exactly once."));
        }
        ToolChoice::Required => text.push_str(" Call exactly one of the tools."),
        ToolChoice::Auto | ToolChoice::None => match answer {
            Some(answer) => text.push_str(&format!(
                " If no tool is needed, answer instead with one JSON object that satisfies this JSON Schema: {answer}"
            )),
            None => text.push_str(" If no tool is needed, answer in plain text."),
        },
    }
    text
}

/// The id of a call that came without one (a call written as text): `call_` and the first 16
/// hex digits of the SHA-256 of the tool's name, a newline, and the arguments in canonical JSON
/// (keys sorted, no whitespace). The same call always gets the same id, so a harness can answer
/// it with a matching `tool_call_id` and recognise it again.
pub fn call_id(name: &str, arguments: &Value) -> String {
    let mut bytes = Vec::with_capacity(name.len() + 64);
    bytes.extend_from_slice(name.as_bytes());
    bytes.push(b'\n');
    write_value(arguments, &mut bytes);
    let address = content_address(&bytes);
    let hex = address.trim_start_matches("sha256:");
    format!("call_{}", &hex[..16])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tools() -> ToolSet {
        ToolSet::from_value(&json!([
            {"name": "read_file", "description": "Read a file.", "parameters": {"type": "object",
                "properties": {"path": {"type": "string"}}, "required": ["path"]}},
            {"name": "ping"}
        ]))
        .unwrap()
    }

    #[test]
    fn every_tool_is_described_with_its_parameters_and_the_choice() {
        let text = describe(&tools(), &ToolChoice::Required, None);
        assert!(
            text.starts_with(
                "You can call these tools:\n- read_file: Read a file.\n  arguments (JSON Schema): {"
            ),
            "{text}"
        );
        assert!(
            text.contains("\n- ping\n  arguments (JSON Schema): "),
            "{text}"
        );
        assert!(text.ends_with("Call exactly one of the tools."), "{text}");
        assert!(!text.contains("only JSON"));
    }

    #[test]
    fn a_named_choice_describes_only_that_tool() {
        let text = describe(&tools(), &ToolChoice::Tool("ping".into()), None);
        assert!(!text.contains("read_file"), "{text}");
        assert!(
            text.ends_with("Call the tool ping, exactly once."),
            "{text}"
        );
    }

    #[test]
    fn auto_says_how_to_answer_without_a_call() {
        let answer = json!({"type": "object", "required": ["answer"]});
        let text = describe(&tools(), &ToolChoice::Auto, Some(&answer));
        assert!(
            text.ends_with(&format!(
                "answer instead with one JSON object that satisfies this JSON Schema: {answer}"
            )),
            "{text}"
        );
        let plain = describe(&tools(), &ToolChoice::Auto, None);
        assert!(plain.ends_with("answer in plain text."), "{plain}");
    }

    #[test]
    fn ids_are_stable_over_key_order_and_differ_by_content() {
        let id = call_id("read_file", &json!({"path": "a", "n": 1}));
        assert_eq!(id, call_id("read_file", &json!({"n": 1, "path": "a"})));
        assert_eq!(id.len(), "call_".len() + 16);
        assert!(id.starts_with("call_"));
        assert_ne!(id, call_id("read_file", &json!({"path": "b", "n": 1})));
        assert_ne!(id, call_id("write_file", &json!({"path": "a", "n": 1})));
    }
}
