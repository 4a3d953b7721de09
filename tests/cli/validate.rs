use serde_json::json;

use crate::util::Slm;

const SCHEMA: &str = r#"{
    "type": "object",
    "properties": {"steps": {"type": "array", "items": {
        "type": "object",
        "properties": {"id": {"type": "integer"}},
        "required": ["id"]
    }}},
    "required": ["steps"]
}"#;

#[test]
fn a_valid_document_exits_zero() {
    let slm = Slm::new();
    let schema = slm.file("schema.json", SCHEMA);
    let run = slm.run(
        ["validate", "--schema-file", schema.to_str().unwrap()],
        r#"{"steps": [{"id": 1}]}"#,
    );
    run.code(0);
    assert_eq!(run.stdout, "valid\n");
}

#[test]
fn violations_are_listed_with_pointers_and_exit_five() {
    let slm = Slm::new();
    let schema = slm.file("schema.json", SCHEMA);
    let document = slm.file(
        "doc.json",
        r#"{"steps": [{"id": 1}, {"id": 2}, {"id": "x"}]}"#,
    );
    let run = slm.run(
        [
            "validate",
            "--schema-file",
            schema.to_str().unwrap(),
            document.to_str().unwrap(),
        ],
        "",
    );
    run.code(5);
    assert_eq!(
        run.stdout,
        "/steps/2/id: \"x\" is not of type \"integer\"\n"
    );
    assert!(run.stderr.contains("1 error"), "{}", run.stderr);

    let run = slm.run(
        [
            "validate",
            "--json",
            "--schema-file",
            schema.to_str().unwrap(),
            document.to_str().unwrap(),
        ],
        "",
    );
    run.code(5);
    assert_eq!(
        run.json(),
        json!({
            "valid": false,
            "schema": schema.to_str().unwrap(),
            "errors": [{"pointer": "/steps/2/id", "message": "\"x\" is not of type \"integer\""}]
        })
    );
}

#[test]
fn input_that_is_not_json_is_a_clear_error() {
    let slm = Slm::new();
    let schema = slm.file("schema.json", SCHEMA);
    let run = slm.run(
        ["validate", "--schema-file", schema.to_str().unwrap()],
        "Sure! Here it is.",
    );
    run.code(3);
    assert!(
        run.stderr.starts_with(
            "error: <stdin> is not JSON\n  caused by: expected value at line 1 column 1"
        ),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("hint: "), "{}", run.stderr);

    let run = slm.run(
        ["validate", "--schema-file", schema.to_str().unwrap()],
        r#"{"steps": ["#,
    );
    run.code(4);
    assert!(
        run.stderr.contains("ends before the JSON document does"),
        "{}",
        run.stderr
    );

    // Empty input holds no JSON (exit 3), it is not a cut-off document.
    for empty in ["", " \n\t\r\n"] {
        let run = slm.run(
            ["validate", "--schema-file", schema.to_str().unwrap()],
            empty,
        );
        run.code(3);
        assert_eq!(
            run.stderr,
            "error: <stdin> is empty: it holds no JSON document\n"
        );
    }
}

#[test]
fn a_document_nested_too_deep_is_a_clear_failure() {
    let slm = Slm::new();
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let run = slm.run(["validate", "--schema", "plan"], &deep);
    run.code(1);
    assert_eq!(
        run.stderr,
        "error: <stdin> nests deeper than 128 levels, more than this command reads (line 1, \
         column 128)\nhint: `slmcode repair` reads documents nested up to 100000 levels\n"
    );
    let schema = slm.file(
        "deep.schema.json",
        format!(
            "{}{{\"type\": \"integer\"}}{}",
            "{\"type\": \"array\", \"items\": ".repeat(200),
            "}".repeat(200)
        ),
    );
    let run = slm.run(["validate", "--schema-file", schema.to_str().unwrap()], "1");
    run.code(1);
    assert_eq!(
        run.stderr,
        format!(
            "error: schema file {} nests deeper than 128 levels, more than slmcode reads (line 1, \
             column 3430)\n",
            schema.display()
        )
    );
}

#[test]
fn a_byte_order_mark_is_ignored() {
    let slm = Slm::new();
    let document = slm.file(
        "bom.json",
        "\u{feff}{\"in_scope\": true, \"reason\": \"ok\"}\n",
    );
    slm.run(
        [
            "validate",
            "--schema",
            "scope_judge",
            document.to_str().unwrap(),
        ],
        "",
    )
    .code(0);
}

#[test]
fn a_missing_or_broken_schema_file_names_the_path() {
    let slm = Slm::new();
    let run = slm.run(["validate", "--schema-file", "nope.json"], "{}");
    run.code(1);
    assert!(
        run.stderr.contains("cannot read schema file nope.json"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("caused by: "), "{}", run.stderr);

    let broken = slm.file("broken.json", "{\"type\": ");
    let run = slm.run(
        ["validate", "--schema-file", broken.to_str().unwrap()],
        "{}",
    );
    run.code(1);
    assert!(
        run.stderr.contains("broken.json is not valid JSON"),
        "{}",
        run.stderr
    );

    let wrong = slm.file("wrong.json", r#"{"type": 12}"#);
    let run = slm.run(
        [
            "validate",
            "--json",
            "--schema-file",
            wrong.to_str().unwrap(),
        ],
        "{}",
    );
    run.code(1);
    assert_eq!(run.json()["error"]["kind"], "failure");
}

#[test]
fn usage_errors_exit_two() {
    let slm = Slm::new();
    slm.run(["validate"], "{}").code(2);
    slm.run(["no-such-command"], "").code(2);
    slm.run(["--help"], "").code(0);
}

const CONTRACT_NAMES: &str = "plan, tasks, review, tester, clarify, escalate, composition, \
                              scope_judge, worker, explore, docs, architect, coordinator, \
                              orchestrator, placeholder, lessons";

fn shipped_example(name: &str) -> std::path::PathBuf {
    crate::util::repo_root()
        .join("examples/contracts")
        .join(format!("{name}.json"))
}

#[test]
fn every_shipped_example_is_valid_against_its_contract() {
    let slm = Slm::new();
    for contract in slmcode::schema::contracts() {
        let example = shipped_example(contract.name);
        let run = slm.run(
            [
                "validate",
                "--schema",
                contract.name,
                example.to_str().unwrap(),
            ],
            "",
        );
        run.code(0);
        assert_eq!(run.stdout, "valid\n", "{}", contract.name);

        // From stdin, with `-` and without a path, and as JSON.
        let bytes = std::fs::read(&example).unwrap();
        slm.run(["validate", "--schema", contract.name, "-"], &bytes)
            .code(0);
        let run = slm.run(["validate", "--json", "--schema", contract.name], &bytes);
        run.code(0);
        assert_eq!(
            run.json(),
            json!({"valid": true, "schema": contract.name, "errors": []})
        );
    }
}

#[test]
fn a_contract_violation_is_listed_with_pointers_and_exits_five() {
    let slm = Slm::new();
    let document = r#"{"goal": "g", "steps": [{"id": "1", "title": "t", "description": "d", "files": [], "depends_on": [0]}]}"#;
    let run = slm.run(["validate", "--schema", "plan"], document);
    run.code(5);
    assert_eq!(
        run.stdout,
        "/steps/0/id: \"1\" is not of type \"integer\"\n\
         /steps/0/depends_on/0: 0 is less than the minimum of 1\n"
    );
    assert_eq!(
        run.stderr,
        "<stdin> does not satisfy the plan contract: 2 errors\n"
    );

    let run = slm.run(["validate", "--json", "--schema", "plan"], document);
    run.code(5);
    assert_eq!(
        run.json(),
        json!({
            "valid": false,
            "schema": "plan",
            "errors": [
                {"pointer": "/steps/0/id", "message": "\"1\" is not of type \"integer\""},
                {"pointer": "/steps/0/depends_on/0", "message": "0 is less than the minimum of 1"}
            ]
        })
    );

    // Each contract rejects an empty object: its required members are missing.
    for contract in slmcode::schema::contracts() {
        let run = slm.run(["validate", "--json", "--schema", contract.name], "{}");
        run.code(5);
        let errors = run.json()["errors"].as_array().unwrap().clone();
        assert!(!errors.is_empty(), "{}", contract.name);
        assert!(
            errors.iter().all(|error| error["pointer"] == ""),
            "{}: {errors:?}",
            contract.name
        );
    }
}

#[test]
fn an_unknown_role_is_a_usage_error_listing_the_contracts() {
    let slm = Slm::new();
    let run = slm.run(["validate", "--schema", "reveiw"], "{}");
    run.code(2);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!(
            "error: unknown contract `reveiw` (did you mean `review`?); the contracts are: {CONTRACT_NAMES}\n\
             hint: `slmcode schema list` shows every contract\n"
        )
    );

    let run = slm.run(["validate", "--json", "--schema", "deploy"], "{}");
    run.code(2);
    assert_eq!(
        run.json()["error"],
        json!({
            "kind": "usage",
            "exit_code": 2,
            "message": format!("unknown contract `deploy`; the contracts are: {CONTRACT_NAMES}"),
            "causes": [],
            "hint": "`slmcode schema list` shows every contract"
        })
    );
}

#[test]
fn exactly_one_of_schema_and_schema_file_is_required() {
    let slm = Slm::new();
    let schema = slm.file("schema.json", SCHEMA);
    let run = slm.run(
        [
            "validate",
            "--schema",
            "plan",
            "--schema-file",
            schema.to_str().unwrap(),
        ],
        "{}",
    );
    run.code(2);
    assert!(
        run.stderr.starts_with(
            "error: the argument '--schema <CONTRACT>' cannot be used with '--schema-file <FILE>'"
        ),
        "{}",
        run.stderr
    );
    let run = slm.run(["validate"], "{}");
    run.code(2);
    assert!(
        run.stderr.starts_with(
            "error: the following required arguments were not provided:\n  <--schema <CONTRACT>|--schema-file <FILE>>"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn a_contract_with_bad_input_fails_clearly() {
    let slm = Slm::new();
    let run = slm.run(["validate", "--schema", "plan", "missing.json"], "");
    run.code(1);
    assert_eq!(
        run.stderr,
        "error: cannot read missing.json\n  caused by: No such file or directory (os error 2)\n"
    );

    let run = slm.run(
        ["validate", "--schema", "scope_judge"],
        "I think it is in scope.",
    );
    run.code(3);
    assert!(
        run.stderr.starts_with(
            "error: <stdin> is not JSON\n  caused by: expected value at line 1 column 1\n"
        ),
        "{}",
        run.stderr
    );

    let run = slm.run(
        ["validate", "--schema", "scope_judge"],
        r#"{"reason": "it is"#,
    );
    run.code(4);
    assert!(
        run.stderr
            .starts_with("error: <stdin> ends before the JSON document does\n  caused by: "),
        "{}",
        run.stderr
    );
}

#[test]
fn a_schema_file_that_does_not_compile_names_the_place() {
    let slm = Slm::new();
    let wrong = slm.file(
        "wrong.json",
        r#"{"type": "object", "properties": {"a": {"type": 12}}}"#,
    );
    let run = slm.run(["validate", "--schema-file", wrong.to_str().unwrap()], "{}");
    run.code(1);
    assert_eq!(
        run.stderr,
        format!(
            "error: schema file {}\n  caused by: invalid schema at /properties/a/type: 12 is not valid under any of the schemas listed in the 'anyOf' keyword\n",
            wrong.display()
        )
    );
}
