//! Valid arguments for a tool schema, made from the schema itself: the smallest (required
//! members only) and the fullest (every member, one element per array). Only the keywords the
//! fixtures use are handled; anything else panics, so a new fixture cannot pass untested.

use serde_json::{Map, Value, json};

/// How much to put in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Size {
    Smallest,
    Fullest,
}

/// A valid instance of `schema` (a part of `root`).
pub fn instance(schema: &Value, root: &Value, size: Size, depth: usize) -> Value {
    let map = match schema {
        Value::Bool(true) => return json!("anything"),
        Value::Object(map) => map,
        other => panic!("unsupported schema {other}"),
    };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
        let target = root
            .pointer(reference.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("unresolved {reference}"));
        return instance(target, root, size, depth + 1);
    }
    if let Some(constant) = map.get("const") {
        return constant.clone();
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return match size {
            Size::Smallest => values[0].clone(),
            Size::Fullest => values.last().unwrap().clone(),
        };
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(keyword) {
            let branch = match size {
                Size::Smallest => &branches[0],
                Size::Fullest => branches.iter().rev().find(|b| b["type"] != "null").unwrap(),
            };
            return instance(branch, root, size, depth + 1);
        }
    }
    let kind = match map.get("type") {
        Some(Value::String(name)) => name.as_str(),
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .find(|name| *name != "null")
            .unwrap_or("null"),
        None if map.contains_key("properties") => "object",
        None if map.is_empty() || map.keys().all(|key| key == "description") => {
            return json!({"free": "form"});
        }
        None => panic!("no type in {schema}"),
        Some(other) => panic!("unsupported type {other}"),
    };
    match kind {
        "object" => object(map, root, size, depth),
        "array" => {
            let minimum = map.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            let count = match size {
                // A recursive schema stops growing after a few levels.
                Size::Fullest if depth < 4 => minimum.max(1),
                _ => minimum,
            };
            let items = map.get("items").cloned().unwrap_or(json!(true));
            Value::Array(
                (0..count)
                    .map(|_| instance(&items, root, size, depth + 1))
                    .collect(),
            )
        }
        "string" => string(map),
        "integer" => {
            let minimum = map.get("minimum").and_then(Value::as_i64).unwrap_or(1);
            let maximum = map
                .get("maximum")
                .and_then(Value::as_i64)
                .unwrap_or(i64::MAX);
            json!(
                minimum
                    .max(match size {
                        Size::Smallest => minimum,
                        Size::Fullest => 7,
                    })
                    .min(maximum)
            )
        }
        "number" => {
            let floor = map
                .get("exclusiveMinimum")
                .or_else(|| map.get("minimum"))
                .and_then(Value::as_f64)
                .unwrap_or(0.0);
            json!(floor + 2.5)
        }
        "boolean" => json!(size == Size::Fullest),
        "null" => Value::Null,
        other => panic!("unsupported type {other}"),
    }
}

fn object(map: &Map<String, Value>, root: &Value, size: Size, depth: usize) -> Value {
    let required: Vec<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut out = Map::new();
    let properties = map.get("properties").and_then(Value::as_object);
    for (name, property) in properties.into_iter().flatten() {
        let wanted = required.contains(&name.as_str()) || (size == Size::Fullest && depth < 4);
        if wanted {
            out.insert(name.clone(), instance(property, root, size, depth + 1));
        }
    }
    if properties.is_none_or(|properties| properties.is_empty())
        && size == Size::Fullest
        && depth < 4
        && let Some(additional @ Value::Object(_)) = map.get("additionalProperties")
    {
        out.insert(
            "key".to_owned(),
            instance(additional, root, size, depth + 1),
        );
    }
    Value::Object(out)
}

fn string(map: &Map<String, Value>) -> Value {
    if let Some(pattern) = map.get("pattern").and_then(Value::as_str) {
        return match pattern {
            "^[0-9a-f]{6}$" => json!("c0ffee"),
            other => panic!("no sample for pattern {other}"),
        };
    }
    let text = match map.get("format").and_then(Value::as_str) {
        Some("date-time") => "2026-11-28T12:00:00Z".to_owned(),
        Some("date") => "2026-11-28".to_owned(),
        Some("email") => "dev@example.com".to_owned(),
        Some("uri") => "https://example.com/api".to_owned(),
        Some(other) => panic!("no sample for format {other}"),
        None => {
            let minimum = map.get("minLength").and_then(Value::as_u64).unwrap_or(1) as usize;
            "src/main.rs"
                .chars()
                .cycle()
                .take(minimum.max(11))
                .collect()
        }
    };
    let maximum = map
        .get("maxLength")
        .and_then(Value::as_u64)
        .unwrap_or(u64::MAX) as usize;
    json!(text.chars().take(maximum).collect::<String>())
}

/// A value of another JSON type than `value`.
pub fn other_type(value: &Value) -> Value {
    match value {
        Value::String(_) => json!(12345),
        Value::Number(_) => json!("12"),
        Value::Bool(_) => json!("yes"),
        Value::Array(_) => json!("not a list"),
        Value::Object(_) => json!(3),
        Value::Null => json!(false),
    }
}
