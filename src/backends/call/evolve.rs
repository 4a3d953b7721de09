//! `evolve`: what to do after an answer that did not give a trustworthy value, as data.
//!
//! [`EVOLVE`] maps each failure class of the repair ladder to the next action (DESIGN.md, "The
//! structured call path", step 6; seed 004): prose, malformed JSON and valid JSON of the wrong
//! shape get a hard reset that lists what was wrong; truncation gets the partial output back
//! with "return the complete object" and a doubled `max_tokens` (up to a cap), because
//! truncation is a budget problem, not a comprehension problem; an empty answer gets the
//! original request once more. [`reask_request`] builds the request an action sends: always a
//! fresh, stateless request (the original conversation plus one user message), never a
//! continuation.

use serde::Serialize;

use crate::repair::{FailureClass, RepairFailure};

use super::super::transport::{ChatMessage, ChatRequest};

/// The next action after a failed answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Send the original request again, unchanged.
    ResendOriginal,
    /// A hard reset: "output only one JSON object matching the schema", with what was wrong.
    ResetPrompt,
    /// The partial output back with "return the complete object", and `max_tokens` doubled.
    RaiseMaxTokens,
}

impl Action {
    /// The action's name, as in `--json` output.
    pub const fn as_str(self) -> &'static str {
        match self {
            Action::ResendOriginal => "resend_original",
            Action::ResetPrompt => "reset_prompt",
            Action::RaiseMaxTokens => "raise_max_tokens",
        }
    }
}

/// Failure class -> next action. Every class of [`FailureClass`] has exactly one row (a test
/// holds the table to that).
pub const EVOLVE: [(FailureClass, Action); 5] = [
    (FailureClass::Empty, Action::ResendOriginal),
    (FailureClass::Prose, Action::ResetPrompt),
    (FailureClass::Malformed, Action::ResetPrompt),
    (FailureClass::WrongShape, Action::ResetPrompt),
    (FailureClass::Truncated, Action::RaiseMaxTokens),
];

/// The action [`EVOLVE`] names for `class`.
pub fn next_action(class: FailureClass) -> Action {
    EVOLVE
        .iter()
        .find(|(row, _)| *row == class)
        .map_or(Action::ResetPrompt, |(_, action)| *action)
}

/// How much of a truncated answer goes back to the model.
const PARTIAL_LIMIT: usize = 6000;

/// How many validation errors a reset lists.
const ERRORS_LISTED: usize = 12;

/// The request `action` sends after `failure` of an answer `text` to `original`. `budget` is
/// the budget of the answer that failed; `cap` the ceiling a raise stops at.
pub fn reask_request(
    action: Action,
    original: &ChatRequest,
    failure: &RepairFailure,
    text: &str,
    budget: u32,
    cap: u32,
) -> ChatRequest {
    let mut request = original.clone();
    request.max_tokens = Some(budget);
    match action {
        Action::ResendOriginal => {}
        Action::ResetPrompt => {
            request
                .messages
                .push(ChatMessage::user(reset_text(failure)));
        }
        Action::RaiseMaxTokens => {
            request.max_tokens = Some(budget.saturating_mul(2).min(cap).max(budget));
            request
                .messages
                .push(ChatMessage::user(completion_text(text)));
        }
    }
    request
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
    if failure.errors.is_empty() {
        text.push_str(&format!("\nThe problem: {}", failure.message));
    } else {
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
    text
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
        for class in [
            FailureClass::Empty,
            FailureClass::Prose,
            FailureClass::Truncated,
            FailureClass::Malformed,
            FailureClass::WrongShape,
        ] {
            assert_eq!(
                EVOLVE.iter().filter(|(row, _)| *row == class).count(),
                1,
                "{class}"
            );
        }
        assert_eq!(next_action(FailureClass::Truncated), Action::RaiseMaxTokens);
        assert_eq!(next_action(FailureClass::Prose), Action::ResetPrompt);
        assert_eq!(next_action(FailureClass::WrongShape), Action::ResetPrompt);
        assert_eq!(next_action(FailureClass::Empty), Action::ResendOriginal);
    }

    fn original() -> ChatRequest {
        ChatRequest {
            messages: vec![ChatMessage::system("rules"), ChatMessage::user("question")],
            max_tokens: Some(100),
            ..ChatRequest::default()
        }
    }

    #[test]
    fn a_wrong_shape_reset_lists_the_validation_errors() {
        let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}},
            "required": ["n"]});
        let options = RepairOptions::new().schema(&schema).unwrap();
        let failure = repair(r#"{"m": 1}"#, &options).unwrap_err();
        let request = reask_request(Action::ResetPrompt, &original(), &failure, "", 100, 800);
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
        let request = reask_request(Action::RaiseMaxTokens, &original(), &failure, cut, 100, 800);
        assert_eq!(request.max_tokens, Some(200));
        let text = request.messages[2].content.as_deref().unwrap();
        assert!(
            text.contains(cut) && text.contains("COMPLETE JSON object"),
            "{text}"
        );
        let capped = reask_request(Action::RaiseMaxTokens, &original(), &failure, cut, 500, 800);
        assert_eq!(capped.max_tokens, Some(800));
        let at_cap = reask_request(Action::RaiseMaxTokens, &original(), &failure, cut, 900, 800);
        assert_eq!(
            at_cap.max_tokens,
            Some(900),
            "a raise never lowers the budget"
        );
    }

    #[test]
    fn empty_resends_the_original_and_prose_says_no_json() {
        let failure = repair("   ", &RepairOptions::new()).unwrap_err();
        assert_eq!(
            reask_request(Action::ResendOriginal, &original(), &failure, "", 100, 800),
            original()
        );
        let prose = repair("I think so.", &RepairOptions::new()).unwrap_err();
        let request = reask_request(Action::ResetPrompt, &original(), &prose, "", 100, 800);
        let text = request.messages[2].content.as_deref().unwrap();
        assert!(text.starts_with("Your previous response did not contain a JSON object."));
        assert!(text.contains("The problem: "), "{text}");
    }
}
