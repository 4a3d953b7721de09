//! Failure-matched re-asks: truncation gets the partial back and a doubled budget, prose and
//! wrong shape a hard reset with the errors, empty the original conversation with a fresh seed
//! and a small temperature (never the byte-identical request); and the
//! evidence of a call that ran out of attempts.

use serde_json::json;

use super::emulator::Profile;
use super::*;
use crate::repair::{FailureClass, Rung};

/// `{"reason":"a","in_scope":true}`: what the emulator's strict server writes for scope_judge.
const SHORTEST_SCOPE: &str = r#"{"reason":"a","in_scope":true}"#;

#[test]
fn a_truncated_answer_gets_one_reask_with_the_partial_and_twice_the_budget() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[WireForm::JsonSchemaStrict]);
    let budget = SHORTEST_SCOPE.len() as u32 - 8;
    let outcome = world.call(&scope_request().max_tokens(budget)).unwrap();
    let bodies = world.emulator.chat_bodies();
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[0]["max_tokens"], budget);
    assert_eq!(bodies[1]["max_tokens"], budget * 2);
    assert_eq!(
        form_of(&bodies[1]),
        "json_schema_strict",
        "the re-ask keeps its wire form"
    );
    let last = bodies[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "user");
    let text = last["content"].as_str().unwrap();
    let partial: String = SHORTEST_SCOPE.chars().take(budget as usize).collect();
    assert!(text.contains(&partial), "{text}");
    assert!(text.contains("Return the COMPLETE JSON object"), "{text}");
    assert_eq!(value(&outcome), &json!({"reason": "a", "in_scope": true}));
    assert_eq!(
        outcome.meta.reasks,
        [Reask {
            class: FailureClass::Truncated,
            action: ReaskAction::RaiseMaxTokens,
            max_tokens: budget * 2,
            temperature: Some(0.0),
            seed: None,
        }]
    );
    assert_eq!(outcome.meta.attempts, 2);
    assert_eq!(outcome.meta.degrade_reason, Some(DegradeReason::Reasked));
    assert!(world.entry().enforcement_failures.is_empty());
}

#[test]
fn truncation_that_the_reasks_do_not_fix_carries_partial_and_missing_required() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[WireForm::JsonSchemaStrict]);
    // Cut right after the first member: `{"reason":"a",`
    let failure = violation(
        world
            .call(&scope_request().max_tokens(14).reask(0))
            .unwrap_err(),
    );
    assert_eq!(failure.class, FailureClass::Truncated);
    assert_eq!(failure.raw, r#"{"reason":"a","#);
    assert!(!failure.raw_cut);
    assert_eq!(
        failure.partial,
        Some(json!({"reason": "a"}).as_object().unwrap().clone())
    );
    assert_eq!(failure.missing_required, ["in_scope"]);
    assert_eq!(failure.meta.finish_reason.as_deref(), Some("length"));
    assert_eq!(world.emulator.chat_count(), 1);
}

#[test]
fn prose_gets_one_hard_reset_and_then_succeeds() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp).off();
    world.emulator.answers([
        "I think adding a README is in scope, since the task is about documentation.",
        "{\"reason\": \"The task is documentation.\", \"in_scope\": true}",
    ]);
    let outcome = world.call(&scope_request()).unwrap();
    let bodies = world.emulator.chat_bodies();
    assert_eq!(bodies.len(), 2);
    for body in &bodies {
        assert!(constrained_fields(body).is_empty());
    }
    assert_eq!(bodies[0]["messages"].as_array().unwrap().len(), 2);
    let reset = bodies[1]["messages"][2]["content"].as_str().unwrap();
    assert!(
        reset.starts_with(
            "Your previous response did not contain a JSON object. Output ONLY a single JSON object matching the schema"
        ),
        "{reset}"
    );
    assert_eq!(bodies[1]["max_tokens"], bodies[0]["max_tokens"]);
    assert_eq!(outcome.meta.reasks[0].action, ReaskAction::ResetPrompt);
    assert_eq!(outcome.meta.reasks[0].class, FailureClass::Prose);
    assert_eq!(value(&outcome)["in_scope"], true);
}

#[test]
fn a_wrong_shape_reset_lists_the_validation_errors_and_the_error_keeps_them() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp).off();
    let wrong = "{\"reason\": \"\", \"in_scope\": \"yes\", \"extra\": 1}";
    world.emulator.answers([wrong, wrong]);
    let failure = violation(world.call(&scope_request()).unwrap_err());
    let bodies = world.emulator.chat_bodies();
    let reset = bodies[1]["messages"][2]["content"].as_str().unwrap();
    assert!(reset.contains("Fix these errors:\n- /reason: "), "{reset}");
    assert!(
        reset.contains("\n- /in_scope: \"yes\" is not of type \"boolean\""),
        "{reset}"
    );
    assert_eq!(failure.class, FailureClass::WrongShape);
    assert_eq!(failure.raw, wrong);
    let pointers: Vec<&str> = failure
        .errors
        .iter()
        .map(|error| error.pointer.as_str())
        .collect();
    assert!(
        pointers.contains(&"/reason") && pointers.contains(&"/in_scope"),
        "{pointers:?}"
    );
    assert_eq!(failure.partial, None);
    assert_eq!(failure.meta.attempts, 2);
}

#[test]
fn an_empty_answer_is_never_re_asked_with_the_byte_identical_request() {
    let world = World::new(Profile::llama_server(), Provider::LlamaCpp).off();
    world.emulator.answers(["", SHORTEST_SCOPE]);
    let outcome = world.call(&scope_request()).unwrap();
    let bodies = world.emulator.chat_bodies();
    assert_eq!(bodies.len(), 2);
    assert_ne!(
        serde_json::to_vec(&bodies[0]).unwrap(),
        serde_json::to_vec(&bodies[1]).unwrap(),
        "the re-ask of an empty answer differs from the request that got it"
    );
    let reask = &outcome.meta.reasks[0];
    assert_eq!(reask.action, ReaskAction::Resample);
    assert_eq!(reask.class, FailureClass::Empty);
    assert_eq!(bodies[1]["seed"], json!(reask.seed.unwrap()));
    assert_eq!(bodies[1]["temperature"], json!(REASK_TEMPERATURE));
    // Only the seed and the temperature differ: the same conversation and budget.
    let mut resent = bodies[1].clone();
    let mut first = bodies[0].clone();
    for body in [&mut resent, &mut first] {
        let body = body.as_object_mut().unwrap();
        body.remove("seed");
        body.remove("temperature");
    }
    assert_eq!(resent, first);
    assert_eq!(value(&outcome)["in_scope"], true);
}

#[test]
fn reask_zero_fails_at_once_and_more_reasks_double_up_to_the_cap() {
    let world = World::new(Profile::openai(), Provider::OpenAi);
    world.cached(&[WireForm::JsonSchemaStrict]);
    let failure = violation(
        world
            .call(&scope_request().max_tokens(4).reask(0))
            .unwrap_err(),
    );
    assert_eq!(failure.meta.attempts, 1);
    let mut request = scope_request().max_tokens(4).reask(5);
    request.max_tokens_cap = Some(20);
    let failure = violation(world.call(&request).unwrap_err());
    let budgets: Vec<u32> = failure
        .meta
        .reasks
        .iter()
        .map(|reask| reask.max_tokens)
        .collect();
    assert_eq!(budgets, [8, 16, 20, 20, 20]);
    assert_eq!(failure.class, FailureClass::Truncated);
}

#[test]
fn repair_stats_count_every_answer_unless_record_stats_is_off() {
    let mut world = World::new(Profile::llama_server(), Provider::LlamaCpp).off();
    world.emulator.answers(["no JSON here", FENCED_SCOPE]);
    world.call(&scope_request()).unwrap();
    let path = world.dir.path().join(crate::files::stats::STATS_FILE);
    let stats = crate::files::stats::load(&path).unwrap();
    assert_eq!(stats.total, 2);
    assert_eq!(stats.outcomes["prose"], 1);
    assert_eq!(stats.outcomes["repaired"], 1);
    assert_eq!(stats.rungs[Rung::TrailingComma.as_str()], 1);
    world.settings.record_stats = false;
    world.emulator.answers([FENCED_SCOPE]);
    world.call(&scope_request()).unwrap();
    assert_eq!(crate::files::stats::load(&path).unwrap().total, 2);
}

#[test]
fn text_fallback_gives_the_last_answer_whole_and_counts_it_in_the_cache() {
    let mut world = World::new(Profile::llama_server(), Provider::LlamaCpp).off();
    world.settings.text_fallback = true;
    let last = long_prose(5000);
    world
        .emulator
        .answers(["I think it is in scope.", last.as_str()]);
    let failure = violation(world.call(&scope_request().max_tokens(8000)).unwrap_err());
    assert_eq!(failure.class, FailureClass::Prose);
    assert_eq!(failure.meta.attempts, 2, "the re-asks come first");
    assert!(failure.raw_cut, "raw stays bounded");
    assert_eq!(
        failure.text_fallback.as_deref(),
        Some(last.as_str()),
        "the last answer, whole"
    );
    let recorded = world.entry().text_fallbacks.expect("recorded");
    assert_eq!((recorded.count, recorded.last_class.as_str()), (1, "prose"));
    assert!(
        failure.meta.warnings.is_empty(),
        "{:?}",
        failure.meta.warnings
    );
    // Off (the default): nothing to fall back to, nothing recorded.
    world.settings.text_fallback = false;
    world.emulator.answers(["No JSON.", "Still no JSON."]);
    let failure = violation(world.call(&scope_request()).unwrap_err());
    assert_eq!(failure.text_fallback, None);
    assert_eq!(world.entry().text_fallbacks.unwrap().count, 1);
}

#[test]
fn text_fallback_has_nothing_to_give_for_a_blank_answer() {
    let mut world = World::new(Profile::llama_server(), Provider::LlamaCpp).off();
    world.settings.text_fallback = true;
    world.emulator.answers(["", " \n "]);
    let failure = violation(world.call(&scope_request()).unwrap_err());
    assert_eq!(failure.class, FailureClass::Empty);
    assert_eq!(failure.text_fallback, None);
    assert!(
        world
            .cache()
            .get(&world.target().key())
            .0
            .is_none_or(|entry| entry.text_fallbacks.is_none())
    );
}

/// At least `length` bytes of prose that never repeats itself (no loop to cut).
fn long_prose(length: usize) -> String {
    const WORDS: [&str; 16] = [
        "the", "docs", "task", "scope", "readme", "asks", "for", "a", "change", "small", "model",
        "writes", "prose", "instead", "of", "json",
    ];
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut text = String::from("Sure!");
    while text.len() < length {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        text.push(' ');
        text.push_str(WORDS[(state % 16) as usize]);
    }
    text
}
