//! Unit tests of the event reader and the chunk assembler; the exchange that reads them is tested
//! against the emulator (`backends::tests`) and the real server (`tests/e2e`).

use std::io::Cursor;

use serde_json::json;

use super::*;

fn events(text: &str) -> Vec<Event> {
    let mut reader = EventReader::new(Cursor::new(text.as_bytes().to_vec()));
    let mut all = Vec::new();
    loop {
        let event = reader.next_event().unwrap();
        let done = event == Event::Done;
        all.push(event);
        if done {
            return all;
        }
    }
}

#[test]
fn events_are_split_on_blank_lines_with_comments_and_other_fields_skipped() {
    let text = ": keep-alive\n\ndata: {\"a\":1}\n\nevent: message\nid: 7\ndata: {\"b\":\r\ndata: 2}\r\n\r\ndata:[DONE]\n\ndata: {\"late\":1}\n\n";
    assert_eq!(
        events(text),
        [
            Event::Data("{\"a\":1}".to_owned()),
            Event::Data("{\"b\":\n2}".to_owned()),
            Event::Done
        ]
    );
}

#[test]
fn an_error_field_and_a_body_that_ends_without_done() {
    assert_eq!(
        events("data: {\"x\":1}\n\nerror: {\"message\":\"boom\"}\n\n"),
        [
            Event::Data("{\"x\":1}".to_owned()),
            Event::Error("{\"message\":\"boom\"}".to_owned()),
            Event::Done,
        ]
    );
    assert_eq!(
        events("data: {\"x\":1}"),
        [Event::Data("{\"x\":1}".to_owned()), Event::Done]
    );
    assert_eq!(events(""), [Event::Done]);
}

#[test]
fn a_line_without_end_is_refused_past_the_bound() {
    let long = format!("data: {}", "x".repeat(MAX_LINE + 10));
    let mut reader = EventReader::new(Cursor::new(long.into_bytes()));
    let error = reader.next_event().unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::InvalidData);
    assert!(error.to_string().contains("longer than"), "{error}");
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
}

#[test]
fn content_reasoning_tool_calls_finish_and_usage_are_assembled() {
    let mut assembler = Assembler::new();
    assembler
        .add(&chunk(json!({"role": "assistant", "content": null}), None))
        .unwrap();
    let added = assembler
        .add(&chunk(json!({"reasoning_content": "hm"}), None))
        .unwrap();
    assert_eq!(
        added,
        Added {
            content: 0,
            reasoning: 2
        }
    );
    assembler
        .add(&chunk(json!({"content": "{\"a\""}), None))
        .unwrap();
    assembler
        .add(&chunk(json!({"content": ": 1}"}), None))
        .unwrap();
    assembler
        .add(&chunk(
            json!({"tool_calls": [{"index": 1, "id": "call_b", "function": {"name": "se", "arguments": "{\"q\""}}]}),
            None,
        ))
        .unwrap();
    assembler
        .add(&chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_a", "function": {"name": "read", "arguments": ""}}]}),
            None,
        ))
        .unwrap();
    assembler
        .add(&chunk(
            json!({"tool_calls": [{"index": 1, "function": {"name": "arch", "arguments": ": \"x\"}"}}]}),
            None,
        ))
        .unwrap();
    assembler
        .add(&chunk(json!({}), Some("tool_calls")))
        .unwrap();
    assembler
        .add(&json!({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9}}))
        .unwrap();
    assert_eq!(assembler.text_chunks, 3);
    let response = assembler.finish();
    assert_eq!(response.content.as_deref(), Some("{\"a\": 1}"));
    assert_eq!(response.reasoning.as_deref(), Some("hm"));
    assert_eq!(response.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(response.model.as_deref(), Some("m"));
    assert_eq!(response.usage.completion_tokens, Some(4));
    let calls: Vec<(&str, &str, &str)> = response
        .tool_calls
        .iter()
        .map(|call| {
            (
                call.id.as_deref().unwrap(),
                call.name.as_str(),
                call.arguments.as_str(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("call_a", "read", ""),
            ("call_b", "search", "{\"q\": \"x\"}")
        ]
    );
}

#[test]
fn a_chunk_with_an_error_member_is_the_servers_failure() {
    let mut assembler = Assembler::new();
    let error = assembler
        .add(&json!({"error": {"message": "out of memory", "code": 500}}))
        .unwrap_err();
    assert_eq!(error, "out of memory");
}

#[test]
fn a_tool_call_only_answer_has_no_content() {
    let mut assembler = Assembler::new();
    assembler
        .add(&chunk(
            json!({"tool_calls": [{"index": 0, "function": {"name": "read", "arguments": "{}"}}]}),
            Some("tool_calls"),
        ))
        .unwrap();
    assert_eq!(assembler.finish().content, None);
}

#[test]
fn reasoning_under_any_of_its_names_is_kept_once() {
    // vLLM sends the same delta under both of its names; Ollama calls it `thinking`.
    let mut assembler = Assembler::new();
    assembler
        .add(&chunk(
            json!({"reasoning_content": "let me ", "reasoning": "let me "}),
            None,
        ))
        .unwrap();
    assembler
        .add(&chunk(json!({"thinking": "see"}), None))
        .unwrap();
    assembler
        .add(&chunk(json!({"content": "{}"}), Some("stop")))
        .unwrap();
    let response = assembler.finish();
    assert_eq!(response.reasoning.as_deref(), Some("let me see"));
    assert_eq!(response.content.as_deref(), Some("{}"));
}
