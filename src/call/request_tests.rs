use serde_json::json;

use super::*;

fn plan(request: &StructuredRequest) -> CallPlan {
    CallPlan::resolve(&Settings::default(), request).unwrap()
}

#[test]
fn a_contract_injects_its_prompt_and_the_json_only_stops() {
    let plan = plan(&StructuredRequest::contract("plan").user("Add a cache."));
    let system = plan.request.messages[0].content.as_deref().unwrap();
    assert_eq!(
        system,
        schema::contract("plan").unwrap().prompt().trim_end()
    );
    assert_eq!(plan.request.messages[1], ChatMessage::user("Add a cache."));
    assert_eq!(plan.stop, JSON_STOP);
    assert!(
        plan.request.stop.is_empty(),
        "under thinking = auto the server gets no stops: they would cut a reasoning block"
    );
    assert_eq!(plan.request.max_tokens, Some(2048));
    assert_eq!(plan.max_tokens_cap, DEFAULT_MAX_TOKENS_CAP);
    assert!(plan.strict_ready && !plan.untyped_tools);
    assert_eq!((plan.name.as_str(), plan.reask), ("plan", 3));
}

#[test]
fn a_callers_system_message_comes_first_in_the_one_system_message() {
    let request = StructuredRequest::contract("review")
        .system("You review Rust.")
        .user("diff");
    let plan = plan(&request);
    assert_eq!(plan.request.messages.len(), 2);
    let system = plan.request.messages[0].content.as_deref().unwrap();
    assert!(
        system.starts_with("You review Rust.\n\n# Review"),
        "{system}"
    );
    assert!(!plan.strict_ready, "review has optional fields");
}

#[test]
fn a_user_schema_is_described_in_the_prompt_and_linted_for_strict() {
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}},
        "required": ["n"], "additionalProperties": false});
    let plan = plan(
        &StructuredRequest::schema(schema.clone())
            .named("my schema!")
            .prompt("`n` is the answer.")
            .user("six times seven"),
    );
    let system = plan.request.messages[0].content.as_deref().unwrap();
    assert_eq!(
        system,
        format!("`n` is the answer.\n\n{JSON_ONLY} It must satisfy this JSON Schema:\n{schema}")
    );
    assert_eq!(plan.name, "my_schema_");
    assert!(plan.strict_ready);
}

#[test]
fn roles_decide_stops_tools_and_the_contract() {
    let worker = plan(&StructuredRequest::role(RoleSpec::new("go-worker")).user("go"));
    assert_eq!(worker.name, "worker");
    assert_eq!(worker.stop, JSON_STOP);
    let tooled =
        plan(&StructuredRequest::role(RoleSpec::new("worker").with_tools(["read"])).user("go"));
    assert!(tooled.untyped_tools);
    assert!(tooled.stop.is_empty() && tooled.request.stop.is_empty());
    let error = CallPlan::resolve(
        &Settings::default(),
        &StructuredRequest::role(RoleSpec::new("describer")).user("x"),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "role `describer` is free_text and has no contract; give it a schema"
    );
}

#[test]
fn the_server_gets_the_stops_only_when_thinking_is_off() {
    let request = StructuredRequest::contract("plan").user("Add a cache.");
    for (thinking, on_the_wire) in [
        (Thinking::Auto, false),
        (Thinking::On, false),
        (Thinking::Off, true),
    ] {
        let settings = Settings {
            thinking,
            ..Settings::default()
        };
        let plan = CallPlan::resolve(&settings, &request).unwrap();
        assert_eq!(plan.stop, JSON_STOP, "{thinking}");
        assert_eq!(!plan.request.stop.is_empty(), on_the_wire, "{thinking}");
    }
    // OpenAI never shows reasoning: its stops apply to the answer alone.
    let openai = Settings {
        provider: crate::config::Provider::OpenAi,
        ..Settings::default()
    };
    assert_eq!(
        CallPlan::resolve(&openai, &request).unwrap().request.stop,
        JSON_STOP
    );
}

fn read_tool() -> ToolSet {
    ToolSet::from_value(&json!([{"type": "function", "function": {"name": "read"}}])).unwrap()
}

#[test]
fn a_tool_set_makes_a_tool_turn_whose_choice_is_auto_unless_given() {
    let mut bare = StructuredRequest::default().user("read it");
    bare.tools = Some(read_tool());
    let turn = plan(&bare).turn.expect("a tool turn");
    assert_eq!(turn.choice, ToolChoice::Auto, "OpenAI's default");
    assert!(plan(&bare).stop.is_empty());
    assert!(
        plan(&bare).request.messages[0].role == "user",
        "no empty system message"
    );
    let mut with_contract = StructuredRequest::contract("scope_judge").user("x");
    with_contract.tools = Some(read_tool());
    let planned = plan(&with_contract);
    assert_eq!(planned.turn.as_ref().unwrap().choice, ToolChoice::Auto);
    assert!(!planned.strict_ready, "a tool turn is never strict");
    let none = plan(
        &StructuredRequest::contract("scope_judge")
            .tools(read_tool(), ToolChoice::None)
            .user("x"),
    );
    assert!(
        none.turn.is_none(),
        "none beside a schema is a plain request"
    );
    assert!(none.request.tools.is_none());
    let unknown = CallPlan::resolve(
        &Settings::default(),
        &StructuredRequest::default()
            .tools(read_tool(), ToolChoice::Tool("write".into()))
            .user("x"),
    )
    .unwrap_err();
    assert!(matches!(unknown, RequestError::Tools(_)), "{unknown}");
}

#[test]
fn bad_requests_are_typed_errors() {
    let settings = Settings::default();
    assert_eq!(
        CallPlan::resolve(&settings, &StructuredRequest::contract("plan")).unwrap_err(),
        RequestError::NoMessages
    );
    assert!(matches!(
        CallPlan::resolve(&settings, &StructuredRequest::contract("plna").user("x")).unwrap_err(),
        RequestError::UnknownContract(_)
    ));
    assert!(matches!(
        CallPlan::resolve(
            &settings,
            &StructuredRequest::schema(json!({"type": 7})).user("x")
        )
        .unwrap_err(),
        RequestError::InvalidSchema(_)
    ));
}

#[test]
fn wire_names_follow_openais_pattern() {
    assert_eq!(wire_name("plan"), "plan");
    assert_eq!(wire_name("a.b c"), "a_b_c");
    assert_eq!(wire_name(""), "output");
    assert_eq!(wire_name("..."), "output");
    assert_eq!(wire_name(&"x".repeat(80)).len(), 64);
}
