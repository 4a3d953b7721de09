use serde_json::json;

use super::*;
use crate::schema::gbnf::Whitespace;
use crate::tools::{CallSource, ToolSet};

fn tools() -> ToolSet {
    ToolSet::from_value(&json!([
        {"name": "read_file", "parameters": {"type": "object",
            "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["path"], "additionalProperties": false}},
        {"name": "list_dir"}
    ]))
    .unwrap()
}

fn turn(choice: ToolChoice, serial: bool) -> ToolTurn {
    ToolTurn::new(&tools(), Some(choice), None, serial, Whitespace::Compact)
        .unwrap()
        .unwrap()
}

fn native(id: Option<&str>, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.map(str::to_owned),
        name: name.to_owned(),
        arguments: arguments.to_owned(),
    }
}

fn calls(read: &TurnRead) -> &[ParsedToolCall] {
    match &read.answer {
        Answer::Tools { calls, .. } => calls,
        Answer::Value(_) => panic!("not a tool answer"),
    }
}

fn class(result: Result<TurnRead, TurnFailure>) -> (FailureClass, Option<String>) {
    let failure = result.expect_err("a failure");
    (failure.failure.class, failure.called)
}

#[test]
fn native_arguments_are_repaired_validated_and_keep_their_ids() {
    let turn = turn(ToolChoice::Required, false);
    let read = read(
        &turn,
        &[
            native(
                Some("call_9"),
                "read_file",
                "{'path': 'a.rs', 'limit': '10',}",
            ),
            native(None, "list_dir", ""),
        ],
        None,
        false,
        None,
    )
    .unwrap();
    let calls = calls(&read);
    assert_eq!(calls[0].id, "call_9");
    assert_eq!(calls[0].arguments, json!({"path": "a.rs", "limit": 10}));
    assert_eq!(calls[0].origin, CallOrigin::Native);
    assert!(calls[0].rung > Rung::None, "repaired: {:?}", calls[0].rung);
    assert_eq!(read.rung, calls[0].rung);
    assert_eq!(calls[1].arguments, json!({}));
    assert_eq!(
        calls[1].id,
        tools::call_id("list_dir", &json!({})),
        "no id: derived"
    );
    assert_eq!(read.dropped, 0);
}

#[test]
fn native_failures_have_their_own_classes() {
    let required = turn(ToolChoice::Required, true);
    assert_eq!(
        class(read(
            &required,
            &[native(None, "open", "{}")],
            None,
            false,
            None
        )),
        (FailureClass::UnknownTool, Some("open".to_owned()))
    );
    let bad = read(
        &required,
        &[native(None, "read_file", "{\"path\": {\"x\": 1}}")],
        None,
        false,
        None,
    );
    let failure = bad.expect_err("invalid").failure;
    assert_eq!(failure.class, FailureClass::InvalidArguments);
    assert_eq!(failure.errors[0].pointer, "/path");
    assert_eq!(
        class(read(
            &required,
            &[native(None, "read_file", "{\"path\": \"a")],
            None,
            false,
            None
        ))
        .0,
        FailureClass::Truncated
    );
    let named = turn(ToolChoice::Tool("read_file".into()), true);
    assert_eq!(
        class(read(
            &named,
            &[native(None, "list_dir", "{}")],
            None,
            false,
            None
        )),
        (FailureClass::ToolNotChosen, Some("list_dir".to_owned()))
    );
}

#[test]
fn serial_tools_keep_the_first_native_call_and_count_the_rest() {
    let turn = turn(ToolChoice::Required, true);
    let read = read(
        &turn,
        &[
            native(Some("a"), "list_dir", "{}"),
            native(Some("b"), "read_file", "{\"path\": \"x\"}"),
            native(Some("c"), "no_such_tool", "{}"),
        ],
        Some("checking"),
        false,
        None,
    )
    .unwrap();
    assert_eq!(calls(&read).len(), 1);
    assert_eq!(read.dropped, 2);
    assert!(
        matches!(&read.answer, Answer::Tools { content: Some(text), .. } if text == "checking")
    );
}

#[test]
fn calls_written_as_text_are_extracted_with_a_content_id() {
    let turn = turn(ToolChoice::Required, true);
    let text = "I will read it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}\n</tool_call>\n<tool_call>{\"name\": \"list_dir\", \"arguments\": {}}</tool_call>";
    let read = read(&turn, &[], Some(text), false, None).unwrap();
    let call = &calls(&read)[0];
    assert_eq!(call.name, "read_file");
    assert_eq!(call.origin, CallOrigin::Text(CallSource::ToolCallTag));
    assert_eq!(
        call.id,
        tools::call_id("read_file", &json!({"path": "README.md"}))
    );
    assert_eq!(read.dropped, 1);
    let python = read_text(&turn, "read_file(path=\"src/main.rs\", **{\"limit\": 5})");
    assert_eq!(
        calls(&python)[0].arguments,
        json!({"path": "src/main.rs", "limit": 5})
    );
}

fn read_text(turn: &ToolTurn, text: &str) -> TurnRead {
    read(turn, &[], Some(text), false, None).unwrap()
}

#[test]
fn text_failures_have_their_classes_and_the_tool_named() {
    let required = turn(ToolChoice::Required, true);
    assert_eq!(
        class(read(
            &required,
            &[],
            Some("I cannot call tools."),
            false,
            None
        ))
        .0,
        FailureClass::Prose
    );
    assert_eq!(
        class(read(&required, &[], Some("  "), false, None)).0,
        FailureClass::Empty
    );
    assert_eq!(
        class(read(
            &required,
            &[],
            Some("{\"name\": \"open\", \"arguments\": {}}"),
            false,
            None
        )),
        (FailureClass::UnknownTool, Some("open".to_owned()))
    );
    assert_eq!(
        class(read(
            &required,
            &[],
            Some("{\"name\": \"read_file\", \"arguments\": {\"path\": {\"x\": 1}}}"),
            false,
            None
        )),
        (FailureClass::InvalidArguments, Some("read_file".to_owned()))
    );
    assert_eq!(
        class(read(
            &required,
            &[],
            Some("{\"name\": \"read_file\", \"arguments\": {\"pa"),
            true,
            None
        ))
        .0,
        FailureClass::Truncated
    );
    let named = turn(ToolChoice::Tool("list_dir".into()), true);
    assert_eq!(
        class(read(
            &named,
            &[],
            Some("{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}"),
            false,
            None
        ))
        .0,
        FailureClass::ToolNotChosen
    );
}

#[test]
fn auto_reads_a_plain_answer_as_content_or_the_schemas_value() {
    let auto = turn(ToolChoice::Auto, true);
    let prose = read_text(&auto, "It is a CLI.");
    assert!(
        matches!(prose.answer, Answer::Tools { content: Some(text), .. } if text == "It is a CLI.")
    );
    let schema = json!({"type": "object", "properties": {"ok": {"type": "boolean"}},
        "required": ["ok"], "additionalProperties": false});
    let with_schema = ToolTurn::new(&tools(), None, Some(&schema), true, Whitespace::Compact)
        .unwrap()
        .unwrap();
    let options = RepairOptions::new().schema(&schema).unwrap();
    let value = read(
        &with_schema,
        &[],
        Some("```json\n{\"ok\": true}\n```"),
        false,
        Some(&options),
    )
    .unwrap();
    assert_eq!(value.answer, Answer::Value(json!({"ok": true})));
    assert_eq!(value.rung, Rung::Fence);
    let wrong = read(
        &with_schema,
        &[],
        Some("{\"ok\": 3}"),
        false,
        Some(&options),
    );
    assert_eq!(class(wrong).0, FailureClass::WrongShape);
}

#[test]
fn none_takes_the_text_as_it_is() {
    let none = turn(ToolChoice::None, true);
    let answered = read(
        &none,
        &[native(None, "read_file", "{}")],
        Some("Hello."),
        false,
        None,
    )
    .unwrap();
    assert_eq!(
        answered.answer,
        Answer::Tools {
            calls: Vec::new(),
            content: Some("Hello.".to_owned())
        }
    );
}

#[test]
fn under_auto_prose_that_holds_call_like_text_is_the_answer() {
    let auto = turn(ToolChoice::Auto, true);
    // SmolLM2 through the proxy under PydanticAI's auto: prose, then code with an object that
    // reads as a cut-off call.
    let prose = "Here's a concise version of your code:\n```javascript\nconsole.log(new \
                 FileWriter({name:'test',filename:\"test.txt\",";
    let answered = read_text(&auto, prose);
    assert!(
        matches!(&answered.answer, Answer::Tools { calls, content: Some(text) } if calls.is_empty() && text == prose),
        "{answered:?}"
    );
    let unknown = "Try this: {\"name\": \"delete_everything\", \"arguments\": {}}";
    assert!(matches!(
        read_text(&auto, unknown).answer,
        Answer::Tools { ref calls, .. } if calls.is_empty()
    ));
    // An answer that opens a call is a call attempt: a cut-off one is a failure to re-ask.
    let cut = read(
        &auto,
        &[],
        Some("{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/ma"),
        true,
        None,
    )
    .unwrap_err();
    assert_eq!(cut.failure.class, FailureClass::Truncated);
    // Under required the same prose is no call at all.
    let required = turn(ToolChoice::Required, true);
    assert!(read(&required, &[], Some(unknown), false, None).is_err());
}

#[test]
fn under_auto_only_calls_already_answered_are_a_repeated_call() {
    let mut auto = turn(ToolChoice::Auto, true);
    auto.answered = [crate::tools::call_id(
        "read_file",
        &json!({"path": "README.md"}),
    )]
    .into();
    let again = read(
        &auto,
        &[],
        Some(r#"{"name": "read_file", "arguments": {"path": "README.md"}}"#),
        false,
        None,
    )
    .unwrap_err();
    assert_eq!(again.failure.class, FailureClass::RepeatedCall);
    assert_eq!(again.called.as_deref(), Some("read_file"));
    // The same call natively, with the keys in another order: the same content.
    let native_again = read(
        &auto,
        &[native(Some("x"), "read_file", r#"{"path":"README.md"}"#)],
        None,
        false,
        None,
    )
    .unwrap_err();
    assert_eq!(native_again.failure.class, FailureClass::RepeatedCall);
    // Another file, or a text answer, is fine.
    let other = read_text(
        &auto,
        r#"{"name": "read_file", "arguments": {"path": "Cargo.toml"}}"#,
    );
    assert!(matches!(other.answer, Answer::Tools { ref calls, .. } if calls.len() == 1));
    read_text(&auto, "The README says hello.");
    // Under required a call is what was asked for, repeated or not.
    let mut required = turn(ToolChoice::Required, true);
    required.answered = auto.answered.clone();
    read_text(
        &required,
        r#"{"name": "read_file", "arguments": {"path": "README.md"}}"#,
    );
}
