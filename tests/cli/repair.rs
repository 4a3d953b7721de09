use serde_json::{Value, json};

use crate::util::{Slm, repo_root};

const PERSON_SCHEMA: &str = r#"{
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"]
}"#;

#[test]
fn the_shipped_small_model_answer_repairs_against_the_plan_contract() {
    let slm = Slm::new();
    let example = repo_root().join("examples/small-model-answer.txt");
    let run = slm.run(
        ["repair", "--schema", "plan", example.to_str().unwrap()],
        "",
    );
    run.code(0);
    let value: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(value["steps"][1]["id"], json!(2));
    assert_eq!(value["steps"][0]["files"], json!(["src/config/values.rs"]));
    assert!(run.stdout.starts_with("{\"goal\":\"Let users override"));
    assert!(run.stdout.ends_with("}]}\n"));
    assert_eq!(
        run.stderr,
        "repaired at rung coerce (changed: fence, trailing_comma, coerce); coerced /steps/1/id string_to_integer\n"
    );
}

#[test]
fn valid_input_passes_through_silently() {
    let slm = Slm::new();
    let run = slm.run(["repair"], "{\"a\": [1, 2], \"b\": \"x\"}\n");
    run.code(0);
    assert_eq!(run.stdout, "{\"a\":[1,2],\"b\":\"x\"}\n");
    assert_eq!(run.stderr, "");
}

#[test]
fn the_rung_note_is_one_line_and_quiet_silences_it() {
    let slm = Slm::new();
    let input = "Here you go:\n```json\n{'a': True, 'b': [1, 2,],}\n```";
    let run = slm.run(["repair"], input);
    run.code(0);
    assert_eq!(run.stdout, "{\"a\":true,\"b\":[1,2]}\n");
    assert_eq!(
        run.stderr,
        "repaired at rung python_bools (changed: fence, trailing_comma, quotes, python_bools)\n"
    );
    let run = slm.run(["repair", "-q"], input);
    run.code(0);
    assert_eq!(run.stdout, "{\"a\":true,\"b\":[1,2]}\n");
    assert_eq!(run.stderr, "");
}

#[test]
fn pretty_prints_indented_json() {
    let slm = Slm::new();
    let run = slm.run(["repair", "--pretty"], "{a: [1, {b: null}], c: {}}");
    run.code(0);
    assert_eq!(
        run.stdout,
        "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {}\n}\n"
    );
}

#[test]
fn truncated_input_exits_four_with_the_complete_members() {
    let slm = Slm::new();
    let schema = slm.file("person.schema.json", PERSON_SCHEMA);
    let run = slm.run(
        ["repair", "--schema-file", schema.to_str().unwrap()],
        "{\"name\": \"Ada\", \"age\": 3",
    );
    run.code(4);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: <stdin>: the JSON document is cut off inside a number (line 1, column 24)\n  \
         complete members: name\n  missing required: age\n\
         hint: the answer ran out of tokens: raise max_tokens, or re-ask for the complete answer\n"
    );
}

#[test]
fn answers_without_json_exit_three() {
    let slm = Slm::new();
    for (input, message) in [
        ("", "the input is empty"),
        (
            "I'm sorry, I can't do that.",
            "the input holds no JSON object or array",
        ),
        (
            "<think>hmm</think>",
            "the input holds only a reasoning block",
        ),
    ] {
        let run = slm.run(["repair"], input);
        run.code(3);
        assert_eq!(
            run.stderr,
            format!(
                "error: <stdin>: {message}\nhint: the model answered without JSON: re-ask for only one JSON object\n"
            )
        );
    }
    let run = slm.run(["repair"], "{\"a\": ]");
    run.code(3);
    assert_eq!(
        run.stderr,
        "error: <stdin>: the JSON document is malformed: expected a value (line 1, column 7)\n\
         hint: the model's JSON is broken beyond repair: re-ask for only one JSON object\n"
    );
}

#[test]
fn schema_violations_exit_five_with_every_error() {
    let slm = Slm::new();
    let schema = slm.file("person.schema.json", PERSON_SCHEMA);
    let run = slm.run(
        ["repair", "--schema-file", schema.to_str().unwrap()],
        "{'name': 'Ada', 'age': 'thirty-six'}",
    );
    run.code(5);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: <stdin>: the JSON does not satisfy the schema: 1 violation\n  \
         /age: \"thirty-six\" is not of type \"integer\"\n\
         hint: the answer does not satisfy the schema: re-ask with the validation errors, or check the schema with `slmcode validate`\n"
    );
}

#[test]
fn the_json_report_on_success() {
    let slm = Slm::new();
    let schema = slm.file("person.schema.json", PERSON_SCHEMA);
    let run = slm.run(
        [
            "repair",
            "--json",
            "--schema-file",
            schema.to_str().unwrap(),
        ],
        "```json\n{\"name\": \"Ada\", \"age\": \"36\"}\n```",
    );
    run.code(0);
    assert_eq!(
        run.json(),
        json!({
            "ok": true,
            "rung": "coerce",
            "rungs": ["fence", "coerce"],
            "coercions": [{"pointer": "/age", "kind": "string_to_integer", "from": "\"36\"", "to": "36"}],
            "value": {"name": "Ada", "age": 36},
            "class": null,
            "message": null,
            "errors": [],
            "partial": null,
            "missing_required": [],
            "repetition": null,
            "dropped": 0
        })
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn the_json_report_on_failure_keeps_the_exit_code() {
    let slm = Slm::new();
    let schema = slm.file("person.schema.json", PERSON_SCHEMA);
    let schema = schema.to_str().unwrap();
    let run = slm.run(
        ["repair", "--json", "--schema-file", schema],
        "{\"name\": 'Ada', \"age\": [3",
    );
    run.code(4);
    assert_eq!(
        run.json(),
        json!({
            "ok": false,
            "rung": null,
            "rungs": ["quotes"],
            "coercions": [],
            "value": null,
            "class": "truncated",
            "message": "the JSON document is cut off inside a number (line 1, column 25)",
            "errors": [],
            "partial": {"name": "Ada"},
            "missing_required": ["age"],
            "repetition": null,
            "dropped": 0
        })
    );
    let run = slm.run(
        ["repair", "--json", "--schema-file", schema],
        "{\"name\": 7, \"age\": 1.5}",
    );
    run.code(5);
    let report = run.json();
    assert_eq!(report["class"], json!("wrong_shape"));
    assert_eq!(report["value"], json!({"name": "7", "age": 1.5}));
    assert_eq!(report["rungs"], json!(["coerce"]));
    assert_eq!(
        report["errors"],
        json!([{"pointer": "/age", "message": "1.5 is not of type \"integer\""}])
    );
    let run = slm.run(["repair", "--json"], "nothing");
    run.code(3);
    assert_eq!(run.json()["class"], json!("prose"));
}

#[test]
fn finish_reason_length_is_always_truncated() {
    let slm = Slm::new();
    let run = slm.run(["repair", "--finish-reason", "length"], "{\"a\": 1}");
    run.code(4);
    assert_eq!(
        run.stderr,
        "error: <stdin>: the server stopped on length (finish_reason: length): the answer may be incomplete\n  \
         complete members: a\n\
         hint: the answer ran out of tokens: raise max_tokens, or re-ask for the complete answer\n"
    );
    let run = slm.run(["repair", "--finish-reason", "stop"], "{\"a\": 1}");
    run.code(0);
    let run = slm.run(["repair", "--finish-reason", "tired"], "{\"a\": 1}");
    run.code(2);
}

#[test]
fn schema_none_and_unknown_roles() {
    let slm = Slm::new();
    let run = slm.run(["repair", "--schema", "none"], "[1,]");
    run.code(0);
    assert_eq!(run.stdout, "[1]\n");
    let run = slm.run(["repair", "--schema", "plam"], "[1]");
    run.code(2);
    assert!(
        run.stderr
            .starts_with("error: unknown contract `plam` (did you mean `plan`?)"),
        "{}",
        run.stderr
    );
    let bad = slm.file("bad.json", "{\"type\": 12}");
    let run = slm.run(["repair", "--schema-file", bad.to_str().unwrap()], "[1]");
    run.code(1);
    assert!(run.stderr.starts_with("error: schema "), "{}", run.stderr);
}

#[test]
fn a_file_argument_and_dash_read_the_same() {
    let slm = Slm::new();
    let file = slm.file("answer.txt", "{'a': 1}");
    let run = slm.run(["repair", "-q", file.to_str().unwrap()], "");
    run.code(0);
    assert_eq!(run.stdout, "{\"a\":1}\n");
    let run = slm.run(["repair", "-q", "-"], "{'a': 1}");
    assert_eq!(run.stdout, "{\"a\":1}\n");
    let run = slm.run(["repair", "missing.txt"], "");
    run.code(1);
}

#[test]
fn every_run_is_counted_in_the_stats_file() {
    let slm = Slm::new();
    slm.run(["repair"], "{\"a\": 1}").code(0);
    slm.run(["repair"], "```json\n[1,]\n```").code(0);
    slm.run(["repair"], "[1, 2").code(4);
    let stats: Value = serde_json::from_str(
        &std::fs::read_to_string(slm.config_dir().join("repair-stats.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        stats,
        json!({
            "version": 1,
            "total": 3,
            "outcomes": {"repaired": 2, "truncated": 1},
            "rungs": {"none": 1, "trailing_comma": 1},
            "changed": {"fence": 1, "trailing_comma": 1}
        })
    );
}

#[test]
fn an_unwritable_stats_file_is_a_warning() {
    let mut slm = Slm::new();
    let blocker = slm.file("not-a-directory", "");
    slm.env("SLMCODE_CONFIG_DIR", blocker.to_str().unwrap());
    let run = slm.run(["repair"], "[1,]");
    run.code(0);
    assert_eq!(run.stdout, "[1]\n");
    assert!(
        run.stderr.contains("warning: cannot read") || run.stderr.contains("warning: cannot write"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("this run is not counted"),
        "{}",
        run.stderr
    );
}

#[test]
fn invalid_utf8_is_replaced_with_a_warning() {
    let slm = Slm::new();
    let run = slm.run(["repair"], b"{\"a\": \"caf\xe9\"}".as_slice());
    run.code(0);
    assert_eq!(run.stdout, "{\"a\":\"caf\u{fffd}\"}\n");
    assert_eq!(
        run.stderr,
        "warning: <stdin> is not valid UTF-8: invalid bytes were replaced with U+FFFD\n"
    );
}

#[test]
fn ten_thousand_levels_through_the_binary() {
    let slm = Slm::new();
    let depth = 10_000;
    let document = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    let run = slm.run(["repair"], format!("```json\n{document}\n```"));
    run.code(0);
    assert_eq!(run.stdout, format!("{document}\n"));
    // The report is indented (its size grows with the square of the depth) and read back here
    // with serde_json, which stops at 128 levels: 2,000 levels, checked as text.
    let shallower = format!("{}{}", "[".repeat(2_000), "]".repeat(2_000));
    let run = slm.run(["repair", "--json"], &shallower);
    run.code(0);
    assert!(
        run.stdout
            .starts_with("{\n  \"ok\": true,\n  \"rung\": \"none\",")
    );
    // The value's openers, and the report's four empty lists.
    assert_eq!(run.stdout.matches('[').count(), 2_000 + 4);
    let too_deep = "[".repeat(1_000_000);
    let run = slm.run(["repair"], &too_deep);
    run.code(3);
    assert!(
        run.stderr
            .contains("nested too deep: more than 100000 levels"),
        "{}",
        run.stderr
    );
}

#[test]
fn record_stats_off_counts_nothing() {
    let mut slm = Slm::new();
    let stats = slm.config_dir().join("repair-stats.json");
    slm.run(["repair", "--record-stats", "false"], "[1,]")
        .code(0);
    assert!(!stats.exists());
    std::fs::write(
        slm.config_dir().join("config.toml"),
        "record_stats = false\n",
    )
    .unwrap();
    slm.run(["repair"], "[1,]").code(0);
    assert!(!stats.exists());
    slm.run(["repair", "--record-stats", "yes"], "[1,]").code(0);
    assert!(stats.exists());
    std::fs::remove_file(&stats).unwrap();
    std::fs::remove_file(slm.config_dir().join("config.toml")).unwrap();
    slm.env("SLMCODE_RECORD_STATS", "0");
    slm.run(["repair"], "[1,]").code(0);
    assert!(!stats.exists());
    let run = slm.run(["repair", "--record-stats", "maybe"], "[1,]");
    run.code(2);
    assert_eq!(run.stdout, "");
}

#[test]
fn a_looping_answer_cut_at_the_budget_exits_7_not_4() {
    let slm = Slm::new();
    let looped = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/loops/worker-flag.txt"),
    )
    .unwrap();
    let run = slm.run(["repair", "--schema", "worker", "--json"], &looped);
    run.code(7);
    let report = run.json();
    assert_eq!(report["class"], "repetition");
    assert_eq!(report["repetition"]["kind"], "repeated_member");
    assert!(
        report["repetition"]["unit"]
            .as_str()
            .unwrap()
            .contains("\"path\": \"src/cli.rs\""),
        "{report}"
    );
    let plain = slm.run(["repair", "--schema", "worker"], &looped);
    plain.code(7);
    assert!(
        plain.stderr.contains("hint: the model fell into a loop"),
        "{}",
        plain.stderr
    );
}

#[test]
fn further_top_level_values_are_dropped_and_said_or_chosen_by_the_schema() {
    let slm = Slm::new();
    let ndjson = "{\"name\": \"Ada\"}\n{\"name\": \"Bob\", \"age\": 41}\n";
    let run = slm.run(["repair"], ndjson);
    run.code(0);
    assert_eq!(run.stdout, "{\"name\":\"Ada\"}\n");
    assert_eq!(
        run.stderr,
        "repaired at rung extract (changed: extract); 1 more top-level value dropped\n"
    );
    let run = slm.run(["repair", "--json"], ndjson);
    run.code(0);
    assert_eq!(run.json()["dropped"], json!(1));
    // The first does not satisfy the schema, the second does: it is the answer.
    let schema = slm.file("person.schema.json", PERSON_SCHEMA);
    let run = slm.run(
        [
            "repair",
            "--json",
            "--schema-file",
            schema.to_str().unwrap(),
        ],
        ndjson,
    );
    run.code(0);
    let report = run.json();
    assert_eq!(report["value"], json!({"name": "Bob", "age": 41}));
    assert_eq!(report["dropped"], json!(1));
    assert_eq!(report["rungs"], json!(["extract"]));
    // A schema that asks for an array collects them all.
    let list = slm.file(
        "list.schema.json",
        r#"{"type": "array", "items": {"type": "object", "required": ["name"]}}"#,
    );
    let run = slm.run(
        ["repair", "--json", "--schema-file", list.to_str().unwrap()],
        ndjson,
    );
    run.code(0);
    let report = run.json();
    assert_eq!(
        report["value"],
        json!([{"name": "Ada"}, {"name": "Bob", "age": 41}])
    );
    assert_eq!(report["dropped"], json!(0));
    // Neither satisfies the schema: the first one's errors.
    let run = slm.run(
        ["repair", "--schema-file", schema.to_str().unwrap()],
        "{\"name\": 1}\n{\"age\": 2}",
    );
    run.code(5);
    assert!(
        run.stderr.contains("\"age\" is a required property"),
        "{}",
        run.stderr
    );
}
