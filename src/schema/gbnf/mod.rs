//! GBNF grammars: derivation from a JSON Schema, and a parser and recognizer for llama.cpp's
//! GBNF notation.
//!
//! [`derive()`] turns a schema into a grammar whose root rule is `root`. For a schema inside the
//! contract subset the grammar is exact: its language is the set of canonical texts of the
//! valid instances, where canonical means
//! - object properties in schema order, each at most once, required ones always, optional ones
//!   in any subset, and no properties the schema does not declare;
//! - strings with any JSON escapes, each escape counting as one character of the decoded
//!   string (a surrogate pair written as two `\u` escapes is one character, a lone surrogate
//!   is not allowed), so `minLength` / `maxLength` hold exactly;
//! - integers in serde_json's form (no leading zeros, no `-0`, no fraction or exponent);
//! - `enum` / `const` values exactly as serde_json serializes them (compact);
//! - between any two tokens, and before and after the document, at most one of: nothing, one
//!   space or tab, or one line break (`\n` or `\r\n`) followed by up to 32 spaces or tabs
//!   ([`Whitespace::Pretty`]); or nothing at all ([`Whitespace::Compact`], [`derive_with`]).
//!
//! Everything the grammar approximates or drops is in [`Derived::notes`], with its JSON
//! pointer. [`parse`] reads any GBNF text (with the same limits llama.cpp enforces), and
//! [`Grammar::recognize`] says whether a text is in the language and where it stops.

mod builder;
mod collections;
mod derive;
mod expr;
mod formats;
mod grammar;
mod legalize;
mod literals;
mod merge;
mod numbers;
mod overlap;
mod parse;
mod pattern;
mod recognize;
mod shared;
mod types;

#[cfg(test)]
mod tests;

use std::sync::Arc;

use serde_json::Value;

use super::validate::structural_hash;
use super::{Problem, display_pointer};
use crate::memo::Memo;

pub use grammar::Grammar;
pub use parse::{GbnfParseError, parse};
pub use recognize::Mismatch;
pub use shared::{MAX_INDENT, Whitespace};

/// A grammar derived from a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derived {
    /// The GBNF text; its start rule is `root`.
    pub grammar: String,
    /// What the grammar approximates, leaves out or ignores, with the JSON pointer into the
    /// schema and the reason. Empty when the grammar is exact.
    pub notes: Vec<Problem>,
}

/// Why a schema has no grammar.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GbnfError {
    /// The schema is not a valid JSON Schema at this point.
    #[error("invalid schema at {}: {reason}", display_pointer(.pointer))]
    InvalidSchema {
        /// JSON pointer into the schema.
        pointer: String,
        /// What is wrong.
        reason: String,
    },
    /// No JSON value satisfies the schema, so there is nothing for a grammar to match.
    #[error("no value satisfies the schema{}", first_reason(.notes))]
    Unsatisfiable {
        /// Every part of the schema found to accept nothing, and the other notes.
        notes: Vec<Problem>,
    },
    /// The schema refers to itself without any JSON in between (for example an `anyOf`
    /// whose branch is a `$ref` back to it), which gives a left-recursive grammar that
    /// llama.cpp refuses.
    #[error(
        "the schema refers to itself before any value is written (rule `{rule}` is left-recursive)"
    )]
    LeftRecursive {
        /// The rule that can reach itself.
        rule: String,
    },
    /// Deriving the grammar took more steps than the schema's size allows: combinators
    /// (`allOf` over `$ref`s that hold more `allOf`s, branches merged into branches) multiply
    /// one another.
    #[error(
        "the schema is too complex to derive a grammar from: its allOf, anyOf and $ref multiply \
         one another past {steps} steps, the limit for a schema of its size, at {}",
        display_pointer(.pointer)
    )]
    TooComplex {
        /// JSON pointer into the schema where the steps ran out.
        pointer: String,
        /// The steps it was allowed.
        steps: u64,
    },
}

fn first_reason(notes: &[Problem]) -> String {
    notes
        .iter()
        .find(|note| note.reason.contains("no value satisfies"))
        .map(|note| format!(": {note}"))
        .unwrap_or_default()
}

/// Derives the grammar of `schema` with pretty whitespace, from the process-wide cache when the
/// same schema has been derived before.
pub fn derive(schema: &Value) -> Result<Arc<Derived>, GbnfError> {
    derive_with(schema, Whitespace::Pretty)
}

/// Derives the grammar of `schema` with `whitespace` between tokens, from the process-wide
/// cache when the same schema has been derived with it before.
pub fn derive_with(schema: &Value, whitespace: Whitespace) -> Result<Arc<Derived>, GbnfError> {
    static MEMO: Memo<(Value, Whitespace), Derived> = Memo::new();
    // The whitespace is a key, not a bucket: two derivations of one schema share a bucket.
    MEMO.get_or_try_insert(
        structural_hash(schema),
        |(seen, seen_whitespace)| *seen_whitespace == whitespace && seen == schema,
        || {
            Ok((
                (schema.clone(), whitespace),
                derive_uncached_with(schema, whitespace)?,
            ))
        },
    )
}

/// Derives the grammar of `schema` without looking at or filling the cache (for benchmarks
/// and for callers that derive a schema once).
pub fn derive_uncached(schema: &Value) -> Result<Derived, GbnfError> {
    derive_uncached_with(schema, Whitespace::Pretty)
}

/// [`derive_uncached`] with `whitespace` between tokens.
pub fn derive_uncached_with(schema: &Value, whitespace: Whitespace) -> Result<Derived, GbnfError> {
    let mut deriver = derive::Deriver::new(schema, whitespace);
    deriver.run();
    if let Some(error) = deriver.error.take() {
        return Err(error);
    }
    let mut builder = deriver.builder;
    let empty_rules = builder.prune();
    if !builder.root_is_productive() {
        let mut notes = deriver.notes.into_vec();
        if !notes
            .iter()
            .any(|note| note.reason.contains("no value satisfies"))
        {
            // Nothing in the schema accepts nothing: the rules went round in a circle.
            notes.push(Problem {
                pointer: String::new(),
                keyword: Some("$ref".to_owned()),
                reason: format!(
                    "no value satisfies this schema: its references go round in a circle without reaching a value (rules {})",
                    empty_rules.join(", ")
                ),
            });
        }
        return Err(GbnfError::Unsatisfiable { notes });
    }
    if let Some(rule) = builder.left_recursive_rule() {
        return Err(GbnfError::LeftRecursive { rule });
    }
    Ok(Derived {
        grammar: builder.finish(),
        notes: deriver.notes.into_vec(),
    })
}

/// Every place where the grammar of `schema` is not exact, or, when it has none, why: the
/// answer to "is this schema grammar-expressible" (empty when the grammar is exact).
pub fn grammar_problems(schema: &Value) -> Vec<Problem> {
    match derive(schema) {
        Ok(derived) => derived.notes.clone(),
        Err(GbnfError::InvalidSchema { pointer, reason }) => vec![Problem {
            pointer,
            keyword: None,
            reason,
        }],
        Err(GbnfError::Unsatisfiable { notes }) => notes,
        Err(error @ GbnfError::LeftRecursive { .. }) => vec![Problem {
            pointer: String::new(),
            keyword: Some("$ref".to_owned()),
            reason: error.to_string(),
        }],
        Err(GbnfError::TooComplex { pointer, steps }) => {
            let reason = GbnfError::TooComplex {
                pointer: pointer.clone(),
                steps,
            }
            .to_string();
            vec![Problem {
                pointer,
                keyword: Some("allOf".to_owned()),
                reason,
            }]
        }
    }
}
