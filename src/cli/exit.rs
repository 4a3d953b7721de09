//! Exit codes and the error type every command returns.
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
        }
    }

    /// The exit code of an answer that failed with `class`.
    pub const fn for_failure(class: FailureClass) -> Exit {
        match class {
            FailureClass::Empty | FailureClass::Prose | FailureClass::Malformed => Exit::NotJson,
            FailureClass::Truncated => Exit::Truncated,
            FailureClass::WrongShape
            | FailureClass::UnknownTool
            | FailureClass::ToolNotChosen
            | FailureClass::InvalidArguments => Exit::SchemaViolation,
            FailureClass::Repetition => Exit::Repetition,
        }
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
