//! A `$ref` to a definition whose name needs escaping (`#/$defs/a%20b`, `#/$defs/c~1d`) is
//! followed the same way by coercion, the missing-member list, validation and the grammar.

use serde_json::{Value, json};

use crate::repair::{CoercionKind, FailureClass, RepairOptions, repair};
use crate::schema::{gbnf, validate};

fn schema() -> Value {
    json!({
        "$ref": "#/$defs/a%20b",
        "$defs": {
            "a b": {
                "type": "object",
                "properties": {
                    "count": {"$ref": "#/$defs/c~1d"},
                    "flag": {"type": "boolean"}
                },
                "required": ["count", "flag"],
                "additionalProperties": false
            },
            "c/d": {"type": "integer"}
        }
    })
}

#[test]
fn coercion_follows_an_encoded_ref() {
    let schema = schema();
    let options = RepairOptions::new().schema(&schema).unwrap();
    let repaired = repair(r#"{"count": "3", "flag": "true"}"#, &options).unwrap();
    assert_eq!(repaired.value, json!({"count": 3, "flag": true}));
    let kinds: Vec<_> = repaired
        .coercions
        .iter()
        .map(|coercion| (coercion.pointer.as_str(), coercion.kind))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("/count", CoercionKind::StringToInteger),
            ("/flag", CoercionKind::StringToBoolean)
        ]
    );
}

#[test]
fn missing_required_follows_an_encoded_ref() {
    let schema = schema();
    let options = RepairOptions::new().schema(&schema).unwrap();
    let failure = repair(r#"{"flag": true, "count": 1"#, &options).unwrap_err();
    assert_eq!(failure.class, FailureClass::Truncated);
    assert_eq!(failure.missing_required, vec!["count".to_owned()]);
}

#[test]
fn validation_follows_an_encoded_ref() {
    let schema = schema();
    assert!(validate(&schema, &json!({"count": 3, "flag": true})).is_ok());
    let violations = validate(&schema, &json!({"count": "3", "flag": true})).unwrap_err();
    assert!(violations.to_string().contains("/count"), "{violations}");
}

#[test]
fn the_grammar_follows_an_encoded_ref() {
    let derived = gbnf::derive(&schema()).unwrap();
    assert!(derived.notes.is_empty(), "{:?}", derived.notes);
    let grammar = gbnf::parse(&derived.grammar).unwrap();
    assert!(grammar.recognize(r#"{"count": 3, "flag": true}"#).is_ok());
    assert!(
        grammar
            .recognize(r#"{"count": "3", "flag": true}"#)
            .is_err()
    );
    assert!(grammar.recognize(r#"{"flag": true}"#).is_err());
}
