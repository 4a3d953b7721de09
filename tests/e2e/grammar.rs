//! Derived grammars on a real llama.cpp server: every contract's grammar is accepted (no 400),
//! and what the server generates under it (a random-weight model, temperature 1, several
//! seeds: its unconstrained output is never JSON) parses, validates against the contract, and
//! is in the language of the grammar as slmcode's own recognizer reads it.

use serde_json::{Value, json};
use slmcode::schema::{contracts, gbnf, validator};

use crate::{chat, endpoint, model};

const SEEDS: [u64; 4] = [1, 2, 3, 4];

/// Sends `grammar` with each seed and checks every reply against `schema`.
fn generate_under(endpoint: &str, name: &str, schema: &Value, grammar: &str) {
    let recognizer = gbnf::parse(grammar).unwrap();
    let validator = validator(schema).unwrap();
    for seed in SEEDS {
        let body = json!({
            "model": model(),
            "messages": [{"role": "user", "content": format!("Return the {name} as JSON.")}],
            "grammar": grammar,
            "temperature": 1,
            "seed": seed,
            "max_tokens": 8192
        });
        let (status, answer) = chat(endpoint, &body);
        assert_eq!(
            status, 200,
            "{name}: the server refused the grammar: {answer}"
        );
        let choice = &answer["choices"][0];
        let content = choice["message"]["content"].as_str().unwrap_or_default();
        assert_eq!(
            choice["finish_reason"], "stop",
            "{name}, seed {seed}: the reply did not finish: {content}"
        );
        let value: Value = serde_json::from_str(content)
            .unwrap_or_else(|error| panic!("{name}, seed {seed}: not JSON ({error}): {content}"));
        if let Err(violations) = validator.validate(&value) {
            panic!("{name}, seed {seed}: {violations}\n{content}");
        }
        if let Err(mismatch) = recognizer.recognize(content) {
            panic!(
                "{name}, seed {seed}: the server's output is not in the grammar's language as slmcode reads it: {mismatch}\n{content}"
            );
        }
    }
}

#[test]
fn every_contract_grammar_is_accepted_and_enforced() {
    let Some(endpoint) = endpoint("every_contract_grammar_is_accepted_and_enforced") else {
        return;
    };
    for contract in contracts() {
        let derived = gbnf::derive(contract.schema()).unwrap();
        generate_under(
            &endpoint,
            contract.name,
            contract.schema(),
            &derived.grammar,
        );
    }
}

#[test]
fn chunked_bounds_and_recursion_are_accepted() {
    let Some(endpoint) = endpoint("chunked_bounds_and_recursion_are_accepted") else {
        return;
    };
    // Bounds past llama.cpp's 2000 repetitions, and a recursive definition.
    let schema = json!({
        "type": "object",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "maxLength": 4},
                    "children": {"type": "array", "maxItems": 2, "items": {"$ref": "#/$defs/node"}}
                },
                "required": ["name", "children"],
                "additionalProperties": false
            }
        },
        "properties": {
            "text": {"type": "string", "minLength": 2100, "maxLength": 4500},
            "id": {"anyOf": [{"type": "integer", "minimum": -50, "maximum": 50}, {"type": "null"}]},
            "tree": {"$ref": "#/$defs/node"}
        },
        "required": ["text", "id", "tree"],
        "additionalProperties": false
    });
    let derived = gbnf::derive(&schema).unwrap();
    assert!(derived.notes.is_empty(), "{:?}", derived.notes);
    assert!(
        derived.grammar.contains("-x1000 ::= char{1000}"),
        "{}",
        derived.grammar
    );
    generate_under(&endpoint, "fixture", &schema, &derived.grammar);
}

#[test]
fn the_server_really_parses_grammars() {
    let Some(endpoint) = endpoint("the_server_really_parses_grammars") else {
        return;
    };
    // Acceptance means something only if a broken grammar is refused.
    let body = json!({
        "model": model(),
        "messages": [{"role": "user", "content": "hi"}],
        "grammar": "root ::= (\"a\"",
        "max_tokens": 4
    });
    let (status, answer) = chat(&endpoint, &body);
    assert_eq!(status, 400, "{answer}");
    // And a repeated group that expands past llama.cpp's limit (1001 rules, 3 times), which
    // slmcode's parser refuses too. (Builds differ on a single long repetition: the current
    // source refuses `[a-z]{0,2000}`, the 2026-10 server build accepts it; derived grammars
    // stay below both limits.)
    let over = "root ::= (\"a\" [a-z]{0,1000}){0,3}";
    assert!(gbnf::parse(over).is_err());
    let body = json!({"model": model(), "messages": [{"role": "user", "content": "hi"}], "grammar": over, "max_tokens": 4});
    let (status, answer) = chat(&endpoint, &body);
    assert_eq!(status, 400, "{answer}");
}

#[test]
fn patterns_and_formats_hold_under_the_servers_engine() {
    let Some(endpoint) = endpoint("patterns_and_formats_hold_under_the_servers_engine") else {
        return;
    };
    // What llama.cpp's own engine generates under the derived rules for patterns (with the
    // characters JSON escapes among them) and formats validates, and slmcode reads it back.
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {
            "ticket": {"type": "string", "pattern": "^[A-Z]{2,4}-\\d{1,5}$"},
            "version": {"type": "string", "pattern": "^v?(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d{0,3})$"},
            "escaped": {"type": "string", "pattern": "^[a\"\\\\\\n\\t/]{1,8}$"},
            "mac": {"type": "string", "pattern": "^(?:[a-f0-9]{2}:){5}[a-f0-9]{2}$"},
            "word": {"type": "string", "pattern": "^\\w{3}$|^\\s$"},
            "date": {"type": "string", "format": "date"},
            "time": {"type": "string", "format": "time"},
            "ipv6": {"type": "string", "format": "ipv6"},
            "uuid": {"type": "string", "format": "uuid"},
            "labels": {"type": "object", "propertyNames": {"pattern": "^[a-z]{1,6}$"},
                "additionalProperties": {"type": "integer"}, "maxProperties": 3}
        },
        "required": ["ticket", "version", "escaped", "mac", "word", "date", "time", "ipv6", "uuid", "labels"],
        "additionalProperties": false
    });
    let derived = gbnf::derive(&schema).unwrap();
    assert!(
        derived
            .notes
            .iter()
            .all(|note| note.keyword.as_deref() == Some("format")),
        "{:?}",
        derived.notes
    );
    generate_under(&endpoint, "patterns", &schema, &derived.grammar);
}
