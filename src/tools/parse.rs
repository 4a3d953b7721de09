//! Reading a tool set: OpenAI's `tools` array (`{"type": "function", "function": {name,
//! description, parameters}}`), bare function objects (`{name, description, parameters}`, the
//! legacy `functions` array and the Responses API's flat form), and Anthropic's
//! `{name, description, input_schema}`.
//!
//! A file may hold the array itself, an object with a `tools` (or `functions`) array, such as a
//! whole request body, or a single tool. Every error names the JSON pointer inside the file
//! where the problem is (`/tools/3/function/name: missing`), and duplicate names are an error:
//! a call names its tool, so two tools with one name cannot both be called.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::schema::{self, Validator, pointer_push};

/// One tool: what a call must name, and the schema its arguments must satisfy.
#[derive(Clone, Debug)]
pub struct Tool {
    /// The name a call gives.
    pub name: String,
    /// What the tool does, when the file says.
    pub description: Option<String>,
    /// The JSON Schema of the arguments, as written (an object schema).
    pub parameters: Value,
    /// Whether the file gave a schema; a tool without one takes no arguments (`{}`), as
    /// OpenAI defines it.
    pub parameters_given: bool,
    /// Where the tool is in the file (JSON pointer).
    pub pointer: String,
    /// Where its schema is in the file (JSON pointer), for messages about the schema.
    pub parameters_pointer: String,
    validator: Arc<Validator>,
}

impl Tool {
    /// The compiled schema of the arguments.
    pub fn validator(&self) -> &Validator {
        &self.validator
    }
}

/// A parsed tool set, in the order of the file; names are unique.
#[derive(Clone, Debug)]
pub struct ToolSet {
    tools: Vec<Tool>,
}

/// Two tools are equal when a model sees them alike: name, description, schema as written.
impl PartialEq for Tool {
    fn eq(&self, other: &Tool) -> bool {
        self.name == other.name
            && self.description == other.description
            && self.parameters == other.parameters
            && self.parameters_given == other.parameters_given
    }
}

/// Tool sets are equal when their tools are, in order.
impl PartialEq for ToolSet {
    fn eq(&self, other: &ToolSet) -> bool {
        self.tools == other.tools
    }
}

/// What is wrong with a tool file, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {reason}", if pointer.is_empty() { "(root)" } else { pointer })]
pub struct ToolSetError {
    /// JSON pointer into the file.
    pub pointer: String,
    /// What is wrong there.
    pub reason: String,
}

impl ToolSetError {
    pub(crate) fn new(pointer: &str, reason: impl Into<String>) -> ToolSetError {
        ToolSetError {
            pointer: pointer.to_owned(),
            reason: reason.into(),
        }
    }
}

impl ToolSet {
    /// Reads a tool set from a parsed file: an array of tools, an object with a `tools` or
    /// `functions` array (a request body, for instance), or one tool.
    pub fn from_value(document: &Value) -> Result<ToolSet, ToolSetError> {
        let (items, base) = match document {
            Value::Array(items) => (items.as_slice(), String::new()),
            Value::Object(map) => match list_member(map)? {
                Some((key, items)) => (items, pointer_push("", key)),
                None if looks_like_a_tool(map) => (std::slice::from_ref(document), String::new()),
                None => {
                    return Err(ToolSetError::new(
                        "",
                        "expected an array of tools, an object with a `tools` array, or one tool (an object with `name`, `function` or `input_schema`)",
                    ));
                }
            },
            other => {
                return Err(ToolSetError::new(
                    "",
                    format!(
                        "expected an array of tools or an object with a `tools` array, found {}",
                        schema::json_kind(other)
                    ),
                ));
            }
        };
        let single = matches!(document, Value::Object(map) if list_member(map)?.is_none());
        let mut tools: Vec<Tool> = Vec::with_capacity(items.len());
        // Each name's first position in `tools`, so that a duplicate is found without a search.
        let mut first_by_name: HashMap<String, usize> = HashMap::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let pointer = if single {
                String::new()
            } else {
                pointer_push(&base, &index.to_string())
            };
            let (tool, name_pointer) = parse_tool(item, &pointer)?;
            if let Some(first) = first_by_name.get(&tool.name).map(|&first| &tools[first]) {
                return Err(ToolSetError::new(
                    &name_pointer,
                    format!(
                        "duplicate tool name {:?} (first at {}); a call names its tool, so names must be unique",
                        tool.name,
                        if first.pointer.is_empty() {
                            "(root)"
                        } else {
                            &first.pointer
                        }
                    ),
                ));
            }
            first_by_name.insert(tool.name.clone(), tools.len());
            tools.push(tool);
        }
        if tools.is_empty() {
            let pointer = if base.is_empty() { "" } else { base.as_str() };
            return Err(ToolSetError::new(pointer, "the tool list is empty"));
        }
        Ok(ToolSet { tools })
    }

    /// Reads a tool set from JSON text.
    pub fn from_json(text: &str) -> Result<ToolSet, ToolSetError> {
        let document: Value = serde_json::from_str(text)
            .map_err(|error| ToolSetError::new("", format!("not valid JSON: {error}")))?;
        ToolSet::from_value(&document)
    }

    /// The tools, in the order of the file.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|tool| tool.name == name)
    }

    /// The tools' names, in the order of the file.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|tool| tool.name.as_str()).collect()
    }

    /// How many tools there are (at least one).
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Always false: a tool set has at least one tool. Here for clippy's `len` convention.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

/// The `tools` or `functions` array of an object, with its key; an error when the member is
/// there but not an array.
fn list_member(map: &Map<String, Value>) -> Result<Option<(&'static str, &[Value])>, ToolSetError> {
    for key in ["tools", "functions"] {
        match map.get(key) {
            None => {}
            Some(Value::Array(items)) => return Ok(Some((key, items.as_slice()))),
            Some(other) => {
                return Err(ToolSetError::new(
                    &pointer_push("", key),
                    format!(
                        "must be an array of tools, found {}",
                        schema::json_kind(other)
                    ),
                ));
            }
        }
    }
    Ok(None)
}

fn looks_like_a_tool(map: &Map<String, Value>) -> bool {
    ["name", "function", "input_schema"]
        .iter()
        .any(|key| map.contains_key(*key))
}

/// Parses one tool at `pointer`; returns it with the pointer of its name.
fn parse_tool(item: &Value, pointer: &str) -> Result<(Tool, String), ToolSetError> {
    let Value::Object(map) = item else {
        return Err(ToolSetError::new(
            pointer,
            format!(
                "a tool must be an object, found {}",
                schema::json_kind(item)
            ),
        ));
    };
    let kind_of_tool = map.get("type");
    if let Some(function) = map.get("function") {
        // OpenAI Chat Completions: {"type": "function", "function": {...}}.
        if let Some(kind_of_tool) = kind_of_tool
            && *kind_of_tool != "function"
        {
            return Err(ToolSetError::new(
                &pointer_push(pointer, "type"),
                format!("expected \"function\", found {kind_of_tool}"),
            ));
        }
        let function_pointer = pointer_push(pointer, "function");
        let Value::Object(function) = function else {
            return Err(ToolSetError::new(
                &function_pointer,
                format!("must be an object, found {}", schema::json_kind(function)),
            ));
        };
        return build(function, pointer, &function_pointer, "parameters");
    }
    if map.contains_key("input_schema") {
        // Anthropic: {name, description, input_schema}, optionally "type": "custom".
        if let Some(kind_of_tool) = kind_of_tool
            && *kind_of_tool != "custom"
        {
            return Err(ToolSetError::new(
                &pointer_push(pointer, "type"),
                format!("expected \"custom\" beside input_schema, found {kind_of_tool}"),
            ));
        }
        return build(map, pointer, pointer, "input_schema");
    }
    if let Some(kind_of_tool) = kind_of_tool
        && *kind_of_tool != "function"
    {
        // Anthropic server tools ({"type": "bash_20250124", "name": "bash"}) and OpenAI's
        // built-in tools ({"type": "web_search"}) come without a schema the client knows.
        return Err(ToolSetError::new(
            &pointer_push(pointer, "type"),
            format!(
                "{kind_of_tool} is a provider-side tool without an input schema; only tools whose schema is given (`parameters` or `input_schema`) can be compiled"
            ),
        ));
    }
    build(map, pointer, pointer, "parameters")
}

/// Builds a tool from the object holding `name`, `description` and the schema under
/// `schema_key`.
fn build(
    map: &Map<String, Value>,
    tool_pointer: &str,
    pointer: &str,
    schema_key: &str,
) -> Result<(Tool, String), ToolSetError> {
    let name_pointer = pointer_push(pointer, "name");
    let name = match map.get("name") {
        None => return Err(ToolSetError::new(&name_pointer, "missing")),
        Some(Value::String(name)) if name.trim().is_empty() => {
            return Err(ToolSetError::new(&name_pointer, "must not be empty"));
        }
        Some(Value::String(name)) if name.chars().any(char::is_control) => {
            return Err(ToolSetError::new(
                &name_pointer,
                "must not contain control characters",
            ));
        }
        Some(Value::String(name)) => name.clone(),
        Some(other) => {
            return Err(ToolSetError::new(
                &name_pointer,
                format!("must be a string, found {}", schema::json_kind(other)),
            ));
        }
    };
    let description = match map.get("description") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text.clone()),
        Some(other) => {
            return Err(ToolSetError::new(
                &pointer_push(pointer, "description"),
                format!("must be a string, found {}", schema::json_kind(other)),
            ));
        }
    };
    let parameters_pointer = pointer_push(pointer, schema_key);
    let (parameters, parameters_given) = match map.get(schema_key) {
        // OpenAI: "omitting parameters defines a function with an empty parameter list".
        None | Some(Value::Null) if schema_key == "parameters" => (
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            false,
        ),
        None => return Err(ToolSetError::new(&parameters_pointer, "missing")),
        Some(schema @ Value::Object(_)) => (schema.clone(), true),
        Some(other) => {
            return Err(ToolSetError::new(
                &parameters_pointer,
                format!(
                    "must be a JSON Schema object, found {}",
                    schema::json_kind(other)
                ),
            ));
        }
    };
    check_object_type(&parameters, &parameters_pointer)?;
    let validator = schema::validator(&parameters).map_err(|error| {
        ToolSetError::new(
            &format!("{parameters_pointer}{}", error.pointer),
            format!("not a valid JSON Schema: {}", error.message),
        )
    })?;
    let tool = Tool {
        name,
        description,
        parameters,
        parameters_given,
        pointer: tool_pointer.to_owned(),
        parameters_pointer,
        validator,
    };
    Ok((tool, name_pointer))
}

/// Arguments are a JSON object in every tool-calling API, so a schema for anything else is a
/// mistake in the file, not something to compile.
fn check_object_type(schema: &Value, pointer: &str) -> Result<(), ToolSetError> {
    let Some(declared) = schema.get("type") else {
        return Ok(());
    };
    let allows_object = match declared {
        Value::String(name) => name == "object",
        Value::Array(names) => names.iter().any(|name| name == "object"),
        _ => true, // Left to the schema check, which names the real problem.
    };
    if allows_object {
        Ok(())
    } else {
        Err(ToolSetError::new(
            &pointer_push(pointer, "type"),
            format!("must be \"object\" (tool arguments are a JSON object), found {declared}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> String {
        ToolSet::from_json(text).unwrap_err().to_string()
    }

    #[test]
    fn the_three_forms_read_the_same_tool() {
        let openai = r#"[{"type":"function","function":{"name":"read","description":"d","parameters":{"type":"object","properties":{"p":{"type":"string"}}}}}]"#;
        let bare = r#"{"functions":[{"name":"read","description":"d","parameters":{"type":"object","properties":{"p":{"type":"string"}}}}]}"#;
        let anthropic = r#"{"tools":[{"name":"read","description":"d","input_schema":{"type":"object","properties":{"p":{"type":"string"}}}}]}"#;
        for text in [openai, bare, anthropic] {
            let set = ToolSet::from_json(text).unwrap();
            assert_eq!(set.names(), ["read"]);
            let tool = set.get("read").unwrap();
            assert_eq!(tool.description.as_deref(), Some("d"));
            assert_eq!(tool.parameters["properties"]["p"]["type"], "string");
        }
        let set = ToolSet::from_json(anthropic).unwrap();
        assert_eq!(set.tools()[0].parameters_pointer, "/tools/0/input_schema");
    }

    #[test]
    fn a_single_tool_and_a_missing_schema_are_accepted() {
        let set = ToolSet::from_json(r#"{"name":"now"}"#).unwrap();
        let tool = set.get("now").unwrap();
        assert!(!tool.parameters_given);
        assert!(tool.validator().is_valid(&json!({})));
        assert!(!tool.validator().is_valid(&json!({"x": 1})));
        assert_eq!(tool.pointer, "");
    }

    #[test]
    fn errors_name_the_place_in_the_file() {
        let cases = [
            (
                r#"{"tools":[{"type":"function","function":{"name":"a"}},{"type":"function","function":{}}]}"#,
                "/tools/1/function/name: missing",
            ),
            (
                r#"[{"type":"function","function":{"name":"a","parameters":{"type":"string"}}}]"#,
                r#"/0/function/parameters/type: must be "object" (tool arguments are a JSON object), found "string""#,
            ),
            (
                r#"[{"name":"a"},{"name":"a"}]"#,
                r#"/1/name: duplicate tool name "a" (first at /0); a call names its tool, so names must be unique"#,
            ),
            (
                r#"{"tools":[{"name":"a","input_schema":{"type":"object"},"type":"bash_20250124"}]}"#,
                r#"/tools/0/type: expected "custom" beside input_schema, found "bash_20250124""#,
            ),
            (
                r#"{"tools":[{"type":"web_search"}]}"#,
                r#"/tools/0/type: "web_search" is a provider-side tool without an input schema; only tools whose schema is given (`parameters` or `input_schema`) can be compiled"#,
            ),
            (
                r#"{"tools":[{"name":"a","input_schema":null}]}"#,
                "/tools/0/input_schema: must be a JSON Schema object, found null",
            ),
            (r#"{"tools":[]}"#, "/tools: the tool list is empty"),
            (
                r#"{"tools":{}}"#,
                "/tools: must be an array of tools, found an object",
            ),
            (r#"[3]"#, "/0: a tool must be an object, found a number"),
            (r#"[{"name":""}]"#, "/0/name: must not be empty"),
            (
                r#"[{"name":7}]"#,
                "/0/name: must be a string, found a number",
            ),
            (
                r#"{"model":"x"}"#,
                "(root): expected an array of tools, an object with a `tools` array, or one tool (an object with `name`, `function` or `input_schema`)",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(error(text), expected, "{text}");
        }
    }

    #[test]
    fn an_invalid_schema_points_into_it() {
        let message =
            error(r#"[{"name":"a","parameters":{"type":"object","properties":{"x":{"type":7}}}}]"#);
        assert!(
            message.starts_with("/0/parameters/properties/x/type: not a valid JSON Schema: "),
            "{message}"
        );
    }
}
