//! Seed 004's backstop, `text_fallback`: when every attempt failed, `generate` prints the last
//! answer's text with a warning and exits 8, and `serve` answers it as ordinary content (whole
//! and streamed) with the failure in `slmcode` and the `x-slmcode-failure` header; each counted
//! in capabilities.json. Off by default: the failure stays a failure.

use serde_json::{Value, json};

use crate::emulator::{Emulator, Profile};
use crate::serve::{Served, header, post, streamed_answer};
use crate::serve_structured::structured_body;
use crate::util::{Slm, scope};

/// A scratch world in front of `emulator` (llama.cpp) with structured decoding off: the answers
/// are what its script says; one re-ask.
fn unconstrained(emulator: &Emulator) -> Slm {
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url())
        .env("SLMCODE_STRUCTURED_DECODING", "off")
        .env("SLMCODE_REASK", "1");
    slm
}

/// The text fallbacks capabilities.json counts, over every entry.
fn recorded(slm: &Slm) -> Vec<Value> {
    let text = std::fs::read_to_string(slm.config_dir().join("capabilities.json"))
        .expect("capabilities.json written");
    let file: Value = serde_json::from_str(&text).unwrap();
    file["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|entry| entry.get("text_fallbacks").cloned())
        .collect()
}

#[test]
fn generate_prints_the_last_answer_with_a_warning_and_exits_8() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = unconstrained(&emulator);
    slm.env("SLMCODE_TEXT_FALLBACK", "true");
    emulator.answers(["I cannot answer that.", "It is in scope: docs help."]);
    let run = slm.run(scope(&[]), "");
    run.code(8);
    assert_eq!(run.stdout, "It is in scope: docs help.\n");
    assert_eq!(
        run.stderr,
        "warning: no valid answer, so the last one is printed as it came (text_fallback is on): \
         the answer held no JSON after 2 attempts (prompt_only, structured_decoding is off: \
         nothing constrained the output): the input holds no JSON object or array\n"
    );
    let counted = recorded(&slm);
    assert_eq!(counted.len(), 1, "{counted:?}");
    assert_eq!(counted[0]["count"], 1);
    assert_eq!(counted[0]["last_class"], "prose");

    // --json: the text beside the failure it stands in for; counted again.
    emulator.answers(["No.", "{\"reason\": \"docs\", \"in_scope\": [1, 2]}"]);
    let run = slm.run(scope(&["--json"]), "");
    run.code(8);
    let json = run.json();
    assert_eq!(json["text"], "{\"reason\": \"docs\", \"in_scope\": [1, 2]}");
    let error = &json["error"];
    assert_eq!(error["kind"], "text_fallback");
    assert_eq!(error["exit_code"], 8);
    assert_eq!(error["class"], "wrong_shape");
    assert_eq!(error["errors"][0]["pointer"], "/in_scope", "{error}");
    assert_eq!(json["meta"]["attempts"], 2);
    assert!(
        run.stderr.starts_with("warning: no valid answer"),
        "{}",
        run.stderr
    );
    let counted = recorded(&slm);
    assert_eq!(counted[0]["count"], 2);
    assert_eq!(counted[0]["last_class"], "wrong_shape");
}

#[test]
fn generate_keeps_failing_when_it_is_off_or_the_answer_was_blank() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = unconstrained(&emulator);
    // Off by default.
    emulator.answers(["No.", "Still no."]);
    let run = slm.run(scope(&[]), "");
    run.code(3);
    assert!(run.stdout.is_empty());
    // The flag turns it on for one run, and off again over the environment.
    emulator.answers(["No.", "Still no."]);
    let run = slm.run(scope(&["--text-fallback", "on"]), "");
    run.code(8);
    assert_eq!(run.stdout, "Still no.\n");
    slm.env("SLMCODE_TEXT_FALLBACK", "true");
    emulator.answers(["No.", "Still no."]);
    slm.run(scope(&["--text-fallback", "false"]), "").code(3);
    // An answer of nothing but whitespace leaves nothing to fall back to.
    emulator.answers(["", " \n"]);
    let run = slm.run(scope(&[]), "");
    run.code(3);
    assert!(run.stdout.is_empty());
    assert!(
        run.stderr.starts_with("error: the answer was empty"),
        "{}",
        run.stderr
    );
    assert_eq!(recorded(&slm)[0]["count"], 1, "only the fallback counted");
    // A bad value is a usage error.
    let run = slm.run(scope(&["--text-fallback", "maybe"]), "");
    run.code(2);
}

#[test]
fn serve_answers_the_last_answer_as_content_with_the_failure_beside_it() {
    let emulator = Emulator::start(Profile::llama_cpp_python());
    let slm = unconstrained(&emulator);
    let served = Served::start(&slm, &["--text-fallback", "true"]);
    emulator.answers(["Ada is 36.".to_owned(), "Ada, aged 36.".to_owned()]);
    let (status, headers, text) = post(
        &served.url("/v1/chat/completions"),
        &structured_body(false),
        None,
    );
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["object"], "chat.completion");
    assert_eq!(answer["choices"][0]["message"]["content"], "Ada, aged 36.");
    assert_eq!(answer["choices"][0]["finish_reason"], "stop");
    assert!(answer["choices"][0]["message"].get("tool_calls").is_none());
    let failure = &answer["slmcode"]["failure"];
    assert_eq!(failure["class"], "prose");
    assert!(
        failure["message"]
            .as_str()
            .unwrap()
            .starts_with("the answer held no JSON after 2 attempts"),
        "{failure}"
    );
    assert_eq!(failure["errors"], json!([]));
    assert_eq!(answer["slmcode"]["attempts"], 2);
    assert_eq!(answer["usage"]["prompt_tokens"], 40, "both attempts");
    assert_eq!(header(&headers, "x-slmcode-failure"), Some("prose"));
    assert_eq!(header(&headers, "x-slmcode-rung"), Some("failed"));
    assert_eq!(header(&headers, "x-slmcode-class"), None, "not an error");
    served.wait_for_line(
        "POST /v1/chat/completions 200 structured mechanism=prompt_only reasks=1 class=prose",
    );

    // Streamed: the same text as chunks, the failure on the chunk that ends it.
    emulator.answers([
        "{\"name\": \"Ada\"}".to_owned(),
        "{\"name\": \"Ada\", \"age\": \"old\"}".to_owned(),
    ]);
    let (status, headers, text) = post(
        &served.url("/v1/chat/completions"),
        &structured_body(true),
        None,
    );
    assert_eq!(status, 200, "{text}");
    assert_eq!(header(&headers, "content-type"), Some("text/event-stream"));
    // The stream's head left before the call ended: the class is in the last chunk only.
    assert_eq!(header(&headers, "x-slmcode-failure"), None);
    let (chunks, content) = streamed_answer(&text);
    assert_eq!(content, "{\"name\": \"Ada\", \"age\": \"old\"}");
    let last = chunks
        .iter()
        .find(|chunk| chunk.pointer("/choices/0/finish_reason") == Some(&json!("stop")))
        .expect("a chunk that ends the answer");
    assert_eq!(last["slmcode"]["failure"]["class"], "wrong_shape");
    assert_eq!(
        last["slmcode"]["failure"]["errors"][0]["pointer"], "/age",
        "{last}"
    );
    assert_eq!(chunks.last().unwrap()["usage"]["prompt_tokens"], 40);
    served.wait_for_line("200 structured stream mechanism=prompt_only reasks=1 class=wrong_shape");

    // The server cut the last answer: its finish reason says so.
    let whole = "{\"name\": \"Ada\", \"age\": 36}".to_owned();
    emulator.answers([whole.clone(), whole]);
    let body = json!({"messages": [{"role": "user", "content": "x"}], "max_tokens": 5,
        "response_format": {"type": "json_object"}});
    let (status, headers, text) = post(&served.url("/v1/chat/completions"), &body, None);
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["choices"][0]["message"]["content"], "{\"name\": \"");
    assert_eq!(answer["choices"][0]["finish_reason"], "length");
    assert_eq!(header(&headers, "x-slmcode-failure"), Some("truncated"));
    let counted = recorded(&slm);
    assert_eq!(counted[0]["count"], 3, "{counted:?}");
    assert_eq!(counted[0]["last_class"], "truncated");
}

#[test]
fn serve_without_the_setting_still_answers_422() {
    let emulator = Emulator::start(Profile::llama_cpp_python());
    let slm = unconstrained(&emulator);
    let served = Served::start(&slm, &[]);
    emulator.answers(["Ada is 36.".to_owned(), "Ada, aged 36.".to_owned()]);
    let (status, headers, text) = post(
        &served.url("/v1/chat/completions"),
        &structured_body(false),
        None,
    );
    assert_eq!(status, 422, "{text}");
    assert_eq!(header(&headers, "x-slmcode-failure"), None);
    assert_eq!(header(&headers, "x-slmcode-class"), Some("prose"));
}
