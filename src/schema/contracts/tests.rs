//! The rules the contracts must keep, enforced: inside the subset, an honest Strict mark,
//! prompts that describe exactly the schema, examples that validate and near-misses that do not.

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::*;

mod prompts;

use crate::schema::{strict_problems, subset_problems};
use prompts::schema_fields;

const NAMES: [&str; 16] = [
    "plan",
    "tasks",
    "review",
    "tester",
    "clarify",
    "escalate",
    "composition",
    "scope_judge",
    "worker",
    "explore",
    "docs",
    "architect",
    "coordinator",
    "orchestrator",
    "placeholder",
    "lessons",
];

#[test]
fn the_registry_lists_the_sixteen_contracts_in_order() {
    let names: Vec<&str> = contracts().iter().map(|contract| contract.name).collect();
    assert_eq!(names, NAMES);
    for name in NAMES {
        assert_eq!(contract(name).unwrap().name, name);
    }
}

#[test]
fn every_schema_parses_compiles_and_has_a_title_and_description() {
    for contract in contracts() {
        assert!(contract.schema().is_object(), "{}", contract.name);
        Validator::compile(contract.schema()).unwrap();
        let _ = contract.validator();
        assert!(!contract.title().is_empty(), "{}", contract.name);
        assert_ne!(
            contract.title(),
            contract.name,
            "{} has no title",
            contract.name
        );
        assert!(!contract.description().is_empty(), "{}", contract.name);
    }
}

#[test]
fn every_contract_stays_inside_the_subset() {
    for contract in contracts() {
        let problems: Vec<String> = subset_problems(contract.schema())
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(problems.is_empty(), "{}: {problems:#?}", contract.name);
    }
}

#[test]
fn the_strict_mark_is_exactly_strict_readiness() {
    for contract in contracts() {
        let problems = strict_problems(contract.schema());
        assert_eq!(
            contract.strict,
            problems.is_empty(),
            "{} is marked strict: {}, but the strict check says {problems:#?}",
            contract.name,
            contract.strict
        );
    }
    // Both sides of the mark are exercised, so the test would catch a lie either way.
    assert!(contracts().iter().any(|contract| contract.strict));
    assert!(contracts().iter().any(|contract| !contract.strict));
}

#[test]
fn unknown_names_list_the_contracts_and_suggest_the_nearest() {
    let all = NAMES.join(", ");
    for (asked, suggestion) in [
        ("plna", Some("plan")),
        ("Plan", Some("plan")),
        ("scope-judge", Some("scope_judge")),
        ("go-worker", Some("worker")),
        ("orch", Some("orchestrator")),
        ("reviewer", Some("review")),
        ("testers", Some("tester")),
        ("deploy", None),
        ("", None),
    ] {
        let error = contract(asked).unwrap_err();
        assert_eq!(error.suggestion, suggestion, "{asked}");
        let expected = match suggestion {
            Some(name) => {
                format!(
                    "unknown contract `{asked}` (did you mean `{name}`?); the contracts are: {all}"
                )
            }
            None => format!("unknown contract `{asked}`; the contracts are: {all}"),
        };
        assert_eq!(error.to_string(), expected);
    }
}

// ---- examples and near-misses ----

fn example(name: &str) -> Value {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "examples",
        "contracts",
        &format!("{name}.json"),
    ]
    .iter()
    .collect();
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

#[test]
fn every_shipped_example_validates() {
    for contract in contracts() {
        if let Err(violations) = contract.validate(&example(contract.name)) {
            panic!("examples/contracts/{}.json: {violations}", contract.name);
        }
    }
}

/// The property paths (as in the prompts) that occur in `value`.
fn instance_paths(value: &Value, prefix: &str, paths: &mut Vec<String>) {
    match value {
        Value::Object(members) => {
            for (name, member) in members {
                let path = if prefix.is_empty() {
                    name.clone()
                } else {
                    format!("{prefix}.{name}")
                };
                instance_paths(member, &path, paths);
                paths.push(path);
            }
        }
        Value::Array(items) => {
            for item in items {
                instance_paths(item, &format!("{prefix}[]"), paths);
            }
        }
        _ => {}
    }
}

#[test]
fn every_example_shows_every_field() {
    for contract in contracts() {
        let mut seen = Vec::new();
        instance_paths(&example(contract.name), "", &mut seen);
        for (path, _) in schema_fields(contract.schema()) {
            assert!(
                seen.contains(&path),
                "examples/contracts/{}.json never shows `{path}`",
                contract.name
            );
        }
    }
}

/// Invalid variants of a valid `value`, each one edit away: a required member removed, an
/// unexpected member added, a wrong enum value, a bound crossed, a value of the wrong type.
fn near_misses(schema: &Value, value: &Value, pointer: &str, out: &mut Vec<(String, Value)>) {
    let mut variant =
        |what: String, replacement: Value| out.push((format!("{pointer}: {what}"), replacement));
    match value {
        Value::Object(members) => {
            for name in schema["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                let mut without = members.clone();
                without.remove(name);
                variant(format!("without `{name}`"), Value::Object(without));
            }
            if schema["additionalProperties"] == false {
                let mut extra = members.clone();
                extra.insert("unexpected".into(), json!(true));
                variant("with an unexpected member".into(), Value::Object(extra));
            }
            variant("an array instead of an object".into(), json!([]));
        }
        Value::Array(items) => {
            if let Some(max) = schema["maxItems"].as_u64()
                && let Some(last) = items.last()
            {
                let mut longer = items.clone();
                longer.resize(max as usize + 1, last.clone());
                variant(format!("{} items", max + 1), Value::Array(longer));
            }
            if schema["minItems"].as_u64().is_some_and(|min| min > 0) {
                variant("no items".into(), json!([]));
            }
            variant("a string instead of an array".into(), json!("items"));
        }
        Value::String(text) => {
            if schema.get("enum").is_some() {
                variant(
                    "a value outside the enum".into(),
                    json!(format!("{text}_x")),
                );
            }
            if schema["minLength"].as_u64().is_some_and(|min| min > 0) {
                variant("an empty string".into(), json!(""));
            }
            if let Some(max) = schema["maxLength"].as_u64() {
                variant(
                    "one character too many".into(),
                    json!("x".repeat(max as usize + 1)),
                );
            }
            variant("a number instead of a string".into(), json!(7));
        }
        Value::Number(_) => {
            if let Some(min) = schema["minimum"].as_i64() {
                variant("below the minimum".into(), json!(min - 1));
            }
            if let Some(max) = schema["maximum"].as_i64() {
                variant("above the maximum".into(), json!(max + 1));
            }
            variant("a fraction".into(), json!(1.5));
            variant("a string instead of an integer".into(), json!("1"));
        }
        Value::Bool(flag) => variant(
            "a string instead of a boolean".into(),
            json!(flag.to_string()),
        ),
        Value::Null => {}
    }
    match value {
        Value::Object(members) => {
            for (name, member) in members {
                near_misses(
                    &schema["properties"][name],
                    member,
                    &crate::schema::pointer_push(pointer, name),
                    out,
                );
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                near_misses(
                    &schema["items"],
                    item,
                    &crate::schema::pointer_push(pointer, &index.to_string()),
                    out,
                );
            }
        }
        _ => {}
    }
}

fn replace_at(document: &Value, pointer: &str, replacement: Value) -> Value {
    let mut document = document.clone();
    *document
        .pointer_mut(pointer)
        .expect("the pointer came from the document") = replacement;
    document
}

#[test]
fn near_misses_of_every_example_are_rejected_at_their_place() {
    for contract in contracts() {
        let valid = example(contract.name);
        let mut variants = Vec::new();
        near_misses(contract.schema(), &valid, "", &mut variants);
        assert!(
            variants.len() >= 8,
            "{}: only {} near-misses",
            contract.name,
            variants.len()
        );
        for (what, replacement) in variants {
            let pointer = what.split(": ").next().unwrap().to_owned();
            let invalid = replace_at(&valid, &pointer, replacement);
            let violations = contract
                .validate(&invalid)
                .expect_err(&format!("{}: accepted {what}", contract.name));
            assert!(
                violations.0.iter().any(|error| error.pointer == pointer),
                "{}: {what}: errors at other places: {violations}",
                contract.name
            );
        }
    }
}

#[test]
fn realistic_mistakes_are_rejected_with_pointers() {
    let cases: [(&str, Value, &str); 6] = [
        (
            "plan",
            json!({"goal": "g", "steps": [{"id": "1", "title": "t", "description": "d", "files": [], "depends_on": []}]}),
            "/steps/0/id: \"1\" is not of type \"integer\"",
        ),
        (
            "review",
            json!({"summary": "s", "findings": [], "verdict": "approved"}),
            "/verdict: \"approved\" is not one of \"approve\", \"request_changes\" or \"comment\"",
        ),
        (
            "scope_judge",
            json!({"reason": "r", "in_scope": "yes"}),
            "/in_scope: \"yes\" is not of type \"boolean\"",
        ),
        (
            "worker",
            json!({"status": "done", "changed_files": [{"path": "a.rs", "change": "renamed"}], "summary": "s", "follow_ups": []}),
            "/changed_files/0/change: \"renamed\" is not one of \"added\", \"modified\" or \"deleted\"",
        ),
        (
            "tester",
            json!({"command": "cargo test", "passed": 3, "failed": -1, "skipped": 0, "failures": [], "summary": "s", "verdict": "pass"}),
            "/failed: -1 is less than the minimum of 0",
        ),
        (
            "placeholder",
            json!({"found": false, "locations": [{"file": "a.rs", "line": 0, "kind": "todo", "snippet": "x"}]}),
            "/locations/0/line: 0 is less than the minimum of 1",
        ),
    ];
    for (name, value, expected) in cases {
        let violations = contract(name).unwrap().validate(&value).unwrap_err();
        let rendered: Vec<String> = violations.0.iter().map(ToString::to_string).collect();
        assert_eq!(rendered, vec![expected.to_owned()], "{name}");
    }
}

#[test]
fn optional_fields_of_non_strict_contracts_may_be_left_out() {
    let review = json!({"summary": "s", "findings": [{"severity": "nit", "file": "README.md", "message": "m"}], "verdict": "comment"});
    contract("review").unwrap().validate(&review).unwrap();
    let finish = json!({"reason": "the goal is met", "action": "finish"});
    contract("orchestrator").unwrap().validate(&finish).unwrap();
    let mut members = Map::new();
    members.insert("reason".into(), json!("r"));
    members.insert("action".into(), json!("finish"));
    members.insert("target".into(), json!(""));
    assert!(
        contract("orchestrator")
            .unwrap()
            .validate(&Value::Object(members))
            .is_err()
    );
}
