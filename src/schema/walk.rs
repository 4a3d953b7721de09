//! Which members of a JSON Schema object are themselves schemas, and a walk over every
//! subschema. Knowing the keywords (draft-07 through 2020-12) keeps a property called
//! `properties`, or a `const` value that looks like `{"$ref": ...}`, from being taken for schema.

use serde_json::{Map, Value};

/// Keywords whose value is one schema (or, for `items`, also an array of schemas).
pub(crate) const SCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
];

/// Keywords whose value is an array of schemas.
pub(crate) const SCHEMA_ARRAY_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value maps names to schemas (`properties` among them).
pub(crate) const SCHEMA_MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Calls `visit` on every schema object in `schema`, the root first. `dependencies` values
/// that are schemas are visited; lists of names are not.
pub(crate) fn for_each_schema_mut(
    schema: &mut Value,
    visit: &mut dyn FnMut(&mut Map<String, Value>),
) {
    let Value::Object(map) = schema else {
        return;
    };
    visit(map);
    for (key, member) in map.iter_mut() {
        let key = key.as_str();
        if SCHEMA_KEYWORDS.contains(&key) {
            match member {
                Value::Array(schemas) if key == "items" => {
                    for item in schemas {
                        for_each_schema_mut(item, visit);
                    }
                }
                other => for_each_schema_mut(other, visit),
            }
        } else if SCHEMA_ARRAY_KEYWORDS.contains(&key) {
            if let Value::Array(schemas) = member {
                for item in schemas {
                    for_each_schema_mut(item, visit);
                }
            }
        } else if (SCHEMA_MAP_KEYWORDS.contains(&key) || key == "dependencies")
            && let Value::Object(schemas) = member
        {
            for (_, item) in schemas.iter_mut() {
                if item.is_object() {
                    for_each_schema_mut(item, visit);
                }
            }
        }
    }
}

/// Every `$ref` string in `schema`.
pub(crate) fn references(schema: &Value) -> Vec<String> {
    let mut copy = schema.clone();
    let mut found = Vec::new();
    for_each_schema_mut(&mut copy, &mut |map| {
        if let Some(Value::String(reference)) = map.get("$ref") {
            found.push(reference.clone());
        }
    });
    found
}

/// `map` without the given keys.
pub(crate) fn without(map: &Map<String, Value>, keys: &[&str]) -> Map<String, Value> {
    map.iter()
        .filter(|(key, _)| !keys.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_references_only_in_schema_positions() {
        let schema = json!({
            "properties": {
                "properties": {"$ref": "#/$defs/a"},
                "x": {"const": {"$ref": "#/not/a/schema"}, "items": [{"$ref": "#/$defs/b"}]}
            },
            "anyOf": [{"$ref": "#"}],
            "dependencies": {"x": ["y"], "z": {"not": {"$ref": "#/$defs/c"}}},
            "$defs": {"a": {"additionalProperties": {"$ref": "#/$defs/d"}}}
        });
        let mut found = references(&schema);
        found.sort();
        assert_eq!(
            found,
            ["#", "#/$defs/a", "#/$defs/b", "#/$defs/c", "#/$defs/d"]
        );
    }
}
