//! The canonical form of a tool set, and the content address computed from it.
//!
//! Canonical JSON here means: compact, serde_json's escapes and number text, arrays in their
//! order, and object keys sorted by byte order, with one exception: the members of a schema's
//! `properties` keep their order. That order is the order a grammar emits arguments in (see
//! [`crate::schema::gbnf`]), so it is part of what a compiled constraint means; everywhere else
//! key order means nothing to a JSON Schema, and sorting it is what lets two spellings of the
//! same tool set share one compiled constraint.
//!
//! Which members hold schemas is known per keyword (draft-07 through 2020-12), so a property
//! that happens to be called `properties` is still treated as a property.

use serde_json::{Map, Value};

use super::walk::{SCHEMA_ARRAY_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_MAP_KEYWORDS};

/// `schema` with every object's keys sorted, except the order of each `properties` map.
pub(crate) fn canonical_schema(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return canonical_value(schema);
    };
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    let mut out = Map::with_capacity(map.len());
    for key in keys {
        let member = &map[key.as_str()];
        let canonical = match key.as_str() {
            "properties" => match member {
                Value::Object(properties) => Value::Object(
                    properties
                        .iter()
                        .map(|(name, property)| (name.clone(), canonical_schema(property)))
                        .collect(),
                ),
                other => canonical_value(other),
            },
            // `dependencies` (draft-07) maps a name to a schema or to a list of names.
            "dependencies" => match member {
                Value::Object(dependencies) => sorted_map(dependencies, |dependency| {
                    if dependency.is_object() {
                        canonical_schema(dependency)
                    } else {
                        canonical_value(dependency)
                    }
                }),
                other => canonical_value(other),
            },
            name if SCHEMA_MAP_KEYWORDS.contains(&name) => match member {
                Value::Object(schemas) => sorted_map(schemas, canonical_schema),
                other => canonical_value(other),
            },
            name if SCHEMA_ARRAY_KEYWORDS.contains(&name) || name == "items" => match member {
                Value::Array(schemas) => {
                    Value::Array(schemas.iter().map(canonical_schema).collect())
                }
                other => canonical_schema(other),
            },
            name if SCHEMA_KEYWORDS.contains(&name) => canonical_schema(member),
            _ => canonical_value(member),
        };
        out.insert(key.clone(), canonical);
    }
    Value::Object(out)
}

/// `value` with every object's keys sorted.
pub(crate) fn canonical_value(value: &Value) -> Value {
    match value {
        Value::Object(map) => sorted_map(map, canonical_value),
        Value::Array(items) => Value::Array(items.iter().map(canonical_value).collect()),
        scalar => scalar.clone(),
    }
}

fn sorted_map(map: &Map<String, Value>, member: impl Fn(&Value) -> Value) -> Value {
    let mut keys: Vec<&String> = map.keys().collect();
    keys.sort();
    Value::Object(
        keys.into_iter()
            .map(|key| (key.clone(), member(&map[key.as_str()])))
            .collect(),
    )
}

/// The SHA-256 of `bytes`, as `sha256:` and 64 lowercase hex digits.
pub(crate) fn content_address(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest.as_ref() {
        out.push(char::from_digit(u32::from(byte >> 4), 16).expect("a nibble"));
        out.push(char::from_digit(u32::from(byte & 0xf), 16).expect("a nibble"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(value: &Value) -> String {
        serde_json::to_string(value).unwrap()
    }

    #[test]
    fn keys_are_sorted_except_property_order() {
        let schema = json!({
            "type": "object",
            "required": ["b", "a"],
            "properties": {
                "properties": {"type": "string", "description": "a property named properties"},
                "b": {"type": "object", "properties": {"z": {}, "y": {}}},
                "a": {"enum": [{"y": 1, "x": 2}]}
            },
            "$defs": {"Z": {"type": "string", "title": "t"}, "A": {"maxLength": 3, "type": "string"}}
        });
        assert_eq!(
            text(&canonical_schema(&schema)),
            r#"{"$defs":{"A":{"maxLength":3,"type":"string"},"Z":{"title":"t","type":"string"}},"properties":{"properties":{"description":"a property named properties","type":"string"},"b":{"properties":{"z":{},"y":{}},"type":"object"},"a":{"enum":[{"x":2,"y":1}]}},"required":["b","a"],"type":"object"}"#
        );
    }

    #[test]
    fn schema_arrays_and_single_schemas_are_walked() {
        let schema = json!({
            "anyOf": [{"type": "object", "properties": {"q": {}, "p": {}}}, {"type": "null"}],
            "items": {"properties": {"d": {}, "c": {}}},
            "dependencies": {"x": ["b", "a"], "y": {"properties": {"k": {}, "j": {}}}}
        });
        assert_eq!(
            text(&canonical_schema(&schema)),
            r#"{"anyOf":[{"properties":{"q":{},"p":{}},"type":"object"},{"type":"null"}],"dependencies":{"x":["b","a"],"y":{"properties":{"k":{},"j":{}}}},"items":{"properties":{"d":{},"c":{}}}}"#
        );
    }

    #[test]
    fn content_address_is_sha256_hex() {
        // The SHA-256 of the empty string (FIPS 180-2 test vector).
        assert_eq!(
            content_address(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
