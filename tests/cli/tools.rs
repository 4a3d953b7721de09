//! `slmcode tools compile` and `slmcode tools extract` through the real binary.

use serde_json::{Value, json};

use crate::util::{Slm, repo_root};

fn fixture(name: &str) -> String {
    repo_root()
        .join("tests/fixtures/tools")
        .join(name)
        .display()
        .to_string()
}

fn branch_names(schema: &Value) -> Vec<String> {
    schema["oneOf"]
        .as_array()
        .expect("a oneOf")
        .iter()
        .map(|branch| {
            branch["properties"]["name"]["const"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[test]
fn compile_prints_the_schema_and_the_key_on_stderr() {
    let slm = Slm::new();
    let run = slm.run(["tools", "compile", &fixture("coding_agent.json")], "");
    run.code(0);
    assert_eq!(
        branch_names(&run.json()),
        [
            "edit_file",
            "list_directory",
            "read_file",
            "run_command",
            "search",
            "write_file"
        ]
    );
    let first = run.stderr.lines().next().unwrap();
    assert!(
        first.starts_with("key: sha256:") && first.len() == 12 + 64,
        "{first}"
    );
}

#[test]
fn compile_json_reports_policy_notes_and_file_pointers() {
    let slm = Slm::new();
    let run = slm.run(["tools", "compile", &fixture("messy.json"), "--json"], "");
    run.code(0);
    let report = run.json();
    assert_eq!(report["policy"], "constrained");
    assert_eq!(report["choice"], "required");
    assert_eq!(report["format"], "json-schema");
    assert_eq!(report["branches"].as_array().unwrap().len(), 6);
    assert!(report["grammar"].as_str().unwrap().starts_with("root ::= "));
    assert_eq!(report["request"], Value::Null);
    let notes = report["notes"].as_array().unwrap();
    let email = notes
        .iter()
        .find(|note| {
            note["tool"] == "create_issue"
                && note["keyword"] == "format"
                && note["pointer"] == "/properties/assignee_email"
        })
        .expect("the format note");
    assert_eq!(
        email["file_pointer"],
        "/0/function/parameters/properties/assignee_email"
    );
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn compile_gbnf_is_a_grammar_the_recognizer_runs() {
    let slm = Slm::new();
    let run = slm.run(
        [
            "tools",
            "compile",
            &fixture("coding_agent.json"),
            "--format",
            "gbnf",
        ],
        "",
    );
    run.code(0);
    let grammar = slmcode::schema::gbnf::parse(&run.stdout).expect("GBNF");
    grammar
        .recognize(r#"{"name": "run_command", "arguments": {"command": "ls", "args": ["-l"]}}"#)
        .unwrap();
    assert!(
        grammar
            .recognize(r#"{"name": "rm", "arguments": {}}"#)
            .is_err()
    );
}

#[test]
fn a_named_tool_compiles_to_its_branch() {
    let slm = Slm::new();
    let run = slm.run(
        [
            "tools",
            "compile",
            &fixture("coding_agent.json"),
            "--tool-choice",
            "search",
            "--json",
        ],
        "",
    );
    run.code(0);
    let report = run.json();
    assert_eq!(report["choice"], json!({"name": "search"}));
    assert_eq!(report["branches"], json!(["search"]));
    assert_eq!(
        report["schema"]["properties"]["name"],
        json!({"const": "search"})
    );
    let object_form = slm.run(
        [
            "tools",
            "compile",
            &fixture("coding_agent.json"),
            "--tool-choice",
            r#"{"type":"function","function":{"name":"search"}}"#,
            "--json",
        ],
        "",
    );
    assert_eq!(object_form.json()["key"], report["key"]);
}

#[test]
fn auto_none_and_the_answer_shape() {
    let slm = Slm::new();
    let tools = fixture("coding_agent.json");
    let auto = slm.run(["tools", "compile", &tools, "--tool-choice", "auto"], "");
    auto.code(0);
    assert_eq!(auto.stdout, "");
    assert!(
        auto.stderr.contains(
            "no JSON Schema: tool_choice auto: the output is one tool call or a plain-text answer"
        ),
        "{}",
        auto.stderr
    );
    let grammar = slm.run(
        [
            "tools",
            "compile",
            &tools,
            "--tool-choice",
            "auto",
            "--format",
            "gbnf",
        ],
        "",
    );
    grammar.code(0);
    assert!(
        grammar
            .stdout
            .starts_with("root ::= tool-call | answer-text\n"),
        "{}",
        grammar.stdout
    );
    let answer = slm.run(
        [
            "tools",
            "compile",
            &tools,
            "--tool-choice",
            "auto",
            "--answer",
        ],
        "",
    );
    answer.code(0);
    let schema = answer.json();
    let branches = schema["oneOf"].as_array().unwrap();
    assert_eq!(branches.len(), 7);
    assert_eq!(branches[6]["required"], json!(["answer"]));
    let none = slm.run(
        [
            "tools",
            "compile",
            &tools,
            "--tool-choice",
            "none",
            "--json",
        ],
        "",
    );
    none.code(0);
    let report = none.json();
    assert_eq!(report["policy"], "no_tools");
    assert_eq!(report["schema"], Value::Null);
    let ignored = slm.run(["tools", "compile", &tools, "--answer"], "");
    ignored.code(0);
    assert!(
        ignored.stderr.contains(
            "warning: an answer shape only applies under tool_choice auto, not required; ignored"
        ),
        "{}",
        ignored.stderr
    );
}

#[test]
fn the_files_own_tool_choice_is_the_default() {
    let slm = Slm::new();
    let tools = fixture("anthropic.json");
    let run = slm.run(["tools", "compile", &tools, "--json"], "");
    run.code(0);
    assert_eq!(
        run.json()["choice"],
        "required",
        "{{\"type\": \"any\"}} in the file"
    );
    let body = slm.file(
        "body.json",
        r#"{"tool_choice": "none", "tools": [{"name": "a"}]}"#,
    );
    let run = slm.run(["tools", "compile", body.to_str().unwrap(), "--json"], "");
    assert_eq!(run.json()["policy"], "no_tools");
}

#[test]
fn the_same_tools_in_another_form_share_the_key() {
    let slm = Slm::new();
    let anthropic = slm.run(
        ["tools", "compile", &fixture("anthropic.json"), "--json"],
        "",
    );
    let openai = slm.file(
        "openai.json",
        r#"[
          {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {"timezone": {"type": "string", "description": "The IANA time zone name, e.g. America/Los_Angeles"}}, "required": ["timezone"]}}},
          {"type": "function", "function": {"name": "get_weather", "description": "other words", "parameters": {"required": ["location"], "type": "object", "properties": {"location": {"type": "string", "description": "The city and state, e.g. San Francisco, CA"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "The unit of temperature"}}}}}
        ]"#,
    );
    let converted = slm.run(["tools", "compile", openai.to_str().unwrap(), "--json"], "");
    assert_eq!(anthropic.json()["key"], converted.json()["key"]);
    assert_eq!(anthropic.json()["grammar"], converted.json()["grammar"]);
}

#[test]
fn bad_tool_files_name_the_place_and_exit_1() {
    let slm = Slm::new();
    let cases = [
        (
            r#"{"tools": [{"type": "function", "function": {"name": "a"}}, {"type": "function", "function": {"description": "x"}}]}"#,
            "error: tools file bad.json\n  caused by: /tools/1/function/name: missing",
        ),
        (
            r#"[{"name": "a"}, {"name": "a"}]"#,
            r#"error: tools file bad.json
  caused by: /1/name: duplicate tool name "a" (first at /0); a call names its tool, so names must be unique"#,
        ),
        (
            r#"[{"name": "a", "parameters": {"type": "object", "properties": {"n": {"type": "integr"}}}}]"#,
            "error: tools file bad.json\n  caused by: /0/parameters/properties/n/type: not a valid JSON Schema",
        ),
        (
            r#"{"tools": [{"name": "a", "input_schema": "object"}]}"#,
            "error: tools file bad.json\n  caused by: /tools/0/input_schema: must be a JSON Schema object, found a string",
        ),
        (
            r#"[{"name": "a",]"#,
            "error: tools file bad.json is not valid JSON\n  caused by: ",
        ),
    ];
    for (contents, expected) in cases {
        slm.file("bad.json", contents);
        for command in ["compile", "extract"] {
            let run = slm.run(["tools", command, "bad.json"], "{}");
            run.code(1);
            assert!(
                run.stderr.starts_with(expected),
                "{command} {contents}\nexpected: {expected}\n     got: {}",
                run.stderr
            );
        }
    }
    let missing = slm.run(["tools", "compile", "nowhere.json"], "");
    missing.code(1);
    assert!(
        missing
            .stderr
            .starts_with("error: cannot read tools file nowhere.json\n  caused by: "),
        "{}",
        missing.stderr
    );
}

#[test]
fn a_compile_error_a_file_causes_names_the_file() {
    let slm = Slm::new();
    slm.file(
        "choice.json",
        r#"{"tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
            "tool_choice": {"type": "function", "function": {"name": "nope"}}}"#,
    );
    slm.file(
        "never.json",
        r#"[{"name": "a", "parameters": {"type": "object", "properties": {"x": false}, "required": ["x"]}}]"#,
    );
    slm.file("answer.json", r#"{"type": "string"}"#);
    let cases: [(&[&str], &str); 3] = [
        (
            &["choice.json"],
            "error: tools file choice.json\n  caused by: tool_choice names \"nope\", which is not \
             one of the tools (f)\n",
        ),
        (
            &["never.json"],
            "error: tools file never.json\n  caused by: tool a: /properties/x: ",
        ),
        (
            &[
                "choice.json",
                "--tool-choice",
                "auto",
                "--answer-schema",
                "answer.json",
            ],
            "error: schema file answer.json\n  caused by: answer shape: ",
        ),
    ];
    for (args, expected) in cases {
        let run = slm.run(["tools", "compile"].iter().chain(args), "");
        run.code(1);
        assert!(run.stderr.starts_with(expected), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn unknown_choices_are_usage_errors() {
    let slm = Slm::new();
    let run = slm.run(
        [
            "tools",
            "compile",
            &fixture("anthropic.json"),
            "--tool-choice",
            "get_news",
        ],
        "",
    );
    run.code(2);
    assert_eq!(
        run.stderr.lines().next().unwrap(),
        r#"error: tool_choice names "get_news", which is not one of the tools (get_time, get_weather)"#
    );
    let run = slm.run(
        [
            "tools",
            "compile",
            &fixture("anthropic.json"),
            "--tool-choice",
            r#"{"type":"allowed_tools"}"#,
        ],
        "",
    );
    run.code(2);
    assert!(
        run.stderr
            .starts_with("error: --tool-choice: unsupported tool_choice type"),
        "{}",
        run.stderr
    );
}

#[test]
fn request_fragments_follow_provider_and_mechanism() {
    let slm = Slm::new();
    let tools = fixture("coding_agent.json");
    let request = |extra: &[&str]| {
        let mut args = vec![
            "tools",
            "compile",
            tools.as_str(),
            "--format",
            "request",
            "--json",
        ];
        args.extend_from_slice(extra);
        let run = slm.run(args, "");
        run.code(0);
        run.json()["request"].clone()
    };
    let grammar = request(&["--provider", "llamacpp", "--mechanism", "gbnf_grammar"]);
    assert_eq!(grammar["carries"], "constraint");
    assert_eq!(grammar["mechanism_source"], "flag");
    let body = grammar["body"].as_object().unwrap();
    assert_eq!(body.keys().collect::<Vec<_>>(), ["grammar"]);
    assert!(body["grammar"].as_str().unwrap().starts_with("root ::= "));

    // llama-server takes both; its own schema converter enforces neither `format` nor bounded
    // exponents, so the tools go in the exact derived grammar.
    let llama = request(&["--provider", "llamacpp"]);
    assert_eq!(llama["mechanism"], "gbnf_grammar");
    assert_eq!(llama["mechanism_source"], "prior");
    assert_eq!(
        llama["body"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["grammar"]
    );
    let human = slm.run(
        [
            "tools",
            "compile",
            tools.as_str(),
            "--format",
            "request",
            "--provider",
            "llamacpp",
        ],
        "",
    );
    human.code(0);
    assert!(
        human.stderr.contains(
            "the tools go in the derived grammar: it is exact, and the server's own json_schema converter enforces neither `format` nor bounded exponents"
        ),
        "{}",
        human.stderr
    );

    let schema = request(&["--provider", "llamacpp", "--mechanism", "json_schema"]);
    assert_eq!(schema["mechanism"], "json_schema");
    assert_eq!(schema["mechanism_source"], "flag");
    assert_eq!(schema["body"]["response_format"]["type"], "json_schema");
    assert_eq!(
        schema["body"]["response_format"]["json_schema"]["name"],
        "tool_call"
    );
    // OpenAI strict mode refuses a root `oneOf`, so no `strict: true`.
    assert_eq!(
        schema["body"]["response_format"]["json_schema"].get("strict"),
        None
    );

    let vllm = request(&[
        "--provider",
        "vllm",
        "--endpoint",
        "http://127.0.0.1:9/v1",
        "--mechanism",
        "guided_json",
    ]);
    assert!(
        vllm["body"]["structured_outputs"]["json"]["oneOf"].is_array(),
        "{vllm}"
    );

    let hosted = request(&["--provider", "openai"]);
    assert_eq!(hosted["carries"], "native_tools");
    let body = hosted["body"].as_object().unwrap();
    assert_eq!(
        body.keys().collect::<Vec<_>>(),
        ["tools", "tool_choice", "parallel_tool_calls"]
    );
    assert_eq!(body["tool_choice"], "required");
    assert_eq!(body["tools"].as_array().unwrap().len(), 6);

    let run = slm.run(
        [
            "tools",
            "compile",
            tools.as_str(),
            "--format",
            "request",
            "--provider",
            "llamacpp",
            "--tool-choice",
            "none",
        ],
        "",
    );
    run.code(0);
    assert_eq!(run.json(), json!({}));
    assert!(
        run.stderr
            .contains("request: nothing for provider llamacpp"),
        "{}",
        run.stderr
    );
}

#[test]
fn extract_prints_the_validated_call() {
    let slm = Slm::new();
    let tools = fixture("coding_agent.json");
    let text = "I'll check the manifest.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {'path': 'Cargo.toml', 'limit': '20'}}\n</tool_call>";
    let run = slm.run(["tools", "extract", &tools], text);
    run.code(0);
    assert_eq!(
        run.json(),
        json!({"name": "read_file", "arguments": {"path": "Cargo.toml", "limit": 20}})
    );
    assert_eq!(
        run.stderr,
        "read_file: repaired (rung coerce; changed: quotes, coerce)\nread_file: coerced /limit from \"20\" to 20\n"
    );
    let file = slm.file("answer.txt", text);
    let from_file = slm.run(["tools", "extract", &tools, file.to_str().unwrap()], "");
    assert_eq!(from_file.stdout, run.stdout);
}

#[test]
fn extract_json_has_rung_notes_and_dropped_calls() {
    let slm = Slm::new();
    let text = r#"{"tool_calls": [{"id": "1", "type": "function", "function": {"name": "search", "arguments": "{\"query\": \"todo\"}"}}, {"id": "2", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a\"}"}}]}"#;
    let run = slm.run(
        ["tools", "extract", &fixture("coding_agent.json"), "--json"],
        text,
    );
    run.code(0);
    let report = run.json();
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["name"], "search");
    assert_eq!(calls[0]["arguments"], json!({"query": "todo"}));
    assert_eq!(calls[0]["source"], "bare");
    assert_eq!(calls[0]["rung"], "none");
    assert_eq!(calls[0]["rungs_changed"], json!([]));
    assert_eq!(calls[0]["coercions"], json!([]));
    assert_eq!(
        calls[0]["notes"],
        json!([
            "written as an OpenAI `tool_calls` list",
            "arguments given as a JSON string"
        ])
    );
    assert_eq!(
        report["dropped"],
        json!([{"name": "read_file", "reason": "serial tools: only the first call in the text is kept"}])
    );
    let all = slm.run(
        ["tools", "extract", &fixture("coding_agent.json"), "--all"],
        text,
    );
    all.code(0);
    assert_eq!(
        all.json(),
        json!([{"name": "search", "arguments": {"query": "todo"}}, {"name": "read_file", "arguments": {"path": "a"}}])
    );
}

#[test]
fn extract_failures_have_their_exit_codes() {
    let slm = Slm::new();
    let tools = fixture("coding_agent.json");
    let cases: [(&str, &[&str], i32, &str); 6] = [
        (
            "The tests pass, nothing to do.",
            &[],
            3,
            "error: the text holds no tool call: no JSON object, <tool_call> block, fenced JSON or Python-style call",
        ),
        (
            "{\"answer\": \"done\"}",
            &[],
            3,
            "error: the text holds JSON but no tool call",
        ),
        (
            "<tool_call>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a\", \"content\": \"abc",
            &[],
            4,
            "error: the write_file call is cut off: ",
        ),
        (
            "{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}",
            &["--finish-reason", "length"],
            4,
            "error: the read_file call is cut off: ",
        ),
        (
            "{\"name\": \"rm_rf\", \"arguments\": {}}",
            &[],
            5,
            "error: the text calls \"rm_rf\", which is not one of the tools (read_file, write_file, edit_file, run_command, search, list_directory)",
        ),
        (
            "{\"name\": \"write_file\", \"arguments\": {\"path\": \"a\", \"mode\": \"sideways\"}}",
            &[],
            5,
            "error: the write_file call's arguments do not satisfy its schema: ",
        ),
    ];
    for (text, extra, code, expected) in cases {
        let mut args = vec!["tools", "extract", tools.as_str()];
        args.extend_from_slice(extra);
        let run = slm.run(&args, text);
        run.code(code);
        assert!(
            run.stderr.starts_with(expected),
            "{text}\nexpected: {expected}\n     got: {}",
            run.stderr
        );
        assert_eq!(run.stdout, "");
        let json = slm.run(args.iter().chain(&["--json"]), text);
        json.code(code);
        assert_eq!(json.json()["error"]["exit_code"], code);
    }
}

#[test]
fn extract_reads_text_with_invalid_utf8_and_says_so() {
    let slm = Slm::new();
    let mut text = b"\xff note <tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.rs\"}}</tool_call>".to_vec();
    text.push(b'\n');
    let run = slm.run(
        ["tools", "extract", &fixture("coding_agent.json"), "--json"],
        text,
    );
    run.code(0);
    assert_eq!(run.json()["calls"][0]["arguments"], json!({"path": "a.rs"}));
    assert!(
        run.stderr.starts_with(
            "warning: <stdin> is not valid UTF-8: invalid bytes were replaced with U+FFFD\n"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn a_tools_file_nested_too_deep_says_so_with_where() {
    let slm = Slm::new();
    let deep = format!(
        "{{\"tools\": [{{\"type\": \"function\", \"function\": {{\"name\": \"f\", \"parameters\": {}{{}}{}}}}}]}}",
        "{\"type\": \"array\", \"items\": ".repeat(200),
        "}".repeat(200)
    );
    let file = slm.file("deep-tools.json", deep);
    let run = slm.run(["tools", "compile", file.to_str().unwrap()], "");
    run.code(1);
    assert!(
        run.stderr.starts_with(&format!(
            "error: tools file {} nests deeper than 128 levels, more than slmcode reads (line 1, column ",
            file.display()
        )),
        "{}",
        run.stderr
    );
}
