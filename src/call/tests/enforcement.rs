//! A server that accepts a field and ignores it: repair and validation still deliver (or the
//! error says why), and two unparseable answers in a row mark the form not enforced.

use super::emulator::Profile;
use super::*;
use crate::repair::{FailureClass, Rung};
use crate::schema::Mechanism;

#[test]
fn an_ignored_field_is_repaired_validated_and_counted_once() {
    let world = World::new(Profile::liar(), Provider::OpenAiCompatible);
    world.cached(&[WireForm::JsonSchemaStrict, WireForm::JsonObject]);
    world.emulator.answers([FENCED_SCOPE]);
    let outcome = world.call(&scope_request()).unwrap();
    assert_eq!(forms_sent(&world.emulator), ["json_schema_strict"]);
    assert_eq!(value(&outcome)["reason"], "The task asks for docs.");
    assert_eq!(outcome.meta.repair_rung, Some(Rung::TrailingComma));
    assert_eq!(
        outcome.meta.rungs_changed,
        [Rung::Fence, Rung::TrailingComma]
    );
    assert_eq!(outcome.meta.degrade_reason, Some(DegradeReason::Repaired));
    assert!(outcome.meta.demotions.is_empty());
    let entry = world.entry();
    assert_eq!(entry.enforcement_failures[&WireForm::JsonSchemaStrict], 1);
    assert_eq!(entry.mechanism, Mechanism::JsonSchema);
}

#[test]
fn two_unparseable_answers_in_a_row_mark_the_form_not_enforced_and_demote_it() {
    let world = World::new(Profile::liar(), Provider::OpenAiCompatible);
    world.cached(&[WireForm::JsonSchemaStrict, WireForm::JsonObject]);
    // The liar's own answer: prose around a fenced greeting, which is not a scope judgement.
    let failure = violation(world.call(&scope_request()).unwrap_err());
    // First answer: enforcement failure 1, wrong shape, one re-ask on the same wire form; second
    // answer: failure 2, json_schema_strict marked not enforced and demoted.
    assert_eq!(
        forms_sent(&world.emulator),
        ["json_schema_strict", "json_schema_strict"]
    );
    assert_eq!(failure.class, FailureClass::WrongShape);
    assert!(failure.raw.contains("Hello there!"), "{}", failure.raw);
    let pointers: Vec<&str> = failure
        .errors
        .iter()
        .map(|error| error.message.as_str())
        .collect();
    assert!(
        pointers
            .iter()
            .any(|message| message.contains("\"reason\" is a required property")),
        "{pointers:?}"
    );
    assert_eq!(failure.meta.attempts, 2);
    assert_eq!(failure.meta.demotions.len(), 1);
    assert_eq!(failure.meta.demotions[0].status, None);
    assert!(
        failure.meta.demotions[0]
            .body
            .starts_with("accepted but not enforced: 2 answers in a row did not parse"),
        "{:?}",
        failure.meta.demotions[0]
    );
    assert!(
        failure
            .to_string()
            .starts_with("the answer does not satisfy the schema after 2 attempts (json_schema):"),
        "{failure}"
    );
    let entry = world.entry();
    assert_eq!(
        entry.outcomes[&WireForm::JsonSchemaStrict].name(),
        "not_enforced"
    );
    assert_eq!(entry.demoted_forms(), [WireForm::JsonSchemaStrict]);
    assert!(entry.enforcement_failures.is_empty());
    // The next run starts at the next enforced form (json_object is enforced by nobody here
    // either, but the cache says so until two more answers say otherwise).
    world.emulator.answers([FENCED_SCOPE]);
    world.call(&scope_request()).unwrap();
    assert_eq!(forms_sent(&world.emulator)[2], "json_object");
}

#[test]
fn a_parsed_answer_resets_the_count() {
    let world = World::new(Profile::liar(), Provider::OpenAiCompatible);
    world.cached(&[WireForm::JsonSchemaStrict]);
    world.emulator.answers([
        FENCED_SCOPE,
        "{\"reason\": \"plain JSON\", \"in_scope\": false}",
        FENCED_SCOPE,
    ]);
    for _ in 0..3 {
        world.call(&scope_request()).unwrap();
    }
    let entry = world.entry();
    assert_eq!(entry.enforcement_failures[&WireForm::JsonSchemaStrict], 1);
    assert!(entry.demotions.is_empty());
}

#[test]
fn a_truncated_answer_is_not_an_enforcement_failure() {
    let world = World::new(Profile::liar(), Provider::OpenAiCompatible);
    world.cached(&[WireForm::JsonSchemaStrict]);
    world.emulator.answers([FENCED_SCOPE]);
    let request = scope_request().max_tokens(40).reask(0);
    let failure = violation(world.call(&request).unwrap_err());
    assert_eq!(failure.class, FailureClass::Truncated);
    assert!(world.entry().enforcement_failures.is_empty());
}

#[test]
fn a_cache_file_from_a_newer_slmcode_is_not_written_and_failures_count_in_memory() {
    let world = World::new(Profile::liar(), Provider::OpenAiCompatible);
    world.cached(&[WireForm::JsonSchemaStrict, WireForm::JsonObject]);
    let context = world.context();
    let newer = "{\"version\": 2, \"entries\": []}";
    std::fs::write(world.cache().path(), newer).unwrap();
    let failure = violation(structured_call(&scope_request(), &context).unwrap_err());
    // Two failures in a row still demote, counted by the context alone, and without a warning
    // (the negotiation is where the kept file is reported).
    assert_eq!(failure.meta.demotions.len(), 1);
    assert_eq!(failure.meta.demotions[0].form, WireForm::JsonSchemaStrict);
    assert!(
        failure.meta.warnings.is_empty(),
        "{:?}",
        failure.meta.warnings
    );
    assert_eq!(
        std::fs::read_to_string(world.cache().path()).unwrap(),
        newer
    );
}
