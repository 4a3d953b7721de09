//! Probing, negotiation and transport against the engine emulator (a real HTTP server on
//! 127.0.0.1, one per test), and negotiation under faults (`faults`). Time bounds use generous
//! margins: they catch a probe that ignores its deadline, not a slow machine. The helpers here
//! are shared by the layer's unit tests.

// Shared with the structured call path's tests (`call::tests`): a file is loaded once.
#[path = "../../../tests/support/emulator.rs"]
pub(crate) mod emulator;

mod faults;

use std::time::Duration;

use serde_json::{Map, json};

use emulator::{Emulator, Fault, Field, Profile, RefusingPort};

use super::*;
use crate::config::{Provider, Secret, StructuredDecoding};
use crate::schema::{Constraint, Mechanism};

/// A chat request with every plain field set, as the wire-format and transport tests send it.
pub(super) fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![ChatMessage::user("hi")],
        model: Some("m".to_owned()),
        max_tokens: Some(64),
        temperature: Some(0.0),
        stop: vec!["\n## ".to_owned()],
        seed: Some(7),
        tools: None,
        tool_choice: None,
        parallel_tool_calls: None,
        sampling: Map::new(),
        thinking: Map::new(),
    }
}

/// `provider` at `base_url`, no model, no key, thinking as the server decides.
fn target_at(provider: Provider, base_url: &str) -> Target {
    Target {
        provider,
        endpoint: normalize_endpoint(provider, base_url).unwrap().endpoint,
        model: None,
        api_key: None,
        thinking: crate::config::Thinking::Auto,
    }
}

fn target(emulator: &Emulator, provider: Provider, model: Option<&str>) -> Target {
    Target {
        model: model.map(str::to_owned),
        ..target_at(provider, &emulator.base_url())
    }
}

/// Probe when needed and check the fingerprint, under `probe_timeout`, with `cache`.
fn options(cache: Option<CapabilityCache>, probe_timeout: Duration) -> NegotiateOptions {
    NegotiateOptions {
        structured_decoding: StructuredDecoding::Auto,
        refresh: false,
        allow_probe: true,
        check_fingerprint: true,
        probe_timeout,
        cache,
    }
}

fn probe_profile(profile: Profile, provider: Provider) -> (ProbeReport, Capabilities, Emulator) {
    let emulator = Emulator::start(profile);
    let report = probe(&target(&emulator, provider, None), Duration::from_secs(20));
    let capabilities = Capabilities::select(report.outcomes.clone(), &[], report.probed);
    (report, capabilities, emulator)
}

fn outcome(report: &ProbeReport, form: WireForm) -> &'static str {
    report.outcomes[&form].name()
}

#[test]
fn openai_selects_strict_json_schema_and_sends_no_engine_fields() {
    let (report, selected, emulator) = probe_profile(Profile::openai(), Provider::OpenAi);
    assert!(report.probed && report.reachable);
    assert_eq!(
        (selected.mechanism, selected.strict),
        (Mechanism::JsonSchema, true)
    );
    assert_eq!(outcome(&report, WireForm::JsonObject), "supported");
    assert_eq!(outcome(&report, WireForm::Grammar), "untested");
    for body in emulator.chat_bodies() {
        for field in ["grammar", "guided_json", "structured_outputs"] {
            assert!(body.get(field).is_none(), "{field} sent to OpenAI: {body}");
        }
        assert_eq!(body["temperature"], json!(0.0));
    }
}

#[test]
fn an_unknown_provider_probes_everything_and_records_rejections() {
    let (report, selected, _emulator) =
        probe_profile(Profile::openai(), Provider::OpenAiCompatible);
    assert_eq!(
        (selected.mechanism, selected.strict),
        (Mechanism::JsonSchema, true)
    );
    match &report.outcomes[&WireForm::Grammar] {
        FormOutcome::Rejected { status, body } => {
            assert_eq!(*status, 400);
            assert!(
                body.contains("Unrecognized request argument supplied: grammar"),
                "{body}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_proxy_that_rejects_unknown_fields_and_drops_json_schema_lands_on_json_object() {
    let (report, selected, _emulator) =
        probe_profile(Profile::strict_proxy(), Provider::OpenAiCompatible);
    assert_eq!(selected.mechanism, Mechanism::JsonObject);
    assert_eq!(outcome(&report, WireForm::JsonSchemaStrict), "not_enforced");
    assert_eq!(outcome(&report, WireForm::StructuredOutputs), "rejected");
}

#[test]
fn a_server_that_rejects_strict_keeps_json_schema_without_strict() {
    let (report, selected, _emulator) =
        probe_profile(Profile::no_strict(), Provider::OpenAiCompatible);
    assert_eq!(
        (selected.mechanism, selected.strict),
        (Mechanism::JsonSchema, false)
    );
    assert_eq!(outcome(&report, WireForm::JsonSchemaStrict), "rejected");
    assert_eq!(outcome(&report, WireForm::JsonSchema), "supported");
}

#[test]
fn vllm_new_and_legacy_guided_fields_are_told_apart() {
    let (report, selected, emulator) = probe_profile(Profile::vllm(), Provider::Vllm);
    assert_eq!(selected.mechanism, Mechanism::JsonSchema);
    assert_eq!(outcome(&report, WireForm::StructuredOutputs), "supported");
    // Removed in 0.12: accepted with 200 and ignored.
    assert_eq!(outcome(&report, WireForm::GuidedJson), "not_enforced");
    assert!(
        emulator
            .chat_bodies()
            .iter()
            .all(|body| body.get("grammar").is_none())
    );
    assert_eq!(report.fingerprint.server.as_deref(), Some("vllm 0.12.0"));

    // Behind a proxy that drops response_format, guided decoding is what is left.
    let mut legacy = Profile::vllm_legacy();
    legacy.json_schema = Field::Ignore;
    let (report, selected, _emulator) = probe_profile(legacy, Provider::Vllm);
    assert_eq!(selected.mechanism, Mechanism::GuidedJson);
    assert_eq!(selected.guided_field, GuidedField::GuidedJson);
    assert_eq!(
        outcome(&report, WireForm::StructuredOutputs),
        "not_enforced"
    );

    let mut new = Profile::vllm();
    new.json_schema = Field::Ignore;
    let (_, selected, _emulator) = probe_profile(new, Provider::Vllm);
    assert_eq!(
        (selected.mechanism, selected.guided_field),
        (Mechanism::GuidedJson, GuidedField::StructuredOutputs)
    );
}

#[test]
fn llama_server_enforces_everything_it_knows_and_is_fingerprinted() {
    let (report, selected, emulator) = probe_profile(Profile::llama_server(), Provider::LlamaCpp);
    assert_eq!(
        (selected.mechanism, selected.strict),
        (Mechanism::JsonSchema, true)
    );
    assert_eq!(outcome(&report, WireForm::Grammar), "supported");
    assert_eq!(outcome(&report, WireForm::JsonObject), "supported");
    assert_eq!(
        report.fingerprint.server.as_deref(),
        Some("llama.cpp b6500-emulated")
    );
    assert_eq!(report.fingerprint.context_size, Some(4096));
    assert_eq!(report.fingerprint.models, Some(vec!["tiny".to_owned()]));
    let grammar = emulator
        .chat_bodies()
        .into_iter()
        .find(|body| body.get("grammar").is_some())
        .unwrap();
    assert_eq!(grammar["grammar"], json!(probe::PROBE_GRAMMAR));
}

#[test]
fn ollama_is_fingerprinted_with_capabilities() {
    let emulator = Emulator::start(Profile::ollama());
    let report = probe(
        &target(&emulator, Provider::Ollama, Some("qwen3:4b")),
        Duration::from_secs(20),
    );
    let selected = Capabilities::select(report.outcomes.clone(), &[], report.probed);
    assert_eq!(selected.mechanism, Mechanism::JsonSchema);
    assert_eq!(report.fingerprint.server.as_deref(), Some("ollama 0.12.6"));
    assert_eq!(report.fingerprint.capabilities, ["completion", "tools"]);
    assert!(
        emulator
            .chat_bodies()
            .iter()
            .all(|body| body["model"] == json!("qwen3:4b"))
    );
}

#[test]
fn a_liar_is_probed_but_trusted_with_nothing() {
    let (report, selected, _emulator) = probe_profile(Profile::liar(), Provider::OpenAiCompatible);
    assert!(report.probed);
    assert_eq!(selected.mechanism, Mechanism::PromptOnly);
    for form in WireForm::ALL {
        assert_eq!(outcome(&report, form), "not_enforced", "{form}");
    }
}

#[test]
fn llama_cpp_python_500s_on_json_schema_and_lands_on_grammar() {
    let (report, selected, _emulator) =
        probe_profile(Profile::llama_cpp_python(), Provider::LlamaCpp);
    assert_eq!(selected.mechanism, Mechanism::GbnfGrammar);
    match &report.outcomes[&WireForm::JsonSchema] {
        FormOutcome::Rejected { status, .. } => assert_eq!(*status, 500),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unreachable_endpoint_degrades_to_prompt_only_within_the_deadline() {
    // Held dead for the whole test: no parallel test can take the port.
    let dead = RefusingPort::new();
    let port = dead.port();
    let dead = target_at(Provider::LlamaCpp, &format!("http://127.0.0.1:{port}/v1"));
    let report = probe(&dead, Duration::from_secs(2));
    assert!(!report.probed && !report.reachable);
    assert_eq!(
        Capabilities::select(report.outcomes, &[], false).mechanism,
        Mechanism::PromptOnly
    );
}

#[test]
fn a_hanging_server_cannot_hold_the_probe_past_its_deadline() {
    // Every answer takes 30 s, the deadline is 2 s: only a probe that stops at its deadline
    // reports every form untested (and this test takes 2 s, not 30).
    let emulator = Emulator::start(Profile::llama_server());
    emulator.always_delay(Duration::from_secs(30));
    let report = probe(
        &target(&emulator, Provider::LlamaCpp, None),
        Duration::from_secs(2),
    );
    assert!(!report.probed);
    assert!(
        report
            .outcomes
            .values()
            .all(|outcome| outcome.name() == "untested")
    );
}

#[test]
fn a_server_that_is_still_loading_is_retried_within_the_deadline() {
    let emulator = Emulator::start_after(Profile::llama_server(), Duration::from_millis(1200));
    let report = probe(
        &target(&emulator, Provider::LlamaCpp, None),
        Duration::from_secs(15),
    );
    assert!(report.probed, "{report:?}");
    let selected = Capabilities::select(report.outcomes, &[], true);
    assert_eq!(selected.mechanism, Mechanism::JsonSchema);
}

#[test]
fn errors_then_recovery_and_rate_limits_are_retried() {
    let emulator = Emulator::start(Profile::llama_server());
    let busy = json!({"error": {"code": 503, "message": "Loading model"}}).to_string();
    emulator.faults([
        Fault::Status(503, busy.clone(), None),
        Fault::Status(502, "bad gateway".to_owned(), None),
        Fault::Status(429, "slow down".to_owned(), Some("1".to_owned())),
    ]);
    let report = probe(
        &target(&emulator, Provider::LlamaCpp, None),
        Duration::from_secs(15),
    );
    assert!(report.probed);
    for form in [
        WireForm::JsonSchemaStrict,
        WireForm::JsonSchema,
        WireForm::Grammar,
        WireForm::JsonObject,
    ] {
        assert_eq!(outcome(&report, form), "supported", "{form}");
    }
    assert_eq!(emulator.chat_count(), 5 + 3);
}

#[test]
fn an_answer_cut_by_max_tokens_is_sent_again_with_a_larger_budget() {
    let mut padded = Profile::llama_server();
    padded.pad = 60;
    let (report, selected, emulator) = probe_profile(padded, Provider::LlamaCpp);
    assert_eq!(selected.mechanism, Mechanism::JsonSchema);
    let budgets: Vec<u64> = emulator
        .chat_bodies()
        .iter()
        .filter(|body| body.get("grammar").is_some())
        .map(|body| body["max_tokens"].as_u64().unwrap())
        .collect();
    assert_eq!(
        budgets,
        [probe::FIRST_BUDGET as u64, probe::SECOND_BUDGET as u64]
    );
    assert_eq!(outcome(&report, WireForm::Grammar), "supported");
}

#[test]
fn concurrent_callers_collapse_onto_one_probe() {
    let emulator = Emulator::start(Profile::llama_server());
    let target = target(&emulator, Provider::LlamaCpp, None);
    let negotiator = Negotiator::new();
    let options = options(None, Duration::from_secs(20));
    let results: Vec<Negotiation> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| scope.spawn(|| negotiator.negotiate(&target, &options)))
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().unwrap())
            .collect()
    });
    // One probe: the baseline and the four forms llama-server is probed for.
    assert_eq!(emulator.chat_count(), 5);
    assert!(
        results
            .iter()
            .all(|result| result.capabilities.mechanism == Mechanism::JsonSchema)
    );
    negotiator.negotiate(&target, &options);
    assert_eq!(emulator.chat_count(), 5);
}

#[test]
fn the_cache_is_used_until_the_server_changes() {
    let dir = tempfile::tempdir().unwrap();
    let emulator = Emulator::start(Profile::llama_server());
    let target = target(&emulator, Provider::LlamaCpp, None);
    let options = options(
        Some(CapabilityCache::in_dir(dir.path())),
        Duration::from_secs(20),
    );
    let first = Negotiator::new().negotiate(&target, &options);
    assert_eq!(first.source, CapabilitySource::Probe);
    assert!(first.probed_at.is_some());
    let probes = emulator.chat_count();
    // Another process: no memo, the cache answers.
    let second = Negotiator::new().negotiate(&target, &options);
    assert_eq!(second.source, CapabilitySource::Cache);
    assert_eq!(second.capabilities, first.capabilities);
    assert_eq!(emulator.chat_count(), probes);
    // The server is upgraded and drops grammar: the fingerprint changes, the entry is re-probed.
    let mut upgraded = Profile::llama_server();
    upgraded.props =
        Some(json!({"build_info": "b7000", "default_generation_settings": {"n_ctx": 4096}}));
    upgraded.grammar = Field::Ignore;
    emulator.set_profile(upgraded);
    let third = Negotiator::new().negotiate(&target, &options);
    assert_eq!(third.source, CapabilitySource::Probe);
    assert!(
        third.warnings[0].contains("b6500-emulated -> llama.cpp b7000"),
        "{:?}",
        third.warnings
    );
    assert_eq!(
        third.capabilities.outcomes[&WireForm::Grammar].name(),
        "not_enforced"
    );
    // Forced off: nothing sent, prompt-only.
    let before = emulator.chat_count();
    let off = Negotiator::new().negotiate(
        &target,
        &NegotiateOptions {
            structured_decoding: StructuredDecoding::Off,
            ..options.clone()
        },
    );
    assert_eq!(
        (off.source, off.capabilities.mechanism),
        (CapabilitySource::ForcedOff, Mechanism::PromptOnly)
    );
    assert_eq!(emulator.chat_count(), before);
}

#[test]
fn a_failed_refresh_keeps_the_cached_result() {
    let dir = tempfile::tempdir().unwrap();
    let emulator = Emulator::start(Profile::llama_server());
    let target = target(&emulator, Provider::LlamaCpp, None);
    let mut options = NegotiateOptions {
        check_fingerprint: false,
        ..options(
            Some(CapabilityCache::in_dir(dir.path())),
            Duration::from_secs(20),
        )
    };
    Negotiator::new().negotiate(&target, &options);
    drop(emulator);
    options.refresh = true;
    options.probe_timeout = Duration::from_secs(1);
    let refreshed = Negotiator::new().negotiate(&target, &options);
    assert_eq!(refreshed.source, CapabilitySource::Cache);
    assert_eq!(refreshed.capabilities.mechanism, Mechanism::JsonSchema);
    assert!(
        refreshed.warnings[0].contains("the probe got no answer"),
        "{:?}",
        refreshed.warnings
    );
}

#[test]
fn transport_classifies_what_the_server_does() {
    let emulator = Emulator::start(Profile::llama_server());
    let target = Target {
        api_key: Some(Secret::new("sk-test-TRANSPORTKEY")),
        ..target(&emulator, Provider::LlamaCpp, None)
    };
    let client = target.client().with_max_response_bytes(64 * 1024);
    let request = ChatRequest {
        messages: vec![ChatMessage::user("hi")],
        ..ChatRequest::default()
    };
    let send = || {
        client.chat(
            &request,
            &Constraint::None,
            GuidedField::default(),
            Duration::from_secs(5),
        )
    };
    emulator.faults([
        Fault::ContextOverflow,
        Fault::Status(429, "later".to_owned(), Some("7".to_owned())),
        Fault::Oversized(200 * 1024),
        Fault::Status(401, "bad key sk-test-TRANSPORTKEY".to_owned(), None),
    ]);
    let overflow = send().unwrap_err();
    assert_eq!(
        (overflow.class, overflow.status),
        (ErrorClass::ContextOverflow, Some(400))
    );
    let limited = send().unwrap_err();
    assert_eq!(limited.class, ErrorClass::RateLimited);
    assert_eq!(limited.retry_after, Some(Duration::from_secs(7)));
    let large = send().unwrap_err();
    assert_eq!(large.class, ErrorClass::Unknown);
    assert!(large.detail.contains("larger than"), "{large}");
    let denied = send().unwrap_err();
    assert_eq!(denied.class, ErrorClass::Permanent);
    assert!(!denied.to_string().contains("TRANSPORTKEY"), "{denied}");
    let answer = send().unwrap();
    assert!(answer.content.unwrap().contains("Hello there"));
    let headers = emulator.requests();
    assert_eq!(
        headers[0].header("authorization"),
        Some("Bearer sk-test-TRANSPORTKEY")
    );

    // Held dead for the whole test: no parallel test can take the port.
    let dead = RefusingPort::new();
    let port = dead.port();
    let refused = Client::new(
        normalize_endpoint(Provider::LlamaCpp, &format!("127.0.0.1:{port}"))
            .unwrap()
            .endpoint,
        AuthHeader::Bearer,
        None,
    )
    .chat(
        &request,
        &Constraint::None,
        GuidedField::default(),
        Duration::from_secs(2),
    )
    .unwrap_err();
    assert_eq!(refused.class, ErrorClass::Transient);
    let slow = Emulator::start(Profile::llama_server());
    slow.always_delay(Duration::from_secs(10));
    let slow_client = target_client(&slow);
    let canceled = slow_client
        .chat(
            &request,
            &Constraint::None,
            GuidedField::default(),
            Duration::from_millis(300),
        )
        .unwrap_err();
    assert_eq!(canceled.class, ErrorClass::Canceled);
}

fn target_client(emulator: &Emulator) -> Client {
    target(emulator, Provider::LlamaCpp, None).client()
}

#[test]
fn azure_sends_the_api_key_header_and_the_api_version() {
    let emulator = Emulator::start(Profile::openai());
    let endpoint = normalize_endpoint(
        Provider::Azure,
        &format!("{}/openai/deployments/gpt4o", emulator.root_url()),
    )
    .unwrap()
    .endpoint
    .with_default_api_version();
    let client = Client::new(
        endpoint,
        AuthHeader::AzureApiKey,
        Some(Secret::new("azure-key-1")),
    );
    let _ = client.chat(
        &ChatRequest {
            messages: vec![ChatMessage::user("hi")],
            ..ChatRequest::default()
        },
        &Constraint::None,
        GuidedField::default(),
        Duration::from_secs(5),
    );
    let request = &emulator.requests()[0];
    assert_eq!(request.path, "/openai/deployments/gpt4o/chat/completions");
    assert_eq!(request.query, "api-version=2024-10-21");
    assert_eq!(request.header("api-key"), Some("azure-key-1"));
    assert_eq!(request.header("authorization"), None);
}

#[test]
fn the_probe_asks_with_the_thinking_switch_and_drops_it_where_it_is_refused() {
    let thinking_off = |emulator: &Emulator, provider| Target {
        thinking: crate::config::Thinking::Off,
        ..target(emulator, provider, None)
    };
    let emulator = Emulator::start(Profile::thinking_llama_server());
    let report = probe(
        &thinking_off(&emulator, Provider::LlamaCpp),
        Duration::from_secs(20),
    );
    assert_eq!(outcome(&report, WireForm::Grammar), "supported");
    let constrained: Vec<serde_json::Value> = emulator
        .chat_bodies()
        .into_iter()
        .filter(|body| body.get("max_tokens") != Some(&json!(16)))
        .collect();
    assert!(!constrained.is_empty());
    for body in &constrained {
        assert_eq!(
            body["chat_template_kwargs"],
            json!({"enable_thinking": false}),
            "{body}"
        );
    }

    // A proxy that refuses the field: the probe finds what it finds without it.
    let emulator = Emulator::start(Profile::strict_proxy());
    let report = probe(
        &thinking_off(&emulator, Provider::OpenAiCompatible),
        Duration::from_secs(20),
    );
    let selected = Capabilities::select(report.outcomes.clone(), &[], report.probed);
    assert_eq!(selected.mechanism, Mechanism::JsonObject);
    assert_eq!(outcome(&report, WireForm::JsonObject), "supported");
    let bodies = emulator.chat_bodies();
    assert!(
        bodies
            .iter()
            .any(|body| body.get("chat_template_kwargs").is_some()),
        "the switch was tried"
    );
    assert!(
        bodies
            .iter()
            .any(|body| body.get("chat_template_kwargs").is_none()
                && body["response_format"]["type"] == "json_object"),
        "and dropped once refused"
    );
}

#[test]
fn a_whole_answer_drops_a_field_the_server_refuses_and_never_sends_it_again() {
    let emulator = Emulator::start(Profile::strict_proxy());
    let client = target_client(&emulator);
    let mut request = ChatRequest {
        messages: vec![ChatMessage::user("hi")],
        ..ChatRequest::default()
    };
    request.thinking.insert(
        "chat_template_kwargs".to_owned(),
        json!({"enable_thinking": false}),
    );
    let send = || {
        client.chat(
            &request,
            &Constraint::None,
            GuidedField::default(),
            Duration::from_secs(5),
        )
    };
    assert!(send().unwrap().content.is_some());
    assert!(send().unwrap().content.is_some());
    let sent: Vec<bool> = emulator
        .chat_bodies()
        .iter()
        .map(|body| body.get("chat_template_kwargs").is_some())
        .collect();
    assert_eq!(sent, [true, false, false], "refused once, then never sent");
    assert_eq!(client.refusals().0, ["chat_template_kwargs"]);
}
