//! Lint of a JSON Schema against two rule sets: the contract subset, and OpenAI's strict mode.
//!
//! [`subset_problems`] says where a schema leaves the subset slmcode's contracts are written in
//! (the subset every mechanism can carry, so a contract means the same on every endpoint);
//! [`strict_problems`] says where it breaks the rules of OpenAI's
//! `strict: true` Structured Outputs. Both walk the whole schema and return every problem with
//! the JSON pointer of the schema node it sits on, in document order; neither stops at the first.
//! Schemas are shallow, so the walks recurse.
//!
//! The two sets are independent: a schema may be strict-ready and outside the subset (it uses
//! `anyOf`, which OpenAI allows) or inside the subset and not strict-ready (an optional property).

use serde_json::{Map, Value};

use super::Problem;

mod strict;
mod subset;

pub use strict::{is_strict_ready, strict_problems};
pub use subset::subset_problems;

/// A problem at `pointer`, about `keyword` when there is one.
fn problem(pointer: &str, keyword: Option<&str>, reason: impl Into<String>) -> Problem {
    Problem {
        pointer: pointer.to_owned(),
        keyword: keyword.map(str::to_owned),
        reason: reason.into(),
    }
}

/// Whether the node's `type` (a name or a list of names) includes `type_name`.
fn type_admits(node: &Map<String, Value>, type_name: &str) -> bool {
    match node.get("type") {
        Some(Value::String(name)) => name == type_name,
        Some(Value::Array(names)) => names.iter().any(|name| name == type_name),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
