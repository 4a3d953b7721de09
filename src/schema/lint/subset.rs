//! The contract subset: which keywords a contract may use, and what it may say with them.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::problem;
use crate::schema::distinct::DistinctValues;
use crate::schema::json_kind;
use crate::schema::{Problem, pointer_push};

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
    let mut seen: HashSet<&str> = HashSet::with_capacity(names.len());
    for name in names {
        let Some(name) = name.as_str() else {
            problems.push(problem(
                pointer,
                Some("required"),
                format!("{name} is not a property name (a string)"),
            ));
            continue;
        };
        if !seen.insert(name) {
            problems.push(problem(
                pointer,
                Some("required"),
                format!("`{name}` is listed twice"),
            ));
            continue;
        }
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
    let mut seen = DistinctValues::new();
    for allowed in values {
        if !seen.insert(allowed) {
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
