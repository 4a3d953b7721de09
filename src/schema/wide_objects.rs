//! A way around a quadratic step in the `jsonschema` crate (0.61) for very wide closed objects.
//!
//! When an object schema has `additionalProperties: false`, the compiler asks whether
//! `required` names every declared property by scanning `required` once per property: at
//! 100,000 properties, all required (the shape strict mode asks for), compiling takes 15 s.
//! That question is skipped when `required` and `properties` differ in length, so a copy of the
//! schema given to the compiler declares one more property, whose schema is `false`. That
//! changes nothing a value can do: the closed object refused that name before, and its `false`
//! schema refuses it now.

use serde_json::{Map, Value};

use super::walk::for_each_schema_mut;

/// Objects with more declared properties than this get the extra property; below it the scan
/// costs less than copying the schema.
pub(crate) const WIDE: usize = 1024;

/// The extra property's name (made unique against the declared ones).
const SENTINEL: &str = "slmcode: no property of this name";

/// A copy of `schema` with the extra property in every wide closed object whose `required`
/// lists as many names as it declares, or `None` when there is no such object.
pub(crate) fn for_compiler(schema: &Value) -> Option<Value> {
    if !has_wide_object(schema) {
        return None;
    }
    let mut copy = schema.clone();
    let mut changed = false;
    for_each_schema_mut(&mut copy, &mut |map| changed |= add_sentinel(map));
    changed.then_some(copy)
}

/// Whether any object anywhere in `value` has a `properties` object wider than [`WIDE`];
/// schema or not, so a `false` answer is certain and a `true` one only costs a copy.
fn has_wide_object(value: &Value) -> bool {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(map) => {
                if let Some(Value::Object(properties)) = map.get("properties")
                    && properties.len() > WIDE
                {
                    return true;
                }
                pending.extend(map.values());
            }
            Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    false
}

fn add_sentinel(map: &mut Map<String, Value>) -> bool {
    let closed = matches!(map.get("additionalProperties"), Some(Value::Bool(false)));
    let required = match map.get("required") {
        Some(Value::Array(required)) => required.len(),
        _ => return false,
    };
    let Some(Value::Object(properties)) = map.get_mut("properties") else {
        return false;
    };
    if !closed || properties.len() <= WIDE || properties.len() != required {
        return false;
    }
    let mut name = SENTINEL.to_owned();
    while properties.contains_key(&name) {
        name.push('_');
    }
    properties.insert(name, Value::Bool(false));
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Validator;
    use serde_json::json;

    fn closed(count: usize, required: usize) -> Value {
        let names: Vec<String> = (0..count).map(|index| format!("p{index}")).collect();
        json!({
            "type": "object",
            "properties": names.iter().map(|name| (name.clone(), json!({"type": "integer"})))
                .collect::<Map<String, Value>>(),
            "required": names[..required],
            "additionalProperties": false,
        })
    }

    #[test]
    fn only_wide_closed_objects_that_require_every_property_are_copied() {
        assert_eq!(for_compiler(&closed(WIDE, WIDE)), None);
        assert_eq!(for_compiler(&closed(WIDE + 1, WIDE)), None);
        let copy = for_compiler(&closed(WIDE + 1, WIDE + 1)).unwrap();
        assert_eq!(copy["properties"][SENTINEL], json!(false));
        assert_eq!(copy["properties"].as_object().unwrap().len(), WIDE + 2);
        // A `const` that looks like such an object is a value, not a schema.
        let value = json!({"const": closed(WIDE + 1, WIDE + 1)});
        assert_eq!(for_compiler(&value), None);
    }

    #[test]
    fn nested_objects_are_found_and_the_name_never_collides() {
        let mut inner = closed(WIDE + 1, WIDE + 1);
        inner["properties"][SENTINEL] = json!({"type": "string"});
        inner["required"]
            .as_array_mut()
            .unwrap()
            .push(json!(SENTINEL));
        let schema = json!({"type": "array", "items": inner});
        let copy = for_compiler(&schema).unwrap();
        assert_eq!(
            copy["items"]["properties"][SENTINEL],
            json!({"type": "string"})
        );
        assert_eq!(
            copy["items"]["properties"][format!("{SENTINEL}_")],
            json!(false)
        );
    }

    #[test]
    fn the_copy_accepts_and_refuses_what_the_schema_does() {
        let schema = closed(WIDE + 1, WIDE + 1);
        let validator = Validator::compile(&schema).unwrap();
        let full: Map<String, Value> = (0..=WIDE)
            .map(|index| (format!("p{index}"), json!(1)))
            .collect();
        assert!(validator.is_valid(&Value::Object(full.clone())));
        let mut missing = full.clone();
        missing.remove("p7");
        let errors = validator.validate(&Value::Object(missing)).unwrap_err();
        assert!(
            errors.0[0]
                .message
                .contains("\"p7\" is a required property"),
            "{errors}"
        );
        for extra in ["other", SENTINEL] {
            let mut more = full.clone();
            more.insert(extra.to_owned(), json!(1));
            assert!(
                !validator.is_valid(&Value::Object(more)),
                "{extra} was accepted"
            );
        }
    }
}
