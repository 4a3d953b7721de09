//! Exit codes, the one table from a failure class to its exit code and hint, and the error type
//! every command returns.
//!
//! The codes are part of slmcode's interface (scripts branch on them) and are documented in the
//! README's "Exit codes" table; change both together.

use std::process::ExitCode;

use slmcode::repair::FailureClass;

/// How the process ends. The numeric values are stable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The command did what was asked.
    Success = 0,
    /// Anything not covered below: an unreadable file, an invalid schema file, a config
    /// problem, or a check that failed (`doctor`, `schema check`).
    Failure = 1,
    /// The command line was wrong (unknown flag, unknown role, missing argument).
    Usage = 2,
    /// The input held no JSON at all (empty, or prose).
    NotJson = 3,
    /// The input was JSON that stopped early (cut off, or `finish_reason: length`).
    Truncated = 4,
    /// The input was JSON that does not satisfy the schema, or a tool call to an unknown tool,
    /// to another tool than the named one, or with arguments that violate its parameters.
    SchemaViolation = 5,
    /// The endpoint could not be reached or answered with an error (or the call's deadline
    /// passed: class `canceled`).
    Endpoint = 6,
    /// The answer was a degenerate loop (the same item, phrase or pair again and again,
    /// whitespace or digits without end), and re-asks did not break it.
    Repetition = 7,
    /// Every answer failed (any class of 3, 4, 5 or 7) and `text_fallback` is on: the last
    /// answer's text was printed as it came, the failure as a warning (seed 004's backstop).
    TextFallback = 8,
}

impl Exit {
    /// A short machine-readable name, used in `--json` error objects.
    pub const fn name(self) -> &'static str {
        match self {
            Exit::Success => "success",
            Exit::Failure => "failure",
            Exit::Usage => "usage",
            Exit::NotJson => "not_json",
            Exit::Truncated => "truncated",
            Exit::SchemaViolation => "schema_violation",
            Exit::Endpoint => "endpoint",
            Exit::Repetition => "repetition",
            Exit::TextFallback => "text_fallback",
        }
    }

    /// The exit code of an answer that failed with `class`.
    pub const fn for_failure(class: FailureClass) -> Exit {
        failure(class).exit
    }
}

/// What a failure class means to the user: its exit code, what happened (the same words in
/// every command), and what to do about it, for a document given to `repair` or `extract` (the
/// user asks the model again) and for a call slmcode made (flags change the next call).
pub struct Failure {
    /// The process's exit code.
    pub exit: Exit,
    /// What happened, as the hint opens.
    pub what: &'static str,
    /// What to do, for a document slmcode was given.
    pub offline: &'static str,
    /// What to do, for a call slmcode made.
    pub call: &'static str,
}

impl Failure {
    /// The hint for a document slmcode was given: `what: offline`.
    pub fn offline_hint(&self) -> String {
        format!("{}: {}", self.what, self.offline)
    }

    /// The hint for a call slmcode made: `what{detail}: call`, where `detail` says how the
    /// call was made (` under json_schema`), or is empty.
    pub fn call_hint(&self, detail: &str) -> String {
        format!("{}{detail}: {}", self.what, self.call)
    }
}

/// What the row of a failure class this table does not know says happened.
const UNKNOWN_CLASS: &str = "the answer failed a check";

/// The row for `class`.
pub const fn failure(class: FailureClass) -> Failure {
    const RESHAPE: &str =
        "re-ask with the validation errors, or check the schema with `slmcode validate`";
    let (exit, what, offline, call) = match class {
        FailureClass::Empty | FailureClass::Prose => (
            Exit::NotJson,
            "the model answered without JSON",
            "re-ask for only one JSON object",
            "try --reask 5 --call-timeout 120; `slmcode doctor` shows which mechanism the endpoint enforces",
        ),
        FailureClass::Malformed => (
            Exit::NotJson,
            "the model's JSON is broken beyond repair",
            "re-ask for only one JSON object",
            "try --reask 5 --call-timeout 120; `slmcode doctor` shows which mechanism the endpoint enforces",
        ),
        FailureClass::Truncated => (
            Exit::Truncated,
            "the answer ran out of tokens",
            "raise max_tokens, or re-ask for the complete answer",
            "raise --max-tokens",
        ),
        FailureClass::WrongShape => (
            Exit::SchemaViolation,
            "the answer does not satisfy the schema",
            RESHAPE,
            "try --reask 5 --call-timeout 120 or a clearer --prompt; `slmcode doctor` shows what the endpoint enforces",
        ),
        FailureClass::UnknownTool => (
            Exit::SchemaViolation,
            "the model called a tool the file does not have",
            RESHAPE,
            "try --reask 5 --call-timeout 120, or describe the tools better in the file",
        ),
        FailureClass::ToolNotChosen => (
            Exit::SchemaViolation,
            "the model called another tool than --tool-choice names",
            RESHAPE,
            "try --reask 5 --call-timeout 120; an engine that enforces json_schema or a grammar prevents it",
        ),
        FailureClass::InvalidArguments => (
            Exit::SchemaViolation,
            "the call's arguments violate the tool's parameters (listed above)",
            RESHAPE,
            "try --reask 5 --call-timeout 120 or a clearer --prompt",
        ),
        FailureClass::RepeatedCall => (
            Exit::SchemaViolation,
            "the model called again a tool whose result with the same arguments it already has",
            RESHAPE,
            "try --reask 5 --call-timeout 120; the conversation holds the result, so the model should answer from it",
        ),
        FailureClass::Repetition => (
            Exit::Repetition,
            "the model fell into a loop",
            "re-ask with anti-repetition sampling (penalties, a fresh seed, a small temperature), not a larger max_tokens",
            "try --reask 5 --call-timeout 120, keep anti_repetition = always, or a larger model; a larger --max-tokens only makes the loop longer",
        ),
        // A class the library added after this row table: a failed check all the same.
        _ => (
            Exit::SchemaViolation,
            UNKNOWN_CLASS,
            RESHAPE,
            "try --reask 5 --call-timeout 120",
        ),
    };
    Failure {
        exit,
        what,
        offline,
        call,
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit as u8)
    }
}

/// A command's failure: the error, the exit code it maps to, and what the user can do about it.
#[derive(Debug)]
pub struct CliError {
    pub exit: Exit,
    pub error: anyhow::Error,
    pub hint: Option<String>,
}

impl CliError {
    pub fn new(exit: Exit, error: impl Into<anyhow::Error>) -> CliError {
        CliError {
            exit,
            error: error.into(),
            hint: None,
        }
    }

    pub fn usage(error: impl Into<anyhow::Error>) -> CliError {
        CliError::new(Exit::Usage, error)
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> CliError {
        self.hint = Some(hint.into());
        self
    }

    /// Whether this is stdout closing under us (`slmcode ... | head`), which is not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        self.error.chain().any(|cause| {
            cause
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
        })
    }
}

impl From<anyhow::Error> for CliError {
    fn from(error: anyhow::Error) -> CliError {
        CliError::new(Exit::Failure, error)
    }
}

impl From<std::io::Error> for CliError {
    fn from(error: std::io::Error) -> CliError {
        CliError::new(Exit::Failure, error)
    }
}

/// What a command returns: the exit status on success (a command may succeed at running and
/// still report a failed check), or an error to render.
pub type CommandResult = Result<Exit, CliError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_has_its_documented_code() {
        use FailureClass::*;
        let classes = [
            (Empty, 3),
            (Prose, 3),
            (Malformed, 3),
            (Truncated, 4),
            (WrongShape, 5),
            (UnknownTool, 5),
            (ToolNotChosen, 5),
            (InvalidArguments, 5),
            (Repetition, 7),
        ];
        for (class, code) in classes {
            assert_eq!(Exit::for_failure(class) as u8, code, "{class:?}");
        }
        for class in FailureClass::ALL {
            assert_ne!(
                failure(class).what,
                UNKNOWN_CLASS,
                "{class}: a row of its own"
            );
        }
    }

    #[test]
    fn every_code_is_distinct_and_the_backstop_has_its_own() {
        let exits = [
            Exit::Success,
            Exit::Failure,
            Exit::Usage,
            Exit::NotJson,
            Exit::Truncated,
            Exit::SchemaViolation,
            Exit::Endpoint,
            Exit::Repetition,
            Exit::TextFallback,
        ];
        for (index, exit) in exits.iter().enumerate() {
            assert_eq!(*exit as usize, index, "{exit:?}");
        }
        assert_eq!(Exit::TextFallback.name(), "text_fallback");
    }

    #[test]
    fn hints_open_with_what_happened() {
        assert_eq!(
            failure(FailureClass::Truncated).offline_hint(),
            "the answer ran out of tokens: raise max_tokens, or re-ask for the complete answer"
        );
        assert_eq!(
            failure(FailureClass::Truncated).call_hint(""),
            "the answer ran out of tokens: raise --max-tokens"
        );
        assert_eq!(
            failure(FailureClass::Malformed).call_hint(" under json_schema"),
            "the model's JSON is broken beyond repair under json_schema: try --reask 5 --call-timeout 120; \
             `slmcode doctor` shows which mechanism the endpoint enforces"
        );
    }
}
