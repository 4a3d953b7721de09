//! The repair ladder: turns what a model answered into a JSON value a program can trust, or
//! says precisely why it cannot (empty, prose, truncated, malformed, or the wrong shape).
//!
//! # The ladder
//!
//! Rungs run in a fixed order ([`Rung::ALL`]), each building on the ones before it:
//! `none think fence extract trailing_comma quotes comments unicode_spaces unquoted smart_quotes
//! fullwidth non_finite numbers missing_commas concatenation empty_elements inner_quotes escapes
//! python_bools tuples control_chars close_quote close_braces coerce`. A result names the first
//! rung after which the document parsed (and, with a schema, validated) and lists every rung that
//! changed something.
//!
//! It is implemented as one pass, not twenty: valid input is parsed by `serde_json` (rung
//! `none`; a leading byte-order mark is ignored first); anything else goes to a string-aware,
//! non-recursive tolerant parser (`repair::parse`, private) that records, for each deviation from
//! JSON it accepts, the rung that fixes it. The parser's decisions do not depend on which rungs are
//! allowed, so the recorded set is exactly the set of rungs the text needs, and the reported
//! rung is the last of them in ladder order: the first ladder prefix after which the document
//! parses. [`RepairOptions::rungs`] runs the ladder with only some rungs, which the tests use
//! to check that claim: with exactly the recorded rungs the same value comes out, without any
//! one of them it does not.
//!
//! # Truncation
//!
//! Truncation is not malformation. A document cut inside a string, key, number or literal, after
//! `:` or `,`, or right after an opener is reported as truncated, never closed up: a number at the
//! very end (whitespace after it does not count) may go on, so `[1, 2, 3` and `[1, 2, 3\n` are
//! truncated, while a closing fence or a chat-template token ends the document, so a number before
//! one is complete. So does prose on a later line after a complete final value (`["a", "b"`, a
//! blank line, `These are the files.`): the closers are missing and the prose is dropped
//! (`repair::prose`, private). `close_braces` only supplies closers after a complete final value. A
//! caller that knows the server stopped on length says so ([`RepairOptions::finish_reason_length`])
//! and always gets truncated. A truncated top-level object carries the members that were complete
//! (`partial`) and the schema's required names not among them (`missing_required`).
//!
//! # Limits and decisions
//!
//! - Nesting: the parser keeps its stack on the heap and gives up past [`MAX_DEPTH`] levels
//!   with "nested too deep" (class `malformed`). Values are written and dropped without
//!   recursion ([`to_compact`], [`to_pretty`], [`drop_deep`]); drop a value that may be deep
//!   with [`drop_deep`], since `serde_json` drops recursively. Schema validation of a value
//!   deeper than 128 levels (deeper than `serde_json` itself parses) runs on a helper thread
//!   with a stack sized for it.
//! - Text: the input is a `&str`; the CLI replaces invalid UTF-8 with U+FFFD and says so. Input
//!   that is mostly not text (at least a quarter of its characters control bytes or U+FFFD,
//!   as random bytes are) is `malformed`, whatever braces a search would find in it (checked
//!   only when the value was carved out of other text, or none was found: no cost otherwise).
//! - A document is an object or an array. A top-level scalar is accepted only when the whole
//!   input is valid JSON (rung `none`).
//! - Several top-level values (NDJSON lines, `{...}, {...}`, more fenced blocks): the first is
//!   kept and the others counted ([`Repaired::dropped`]), unless a schema the first does not
//!   satisfy picks a later one that it does, or asks for an array that collects them
//!   (`repair::several`, private).
//! - Fullwidth punctuation between tokens (`｛`, `：`, `，`) is read as ASCII only when the text
//!   does not repair as written (`repair::fullwidth`, private): inside strings it is content.
//! - Classes: besides `empty`, `prose`, `truncated` and `wrong_shape`,
//!   `malformed` is JSON that no rung repairs (`{"a": ]`, garbage inside an open object, too
//!   deep). A caller re-asks it like prose: "output only one JSON object".
//! - Every rung and what it fixes is documented on [`Rung`], the exact list of coercions
//!   on [`CoercionKind`].

// A failure is an ordinary outcome of a repair and carries the evidence a re-ask needs; it is
// returned by value on purpose, like the success.
#![allow(clippy::result_large_err)]

mod backticks;
mod coerce;
mod containers;
mod document;
mod escaped;
pub(crate) mod fence;
mod fullwidth;
mod locate;
mod outcome;
mod parse;
mod placeholders;
mod prose;
mod reasoning;
mod repetition;
mod rung;
mod scalar;
mod scan;
mod several;
mod stats;
mod string;
mod write;

#[cfg(test)]
pub(crate) mod tests;

use std::sync::Arc;

use serde_json::Value;

use crate::schema::{SchemaError, Validator};

pub use coerce::{Coercion, CoercionKind};
pub use outcome::{FailureClass, RepairFailure, Repaired};
pub use parse::MAX_DEPTH;
pub(crate) use reasoning::CLOSING_TAGS;
pub use reasoning::REASONING_TAGS;
pub(crate) use reasoning::{Reasoning, leading_reasoning, reasoning};
pub use repetition::{LoopKind, Repetition, RepetitionDetector, find_repetition};
pub use rung::{Rung, RungSet};
pub use stats::{CallEnding, STATS_FORMAT_VERSION, Stats};
pub use write::{drop_deep, equal_deep, to_compact, to_pretty};

use outcome::ParseFailure;
use parse::Stop;

/// How to repair: against which schema, knowing what about how the answer ended, with which
/// rungs. `RepairOptions::default()` is no schema, no finish reason, every rung.
#[derive(Clone, Debug)]
pub struct RepairOptions<'a> {
    schema: Option<(&'a Value, Arc<Validator>)>,
    finish_reason_length: bool,
    rungs: RungSet,
}

impl Default for RepairOptions<'_> {
    fn default() -> Self {
        RepairOptions {
            schema: None,
            finish_reason_length: false,
            rungs: RungSet::ALL,
        }
    }
}

impl<'a> RepairOptions<'a> {
    /// No schema, no finish reason, every rung.
    pub fn new() -> RepairOptions<'a> {
        RepairOptions::default()
    }

    /// Validates (and coerces) against `schema`; fails when the schema does not compile.
    pub fn schema(mut self, schema: &'a Value) -> Result<RepairOptions<'a>, SchemaError> {
        let validator = crate::schema::validator(schema)?;
        self.schema = Some((schema, validator));
        Ok(self)
    }

    /// The server reported `finish_reason: length`: whatever the text looks like, the answer
    /// is truncated.
    pub fn finish_reason_length(mut self, stopped_on_length: bool) -> RepairOptions<'a> {
        self.finish_reason_length = stopped_on_length;
        self
    }

    /// Runs the ladder with only these rungs (`none` is always allowed): a text that needs a
    /// rung outside the set fails as malformed.
    pub fn rungs(mut self, allowed: RungSet) -> RepairOptions<'a> {
        self.rungs = allowed.with(Rung::None);
        self
    }
}

/// Repairs `text` into a JSON value, validated against the schema when one is given.
pub fn repair(text: &str, options: &RepairOptions<'_>) -> Result<Repaired, RepairFailure> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let result = if starts_like_json(text)
        && let Ok(value) = serde_json::from_str::<Value>(text)
    {
        let found = Found {
            value,
            changed: RungSet::EMPTY,
            numbers: None,
            depth: 128,
            others: Vec::new(),
        };
        several::finish(text, found, options)
    } else {
        match ladder(text, options.rungs) {
            Ok(found) => several::finish(text, found, options),
            Err(failed) => second_reading(text, failed, options),
        }
    };
    result.map_err(|failure| failure.with_repetition(text))
}

/// A text that does not repair as written, read once more with the punctuation an input method
/// or a keyboard typed for ASCII syntax: fullwidth punctuation (`fullwidth`), or else backticks
/// used as string quotes (`smart_quotes`), each replaced at the same offsets. A text cut off as
/// written was read to its end: no such character stood where syntax had to be. Backticks are
/// tried only on an answer that is one bracketed value and nothing else, never in prose, where
/// they mark code.
fn second_reading(
    text: &str,
    failed: ParseFailure,
    options: &RepairOptions<'_>,
) -> Result<Repaired, RepairFailure> {
    let reading = if failed.needs_rung || failed.is_truncated() {
        None
    } else if let Some((ascii, at)) = fullwidth::ascii_twin(text) {
        Some((ascii, at, Rung::Fullwidth))
    } else if one_bracketed_value(text) {
        backticks::ascii_quotes(text).map(|(ascii, at)| (ascii, at, Rung::SmartQuotes))
    } else {
        None
    };
    let Some((ascii, at, rung)) = reading else {
        return Err(failed.into_failure(text, options));
    };
    // The structure the model meant, read with ASCII punctuation (same offsets).
    match ladder(&ascii, options.rungs) {
        Ok(mut found) if options.rungs.contains(rung) => {
            found.changed.insert(rung);
            several::finish(&ascii, found, options)
        }
        Ok(found) => {
            let changed = found.changed.with(rung);
            let stop = Stop::Needs(rung, at);
            Err(ParseFailure::from_stop(stop, changed, None).into_failure(&ascii, options))
        }
        Err(mut failed) => {
            failed.changed.insert(rung);
            Err(failed.into_failure(&ascii, options))
        }
    }
}

/// Whether the text, without surrounding whitespace, opens with `{` or `[` and closes with `}`
/// or `]`.
fn one_bracketed_value(text: &str) -> bool {
    let trimmed = text.trim().as_bytes();
    matches!(trimmed.first(), Some(b'{' | b'[')) && matches!(trimmed.last(), Some(b'}' | b']'))
}

/// Whether `serde_json` could possibly accept `text`: skips the attempt (and its cost) on the
/// answers that start with prose, a fence or a reasoning block, and on objects and arrays that
/// do not end with their closer (cut off, or followed by prose), which it would read to the end
/// before failing.
fn starts_like_json(text: &str) -> bool {
    let bytes = text.as_bytes();
    let first = scan::skip_space(bytes, 0);
    let last = bytes.iter().rposition(|byte| !scan::is_space(*byte));
    match (bytes.get(first), last.map(|at| bytes[at])) {
        (Some(b'{'), Some(closer)) => closer == b'}',
        (Some(b'['), Some(closer)) => closer == b']',
        (Some(b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'), _) => true,
        _ => false,
    }
}

/// A parsed document, before the schema has looked at it.
pub(crate) struct Found {
    value: Value,
    changed: RungSet,
    /// Source texts of numbers that print differently; `None` when `serde_json` parsed the
    /// document and they have not been needed yet.
    numbers: Option<parse::NumberTexts>,
    /// How deep the value nests, at most.
    depth: usize,
    /// The further complete top-level values after this one (NDJSON lines, `{...}, {...}`,
    /// more fenced blocks), each with the rungs that reading it needs.
    others: Vec<Found>,
}

/// Runs the rungs from `think` to `close_braces` over `text`.
fn ladder(text: &str, allowed: RungSet) -> Result<Found, ParseFailure> {
    let bytes = text.as_bytes();
    let mut changed = RungSet::EMPTY;
    let gate = |changed: &mut RungSet, rung: Rung, at: usize| {
        if !allowed.contains(rung) {
            return Err(ParseFailure::from_stop(
                Stop::Needs(rung, at),
                *changed,
                None,
            ));
        }
        changed.insert(rung);
        Ok(())
    };
    if text.trim().is_empty() || locate::gap(bytes, 0, bytes.len()) != locate::Gap::Text {
        return Err(ParseFailure::empty("the input is empty"));
    }
    let mut start = 0;
    match reasoning(text) {
        Reasoning::Absent => {}
        Reasoning::Removed(end) | Reasoning::Orphan(end) => {
            gate(&mut changed, Rung::Think, 0)?;
            start = end;
        }
        Reasoning::Unclosed { at, .. } => return Err(ParseFailure::unclosed_reasoning(at)),
    }
    if locate::gap(bytes, start, bytes.len()) != locate::Gap::Text {
        return Err(ParseFailure::empty(
            "the input holds only a reasoning block",
        ));
    }
    // What every further top-level value needs before its own rungs: the reasoning block.
    let base = changed;
    let fence = fence::json_block(bytes, start).filter(|fence| {
        // A fence that sits inside the first document (in one of its strings) is not a fence.
        locate::candidate(bytes, start)
            .is_none_or(|first| first > fence.opening || !spans_past(text, first, fence.opening))
    });
    if let Some(fence) = fence {
        gate(&mut changed, Rung::Fence, fence.opening)?;
        let attempt = document::attempt(text, fence.content, allowed);
        let mut changed = changed.union(attempt.changed);
        let value = match attempt.result {
            Ok(value) => value,
            Err(stop) => return Err(ParseFailure::from_stop(stop, changed, attempt.partial)),
        };
        match attempt.after_in_fence {
            locate::Gap::Text => gate(&mut changed, Rung::Extract, fence.content)?,
            locate::Gap::UnicodeSpaces => gate(&mut changed, Rung::UnicodeSpaces, fence.content)?,
            locate::Gap::Blank => {}
        }
        let others = match attempt.end {
            Some(end) => several::fenced(text, fence.opening, end, allowed, base.with(Rung::Fence)),
            None => Vec::new(),
        };
        return Ok(Found {
            value,
            changed,
            depth: attempt.depth,
            numbers: Some(attempt.numbers),
            others,
        });
    }
    let mut from = start;
    let mut first_failure: Option<ParseFailure> = None;
    let mut unescaped_once = false;
    // The opener the answer starts with, if any, and whether the search tried it.
    let opener = scan::skip_blank(bytes, start);
    let mut opener_tried = false;
    while let Some(candidate) = locate::candidate(bytes, from) {
        opener_tried |= candidate == opener;
        // Unescaping reads the rest of the text: one escaped reading per answer keeps the
        // search linear.
        if escaped::opens(bytes, candidate) {
            if unescaped_once {
                from = candidate + 1;
                continue;
            }
            unescaped_once = true;
        }
        let attempt = document::attempt(text, candidate, allowed);
        let mut changed = changed.union(attempt.changed);
        match attempt.result {
            Ok(value) => {
                let before = locate::gap(bytes, start, candidate);
                if let Some(rung) = locate::Gap::rung(before, attempt.after) {
                    // A value found in the middle of binary data is not an answer. The text
                    // before the value and the text's last bytes tell (random bytes are
                    // binary everywhere) without a pass over a long answer.
                    let tail = bytes.len().saturating_sub(BINARY_TAIL).max(candidate);
                    if scan::mostly_binary(&bytes[start..candidate])
                        || scan::mostly_binary(&bytes[tail..])
                    {
                        return Err(ParseFailure::binary());
                    }
                    gate(&mut changed, rung, candidate)?;
                }
                let others = match attempt.end {
                    Some(end) if attempt.after == locate::Gap::Text => {
                        several::following(text, end, allowed, base)
                    }
                    _ => Vec::new(),
                };
                return Ok(Found {
                    value,
                    changed,
                    depth: attempt.depth,
                    numbers: Some(attempt.numbers),
                    others,
                });
            }
            Err(Stop::Broken { at, expected }) => {
                if first_failure.is_none() {
                    first_failure = Some(ParseFailure::from_stop(
                        Stop::Broken { at, expected },
                        changed,
                        attempt.partial,
                    ));
                } else if let Some(members) = attempt.partial {
                    drop_deep(Value::Object(members));
                }
                from = at.max(candidate + 1);
            }
            Err(_) if scan::mostly_binary(bytes) => return Err(ParseFailure::binary()),
            Err(stop) => return Err(ParseFailure::from_stop(stop, changed, attempt.partial)),
        }
    }
    if scan::mostly_binary(bytes) {
        return Err(ParseFailure::binary());
    }
    if !opener_tried && let Some(found) = whole(text, start, opener, changed, allowed) {
        return found;
    }
    Err(first_failure.unwrap_or_else(ParseFailure::prose))
}

/// An answer that is one bracketed value and nothing else, whose opener the locator's
/// look-ahead did not take (`[a, b]`, `{"a" 1}`, `{a": 1}`): with no prose around it, the
/// opener can only open the document. Read only when it parses to the end of the text;
/// otherwise the answer stays what the search found (prose, most often).
#[cold]
fn whole(
    text: &str,
    start: usize,
    opener: usize,
    mut changed: RungSet,
    allowed: RungSet,
) -> Option<Result<Found, ParseFailure>> {
    if !matches!(text.as_bytes().get(opener), Some(b'{' | b'[')) {
        return None;
    }
    let attempt = document::attempt(text, opener, allowed);
    let value = match attempt.result {
        Ok(value) if attempt.after != locate::Gap::Text => value,
        Ok(value) => {
            drop_deep(value);
            return None;
        }
        Err(stop @ Stop::Needs(..)) => {
            let changed = changed.union(attempt.changed);
            return Some(Err(ParseFailure::from_stop(stop, changed, attempt.partial)));
        }
        Err(_) => {
            if let Some(members) = attempt.partial {
                drop_deep(Value::Object(members));
            }
            return None;
        }
    };
    changed = changed.union(attempt.changed);
    let before = locate::gap(text.as_bytes(), start, opener);
    if let Some(rung) = locate::Gap::rung(before, attempt.after) {
        if !allowed.contains(rung) {
            drop_deep(value);
            return Some(Err(ParseFailure::from_stop(
                Stop::Needs(rung, opener),
                changed,
                None,
            )));
        }
        changed.insert(rung);
    }
    Some(Ok(Found {
        value,
        changed,
        depth: attempt.depth,
        numbers: Some(attempt.numbers),
        others: Vec::new(),
    }))
}

/// How many of the text's last bytes the binary check reads when a value was found.
const BINARY_TAIL: usize = 256;

/// Whether the document that starts at `start` runs past byte `mark` (decided with every rung
/// allowed, so the answer does not depend on the caller's rungs).
fn spans_past(text: &str, start: usize, mark: usize) -> bool {
    let (parser, result) = prose::parse_document(text, start, RungSet::ALL);
    let stopped_at = match result {
        Ok(value) => {
            if parser.max_depth > parse::SHALLOW {
                drop_deep(value);
            }
            parser.pos
        }
        Err(Stop::Cut(..)) => text.len(),
        Err(Stop::Broken { at, .. } | Stop::TooDeep(at) | Stop::Needs(_, at)) => at,
    };
    stopped_at > mark
}
