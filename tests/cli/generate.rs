//! `slmcode generate` through the real binary against the engine emulator: the value on stdout,
//! `--json` decoded back, the exit code per failure class, demotions in capabilities.json,
//! repair stats updated, and what the server received.

use serde_json::{Value, json};

use crate::emulator::{Emulator, Fault, Profile};
use crate::util::{Slm, scope, slm_for};

/// A scratch world pointed at `emulator` as an OpenAI-compatible server.
fn stats(slm: &Slm) -> Value {
    let text = std::fs::read_to_string(slm.config_dir().join("repair-stats.json"))
        .expect("repair-stats.json written");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn prints_the_validated_value_and_updates_the_stats() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let run = slm.run(scope(&[]), "");
    run.code(0);
    assert_eq!(run.stdout, "{\"reason\":\"a\",\"in_scope\":true}\n");
    assert_eq!(run.stderr, "", "nothing to say about a first-try answer");
    // llama-server gets the derived grammar, compact (bench/README.md, "Defaults").
    let body = emulator.chat_bodies().pop().unwrap();
    let grammar = slm
        .run(
            ["schema", "gbnf", "scope_judge", "--whitespace", "compact"],
            "",
        )
        .code(0)
        .stdout
        .clone();
    assert_eq!(body["grammar"], grammar.as_str());
    assert!(body.get("response_format").is_none());
    assert_eq!(body["messages"][1]["content"], "Is a README in scope?");
    let stats = stats(&slm);
    assert_eq!(stats["total"], 1);
    assert_eq!(stats["rungs"]["none"], 1);

    let pretty = slm.run(scope(&["--pretty"]), "");
    pretty.code(0);
    assert_eq!(
        pretty.stdout,
        "{\n  \"reason\": \"a\",\n  \"in_scope\": true\n}\n"
    );
    let status = slm
        .run(["status", "--json", "--offline"], "")
        .code(0)
        .json();
    assert_eq!(status["repair"]["total"], 2);
    assert_eq!(status["repair"]["calls"], json!({"as_is": 2}));
}

#[test]
fn json_output_has_the_value_and_the_meta() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let json = slm.run(scope(&["--json"]), "").code(0).json();
    assert_eq!(json["value"], json!({"reason": "a", "in_scope": true}));
    let meta = &json["meta"];
    assert_eq!(meta["mechanism"], "gbnf_grammar");
    assert_eq!(meta["wire_form"], "grammar");
    assert_eq!(meta["source"], "negotiated");
    assert_eq!(meta["first_mechanism"], "gbnf_grammar");
    assert_eq!(meta["streamed"], true);
    assert_eq!(meta["stream_end"], "finished");
    assert_eq!(meta["repetition"], Value::Null);
    assert_eq!(meta["deadline_s"], 60.0);
    assert_eq!(meta["demotions"], json!([]));
    assert_eq!(meta["repair_rung"], "none");
    assert_eq!(meta["attempts"], 1);
    assert_eq!(meta["reasks"], json!([]));
    assert_eq!(meta["retry_count"], 0);
    assert_eq!(meta["transport_retries"], 0);
    assert_eq!(meta["requests"], 1);
    assert_eq!(meta["degrade_reason"], Value::Null);
    assert_eq!(meta["finish_reason"], "stop");
    assert_eq!(meta["tokens"]["prompt_tokens"], 20);
    assert_eq!(meta["notes"], json!([]));
    assert_eq!(meta["warnings"], json!([]));
    assert_eq!(
        meta["engine"],
        json!({"provider": "llamacpp", "source": "setting", "evidence": null})
    );
    // The default openai-compatible in front of the same server: recognised by its
    // fingerprint, and sent the derived grammar first all the same.
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "openai-compatible");
    let json = slm.run(scope(&["--json"]), "").code(0).json();
    let meta = &json["meta"];
    assert_eq!(meta["first_mechanism"], "gbnf_grammar");
    assert_eq!(meta["engine"]["provider"], "llamacpp");
    assert_eq!(meta["engine"]["source"], "fingerprint");
    assert!(
        emulator
            .chat_bodies()
            .pop()
            .unwrap()
            .get("grammar")
            .is_some()
    );
}

#[test]
fn the_request_comes_from_stdin_with_the_system_message_first() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    slm.run(
        [
            "generate",
            "--role",
            "go-worker",
            "--system",
            "You work on slmcode.",
        ],
        "Fix the flaky test.\n",
    )
    .code(0);
    let body = emulator.chat_bodies().pop().unwrap();
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.starts_with("You work on slmcode.\n\n# Worker"),
        "{system}"
    );
    assert_eq!(body["messages"][1]["content"], "Fix the flaky test.\n");
    let grammar = slm
        .run(["schema", "gbnf", "worker", "--whitespace", "compact"], "")
        .code(0)
        .stdout
        .clone();
    assert_eq!(
        body["grammar"],
        grammar.as_str(),
        "the worker contract's grammar"
    );
    // The role's stops are applied by slmcode after any reasoning, not sent (thinking = auto).
    assert!(body.get("stop").is_none(), "{body}");
}

#[test]
fn a_schema_violation_after_every_attempt_exits_5_with_the_evidence() {
    // The liar accepts every field and enforces none: its answer is a fenced greeting.
    let emulator = Emulator::start(Profile::liar());
    let slm = slm_for(&emulator, "openai-compatible");
    let run = slm.run(scope(&["--json", "--reask", "1"]), "");
    run.code(5);
    let json = run.json();
    let error = &json["error"];
    assert_eq!(error["kind"], "schema_violation");
    assert_eq!(error["exit_code"], 5);
    assert_eq!(error["class"], "wrong_shape");
    assert!(error["raw"].as_str().unwrap().contains("Hello there!"));
    assert_eq!(error["raw_cut"], false);
    let messages: Vec<&str> = error["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|error| error["message"].as_str().unwrap())
        .collect();
    assert!(
        messages.contains(&"\"reason\" is a required property"),
        "{messages:?}"
    );
    assert_eq!(error["partial"], Value::Null);
    assert_eq!(json["meta"]["attempts"], 2);
    assert_eq!(json["meta"]["mechanism"], "prompt_only");
    assert_eq!(json["meta"]["degrade_reason"], "no_constraint");
    assert!(
        run.stderr.starts_with(
            "error: the answer does not satisfy the schema after 2 attempts (prompt_only, no constraint mechanism is available for this endpoint)"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(stats(&slm)["outcomes"]["wrong_shape"], 2);
}

#[test]
fn truncation_the_reasks_do_not_fix_exits_4_with_partial_and_missing_required() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let run = slm.run(scope(&["--max-tokens", "14", "--reask", "0", "--json"]), "");
    run.code(4);
    let json = run.json();
    assert_eq!(json["error"]["class"], "truncated");
    assert_eq!(json["error"]["raw"], "{\"reason\":\"a\",");
    assert_eq!(json["error"]["partial"], json!({"reason": "a"}));
    assert_eq!(json["error"]["missing_required"], json!(["in_scope"]));
    let human = slm.run(scope(&["--max-tokens", "14", "--reask", "0"]), "");
    human.code(4);
    assert!(human.stdout.is_empty());
    assert!(
        human
            .stderr
            .contains("hint: the answer ran out of tokens: raise --max-tokens"),
        "{}",
        human.stderr
    );
    // One re-ask doubles the budget, which is enough.
    let fixed = slm.run(scope(&["--max-tokens", "20", "--json"]), "");
    let meta = &fixed.code(0).json()["meta"];
    assert_eq!(meta["reasks"][0]["action"], "raise_max_tokens");
    assert_eq!(meta["reasks"][0]["max_tokens"], 40);
}

#[test]
fn no_json_at_all_exits_3_and_says_nothing_constrained_the_output() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = slm_for(&emulator, "llamacpp");
    slm.env("SLMCODE_STRUCTURED_DECODING", "off");
    emulator.answers(["I cannot answer that.", "Still no."]);
    let run = slm.run(scope(&["--json", "--reask", "1"]), "");
    run.code(3);
    let json = run.json();
    assert_eq!(json["error"]["kind"], "not_json");
    assert_eq!(json["error"]["class"], "prose");
    assert_eq!(json["error"]["raw"], "Still no.");
    assert!(
        json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("structured_decoding is off: nothing constrained the output"),
        "{json:#}"
    );
    assert_eq!(json["meta"]["degrade_reason"], "structured_decoding_off");
    for body in emulator.chat_bodies() {
        for field in [
            "response_format",
            "grammar",
            "structured_outputs",
            "guided_json",
        ] {
            assert!(body.get(field).is_none(), "{field}: {body}");
        }
    }
}

#[test]
fn endpoint_failures_exit_6_with_the_error_class() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = slm_for(&emulator, "llamacpp");
    slm.env("SLMCODE_STRUCTURED_DECODING", "off");
    emulator.faults([Fault::ContextOverflow]);
    let run = slm.run(scope(&["--json"]), "");
    run.code(6);
    let json = run.json();
    assert_eq!(json["error"]["kind"], "endpoint");
    assert_eq!(json["error"]["class"], "context_overflow");
    assert_eq!(json["error"]["status"], 400);
    assert_eq!(json["error"]["raw"], Value::Null);
    assert_eq!(json["meta"]["requests"], 1);
    assert_eq!(emulator.chat_count(), 1);
    assert!(
        run.stderr
            .contains("hint: the request does not fit the model's context"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_forced_mechanism_is_not_probed_and_its_demotion_is_persisted() {
    let emulator = Emulator::start(Profile::no_strict());
    let slm = slm_for(&emulator, "openai-compatible");
    let run = slm.run(scope(&["--mechanism", "json_schema"]), "");
    run.code(0);
    // Two requests, no probe: strict refused, then without strict.
    let bodies = emulator.chat_bodies();
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[0]["response_format"]["json_schema"]["strict"], true);
    assert!(
        bodies[1]["response_format"]["json_schema"]
            .get("strict")
            .is_none()
    );
    assert_eq!(
        run.stderr,
        "degraded (demoted): answered under json_schema, demoted json_schema_strict (HTTP 400), repair rung none, 1 attempt\n"
    );
    let cache: Value = serde_json::from_str(
        &std::fs::read_to_string(slm.config_dir().join("capabilities.json")).unwrap(),
    )
    .unwrap();
    let demotion = &cache["entries"][0]["demotions"][0];
    assert_eq!(demotion["form"], "json_schema_strict");
    assert_eq!(demotion["status"], 400);
    assert!(
        demotion["body"]
            .as_str()
            .unwrap()
            .contains("strict mode is not supported")
    );
    let status = slm
        .run(["status", "--json", "--offline"], "")
        .code(0)
        .json();
    assert_eq!(
        status["connection"]["demotions"][0]["form"],
        "json_schema_strict"
    );

    slm.run(scope(&["--mechanism", "json_object"]), "").code(5);
    assert_eq!(
        emulator.chat_bodies()[2]["response_format"],
        json!({"type": "json_object"})
    );
}

#[test]
fn bad_requests_are_usage_errors_before_anything_is_sent() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let run = slm.run(["generate", "--schema", "plna", "--prompt", "x"], "");
    run.code(2);
    assert!(
        run.stderr
            .starts_with("error: unknown contract `plna` (did you mean `plan`?)"),
        "{}",
        run.stderr
    );
    let run = slm.run(["generate", "--role", "describer", "--prompt", "x"], "");
    run.code(2);
    assert!(
        run.stderr
            .starts_with("error: role `describer` is free_text and has no contract"),
        "{}",
        run.stderr
    );
    let run = slm.run(["generate", "--schema", "plan"], "  \n");
    run.code(2);
    assert!(
        run.stderr
            .starts_with("error: nothing to ask: the request is empty"),
        "{}",
        run.stderr
    );
    let run = slm.run(scope(&["--mechanism", "xml"]), "");
    run.code(2);
    assert!(
        run.stderr.contains("unknown mechanism `xml`"),
        "{}",
        run.stderr
    );
    slm.run(["generate", "--prompt", "x"], "").code(2);
    let run = slm.run(scope(&["--max-tokens", "lots"]), "");
    run.code(2);
    let schema = slm.file("broken.json", "{\"type\": 7}");
    let run = slm.run(
        [
            "generate",
            "--schema-file",
            schema.to_str().unwrap(),
            "--prompt",
            "x",
        ],
        "",
    );
    run.code(1);
    assert!(
        run.stderr.starts_with("error: schema file "),
        "{}",
        run.stderr
    );
    assert_eq!(emulator.chat_count(), 0);
}

#[test]
fn a_schema_file_is_described_in_the_prompt_and_validated_in_full() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let schema = json!({"type": "object",
        "properties": {"name": {"type": "string", "minLength": 2}, "age": {"type": "integer", "minimum": 0}},
        "required": ["name", "age"], "additionalProperties": false});
    let path = slm.file("person.schema.json", schema.to_string());
    let json = slm
        .run(
            [
                "generate",
                "--schema-file",
                path.to_str().unwrap(),
                "--prompt",
                "Ada, 36",
                "--json",
                "--mechanism",
                "json_schema",
            ],
            "",
        )
        .code(0)
        .json();
    assert_eq!(json["value"], json!({"name": "aa", "age": 0}));
    let body = emulator.chat_bodies().pop().unwrap();
    assert_eq!(body["response_format"]["json_schema"]["name"], "person");
    assert_eq!(body["response_format"]["json_schema"]["schema"], schema);
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.ends_with(&schema.to_string()), "{system}");
}

#[test]
fn demotions_walk_the_chain_once_and_the_next_process_starts_at_the_right_form() {
    // Probed as a strict OpenAI-style server, then a parameter-checking proxy is put in front.
    let emulator = Emulator::start(Profile::openai());
    let slm = slm_for(&emulator, "openai-compatible");
    let probe = slm.run(["probe", "--json"], "").code(0).json();
    assert_eq!(probe["mechanism"], "json_schema");
    let probed = emulator.chat_count();
    emulator.set_profile(Profile::field_rejecting_proxy());
    let fenced = "Sure:\n```json\n{\"reason\": \"docs\", \"in_scope\": true,}\n```";
    emulator.answers([fenced, fenced]);

    let json = slm.run(scope(&["--json"]), "").code(0).json();
    let forms = |bodies: &[Value]| -> Vec<String> {
        bodies
            .iter()
            .map(|body| match &body["response_format"] {
                Value::Null => "plain".to_owned(),
                format if format["json_schema"]["strict"] == true => "strict".to_owned(),
                format => format["type"].as_str().unwrap().to_owned(),
            })
            .collect()
    };
    // The proxy refuses the anti-repetition penalties by name (dropped, not a rejection of
    // the form) and the plain request's `stream_options` (asked again whole).
    assert_eq!(
        forms(&emulator.chat_bodies()[probed..]),
        [
            "strict",
            "strict",
            "json_schema",
            "json_object",
            "plain",
            "plain"
        ]
    );
    assert_eq!(json["value"], json!({"reason": "docs", "in_scope": true}));
    assert_eq!(json["meta"]["degrade_reason"], "demoted");
    assert_eq!(json["meta"]["repair_rung"], "trailing_comma");
    let demoted: Vec<&str> = json["meta"]["demotions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|demotion| demotion["form"].as_str().unwrap())
        .collect();
    assert_eq!(
        demoted,
        ["json_schema_strict", "json_schema", "json_object"]
    );

    // A second process reads the demotions from capabilities.json: plain at once, no probe.
    let second = slm.run(scope(&["--json"]), "").code(0).json();
    assert_eq!(forms(&emulator.chat_bodies()[probed + 6..]), ["plain"]);
    assert_eq!(second["meta"]["first_mechanism"], "prompt_only");
    assert_eq!(second["meta"]["demotions"], json!([]));
    let status = slm
        .run(["status", "--json", "--offline"], "")
        .code(0)
        .json();
    assert_eq!(status["connection"]["mechanism"], "prompt_only");
    assert_eq!(
        status["connection"]["demotions"].as_array().unwrap().len(),
        3
    );
}

#[test]
fn a_schema_file_keyword_left_off_the_wire_is_a_warning_and_still_validated() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let schema = json!({"type": "object", "properties": {"tags": {"type": "array",
        "items": {"type": "string"}, "minItems": 1001}}, "required": ["tags"]});
    let path = slm.file("tags.json", schema.to_string());
    let run = slm.run(
        [
            "generate",
            "--schema-file",
            path.to_str().unwrap(),
            "--prompt",
            "tags",
            "--reask",
            "0",
            "--mechanism",
            "json_schema",
        ],
        "",
    );
    run.code(5);
    assert!(
        run.stderr.starts_with(
            "warning: the json_schema wire form leaves out /properties/tags: `minItems`: "
        ),
        "{}",
        run.stderr
    );
    // A contract's notes (plan's long descriptions) are not warnings.
    let plan = slm.run(["generate", "--schema", "plan", "--prompt", "go"], "");
    plan.code(0);
    assert_eq!(plan.stderr, "");
}

#[test]
fn a_loop_that_re_asks_do_not_break_exits_7_with_the_loop_in_the_json() {
    let emulator = Emulator::start(Profile::strict_proxy());
    let slm = slm_for(&emulator, "openai-compatible");
    let looping = format!("{{\"reason\": \"{}", "the README is in scope, ".repeat(200));
    emulator.answers([looping.clone(), looping]);
    let run = slm.run(
        scope(&[
            "--json",
            "--mechanism",
            "prompt_only",
            "--max-tokens",
            "6000",
            "--reask",
            "1",
        ]),
        "",
    );
    run.code(7);
    let json = run.json();
    assert_eq!(json["error"]["kind"], "repetition");
    assert_eq!(json["error"]["exit_code"], 7);
    assert_eq!(json["error"]["class"], "repetition");
    assert_eq!(json["meta"]["stream_end"], "repetition");
    assert_eq!(json["meta"]["repetition"]["kind"], "repeated_text");
    assert_eq!(
        json["meta"]["repetition"]["unit"],
        "the README is in scope, "
    );
    assert_eq!(json["meta"]["reasks"][0]["action"], "anti_repetition");
    assert_eq!(json["meta"]["reasks"][0]["max_tokens"], 6000);
    assert!(
        run.stderr.contains("hint: the model fell into a loop"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_call_timeout_flag_ends_a_slow_call_with_exit_6_class_canceled_and_the_partial() {
    let emulator = Emulator::start(Profile::strict_proxy());
    emulator.token_delay(std::time::Duration::from_millis(20));
    emulator.answers([format!(
        "{{\"reason\": \"{}\", \"in_scope\": true}}",
        "slowly ".repeat(100)
    )]);
    let slm = slm_for(&emulator, "openai-compatible");
    let run = slm.run(
        scope(&[
            "--json",
            "--mechanism",
            "prompt_only",
            "--call-timeout",
            "1",
        ]),
        "",
    );
    run.code(6);
    let json = run.json();
    assert_eq!(json["error"]["kind"], "endpoint");
    assert_eq!(json["error"]["class"], "canceled");
    assert!(
        json["error"]["raw"]
            .as_str()
            .unwrap()
            .starts_with("{\"reason\": \"slowly"),
        "{json}"
    );
    assert_eq!(
        json["error"]["missing_required"],
        json!(["reason", "in_scope"])
    );
    assert_eq!(json["meta"]["stream_end"], "deadline");
    assert_eq!(json["meta"]["deadline_s"], 1.0);
    assert!(
        run.stderr
            .contains("hint: the model did not finish within the call's deadline of 1 s"),
        "{}",
        run.stderr
    );
}

#[test]
fn verbose_ends_with_the_retries_and_what_degraded() {
    // First try, constrained: nothing to report but that.
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let run = slm.run(scope(&["--verbose"]), "");
    run.code(0);
    assert_eq!(run.stderr, "Retries: 0 · Degraded: no\n");

    // A re-ask after prose, unconstrained by the user's choice.
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = slm_for(&emulator, "llamacpp");
    slm.env("SLMCODE_STRUCTURED_DECODING", "off");
    emulator.answers([
        "I cannot answer that.",
        "{\"reason\": \"fits\", \"in_scope\": true}",
    ]);
    let run = slm.run(scope(&["--verbose"]), "");
    run.code(0);
    assert!(
        run.stderr
            .ends_with("Retries: 1 (prose) · Degraded: structured_decoding_off\n"),
        "{}",
        run.stderr
    );
    // The stats tell an answer a re-ask fixed from one repair fixed.
    assert_eq!(stats(&slm)["calls"], json!({"reasked": 1}));
    let status = slm.run(["status", "--offline"], "");
    status.code(0);
    assert!(
        status.stdout.ends_with("calls:      reasked 1\n"),
        "{}",
        status.stdout
    );

    // A demotion, and a failure: the footer comes with the error too.
    let emulator = Emulator::start(Profile::no_strict());
    let slm = slm_for(&emulator, "openai-compatible");
    let run = slm.run(scope(&["--mechanism", "json_schema", "--verbose"]), "");
    run.code(0);
    assert!(
        run.stderr
            .ends_with("Retries: 0 · Degraded: json_schema_strict → json_schema (400)\n"),
        "{}",
        run.stderr
    );
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = slm_for(&emulator, "llamacpp");
    slm.env("SLMCODE_STRUCTURED_DECODING", "off");
    emulator.answers(["No.", "Still no."]);
    let run = slm.run(scope(&["--verbose", "--reask", "1"]), "");
    run.code(3);
    assert!(
        run.stderr
            .contains("Retries: 1 (prose) · Degraded: structured_decoding_off\n"),
        "{}",
        run.stderr
    );
}

#[test]
fn an_answer_that_is_no_chat_completion_fails_as_the_probe_fails_not_as_an_empty_answer() {
    let page = format!("<html><body>{}</body></html>", "hello ".repeat(1000));
    // (Content-Type, body, how generate's error begins, how the probe's begins)
    let not_json = "HTTP 200 but the body is not JSON (expected value at line 1 column 1): ";
    let cases = [
        ("text/html", page.as_str(), not_json, not_json),
        (
            "application/json",
            "",
            "HTTP 200 but the body is not JSON (EOF while parsing a value at line 1 column 0):",
            "HTTP 200 but the body is not JSON (EOF while parsing a value at line 1 column 0):",
        ),
        (
            "text/event-stream",
            "",
            "HTTP 200 but the body is not JSON (EOF while parsing a value at line 1 column 0):",
            "HTTP 200 but the body is not JSON (EOF while parsing a value at line 1 column 0):",
        ),
        (
            "text/event-stream",
            ": keep-alive\n\nevent: ping\n\n",
            "HTTP 200 but the body is not JSON, nor an event stream (it has no `data:` line): \
             : keep-alive event: ping",
            "HTTP 200 but the body is not JSON (expected value at line 1 column 1): : keep-alive",
        ),
        (
            "text/event-stream",
            "data: {\"foo\": 1}\n\ndata: [DONE]\n\n",
            "the answer is not a chat completion (no chunk of its stream has choices): {\"foo\":1}",
            "HTTP 200 but the body is not JSON (expected value at line 1 column 1): data: ",
        ),
        (
            "",
            "<html>hello</html>\n",
            "HTTP 200 but the body is not JSON, nor an event stream (it has no `data:` line): \
             <html>hello</html>",
            "HTTP 200 but the body is not JSON (expected value at line 1 column 1): <html>",
        ),
    ];
    for (content_type, body, generated, probed) in cases {
        let emulator = Emulator::start(Profile::answering(200, content_type, body));
        let slm = slm_for(&emulator, "llamacpp");
        let run = slm.run(
            [
                "--json", "generate", "--schema", "plan", "--prompt", "hi", "--reask", "0",
            ],
            "",
        );
        run.code(6);
        let json = run.json();
        assert_eq!(json["error"]["kind"], "endpoint", "{content_type}: {json}");
        let message = json["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("unknown error: {generated}")),
            "{content_type}, {body:?}: {message}"
        );
        let probe = slm.run(["probe", "--refresh"], "");
        probe.code(6);
        assert!(
            probe.stderr.starts_with(&format!(
                "error: the server's answer to a plain chat request is not usable: unknown \
                 error: {probed}"
            )),
            "{content_type}, {body:?}: {}",
            probe.stderr
        );
    }
    // A stream that ends before any chunk is one: the model's empty answer.
    let emulator = Emulator::start(Profile::answering(
        200,
        "text/event-stream",
        "data: [DONE]\n\n",
    ));
    let slm = slm_for(&emulator, "llamacpp");
    let run = slm.run(
        [
            "--json", "generate", "--schema", "plan", "--prompt", "hi", "--reask", "0",
        ],
        "",
    );
    run.code(3);
    assert_eq!(run.json()["error"]["class"], "empty", "{}", run.stdout);
}

#[test]
fn an_event_stream_labelled_as_another_type_is_still_read_as_one() {
    let chunk = json!({"choices": [{"index": 0, "delta": {"content": "{\"reason\": \"a\", \"in_scope\": true}"}}]});
    let body = format!("data: {chunk}\n\ndata: [DONE]\n\n");
    for content_type in ["text/plain", "application/json"] {
        let emulator = Emulator::start(Profile::answering(200, content_type, &body));
        let slm = slm_for(&emulator, "llamacpp");
        let run = slm.run(scope(&["--json", "--reask", "0"]), "");
        run.code(0);
        assert_eq!(run.json()["value"]["in_scope"], true, "{content_type}");
    }
}
