//! Tool turns downstream: each failure class (`unknown_tool`, `tool_not_chosen`,
//! `invalid_arguments`, no call where one was required, a cut-off call) and the re-ask it gets,
//! as the emulator received it; never "only JSON".

use serde_json::json;

use super::emulator::{Profile, Scripted};
use super::tools::{calls, tool_request};
use super::*;
use crate::repair::FailureClass;
use crate::tools::ToolChoice;

/// A world whose answers are what the model writes: nothing constrains it.
fn open_world() -> World {
    World::new(Profile::llama_server(), Provider::LlamaCpp).off()
}

fn hosted_world() -> World {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[WireForm::JsonSchemaStrict]);
    world
}

fn native(name: &str, arguments: &str) -> Scripted {
    Scripted::ToolCalls(json!([{"id": "call_1", "type": "function",
        "function": {"name": name, "arguments": arguments}}]))
}

/// The re-ask's own message: the last one of the second request.
fn reask_text(world: &World) -> String {
    let bodies = world.emulator.chat_bodies();
    assert_eq!(bodies.len(), 2, "one answer and one re-ask");
    let messages = bodies[1]["messages"].as_array().unwrap();
    assert_eq!(
        messages.len(),
        bodies[0]["messages"].as_array().unwrap().len() + 1,
        "the original conversation plus one user message"
    );
    let last = messages.last().unwrap();
    assert_eq!(last["role"], "user");
    let text = last["content"].as_str().unwrap().to_owned();
    assert!(
        !text.contains("ONLY") && !text.contains("only JSON"),
        "{text}"
    );
    text
}

#[test]
fn an_unknown_tool_is_re_asked_with_the_tools_that_exist() {
    let world = hosted_world();
    world.emulator.script([
        native("open_file", "{\"path\": \"README.md\"}"),
        native("read_file", "{\"path\": \"README.md\"}"),
    ]);
    let outcome = world.call(&tool_request(ToolChoice::Required)).unwrap();
    let text = reask_text(&world);
    assert!(
        text.starts_with("Your previous response called open_file, which is not one of the tools. The tools are: read_file, list_dir."),
        "{text}"
    );
    assert_eq!(calls(&outcome)[0].name, "read_file");
    assert_eq!(outcome.meta.reasks[0].class, FailureClass::UnknownTool);
    assert_eq!(outcome.meta.reasks[0].action, ReaskAction::ResetPrompt);
    assert_eq!(
        outcome.meta.degrade_reason,
        Some(DegradeReason::ToolsInRequest)
    );
}

#[test]
fn bad_arguments_are_re_asked_with_the_errors_and_the_tools_parameters_then_fail_in_their_class() {
    let world = hosted_world();
    let bad = native("read_file", "{\"path\": {\"name\": \"README.md\"}}");
    world.emulator.script([bad.clone(), bad]);
    let failure = violation(world.call(&tool_request(ToolChoice::Required)).unwrap_err());
    let text = reask_text(&world);
    assert!(
        text.starts_with("The arguments of your previous read_file call do not satisfy its parameters.\nFix these errors:\n- /path: "),
        "{text}"
    );
    assert!(
        text.contains("\nThe parameters of read_file (JSON Schema): {")
            && text.contains("\"required\":[\"path\"]"),
        "{text}"
    );
    assert_eq!(failure.class, FailureClass::InvalidArguments);
    assert_eq!(failure.errors[0].pointer, "/path");
    assert!(
        failure.to_string().starts_with(
            "the answer called a tool with arguments that violate its parameters after 2 attempts"
        ),
        "{failure}"
    );
}

#[test]
fn a_call_to_another_tool_than_the_named_one_is_re_asked_for_that_tool() {
    let world = hosted_world();
    world
        .emulator
        .script([native("list_dir", "{}"), native("list_dir", "{}")]);
    let failure = violation(
        world
            .call(&tool_request(ToolChoice::Tool("read_file".into())))
            .unwrap_err(),
    );
    let text = reask_text(&world);
    assert!(
        text.starts_with("Your previous response called list_dir, but you must call read_file. Call read_file, exactly once"),
        "{text}"
    );
    assert_eq!(failure.class, FailureClass::ToolNotChosen);
}

#[test]
fn prose_where_a_call_was_required_asks_for_exactly_one_call() {
    let world = open_world();
    world.emulator.answers([
        "You should open the README in an editor.",
        "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}\n```",
    ]);
    let outcome = world.call(&tool_request(ToolChoice::Required)).unwrap();
    let text = reask_text(&world);
    assert_eq!(
        text,
        "Your previous response did not call a tool. Call exactly one tool, exactly once, as {\"name\": \"<tool name>\", \"arguments\": {<its arguments>}}."
    );
    assert_eq!(outcome.meta.reasks[0].class, FailureClass::Prose);
    assert_eq!(calls(&outcome)[0].rung, Rung::Fence);
    let world = open_world();
    world.emulator.answers(["No."]);
    let failure = violation(
        world
            .call(&tool_request(ToolChoice::Required).reask(0))
            .unwrap_err(),
    );
    assert!(
        failure
            .to_string()
            .starts_with("the answer held no tool call after 1 attempt"),
        "{failure}"
    );
}

#[test]
fn an_unknown_tool_written_as_text_fails_in_its_class_with_no_reask_left() {
    let world = open_world();
    world
        .emulator
        .answers(["<tool_call>{\"name\": \"delete_all\", \"arguments\": {}}</tool_call>"]);
    let failure = violation(
        world
            .call(&tool_request(ToolChoice::Required).reask(0))
            .unwrap_err(),
    );
    assert_eq!(failure.class, FailureClass::UnknownTool);
    assert!(
        failure.message.contains("\"delete_all\""),
        "{}",
        failure.message
    );
    assert_eq!(world.emulator.chat_count(), 1);
}

#[test]
fn a_cut_off_call_gets_the_partial_back_and_a_larger_budget() {
    let world = open_world();
    let call = "{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}";
    world.emulator.answers([call, call]);
    let outcome = world
        .call(&tool_request(ToolChoice::Required).max_tokens(30))
        .unwrap();
    let bodies = world.emulator.chat_bodies();
    assert_eq!(bodies[1]["max_tokens"], 60);
    let text = reask_text(&world);
    assert!(
        text.starts_with("Your previous tool call was cut off:\n{\"name\": \"read_file\""),
        "{text}"
    );
    assert!(text.contains("Write the complete call again"), "{text}");
    assert_eq!(outcome.meta.reasks[0].class, FailureClass::Truncated);
    assert_eq!(calls(&outcome)[0].arguments, json!({"path": "README.md"}));
}

#[test]
fn auto_beside_a_schema_answers_with_the_schemas_value_or_a_call() {
    let world = open_world();
    world.emulator.answers([
        "{\"reason\": \"Docs are in scope.\", \"in_scope\": true}",
        "[TOOL_CALLS]read_file[ARGS]{\"path\": \"README.md\"}",
    ]);
    let mut request = scope_request();
    request.tools = Some(super::tools::tool_set());
    let answered = world.call(&request).unwrap();
    assert_eq!(value(&answered)["in_scope"], true);
    assert_eq!(
        answered.meta.tools.as_ref().unwrap().choice,
        ToolChoice::Auto
    );
    let called = world.call(&request).unwrap();
    assert_eq!(calls(&called)[0].name, "read_file");
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(body["tool_choice"], "auto");
    assert!(
        system_of(&body).contains("Scope"),
        "the schema's instructions stay under auto: {}",
        system_of(&body)
    );
}

fn system_of(body: &Value) -> &str {
    super::tools::system_text(body)
}

#[test]
fn the_next_turn_is_built_with_matching_ids() {
    let world = hosted_world();
    world
        .emulator
        .script([native("read_file", "{\"path\": \"README.md\"}")]);
    let outcome = world.call(&tool_request(ToolChoice::Required)).unwrap();
    let calls = calls(&outcome);
    let mut next = tool_request(ToolChoice::Required);
    next.messages.push(assistant_message(calls, None));
    next.messages
        .push(tool_result_message(&calls[0], "# slmcode"));
    next.messages
        .push(crate::backends::chat::ChatMessage::user("Now list src."));
    world
        .emulator
        .script([native("list_dir", "{\"path\": \"src\"}")]);
    let second = world.call(&next).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[1]["tool_calls"][0]["id"], "call_1");
    assert_eq!(messages[2]["tool_call_id"], "call_1");
    assert_eq!(messages[2]["role"], "tool");
    assert_eq!(super::tools::calls(&second)[0].name, "list_dir");
}

#[test]
fn a_call_that_loops_is_cut_off_and_re_asked_against_the_loop() {
    let world = open_world();
    let looping = format!(
        "{{\"name\": \"read_file\", \"arguments\": {{\"path\": \"{}",
        "README.md, ".repeat(200)
    );
    world.emulator.answers([
        looping.clone(),
        "{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}".to_owned(),
    ]);
    let outcome = world.call(&tool_request(ToolChoice::Required)).unwrap();
    let reask = &outcome.meta.reasks[0];
    assert_eq!(reask.class, FailureClass::Repetition);
    assert_eq!(reask.action, ReaskAction::AntiRepetition);
    assert_eq!(calls(&outcome)[0].arguments, json!({"path": "README.md"}));
    let bodies = world.emulator.chat_bodies();
    assert!(bodies[1]["seed"].as_u64().is_some(), "a fresh seed");
    assert_eq!(bodies[1]["temperature"], json!(REASK_TEMPERATURE));

    let world = open_world();
    world.emulator.answers([looping]);
    let failure = violation(
        world
            .call(&tool_request(ToolChoice::Required).reask(0))
            .unwrap_err(),
    );
    assert_eq!(failure.class, FailureClass::Repetition);
    assert_eq!(failure.meta.stream_end, StreamEnding::Repetition);
}

#[test]
fn under_auto_a_call_the_conversation_already_answered_is_re_asked_for_an_answer() {
    // Qwen2.5-Coder after a tool result (bench/README.md): the same call again, the start of
    // a tool loop a framework ends only at its request limit.
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp);
    world.cached(&[WireForm::Grammar]);
    let repeated = r#"{"name": "read_file", "arguments": {"path": "README.md"}}"#;
    world.emulator.script(
        [repeated, "The README says the project counts words."]
            .map(|text| Scripted::Member(text.to_owned())),
    );
    let call = ParsedToolCall {
        id: "call_1".to_owned(),
        name: "read_file".to_owned(),
        arguments: json!({"path": "README.md"}),
        origin: CallOrigin::Native,
        rung: crate::repair::Rung::None,
    };
    let mut request = tool_request(ToolChoice::Auto);
    request.messages.extend([
        assistant_message(std::slice::from_ref(&call), None),
        tool_result_message(&call, "# tally\nCounts words."),
    ]);
    let outcome = world.call(&request).unwrap();
    assert_eq!(
        outcome.answer,
        Answer::Tools {
            calls: Vec::new(),
            content: Some("The README says the project counts words.".to_owned())
        }
    );
    let reask = &outcome.meta.reasks[0];
    assert_eq!(reask.class, FailureClass::RepeatedCall);
    let text = reask_text(&world);
    assert!(
        text.starts_with("You already called read_file with these arguments"),
        "{text}"
    );
    // The re-ask leaves only an answer: a grammar of text alone, and no tools offered.
    let reasked = &world.emulator.chat_bodies()[1];
    assert_eq!(reasked["grammar"], crate::tools::TEXT_GRAMMAR);
    assert!(reasked.get("tools").is_none(), "{reasked}");
    // A new file is a new call, not a repeat.
    world.emulator.script([Scripted::Member(
        r#"{"name": "read_file", "arguments": {"path": "Cargo.toml"}}"#.to_owned(),
    )]);
    let next = world.call(&request).unwrap();
    assert_eq!(calls(&next)[0].arguments, json!({"path": "Cargo.toml"}));
}
