//! Lint of a JSON Schema against two rule sets: the contract subset, and OpenAI's strict mode.
//!
//! [`subset_problems`] says where a schema leaves the subset slmcode's contracts are written in
//! (DESIGN.md, "Contracts"); [`strict_problems`] says where it breaks the rules of OpenAI's
//! `strict: true` Structured Outputs. Both walk the whole schema and return every problem with
//! the JSON pointer of the schema node it sits on, in document order; neither stops at the first.
//! Schemas are shallow, so the walks recurse.
//!
//! The two sets are independent: a schema may be strict-ready and outside the subset (it uses
//! `anyOf`, which OpenAI allows) or inside the subset and not strict-ready (an optional property).

use serde_json::{Map, Value};

use super::{Problem, pointer_push};

/// The draft-07 meta-schema URIs a contract may name in `$schema`.
const DRAFT_07_URIS: [&str; 4] = [
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft-07/schema#",
    "https://json-schema.org/draft-07/schema",
];

/// The JSON Schema type names.
const TYPE_NAMES: [&str; 7] = [
    "object", "array", "string", "integer", "number", "boolean", "null",
];

fn problem(pointer: &str, keyword: Option<&str>, reason: impl Into<String>) -> Problem {
    Problem {
        pointer: pointer.to_owned(),
        keyword: keyword.map(str::to_owned),
        reason: reason.into(),
    }
}

/// Every place where `schema` leaves the contract subset.
///
/// The subset (draft-07) is exactly `type` (one type name), `properties`, `required`, `items`
/// (one schema), `enum`, `additionalProperties` (a boolean), `minItems`, `maxItems`,
/// `minLength`, `maxLength`, integer `minimum`/`maximum` on an `integer`, and the annotations
/// `title`, `description`, `$schema` (draft-07, at the root), `$id`, `default`, `examples`.
/// Besides keywords outside that list, the lint reports what the subset's keywords allow but a
/// contract must not say: a node with neither `type` nor `enum` (it accepts any value), an
/// array without `items`, a boolean schema, a keyword on a type it does not apply to, a
/// non-integer or negative bound, a minimum above its maximum, an enum value of the wrong type,
/// a `required` name that `properties` does not declare.
pub fn subset_problems(schema: &Value) -> Vec<Problem> {
    let mut problems = Vec::new();
    subset_node(schema, "", true, &mut problems);
    problems
}

fn subset_node(schema: &Value, pointer: &str, root: bool, problems: &mut Vec<Problem>) {
    let node = match schema {
        Value::Object(node) => node,
        Value::Bool(flag) => {
            problems.push(problem(
                pointer,
                None,
                format!(
                    "a boolean schema (`{flag}`) is outside the subset: write the schema it stands for"
                ),
            ));
            return;
        }
        other => {
            problems.push(problem(
                pointer,
                None,
                format!("a schema must be an object, not {}", json_kind(other)),
            ));
            return;
        }
    };
    let declared_type = subset_type(node, pointer, problems);
    for (keyword, value) in node {
        let keyword = keyword.as_str();
        match keyword {
            "type" => {}
            "properties" => subset_properties(value, declared_type, pointer, problems),
            "required" => subset_required(node, value, declared_type, pointer, problems),
            "items" => subset_items(value, declared_type, pointer, problems),
            "enum" => subset_enum(value, declared_type, pointer, problems),
            "additionalProperties" => {
                applies_to(keyword, "object", declared_type, pointer, problems);
                if !value.is_boolean() {
                    problems.push(problem(
                        pointer,
                        Some(keyword),
                        "must be `true` or `false`: a schema here describes a free-form map, which is outside the subset",
                    ));
                }
            }
            "minItems" | "maxItems" => {
                applies_to(keyword, "array", declared_type, pointer, problems);
                length_bound(keyword, value, pointer, problems);
            }
            "minLength" | "maxLength" => {
                applies_to(keyword, "string", declared_type, pointer, problems);
                length_bound(keyword, value, pointer, problems);
            }
            "minimum" | "maximum" => {
                subset_integer_bound(keyword, value, declared_type, pointer, problems)
            }
            "$schema" => {
                if !root {
                    problems.push(problem(pointer, Some(keyword), "belongs at the root only"));
                } else if !value
                    .as_str()
                    .is_some_and(|uri| DRAFT_07_URIS.contains(&uri))
                {
                    problems.push(problem(
                        pointer,
                        Some(keyword),
                        format!(
                            "contracts are draft-07 (`{}`), not {value}",
                            DRAFT_07_URIS[0]
                        ),
                    ));
                }
            }
            "title" | "description" | "$id" => {
                if !value.is_string() {
                    problems.push(problem(pointer, Some(keyword), "must be a string"));
                }
            }
            "default" | "examples" => {}
            other => problems.push(problem(pointer, Some(other), outside_subset_reason(other))),
        }
    }
    bound_order(node, "minItems", "maxItems", pointer, problems);
    bound_order(node, "minLength", "maxLength", pointer, problems);
    bound_order(node, "minimum", "maximum", pointer, problems);
}

/// The node's single type name, reporting a missing, unknown or multiple `type`.
fn subset_type<'a>(
    node: &'a Map<String, Value>,
    pointer: &str,
    problems: &mut Vec<Problem>,
) -> Option<&'a str> {
    match node.get("type") {
        None => {
            if !node.contains_key("enum") {
                problems.push(problem(
                    pointer,
                    Some("type"),
                    "missing: without `type` or `enum` the schema accepts any value",
                ));
            }
            None
        }
        Some(Value::String(name)) if TYPE_NAMES.contains(&name.as_str()) => Some(name),
        Some(Value::String(name)) => {
            problems.push(problem(
                pointer,
                Some("type"),
                format!(
                    "`{name}` is not a JSON Schema type (one of {})",
                    TYPE_NAMES.join(", ")
                ),
            ));
            None
        }
        Some(Value::Array(_)) => {
            problems.push(problem(
                pointer,
                Some("type"),
                "a list of types is outside the subset: a contract gives each value one type",
            ));
            None
        }
        Some(other) => {
            problems.push(problem(
                pointer,
                Some("type"),
                format!("must be a type name, not {}", json_kind(other)),
            ));
            None
        }
    }
}

fn subset_properties(
    value: &Value,
    declared_type: Option<&str>,
    pointer: &str,
    problems: &mut Vec<Problem>,
) {
    applies_to("properties", "object", declared_type, pointer, problems);
    let Some(properties) = value.as_object() else {
        problems.push(problem(
            pointer,
            Some("properties"),
            "must be an object mapping names to schemas",
        ));
        return;
    };
    let properties_pointer = pointer_push(pointer, "properties");
    for (name, property) in properties {
        subset_node(
            property,
            &pointer_push(&properties_pointer, name),
            false,
            problems,
        );
    }
}

fn subset_required(
    node: &Map<String, Value>,
    value: &Value,
    declared_type: Option<&str>,
    pointer: &str,
    problems: &mut Vec<Problem>,
) {
    applies_to("required", "object", declared_type, pointer, problems);
    let Some(names) = value.as_array() else {
        problems.push(problem(
            pointer,
            Some("required"),
            "must be an array of property names",
        ));
        return;
    };
    let declared = node.get("properties").and_then(Value::as_object);
    let mut seen: Vec<&str> = Vec::new();
    for name in names {
        let Some(name) = name.as_str() else {
            problems.push(problem(
                pointer,
                Some("required"),
                format!("{name} is not a property name (a string)"),
            ));
            continue;
        };
        if seen.contains(&name) {
            problems.push(problem(
                pointer,
                Some("required"),
                format!("`{name}` is listed twice"),
            ));
            continue;
        }
        seen.push(name);
        if !declared.is_some_and(|properties| properties.contains_key(name)) {
            problems.push(problem(
                pointer,
                Some("required"),
                format!("`{name}` is required but not declared in `properties`"),
            ));
        }
    }
}

fn subset_items(
    value: &Value,
    declared_type: Option<&str>,
    pointer: &str,
    problems: &mut Vec<Problem>,
) {
    applies_to("items", "array", declared_type, pointer, problems);
    match value {
        Value::Object(_) => subset_node(value, &pointer_push(pointer, "items"), false, problems),
        Value::Array(_) => problems.push(problem(
            pointer,
            Some("items"),
            "a list of item schemas (a tuple) is outside the subset: give one schema for every item",
        )),
        Value::Bool(flag) => problems.push(problem(
            pointer,
            Some("items"),
            format!("a boolean (`{flag}`) is outside the subset: give the items' schema"),
        )),
        other => problems.push(problem(
            pointer,
            Some("items"),
            format!("must be a schema, not {}", json_kind(other)),
        )),
    }
}

fn subset_enum(
    value: &Value,
    declared_type: Option<&str>,
    pointer: &str,
    problems: &mut Vec<Problem>,
) {
    let Some(values) = value.as_array() else {
        problems.push(problem(pointer, Some("enum"), "must be an array of values"));
        return;
    };
    if values.is_empty() {
        problems.push(problem(
            pointer,
            Some("enum"),
            "is empty: no value could ever match",
        ));
    }
    for (index, allowed) in values.iter().enumerate() {
        if values[..index].contains(allowed) {
            problems.push(problem(
                pointer,
                Some("enum"),
                format!("{allowed} is listed twice"),
            ));
        }
        if let Some(type_name) = declared_type
            && !is_of_type(allowed, type_name)
        {
            problems.push(problem(
                pointer,
                Some("enum"),
                format!("{allowed} is not of type {type_name}, so it can never match"),
            ));
        }
    }
}

fn subset_integer_bound(
    keyword: &str,
    value: &Value,
    declared_type: Option<&str>,
    pointer: &str,
    problems: &mut Vec<Problem>,
) {
    if declared_type != Some("integer") {
        problems.push(problem(
            pointer,
            Some(keyword),
            match declared_type {
                Some("number") => "bounds on a `number` are outside the subset: only integers take `minimum`/`maximum`".to_owned(),
                Some(other) => format!("applies to integers, and this is of type {other}"),
                None => "applies to integers, and this schema has no `type: integer`".to_owned(),
            },
        ));
    }
    if !is_integer(value) {
        problems.push(problem(
            pointer,
            Some(keyword),
            format!("{value} is not an integer: non-integer bounds are outside the subset"),
        ));
    }
}

/// Reports `keyword` when the node's type is known and is not `expected`.
fn applies_to(
    keyword: &str,
    expected: &str,
    declared_type: Option<&str>,
    pointer: &str,
    problems: &mut Vec<Problem>,
) {
    if let Some(actual) = declared_type
        && actual != expected
    {
        problems.push(problem(
            pointer,
            Some(keyword),
            format!("applies to type {expected}, and this is of type {actual}"),
        ));
    }
}

fn length_bound(keyword: &str, value: &Value, pointer: &str, problems: &mut Vec<Problem>) {
    if value.as_u64().is_none() {
        problems.push(problem(
            pointer,
            Some(keyword),
            format!("must be a non-negative integer, not {value}"),
        ));
    }
}

fn bound_order(
    node: &Map<String, Value>,
    low: &str,
    high: &str,
    pointer: &str,
    problems: &mut Vec<Problem>,
) {
    let (Some(low_value), Some(high_value)) = (
        node.get(low).and_then(Value::as_f64),
        node.get(high).and_then(Value::as_f64),
    ) else {
        return;
    };
    if low_value > high_value {
        problems.push(problem(
            pointer,
            Some(low),
            format!("{low} {low_value} is above {high} {high_value}: no value could ever match"),
        ));
    }
}

/// Why a keyword that is not in the subset is not, in the words a schema author needs.
fn outside_subset_reason(keyword: &str) -> String {
    let why = match keyword {
        "anyOf" | "oneOf" | "allOf" | "not" => "composition is outside the contract subset",
        "if" | "then" | "else" => "conditional schemas are outside the contract subset",
        "$ref" | "$defs" | "definitions" => {
            "references are outside the contract subset: write the schema in place"
        }
        "const" => "outside the contract subset: use an `enum` of one value",
        "uniqueItems" | "contains" | "minContains" | "maxContains" | "prefixItems"
        | "additionalItems" | "unevaluatedItems" => {
            "outside the contract subset: items are bounded only by `items`, `minItems` and `maxItems`"
        }
        "patternProperties"
        | "propertyNames"
        | "minProperties"
        | "maxProperties"
        | "dependencies"
        | "dependentRequired"
        | "dependentSchemas"
        | "unevaluatedProperties" => {
            "outside the contract subset: objects are described only by `properties`, `required` and `additionalProperties`"
        }
        "pattern" | "format" | "contentEncoding" | "contentMediaType" => {
            "outside the contract subset: strings are bounded only by `minLength`, `maxLength` and `enum`"
        }
        "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            "outside the contract subset: integers are bounded only by `minimum` and `maximum`"
        }
        _ => "not a keyword of the contract subset",
    };
    why.to_owned()
}

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
    let required: Vec<&str> = node
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties_pointer = pointer_push(pointer, "properties");
    for (name, property) in properties {
        totals.properties += 1;
        totals.name_characters += name.chars().count();
        if !required.contains(&name.as_str()) {
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

/// Whether the node's `type` (a name or a list of names) includes `type_name`.
fn type_admits(node: &Map<String, Value>, type_name: &str) -> bool {
    match node.get("type") {
        Some(Value::String(name)) => name == type_name,
        Some(Value::Array(names)) => names.iter().any(|name| name == type_name),
        _ => false,
    }
}

/// Whether a bound is written as an integer (`3`, not `3.0` or `3.5`): a grammar derives digit
/// rules from it, and a fraction there is a sign the author meant a number.
fn is_integer(value: &Value) -> bool {
    value.is_i64() || value.is_u64()
}

fn is_of_type(value: &Value, type_name: &str) -> bool {
    match type_name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        // Draft-06 and later: a number with a zero fractional part is an integer.
        "integer" => value.as_f64().is_some_and(|number| number.fract() == 0.0),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        _ => false,
    }
}

/// "a string", "an array": for messages about a value of the wrong kind.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests;
