//! Endpoint failures: retried or returned per their class, and never demotions, except where a
//! 500 with the constrained field, a success without it and a 500 with it again right after
//! say the field is the cause (llama-cpp-python's 500). A server that is loading (503) is
//! waited for within the call's deadline.

use super::emulator::{Fault, Profile};
use super::*;
use crate::backends::errors::ErrorClass;
use crate::schema::Mechanism;

fn endpoint(failure: CallFailure) -> (CallError, Box<CallMeta>) {
    match failure {
        CallFailure::Endpoint { error, meta } => (error, meta),
        other => panic!("not an endpoint failure: {other:?}"),
    }
}

use crate::backends::errors::CallError;

#[test]
fn a_503_then_ok_is_retried_once_and_demotes_nothing() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[WireForm::JsonSchemaStrict]);
    world.emulator.faults([Fault::Status(
        503,
        "{\"error\": \"loading\"}".to_owned(),
        None,
    )]);
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(
        forms_sent(&world.emulator),
        ["json_schema_strict", "json_schema_strict"]
    );
    assert_eq!(
        (outcome.meta.requests, outcome.meta.transport_retries),
        (2, 1)
    );
    assert!(outcome.meta.demotions.is_empty());
    assert!(world.entry().demotions.is_empty());
    let waits = world.waits();
    assert_eq!(waits.len(), 1);
    assert!(waits[0] <= Duration::from_millis(500), "{waits:?}");
}

#[test]
fn a_429_with_retry_after_waits_as_told() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[WireForm::JsonSchemaStrict]);
    world.emulator.faults([Fault::Status(
        429,
        "{\"error\": {\"message\": \"slow down\"}}".to_owned(),
        Some("1".to_owned()),
    )]);
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(world.waits(), [Duration::from_secs(1)]);
    assert_eq!(outcome.meta.transport_retries, 1);
    assert!(world.entry().demotions.is_empty());
}

#[test]
fn a_context_overflow_is_returned_at_once() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp);
    world.cached(&[WireForm::JsonSchemaStrict, WireForm::JsonObject]);
    world.emulator.faults([Fault::ContextOverflow]);
    let (error, meta) = endpoint(world.call(&scope_request()).unwrap_err());
    assert_eq!(error.class, ErrorClass::ContextOverflow);
    assert_eq!(error.status, Some(400));
    assert_eq!(
        world.emulator.chat_count(),
        1,
        "no retry, no next wire form, no plain resend"
    );
    assert!(world.waits().is_empty());
    assert!(meta.demotions.is_empty());
    assert!(world.entry().demotions.is_empty());
}

#[test]
fn a_502_that_outlasts_the_retries_is_returned_without_a_plain_resend() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[WireForm::JsonSchemaStrict]);
    let busy = || Fault::Status(502, "bad gateway".to_owned(), None);
    world.emulator.faults([busy(), busy(), busy(), busy()]);
    let (error, meta) = endpoint(world.call(&scope_request()).unwrap_err());
    assert_eq!(error.class, ErrorClass::Transient);
    assert_eq!(error.attempts, 3);
    // A gateway that fails says nothing about the field: no request without it.
    assert_eq!(
        forms_sent(&world.emulator),
        [
            "json_schema_strict",
            "json_schema_strict",
            "json_schema_strict",
        ]
    );
    assert_eq!((meta.requests, meta.transport_retries), (3, 2));
    assert!(world.entry().demotions.is_empty());
}

/// llama-server's answer while it loads the model (it binds its port first).
fn loading() -> Fault {
    Fault::Status(
        503,
        r#"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#.to_owned(),
        None,
    )
}

#[test]
fn a_server_that_is_loading_for_a_while_is_waited_for_and_nothing_is_demoted() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp);
    world.cached(&[WireForm::JsonSchemaStrict, WireForm::JsonSchema]);
    // More 503s than the policy's 3 attempts: the server said it is loading, so the call
    // waits within its deadline instead of sending a plain request that demotes the field.
    world.emulator.faults((0..6).map(|_| loading()));
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(forms_sent(&world.emulator), ["json_schema_strict"; 7]);
    assert_eq!(outcome.meta.wire_form, Some(WireForm::JsonSchemaStrict));
    assert_eq!(
        (outcome.meta.requests, outcome.meta.transport_retries),
        (7, 6)
    );
    assert!(outcome.meta.demotions.is_empty());
    let entry = world.entry();
    assert!(entry.demotions.is_empty(), "{entry:?}");
    assert_eq!(entry.mechanism, Mechanism::JsonSchema);
    let waits = world.waits();
    assert_eq!(waits.len(), 6);
    assert!(
        waits
            .iter()
            .all(|wait| *wait <= crate::backends::retry::LOADING_POLL),
        "{waits:?}"
    );
}

#[test]
fn a_500_that_is_gone_when_the_constrained_request_is_sent_again_demotes_nothing() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[WireForm::JsonSchemaStrict, WireForm::JsonObject]);
    let crash = || Fault::Status(500, "{\"error\": \"internal\"}".to_owned(), None);
    // Three 500s with the field, then the server is fine: the plain request and the
    // constrained one after it both succeed.
    world.emulator.faults([crash(), crash(), crash()]);
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(
        forms_sent(&world.emulator),
        [
            "json_schema_strict",
            "json_schema_strict",
            "json_schema_strict",
            "plain",
            "json_schema_strict",
        ]
    );
    assert_eq!(outcome.meta.wire_form, Some(WireForm::JsonSchemaStrict));
    assert!(outcome.meta.demotions.is_empty());
    assert!(world.entry().demotions.is_empty());

    // The second constrained request fails otherwise (a gateway): still no evidence against
    // the field. The plain answer serves the call.
    world.emulator.faults([
        crash(),
        crash(),
        crash(),
        Fault::Delay(Duration::ZERO),
        Fault::Status(502, "bad gateway".to_owned(), None),
    ]);
    world.emulator.answers([FENCED_SCOPE]);
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(forms_sent(&world.emulator).len(), 5 + 5);
    assert_eq!(outcome.meta.wire_form, None);
    assert_eq!(value(&outcome)["in_scope"], Value::Bool(true));
    assert!(outcome.meta.demotions.is_empty());
    assert!(world.entry().demotions.is_empty());
}

#[test]
fn llama_cpp_python_500_on_json_schema_is_demoted_through_the_plain_resend() {
    let world = World::new(Profile::llama_cpp_python(), Provider::OpenAiCompatible);
    world.cached(&[
        WireForm::JsonSchemaStrict,
        WireForm::JsonSchema,
        WireForm::Grammar,
        WireForm::JsonObject,
    ]);
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(
        forms_sent(&world.emulator),
        [
            "json_schema_strict",
            "json_schema_strict",
            "json_schema_strict",
            "plain",
            // The evidence twice in a row: the field fails again right after plain succeeded.
            "json_schema_strict",
            "json_schema",
            "json_schema",
            "json_schema",
            "plain",
            "json_schema",
            "grammar",
        ]
    );
    assert_eq!(outcome.meta.mechanism, Mechanism::GbnfGrammar);
    assert_eq!(
        (outcome.meta.requests, outcome.meta.transport_retries),
        (11, 4)
    );
    assert_eq!(outcome.meta.repair_rung, Some(crate::repair::Rung::None));
    let entry = world.entry();
    assert_eq!(
        entry.demoted_forms(),
        [WireForm::JsonSchemaStrict, WireForm::JsonSchema]
    );
    for demotion in &entry.demotions {
        assert_eq!(demotion.status, Some(500));
        assert!(
            demotion
                .body
                .contains("Input should be 'text' or 'json_object'"),
            "{demotion:?}"
        );
    }
    assert_eq!(entry.mechanism, Mechanism::GbnfGrammar);
}

#[test]
fn a_permanent_error_that_plain_requests_share_demotes_nothing() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[WireForm::JsonSchemaStrict, WireForm::JsonObject]);
    let missing = || {
        Fault::Status(
            404,
            "{\"error\": {\"message\": \"The model `gpt-5-nano` does not exist\"}}".to_owned(),
            None,
        )
    };
    world.emulator.faults([missing(), missing(), missing()]);
    let (error, meta) = endpoint(world.call(&scope_request()).unwrap_err());
    assert_eq!(error.status, Some(404));
    assert_eq!(
        forms_sent(&world.emulator),
        ["json_schema_strict", "json_object", "plain"]
    );
    assert!(meta.demotions.is_empty());
    assert!(world.entry().demotions.is_empty());

    // An authentication failure is not about the field: returned at once.
    world.emulator.faults([Fault::Status(
        401,
        "{\"error\": \"bad key\"}".to_owned(),
        None,
    )]);
    let (error, _) = endpoint(world.call(&scope_request()).unwrap_err());
    assert_eq!(
        (error.class, error.status),
        (ErrorClass::Permanent, Some(401))
    );
    assert_eq!(world.emulator.chat_count(), 4);
}

#[test]
fn a_tool_turn_s_constrained_request_after_the_plain_resend_still_describes_the_tools() {
    let world = World::new(Profile::llama_cpp_python(), Provider::OpenAiCompatible);
    world.cached(&[WireForm::JsonSchema, WireForm::Grammar]);
    world
        .call(&super::tools::tool_request(
            crate::tools::ToolChoice::Required,
        ))
        .unwrap();
    let bodies = world.emulator.chat_bodies();
    let sent = forms_sent(&world.emulator);
    let again = sent
        .iter()
        .enumerate()
        .skip_while(|(_, form)| **form != "plain")
        .find(|(_, form)| **form != "plain")
        .map(|(at, _)| at)
        .expect("a constrained request after the plain resend");
    for at in [0, again] {
        let system = super::tools::system_text(&bodies[at]);
        assert!(
            system.contains("You can call these tools:"),
            "request {at} ({}): {system}",
            sent[at]
        );
        assert!(bodies[at].get("tools").is_none(), "{}", bodies[at]);
    }
}
