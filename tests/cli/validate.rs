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
        run.stderr
            .starts_with("error: <stdin> is not JSON: expected value at line 1 column 1"),
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
