//! Walking the mechanism chain: strict servers, field-rejecting proxies, strict-only refusals,
//! vLLM's two guided fields, llama.cpp's grammar, structured decoding off, tools.

use serde_json::{Value, json};

use super::emulator::{Field, Profile, Scripted};
use super::*;
use crate::agents::{JSON_STOP, RoleSpec};
use crate::backends::engine::EngineSource;
use crate::schema::{self, Mechanism};

#[test]
fn a_strict_json_schema_server_gets_the_contract_strict_with_its_prompt_and_stops() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    let outcome = world.call(&scope_request()).unwrap();
    // The probe ran first; the call is the last request.
    let bodies = world.emulator.chat_bodies();
    let body = bodies.last().unwrap();
    let contract = schema::contract("scope_judge").unwrap();
    assert_eq!(form_of(body), "json_schema_strict");
    assert_eq!(
        body["response_format"]["json_schema"]["name"],
        "scope_judge"
    );
    assert_eq!(
        &body["response_format"]["json_schema"]["schema"],
        contract.schema()
    );
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][0]["content"], contract.prompt().trim_end());
    assert_eq!(
        body["messages"][1]["content"],
        "Is adding a README in scope of the task?"
    );
    assert_eq!(body["stop"], json!(JSON_STOP));
    assert_eq!(body["max_tokens"], 512);
    assert_eq!(body["temperature"], json!(0.0));
    assert!(contract.validate(value(&outcome)).is_ok());
    let meta = &outcome.meta;
    assert_eq!(meta.mechanism, Mechanism::JsonSchema);
    assert_eq!(meta.wire_form, Some(WireForm::JsonSchemaStrict));
    assert_eq!(meta.repair_rung, Some(crate::repair::Rung::None));
    assert_eq!(
        (
            meta.attempts,
            meta.requests,
            meta.retry_count,
            meta.transport_retries
        ),
        (1, 1, 0, 0)
    );
    assert_eq!(meta.degrade_reason, None);
    assert!(meta.demotions.is_empty());
    assert_eq!(meta.tokens.unwrap().prompt_tokens, Some(20));

    // A contract that is not strict-ready goes without `strict`, never as a strict request.
    let review = world
        .call(&StructuredRequest::contract("review").user("diff"))
        .unwrap();
    let bodies = world.emulator.chat_bodies();
    assert_eq!(form_of(bodies.last().unwrap()), "json_schema");
    assert_eq!(review.meta.wire_form, Some(WireForm::JsonSchema));
    assert!(
        schema::contract("review")
            .unwrap()
            .validate(value(&review))
            .is_ok()
    );
}

#[test]
fn every_contract_comes_back_valid_from_a_strict_server() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    let context = world.context();
    for contract in schema::contracts() {
        let request = StructuredRequest::contract(contract.name).user("go");
        let outcome = structured_call(&request, &context)
            .unwrap_or_else(|failure| panic!("{}: {failure}", contract.name));
        let body = world.emulator.chat_bodies().pop().unwrap();
        let expected = if contract.strict {
            "json_schema_strict"
        } else {
            "json_schema"
        };
        assert_eq!(form_of(&body), expected, "{}", contract.name);
        assert!(
            contract.validate(value(&outcome)).is_ok(),
            "{}",
            contract.name
        );
    }
}

#[test]
fn a_proxy_that_rejects_fields_demotes_each_form_persists_it_and_the_next_run_starts_below() {
    let world = World::new(Profile::field_rejecting_proxy(), Provider::OpenAiCompatible);
    world.cached(&[
        WireForm::JsonSchemaStrict,
        WireForm::JsonSchema,
        WireForm::JsonObject,
    ]);
    world.emulator.answers([FENCED_SCOPE]);
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(
        forms_sent(&world.emulator),
        [
            "json_schema_strict",
            "json_schema_strict",
            "json_schema",
            "json_object",
            "plain",
            "plain"
        ],
        "nothing probed: the cache answered. The proxy refused the anti-repetition penalties \
         first (by name): they were dropped, not taken for a rejection of the form; the plain \
         request's `stream_options` were refused too, and it was asked again whole"
    );
    let bodies = world.emulator.chat_bodies();
    assert!(bodies[0].get("frequency_penalty").is_some());
    assert!(
        bodies[1..]
            .iter()
            .all(|body| body.get("frequency_penalty").is_none()),
        "never sent again"
    );
    assert_eq!(value(&outcome)["in_scope"], true);
    let meta = &outcome.meta;
    assert_eq!(meta.mechanism, Mechanism::PromptOnly);
    assert_eq!(meta.first_mechanism, Mechanism::JsonSchema);
    assert_eq!(meta.degrade_reason, Some(DegradeReason::Demoted));
    assert_eq!(meta.repair_rung, Some(crate::repair::Rung::TrailingComma));
    let demoted: Vec<WireForm> = meta
        .demotions
        .iter()
        .map(|demotion| demotion.form)
        .collect();
    assert_eq!(
        demoted,
        [
            WireForm::JsonSchemaStrict,
            WireForm::JsonSchema,
            WireForm::JsonObject
        ]
    );

    // Persisted with status, time and a body excerpt.
    let entry = world.entry();
    assert_eq!(entry.mechanism, Mechanism::PromptOnly);
    assert_eq!(entry.demotions.len(), 3);
    for demotion in &entry.demotions {
        assert_eq!(demotion.status, Some(400));
        assert!(
            demotion
                .body
                .contains("unsupported parameter: response_format"),
            "{demotion:?}"
        );
        assert!(demotion.at.starts_with("20") && demotion.at.ends_with('Z'));
    }
    let file = std::fs::read_to_string(world.cache().path()).unwrap();
    assert!(file.contains("\"demotions\""), "{file}");

    // The next run (a new process: a fresh negotiator reading the file) starts at the floor
    // at once: one request, plain, no probe, and neither the penalties nor a stream, which the
    // cache says the proxy refuses.
    world.emulator.answers([FENCED_SCOPE]);
    let before = world.emulator.chat_count();
    let again = world.call(&scope_request()).unwrap();
    let forms = forms_sent(&world.emulator);
    assert_eq!(&forms[before..], ["plain"]);
    let last = world.emulator.chat_bodies().pop().unwrap();
    assert!(last.get("frequency_penalty").is_none() && last["stream"] == false);
    assert_eq!(
        world.entry().refused_fields,
        ["frequency_penalty", "presence_penalty"]
    );
    assert!(world.entry().refuses_streaming);
    assert!(again.meta.demotions.is_empty());
    assert_eq!(again.meta.degrade_reason, Some(DegradeReason::NoConstraint));
    assert_eq!(world.entry().demotions.len(), 3, "nothing recorded twice");
}

#[test]
fn the_same_context_remembers_its_demotions_between_calls() {
    let world = World::new(Profile::field_rejecting_proxy(), Provider::OpenAiCompatible);
    world.cached(&[WireForm::JsonObject]);
    world.emulator.answers([FENCED_SCOPE, FENCED_SCOPE]);
    // No cache: only the context remembers.
    let context = world.context().with_cache(None);
    structured_call(&scope_request(), &context).unwrap();
    structured_call(&scope_request(), &context).unwrap();
    assert_eq!(
        forms_sent(&world.emulator),
        ["json_object", "json_object", "plain", "plain", "plain"],
        "the first json_object carried the penalties the proxy refused, the first plain one \
         `stream_options`; the context's client remembers both"
    );
}

#[test]
fn a_server_that_rejects_strict_only_keeps_json_schema_without_strict() {
    let world = World::new(Profile::no_strict(), Provider::OpenAiCompatible);
    world.cached(&[
        WireForm::JsonSchemaStrict,
        WireForm::JsonSchema,
        WireForm::JsonObject,
    ]);
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(
        forms_sent(&world.emulator),
        ["json_schema_strict", "json_schema"]
    );
    assert_eq!(outcome.meta.wire_form, Some(WireForm::JsonSchema));
    assert_eq!(outcome.meta.demotions.len(), 1);
    let entry = world.entry();
    assert_eq!(
        (entry.mechanism, entry.strict),
        (Mechanism::JsonSchema, false)
    );
    assert_eq!(entry.demoted_forms(), [WireForm::JsonSchemaStrict]);
    assert!(
        entry.demotions[0]
            .body
            .contains("strict mode is not supported")
    );
    // Next run: json_schema without strict straight away.
    world.call(&scope_request()).unwrap();
    assert_eq!(
        forms_sent(&world.emulator),
        ["json_schema_strict", "json_schema", "json_schema"]
    );
}

#[test]
fn vllm_gets_structured_outputs_and_legacy_vllm_gets_guided_json() {
    for (profile, field) in [
        (Profile::vllm(), "structured_outputs"),
        (Profile::vllm_legacy(), "guided_json"),
    ] {
        // Behind something that drops response_format, guided decoding is what the probe finds.
        let mut profile = profile;
        profile.json_schema = Field::Ignore;
        let world = World::new(profile, Provider::Vllm);
        let outcome = world.call(&scope_request()).unwrap();
        let body = world.emulator.chat_bodies().pop().unwrap();
        assert_eq!(form_of(&body), field);
        let schema = schema::contract("scope_judge").unwrap().schema();
        let sent = if field == "guided_json" {
            &body["guided_json"]
        } else {
            &body["structured_outputs"]["json"]
        };
        assert_eq!(sent, schema);
        assert_eq!(constrained_fields(&body), [field]);
        assert_eq!(outcome.meta.mechanism, Mechanism::GuidedJson);
        assert_eq!(outcome.meta.repair_rung, Some(crate::repair::Rung::None));
    }
}

#[test]
fn structured_decoding_off_puts_no_constrained_field_on_the_wire() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp).off();
    world.cached(&[WireForm::JsonSchemaStrict, WireForm::Grammar]);
    world.emulator.answers([FENCED_SCOPE]);
    let outcome = world.call(&scope_request()).unwrap();
    let bodies = world.emulator.chat_bodies();
    assert_eq!(bodies.len(), 1, "no probe either");
    assert!(constrained_fields(&bodies[0]).is_empty(), "{}", bodies[0]);
    // The contract's prompt carries the schema instead.
    let prompt = schema::contract("scope_judge").unwrap().prompt().trim_end();
    assert_eq!(bodies[0]["messages"][0]["content"], prompt);
    assert_eq!(outcome.meta.source, ChainSource::StructuredDecodingOff);
    assert_eq!(
        outcome.meta.degrade_reason,
        Some(DegradeReason::StructuredDecodingOff)
    );
    assert_eq!(value(&outcome)["in_scope"], true);
}

#[test]
fn a_hosted_tool_turn_is_never_constrained_and_serial_tools_keep_the_first_call() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[WireForm::JsonSchemaStrict, WireForm::JsonObject]);
    let calls = json!([
        {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}},
        {"id": "c2", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"b\"}"}}
    ]);
    world.emulator.script([Scripted::ToolCalls(calls)]);
    let tools = json!([{"type": "function", "function": {"name": "read",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]);
    let request = StructuredRequest::role(RoleSpec::new("worker").with_tools(["read"]))
        .tools(
            crate::tools::ToolSet::from_value(&tools).unwrap(),
            crate::tools::ToolChoice::Auto,
        )
        .user("Fix the bug.");
    let outcome = world.call(&request).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert!(constrained_fields(&body).is_empty(), "{body}");
    assert_eq!(body["tools"], tools);
    assert_eq!(body["tool_choice"], "auto");
    assert_eq!(
        body["parallel_tool_calls"], false,
        "serial tools: one call per answer"
    );
    assert!(
        body.get("stop").is_none(),
        "a tool-using role has no JSON stops"
    );
    match &outcome.answer {
        Answer::Tools { calls, .. } => {
            // Assembled from the stream's chunks, id and all.
            assert!(outcome.meta.streamed);
            assert_eq!(calls.len(), 1);
            assert_eq!(calls[0].id, "c1");
            assert_eq!(calls[0].arguments, json!({"path": "a"}));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        outcome.meta.degrade_reason,
        Some(DegradeReason::ToolsInRequest)
    );
    assert_eq!(outcome.meta.tools.as_ref().unwrap().dropped_calls, 1);
    assert_eq!(outcome.meta.tools.as_ref().unwrap().carried, "native_tools");
}

#[test]
fn a_forced_mechanism_bypasses_the_cache_and_still_walks_down_on_rejection() {
    let world = World::new(Profile::no_strict(), Provider::OpenAiCompatible);
    world.cached(&[WireForm::JsonObject]);
    // Forced json_schema: strict (the contract is strict-ready), refused, then without strict.
    let request = scope_request().mechanism(Mechanism::JsonSchema);
    let outcome = world.call(&request).unwrap();
    assert_eq!(
        forms_sent(&world.emulator),
        ["json_schema_strict", "json_schema"]
    );
    assert_eq!(outcome.meta.source, ChainSource::Forced);
    assert_eq!(outcome.meta.wire_form, Some(WireForm::JsonSchema));
    // Forced prompt_only: nothing on the wire.
    world.emulator.answers([FENCED_SCOPE]);
    world
        .call(&scope_request().mechanism(Mechanism::PromptOnly))
        .unwrap();
    assert_eq!(forms_sent(&world.emulator)[2], "plain");
}

#[test]
fn llama_cpp_gets_the_derived_grammar_and_the_prompt_still_describes_the_schema() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp);
    world.cached(&[WireForm::Grammar, WireForm::JsonObject]);
    let context = world.context();
    for contract in schema::contracts() {
        let request = StructuredRequest::contract(contract.name).user("go");
        let outcome = structured_call(&request, &context)
            .unwrap_or_else(|failure| panic!("{}: {failure}", contract.name));
        let body = world.emulator.chat_bodies().pop().unwrap();
        // The default grammar_whitespace: compact.
        let derived =
            schema::gbnf::derive_with(contract.schema(), schema::gbnf::Whitespace::Compact)
                .unwrap();
        assert_eq!(
            body["grammar"],
            derived.grammar.as_str(),
            "{}",
            contract.name
        );
        assert_eq!(constrained_fields(&body), ["grammar"], "{}", contract.name);
        // A grammar guarantees well-formed output, not meaningful output: the prompt goes too.
        assert_eq!(body["messages"][0]["content"], contract.prompt().trim_end());
        assert!(
            contract.validate(value(&outcome)).is_ok(),
            "{}",
            contract.name
        );
        assert_eq!(outcome.meta.mechanism, Mechanism::GbnfGrammar);
        assert_eq!(outcome.meta.repair_rung, Some(crate::repair::Rung::None));
    }
}

#[test]
fn llama_server_gets_a_schema_with_a_number_or_a_format_as_the_derived_grammar() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp);
    world.cached(&[
        WireForm::JsonSchemaStrict,
        WireForm::JsonSchema,
        WireForm::Grammar,
        WireForm::JsonObject,
    ]);
    let context = world.context();
    for schema in [
        json!({"type": "object", "properties": {"score": {"type": "number", "minimum": 0,
            "maximum": 1}}, "required": ["score"], "additionalProperties": false}),
        json!({"type": "object", "properties": {"url": {"type": ["string", "null"],
            "format": "uri"}}, "required": ["url"]}),
    ] {
        let request = StructuredRequest::schema(schema.clone()).user("go");
        let outcome = structured_call(&request, &context).unwrap();
        let body = world.emulator.chat_bodies().pop().unwrap();
        assert_eq!(constrained_fields(&body), ["grammar"], "{schema}");
        assert_eq!(outcome.meta.mechanism, Mechanism::GbnfGrammar);
    }
    // A contract (integers and strings only) gets the compact grammar too, which a real small
    // model did better under; with pretty whitespace it keeps strict json_schema.
    structured_call(&scope_request(), &context).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(constrained_fields(&body), ["grammar"]);
    let pretty = Settings {
        grammar_whitespace: schema::gbnf::Whitespace::Pretty,
        ..world.settings.clone()
    };
    let context = context.with_settings(pretty);
    structured_call(&scope_request(), &context).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(
        body["response_format"]["json_schema"]["strict"],
        json!(true)
    );
    // Another engine keeps the negotiated order.
    let vllm = World::new(Profile::vllm(), Provider::Vllm);
    vllm.cached(&[
        WireForm::JsonSchema,
        WireForm::StructuredOutputs,
        WireForm::Grammar,
    ]);
    let request = StructuredRequest::schema(json!({"type": "object", "properties":
        {"score": {"type": "number"}}, "required": ["score"]}))
    .user("go");
    structured_call(&request, &vllm.context()).unwrap();
    let body = vllm.emulator.chat_bodies().pop().unwrap();
    assert_eq!(constrained_fields(&body), ["response_format"]);
}

#[test]
fn llama_server_gets_a_callers_schema_as_the_derived_grammar_with_either_whitespace() {
    // The schema llama-server's own json_schema conversion exits on (a recursive `$ref` under
    // `allOf`, no number, no format): a caller's schema that derives goes to the grammar first
    // also with pretty whitespace, where a contract keeps strict json_schema.
    let crasher: Value = serde_json::from_str(include_str!(
        "../../../tests/fixtures/schemas/recursive_allof.json"
    ))
    .unwrap();
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp);
    world.cached(&[
        WireForm::JsonSchemaStrict,
        WireForm::JsonSchema,
        WireForm::Grammar,
        WireForm::JsonObject,
    ]);
    for whitespace in [
        schema::gbnf::Whitespace::Compact,
        schema::gbnf::Whitespace::Pretty,
    ] {
        let settings = Settings {
            grammar_whitespace: whitespace,
            ..world.settings.clone()
        };
        let context = world.context().with_settings(settings);
        let request = StructuredRequest::schema(crasher.clone()).user("go");
        let outcome = structured_call(&request, &context).unwrap();
        let body = world.emulator.chat_bodies().pop().unwrap();
        assert_eq!(constrained_fields(&body), ["grammar"], "{whitespace:?}");
        let derived = schema::gbnf::derive_with(&crasher, whitespace).unwrap();
        assert_eq!(body["grammar"], derived.grammar.as_str());
        assert_eq!(outcome.meta.first_mechanism, Mechanism::GbnfGrammar);
    }
    // With pretty whitespace, a caller's schema that does not derive (nothing satisfies it: its
    // grammar would allow any JSON value) keeps the negotiated order.
    let pretty = Settings {
        grammar_whitespace: schema::gbnf::Whitespace::Pretty,
        ..world.settings.clone()
    };
    let context = world.context().with_settings(pretty);
    let underivable = json!({"type": "string", "minLength": 3, "maxLength": 2});
    assert!(schema::gbnf::derive(&underivable).is_err());
    let chats = world.emulator.chat_count();
    let _ = structured_call(&StructuredRequest::schema(underivable).user("go"), &context);
    assert_eq!(forms_sent(&world.emulator)[chats], "json_schema");
}

#[test]
fn openai_compatible_in_front_of_llama_server_is_sent_what_llamacpp_is() {
    // Nothing cached: the probe finds the forms, and `/props` says llama.cpp.
    let world = World::new(Profile::llama_server(), Provider::OpenAiCompatible);
    let outcome = world.call(&scope_request()).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(constrained_fields(&body), ["grammar"], "{body}");
    assert_eq!(outcome.meta.first_mechanism, Mechanism::GbnfGrammar);
    let engine = &outcome.meta.engine;
    assert_eq!(engine.provider, Provider::LlamaCpp);
    assert_eq!(engine.source, EngineSource::Fingerprint);
    assert_eq!(
        engine.evidence.as_deref(),
        Some("llama.cpp b6500-emulated (GET /props)")
    );
    // llama.cpp's own anti-repetition sampling, not the OpenAI penalties.
    assert_eq!(body["repeat_penalty"], json!(1.1));
    assert!(body.get("frequency_penalty").is_none(), "{body}");
    // The cache keeps the fingerprint: the next process follows llama.cpp without a probe.
    let chats = world.emulator.chat_count();
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(world.emulator.chat_count(), chats + 1);
    assert_eq!(outcome.meta.engine.provider, Provider::LlamaCpp);
    assert_eq!(
        constrained_fields(&world.emulator.chat_bodies().pop().unwrap()),
        ["grammar"]
    );
}

#[test]
fn a_provider_the_user_named_is_never_overridden_by_the_fingerprint() {
    let forms = [
        WireForm::JsonSchemaStrict,
        WireForm::JsonSchema,
        WireForm::Grammar,
        WireForm::JsonObject,
    ];
    // The same server, the same cached probe and fingerprint: only the provider differs.
    for (provider, first, source) in [
        (
            Provider::OpenAiCompatible,
            "grammar",
            EngineSource::Fingerprint,
        ),
        (
            Provider::LmStudio,
            "json_schema_strict",
            EngineSource::Setting,
        ),
    ] {
        let world = World::new(Profile::llama_server(), provider);
        world.cached_from(&forms, "llama.cpp b6500-emulated");
        let outcome = world.call(&scope_request()).unwrap();
        assert_eq!(forms_sent(&world.emulator), [first], "{provider}");
        assert_eq!(outcome.meta.engine.source, source, "{provider}");
    }
    let world = World::new(Profile::llama_server(), Provider::LmStudio);
    world.cached_from(&forms, "llama.cpp b6500-emulated");
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(outcome.meta.engine.provider, Provider::LmStudio);
    assert_eq!(outcome.meta.engine.evidence, None);
    // A server that names no engine (a bare `/version`, no `/props`) leaves openai-compatible
    // as it is: the negotiated order, although this one takes a grammar.
    let unnamed = Profile {
        props: None,
        version: Some(json!({"version": "0.10.2"})),
        ..Profile::llama_server()
    };
    let world = World::new(unnamed, Provider::OpenAiCompatible);
    world.cached_from(&forms, "vllm 0.10.2");
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(forms_sent(&world.emulator), ["json_schema_strict"]);
    assert_eq!(outcome.meta.engine.provider, Provider::OpenAiCompatible);
}

#[test]
fn projection_notes_travel_in_the_meta_and_validation_uses_the_original_schema() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[WireForm::JsonSchema]);
    // A bound above the wire limit is dropped from the wire, not from validation: the emulator
    // writes the shortest instance of what it was sent (a one-item list), which the original
    // schema refuses.
    let schema = json!({"type": "object", "properties": {"tags": {"type": "array",
        "items": {"type": "string"}, "minItems": 1001}}, "required": ["tags"]});
    let failure = violation(
        world
            .call(&StructuredRequest::schema(schema).reask(0).user("tags"))
            .unwrap_err(),
    );
    let body = world.emulator.chat_bodies().pop().unwrap();
    let sent = &body["response_format"]["json_schema"]["schema"]["properties"]["tags"];
    assert!(sent.get("minItems").is_none(), "{sent}");
    assert_eq!(failure.meta.notes.len(), 1);
    assert_eq!(failure.meta.notes[0].pointer, "/properties/tags");
    assert_eq!(failure.errors[0].pointer, "/tags");
}

#[test]
fn a_requests_temperature_overrides_the_contexts_settings_and_none_keeps_them() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[WireForm::JsonSchema]);
    let mut settings = world.settings.clone();
    settings.temperature = 0.25;
    let context = world.context().with_settings(settings);
    structured_call(&scope_request(), &context).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(body["temperature"], json!(0.25));
    let mut request = scope_request();
    request.temperature = Some(0.75);
    structured_call(&request, &context).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(body["temperature"], json!(0.75));
}

#[test]
fn brief_instructions_go_only_under_an_exact_constraint_and_only_for_a_contract() {
    let mut world = World::new(Profile::llama_server(), Provider::LlamaCpp);
    world.settings.brief_instructions = true;
    world.cached(&[WireForm::Grammar, WireForm::JsonObject]);
    let contract = schema::contract("scope_judge").unwrap();
    let question = "Is adding a README in scope of the task?";
    let request = StructuredRequest::contract("scope_judge")
        .system("You work on the payments repository.")
        .user(question);
    world.call(&request).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(form_of(&body), "grammar");
    assert_eq!(
        body["messages"][0]["content"],
        format!(
            "You work on the payments repository.\n\n{}",
            contract.brief_prompt()
        ),
        "the caller's system text first, then the brief prompt"
    );
    assert_eq!(body["messages"][1]["content"], question);

    // Nothing on the wire enforces the schema: the whole prompt.
    world.emulator.answers([FENCED_SCOPE]);
    world
        .call(&request.clone().mechanism(Mechanism::PromptOnly))
        .unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(form_of(&body), "plain");
    assert_eq!(
        body["messages"][0]["content"],
        format!(
            "You work on the payments repository.\n\n{}",
            contract.prompt().trim_end()
        )
    );

    // A caller's schema has no brief form: the schema in the prompt is all the model learns.
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    world
        .call(&StructuredRequest::schema(schema).user("Count."))
        .unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(form_of(&body), "grammar");
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("It must satisfy this JSON Schema"),
        "{system}"
    );
}
