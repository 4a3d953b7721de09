//! Re-asks: what to do after an answer that did not give a trustworthy value, as data.
//!
//! [`REASK_ACTIONS`] maps each failure class of the repair ladder to the next action: prose,
//! malformed JSON and valid JSON of the wrong shape get a hard reset that lists what was wrong;
//! truncation (an answer cut by its budget that holds no loop: one that holds a loop is a loop)
//! gets the partial output back with "return the complete object" and a doubled `max_tokens`
//! (up to a cap, and only as far as the call's deadline allows at the generation rate measured
//! on this call), because truncation is a budget problem, not a comprehension problem. Sending
//! the partial back was measured against a fresh attempt with the same budget on two small
//! models (`bench/real-model/truncation.py`, bench/README.md "Real small model": 6 of 12
//! truncations fixed against 3 of 12, in about the same time), so it stays; a degenerate loop gets the engine's anti-repetition sampling, a fresh seed and a
//! small temperature, never a larger budget (the loop would only run longer); an empty answer
//! gets the original conversation once more with a fresh seed and a small temperature, never the
//! byte-identical request (at temperature 0, or with the same seed, that one gets the same empty
//! answer again: seed 004's blind retry). [`reask_request`] builds the request an action sends:
//! always a fresh, stateless request (the original conversation plus at most one user
//! message), never a continuation.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::repair::{FailureClass, RepairFailure};

use super::turn::ToolTurn;
use super::turn::read::TurnFailure;
use super::turn::reask as turn_reask;
use crate::backends::chat::{ChatMessage, ChatRequest};

/// The next action after a failed answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReaskAction {
    /// The original conversation again, with a fresh seed and a temperature of at least
    /// `REASK_TEMPERATURE` (0.5): there is nothing to correct in an empty answer, but the same
    /// request would get the same one back.
    Resample,
    /// A hard reset: "output only one JSON object matching the schema", with what was wrong.
    ResetPrompt,
    /// The partial output back with "return the complete object", and `max_tokens` doubled.
    RaiseMaxTokens,
    /// The same request with anti-repetition sampling, a fresh seed and a small temperature;
    /// the budget stays.
    AntiRepetition,
}

impl ReaskAction {
    /// The action's name, as in `--json` output.
    pub const fn as_str(self) -> &'static str {
        match self {
            ReaskAction::Resample => "resample",
            ReaskAction::ResetPrompt => "reset_prompt",
            ReaskAction::RaiseMaxTokens => "raise_max_tokens",
            ReaskAction::AntiRepetition => "anti_repetition",
        }
    }
}

/// Failure class -> next action. Every class of [`FailureClass`] has exactly one row (a test
/// holds the table to that).
pub const REASK_ACTIONS: [(FailureClass, ReaskAction); 10] = [
    (FailureClass::Empty, ReaskAction::Resample),
    (FailureClass::Prose, ReaskAction::ResetPrompt),
    (FailureClass::Malformed, ReaskAction::ResetPrompt),
    (FailureClass::WrongShape, ReaskAction::ResetPrompt),
    (FailureClass::Truncated, ReaskAction::RaiseMaxTokens),
    (FailureClass::Repetition, ReaskAction::AntiRepetition),
    (FailureClass::UnknownTool, ReaskAction::ResetPrompt),
    (FailureClass::ToolNotChosen, ReaskAction::ResetPrompt),
    (FailureClass::InvalidArguments, ReaskAction::ResetPrompt),
    (FailureClass::RepeatedCall, ReaskAction::ResetPrompt),
];

/// The action [`REASK_ACTIONS`] names for `class`.
pub fn reask_action(class: FailureClass) -> ReaskAction {
    REASK_ACTIONS
        .iter()
        .find(|(row, _)| *row == class)
        .map_or(ReaskAction::ResetPrompt, |(_, action)| *action)
}

/// How much of a truncated answer goes back to the model.
const PARTIAL_LIMIT: usize = 6000;

/// How many validation errors a re-ask lists (a reset or a tool's bad arguments).
const ERRORS_LISTED: usize = 12;

/// The smallest budget worth a re-ask that the deadline cuts short: below it an answer cannot
/// be completed.
pub const MIN_REASK_TOKENS: u32 = 64;

/// The temperature of an anti-repetition or a resample re-ask, at least: enough for the fresh
/// seed to change the path the model takes, small enough to keep it on the schema.
pub const REASK_TEMPERATURE: f64 = 0.5;

/// What a re-ask may spend and use besides the failed answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Allowance {
    /// The budget of the answer that failed.
    pub budget: u32,
    /// The ceiling a raise stops at.
    pub cap: u32,
    /// The most tokens the rest of the call's deadline can take at the rate measured on this
    /// call (`None`: no deadline or no rate).
    pub room: Option<u32>,
    /// The engine's anti-repetition sampling fields.
    pub sampling: Map<String, Value>,
    /// A seed the call has not used.
    pub fresh_seed: u64,
}

/// The request `action` sends after `failure` of an answer `text` to `original`, or `None`
/// when the allowance leaves no room for it (a raise the deadline cannot take).
pub fn reask_request(
    action: ReaskAction,
    original: &ChatRequest,
    failure: &RepairFailure,
    text: &str,
    allowance: &Allowance,
) -> Option<ChatRequest> {
    build(
        action,
        original,
        allowance,
        || reset_text(failure),
        || completion_text(text),
    )
}

/// [`reask_request`] for a tool turn: the same actions, worded for a call
/// ([`super::turn::reask`]: the tools that exist, the errors and the tool's parameters, exactly
/// one call), never "only JSON".
pub(super) fn reask_tool_request(
    action: ReaskAction,
    original: &ChatRequest,
    failure: &TurnFailure,
    turn: &ToolTurn,
    text: &str,
    allowance: &Allowance,
) -> Option<ChatRequest> {
    build(
        action,
        original,
        allowance,
        || turn_reask::reset_text(turn, &failure.failure, failure.called.as_deref()),
        || turn_reask::completion_text(text),
    )
}

/// The request `action` sends, with `reset` and `completion` as the wording of the messages
/// it appends.
fn build(
    action: ReaskAction,
    original: &ChatRequest,
    allowance: &Allowance,
    reset: impl FnOnce() -> String,
    completion: impl FnOnce() -> String,
) -> Option<ChatRequest> {
    let budget = allowance.budget;
    // What the deadline leaves, when it is tighter than the budget; too little is no re-ask.
    let fitted = |wanted: u32| match allowance.room {
        Some(room) if room < wanted => (room >= MIN_REASK_TOKENS).then_some(room),
        _ => Some(wanted),
    };
    let mut request = original.clone();
    request.max_tokens = Some(fitted(budget)?);
    match action {
        ReaskAction::Resample => {
            request.seed = Some(allowance.fresh_seed);
            request.temperature = Some(request.temperature.unwrap_or(0.0).max(REASK_TEMPERATURE));
        }
        ReaskAction::ResetPrompt => {
            request.messages.push(ChatMessage::user(reset()));
        }
        ReaskAction::RaiseMaxTokens => {
            let raised = budget.saturating_mul(2).min(allowance.cap).max(budget);
            request.max_tokens = Some(fitted(raised)?);
            request.messages.push(ChatMessage::user(completion()));
        }
        ReaskAction::AntiRepetition => {
            for (field, value) in &allowance.sampling {
                request.sampling.insert(field.clone(), value.clone());
            }
            request.seed = Some(allowance.fresh_seed);
            request.temperature = Some(request.temperature.unwrap_or(0.0).max(REASK_TEMPERATURE));
        }
    }
    Some(request)
}

/// The hard reset, listing what was wrong.
fn reset_text(failure: &RepairFailure) -> String {
    let what = match failure.class {
        FailureClass::WrongShape => "was JSON that does not match the schema",
        FailureClass::Malformed => "was not valid JSON",
        _ => "did not contain a JSON object",
    };
    let mut text = format!(
        "Your previous response {what}. Output ONLY a single JSON object matching the schema: \
         no prose, no markdown fences, no commentary."
    );
    push_problems(&mut text, failure);
    text
}

/// The failure's validation errors (at most [`ERRORS_LISTED`]) as lines to fix, or its
/// one-line message when it has none: what every re-ask of a wrong answer tells the model.
pub(super) fn push_problems(text: &mut String, failure: &RepairFailure) {
    if failure.errors.is_empty() {
        text.push_str(&format!("\nThe problem: {}", failure.message));
        return;
    }
    text.push_str("\nFix these errors:");
    for error in failure.errors.iter().take(ERRORS_LISTED) {
        text.push_str(&format!("\n- {error}"));
    }
    if failure.errors.len() > ERRORS_LISTED {
        text.push_str(&format!(
            "\n- ... and {} more",
            failure.errors.len() - ERRORS_LISTED
        ));
    }
}

/// The partial output back, with the completion nudge.
fn completion_text(text: &str) -> String {
    let partial: String = text.chars().take(PARTIAL_LIMIT).collect();
    format!(
        "Your previous response was truncated:\n{partial}\nReturn the COMPLETE JSON object, \
         from the opening brace to the closing one, and nothing else; keep it shorter if you \
         must."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::{RepairOptions, repair};
    use serde_json::json;

    #[test]
    fn every_failure_class_has_exactly_one_action() {
        for class in FailureClass::ALL {
            assert_eq!(
                REASK_ACTIONS
                    .iter()
                    .filter(|(row, _)| *row == class)
                    .count(),
                1,
                "{class}"
            );
        }
        assert_eq!(
            reask_action(FailureClass::Truncated),
            ReaskAction::RaiseMaxTokens
        );
        assert_eq!(reask_action(FailureClass::Prose), ReaskAction::ResetPrompt);
        assert_eq!(
            reask_action(FailureClass::WrongShape),
            ReaskAction::ResetPrompt
        );
        assert_eq!(reask_action(FailureClass::Empty), ReaskAction::Resample);
        assert_eq!(
            reask_action(FailureClass::Repetition),
            ReaskAction::AntiRepetition
        );
    }

    fn original() -> ChatRequest {
        ChatRequest {
            messages: vec![ChatMessage::system("rules"), ChatMessage::user("question")],
            max_tokens: Some(100),
            temperature: Some(0.0),
            seed: Some(1),
            ..ChatRequest::default()
        }
    }

    fn allowance(budget: u32, cap: u32) -> Allowance {
        Allowance {
            budget,
            cap,
            room: None,
            sampling: Map::from_iter([("repeat_penalty".to_owned(), json!(1.1))]),
            fresh_seed: 42,
        }
    }

    fn reask(
        action: ReaskAction,
        failure: &RepairFailure,
        text: &str,
        allowance: &Allowance,
    ) -> ChatRequest {
        reask_request(action, &original(), failure, text, allowance).expect("a re-ask")
    }

    #[test]
    fn a_wrong_shape_reset_lists_the_validation_errors() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}},
            "required": ["n"]});
        let options = RepairOptions::new().schema(&schema).unwrap();
        let failure = repair(r#"{"m": 1}"#, &options).unwrap_err();
        let request = reask(ReaskAction::ResetPrompt, &failure, "", &allowance(100, 800));
        assert_eq!(request.messages.len(), 3);
        assert_eq!(request.max_tokens, Some(100));
        let text = request.messages[2].content.as_deref().unwrap();
        assert!(
            text.starts_with("Your previous response was JSON that does not match the schema. Output ONLY a single JSON object"),
            "{text}"
        );
        assert!(
            text.contains("\n- (root): \"n\" is a required property"),
            "{text}"
        );
    }

    #[test]
    fn truncation_sends_the_partial_back_with_a_doubled_capped_budget() {
        let cut = r#"{"reason": "because"#;
        let failure = repair(cut, &RepairOptions::new()).unwrap_err();
        let request = reask(
            ReaskAction::RaiseMaxTokens,
            &failure,
            cut,
            &allowance(100, 800),
        );
        assert_eq!(request.max_tokens, Some(200));
        let text = request.messages[2].content.as_deref().unwrap();
        assert!(
            text.contains(cut) && text.contains("COMPLETE JSON object"),
            "{text}"
        );
        let capped = reask(
            ReaskAction::RaiseMaxTokens,
            &failure,
            cut,
            &allowance(500, 800),
        );
        assert_eq!(capped.max_tokens, Some(800));
        let at_cap = reask(
            ReaskAction::RaiseMaxTokens,
            &failure,
            cut,
            &allowance(900, 800),
        );
        assert_eq!(
            at_cap.max_tokens,
            Some(900),
            "a raise never lowers the budget beyond what the deadline needs"
        );
    }

    #[test]
    fn a_raise_goes_only_as_far_as_the_deadline_allows_at_the_measured_rate() {
        let cut = r#"{"reason": "because"#;
        let failure = repair(cut, &RepairOptions::new()).unwrap_err();
        let room = Allowance {
            room: Some(300),
            ..allowance(200, 8192)
        };
        let request = reask(ReaskAction::RaiseMaxTokens, &failure, cut, &room);
        assert_eq!(request.max_tokens, Some(300), "not 400: only 300 fit");
        let no_room = Allowance {
            room: Some(MIN_REASK_TOKENS - 1),
            ..allowance(200, 8192)
        };
        assert_eq!(
            reask_request(
                ReaskAction::RaiseMaxTokens,
                &original(),
                &failure,
                cut,
                &no_room
            ),
            None,
            "no raise the deadline cannot take"
        );
    }

    #[test]
    fn a_loop_is_re_asked_with_penalties_a_fresh_seed_and_a_small_temperature_never_more_tokens() {
        let looped = format!("{{\"files\": [{}", "\"a.yaml\", ".repeat(40));
        let failure =
            repair(&looped, &RepairOptions::new().finish_reason_length(true)).unwrap_err();
        assert_eq!(failure.class, FailureClass::Repetition);
        let request = reask(
            ReaskAction::AntiRepetition,
            &failure,
            &looped,
            &allowance(100, 800),
        );
        assert_eq!(request.max_tokens, Some(100));
        assert_eq!(request.seed, Some(42));
        assert_eq!(request.temperature, Some(REASK_TEMPERATURE));
        assert_eq!(request.sampling["repeat_penalty"], json!(1.1));
        assert_eq!(
            request.messages,
            original().messages,
            "no message that repeats the loop"
        );
    }

    #[test]
    fn empty_is_resampled_never_resent_byte_identical_and_prose_says_no_json() {
        let failure = repair("   ", &RepairOptions::new()).unwrap_err();
        let request = reask(ReaskAction::Resample, &failure, "", &allowance(100, 800));
        assert_ne!(request, original(), "never the byte-identical request");
        assert_eq!(request.seed, Some(42), "a fresh seed");
        assert_eq!(request.temperature, Some(REASK_TEMPERATURE));
        assert_eq!(
            ChatRequest {
                seed: original().seed,
                temperature: original().temperature,
                ..request.clone()
            },
            original(),
            "the same conversation, budget and sampling otherwise"
        );
        let warm = ChatRequest {
            temperature: Some(0.9),
            ..original()
        };
        let resampled = reask_request(
            ReaskAction::Resample,
            &warm,
            &failure,
            "",
            &allowance(100, 800),
        )
        .expect("a re-ask");
        assert_eq!(
            resampled.temperature,
            Some(0.9),
            "a warmer temperature stays"
        );
        assert_eq!(resampled.seed, Some(42));
        let prose = repair("I think so.", &RepairOptions::new()).unwrap_err();
        let request = reask(ReaskAction::ResetPrompt, &prose, "", &allowance(100, 800));
        let text = request.messages[2].content.as_deref().unwrap();
        assert!(text.starts_with("Your previous response did not contain a JSON object."));
        assert!(text.contains("The problem: "), "{text}");
    }
}
