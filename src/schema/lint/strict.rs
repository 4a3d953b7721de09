//! OpenAI's strict mode: the rules a schema must meet to be sent with `strict: true`.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::{problem, type_admits};
use crate::schema::json_kind;
use crate::schema::{Problem, pointer_push};

/// Every place where `schema` breaks OpenAI's rules for Structured Outputs with
/// `strict: true`.
///
/// The rules, from OpenAI's "Structured model outputs" guide, section "Supported schemas"
/// (<https://developers.openai.com/api/docs/guides/structured-outputs#supported-schemas>), as
/// documented in 2026:
/// - the root is an object, not an `anyOf`;
/// - every object sets `additionalProperties: false` and lists every property in `required`
///   (an optional field is a required one whose type admits `null`);
/// - there are no free-form values: every object declares `properties`, every array declares
///   its `items` schema, every node has a `type` (or is an `enum`, `const`, `anyOf` or `$ref`);
/// - only the documented keywords: `type` (a name or a list of names), `properties`,
///   `required`, `additionalProperties`, `items`, `enum`, `const`, `anyOf`, `$ref`, `$defs`
///   (and `definitions`), string `pattern`, `format`, `minLength`, `maxLength`, number
///   `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, array
///   `minItems`, `maxItems`, plus the annotations `title`, `description`, `$schema`, `$id`,
///   `examples`, `$comment`; the guide names `allOf`, `not`, `dependentRequired`,
///   `dependentSchemas`, `if`, `then`, `else` as unsupported, and the API answers a `default`
///   with "'default' is not permitted". (`minLength`/`maxLength` and the number bounds are
///   supported since May 2025 for every model except fine-tuned ones, see
///   <https://github.com/pydantic/pydantic-ai/pull/4490>.)
/// - limits: at most 5,000 object properties in total, 10 levels of object nesting, 1,000 enum
///   values in total, 120,000 characters over all property names, definition names, enum and
///   const values, and 15,000 characters over the values of any one string enum with more than
///   250 values.
pub fn strict_problems(schema: &Value) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut totals = StrictTotals::default();
    match schema.as_object() {
        Some(root) if root.contains_key("anyOf") => problems.push(problem(
            "",
            Some("anyOf"),
            "the root must be an object, not an `anyOf`",
        )),
        Some(root) if !type_admits(root, "object") => {
            problems.push(problem("", Some("type"), "the root must be of type object"))
        }
        _ => {}
    }
    strict_node(schema, "", 0, &mut totals, &mut problems);
    totals.report(&mut problems);
    problems
}

/// Whether `schema` meets every rule of [`strict_problems`], so it can be sent with
/// `strict: true`.
pub fn is_strict_ready(schema: &Value) -> bool {
    strict_problems(schema).is_empty()
}

/// OpenAI's documented size limits for a strict schema.
const STRICT_MAX_PROPERTIES: usize = 5_000;
const STRICT_MAX_NESTING: usize = 10;
const STRICT_MAX_ENUM_VALUES: usize = 1_000;
const STRICT_MAX_NAME_CHARACTERS: usize = 120_000;
const STRICT_LARGE_ENUM: usize = 250;
const STRICT_MAX_LARGE_ENUM_CHARACTERS: usize = 15_000;

/// Keywords a strict schema may use.
const STRICT_KEYWORDS: [&str; 28] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "pattern",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "title",
    "description",
    "$schema",
    "$id",
    "examples",
    "$comment",
];

/// What the size limits count over the whole schema.
#[derive(Default)]
struct StrictTotals {
    properties: usize,
    enum_values: usize,
    name_characters: usize,
    deepest: usize,
    deepest_pointer: String,
}

impl StrictTotals {
    fn report(&self, problems: &mut Vec<Problem>) {
        if self.properties > STRICT_MAX_PROPERTIES {
            problems.push(problem(
                "",
                Some("properties"),
                format!(
                    "{} object properties in total, above OpenAI's limit of {STRICT_MAX_PROPERTIES}",
                    self.properties
                ),
            ));
        }
        if self.deepest > STRICT_MAX_NESTING {
            problems.push(problem(
                &self.deepest_pointer,
                None,
                format!(
                    "{} levels of object nesting, above OpenAI's limit of {STRICT_MAX_NESTING}",
                    self.deepest
                ),
            ));
        }
        if self.enum_values > STRICT_MAX_ENUM_VALUES {
            problems.push(problem(
                "",
                Some("enum"),
                format!(
                    "{} enum values in total, above OpenAI's limit of {STRICT_MAX_ENUM_VALUES}",
                    self.enum_values
                ),
            ));
        }
        if self.name_characters > STRICT_MAX_NAME_CHARACTERS {
            problems.push(problem(
                "",
                None,
                format!(
                    "{} characters of property names, definition names, enum and const values, above OpenAI's limit of {STRICT_MAX_NAME_CHARACTERS}",
                    self.name_characters
                ),
            ));
        }
    }
}

fn strict_node(
    schema: &Value,
    pointer: &str,
    depth: usize,
    totals: &mut StrictTotals,
    problems: &mut Vec<Problem>,
) {
    let Some(node) = schema.as_object() else {
        problems.push(problem(
            pointer,
            None,
            match schema {
                Value::Bool(true) => {
                    "`true` accepts any value: strict mode has no free-form values".to_owned()
                }
                Value::Bool(false) => {
                    "`false` accepts nothing: strict mode needs a typed schema".to_owned()
                }
                other => format!("a schema must be an object, not {}", json_kind(other)),
            },
        ));
        return;
    };
    for keyword in node.keys() {
        if keyword == "default" {
            problems.push(problem(
                pointer,
                Some("default"),
                "OpenAI answers \"'default' is not permitted\" in strict mode",
            ));
        } else if matches!(
            keyword.as_str(),
            "allOf" | "not" | "dependentRequired" | "dependentSchemas" | "if" | "then" | "else"
        ) {
            problems.push(problem(
                pointer,
                Some(keyword),
                "OpenAI's strict mode does not support it",
            ));
        } else if keyword == "oneOf" {
            problems.push(problem(
                pointer,
                Some(keyword),
                "OpenAI's strict mode does not support it: use `anyOf`",
            ));
        } else if !STRICT_KEYWORDS.contains(&keyword.as_str()) {
            problems.push(problem(
                pointer,
                Some(keyword),
                "not among the keywords OpenAI documents for strict mode",
            ));
        }
    }
    let typed = ["type", "enum", "const", "anyOf", "$ref"]
        .iter()
        .any(|keyword| node.contains_key(*keyword));
    if !typed {
        problems.push(problem(
            pointer,
            Some("type"),
            "missing: a schema without a type accepts any value, and strict mode has no free-form values",
        ));
    }
    let is_object = type_admits(node, "object")
        || (!node.contains_key("type") && node.contains_key("properties"));
    let depth = if is_object { depth + 1 } else { depth };
    if depth > totals.deepest {
        totals.deepest = depth;
        totals.deepest_pointer = pointer.to_owned();
    }
    if is_object {
        strict_object(node, pointer, depth, totals, problems);
    }
    if type_admits(node, "array") {
        match node.get("items") {
            None => problems.push(problem(
                pointer,
                Some("items"),
                "missing: an array's items must have a schema, strict mode has no free-form values",
            )),
            Some(Value::Array(_)) => problems.push(problem(
                pointer,
                Some("items"),
                "a list of item schemas is not supported: give one schema for every item",
            )),
            Some(_) => {}
        }
    }
    if let Some(items) = node.get("items").filter(|items| !items.is_array()) {
        strict_node(
            items,
            &pointer_push(pointer, "items"),
            depth,
            totals,
            problems,
        );
    }
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        strict_enum(values, pointer, totals, problems);
    }
    if let Some(Value::String(value)) = node.get("const") {
        totals.name_characters += value.chars().count();
    }
    if let Some(branches) = node.get("anyOf").and_then(Value::as_array) {
        let anyof_pointer = pointer_push(pointer, "anyOf");
        for (index, branch) in branches.iter().enumerate() {
            strict_node(
                branch,
                &pointer_push(&anyof_pointer, &index.to_string()),
                depth,
                totals,
                problems,
            );
        }
    }
    for definitions_keyword in ["$defs", "definitions"] {
        if let Some(definitions) = node.get(definitions_keyword).and_then(Value::as_object) {
            let definitions_pointer = pointer_push(pointer, definitions_keyword);
            for (name, definition) in definitions {
                totals.name_characters += name.chars().count();
                strict_node(
                    definition,
                    &pointer_push(&definitions_pointer, name),
                    depth,
                    totals,
                    problems,
                );
            }
        }
    }
}

fn strict_object(
    node: &Map<String, Value>,
    pointer: &str,
    depth: usize,
    totals: &mut StrictTotals,
    problems: &mut Vec<Problem>,
) {
    match node.get("additionalProperties") {
        Some(Value::Bool(false)) => {}
        None => problems.push(problem(
            pointer,
            Some("additionalProperties"),
            "missing: every object must set `additionalProperties: false`",
        )),
        Some(Value::Bool(true)) => problems.push(problem(
            pointer,
            Some("additionalProperties"),
            "`true` makes the object free-form: it must be `false`",
        )),
        Some(_) => problems.push(problem(
            pointer,
            Some("additionalProperties"),
            "a schema here makes the object a free-form map: it must be `false`",
        )),
    }
    let Some(properties) = node.get("properties").and_then(Value::as_object) else {
        problems.push(problem(
            pointer,
            Some("properties"),
            "missing: an object without properties is free-form",
        ));
        return;
    };
    let required: HashSet<&str> = node
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties_pointer = pointer_push(pointer, "properties");
    for (name, property) in properties {
        totals.properties += 1;
        totals.name_characters += name.chars().count();
        if !required.contains(name.as_str()) {
            problems.push(problem(pointer, Some("required"), format!("`{name}` is not listed: strict mode requires every property (make it nullable to let it be empty)")));
        }
        strict_node(
            property,
            &pointer_push(&properties_pointer, name),
            depth,
            totals,
            problems,
        );
    }
}

fn strict_enum(
    values: &[Value],
    pointer: &str,
    totals: &mut StrictTotals,
    problems: &mut Vec<Problem>,
) {
    totals.enum_values += values.len();
    let characters: usize = values
        .iter()
        .filter_map(Value::as_str)
        .map(|value| value.chars().count())
        .sum();
    totals.name_characters += characters;
    let all_strings = values.iter().all(Value::is_string);
    if all_strings
        && values.len() > STRICT_LARGE_ENUM
        && characters > STRICT_MAX_LARGE_ENUM_CHARACTERS
    {
        problems.push(problem(
            pointer,
            Some("enum"),
            format!(
                "{} string values of {characters} characters: OpenAI allows at most {STRICT_MAX_LARGE_ENUM_CHARACTERS} characters in an enum of more than {STRICT_LARGE_ENUM} values",
                values.len()
            ),
        ));
    }
}
