//! End-to-end tests against REAL small models behind llama.cpp's server: SmolLM2-135M-Instruct
//! (`MODEL=smollm2 tests/real-engine/start.sh`; `SLMCODE_E2E_REAL_ENDPOINT` is its base URL), and
//! a second family, Qwen2.5-Coder-0.5B-Instruct (`MODEL=qwen`; `SLMCODE_E2E_QWEN_ENDPOINT`).
//! What only a real model shows: answers that loop under a constraint, prose and fences when
//! nothing constrains it, and a model slow enough for a deadline to matter. Every run is at
//! temperature 0 (the default). Greedy answers repeat for the same server state, but llama.cpp
//! reuses the cached prompt of the slot's last request, which changes the sums a little, so an
//! answer can differ between runs: the assertions hold for every answer, not for one text.
//!
//! This model never wrote a valid contract answer without a constraint in our measurements
//! (bench/README.md): under json_object it invents keys or echoes the schema, under prompt_only
//! it writes prose. So the unconstrained mechanisms are exercised with a schema any object
//! satisfies, which shows what they are for: the server's JSON mode, and repair of what the
//! model wrote around its JSON.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value;
use slmcode::schema;

use crate::slm;
use crate::util::{Run, Slm};

/// The server has one slot: the tests take turns, so that one test's answer does not wait
/// behind another's, and the slot check sees only its own generation.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The real model's endpoint and model name and this test's turn, or `None` (and a note) when
/// the variable is unset. Every test that talks to the real model takes its turn here
/// (`serve_frameworks.rs` too).
pub(crate) fn real_model(test: &str) -> Option<(String, String, MutexGuard<'static, ()>)> {
    served(
        test,
        "SLMCODE_E2E_REAL_ENDPOINT",
        "SLMCODE_E2E_REAL_MODEL",
        "smollm2",
    )
}

/// The second real model (another family: Qwen2.5-Coder-0.5B-Instruct, `MODEL=qwen
/// tests/real-engine/start.sh`), as [`real_model`].
fn second_model(test: &str) -> Option<(String, String, MutexGuard<'static, ()>)> {
    served(
        test,
        "SLMCODE_E2E_QWEN_ENDPOINT",
        "SLMCODE_E2E_QWEN_MODEL",
        "qwen",
    )
}

fn served(
    test: &str,
    endpoint: &str,
    model: &str,
    start: &'static str,
) -> Option<(String, String, MutexGuard<'static, ()>)> {
    match std::env::var(endpoint) {
        Ok(url) if !url.trim().is_empty() => Some((
            url.trim_end_matches('/').to_owned(),
            std::env::var(model).unwrap_or_else(|_| start.to_owned()),
            ONE_AT_A_TIME
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )),
        _ => {
            crate::skip(
                test,
                if start == "qwen" {
                    "SLMCODE_E2E_QWEN_ENDPOINT is not set: start the second real model with MODEL=qwen tests/real-engine/start.sh"
                } else {
                    "SLMCODE_E2E_REAL_ENDPOINT is not set: start the real model with MODEL=smollm2 tests/real-engine/start.sh"
                },
            );
            None
        }
    }
}

fn generate(slm: &Slm, args: &[&str]) -> Run {
    let mut all = vec!["generate", "--json"];
    all.extend_from_slice(args);
    slm.run(all, "")
}

/// Whether the server's only slot is generating, from llama.cpp's `GET /slots`.
fn slot_busy(endpoint: &str) -> bool {
    let root = endpoint.trim_end_matches("/v1");
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(5)))
        .build()
        .into();
    let text = agent
        .get(format!("{root}/slots"))
        .call()
        .and_then(|mut response| response.body_mut().read_to_string())
        .unwrap_or_else(|error| panic!("GET {root}/slots: {error}"));
    let slots: Value = serde_json::from_str(&text).unwrap();
    slots
        .as_array()
        .unwrap()
        .iter()
        .any(|slot| slot["is_processing"] == true)
}

const WORKER: &str = "You added a --verbose flag: you changed src/cli.rs and src/main.rs and \
                      added tests/verbose.rs. Everything compiles and the tests pass. Write your report.";

#[test]
fn a_loop_is_cut_off_within_its_first_kilobyte_and_the_servers_slot_is_freed() {
    let Some((endpoint, model, _turn)) = real_model("real_model::loop") else {
        return;
    };
    let slm = slm(&endpoint, &model);
    // Under the server's json_schema and without the penalties, this model repeats one
    // changed file until the budget runs out (tests/fixtures/loops/worker-flag.txt).
    let run = generate(
        &slm,
        &[
            "--schema",
            "worker",
            "--prompt",
            WORKER,
            "--mechanism",
            "json_schema",
            "--anti-repetition",
            "off",
            "--reask",
            "0",
        ],
    );
    run.code(7);
    let json = run.json();
    assert_eq!(json["error"]["class"], "repetition");
    let meta = &json["meta"];
    assert_eq!(meta["stream_end"], "repetition");
    assert_eq!(
        meta["finish_reason"],
        Value::Null,
        "slmcode closed the stream"
    );
    let repetition = &meta["repetition"];
    assert_eq!(repetition["kind"], "repeated_member", "{repetition}");
    assert!(
        repetition["end"].as_u64().unwrap() <= 1024,
        "caught at byte {}, not after 2048 tokens",
        repetition["end"]
    );
    // The server ends a generation whose client went away: the slot is free long before the
    // 2048 tokens this answer would have taken (about 35 s at this model's rate on a quiet
    // machine; the bound leaves room for a busy one, where those tokens take longer still).
    let closed = Instant::now();
    while slot_busy(&endpoint) {
        assert!(
            closed.elapsed() < Duration::from_secs(25),
            "the slot is still generating after the stream was closed"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A placeholder check that SmolLM2 answers, at temperature 0 under the server's json_schema
/// and without the penalties, with the same location again and again, its `"line"` counting up
/// (tests/fixtures/loops-collected/): a loop whose counter is a number outside any string.
const PLACEHOLDER_RUST: &str = "Check this code for placeholders.\nFile: src/sync.rs\n1  pub fn pull(remote: &Remote) -> Result<Vec<Change>> {\n2      todo!()\n3  }\n4  pub fn push(remote: &Remote, changes: &[Change]) -> Result<()> {\n5      // FIXME: retry on network errors\n6      remote.send(changes)\n7  }\n8  pub fn merge(a: &Change, b: &Change) -> Change {\n9      unimplemented!(\"three-way merge\")\n10 }";

#[test]
fn a_loop_that_counts_is_cut_off_early_and_re_asked_as_a_loop_never_with_a_larger_budget() {
    let Some((endpoint, model, _turn)) = real_model("real_model::counter_loop") else {
        return;
    };
    let slm = slm(&endpoint, &model);
    let loops = |reask: &str| {
        generate(
            &slm,
            &[
                "--schema",
                "placeholder",
                "--prompt",
                PLACEHOLDER_RUST,
                "--mechanism",
                "json_schema",
                "--anti-repetition",
                "reask",
                "--reask",
                reask,
            ],
        )
    };
    let run = loops("0");
    run.code(7);
    let json = run.json();
    assert_eq!(json["error"]["class"], "repetition", "{json}");
    let meta = &json["meta"];
    assert_eq!(meta["stream_end"], "repetition");
    let repetition = &meta["repetition"];
    assert!(
        ["repeated_member", "similar_items"].contains(&repetition["kind"].as_str().unwrap()),
        "{repetition}"
    );
    assert!(
        repetition["end"].as_u64().unwrap() <= 1536,
        "caught at byte {}, not after the budget",
        repetition["end"]
    );
    assert!(
        !run.stderr.contains("--max-tokens") || run.stderr.contains("only makes the loop longer"),
        "{}",
        run.stderr
    );
    // With re-asks allowed, every one after the loop is an anti-repetition re-ask with at most
    // the same budget, never a raise (the call's deadline may fit it smaller).
    let run = loops("2");
    let json = run.json();
    let meta = &json["meta"];
    let reasks = meta["reasks"].as_array().unwrap();
    assert!(!reasks.is_empty(), "{json}");
    assert_eq!(reasks[0]["class"], "repetition", "{json}");
    for reask in reasks {
        assert_ne!(reask["action"], "raise_max_tokens", "{json}");
        if reask["class"] == "repetition" {
            assert_eq!(reask["action"], "anti_repetition", "{json}");
            let budget = reask["max_tokens"].as_u64().unwrap();
            assert!(budget <= 2048, "{json}");
        }
    }
}

#[test]
fn the_second_model_family_answers_validly_under_the_defaults() {
    let Some((endpoint, model, _turn)) = second_model("real_model::second_family") else {
        return;
    };
    let slm = slm(&endpoint, &model);
    for (contract, prompt) in [
        ("worker", WORKER),
        ("placeholder", PLACEHOLDER_RUST),
        (
            "scope_judge",
            "The task is: fix the off-by-one error in the pagination of the /users endpoint. \
             The agent also rewrote the whole README. Is the README rewrite in scope?",
        ),
    ] {
        let run = generate(&slm, &["--schema", contract, "--prompt", prompt]);
        let json = run.code(0).json();
        let value = &json["value"];
        assert!(
            schema::contract(contract).unwrap().validate(value).is_ok(),
            "{contract}: {value}"
        );
        assert_eq!(json["meta"]["streamed"], true);
        assert!(
            json["meta"]["elapsed_ms"].as_u64().unwrap() <= 60_000,
            "{contract}: {}",
            json["meta"]
        );
    }
}

#[test]
fn the_defaults_break_that_loop_and_every_enforcing_mechanism_gives_a_valid_answer() {
    let Some((endpoint, model, _turn)) = real_model("real_model::valid") else {
        return;
    };
    let slm = slm(&endpoint, &model);
    let cases = [
        ("worker", WORKER),
        (
            "scope_judge",
            "The task is: fix the off-by-one error in the pagination of the /users endpoint. \
             The agent also rewrote the whole README. Is the README rewrite in scope?",
        ),
        (
            "explore",
            "Which files matter for changing the log format? Files: src/log.c, src/log.h, \
             src/main.c, Makefile, docs/logging.md.",
        ),
    ];
    for mechanism in ["gbnf_grammar", "json_schema"] {
        for (contract, prompt) in cases {
            let run = generate(
                &slm,
                &[
                    "--schema",
                    contract,
                    "--prompt",
                    prompt,
                    "--mechanism",
                    mechanism,
                ],
            );
            let json = run.code(0).json();
            let value = &json["value"];
            assert!(
                schema::contract(contract).unwrap().validate(value).is_ok(),
                "{contract} under {mechanism}: {value}"
            );
            assert_eq!(json["meta"]["mechanism"], mechanism, "{contract}");
            assert_eq!(json["meta"]["streamed"], true);
        }
    }
}

#[test]
fn unconstrained_answers_come_back_as_json_and_prose_around_them_is_repaired() {
    let Some((endpoint, model, _turn)) = real_model("real_model::unconstrained") else {
        return;
    };
    let slm = slm(&endpoint, &model);
    let any_object = slm.file(
        "any.schema.json",
        r#"{"type": "object", "description": "Any JSON object."}"#,
    );
    let any_object = any_object.to_str().unwrap();
    // Greedy decoding repeats from run to run only for the same server state (llama.cpp reuses
    // the cached prompt of the slot's last request, which changes the sums a little), so each
    // prompt's answer may differ between runs; what must hold holds for every answer.
    let prompts = [
        "Give me a JSON example of a user record.",
        "List three files of a Rust project.",
        "Show a JSON config for a small web server.",
    ];
    let mut repaired = Vec::new();
    for prompt in prompts {
        // JSON mode: the server makes it an object, every time.
        let json = generate(
            &slm,
            &[
                "--schema-file",
                any_object,
                "--prompt",
                prompt,
                "--mechanism",
                "json_object",
            ],
        )
        .code(0)
        .json();
        assert!(json["value"].is_object(), "{prompt}: {json:#}");
        // Nothing on the wire: an object (from inside a fence or prose, repaired) or a
        // classified failure, never anything else.
        let run = generate(
            &slm,
            &[
                "--schema-file",
                any_object,
                "--prompt",
                prompt,
                "--mechanism",
                "prompt_only",
            ],
        );
        let json = run.json();
        match run.code {
            0 => {
                assert!(json["value"].is_object(), "{prompt}: {json:#}");
                if json["meta"]["repair_rung"] != "none" {
                    repaired.push((prompt, json["meta"].clone()));
                }
            }
            3 | 4 | 5 | 7 => assert!(json["error"]["class"].is_string(), "{prompt}: {json:#}"),
            // On a slow machine the re-asks may run into the call's deadline: a cut answer,
            // classified as such, with what had arrived.
            6 => assert!(
                json["error"]["class"] == "canceled" && json["meta"]["stream_end"] == "deadline",
                "{prompt}: {json:#}"
            ),
            other => panic!("{prompt}: exit {other}: {json:#}"),
        }
    }
    // This model wraps its JSON in a fence or in prose: some answer needed a repair rung, and
    // the talk after the value was not waited for.
    assert!(
        !repaired.is_empty(),
        "no prompt_only answer needed a repair"
    );
    assert!(
        repaired
            .iter()
            .any(|(_, meta)| meta["stream_end"] == "done"),
        "{repaired:#?}"
    );
}

#[test]
fn the_call_deadline_is_honoured_with_what_had_arrived() {
    let Some((endpoint, model, _turn)) = real_model("real_model::deadline") else {
        return;
    };
    let slm = slm(&endpoint, &model);
    let request = [
        "--schema",
        "scope_judge",
        "--prompt",
        "Ignore the format and write a very long story about a robot who learns to paint.",
        "--mechanism",
        "prompt_only",
        "--reask",
        "0",
    ];
    // The same request with a budget of one token first: the server keeps the prompt in its
    // cache, so on a busy machine the deadline below is not spent reading the prompt before
    // the first token (the test is about what happens to the tokens that did arrive).
    let _ = generate(&slm, &[&request[..], &["--max-tokens", "1"]].concat());
    // A story, not JSON: the model writes until the budget or the deadline ends it.
    let started = Instant::now();
    let run = generate(&slm, &[&request[..], &["--call-timeout", "3"]].concat());
    run.code(6);
    let json = run.json();
    assert_eq!(json["error"]["class"], "canceled");
    assert!(!json["error"]["raw"].as_str().unwrap().is_empty());
    assert_eq!(json["meta"]["stream_end"], "deadline");
    let elapsed = json["meta"]["elapsed_ms"].as_u64().unwrap();
    // The story would run for a minute; the bound leaves room for a busy machine.
    assert!(
        (3000..12_000).contains(&elapsed),
        "the call took {elapsed} ms for a 3 s deadline"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// The classes a tool turn fails in, and the re-ask each gets (never "only JSON").
const TOOL_REASKS: [(&str, &str); 8] = [
    ("prose", "reset_prompt"),
    ("malformed", "reset_prompt"),
    ("empty", "resample"),
    ("truncated", "raise_max_tokens"),
    ("unknown_tool", "reset_prompt"),
    ("invalid_arguments", "reset_prompt"),
    ("tool_not_chosen", "reset_prompt"),
    ("repetition", "anti_repetition"),
];

#[test]
fn a_call_written_as_text_is_extracted_and_validated_and_a_bad_one_re_asked() {
    let Some((endpoint, model, _turn)) = real_model("real_model::a_call_written_as_text") else {
        return;
    };
    let slm = slm(&endpoint, &model);
    let tools = crate::util::repo_root().join("examples/tools.json");
    let tools = tools.to_str().unwrap();
    // Nothing constrains the model: the tools go native (which this model's chat template
    // drops) and are described in the system message, and what it writes is read as text.
    let prompts = [
        "Read the file README.md",
        "Write the Python call read_file(path='README.md')",
        "Run the command ls -la",
        "List the directory src",
    ];
    let mut written = 0;
    for prompt in prompts {
        let run = generate(
            &slm,
            &[
                "--tools",
                tools,
                "--tool-choice",
                "required",
                "--mechanism",
                "prompt_only",
                "--max-tokens",
                "256",
                "--prompt",
                prompt,
            ],
        );
        let out = run.json();
        let meta = &out["meta"];
        assert_eq!(meta["tools"]["carried"], "native_tools", "{out}");
        for reask in meta["reasks"].as_array().unwrap() {
            let class = reask["class"].as_str().unwrap();
            let expected = TOOL_REASKS
                .iter()
                .find(|(known, _)| *known == class)
                .unwrap_or_else(|| panic!("{prompt}: a tool turn re-asked for {class}"));
            assert_eq!(reask["action"], expected.1, "{prompt}: {reask}");
            if ["unknown_tool", "invalid_arguments"].contains(&class) {
                written += 1;
            }
        }
        match run.code {
            0 => {
                let calls = out["value"]["tool_calls"].as_array().unwrap();
                for call in calls {
                    assert!(call["origin"]["text"].is_string(), "{prompt}: {call}");
                }
                written += calls.len();
            }
            3 | 4 | 5 | 7 => {
                let class = out["error"]["class"].as_str().unwrap();
                assert!(
                    TOOL_REASKS.iter().any(|(known, _)| *known == class) || class == "truncated",
                    "{prompt}: {out}"
                );
            }
            other => panic!("{prompt}: exit {other}: {out}"),
        }
    }
    assert!(
        written > 0,
        "the model wrote no call as text for any of {} prompts",
        prompts.len()
    );
}

#[test]
fn under_auto_a_request_that_needs_no_tool_is_answered_in_text() {
    let Some((endpoint, model, _turn)) = real_model("real_model::under_auto") else {
        return;
    };
    let slm = slm(&endpoint, &model);
    let tools = crate::util::repo_root().join("examples/tools.json");
    let tools = tools.to_str().unwrap();
    // Two of the requests that the union of calls and an answer object turned into calls with
    // invented paths (issue 23); the call-or-text grammar leaves this model free to answer.
    for prompt in [
        "Say hello to me. Do not use any tool.",
        "What is 2+2? Answer directly.",
    ] {
        let run = generate(
            &slm,
            &[
                "--tools",
                tools,
                "--tool-choice",
                "auto",
                "--max-tokens",
                "128",
                "--prompt",
                prompt,
            ],
        );
        let out = run.json();
        assert_eq!(run.code, 0, "{prompt}: {out}");
        let meta = &out["meta"];
        assert_eq!(meta["tools"]["policy"], "call_or_text", "{out}");
        assert_eq!(meta["mechanism"], "gbnf_grammar", "{out}");
        let calls = out["value"]["tool_calls"].as_array().unwrap();
        assert!(
            calls.is_empty(),
            "{prompt}: a call where none is needed: {out}"
        );
        let content = out["value"]["content"].as_str().unwrap_or_default();
        assert!(!content.trim().is_empty(), "{prompt}: {out}");
    }
}

#[test]
fn a_tool_call_in_the_conversation_reaches_the_model_through_the_proxy() {
    let Some((endpoint, model, _turn)) = real_model("real_model::a_tool_call_in_the_conversation")
    else {
        return;
    };
    // SmolLM2's chat template renders only `content`: the native `tool_calls` of an assistant
    // message add no prompt token. The server's own count says whether the call reached the
    // model.
    let proxy = crate::serve_clients::Proxy::start(
        &endpoint,
        &model,
        &[("SLMCODE_PROBE_TIMEOUT_S", "120")],
    );
    let url = proxy.base_url();
    let conversation = |assistant: Value| {
        serde_json::json!({"max_tokens": 64, "temperature": 0,
            "tools": [
                {"type": "function", "function": {"name": "read_file",
                    "parameters": {"type": "object",
                        "properties": {"path": {"type": "string", "maxLength": 20}},
                        "required": ["path"], "additionalProperties": false}}},
                {"type": "function", "function": {"name": "list_dir",
                    "parameters": {"type": "object", "properties": {},
                        "additionalProperties": false}}}],
            // One possible call (no arguments): the first answer is valid, one request each.
            "tool_choice": {"type": "function", "function": {"name": "list_dir"}},
            "messages": [
                {"role": "user", "content": "What does src/main.rs print?"},
                assistant,
                {"role": "tool", "tool_call_id": "call_1",
                    "content": "fn main() { println!(\"hello\"); }"}]})
    };
    let with_call = conversation(serde_json::json!({"role": "assistant", "content": null,
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read_file",
            "arguments": "{\"path\": \"src/main.rs\"}"}}]}));
    let without_call = conversation(serde_json::json!({"role": "assistant", "content": ""}));
    // One request each to compare (usage sums a call's requests). The tool grammar allows
    // whitespace between tokens, and now and then the model's first answer is newlines until
    // the budget, re-asked as truncated (greedy answers vary between runs with llama.cpp's
    // prompt cache): such a call is asked again, three times at most.
    let prompt_tokens = |body: &Value| {
        let answer = (0..3)
            .map(|_| {
                let (status, answer) = crate::chat(&url, body);
                assert_eq!(status, 200, "{answer}");
                answer
            })
            .find(|answer| answer["slmcode"]["attempts"] == 1)
            .expect("no answer in one request in three calls");
        assert_eq!(
            answer["choices"][0]["message"]["tool_calls"][0]["function"]["name"],
            "list_dir"
        );
        answer["usage"]["prompt_tokens"].as_u64().unwrap()
    };
    let with = prompt_tokens(&with_call);
    let without = prompt_tokens(&without_call);
    let (code, lines) = proxy.stop();
    assert_eq!(code, Some(0), "{lines:?}");
    // The call as text is about 20 tokens: `{"name": "read_file", "arguments": {...}}`.
    assert!(
        with >= without + 15,
        "the call added {} prompt tokens ({with} with it, {without} without)",
        with.saturating_sub(without)
    );
}

/// A tool whose one parameter is a ticket id with a `pattern` (`^[A-Z]{2,4}-\d{1,5}$`).
pub(crate) const TICKET_TOOL: &str = r#"{"tools": [{"type": "function", "function": {
    "name": "open_ticket",
    "description": "Open a ticket in the tracker by its id.",
    "parameters": {
        "type": "object",
        "properties": {"ticket": {"type": "string", "pattern": "^[A-Z]{2,4}-\\d{1,5}$",
            "description": "The ticket id, a project key and a number."}},
        "required": ["ticket"],
        "additionalProperties": false
    }}}]}"#;

/// Runs `generate --tools` with [`TICKET_TOOL`] and asserts that the first answer is a valid
/// call: no re-ask, and the ticket id matches the pattern as the validator reads it.
pub(crate) fn a_patterned_parameter_is_valid_on_the_first_answer(slm: &Slm, prompt: &str) {
    let tools = slm.file("ticket_tools.json", TICKET_TOOL);
    let run = generate(
        slm,
        &[
            "--tools",
            tools.to_str().unwrap(),
            "--tool-choice",
            "required",
            "--mechanism",
            "gbnf_grammar",
            // The machine may be shared: the first answer is what counts, not its speed.
            "--call-timeout",
            "600",
            "--prompt",
            prompt,
        ],
    );
    let out = run.json();
    assert_eq!(run.code, 0, "{out}");
    let meta = &out["meta"];
    assert_eq!(meta["mechanism"], "gbnf_grammar", "{out}");
    assert_eq!(meta["reasks"], serde_json::json!([]), "{out}");
    assert_eq!(meta["attempts"], 1, "{out}");
    let calls = out["value"]["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{out}");
    let ticket = &calls[0]["arguments"]["ticket"];
    let parameter = serde_json::json!({"type": "string", "pattern": "^[A-Z]{2,4}-\\d{1,5}$"});
    assert!(schema::validate(&parameter, ticket).is_ok(), "{out}");
}

#[test]
fn a_tool_parameter_with_a_pattern_gets_a_valid_value_on_the_first_answer() {
    let Some((endpoint, model, _turn)) = real_model("real_model::a_tool_parameter_with_a_pattern")
    else {
        return;
    };
    let slm = slm(&endpoint, &model);
    for prompt in [
        "Open the ticket about the login bug.",
        "Open ticket number forty-two of the web project.",
    ] {
        a_patterned_parameter_is_valid_on_the_first_answer(&slm, prompt);
    }
}
