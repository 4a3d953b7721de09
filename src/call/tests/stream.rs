//! Streaming on the call path: answers assembled from server-sent events (and from a whole
//! body when the server does not stream), an answer cut off once it loops or once its value is
//! complete (the emulator records that the client went away before the end), the call's
//! deadline, the idle timeout, and the re-ask that follows a loop.

use std::time::Duration;

use serde_json::json;

use super::emulator::{Fault, Profile, Streaming};
use super::*;
use crate::repair::{FailureClass, LoopKind};

/// A plan that loops on one file name after a good start, the way the real small model did
/// (tests/fixtures/loops/plan-retry.txt), for as long as the budget lets it.
fn looping_plan() -> String {
    format!(
        "{{\"goal\": \"Add retries\", \"steps\": [{{\"id\": 1, \"title\": \"Add a retry loop\", \
         \"description\": \"Wrap the request.\", \"files\": [{}",
        "\"src/net/client.rs\", ".repeat(400)
    )
}

fn plan_request() -> StructuredRequest {
    StructuredRequest::contract("plan").user("Add retries to the HTTP client.")
}

fn prompt_only_world() -> World {
    World::new(Profile::strict_proxy(), Provider::OpenAiCompatible).off()
}

#[test]
fn a_streamed_answer_is_assembled_with_its_usage_and_the_request_asks_for_a_stream() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[WireForm::JsonSchemaStrict]);
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(value(&outcome), &json!({"reason": "a", "in_scope": true}));
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    let meta = &outcome.meta;
    assert!(meta.streamed);
    assert_eq!(meta.stream_end, StreamEnding::Finished);
    assert_eq!(meta.finish_reason.as_deref(), Some("stop"));
    let tokens = meta.tokens.unwrap();
    assert_eq!(
        tokens.completion_tokens,
        Some(30),
        "the usage of the last chunk"
    );
    let streams = world.emulator.wait_for_streams(1);
    assert!(streams[0].completed);
}

#[test]
fn a_server_that_sends_the_whole_answer_or_refuses_to_stream_is_read_whole() {
    for streaming in [Streaming::Whole, Streaming::Refused] {
        let world = World::new(
            Profile {
                streaming,
                ..Profile::openai()
            },
            Provider::OpenAi,
        );
        world.cached(&[WireForm::JsonSchemaStrict]);
        let outcome = world.call(&scope_request()).unwrap();
        assert_eq!(value(&outcome)["in_scope"], true, "{streaming:?}");
        assert!(!outcome.meta.streamed, "{streaming:?}");
        let bodies = world.emulator.chat_bodies();
        match streaming {
            Streaming::Whole => assert_eq!(bodies.len(), 1),
            _ => {
                assert_eq!(bodies.len(), 2, "asked again without a stream");
                assert_eq!(bodies[1]["stream"], false);
                assert!(
                    world.entry().refuses_streaming,
                    "and the cache remembers it"
                );
            }
        }
    }
}

#[test]
fn a_loop_is_cut_off_early_the_connection_closed_and_the_re_ask_breaks_it() {
    let world = prompt_only_world();
    world.emulator.answers([
        looping_plan(),
        r#"{"goal": "Add retries", "steps": [{"id": 1, "title": "Add a retry loop", "description": "Wrap the request.", "files": ["src/net/client.rs"], "depends_on": []}]}"#.to_owned(),
    ]);
    // Paced like a model, so the server notices the closed connection soon after: how many
    // chunks it wrote before that depends on socket buffers, not only on the client.
    world.emulator.token_delay(Duration::from_millis(1));
    let outcome = world.call(&plan_request().max_tokens(4000)).unwrap();
    let streams = world.emulator.wait_for_streams(2);
    assert!(
        !streams[0].completed,
        "the client closed the looping stream"
    );
    assert!(
        streams[0].chunks < streams[0].tokens / 4,
        "cut early, not after {} of {} tokens",
        streams[0].chunks,
        streams[0].tokens
    );
    assert!(
        outcome.meta.reasks[0].class == FailureClass::Repetition,
        "{:?}",
        outcome.meta.reasks
    );
    let meta = &outcome.meta;
    assert_eq!(meta.attempts, 2);
    assert_eq!(
        (meta.retry_count, meta.transport_retries),
        (1, 0),
        "one re-ask"
    );
    assert_eq!(meta.reasks[0].class, FailureClass::Repetition);
    assert_eq!(meta.reasks[0].action, ReaskAction::AntiRepetition);
    assert_eq!(meta.reasks[0].max_tokens, 4000, "never a larger budget");
    let bodies = world.emulator.chat_bodies();
    // The strict proxy takes the OpenAI penalties; the re-ask has a fresh seed and a small
    // temperature, and the same conversation.
    assert_eq!(bodies[1]["frequency_penalty"], json!(0.3));
    assert!(bodies[1]["seed"].as_u64().is_some());
    assert_eq!(bodies[1]["temperature"], json!(REASK_TEMPERATURE));
    assert_eq!(bodies[1]["max_tokens"], 4000);
    assert_eq!(bodies[1]["messages"], bodies[0]["messages"]);
    assert_eq!(meta.stream_end, StreamEnding::Finished);
}

/// The plan of issue 22: steps that are the same but for their `"id"`, a number outside any
/// string, written until the budget runs out.
fn counting_plan() -> String {
    let steps: Vec<String> = (2..200)
        .map(|id| {
            format!(
                "{{\"id\":{id},\"title\":\"The plan is to add a config loader.\",\"description\":\"This script will be used to load the configuration.\",\"files\":[\"config-loader.txt\"],\"depends_on\":[]}}"
            )
        })
        .collect();
    format!(
        "{{\"goal\":\"src/args.js\",\"steps\":[{{\"id\":1,\"title\":\"Read the arguments\",\"description\":\"Parse argv.\",\"files\":[\"src/args.js\"],\"depends_on\":[]}},{}",
        steps.join(",")
    )
}

#[test]
fn a_loop_that_counts_is_cut_early_and_re_asked_as_a_loop_not_as_a_truncation() {
    let world = prompt_only_world();
    world.emulator.answers([
        counting_plan(),
        r#"{"goal": "Load the config", "steps": [{"id": 1, "title": "Add a config loader", "description": "Read config.json once.", "files": ["src/config.js"], "depends_on": []}]}"#.to_owned(),
    ]);
    world.emulator.token_delay(Duration::from_millis(1));
    let outcome = world.call(&plan_request().max_tokens(4000)).unwrap();
    let streams = world.emulator.wait_for_streams(2);
    assert!(
        !streams[0].completed,
        "the client closed the counting stream"
    );
    assert!(
        streams[0].chunks < streams[0].tokens / 4,
        "cut early, not after {} of {} tokens",
        streams[0].chunks,
        streams[0].tokens
    );
    let meta = &outcome.meta;
    assert_eq!(meta.reasks.len(), 1, "{:?}", meta.reasks);
    assert_eq!(meta.reasks[0].class, FailureClass::Repetition);
    assert_eq!(meta.reasks[0].action, ReaskAction::AntiRepetition);
    assert_eq!(meta.reasks[0].max_tokens, 4000, "never a larger budget");
    assert_eq!(value(&outcome)["goal"], "Load the config");
}

#[test]
fn a_loop_that_is_never_broken_fails_as_repetition_with_the_loop_and_the_partial() {
    let world = prompt_only_world();
    world.emulator.answers([looping_plan(), looping_plan()]);
    let failure = violation(world.call(&plan_request().max_tokens(4000)).unwrap_err());
    assert_eq!(failure.class, FailureClass::Repetition);
    let repetition = failure.meta.repetition.as_ref().expect("the loop");
    assert_eq!(repetition.kind, LoopKind::RepeatedText);
    assert_eq!(repetition.unit, "\"src/net/client.rs\", ");
    assert_eq!(failure.meta.stream_end, StreamEnding::Repetition);
    assert_eq!(failure.partial.as_ref().unwrap()["goal"], "Add retries");
    assert!(
        failure
            .to_string()
            .starts_with("the answer looped after 2 attempts"),
        "{failure}"
    );
    assert!(
        world
            .emulator
            .wait_for_streams(2)
            .iter()
            .all(|stream| !stream.completed)
    );
}

#[test]
fn the_essay_after_a_complete_value_is_not_waited_for() {
    let world = prompt_only_world();
    let essay = format!(
        "{{\"reason\": \"Docs are part of the task.\", \"in_scope\": true}}\n\nThis answer says {}",
        "that the README is in scope because the task asks for documentation. ".repeat(3)
    );
    // Paced like a fast model, so the server notices the closed connection within a chunk.
    world.emulator.token_delay(Duration::from_millis(2));
    world.emulator.answers([essay]);
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(value(&outcome)["in_scope"], true);
    assert_eq!(outcome.meta.stream_end, StreamEnding::Done);
    assert_eq!(
        outcome.meta.finish_reason, None,
        "slmcode closed the stream"
    );
    assert_eq!(outcome.meta.repair_rung, Some(crate::repair::Rung::None));
    let stream = &world.emulator.wait_for_streams(1)[0];
    assert!(!stream.completed);
    assert!(stream.chunks < 120, "{stream:?}");
}

#[test]
fn the_deadline_ends_a_slow_answer_with_what_had_arrived() {
    let world = prompt_only_world();
    world.emulator.token_delay(Duration::from_millis(20));
    world.emulator.answers([format!(
        "{{\"reason\": \"{}\", \"in_scope\": true}}",
        "slow words ".repeat(30)
    )]);
    let request = scope_request().call_timeout(Duration::from_millis(600));
    let failure = world.call(&request).unwrap_err();
    let exceeded = match failure {
        CallFailure::DeadlineExceeded(exceeded) => exceeded,
        other => panic!("not a deadline: {other:?}"),
    };
    assert!(
        exceeded.raw.starts_with("{\"reason\": \"slow words"),
        "{}",
        exceeded.raw
    );
    assert!(exceeded.raw.len() < 300);
    assert_eq!(exceeded.missing_required, ["reason", "in_scope"]);
    assert_eq!(exceeded.meta.stream_end, StreamEnding::Deadline);
    assert!(
        exceeded
            .to_string()
            .starts_with("the call's deadline of 0.6 s passed during answer 1")
    );
    assert!(!world.emulator.wait_for_streams(1)[0].completed);
}

#[test]
fn a_stalled_stream_is_an_idle_timeout_that_is_retried_within_the_deadline() {
    let mut world = prompt_only_world();
    world.settings.timeout_s = 1;
    world
        .emulator
        .faults([Fault::Stall(5, Duration::from_millis(1500))])
        .answers([
            r#"{"reason": "stalled", "in_scope": true}"#,
            r#"{"reason": "ok", "in_scope": false}"#,
        ]);
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(value(&outcome)["reason"], "ok");
    assert_eq!(outcome.meta.transport_retries, 1);
    assert_eq!(outcome.meta.requests, 2);
}

#[test]
fn a_truncation_raise_stops_where_the_deadline_ends_at_the_measured_rate() {
    let world = prompt_only_world();
    // About 100 tokens a second: the first answer (100 tokens) takes a second, and the
    // 2.5-second deadline leaves room for about 135 more, not the 200 a doubling asks for.
    world.emulator.token_delay(Duration::from_millis(10));
    let long = format!(
        "{{\"reason\": \"{}\", \"in_scope\": true}}",
        "x".repeat(400)
    );
    world.emulator.answers([long.clone(), long]);
    let request = scope_request()
        .max_tokens(100)
        .call_timeout(Duration::from_millis(2500));
    let failure = world.call(&request).unwrap_err();
    let meta = failure.meta().unwrap();
    let rate = meta.tokens_per_second.expect("a measured rate");
    assert!(rate > 10.0 && rate < 200.0, "{rate}");
    // On a loaded machine the first answer takes longer and may leave no room at all: then
    // there is no re-ask, and the warning says why. Either way nothing asks past the deadline.
    match meta.reasks.first() {
        Some(reask) => {
            assert_eq!(reask.class, FailureClass::Truncated);
            assert!(
                (MIN_REASK_TOKENS..200).contains(&reask.max_tokens),
                "raised to {}: at most what fits",
                reask.max_tokens
            );
        }
        None => assert!(
            meta.warnings
                .iter()
                .any(|warning| warning.contains("leaves no room")),
            "{:?}",
            meta.warnings
        ),
    }
}

#[test]
fn a_whole_answer_that_loops_in_a_multibyte_phrase_is_cut_where_a_stream_would_be() {
    let world = World::new(
        Profile {
            streaming: Streaming::Whole,
            ..Profile::strict_proxy()
        },
        Provider::OpenAiCompatible,
    )
    .off();
    let looped = format!(
        "{{\"reason\": \"Faire la {}\", \"in_scope\": true}}",
        "répression à la ".repeat(60)
    );
    world.emulator.answers([looped.clone(), looped]);
    let failure = violation(world.call(&scope_request()).unwrap_err());
    assert_eq!(failure.class, FailureClass::Repetition);
    assert_eq!(failure.meta.stream_end, StreamEnding::Repetition);
    assert!(!failure.meta.streamed);
    assert!(failure.raw.len() < 1000, "cut at the loop: {}", failure.raw);
}
