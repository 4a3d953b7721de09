//! `tool_choice`: whether the model must call a tool, may call one, may not, or must call a
//! given one. Read from every spelling the common APIs use:
//! - OpenAI: `"none"`, `"auto"`, `"required"`, `{"type": "function", "function": {"name": N}}`
//!   (and the Responses API's `{"type": "function", "name": N}`);
//! - Anthropic: `{"type": "auto"}`, `{"type": "any"}`, `{"type": "none"}`,
//!   `{"type": "tool", "name": N}`;
//! - a plain tool name, on the command line or as a string.
//!
//! A plain string that is one of the keywords (`none`, `auto`, `required`, `any`) is the keyword,
//! even when a tool has that name; name such a tool with an object form.

use std::fmt;

use serde_json::{Value, json};

use super::parse::ToolSetError;
use crate::schema::{json_kind, pointer_push};

/// How much freedom the decoder keeps about calling a tool.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ToolChoice {
    /// No tool may be called: the tools are not sent and nothing is constrained.
    None,
    /// The model decides whether to call a tool.
    Auto,
    /// The model must call one of the tools (`required`, Anthropic's `any`).
    Required,
    /// The model must call this tool.
    Tool(String),
}

impl ToolChoice {
    /// Reads a `tool_choice` value; `pointer` is where it is in its file, for errors.
    pub fn from_value(value: &Value, pointer: &str) -> Result<ToolChoice, ToolSetError> {
        match value {
            Value::String(text) => Ok(ToolChoice::from_text(text)),
            Value::Object(map) => {
                let name_at = |map: &serde_json::Map<String, Value>, at: &str| match map.get("name")
                {
                    Some(Value::String(name)) if !name.is_empty() => {
                        Ok(ToolChoice::Tool(name.clone()))
                    }
                    Some(other) => Err(ToolSetError::new(
                        &pointer_push(at, "name"),
                        format!("must be a non-empty string, found {}", json_kind(other)),
                    )),
                    None => Err(ToolSetError::new(&pointer_push(at, "name"), "missing")),
                };
                let kind_of_choice = map.get("type").and_then(Value::as_str);
                match (kind_of_choice, map.get("function")) {
                    (_, Some(Value::Object(function))) => {
                        name_at(function, &pointer_push(pointer, "function"))
                    }
                    (_, Some(other)) => Err(ToolSetError::new(
                        &pointer_push(pointer, "function"),
                        format!("must be an object, found {}", json_kind(other)),
                    )),
                    (Some("function" | "tool"), None) | (None, None) => name_at(map, pointer),
                    (Some("auto"), None) => Ok(ToolChoice::Auto),
                    (Some("none"), None) => Ok(ToolChoice::None),
                    (Some("any" | "required"), None) => Ok(ToolChoice::Required),
                    (Some(other), None) => Err(ToolSetError::new(
                        &pointer_push(pointer, "type"),
                        format!(
                            "unsupported tool_choice type {other:?}; expected auto, any, none, tool or function"
                        ),
                    )),
                }
            }
            other => Err(ToolSetError::new(
                pointer,
                format!(
                    "tool_choice must be a string or an object, found {}",
                    json_kind(other)
                ),
            )),
        }
    }

    /// Reads the command line's `--tool-choice`: a keyword, a tool name, or a JSON object in
    /// any of the API forms.
    pub fn from_argument(text: &str) -> Result<ToolChoice, ToolSetError> {
        let trimmed = text.trim();
        if trimmed.starts_with('{') {
            let value: Value = serde_json::from_str(trimmed).map_err(|error| {
                ToolSetError::new("", format!("tool_choice is not valid JSON: {error}"))
            })?;
            return ToolChoice::from_value(&value, "");
        }
        if trimmed.is_empty() {
            return Err(ToolSetError::new("", "tool_choice must not be empty"));
        }
        Ok(ToolChoice::from_text(trimmed))
    }

    fn from_text(text: &str) -> ToolChoice {
        match text.to_ascii_lowercase().as_str() {
            "none" => ToolChoice::None,
            "auto" => ToolChoice::Auto,
            "required" | "any" => ToolChoice::Required,
            _ => ToolChoice::Tool(text.to_owned()),
        }
    }

    /// The canonical form that goes into the content address: a keyword, or `{"name": N}`.
    pub fn canonical(&self) -> Value {
        match self {
            ToolChoice::None => json!("none"),
            ToolChoice::Auto => json!("auto"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool(name) => json!({"name": name}),
        }
    }

    /// The OpenAI Chat Completions spelling, for request bodies.
    pub fn openai(&self) -> Value {
        match self {
            ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
            keyword => keyword.canonical(),
        }
    }
}

impl fmt::Display for ToolChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolChoice::None => f.write_str("none"),
            ToolChoice::Auto => f.write_str("auto"),
            ToolChoice::Required => f.write_str("required"),
            ToolChoice::Tool(name) => write!(f, "tool {name}"),
        }
    }
}

impl serde::Serialize for ToolChoice {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.canonical().serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(value: Value) -> Result<ToolChoice, String> {
        ToolChoice::from_value(&value, "/tool_choice").map_err(|error| error.to_string())
    }

    #[test]
    fn every_api_spelling_is_read() {
        let named = Ok(ToolChoice::Tool("read_file".into()));
        assert_eq!(read(json!("none")), Ok(ToolChoice::None));
        assert_eq!(read(json!("auto")), Ok(ToolChoice::Auto));
        assert_eq!(read(json!("required")), Ok(ToolChoice::Required));
        assert_eq!(read(json!("any")), Ok(ToolChoice::Required));
        assert_eq!(read(json!({"type": "any"})), Ok(ToolChoice::Required));
        assert_eq!(read(json!({"type": "auto"})), Ok(ToolChoice::Auto));
        assert_eq!(read(json!({"type": "none"})), Ok(ToolChoice::None));
        assert_eq!(read(json!("read_file")), named);
        assert_eq!(
            read(json!({"type": "function", "function": {"name": "read_file"}})),
            named
        );
        assert_eq!(read(json!({"type": "tool", "name": "read_file"})), named);
        assert_eq!(
            read(json!({"type": "function", "name": "read_file"})),
            named
        );
        assert_eq!(read(json!({"name": "read_file"})), named);
    }

    #[test]
    fn malformed_choices_name_their_place() {
        assert_eq!(
            read(json!({"type": "function", "function": {}})),
            Err("/tool_choice/function/name: missing".into())
        );
        assert_eq!(
            read(json!({"type": "tool", "name": 3})),
            Err("/tool_choice/name: must be a non-empty string, found a number".into())
        );
        assert_eq!(
            read(json!({"type": "allowed_tools"})),
            Err(r#"/tool_choice/type: unsupported tool_choice type "allowed_tools"; expected auto, any, none, tool or function"#.into())
        );
        assert_eq!(
            read(json!(true)),
            Err("/tool_choice: tool_choice must be a string or an object, found a boolean".into())
        );
    }

    #[test]
    fn arguments_take_keywords_names_and_json() {
        assert_eq!(ToolChoice::from_argument("ANY"), Ok(ToolChoice::Required));
        assert_eq!(
            ToolChoice::from_argument("search"),
            Ok(ToolChoice::Tool("search".into()))
        );
        assert_eq!(
            ToolChoice::from_argument(r#"{"type":"tool","name":"auto"}"#),
            Ok(ToolChoice::Tool("auto".into()))
        );
        assert!(ToolChoice::from_argument("").is_err());
    }

    #[test]
    fn canonical_and_openai_forms() {
        let named = ToolChoice::Tool("x".into());
        assert_eq!(named.canonical(), json!({"name": "x"}));
        assert_eq!(
            named.openai(),
            json!({"type": "function", "function": {"name": "x"}})
        );
        assert_eq!(ToolChoice::Required.openai(), json!("required"));
    }
}
