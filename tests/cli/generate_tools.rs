//! `slmcode generate --tools` through the real binary against the engine emulator: the call on
//! stdout, `--json` decoded back, each `--tool-choice`, what the server received, and the exit
//! code and class of each failure.

use serde_json::{Value, json};

use crate::emulator::{Emulator, Profile};
use crate::util::{Slm, repo_root, slm_for};

fn tools_file() -> String {
    repo_root()
        .join("examples/tools.json")
        .display()
        .to_string()
}

fn generate(extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "generate".to_owned(),
        "--tools".to_owned(),
        tools_file(),
        "--prompt".to_owned(),
        "read the README".to_owned(),
    ];
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    args
}

fn tool_names() -> Vec<String> {
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(tools_file()).unwrap()).unwrap();
    file["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["function"]["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn required_prints_one_call_with_an_id_and_sends_the_constraint_not_native_tools() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let run = slm.run(generate(&[]), "");
    run.code(0);
    let output = run.json();
    let calls = output["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1);
    assert!(tool_names().contains(&calls[0]["name"].as_str().unwrap().to_owned()));
    assert!(calls[0]["id"].as_str().unwrap().starts_with("call_"));
    assert!(calls[0]["arguments"].is_object());
    assert_eq!(output["content"], Value::Null);
    let keys: Vec<&String> = output.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["tool_calls", "content"]);
    let body = emulator.chat_bodies().pop().unwrap();
    assert!(body.get("tools").is_none(), "{body}");
    assert!(body.get("grammar").is_some(), "{body}");
    assert!(
        body["messages"][0]["content"]
            .as_str()
            .unwrap()
            .starts_with("You can call these tools:\n- read_file: ")
    );
}

#[test]
fn json_puts_the_calls_under_value_beside_the_meta() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let json = slm
        .run(generate(&["--tool-choice", "read_file", "--json"]), "")
        .code(0)
        .json();
    let call = &json["value"]["tool_calls"][0];
    assert_eq!(call["name"], "read_file");
    assert_eq!(call["origin"], json!({"text": "bare"}));
    assert_eq!(call["rung"], "none");
    let tools = &json["meta"]["tools"];
    assert_eq!(tools["choice"], json!({"name": "read_file"}));
    assert_eq!(tools["policy"], "constrained");
    assert_eq!(tools["carried"], "constraint");
    assert_eq!(tools["dropped_calls"], 0);
    assert!(tools["key"].as_str().unwrap().starts_with("sha256:"));
}

#[test]
fn none_sends_no_tools_and_prints_the_text_as_content() {
    let emulator = Emulator::start(Profile::llama_server());
    emulator.answers(["The README explains slmcode."]);
    let mut slm = slm_for(&emulator, "llamacpp");
    slm.env("SLMCODE_STRUCTURED_DECODING", "off");
    let run = slm.run(generate(&["--tool-choice", "none"]), "");
    run.code(0);
    assert_eq!(
        run.stdout,
        "{\"tool_calls\":[],\"content\":\"The README explains slmcode.\"}\n"
    );
    let body = emulator.chat_bodies().pop().unwrap();
    assert!(body.get("tools").is_none() && body.get("tool_choice").is_none());
}

#[test]
fn auto_unconstrained_extracts_a_call_written_as_text() {
    let emulator = Emulator::start(Profile::llama_server());
    emulator.answers([
        "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\",}}\n</tool_call>",
    ]);
    let mut slm = slm_for(&emulator, "llamacpp");
    slm.env("SLMCODE_STRUCTURED_DECODING", "off");
    let run = slm.run(generate(&["--tool-choice", "auto", "--pretty"]), "");
    run.code(0);
    let output = run.json();
    assert_eq!(
        output["tool_calls"][0]["arguments"],
        json!({"path": "README.md"})
    );
    assert!(
        run.stdout.starts_with("{\n  \"tool_calls\": ["),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("read_file: repaired (rung"),
        "{}",
        run.stderr
    );
    let body = emulator.chat_bodies().pop().unwrap();
    assert_eq!(body["tool_choice"], "auto");
}

#[test]
fn an_unknown_tool_exits_5_with_its_class() {
    let emulator = Emulator::start(Profile::llama_server());
    emulator.answers(["{\"name\": \"rm_rf\", \"arguments\": {}}"]);
    let mut slm = slm_for(&emulator, "llamacpp");
    slm.env("SLMCODE_STRUCTURED_DECODING", "off");
    let run = slm.run(generate(&["--reask", "0", "--json"]), "");
    run.code(5);
    let error = &run.json()["error"];
    assert_eq!(error["class"], "unknown_tool");
    assert_eq!(error["kind"], "schema_violation");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("\"rm_rf\", which is not one of the tools"),
        "{error}"
    );
    assert!(
        error["hint"]
            .as_str()
            .unwrap()
            .contains("a tool the file does not have")
    );
}

#[test]
fn bad_arguments_exit_5_with_the_errors_and_prose_exits_3() {
    let emulator = Emulator::start(Profile::llama_server());
    emulator.answers([
        "{\"name\": \"read_file\", \"arguments\": {\"path\": {\"x\": 1}}}",
        "I would rather not call anything.",
    ]);
    let mut slm = slm_for(&emulator, "llamacpp");
    slm.env("SLMCODE_STRUCTURED_DECODING", "off");
    let bad = slm.run(generate(&["--reask", "0", "--json"]), "");
    bad.code(5);
    let error = &bad.json()["error"];
    assert_eq!(error["class"], "invalid_arguments");
    assert_eq!(error["errors"][0]["pointer"], "/path");
    let prose = slm.run(generate(&["--reask", "0"]), "");
    prose.code(3);
    assert!(
        prose.stderr.contains("without a tool call"),
        "{}",
        prose.stderr
    );
}

#[test]
fn tool_choice_needs_tools_and_a_name_in_the_file() {
    let slm = Slm::new();
    slm.run(
        [
            "generate",
            "--schema",
            "plan",
            "--tool-choice",
            "auto",
            "--prompt",
            "x",
        ],
        "",
    )
    .code(2);
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let run = slm.run(generate(&["--tool-choice", "launch_rocket"]), "");
    run.code(2);
    assert!(run.stderr.contains("launch_rocket"), "{}", run.stderr);
    assert_eq!(emulator.chat_count(), 0, "nothing sent");
}

#[test]
fn a_tools_file_at_fault_is_named_as_tools_compile_names_it() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let choice = slm.file(
        "choice.json",
        r#"{"tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
            "tool_choice": {"type": "function", "function": {"name": "nope"}}}"#,
    );
    let never = slm.file(
        "never.json",
        r#"[{"name": "a", "parameters": {"type": "object", "properties": {"x": false}, "required": ["x"]}}]"#,
    );
    for (file, caused_by) in [
        (
            &choice,
            "tool_choice names \"nope\", which is not one of the tools (f)\n",
        ),
        (&never, "tool a: /properties/x: the schema is `false`"),
    ] {
        let run = slm.run(
            [
                "generate",
                "--tools",
                file.to_str().unwrap(),
                "--prompt",
                "x",
            ],
            "",
        );
        run.code(1);
        assert!(
            run.stderr.starts_with(&format!(
                "error: tools file {}\n  caused by: {caused_by}",
                file.display()
            )),
            "{}",
            run.stderr
        );
        assert!(!run.stderr.contains("do not compile"), "{}", run.stderr);
        if file == &choice {
            assert_eq!(emulator.chat_count(), 0, "nothing sent");
        }
    }
}

#[test]
fn beside_a_schema_the_default_is_auto_and_an_answer_is_the_validated_value() {
    let emulator = Emulator::start(Profile::llama_server());
    emulator.answers(["{\"reason\": \"Docs are in scope.\", \"in_scope\": true,}"]);
    let mut slm = slm_for(&emulator, "llamacpp");
    slm.env("SLMCODE_STRUCTURED_DECODING", "off");
    let run = slm.run(generate(&["--schema", "scope_judge"]), "");
    run.code(0);
    assert_eq!(
        run.json(),
        json!({"tool_calls": [], "content": {"reason": "Docs are in scope.", "in_scope": true}})
    );
    let body = emulator.chat_bodies().pop().unwrap();
    assert_eq!(body["tool_choice"], "auto");
}

#[test]
fn a_truncated_call_says_what_the_last_request_had_as_an_answer_would() {
    let emulator = Emulator::start(Profile::llama_server());
    let call =
        "{\"name\": \"read_file\", \"arguments\": {\"path\": \"a/long/path/to/the/README.md\"}}";
    emulator.answers([call, call]);
    let slm = slm_for(&emulator, "llamacpp");
    let run = slm.run(
        generate(&["--max-tokens", "12", "--reask", "1", "--json"]),
        "",
    );
    run.code(4);
    let error = &run.json()["error"];
    assert_eq!(error["class"], "truncated");
    assert_eq!(
        error["hint"],
        "the answer ran out of tokens (the last request had 24): raise --max-tokens"
    );
}
