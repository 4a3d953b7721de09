//! `slmcode serve` through the real binary in front of the engine emulator: `response_format`
//! and `tools` requests through the call path, whole and streamed (a streaming client kept from
//! its read timeout while the call runs, a failure as an event), re-asks, failures in OpenAI's
//! error shape, and what the log shows of them.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::emulator::{Emulator, Fault, Profile, Scripted};
use crate::serve::{Served, events, header, post, streamed_answer};
use crate::util::{Slm, slm_for};

fn schema() -> Value {
    json!({"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
        "required": ["name", "age"], "additionalProperties": false})
}

pub fn structured_body(stream: bool) -> Value {
    json!({"model": "client-model", "stream": stream, "stream_options": {"include_usage": true},
        "messages": [{"role": "user", "content": "Name someone and their age."}],
        "response_format": {"type": "json_schema",
            "json_schema": {"name": "person", "schema": schema(), "strict": true}}})
}

fn tools_body(stream: bool) -> Value {
    json!({"model": "client-model", "stream": stream, "tool_choice": "required",
        "messages": [{"role": "user", "content": "Read Cargo.toml"}],
        "tools": [{"type": "function", "function": {"name": "read_file",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                "required": ["path"], "additionalProperties": false}}}]})
}

/// A scratch world in front of `emulator` with structured decoding off: the answers are what
/// its script says, repaired and validated by slmcode alone.
fn unconstrained(emulator: &Emulator) -> Slm {
    let mut slm = Slm::new();
    slm.env("SLMCODE_ENDPOINT", &emulator.base_url())
        .env("SLMCODE_STRUCTURED_DECODING", "off");
    slm
}

fn valid(value: &Value) -> bool {
    jsonschema::is_valid(&schema(), value)
}

#[test]
fn a_json_schema_request_gets_the_validated_value_with_meta_headers_and_summed_usage() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    let (status, headers, text) = post(
        &served.url("/v1/chat/completions"),
        &structured_body(false),
        None,
    );
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["object"], "chat.completion");
    assert_eq!(answer["model"], "client-model");
    assert_eq!(answer["choices"][0]["finish_reason"], "stop");
    let content: Value =
        serde_json::from_str(answer["choices"][0]["message"]["content"].as_str().unwrap()).unwrap();
    assert!(valid(&content), "{content}");
    // llama-server: the derived grammar carried the constraint, not the client's json_schema.
    let sent = emulator.chat_bodies().pop().unwrap();
    assert!(sent.get("grammar").is_some(), "{sent}");
    assert_eq!(
        header(&headers, "x-slmcode-mechanism"),
        Some("gbnf_grammar")
    );
    assert_eq!(header(&headers, "x-slmcode-rung"), Some("none"));
    assert_eq!(header(&headers, "x-slmcode-reasks"), Some("0"));
    assert_eq!(header(&headers, "x-slmcode-stream-end"), Some("finished"));
    assert_eq!(answer["slmcode"]["mechanism"], "gbnf_grammar");
    assert_eq!(answer["usage"]["prompt_tokens"], 20);
    served.wait_for_line(
        "POST /v1/chat/completions 200 structured mechanism=gbnf_grammar rung=none reasks=0",
    );
}

#[test]
fn content_is_logged_only_when_asked_for() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let quiet = Served::start(&slm, &[]);
    post(
        &quiet.url("/v1/chat/completions"),
        &structured_body(false),
        None,
    );
    quiet.wait_for_line("200 structured");
    assert!(
        !quiet.lines().join("\n").contains("Name someone"),
        "{:?}",
        quiet.lines()
    );
    let told = Served::start(&slm, &["--log-content"]);
    let (_, _, text) = post(
        &told.url("/v1/chat/completions"),
        &structured_body(false),
        None,
    );
    let answer: Value = serde_json::from_str(&text).unwrap();
    let content = answer["choices"][0]["message"]["content"].as_str().unwrap();
    let line = told.wait_for_line("200 structured");
    assert!(
        line.contains("request=\"Name someone and their age.\""),
        "{line}"
    );
    assert!(line.contains(&format!("answer={content:?}")), "{line}");
}

#[test]
fn a_wrong_answer_is_reasked_and_the_usage_is_summed_over_both_attempts() {
    // An engine that ignores every constraint: the model writes what the script says.
    let emulator = Emulator::start(Profile::llama_cpp_python());
    emulator.answers([
        "Sure: {\"name\": \"Ada\"}".to_owned(),
        "{\"name\": \"Ada\", \"age\": 36}".to_owned(),
    ]);
    let slm = unconstrained(&emulator);
    let served = Served::start(&slm, &[]);
    let (status, headers, text) = post(
        &served.url("/v1/chat/completions"),
        &structured_body(false),
        None,
    );
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        answer["choices"][0]["message"]["content"],
        "{\"name\":\"Ada\",\"age\":36}"
    );
    assert_eq!(header(&headers, "x-slmcode-reasks"), Some("1"));
    assert_eq!(header(&headers, "x-slmcode-mechanism"), Some("prompt_only"));
    assert_eq!(answer["slmcode"]["reasks"][0]["class"], "wrong_shape");
    let completion = answer["usage"]["completion_tokens"].as_u64().unwrap();
    assert_eq!(answer["usage"]["prompt_tokens"], 40, "20 per attempt");
    assert!(completion > "{\"name\": \"Ada\", \"age\": 36}".len() as u64);
    served.wait_for_line("structured mechanism=prompt_only rung=none reasks=1");
}

#[test]
fn a_streaming_client_gets_the_validated_answer_as_chunks() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    let (status, headers, text) = post(
        &served.url("/v1/chat/completions"),
        &structured_body(true),
        None,
    );
    assert_eq!(status, 200, "{text}");
    assert_eq!(header(&headers, "content-type"), Some("text/event-stream"));
    // The head left before the call had an answer: the meta is in the last chunk only.
    assert_eq!(header(&headers, "x-slmcode-mechanism"), None);
    let (chunks, content) = streamed_answer(&text);
    assert!(valid(&serde_json::from_str(&content).unwrap()), "{content}");
    let finish: Vec<&Value> = chunks
        .iter()
        .filter_map(|chunk| chunk.pointer("/choices/0/finish_reason"))
        .filter(|finish| !finish.is_null())
        .collect();
    assert_eq!(finish, [&json!("stop")]);
    let last = &chunks[chunks.len() - 2];
    assert_eq!(last["slmcode"]["mechanism"], "gbnf_grammar", "{last}");
    let usage = chunks.last().unwrap();
    assert_eq!(usage["choices"], json!([]));
    assert_eq!(usage["usage"]["prompt_tokens"], 20);
    served.wait_for_line("200 structured stream mechanism=gbnf_grammar");
}

#[test]
fn json_object_asks_for_any_object() {
    let emulator = Emulator::start(Profile::llama_cpp_python());
    emulator.answers(["Here: {\"a\": 1,}".to_owned()]);
    let slm = unconstrained(&emulator);
    let served = Served::start(&slm, &[]);
    let body = json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "an object"}]}],
        "response_format": {"type": "json_object"}});
    let (status, headers, text) = post(&served.url("/v1/chat/completions"), &body, None);
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["choices"][0]["message"]["content"], "{\"a\":1}");
    assert_ne!(header(&headers, "x-slmcode-rung"), Some("none"), "repaired");
    // The text parts reached the engine as text.
    let sent = emulator.chat_bodies().pop().unwrap();
    assert!(sent.to_string().contains("an object"));
}

#[test]
fn an_exhausted_call_is_an_openai_error_with_the_class_the_errors_and_partial() {
    let emulator = Emulator::start(Profile::llama_cpp_python());
    emulator.answers([
        "{\"name\": \"Ada\", \"age\": \"old\"}".to_owned(),
        "{\"name\": \"Ada\", \"age\": \"very old\"}".to_owned(),
    ]);
    let mut slm = unconstrained(&emulator);
    slm.env("SLMCODE_REASK", "1");
    let served = Served::start(&slm, &[]);
    let (status, headers, text) = post(
        &served.url("/v1/chat/completions"),
        &structured_body(false),
        None,
    );
    assert_eq!(status, 422, "{text}");
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"]["code"], "wrong_shape");
    assert_eq!(error["error"]["class"], "wrong_shape");
    assert_eq!(error["error"]["errors"][0]["pointer"], "/age", "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("2 attempts")
    );
    assert!(error["error"].get("partial").is_some());
    assert_eq!(header(&headers, "x-slmcode-class"), Some("wrong_shape"));
    assert_eq!(header(&headers, "x-slmcode-reasks"), Some("1"));
    served.wait_for_line(
        "POST /v1/chat/completions 422 structured mechanism=prompt_only reasks=1 class=wrong_shape",
    );

    // A truncated answer keeps its complete members as partial.
    emulator.answers([
        "{\"name\": \"Ada\", \"age\": 3".to_owned(),
        "{\"name\": \"Ada\", \"age\": 3".to_owned(),
    ]);
    let body = json!({"messages": [{"role": "user", "content": "x"}], "max_tokens": 21,
        "response_format": {"type": "json_schema", "json_schema": {"name": "p", "schema": schema()}}});
    let (status, _, text) = post(&served.url("/v1/chat/completions"), &body, None);
    assert_eq!(status, 422, "{text}");
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"]["class"], "truncated", "{error}");
    assert_eq!(error["error"]["partial"], json!({"name": "Ada"}));
}

#[test]
fn a_tools_request_answers_tool_calls_with_ids_validated_against_the_parameters() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    let (status, headers, text) = post(
        &served.url("/v1/chat/completions"),
        &tools_body(false),
        None,
    );
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["choices"][0]["finish_reason"], "tool_calls");
    let call = &answer["choices"][0]["message"]["tool_calls"][0];
    assert!(call["id"].as_str().unwrap().starts_with("call_"), "{call}");
    assert_eq!(call["type"], "function");
    assert_eq!(call["function"]["name"], "read_file");
    let arguments: Value =
        serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert!(arguments["path"].is_string(), "{arguments}");
    assert_eq!(
        header(&headers, "x-slmcode-mechanism"),
        Some("gbnf_grammar")
    );
    served.wait_for_line("POST /v1/chat/completions 200 tools mechanism=gbnf_grammar");

    // Streamed: the same call as a tool_calls delta with its index.
    let (status, _, text) = post(&served.url("/v1/chat/completions"), &tools_body(true), None);
    assert_eq!(status, 200, "{text}");
    let events = events(&text);
    let delta: Value = events
        .iter()
        .filter_map(|event| serde_json::from_str::<Value>(event).ok())
        .find_map(|chunk| chunk.pointer("/choices/0/delta/tool_calls").cloned())
        .expect("a tool_calls delta");
    assert_eq!(delta[0]["index"], 0);
    assert_eq!(delta[0]["function"]["name"], "read_file");
}

#[test]
fn tools_without_a_tool_choice_are_auto_and_a_text_answer_comes_back_as_content() {
    // OpenAI's default, which frameworks rely on by leaving the field out.
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    let mut body = tools_body(false);
    body.as_object_mut().unwrap().remove("tool_choice");
    body["messages"] = json!([{"role": "user", "content": "Say hello."}]);
    // The first request negotiates (the probe's answers are the engine's own).
    let (status, _, text) = post(&served.url("/v1/chat/completions"), &body, None);
    assert_eq!(status, 200, "{text}");
    // What a model writes under the call-or-text grammar when no tool is needed.
    emulator.script([Scripted::Member("Hello! How can I help?".to_owned())]);
    let (status, _, text) = post(&served.url("/v1/chat/completions"), &body, None);
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["choices"][0]["finish_reason"], "stop", "{answer}");
    assert_eq!(
        answer["choices"][0]["message"]["content"],
        "Hello! How can I help?"
    );
    assert!(answer["choices"][0]["message"]["tool_calls"].is_null());
    assert_eq!(answer["slmcode"]["tools"]["choice"], "auto", "{answer}");
    assert_eq!(answer["slmcode"]["tools"]["policy"], "call_or_text");
    let sent = emulator.chat_bodies().pop().unwrap();
    let grammar = sent["grammar"].as_str().expect("the call-or-text grammar");
    assert!(
        grammar.starts_with("root ::= tool-call | answer-text"),
        "{grammar}"
    );
    assert!(sent.get("tools").is_none(), "the tools are in the prompt");
}

#[test]
fn a_bad_tool_call_is_reasked_and_an_answer_after_the_tool_result_goes_on() {
    let emulator = Emulator::start(Profile::llama_cpp_python());
    emulator.script([
        Scripted::ToolCalls(json!([{"id": "call_1", "type": "function",
            "function": {"name": "read_file", "arguments": "{\"file\": 1}"}}])),
        Scripted::ToolCalls(json!([{"id": "call_2", "type": "function",
            "function": {"name": "read_file", "arguments": "{\"path\": \"Cargo.toml\"}"}}])),
    ]);
    let slm = unconstrained(&emulator);
    let served = Served::start(&slm, &[]);
    let (status, headers, text) = post(
        &served.url("/v1/chat/completions"),
        &tools_body(false),
        None,
    );
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    let call = &answer["choices"][0]["message"]["tool_calls"][0];
    let id = call["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("call_"), "{call}");
    assert_eq!(call["function"]["arguments"], "{\"path\":\"Cargo.toml\"}");
    assert_eq!(header(&headers, "x-slmcode-reasks"), Some("1"));
    assert_eq!(answer["slmcode"]["reasks"][0]["class"], "invalid_arguments");

    // The harness sends the result back under the call's id; the conversation reaches the engine.
    let mut next = tools_body(false);
    next["tool_choice"] = json!("auto");
    next["messages"].as_array_mut().unwrap().extend([
        answer["choices"][0]["message"].clone(),
        json!({"role": "tool", "tool_call_id": id, "content": "[package]"}),
    ]);
    emulator.answers(["The package is slmcode.".to_owned()]);
    let (status, _, text) = post(&served.url("/v1/chat/completions"), &next, None);
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["choices"][0]["finish_reason"], "stop");
    assert_eq!(
        answer["choices"][0]["message"]["content"],
        "The package is slmcode."
    );
    let sent = emulator.chat_bodies().pop().unwrap();
    let messages = sent["messages"].as_array().unwrap();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(tool["tool_call_id"], id.as_str());
}

#[test]
fn a_conversation_too_long_for_the_context_is_a_400() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    emulator.faults([Fault::ContextOverflow]);
    let (status, _, text) = post(
        &served.url("/v1/chat/completions"),
        &structured_body(false),
        None,
    );
    assert_eq!(status, 400, "{text}");
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"]["code"], "context_overflow", "{error}");
}

/// Sends `body` on a connection of its own and reads the answer to its end as a client whose
/// read timeout is `timeout`: any wait longer than that fails the test. Returns the answer's
/// bytes as text (head, chunk sizes and all) and the longest wait between two reads.
fn read_with_timeout(address: &str, body: &Value, timeout: Duration) -> (String, Duration) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream.set_read_timeout(Some(timeout)).unwrap();
    let body = body.to_string();
    write!(
        stream,
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = Vec::new();
    let mut piece = [0; 4096];
    let mut longest = Duration::ZERO;
    let mut last = Instant::now();
    loop {
        match stream.read(&mut piece) {
            Ok(0) => break,
            Ok(read) => answer.extend_from_slice(&piece[..read]),
            Err(error) => panic!(
                "the client's read timed out ({error}) after {:?} with {:?}",
                last.elapsed(),
                String::from_utf8_lossy(&answer)
            ),
        }
        longest = longest.max(last.elapsed());
        last = Instant::now();
    }
    (String::from_utf8(answer).unwrap(), longest)
}

#[test]
fn a_client_with_a_short_read_timeout_gets_a_slow_streamed_answer() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    // The engine answers after 5 s; the client gives up on any read that waits 3 s.
    emulator.faults([Fault::Delay(Duration::from_secs(5))]);
    let started = Instant::now();
    let (text, longest) = read_with_timeout(
        &served.address,
        &structured_body(true),
        Duration::from_secs(3),
    );
    assert!(started.elapsed() >= Duration::from_secs(5), "{text}");
    assert!(longest < Duration::from_secs(3), "{longest:?}");
    assert!(text.starts_with("HTTP/1.1 200 "), "{text}");
    let comments = text
        .lines()
        .filter(|line| *line == ": slmcode processing")
        .count();
    assert!(
        comments >= 2,
        "a comment every 2 s while the call ran: {text}"
    );
    let events = events(&text);
    assert_eq!(events.last().map(String::as_str), Some("[DONE]"), "{text}");
    let content: String = events
        .iter()
        .filter_map(|event| serde_json::from_str::<Value>(event).ok())
        .filter_map(|chunk| {
            Some(
                chunk
                    .pointer("/choices/0/delta/content")?
                    .as_str()?
                    .to_owned(),
            )
        })
        .collect();
    assert!(valid(&serde_json::from_str(&content).unwrap()), "{content}");
    served.wait_for_line("200 structured stream mechanism=gbnf_grammar rung=none reasks=0");
}

#[test]
fn a_streamed_call_that_fails_ends_its_stream_with_an_error_event() {
    let emulator = Emulator::start(Profile::llama_cpp_python());
    emulator.answers(["{\"name\": \"Ada\", \"age\": \"old\"}".to_owned()]);
    let mut slm = unconstrained(&emulator);
    slm.env("SLMCODE_REASK", "0");
    let served = Served::start(&slm, &[]);
    let (status, headers, text) = post(
        &served.url("/v1/chat/completions"),
        &structured_body(true),
        None,
    );
    // The head had left with 200 before the call failed.
    assert_eq!(status, 200, "{text}");
    assert_eq!(header(&headers, "content-type"), Some("text/event-stream"));
    let events = events(&text);
    assert_eq!(events.len(), 1, "one event and no [DONE]: {text}");
    let error: Value = serde_json::from_str(&events[0]).unwrap();
    assert_eq!(error["error"]["code"], "wrong_shape", "{error}");
    assert_eq!(error["error"]["type"], "slmcode_answer_failed");
    assert_eq!(error["error"]["errors"][0]["pointer"], "/age", "{error}");
    assert_eq!(error["slmcode"]["reasks"], json!([]), "{error}");
    served.wait_for_line("200 structured stream mechanism=prompt_only reasks=0 class=wrong_shape");

    // A request that cannot be made is refused with its status before any stream starts.
    let mut body = structured_body(true);
    body["response_format"]["json_schema"]["schema"] = json!({"type": "no such type"});
    let (status, headers, text) = post(&served.url("/v1/chat/completions"), &body, None);
    assert_eq!(status, 400, "{text}");
    assert_eq!(header(&headers, "content-type"), Some("application/json"));
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"]["code"], "invalid_request", "{error}");
}

/// Two rounds of a tool conversation, as a harness sends the third request.
fn two_rounds() -> Value {
    let call = |id: &str, path: &str| {
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": id,
            "type": "function", "function": {"name": "read_file",
                "arguments": format!("{{\"path\": \"{path}\"}}")}}]})
    };
    let mut body = tools_body(false);
    body["messages"].as_array_mut().unwrap().extend([
        call("call_1", "src/main.rs"),
        json!({"role": "tool", "tool_call_id": "call_1", "content": "fn main() {}"}),
        call("call_2", "Cargo.toml"),
        json!({"role": "tool", "tool_call_id": "call_2", "content": "[package]"}),
    ]);
    body
}

/// The first body the engine got that holds a tool result (probes come before it).
fn sent_conversation(emulator: &Emulator) -> Vec<Value> {
    let body = emulator
        .chat_bodies()
        .into_iter()
        .find(|body| body.to_string().contains("\"role\":\"tool\""))
        .expect("the conversation reached the engine");
    body["messages"].as_array().unwrap().clone()
}

#[test]
fn earlier_tool_calls_reach_a_local_model_as_text_and_a_hosted_api_as_they_came() {
    // A local engine: its chat template may render only `content` (SmolLM2's does).
    let emulator = Emulator::start(Profile::llama_server());
    let served = Served::start(&slm_for(&emulator, "llamacpp"), &[]);
    let (status, _, text) = post(&served.url("/v1/chat/completions"), &two_rounds(), None);
    assert_eq!(status, 200, "{text}");
    let sent = sent_conversation(&emulator);
    let turns: Vec<&Value> = sent.iter().filter(|m| m["role"] != "system").collect();
    assert_eq!(turns.len(), 5, "{sent:?}");
    assert_eq!(
        turns[1]["content"],
        "{\"name\": \"read_file\", \"arguments\": {\"path\":\"src/main.rs\"}}"
    );
    assert_eq!(
        turns[1]["tool_calls"][0]["id"], "call_1",
        "the native call stays"
    );
    assert_eq!(
        turns[2]["content"],
        "The tool read_file (call call_1) returned:\nfn main() {}"
    );
    assert_eq!(turns[2]["tool_call_id"], "call_1");
    assert_eq!(
        turns[3]["content"],
        "{\"name\": \"read_file\", \"arguments\": {\"path\":\"Cargo.toml\"}}"
    );
    assert_eq!(
        turns[4]["content"],
        "The tool read_file (call call_2) returned:\n[package]"
    );

    // A hosted API renders the calls itself: the conversation goes as the client wrote it.
    let hosted = Emulator::start(Profile::openai());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "openai")
        .env("SLMCODE_ENDPOINT", &hosted.base_url())
        .env("SLMCODE_API_KEY", "sk-test");
    let served = Served::start(&slm, &[]);
    post(&served.url("/v1/chat/completions"), &two_rounds(), None);
    let sent = sent_conversation(&hosted);
    let turns: Vec<&Value> = sent.iter().filter(|m| m["role"] != "system").collect();
    let written = two_rounds()["messages"].as_array().unwrap().clone();
    assert_eq!(turns.len(), written.len(), "{sent:?}");
    for (sent, written) in turns.iter().zip(&written) {
        for field in ["role", "tool_calls", "tool_call_id"] {
            assert_eq!(sent.get(field), written.get(field), "{sent}");
        }
        assert_eq!(
            sent["content"].as_str().unwrap_or(""),
            written["content"].as_str().unwrap_or(""),
            "{sent}"
        );
    }
}
