use serde_json::json;

use crate::util::Slm;

#[test]
fn ids_fold_and_decode_as_the_design_says() {
    let slm = Slm::new();
    let run = slm.run(
        [
            "roles",
            "--json",
            "go-worker",
            "describer",
            "rust-reviewer",
            "gopher",
        ],
        "",
    );
    run.code(0);
    let stop = json!(["\n## ", "```\n\n", "\nNote:"]);
    assert_eq!(
        run.json(),
        json!({"roles": [
            {"id": "go-worker", "generic_id": "worker", "kind": "json", "contract": "worker",
             "json_only": true, "serial_tools": false, "stop": stop},
            {"id": "describer", "generic_id": "describer", "kind": "free_text", "contract": null,
             "json_only": false, "serial_tools": false, "stop": []},
            {"id": "rust-reviewer", "generic_id": "reviewer", "kind": "json", "contract": "review",
             "json_only": true, "serial_tools": false, "stop": stop},
            {"id": "gopher", "generic_id": "gopher", "kind": "plain", "contract": null,
             "json_only": false, "serial_tools": false, "stop": []}
        ]})
    );
}

#[test]
fn tools_make_a_role_tool_using() {
    let slm = Slm::new();
    let run = slm.run(
        [
            "roles",
            "--json",
            "python-tester",
            "--tools",
            "run_command,read_file",
        ],
        "",
    );
    run.code(0);
    let role = &run.json()["roles"][0];
    assert_eq!(role["kind"], "tool_using");
    assert_eq!(role["serial_tools"], true);
    assert_eq!(role["json_only"], false);
    assert_eq!(role["contract"], "tester");
}

#[test]
fn without_ids_every_known_role_is_listed() {
    let slm = Slm::new();
    let run = slm.run(["roles", "--json"], "");
    run.code(0);
    let roles = run.json()["roles"].as_array().unwrap().clone();
    assert_eq!(roles.len(), 16 + 16 + 3);
    assert!(
        roles
            .iter()
            .any(|role| role["id"] == "planner" && role["contract"] == "plan")
    );
    let table = slm.run(["roles"], "");
    table.code(0);
    assert!(table.stdout.contains("scope_judge"), "{}", table.stdout);
}

#[test]
fn an_unknown_explicit_contract_is_a_usage_error() {
    let slm = Slm::new();
    let run = slm.run(["roles", "triage", "--contract", "scope-judgement"], "");
    run.code(2);
    assert!(
        run.stderr.starts_with(
            "error: role `triage` names contract `scope-judgement`, which does not exist"
        ),
        "{}",
        run.stderr
    );
}
