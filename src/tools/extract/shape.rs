//! Reading calls out of a parsed JSON value, in the spellings models and APIs use:
//! - `{"name": N, "arguments": {...}}` and the key variants `function` / `tool` / `tool_name`
//!   / `function_name` / `action` for the name and `parameters` / `input` / `args` / `params` /
//!   `tool_input` / `action_input` / `kwargs` for the arguments (Llama 3.1 writes `parameters`,
//!   Anthropic's `tool_use` block `input`, LangChain agents `action` / `action_input`);
//! - `{"type": "function", "function": {"name": N, "arguments": "<json>"}}` (an OpenAI tool
//!   call) and `{"function_call": {...}}` (the legacy one);
//! - `{"tool_calls": [...]}` (an OpenAI assistant message written as text) and a bare array of
//!   calls;
//! - `{"name": N, ...arguments...}` with the arguments beside the name, when N is a known tool
//!   and no arguments key is present.
//!
//! An object without a string name is not a call. The arguments are returned as written (an
//! object, a JSON string, or absent); checking them is the caller's job.

use serde_json::{Map, Value};

/// Keys that name the tool, in order of preference.
const NAME_KEYS: [&str; 6] = [
    "name",
    "function",
    "tool",
    "tool_name",
    "function_name",
    "action",
];

/// Keys that hold the arguments, in order of preference.
const ARGUMENT_KEYS: [&str; 8] = [
    "arguments",
    "parameters",
    "input",
    "args",
    "params",
    "tool_input",
    "action_input",
    "kwargs",
];

/// Keys a call object carries besides its name and arguments.
const BOOKKEEPING_KEYS: [&str; 4] = ["type", "id", "call_id", "index"];

/// Wrappers around one call.
const WRAPPER_KEYS: [&str; 4] = ["function_call", "tool_call", "tool_use", "call"];

/// A call as written, before its tool is looked up.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct RawCall {
    /// The name as written.
    pub name: String,
    /// The arguments as written; `None` when the call has none.
    pub arguments: Option<Value>,
    /// How the call was spelled, when it was not `{"name", "arguments"}`.
    pub notes: Vec<String>,
}

/// The calls in `value`; `is_tool` says whether a name is a known tool (for the form with the
/// arguments beside the name).
pub(super) fn calls_in(value: &Value, is_tool: &dyn Fn(&str) -> bool) -> Vec<RawCall> {
    match value {
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_object)
            .flat_map(|map| calls_in_object(map, is_tool))
            .collect(),
        Value::Object(map) => calls_in_object(map, is_tool),
        _ => Vec::new(),
    }
}

fn calls_in_object(map: &Map<String, Value>, is_tool: &dyn Fn(&str) -> bool) -> Vec<RawCall> {
    if let Some(Value::Array(calls)) = map.get("tool_calls") {
        return calls
            .iter()
            .filter_map(Value::as_object)
            .filter_map(|call| call_from(call, is_tool))
            .map(|mut call| {
                call.notes
                    .push("written as an OpenAI `tool_calls` list".to_owned());
                call
            })
            .collect();
    }
    if let Some(call) = call_from(map, is_tool) {
        return vec![call];
    }
    for key in WRAPPER_KEYS {
        if let Some(Value::Object(inner)) = map.get(key)
            && let Some(mut call) = call_from(inner, is_tool)
        {
            call.notes.push(format!("wrapped in `{key}`"));
            return vec![call];
        }
    }
    Vec::new()
}

fn call_from(map: &Map<String, Value>, is_tool: &dyn Fn(&str) -> bool) -> Option<RawCall> {
    // {"type": "function", "function": {"name": N, "arguments": ...}}
    if let Some(Value::Object(function)) = map.get("function")
        && let Some(Value::String(name)) = function.get("name")
    {
        let arguments = arguments_in(function).or_else(|| arguments_in(map));
        let mut notes = Vec::new();
        if let Some((key, _)) = &arguments
            && *key != "arguments"
        {
            notes.push(format!("arguments under `{key}`"));
        }
        return Some(RawCall {
            name: name.clone(),
            arguments: arguments.map(|(_, value)| value.clone()),
            notes,
        });
    }
    let (name_key, name) = NAME_KEYS.iter().find_map(|key| match map.get(*key) {
        Some(Value::String(name)) if !name.trim().is_empty() => Some((*key, name)),
        _ => None,
    })?;
    let mut notes = Vec::new();
    if name_key != "name" {
        notes.push(format!("tool named by `{name_key}`"));
    }
    if let Some((key, arguments)) = arguments_in(map) {
        if key != "arguments" {
            notes.push(format!("arguments under `{key}`"));
        }
        return Some(RawCall {
            name: name.clone(),
            arguments: Some(arguments.clone()),
            notes,
        });
    }
    let rest: Map<String, Value> = map
        .iter()
        .filter(|(key, _)| key.as_str() != name_key && !BOOKKEEPING_KEYS.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    if rest.is_empty() {
        return Some(RawCall {
            name: name.clone(),
            arguments: None,
            notes,
        });
    }
    // `{"name": "read_file", "path": "a"}`: the arguments beside the name. Only for a known
    // tool, so that an ordinary object with a `name` member is not taken for a call.
    if is_tool(name) {
        notes.push("arguments written beside the name".to_owned());
        return Some(RawCall {
            name: name.clone(),
            arguments: Some(Value::Object(rest)),
            notes,
        });
    }
    None
}

fn arguments_in(map: &Map<String, Value>) -> Option<(&'static str, &Value)> {
    ARGUMENT_KEYS
        .iter()
        .find_map(|key| map.get(*key).map(|value| (*key, value)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn known(name: &str) -> bool {
        name == "read_file"
    }

    fn names_and_arguments(value: Value) -> Vec<(String, Option<Value>)> {
        calls_in(&value, &known)
            .into_iter()
            .map(|call| (call.name, call.arguments))
            .collect()
    }

    #[test]
    fn key_spellings() {
        let args = json!({"path": "a"});
        for value in [
            json!({"name": "read_file", "arguments": args}),
            json!({"function": "read_file", "parameters": args}),
            json!({"tool": "read_file", "input": args}),
            json!({"type": "tool_use", "id": "t1", "name": "read_file", "input": args}),
            json!({"action": "read_file", "action_input": args}),
            json!({"type": "function", "function": {"name": "read_file", "arguments": args}}),
            json!({"function_call": {"name": "read_file", "arguments": args}}),
            json!({"name": "read_file", "path": "a"}),
        ] {
            assert_eq!(
                names_and_arguments(value.clone()),
                [("read_file".to_owned(), Some(args.clone()))],
                "{value}"
            );
        }
    }

    #[test]
    fn lists_of_calls() {
        let value = json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "1", "type": "function", "function": {"name": "a", "arguments": "{}"}},
            {"id": "2", "type": "function", "function": {"name": "b", "arguments": "{\"x\":1}"}}
        ]});
        assert_eq!(
            names_and_arguments(value),
            [
                ("a".to_owned(), Some(json!("{}"))),
                ("b".to_owned(), Some(json!("{\"x\":1}")))
            ]
        );
        let value = json!([{"name": "a", "arguments": {}}, 3, {"name": "b"}]);
        assert_eq!(
            names_and_arguments(value),
            [("a".to_owned(), Some(json!({}))), ("b".to_owned(), None)]
        );
    }

    #[test]
    fn ordinary_objects_are_not_calls() {
        assert!(names_and_arguments(json!({"name": "Alice", "age": 30})).is_empty());
        assert!(names_and_arguments(json!({"answer": "42"})).is_empty());
        assert!(names_and_arguments(json!({"name": 3, "arguments": {}})).is_empty());
        assert!(names_and_arguments(json!("read_file")).is_empty());
    }
}
