use serde_json::json;

use super::translate::{BadRequest, Route, classify};
use super::*;
use crate::call::OutputSchema;
use crate::tools::ToolChoice;

fn structured(body: serde_json::Value) -> Box<translate::Structured> {
    match classify(&body) {
        Ok(Route::Structured(structured)) => structured,
        other => panic!("expected the call path for {body}: {other:?}"),
    }
}

#[test]
fn only_response_format_and_callable_tools_take_the_call_path() {
    let messages = json!([{"role": "user", "content": "hi"}]);
    for body in [
        json!({"messages": messages}),
        json!({"messages": messages, "response_format": {"type": "text"}}),
        json!({"messages": messages, "response_format": null, "tools": []}),
        json!({"messages": messages, "tool_choice": "none",
            "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]}),
    ] {
        assert!(matches!(classify(&body), Ok(Route::Passthrough)), "{body}");
    }
    let tools = structured(json!({"messages": messages, "parallel_tool_calls": false,
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}],
        "tool_choice": {"type": "function", "function": {"name": "f"}}}));
    assert!(tools.tools());
    assert_eq!(
        tools.request.tool_choice,
        Some(ToolChoice::Tool("f".to_owned()))
    );
    assert_eq!(tools.request.serial_tools, Some(true));
    assert_eq!(tools.request.schema, None);
}

#[test]
fn the_clients_schema_budget_seed_temperature_and_stream_carry_over() {
    let request = structured(json!({"model": "m", "stream": true,
        "stream_options": {"include_usage": true}, "max_completion_tokens": 300, "seed": 7,
        "temperature": 0.4,
        "messages": [{"role": "developer", "content": "be brief"},
            {"role": "user", "content": [{"type": "text", "text": "a "}, {"type": "text", "text": "b"}]}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "thing",
            "description": "what a thing is", "schema": {"type": "object"}}}}));
    assert!(!request.tools());
    assert_eq!(request.request.max_tokens, Some(300));
    assert_eq!(request.request.seed, Some(7));
    assert_eq!(request.request.temperature, Some(0.4));
    assert!(request.ask.stream && request.ask.include_usage);
    assert_eq!(request.ask.model.as_deref(), Some("m"));
    assert_eq!(request.request.messages[0].role, "system");
    assert_eq!(request.request.messages[1].content.as_deref(), Some("a b"));
    assert_eq!(
        request.request.schema,
        Some(OutputSchema::User {
            name: "thing".to_owned(),
            schema: json!({"type": "object"}),
            prompt: Some("what a thing is".to_owned()),
        })
    );
}

#[test]
fn what_the_call_path_cannot_take_is_a_bad_request_naming_the_field() {
    let param = |body: serde_json::Value| match classify(&body) {
        Err(BadRequest { param, .. }) => param,
        other => panic!("expected a bad request for {body}: {other:?}"),
    };
    let format = json!({"type": "json_object"});
    assert_eq!(param(json!([])), None);
    assert_eq!(
        param(json!({"response_format": {"type": "xml"}})).as_deref(),
        Some("response_format.type")
    );
    assert_eq!(
        param(json!({"response_format": {"type": "json_schema"}})).as_deref(),
        Some("response_format.json_schema")
    );
    assert_eq!(
        param(json!({"response_format": format, "messages": "hi"})).as_deref(),
        Some("messages")
    );
    assert_eq!(
        param(json!({"response_format": format, "messages": [{"content": "x"}]})).as_deref(),
        Some("messages[0]")
    );
    assert_eq!(
        param(json!({"response_format": format, "max_tokens": 0,
            "messages": [{"role": "user", "content": "x"}]}))
        .as_deref(),
        Some("max_tokens")
    );
    assert_eq!(
        param(json!({"response_format": format, "temperature": 3,
            "messages": [{"role": "user", "content": "x"}]}))
        .as_deref(),
        Some("temperature")
    );
    assert_eq!(
        param(json!({"tools": [{"type": "function"}],
            "messages": [{"role": "user", "content": "x"}]}))
        .as_deref(),
        Some("tools")
    );
}

#[test]
fn a_log_line_names_the_path_and_the_call_and_quotes_content_it_is_given() {
    let record = LogRecord {
        method: "POST".to_owned(),
        path: "/v1/chat/completions".to_owned(),
        status: 422,
        kind: RequestKind::Structured,
        stream: true,
        mechanism: Some("json_schema".to_owned()),
        rung: None,
        reasks: Some(1),
        class: Some("wrong_shape".to_owned()),
        request: None,
        answer: None,
        duration_ms: 12,
    };
    assert_eq!(
        record.to_string(),
        "POST /v1/chat/completions 422 structured stream mechanism=json_schema reasks=1 class=wrong_shape 12ms"
    );
    // Content is in a record only under --log-content (tests/cli/serve_structured.rs checks a
    // log without it); when it is, a line break in it cannot start a line of its own.
    let told = LogRecord {
        request: Some("hi\nPOST /forged 200".to_owned()),
        answer: Some("{\"a\": 1}".to_owned()),
        ..record
    };
    assert_eq!(
        told.to_string(),
        "POST /v1/chat/completions 422 structured stream mechanism=json_schema reasks=1 \
         class=wrong_shape 12ms request=\"hi\\nPOST /forged 200\" answer=\"{\\\"a\\\": 1}\""
    );
}

#[test]
fn slots_are_limited_and_given_back() {
    let live = state::Live::default();
    assert!(live.enter(2));
    assert!(live.enter(2));
    assert!(!live.enter(2));
    live.count_refused(true);
    live.leave();
    assert!(live.enter(2));
    let counters = live.snapshot();
    assert_eq!(counters.in_flight, 2);
    assert_eq!(
        counters.requests, 4,
        "three slots taken and one busy refusal"
    );
    assert_eq!(counters.busy, 1);
}

#[test]
fn the_state_file_is_written_read_and_removed_only_by_its_proxy() {
    let dir = tempfile::tempdir().unwrap();
    let state = ServeState {
        address: "127.0.0.1:1".to_owned(),
        pid: 42,
        started_at: 1,
        endpoint: "http://127.0.0.1:2/v1".to_owned(),
    };
    write_state(dir.path(), &state).unwrap();
    assert_eq!(read_state(dir.path()), Some(state));
    remove_state(dir.path(), 43);
    assert!(
        read_state(dir.path()).is_some(),
        "another proxy's file stays"
    );
    remove_state(dir.path(), 42);
    assert_eq!(read_state(dir.path()), None);
}

#[test]
fn a_key_is_masked_in_streamed_bytes_even_when_split_between_pieces() {
    let key = "sk-upstream-secret";
    let text = format!("{{\"model\": \"{key}\"}} and {key}{key}, then sk-up");
    let bytes = text.as_bytes();
    let expected = text.replace(key, "<redacted>");
    // Every way of cutting the text in two, and one byte at a time.
    for cut in 0..=bytes.len() {
        let mut masker = http::Masker::new(Some(key));
        let mut out = masker.push(&bytes[..cut]);
        out.extend(masker.push(&bytes[cut..]));
        out.extend(masker.finish());
        assert_eq!(String::from_utf8(out).unwrap(), expected, "cut at {cut}");
    }
    let mut masker = http::Masker::new(Some(key));
    let mut out = Vec::new();
    for byte in bytes {
        out.extend(masker.push(std::slice::from_ref(byte)));
    }
    out.extend(masker.finish());
    assert_eq!(String::from_utf8(out).unwrap(), expected);
    let mut unmasked = http::Masker::new(None);
    assert_eq!(unmasked.push(bytes), bytes);
    assert!(unmasked.finish().is_empty());
}
