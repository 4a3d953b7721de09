//! One attempt at reading the document that starts at a given `{` or `[`: as written, or, when
//! its quotes are escaped (`escaped.rs`), unescaped first. Either way the ladder gets the
//! value or the reason it stopped with offsets in the original text, the rungs the document
//! needed, and what follows it.

use serde_json::{Map, Value};

use super::escaped::{self, Unescaped};
use super::locate::{self, Gap};
use super::parse::{self, NumberTexts, Stop};
use super::prose;
use super::rung::{Rung, RungSet};
use super::scan;
use super::write::drop_deep;

/// What one parse of a document gave.
pub(super) struct Attempt {
    /// The value, or why there is none (offsets in the original text).
    pub(super) result: Result<Value, Stop>,
    /// Every rung the document needed, `escapes` included when it was unescaped.
    pub(super) changed: RungSet,
    /// The members of a top-level object that were complete when the parse stopped.
    pub(super) partial: Option<Map<String, Value>>,
    /// How deep the value nests, at most.
    pub(super) depth: usize,
    /// Source texts of numbers that print differently.
    pub(super) numbers: NumberTexts,
    /// What follows the document to the end of the text.
    pub(super) after: Gap,
    /// What follows the document up to a closing fence (or the end).
    pub(super) after_in_fence: Gap,
    /// Where the document ends in the text, when it parsed and was read as written.
    pub(super) end: Option<usize>,
}

/// Reads the document whose opener is at `start`.
pub(super) fn attempt(text: &str, start: usize, allowed: RungSet) -> Attempt {
    if !escaped::opens(text.as_bytes(), start) {
        return parse_from(text, start, allowed);
    }
    let unescaped = Unescaped::new(text, start);
    let mut attempt = parse_from(&unescaped.text, 0, allowed);
    attempt.changed.insert(Rung::Escapes);
    attempt.end = None;
    attempt.result = match attempt.result {
        Ok(value) if !allowed.contains(Rung::Escapes) => {
            if attempt.depth > parse::SHALLOW {
                drop_deep(value);
            }
            Err(Stop::Needs(Rung::Escapes, start))
        }
        Ok(value) => Ok(value),
        Err(stop) => Err(unescaped.original_stop(stop)),
    };
    attempt
}

fn parse_from(text: &str, start: usize, allowed: RungSet) -> Attempt {
    // The whole text, not the parser's: a parse that ended where prose starts reads less.
    let bytes = text.as_bytes();
    let (mut parser, result) = prose::parse_document(text, start, allowed);
    let end = result.is_ok().then_some(parser.pos);
    let (partial, after, after_in_fence) = match result {
        Ok(_) => {
            let end = parser.pos;
            let blank_end = scan::skip_blank(bytes, end);
            let after_in_fence = if blank_end < bytes.len() && !scan::is_fence(bytes, blank_end) {
                Gap::Text
            } else {
                locate::gap(bytes, end, blank_end)
            };
            (None, locate::gap(bytes, end, bytes.len()), after_in_fence)
        }
        Err(_) => (parser.take_partial(), Gap::Blank, Gap::Blank),
    };
    Attempt {
        result,
        changed: parser.changed,
        partial,
        depth: parser.max_depth,
        numbers: std::mem::take(&mut parser.numbers),
        after,
        after_in_fence,
        end,
    }
}
