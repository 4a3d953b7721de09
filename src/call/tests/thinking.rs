//! Thinking models: a reasoning block full of headings and notes (what the JSON-only stop
//! sequences match) before the answer, inline or in a field of its own, streamed or whole, on
//! emulated engines that apply `stop` to the reasoning as the real ones do; the thinking
//! switch on the wire, refused and remembered; an answer that is all reasoning.

use serde_json::json;

use super::emulator::{Profile, Streaming, Thinker};
use super::*;
use crate::agents::JSON_STOP;
use crate::config::Thinking;
use crate::repair::FailureClass;

/// A scope judgement followed by the essay a small model adds.
const JUDGED: &str =
    "{\"reason\": \"Docs are part of the task.\", \"in_scope\": true}\n## Why\nBecause it says so.";

fn judged() -> Value {
    json!({"reason": "Docs are part of the task.", "in_scope": true})
}

/// `profile`, streamed or whole, prompt-only (the scripted answers are what the model writes).
fn world(profile: Profile, streaming: Streaming, provider: Provider) -> World {
    World::new(
        Profile {
            streaming,
            ..profile
        },
        provider,
    )
    .off()
}

fn thinking(mut world: World, thinking: Thinking) -> World {
    world.settings.thinking = thinking;
    world
}

fn reasoning(meta: &CallMeta) -> &ReasoningMeta {
    meta.reasoning.as_ref().expect("the reasoning, kept apart")
}

#[test]
fn an_inline_reasoning_block_is_never_cut_by_the_stops_and_the_answer_after_it_is_read() {
    for streaming in [Streaming::Events, Streaming::Whole] {
        let world = world(
            Profile::thinking_llama_server(),
            streaming,
            Provider::LlamaCpp,
        );
        world.emulator.answers([JUDGED]);
        let outcome = world.call(&scope_request()).unwrap();
        assert_eq!(value(&outcome), &judged(), "{streaming:?}");
        let body = world.emulator.chat_bodies().pop().unwrap();
        assert!(body.get("stop").is_none(), "no server stops: {body}");
        assert!(
            body.get("chat_template_kwargs").is_none(),
            "auto sends nothing"
        );
        let meta = &outcome.meta;
        assert_eq!(world.emulator.chat_count(), 1, "no re-ask");
        assert!(meta.reasks.is_empty());
        // The essay after the value is still not waited for.
        assert_eq!(meta.stream_end, StreamEnding::Done);
        let reasoning = reasoning(meta);
        assert_eq!(reasoning.source, ReasoningSource::Inline);
        assert_eq!(reasoning.text, Profile::REASONING);
        assert!(!reasoning.unfinished);
    }
}

#[test]
fn the_stops_end_the_answer_after_the_reasoning_on_the_client() {
    let world = world(
        Profile::thinking_llama_server(),
        Streaming::Events,
        Provider::LlamaCpp,
    );
    // A note before the object: where the server would have stopped, the client stops.
    world
        .emulator
        .answers(["Here it is.\nNote: see below\n{\"reason\": \"x\", \"in_scope\": true}"]);
    let failure = violation(world.call(&scope_request().reask(0)).unwrap_err());
    assert_eq!(failure.class, FailureClass::Prose);
    assert!(
        failure.raw.ends_with("</think>\nHere it is."),
        "cut where the stop begins, after the reasoning: {:?}",
        failure.raw
    );
    assert_eq!(failure.meta.stream_end, StreamEnding::Stop);
}

#[test]
fn reasoning_in_a_field_of_its_own_is_kept_apart_and_the_answer_read_from_content() {
    for (profile, provider, field_text) in [
        (
            Profile::reasoning_llama_server(),
            Provider::LlamaCpp,
            "reasoning_content",
        ),
        (Profile::thinking_ollama(), Provider::Ollama, "reasoning"),
    ] {
        for streaming in [Streaming::Events, Streaming::Whole] {
            let world = world(profile.clone(), streaming, provider);
            world.emulator.answers([JUDGED]);
            let outcome = world.call(&scope_request()).unwrap();
            assert_eq!(value(&outcome), &judged(), "{field_text} {streaming:?}");
            let reasoning = reasoning(&outcome.meta);
            assert_eq!(reasoning.source, ReasoningSource::Field);
            assert_eq!(reasoning.text, Profile::REASONING, "{field_text}");
            assert!(!reasoning.unfinished);
            assert!(outcome.meta.reasks.is_empty() && outcome.meta.warnings.is_empty());
        }
    }
}

#[test]
fn a_stop_that_ends_the_reasoning_is_asked_again_without_server_stops_not_as_truncated() {
    // thinking = off sends the stops, but this model's template ignores the switch: the
    // server's stops end its reasoning at the first heading (the old failure: truncated,
    // re-asked with the same stops, exit 4).
    for (field, provider) in [
        (None, Provider::LlamaCpp),
        (Some("reasoning_content"), Provider::LlamaCpp),
    ] {
        for streaming in [Streaming::Events, Streaming::Whole] {
            let profile = Profile {
                thinker: Some(Thinker {
                    reasoning: Profile::REASONING.to_owned(),
                    field,
                    obeys_switch: false,
                    constrained_as_reasoning: false,
                }),
                ..Profile::thinking_llama_server()
            };
            let world = thinking(world(profile, streaming, provider), Thinking::Off);
            world.emulator.answers([JUDGED, JUDGED]);
            let outcome = world.call(&scope_request()).unwrap();
            assert_eq!(value(&outcome), &judged(), "{field:?} {streaming:?}");
            let bodies = world.emulator.chat_bodies();
            assert_eq!(bodies.len(), 2);
            assert_eq!(bodies[0]["stop"], json!(JSON_STOP));
            assert_eq!(
                bodies[0]["chat_template_kwargs"],
                json!({"enable_thinking": false})
            );
            assert!(bodies[1].get("stop").is_none(), "{}", bodies[1]);
            assert_eq!(bodies[1]["max_tokens"], bodies[0]["max_tokens"]);
            let meta = &outcome.meta;
            assert!(meta.reasks.is_empty(), "not a re-ask of a truncated answer");
            assert_eq!((meta.retry_count, meta.attempts), (0, 2));
            assert!(
                meta.warnings
                    .iter()
                    .any(|warning| warning.contains("inside the model's reasoning")),
                "{:?}",
                meta.warnings
            );
            assert!(!reasoning(meta).unfinished);
        }
    }
}

#[test]
fn thinking_off_reaches_each_engine_in_its_field_and_the_model_answers_without_reasoning() {
    for (profile, provider, field, switch) in [
        (
            Profile::thinking_llama_server(),
            Provider::LlamaCpp,
            "chat_template_kwargs",
            json!({"enable_thinking": false}),
        ),
        (
            Profile::thinking_ollama(),
            Provider::Ollama,
            "reasoning_effort",
            json!("none"),
        ),
    ] {
        let world = thinking(world(profile, Streaming::Events, provider), Thinking::Off);
        world.emulator.answers([JUDGED]);
        let outcome = world.call(&scope_request()).unwrap();
        assert_eq!(value(&outcome), &judged());
        let body = world.emulator.chat_bodies().pop().unwrap();
        assert_eq!(body[field], switch, "{provider}");
        assert_eq!(body["stop"], json!(JSON_STOP), "the model does not think");
        assert_eq!(outcome.meta.reasoning, None);
        assert_eq!(world.emulator.chat_count(), 1);
    }
    // On: the switch the other way, and no stops on the server.
    let world = thinking(
        world(
            Profile::thinking_llama_server(),
            Streaming::Events,
            Provider::LlamaCpp,
        ),
        Thinking::On,
    );
    world.emulator.answers([JUDGED]);
    let outcome = world.call(&scope_request()).unwrap();
    let body = world.emulator.chat_bodies().pop().unwrap();
    assert_eq!(
        body["chat_template_kwargs"],
        json!({"enable_thinking": true})
    );
    assert!(body.get("stop").is_none());
    assert_eq!(reasoning(&outcome.meta).text, Profile::REASONING);
}

#[test]
fn a_server_that_refuses_the_switch_gets_it_dropped_and_the_refusal_is_remembered() {
    // A proxy that checks fields: `chat_template_kwargs` is not an OpenAI field.
    let world = thinking(
        World::new(Profile::strict_proxy(), Provider::OpenAiCompatible).off(),
        Thinking::Off,
    );
    world.emulator.answers([JUDGED, JUDGED]);
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(value(&outcome), &judged());
    let bodies = world.emulator.chat_bodies();
    assert_eq!(bodies.len(), 2);
    assert_eq!(
        bodies[0]["chat_template_kwargs"],
        json!({"enable_thinking": false})
    );
    assert!(bodies[1].get("chat_template_kwargs").is_none());
    assert_eq!(
        bodies[1]["frequency_penalty"],
        json!(0.3),
        "only the refused field is dropped"
    );
    assert_eq!(world.entry().refused_fields, ["chat_template_kwargs"]);
    assert!(outcome.meta.demotions.is_empty());

    // A new process learns it from the cache: one request, without the field.
    world.call(&scope_request()).unwrap();
    let bodies = world.emulator.chat_bodies();
    assert_eq!(bodies.len(), 3);
    assert!(bodies[2].get("chat_template_kwargs").is_none());
}

#[test]
fn a_budget_that_runs_out_inside_the_reasoning_is_truncated_and_gets_more_room() {
    for profile in [
        Profile::thinking_llama_server(),
        Profile::reasoning_llama_server(),
    ] {
        let world = world(profile, Streaming::Events, Provider::LlamaCpp);
        world.emulator.answers([JUDGED, JUDGED]);
        let outcome = world.call(&scope_request().max_tokens(100)).unwrap();
        assert_eq!(value(&outcome), &judged());
        let meta = &outcome.meta;
        assert_eq!(meta.reasks.len(), 1);
        assert_eq!(meta.reasks[0].class, FailureClass::Truncated);
        assert_eq!(meta.reasks[0].max_tokens, 200);
    }
}

#[test]
fn json_in_the_reasoning_with_no_content_is_never_taken_as_the_answer() {
    // The model wrote its object inside the reasoning and then nothing: the answer is empty
    // (re-asked as such), the reasoning is reported, and a warning says what to do.
    let profile = Profile {
        thinker: Some(Thinker {
            reasoning: "{\"reason\": \"x\", \"in_scope\": true}".to_owned(),
            field: Some("reasoning_content"),
            obeys_switch: true,
            constrained_as_reasoning: false,
        }),
        ..Profile::reasoning_llama_server()
    };
    let world = world(profile, Streaming::Events, Provider::LlamaCpp);
    world.emulator.answers(["", ""]);
    let failure = violation(world.call(&scope_request()).unwrap_err());
    assert_eq!(failure.class, FailureClass::Empty);
    assert_eq!(failure.partial, None);
    let reasoning = reasoning(&failure.meta);
    assert_eq!(reasoning.text, "{\"reason\": \"x\", \"in_scope\": true}");
    assert!(reasoning.unfinished);
    assert!(
        failure
            .meta
            .warnings
            .iter()
            .any(|warning| warning.contains("set thinking = off")),
        "{:?}",
        failure.meta.warnings
    );
    assert_eq!(
        world.emulator.chat_count(),
        2,
        "the first answer and one re-ask"
    );
}

#[test]
fn a_constrained_thinking_server_is_probed_and_answers_through_its_reasoning() {
    // Structured decoding on: the probe strips the reasoning before it judges enforcement,
    // and the call reads the enforced answer after the block.
    let world = World::new(Profile::thinking_llama_server(), Provider::LlamaCpp);
    let outcome = world.call(&scope_request()).unwrap();
    assert!(outcome.meta.wire_form.is_some(), "{:?}", outcome.meta);
    assert_eq!(outcome.meta.repair_rung, Some(crate::repair::Rung::Think));
    assert_eq!(reasoning(&outcome.meta).source, ReasoningSource::Inline);
}

#[test]
fn a_constrained_value_the_server_files_as_reasoning_is_read_and_said() {
    // llama.cpp with a template that opens <think>: the grammar shapes every token from the
    // first, and the server files the value as reasoning. The probe and the call read it.
    let thinker = Thinker {
        reasoning: Profile::REASONING.to_owned(),
        field: Some("reasoning_content"),
        obeys_switch: true,
        constrained_as_reasoning: true,
    };
    let constrained = World::new(
        Profile {
            thinker: Some(thinker),
            ..Profile::reasoning_llama_server()
        },
        Provider::LlamaCpp,
    );
    let outcome = constrained.call(&scope_request()).unwrap();
    assert_eq!(value(&outcome), &json!({"reason": "a", "in_scope": true}));
    let meta = &outcome.meta;
    assert!(meta.wire_form.is_some(), "the probe found it enforced");
    assert_eq!(meta.reasoning, None, "it was the answer, not reasoning");
    assert!(
        meta.warnings
            .iter()
            .any(|warning| warning.contains("returned the constrained answer as reasoning")),
        "{:?}",
        meta.warnings
    );
    // Unconstrained, JSON in the reasoning is never the answer.
    let world = world(
        Profile {
            thinker: Some(Thinker {
                reasoning: "{\"reason\": \"x\", \"in_scope\": true}".to_owned(),
                field: Some("reasoning_content"),
                obeys_switch: true,
                constrained_as_reasoning: true,
            }),
            ..Profile::reasoning_llama_server()
        },
        Streaming::Events,
        Provider::LlamaCpp,
    );
    world.emulator.answers(["", ""]);
    let failure = violation(world.call(&scope_request()).unwrap_err());
    assert_eq!(failure.class, FailureClass::Empty);
}
