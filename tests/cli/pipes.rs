//! A reader that closes stdout early (`slmcode ... | head -c1`) is not an error: no error is
//! reported on stderr, and the command still exits with its own verdict. And `-` as a schema
//! file reads the schema from stdin.

use crate::util::Slm;

#[test]
fn a_closed_stdout_keeps_the_verdict_and_is_no_error() {
    let slm = Slm::new();
    let plan =
        std::fs::read_to_string(crate::util::repo_root().join("examples/contracts/plan.json"))
            .unwrap();
    let not_a_plan = r#"{"goal": "x", "steps": []}"#;
    let broken = "Sure:\n```json\n{\"a\": 1,}\n```";
    let rows: &[(&[&str], &str, i32)] = &[
        (&["schema", "match", "plan"], &plan, 0),
        (&["schema", "match", "plan"], not_a_plan, 5),
        (&["--json", "schema", "match", "plan"], not_a_plan, 5),
        (&["validate", "--schema", "plan"], &plan, 0),
        (&["validate", "--schema", "plan"], not_a_plan, 5),
        (&["--json", "validate", "--schema", "plan"], not_a_plan, 5),
        (&["repair"], broken, 0),
        (&["repair", "--pretty"], broken, 0),
        (&["--json", "repair"], broken, 0),
        (&["--json", "repair", "--schema", "plan"], not_a_plan, 5),
        (&["--json", "repair"], "{\"a\": [1, 2", 4),
        (&["--json", "repair"], "no JSON here", 3),
    ];
    for (args, input, code) in rows {
        let run = slm.run_with_stdout_closed(*args, input);
        run.code(*code);
        assert!(
            !run.stderr.lines().any(|line| line.starts_with("error:")),
            "{args:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_schema_file_can_come_from_stdin_unless_the_document_does() {
    let slm = Slm::new();
    let schema = r#"{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"], "additionalProperties": false}"#;
    let document = slm.file("doc.json", r#"{"a": "1"}"#);
    let document = document.to_str().unwrap();

    let run = slm.run(["schema", "check", "-"], schema);
    run.code(0);
    let run = slm.run(["schema", "gbnf", "--file", "-"], schema);
    run.code(0);
    assert!(run.stdout.starts_with("root ::= "), "{}", run.stdout);
    slm.run(["validate", "--schema-file", "-", document], schema)
        .code(5);
    let run = slm.run(["repair", "--schema-file", "-", document], schema);
    run.code(0);
    assert_eq!(run.stdout, "{\"a\":1}\n");
    slm.run(["schema", "match", "--file", "-", document], schema)
        .code(5);

    let run = slm.run(["schema", "check", "-"], "{\"type\": ");
    run.code(1);
    assert!(
        run.stderr
            .starts_with("error: schema file <stdin> is not valid JSON: "),
        "{}",
        run.stderr
    );
    for args in [
        &["validate", "--schema-file", "-"][..],
        &["validate", "--schema-file", "-", "-"],
        &["repair", "--schema-file", "-"],
        &["schema", "match", "--file", "-"],
    ] {
        let run = slm.run(args, schema);
        run.code(2);
        assert_eq!(
            run.stderr,
            "error: the schema and the document cannot both be read from stdin\n\
             hint: give the document as a file argument\n",
            "{args:?}"
        );
    }
}
