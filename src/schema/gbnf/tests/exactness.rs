//! The proof that derived grammars are exact: for a schema, many generated valid instances
//! (written compactly, pretty and with random whitespace and escapes) must validate and be
//! recognized, and near misses of each of them (a missing required property, an extra one,
//! an integer one past a bound, one item or character too many or too few, a wrong enum
//! value, a wrong type, a trailing comma, a leading zero, too much whitespace) must fail
//! validation or be non-canonical (a repeated property, properties out of schema order), and
//! be rejected by the recognizer.
//!
//! It runs over every contract and over fixture schemas that use what user schemas may use
//! beyond the subset.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::instances::{Generator, MAX_AFFORDABLE_ITEMS, Rng};
use super::texts::{Miss, Style, excess_whitespace, leading_zero, misses, trailing_comma, write};
use crate::schema::gbnf::{Grammar, derive_uncached, parse};
use crate::schema::{contracts, pointer_push, validator};

/// What one schema's run produced.
#[derive(Debug, Default)]
struct Outcome {
    accepted: usize,
    rejected: BTreeMap<Miss, usize>,
    /// Near misses that happened to be valid (a wrong type where the schema allows both).
    still_valid: usize,
    /// Edges the generator produced: (schema pointer, what).
    events: BTreeSet<(String, String)>,
}

fn must_reject(name: &str, grammar: &Grammar, grammar_text: &str, miss: Miss, text: &str) {
    if grammar.recognize(text).is_ok() {
        panic!(
            "{name}: the near miss {miss:?} is in the grammar's language:\n{text}\n\ngrammar:\n{grammar_text}"
        );
    }
}

/// Runs `count` instances of `schema` through the grammar and the validator.
fn exercise(name: &str, schema: &Value, count: usize, seed: u64) -> Outcome {
    let derived = derive_uncached(schema).unwrap_or_else(|error| panic!("{name}: {error}"));
    let grammar = parse(&derived.grammar).unwrap_or_else(|error| {
        panic!(
            "{name}: derived grammar does not parse: {error}\n{}",
            derived.grammar
        )
    });
    let validator = validator(schema).unwrap_or_else(|error| panic!("{name}: {error}"));
    let mut generator = Generator::new(schema, seed);
    let mut rng = Rng::new(seed ^ 0x5EED);
    let mut outcome = Outcome::default();
    for _ in 0..count {
        let node = generator.instance();
        let value = node.to_value();
        if let Err(violations) = validator.validate(&value) {
            panic!("{name}: the generator made an invalid instance {value}: {violations}");
        }
        for style in [Style::Compact, Style::Pretty, Style::Loose] {
            let text = write(&node, style, &mut rng);
            let reparsed: Value = serde_json::from_str(&text).unwrap_or_else(|error| {
                panic!("{name}: {style:?} text is not JSON ({error}):\n{text}")
            });
            assert_eq!(reparsed, value, "{name}: {style:?} text changed the value");
            if let Err(mismatch) = grammar.recognize(&text) {
                panic!(
                    "{name}: a valid instance ({style:?}) is not in the grammar's language: {mismatch}\n{text}\n\ngrammar:\n{}",
                    derived.grammar
                );
            }
            outcome.accepted += 1;
        }
        let compact = write(&node, Style::Compact, &mut rng);
        let mut text_misses: Vec<(Miss, String)> = Vec::new();
        text_misses.extend(trailing_comma(&compact).map(|text| (Miss::TrailingComma, text)));
        text_misses.extend(leading_zero(&compact).map(|text| (Miss::LeadingZero, text)));
        text_misses.extend(
            excess_whitespace(&compact)
                .into_iter()
                .map(|text| (Miss::ExcessWhitespace, text)),
        );
        for (miss, text) in text_misses {
            must_reject(name, &grammar, &derived.grammar, miss, &text);
            *outcome.rejected.entry(miss).or_default() += 1;
        }
        for (miss, mutated) in misses(&node, &mut rng) {
            let value = mutated.to_value();
            // An extra, repeated or misplaced property is never canonical (objects are closed,
            // in schema order, each property once); every other near miss must also be
            // invalid to count.
            let canonical_only = matches!(
                miss,
                Miss::ExtraProperty | Miss::DuplicateProperty | Miss::OutOfOrder
            );
            if !canonical_only && validator.is_valid(&value) {
                outcome.still_valid += 1;
                continue;
            }
            let style = if rng.chance(50) {
                Style::Compact
            } else {
                Style::Loose
            };
            let text = write(&mutated, style, &mut rng);
            must_reject(name, &grammar, &derived.grammar, miss, &text);
            *outcome.rejected.entry(miss).or_default() += 1;
        }
    }
    outcome.events = generator.events;
    outcome
}

/// The edges a run over a subset schema must produce: every enum value, both presences of
/// every optional property, empty and (affordable) full arrays, bound-edge integers and
/// strings at both length bounds.
fn expected_events(schema: &Value, pointer: &str, out: &mut BTreeSet<(String, String)>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    let mut add = |what: String| out.insert((pointer.to_owned(), what));
    if let Some(values) = map.get("enum").and_then(Value::as_array) {
        for value in values {
            add(format!("enum {value}"));
        }
        return;
    }
    let bound = |keyword: &str| map.get(keyword).and_then(Value::as_u64);
    match map.get("type").and_then(Value::as_str) {
        Some("string") => {
            add("minimum length".into());
            if bound("maxLength").is_some_and(|max| max <= 5000) {
                add("maximum length".into());
            }
        }
        Some("integer") => {
            if map.contains_key("minimum") {
                add("minimum".into());
            }
            if map.contains_key("maximum") {
                add("maximum".into());
            }
        }
        Some("array") => {
            add("minimum length".into());
            if bound("maxItems").is_some_and(|max| max <= MAX_AFFORDABLE_ITEMS) {
                add("maximum length".into());
            }
            if let Some(items) = map.get("items") {
                expected_events(items, &pointer_push(pointer, "items"), out);
            }
        }
        Some("object") => {
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for (name, property) in map
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let property_pointer = pointer_push(&pointer_push(pointer, "properties"), name);
                if !required.contains(&name.as_str()) {
                    out.insert((property_pointer.clone(), "present".into()));
                    out.insert((property_pointer.clone(), "absent".into()));
                }
                expected_events(property, &property_pointer, out);
            }
        }
        _ => {}
    }
}

fn assert_covered(name: &str, schema: &Value, outcome: &Outcome) {
    let mut expected = BTreeSet::new();
    expected_events(schema, "", &mut expected);
    let missing: Vec<_> = expected.difference(&outcome.events).collect();
    assert!(
        missing.is_empty(),
        "{name}: the instances never produced {missing:?}"
    );
}

#[test]
fn every_contract_grammar_is_exact() {
    let mut kinds: BTreeSet<Miss> = BTreeSet::new();
    for (index, contract) in contracts().iter().enumerate() {
        let schema = contract.schema();
        let derived = derive_uncached(schema).unwrap();
        assert!(
            derived.notes.is_empty(),
            "{}: a contract's grammar must be exact, but: {:?}",
            contract.name,
            derived.notes
        );
        let outcome = exercise(contract.name, schema, 32, 1000 + index as u64);
        assert_covered(contract.name, schema, &outcome);
        for required in [
            Miss::MissingRequired,
            Miss::ExtraProperty,
            Miss::WrongType,
            Miss::TrailingComma,
            Miss::ExcessWhitespace,
        ] {
            assert!(
                outcome.rejected.contains_key(&required),
                "{}: no {required:?} near miss was tried",
                contract.name
            );
        }
        kinds.extend(outcome.rejected.keys().copied());
    }
    // Across the contracts, every kind of near miss was tried.
    let all = [
        Miss::MissingRequired,
        Miss::ExtraProperty,
        Miss::DuplicateProperty,
        Miss::OutOfOrder,
        Miss::BelowMinimum,
        Miss::AboveMaximum,
        Miss::TooManyItems,
        Miss::TooFewItems,
        Miss::TooLong,
        Miss::TooShort,
        Miss::WrongEnumValue,
        Miss::WrongType,
        Miss::TrailingComma,
        Miss::LeadingZero,
        Miss::ExcessWhitespace,
    ];
    for kind in all {
        assert!(
            kinds.contains(&kind),
            "no contract produced a {kind:?} near miss"
        );
    }
}

/// Everything the contract subset allows, with names and values that need escaping.
fn subset_fixture() -> Value {
    json!({
        "type": "object",
        "properties": {
            "a\"quoted\\name": {"type": "string", "minLength": 2, "maxLength": 3},
            "ws": {"type": "integer", "minimum": -120, "maximum": -3},
            "char": {"type": "integer", "minimum": 7},
            "count": {"type": "integer", "maximum": 0},
            "any int": {"type": "integer"},
            "ünïcode": {"type": "string", "enum": ["é", "😀", "tab\there", "quote\"back\\slash", "", "a/b"]},
            "grid": {
                "type": "array", "minItems": 1, "maxItems": 3,
                "items": {"type": "array", "maxItems": 2, "items": {"type": "integer", "minimum": 0, "maximum": 9}}
            },
            "entries": {
                "type": "array", "maxItems": 4,
                "items": {
                    "type": "object",
                    "properties": {
                        "o1": {"type": "boolean"},
                        "r1": {"type": "string", "maxLength": 1},
                        "o2": {"type": "string", "enum": ["x", "y"]},
                        "o3": {"type": "integer", "minimum": 100, "maximum": 1000},
                        "r2": {"type": "boolean"},
                        "o4": {"type": "string", "minLength": 5}
                    },
                    "required": ["r1", "r2"],
                    "additionalProperties": false
                }
            },
            "empty": {"type": "object", "properties": {}, "additionalProperties": false},
            "nothing": {"type": "array", "maxItems": 0}
        },
        "required": ["ws", "grid"],
        "additionalProperties": false
    })
}

#[test]
fn the_subset_fixture_is_exact() {
    let schema = subset_fixture();
    let derived = derive_uncached(&schema).unwrap();
    assert!(derived.notes.is_empty(), "{:?}", derived.notes);
    let outcome = exercise("subset fixture", &schema, 120, 7);
    assert_covered("subset fixture", &schema, &outcome);
    assert!(outcome.rejected[&Miss::BelowMinimum] > 0 && outcome.rejected[&Miss::AboveMaximum] > 0);
}

/// What user schemas may use beyond the subset, all of it expressible exactly.
fn user_fixture() -> Value {
    json!({
        "type": "object",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "label": {"type": ["string", "null"], "maxLength": 4},
                    "children": {"type": "array", "maxItems": 2, "items": {"$ref": "#/$defs/node"}}
                },
                "required": ["label", "children"],
                "additionalProperties": false
            }
        },
        "definitions": {
            "level": {"type": "integer", "minimum": 1, "maximum": 5}
        },
        "properties": {
            "kind": {"const": "report"},
            "tree": {"$ref": "#/$defs/node"},
            "level": {"$ref": "#/definitions/level"},
            "score": {"type": "number"},
            "flag": {"type": ["boolean", "null"]},
            "nothing": {"type": "null"},
            "anything": {},
            "also anything": true,
            "id": {"anyOf": [{"type": "string", "minLength": 1, "maxLength": 8}, {"type": "integer", "minimum": 0}]},
            "event": {
                "oneOf": [
                    {"type": "object", "properties": {"name": {"const": "click"}, "x": {"type": "integer"}}, "required": ["name", "x"], "additionalProperties": false},
                    {"type": "object", "properties": {"name": {"const": "key"}, "code": {"type": "string", "maxLength": 2}}, "required": ["name", "code"], "additionalProperties": false}
                ]
            },
            "tags": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 3}, "maxProperties": 3},
            "free": {"type": "object"}
        },
        "required": ["kind", "tree", "id", "event"],
        "additionalProperties": false
    })
}

#[test]
fn the_user_fixture_is_exact() {
    let schema = user_fixture();
    let derived = derive_uncached(&schema).unwrap();
    assert!(derived.notes.is_empty(), "{:?}", derived.notes);
    let outcome = exercise("user fixture", &schema, 120, 11);
    for event in ["anyOf 0", "anyOf 1", "oneOf 0", "oneOf 1"] {
        assert!(
            outcome.events.iter().any(|(_, what)| what == event),
            "never took {event}"
        );
    }
    assert!(
        outcome.still_valid > 0,
        "some near misses are valid here (a string where null is also allowed)"
    );
}

#[test]
fn big_bounds_are_exact() {
    let schema = json!({
        "type": "object",
        "properties": {
            "long": {"type": "string", "minLength": 2001, "maxLength": 2600},
            "medium": {"type": "string", "maxLength": 4000},
            "exactly": {"type": "string", "minLength": 3000, "maxLength": 3000}
        },
        "required": ["long", "exactly"],
        "additionalProperties": false
    });
    let outcome = exercise("big bounds", &schema, 12, 3);
    assert!(outcome.rejected[&Miss::TooLong] > 0 && outcome.rejected[&Miss::TooShort] > 0);
}

#[test]
fn many_optional_properties_are_exact() {
    let mut properties = serde_json::Map::new();
    for index in 0..12 {
        properties.insert(
            format!("p{index}"),
            json!({"type": "integer", "minimum": 0, "maximum": 3}),
        );
    }
    let with_required = json!({
        "type": "object",
        "properties": properties,
        "required": ["p7"],
        "additionalProperties": false
    });
    let all_optional = json!({
        "type": "object",
        "properties": properties,
        "additionalProperties": false
    });
    for (name, schema) in [
        ("one required", with_required),
        ("all optional", all_optional),
    ] {
        let outcome = exercise(name, &schema, 60, 5);
        assert_covered(name, &schema, &outcome);
    }
}

/// The compact grammar of every contract and fixture: exactly the compact texts of the valid
/// instances (serde_json's own writing), nothing with whitespace between tokens.
#[test]
fn compact_grammars_hold_exactly_the_compact_texts() {
    use crate::schema::gbnf::{Whitespace, derive_uncached_with};
    let mut schemas: Vec<(String, Value)> = contracts()
        .iter()
        .map(|contract| (contract.name.to_owned(), contract.schema().clone()))
        .collect();
    schemas.push(("subset fixture".to_owned(), subset_fixture()));
    schemas.push(("user fixture".to_owned(), user_fixture()));
    for (name, schema) in schemas {
        let derived = derive_uncached_with(&schema, Whitespace::Compact).unwrap();
        let grammar = parse(&derived.grammar).unwrap();
        assert!(
            derived.grammar.contains("ws ::= \"\""),
            "{name}:\n{}",
            derived.grammar
        );
        let mut generator = Generator::new(&schema, 17);
        let mut rng = Rng::new(23);
        for _ in 0..20 {
            let node = generator.instance();
            let compact = write(&node, Style::Compact, &mut rng);
            if let Err(mismatch) = grammar.recognize(&compact) {
                panic!("{name}: compact text not in the compact language: {mismatch}\n{compact}");
            }
            let pretty = write(&node, Style::Pretty, &mut rng);
            if pretty != compact {
                assert!(
                    grammar.recognize(&pretty).is_err(),
                    "{name}: a pretty text is in the compact language:\n{pretty}"
                );
            }
            for spaced in excess_whitespace(&compact) {
                must_reject(
                    &name,
                    &grammar,
                    &derived.grammar,
                    Miss::ExcessWhitespace,
                    &spaced,
                );
            }
        }
    }
}
