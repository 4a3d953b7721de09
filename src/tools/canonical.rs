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

use crate::schema::walk::{SCHEMA_ARRAY_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_MAP_KEYWORDS};

/// `schema` in canonical form, as a value (built from [`write_schema`]'s text, which
/// `serde_json` reads back in the written order).
pub(crate) fn canonical_schema(schema: &Value) -> Value {
    let mut text = Vec::new();
    write_schema(schema, &mut text);
    serde_json::from_slice(&text).expect("canonical text is JSON")
}

/// Writes `schema` as canonical JSON: every object's keys sorted, except the order of each
/// `properties` map. Writing directly, without building a sorted copy first, keeps the cache
/// hit path of [`super::compile`] cheap.
pub(crate) fn write_schema(schema: &Value, out: &mut Vec<u8>) {
    let Value::Object(map) = schema else {
        write_value(schema, out);
        return;
    };
    write_sorted(map, out, |key, member, out| match key {
        "properties" => match member {
            Value::Object(properties) => {
                out.push(b'{');
                for (index, (name, property)) in properties.iter().enumerate() {
                    if index > 0 {
                        out.push(b',');
                    }
                    write_string(name, out);
                    out.push(b':');
                    write_schema(property, out);
                }
                out.push(b'}');
            }
            other => write_value(other, out),
        },
        // `dependencies` (draft-07) maps a name to a schema or to a list of names.
        "dependencies" => match member {
            Value::Object(dependencies) => write_sorted(dependencies, out, |_, dependency, out| {
                if dependency.is_object() {
                    write_schema(dependency, out);
                } else {
                    write_value(dependency, out);
                }
            }),
            other => write_value(other, out),
        },
        name if SCHEMA_MAP_KEYWORDS.contains(&name) => match member {
            Value::Object(schemas) => {
                write_sorted(schemas, out, |_, schema, out| write_schema(schema, out));
            }
            other => write_value(other, out),
        },
        name if SCHEMA_ARRAY_KEYWORDS.contains(&name) || name == "items" => match member {
            Value::Array(schemas) => write_array(schemas, out, write_schema),
            other => write_schema(other, out),
        },
        name if SCHEMA_KEYWORDS.contains(&name) => write_schema(member, out),
        _ => write_value(member, out),
    });
}

/// Writes `value` as canonical JSON with every object's keys sorted.
pub(crate) fn write_value(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Object(map) => write_sorted(map, out, |_, member, out| write_value(member, out)),
        Value::Array(items) => write_array(items, out, write_value),
        scalar => serde_json::to_writer(&mut *out, scalar).expect("writing to memory"),
    }
}

/// Writes `items` as a JSON array, each item with `write`.
fn write_array(items: &[Value], out: &mut Vec<u8>, write: fn(&Value, &mut Vec<u8>)) {
    out.push(b'[');
    for (index, item) in items.iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        write(item, out);
    }
    out.push(b']');
}

/// Writes a JSON string with serde_json's escapes.
pub(crate) fn write_string(text: &str, out: &mut Vec<u8>) {
    serde_json::to_writer(&mut *out, text).expect("writing to memory");
}

fn write_sorted(
    map: &Map<String, Value>,
    out: &mut Vec<u8>,
    member: impl Fn(&str, &Value, &mut Vec<u8>),
) {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.push(b'{');
    for (index, (key, value)) in entries.into_iter().enumerate() {
        if index > 0 {
            out.push(b',');
        }
        write_string(key, out);
        out.push(b':');
        member(key, value, out);
    }
    out.push(b'}');
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
    fn values_are_fully_sorted_and_scalars_escaped_like_serde_json() {
        let value = json!({"b": [{"z": 1, "y": "\u{1}\"\\é"}], "a": 1.5e300, "c": null});
        let mut out = Vec::new();
        write_value(&value, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"a":1.5e+300,"b":[{"y":"\u0001\"\\é","z":1}],"c":null}"#
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
