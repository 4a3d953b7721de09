//! Compilation and extraction on the fixture tool sets in `tests/fixtures/tools/`: every
//! compiled grammar is parsed and run by the crate's own recognizer, and every compiled schema
//! by the validator, on valid calls of every tool and on calls that must be refused.

mod compile;
mod corpus;
mod instances;
mod robustness;

use serde_json::Value;

use super::ToolSet;

/// The fixture tool sets, by file name.
pub const FIXTURES: [(&str, &str); 7] = [
    (
        "coding_agent.json",
        include_str!("../../../tests/fixtures/tools/coding_agent.json"),
    ),
    (
        "thirty_tools.json",
        include_str!("../../../tests/fixtures/tools/thirty_tools.json"),
    ),
    (
        "messy.json",
        include_str!("../../../tests/fixtures/tools/messy.json"),
    ),
    (
        "anthropic.json",
        include_str!("../../../tests/fixtures/tools/anthropic.json"),
    ),
    // Three sets written after the compiler, as a reviewer would bring them: a browser agent
    // (Playwright-MCP style), an issue tracker with nested objects, enums and nullable enums,
    // and an MCP filesystem server (Anthropic form, `anyOf` with null, `definitions`).
    (
        "browser_agent.json",
        include_str!("../../../tests/fixtures/tools/browser_agent.json"),
    ),
    (
        "issue_tracker.json",
        include_str!("../../../tests/fixtures/tools/issue_tracker.json"),
    ),
    (
        "mcp_filesystem.json",
        include_str!("../../../tests/fixtures/tools/mcp_filesystem.json"),
    ),
];

/// A fixture tool set.
pub fn fixture(name: &str) -> ToolSet {
    let (_, text) = FIXTURES
        .iter()
        .find(|(file, _)| *file == name)
        .unwrap_or_else(|| panic!("no fixture {name}"));
    ToolSet::from_json(text).unwrap_or_else(|error| panic!("{name}: {error}"))
}

/// `{"name": N, "arguments": A}` with the members in the order a call is written.
pub fn call(name: &str, arguments: Value) -> Value {
    serde_json::json!({"name": name, "arguments": arguments})
}
