//! Tool turns upstream: what each engine is sent for each `tool_choice` (the compiled
//! constraint in place of native tools, or native tools, or nothing), and that negotiation,
//! demotion and enforcement checks apply to tool constraints as they do to contracts.

use serde_json::json;

use super::emulator::{Field, Profile, Scripted};
use super::*;
use crate::repair::FailureClass;
use crate::tools::{CallSource, ToolChoice, ToolSet, call_id};

pub(super) fn tool_set() -> ToolSet {
    ToolSet::from_value(&json!([
        {"type": "function", "function": {"name": "read_file", "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"},
                "limit": {"type": "integer"}}, "required": ["path"], "additionalProperties": false}}},
        {"type": "function", "function": {"name": "list_dir", "description": "List a directory.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                "additionalProperties": false}}}
    ]))
    .unwrap()
}

pub(super) fn tool_request(choice: ToolChoice) -> StructuredRequest {
    StructuredRequest::default()
        .tools(tool_set(), choice)
        .user("Read the README.")
}

pub(super) fn system_text(body: &Value) -> &str {
    body["messages"][0]["content"].as_str().unwrap_or_default()
}

pub(super) fn calls(outcome: &StructuredOutcome) -> &[ParsedToolCall] {
    outcome.tool_calls()
}

fn no_native_tools(body: &Value) {
    for field in ["tools", "tool_choice", "parallel_tool_calls"] {
        assert!(body.get(field).is_none(), "{field} in {body}");
    }
}

/// A call the emulator's constrained answer holds is one of the tools, valid, with a content id.
fn assert_constrained_call(outcome: &StructuredOutcome) {
    let call = &calls(outcome)[0];
    let tool = tool_set().get(&call.name).cloned().expect("a known tool");
    assert!(tool.validator().is_valid(&call.arguments), "{call:?}");
    assert_eq!(call.id, call_id(&call.name, &call.arguments));
    assert_eq!(call.origin, CallOrigin::Text(CallSource::Bare));
    let tools = outcome.meta.tools.as_ref().unwrap();
    assert_eq!(tools.carried, "constraint");
}

#[test]
fn llama_cpp_required_gets_the_tools_grammar_and_the_tools_in_the_prompt_not_native_tools() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp);
    world.cached(&[
        WireForm::JsonSchema,
        WireForm::Grammar,
        WireForm::JsonObject,
    ]);
    let outcome = world.call(&tool_request(ToolChoice::Required)).unwrap();
    let bodies = world.emulator.chat_bodies();
    assert_eq!(forms_sent(&world.emulator), ["grammar"]);
    no_native_tools(&bodies[0]);
    let grammar = bodies[0]["grammar"].as_str().unwrap();
    assert!(
        grammar.contains("read_file") && grammar.contains("list_dir"),
        "{grammar}"
    );
    let system = system_text(&bodies[0]);
    assert!(
        system.starts_with("You can call these tools:\n- read_file: Read a file."),
        "{system}"
    );
    assert!(
        system.ends_with("Call exactly one of the tools."),
        "{system}"
    );
    assert!(!system.contains("ONLY"), "{system}");
    assert!(
        bodies[0].get("stop").is_none(),
        "a tool turn has no JSON stops"
    );
    assert_constrained_call(&outcome);
    assert_eq!(outcome.meta.mechanism, Mechanism::GbnfGrammar);
    assert_eq!(outcome.meta.degrade_reason, None);
}

#[test]
fn llama_cpp_json_schema_gets_the_one_of_over_the_tools() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp);
    world.cached(&[WireForm::JsonSchema]);
    let outcome = world.call(&tool_request(ToolChoice::Required)).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    no_native_tools(&body);
    let format = &body["response_format"]["json_schema"];
    assert_eq!(format["name"], "tool_call");
    assert!(
        format.get("strict").is_none(),
        "a oneOf root is never strict"
    );
    let branches = format["schema"]["oneOf"].as_array().unwrap();
    assert_eq!(branches.len(), 2);
    assert_constrained_call(&outcome);
    assert_eq!(outcome.meta.mechanism, Mechanism::JsonSchema);
}

#[test]
fn llama_cpp_named_choice_is_enforced_by_the_constraint_never_a_bare_name() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp);
    world.cached(&[WireForm::Grammar]);
    let named = tool_request(ToolChoice::Tool("read_file".into()));
    let outcome = world.call(&named).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    no_native_tools(&body);
    let grammar = body["grammar"].as_str().unwrap();
    assert!(
        !grammar.contains("list_dir"),
        "only the named branch: {grammar}"
    );
    assert!(system_text(&body).contains("Call the tool read_file, exactly once."));
    assert_eq!(calls(&outcome)[0].name, "read_file");
    // Unconstrained (structured_decoding off): only the named tool, and `required`.
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp).off();
    world.emulator.answers(["<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}</tool_call>"]);
    let outcome = world.call(&named).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(body["tool_choice"], "required");
    assert_eq!(body["tools"].as_array().unwrap().len(), 1);
    assert_eq!(body["tools"][0]["function"]["name"], "read_file");
    assert!(constrained_fields(&body).is_empty());
    assert_eq!(calls(&outcome)[0].arguments, json!({"path": "README.md"}));
    assert_eq!(outcome.meta.tools.as_ref().unwrap().carried, "native_tools");
}

#[test]
fn a_named_choice_to_a_server_recognised_as_llama_cpp_gets_the_llama_cpp_workaround() {
    let named = tool_request(ToolChoice::Tool("read_file".into())).serial_tools(true);
    let answer = "<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}</tool_call>";
    // openai-compatible, and the cached fingerprint says llama.cpp: only the named tool,
    // `required`, and one call per turn.
    let world = World::new(Profile::llama_server(), Provider::OpenAiCompatible).off();
    world.cached_from(&[WireForm::Grammar], "llama.cpp b6500-emulated");
    world.emulator.answers([answer]);
    let outcome = world.call(&named).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(body["tool_choice"], "required");
    assert_eq!(body["tools"].as_array().unwrap().len(), 1);
    assert_eq!(body["parallel_tool_calls"], json!(false));
    assert_eq!(calls(&outcome)[0].name, "read_file");
    // Nothing recognised: the named choice in its object form, every tool.
    let world = World::new(Profile::llama_server(), Provider::OpenAiCompatible).off();
    world.emulator.answers([answer]);
    world.call(&named).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(body["tool_choice"]["function"]["name"], "read_file");
    assert_eq!(body["tools"].as_array().unwrap().len(), 2);
    assert!(body.get("parallel_tool_calls").is_none(), "{body}");
}

#[test]
fn the_emulated_llama_server_refuses_a_bare_tool_name_as_tool_choice() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp);
    let request = crate::backends::chat::ChatRequest {
        messages: vec![crate::backends::chat::ChatMessage::user("x")],
        tool_choice: Some(json!("read_file")),
        ..Default::default()
    };
    let error = world
        .target()
        .client()
        .chat(
            &request,
            &crate::schema::Constraint::None,
            crate::backends::capabilities::GuidedField::default(),
            Duration::from_secs(5),
        )
        .unwrap_err();
    assert_eq!(error.status, Some(400));
}

#[test]
fn auto_on_a_grammar_engine_is_one_call_or_text_and_text_is_the_content() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp);
    world.cached(&[WireForm::JsonSchema, WireForm::Grammar]);
    // What a model may write under the call-or-text grammar: text, or a call.
    world.emulator.script(
        [
            "The README says hello.",
            r#"{"name": "read_file", "arguments": {"path": "README.md"}}"#,
            "Nothing to read.",
            "Still nothing.",
        ]
        .map(|text| Scripted::Member(text.to_owned())),
    );
    let outcome = world.call(&tool_request(ToolChoice::Auto)).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    no_native_tools(&body);
    assert_eq!(constrained_fields(&body), ["grammar"], "{body}");
    let grammar = body["grammar"].as_str().unwrap();
    assert!(
        grammar.starts_with("root ::= tool-call | answer-text\n"),
        "{grammar}"
    );
    assert!(
        system_text(&body).ends_with("If no tool is needed, answer in plain text."),
        "{}",
        system_text(&body)
    );
    assert_eq!(
        outcome.answer,
        Answer::Tools {
            calls: Vec::new(),
            content: Some("The README says hello.".to_owned())
        }
    );
    let tools = outcome.meta.tools.as_ref().unwrap();
    assert_eq!(tools.policy, crate::tools::Policy::CallOrText);
    assert_eq!(tools.carried, "constraint");
    let called = world.call(&tool_request(ToolChoice::Auto)).unwrap();
    assert_constrained_call(&called);
    // Text is one of the grammar's choices, so text answers in a row are no sign that the
    // grammar is not enforced: it stays first.
    for _ in 0..2 {
        world.call(&tool_request(ToolChoice::Auto)).unwrap();
        let body = world.emulator.chat_bodies().pop().unwrap();
        assert_eq!(constrained_fields(&body), ["grammar"], "{body}");
    }
}

#[test]
fn auto_beside_a_schema_is_the_union_of_the_calls_and_the_schema() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp);
    world.cached(&[WireForm::JsonSchema]);
    let request = StructuredRequest::contract("scope_judge")
        .tools(tool_set(), ToolChoice::Auto)
        .user("Is this in scope?");
    let outcome = world.call(&request).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    no_native_tools(&body);
    let branches = body["response_format"]["json_schema"]["schema"]["oneOf"]
        .as_array()
        .unwrap();
    assert_eq!(branches.len(), 3, "two calls and the answer");
    let tools = outcome.meta.tools.as_ref().unwrap();
    assert_eq!(tools.policy, crate::tools::Policy::Constrained);
}

#[test]
fn auto_without_a_grammar_goes_native_and_a_prose_answer_is_the_content() {
    // json_schema cannot leave the answer free beside a call, and JSON mode enforces no tool
    // constraint: either way native tools, unconstrained, described in the system message.
    let json_schema_only = World::new(Profile::llama_server(), Provider::LlamaCpp);
    json_schema_only.cached(&[WireForm::JsonSchema]);
    let json_mode_only = World::new(Profile::ollama(), Provider::Ollama);
    json_mode_only.cached(&[WireForm::JsonObject]);
    let mut outcomes: Vec<StructuredOutcome> = Vec::new();
    for world in [&json_schema_only, &json_mode_only] {
        world.emulator.answers(["The README says hello."]);
        let outcome = world.call(&tool_request(ToolChoice::Auto)).unwrap();
        let body = world.emulator.chat_bodies().pop().unwrap();
        assert!(constrained_fields(&body).is_empty(), "{body}");
        assert_eq!(body["tool_choice"], "auto");
        assert_eq!(body["tools"].as_array().unwrap().len(), 2);
        assert!(
            system_text(&body).contains("You can call these tools:"),
            "{}",
            system_text(&body)
        );
        assert_eq!(
            outcome.answer,
            Answer::Tools {
                calls: Vec::new(),
                content: Some("The README says hello.".to_owned())
            }
        );
        assert_eq!(outcome.meta.tools.as_ref().unwrap().carried, "native_tools");
        outcomes.push(outcome);
    }
    let body = json_mode_only.emulator.chat_bodies().pop().unwrap();
    assert!(
        body.get("parallel_tool_calls").is_none(),
        "ollama is not sent it"
    );
    // JSON mode is no tool constraint: nothing on this endpoint can enforce one.
    assert_eq!(
        outcomes[1].meta.degrade_reason,
        Some(DegradeReason::NoConstraint)
    );
}

#[test]
fn none_sends_no_tools_and_returns_the_text() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp);
    world.cached(&[WireForm::Grammar]);
    world.emulator.answers(["Hello."]);
    let outcome = world.call(&tool_request(ToolChoice::None)).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    no_native_tools(&body);
    assert!(constrained_fields(&body).is_empty(), "{body}");
    assert!(!system_text(&body).contains("You can call"));
    assert_eq!(
        outcome.answer,
        Answer::Tools {
            calls: Vec::new(),
            content: Some("Hello.".to_owned())
        }
    );
    assert_eq!(outcome.meta.tools.as_ref().unwrap().carried, "nothing");
    assert_eq!(
        outcome.meta.degrade_reason, None,
        "no tools asked for, none degraded"
    );
}

#[test]
fn vllm_gets_structured_outputs_and_legacy_vllm_guided_json_for_the_tools() {
    let world = World::new(Profile::vllm(), Provider::Vllm);
    world.cached(&[WireForm::JsonSchema, WireForm::StructuredOutputs]);
    let outcome = world
        .call(&tool_request(ToolChoice::Required).mechanism(Mechanism::GuidedJson))
        .unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    no_native_tools(&body);
    assert_eq!(
        body["structured_outputs"]["json"]["oneOf"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_constrained_call(&outcome);
    let legacy = World::new(Profile::vllm_legacy(), Provider::Vllm);
    legacy.cached(&[WireForm::GuidedJson]);
    let outcome = legacy
        .call(&tool_request(ToolChoice::Tool("list_dir".into())))
        .unwrap();
    let body = legacy.emulator.chat_bodies().pop().unwrap();
    no_native_tools(&body);
    assert_eq!(
        body["guided_json"]["properties"]["name"]["const"],
        "list_dir"
    );
    assert_eq!(calls(&outcome)[0].name, "list_dir");
}

#[test]
fn openai_gets_native_tools_and_tool_choice_only_and_native_ids_are_kept() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[
        WireForm::JsonSchemaStrict,
        WireForm::JsonSchema,
        WireForm::JsonObject,
    ]);
    world.emulator.script([Scripted::ToolCalls(
        json!([{"id": "call_abc", "type": "function",
        "function": {"name": "read_file", "arguments": "{\"path\": \"README.md\"}"}}]),
    )]);
    let request = tool_request(ToolChoice::Tool("read_file".into())).serial_tools(true);
    let outcome = world.call(&request).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert!(constrained_fields(&body).is_empty(), "{body}");
    assert_eq!(body["tools"], crate::tools::native_tools(&tool_set()));
    assert_eq!(
        body["tool_choice"],
        json!({"type": "function", "function": {"name": "read_file"}})
    );
    assert_eq!(body["parallel_tool_calls"], false);
    assert!(
        !system_text(&body).contains("You can call these tools"),
        "a hosted API renders its tools itself: {body}"
    );
    let call = &calls(&outcome)[0];
    assert_eq!(
        (call.id.as_str(), call.origin),
        ("call_abc", CallOrigin::Native)
    );
    assert_eq!(call.arguments, json!({"path": "README.md"}));
    assert_eq!(outcome.meta.repair_rung, Some(Rung::None));
}

#[test]
fn prompt_only_sends_native_tools_and_extracts_a_call_written_as_text() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp).off();
    world.emulator.answers([
        "Let me look.\nAction: read_file\nAction Input: {\"path\": \"README.md\", \"limit\": \"20\"}",
    ]);
    let outcome = world.call(&tool_request(ToolChoice::Required)).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(body["tool_choice"], "required");
    assert!(
        body.get("parallel_tool_calls").is_none(),
        "not serial: every call is kept"
    );
    // A local template may drop native tools: the model reads them in the prompt too.
    assert!(
        system_text(&body).starts_with("You can call these tools:\n- read_file: Read a file."),
        "{body}"
    );
    let call = &calls(&outcome)[0];
    assert_eq!(call.name, "read_file");
    assert_eq!(call.arguments, json!({"path": "README.md", "limit": 20}));
    assert!(matches!(call.origin, CallOrigin::Text(_)));
    assert!(
        outcome
            .meta
            .repair_rung
            .is_some_and(|rung| rung != Rung::None)
    );
    assert_eq!(outcome.meta.source, ChainSource::StructuredDecodingOff);
}

#[test]
fn native_arguments_are_repaired_and_the_rung_reported() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[WireForm::JsonSchemaStrict]);
    world.emulator.script([Scripted::ToolCalls(json!([
        {"id": "c1", "type": "function", "function": {"name": "read_file",
            "arguments": "{'path': 'a.rs', 'limit': 5,}"}},
        {"id": "c2", "type": "function", "function": {"name": "list_dir", "arguments": ""}}
    ]))]);
    let outcome = world.call(&tool_request(ToolChoice::Required)).unwrap();
    let calls = calls(&outcome);
    assert_eq!(calls.len(), 2, "not serial: both calls");
    assert_eq!(calls[0].arguments, json!({"path": "a.rs", "limit": 5}));
    assert!(calls[0].rung > Rung::None);
    assert_eq!(outcome.meta.repair_rung, Some(calls[0].rung));
    assert_eq!(calls[1].arguments, json!({}));
    assert_eq!(
        outcome.meta.degrade_reason,
        Some(DegradeReason::ToolsInRequest)
    );
}

#[test]
fn a_rejected_tool_grammar_is_demoted_like_a_contracts() {
    let profile = Profile {
        grammar: Field::Reject(
            400,
            json!({"error": {"code": 400, "message": "grammar not supported"}}).to_string(),
        ),
        ..Profile::llama_server()
    };
    let world = World::new(profile, Provider::LlamaCpp);
    world.cached(&[WireForm::JsonSchema, WireForm::Grammar]);
    let outcome = world.call(&tool_request(ToolChoice::Required)).unwrap();
    assert_eq!(forms_sent(&world.emulator), ["grammar", "json_schema"]);
    assert_eq!(outcome.meta.demotions.len(), 1);
    assert_eq!(outcome.meta.demotions[0].form, WireForm::Grammar);
    assert!(
        world
            .entry()
            .demotions
            .iter()
            .any(|demotion| demotion.form == WireForm::Grammar)
    );
    assert_constrained_call(&outcome);
}

#[test]
fn a_tool_constraint_accepted_but_ignored_is_found_not_enforced_and_demoted() {
    let world = World::new(Profile::liar(), Provider::LlamaCpp);
    world.cached(&[WireForm::Grammar]);
    let prose = "I would read the README first.";
    world.emulator.answers([
        prose,
        prose,
        "{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}",
    ]);
    let request = tool_request(ToolChoice::Required).reask(2);
    let outcome = world.call(&request).unwrap();
    assert_eq!(forms_sent(&world.emulator), ["grammar", "grammar", "plain"]);
    assert_eq!(
        outcome.meta.demotions.len(),
        1,
        "{:?}",
        outcome.meta.demotions
    );
    assert_eq!(outcome.meta.demotions[0].form, WireForm::Grammar);
    let last = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(last["tool_choice"], "required", "the floor goes native");
    assert_eq!(calls(&outcome)[0].name, "read_file");
    assert_eq!(outcome.meta.reasks.len(), 2);
    assert_eq!(outcome.meta.reasks[0].class, FailureClass::Prose);
}
