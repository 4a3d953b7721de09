use serde_json::json;

use super::*;

fn decode(spec: RoleSpec) -> Decoding {
    normalize_decoding(&spec).unwrap()
}

#[test]
fn contract_roles_are_json_only_with_stop_sequences() {
    for contract in schema::contracts() {
        let decoding = decode(RoleSpec::new(contract.name));
        assert_eq!(decoding.kind, RoleKind::Json, "{}", contract.name);
        assert_eq!(decoding.contract, Some(contract.name));
        assert!(decoding.json_only);
        assert!(!decoding.serial_tools);
        assert_eq!(decoding.stop, ["\n## ", "```\n\n", "\nNote:"]);
    }
}

#[test]
fn tool_using_roles_get_serial_tools_and_no_json_only() {
    let decoding = decode(RoleSpec::new("worker").with_tools(["read_file", "write_file"]));
    assert_eq!(decoding.kind, RoleKind::ToolUsing);
    assert!(decoding.serial_tools);
    assert!(!decoding.json_only);
    assert!(decoding.stop.is_empty());
    // The contract still names what the final answer is validated against.
    assert_eq!(decoding.contract, Some("worker"));
}

#[test]
fn free_text_roles_get_neither_a_contract_nor_json_only() {
    for id in ["context", "memory", "describer", "go-describer"] {
        let decoding = decode(RoleSpec::new(id));
        assert_eq!(decoding.kind, RoleKind::FreeText, "{id}");
        assert_eq!(decoding.contract, None, "{id}");
        assert!(
            !decoding.json_only && !decoding.serial_tools && decoding.stop.is_empty(),
            "{id}"
        );
    }
}

#[test]
fn language_specialised_ids_fold_to_their_generic_role() {
    let cases = [
        ("go-worker", "worker", Some("worker")),
        ("python-tester", "tester", Some("tester")),
        ("rust-reviewer", "reviewer", Some("review")),
        ("typescript-code-reviewer", "code-reviewer", Some("review")),
        ("python-unit-tester", "tester", Some("tester")),
        ("java-planner", "planner", Some("plan")),
        ("go-scope-judge", "scope-judge", Some("scope_judge")),
        ("scope_judge", "scope_judge", Some("scope_judge")),
    ];
    for (id, generic, contract) in cases {
        let decoding = decode(RoleSpec::new(id));
        assert_eq!(decoding.generic_id, generic, "{id}");
        assert_eq!(decoding.contract, contract, "{id}");
        assert_eq!(decoding.kind, RoleKind::Json, "{id}");
    }
}

#[test]
fn unknown_ids_are_plain_and_keep_their_id() {
    let decoding = decode(RoleSpec::new("go-gopher"));
    assert_eq!(decoding.generic_id, "go-gopher");
    assert_eq!(decoding.kind, RoleKind::Plain);
    assert_eq!(decoding.contract, None);
    assert!(!decoding.json_only);
}

#[test]
fn an_explicit_contract_wins_and_an_unknown_one_is_an_error() {
    let decoding = decode(RoleSpec::new("triage").with_contract("scope_judge"));
    assert_eq!(decoding.kind, RoleKind::Json);
    assert_eq!(decoding.contract, Some("scope_judge"));

    let error =
        normalize_decoding(&RoleSpec::new("triage").with_contract("scope-judgement")).unwrap_err();
    let message = error.to_string();
    assert!(
        message.starts_with("role `triage` names contract `scope-judgement`"),
        "{message}"
    );
    assert!(message.contains("scope_judge"), "{message}");
}

#[test]
fn every_alias_points_at_a_real_contract() {
    for (alias, contract) in ROLE_ALIASES {
        assert!(schema::contract(contract).is_ok(), "{alias} -> {contract}");
        assert!(
            schema::contract(alias).is_err(),
            "{alias} shadows a contract name"
        );
    }
    assert_eq!(
        known_role_ids().len(),
        16 + ROLE_ALIASES.len() + FREE_TEXT_ROLES.len()
    );
}

#[test]
fn serial_tools_keeps_the_first_call_only() {
    let mut message = json!({
        "role": "assistant",
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "read_file", "arguments": "{}"}},
            {"id": "b", "type": "function", "function": {"name": "write_file", "arguments": "{}"}}
        ]
    });
    assert_eq!(keep_first_tool_call(&mut message), 1);
    assert_eq!(message["tool_calls"].as_array().unwrap().len(), 1);
    assert_eq!(message["tool_calls"][0]["id"], "a");
    let mut plain = json!({"role": "assistant", "content": "hi"});
    assert_eq!(keep_first_tool_call(&mut plain), 0);
    assert_eq!(plain, json!({"role": "assistant", "content": "hi"}));
}
