//! The role names a harness uses that are not contract names themselves.

/// Roles whose output is prose: no contract, no JSON-only.
pub const FREE_TEXT_ROLES: [&str; 3] = ["context", "memory", "describer"];

/// Agent ids that emit a contract under another name: `(agent id, contract name)`. Ids that are
/// contract names already (`plan`, `worker`, `tester`...) need no entry.
pub const ROLE_ALIASES: [(&str, &str); 16] = [
    ("planner", "plan"),
    ("task-planner", "tasks"),
    ("reviewer", "review"),
    ("code-reviewer", "review"),
    ("test-runner", "tester"),
    ("clarifier", "clarify"),
    ("escalator", "escalate"),
    ("composer", "composition"),
    ("scope-judge", "scope_judge"),
    ("explorer", "explore"),
    ("documenter", "docs"),
    ("doc-writer", "docs"),
    ("placeholder-checker", "placeholder"),
    ("placeholder-detector", "placeholder"),
    ("lesson-learner", "lessons"),
    ("implementer", "worker"),
];
