//! What a repair returns: [`Repaired`] or [`RepairFailure`] with its [`FailureClass`], and the
//! last steps that produce them (the finish reason, validation, coercion).

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Number, Value};

use super::coerce::{Coercer, Coercion, NumberTexts};
use super::parse::{self, MAX_DEPTH, Parser, SHALLOW, Stop};
use super::repetition::{Repetition, find_repetition};
use super::rung::{Rung, RungSet};
use super::write::drop_deep;
use super::{Found, RepairOptions};
use crate::schema::{ValidationError, Validator, Violations, follow_refs};

/// A repaired (or already valid) document.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Repaired {
    /// The value; valid against the schema when one was given.
    pub value: Value,
    /// The first rung after which the document parsed (and validated): `none` when it was
    /// valid as it stood.
    pub rung: Rung,
    /// Every rung that changed something, in ladder order.
    pub rungs_changed: Vec<Rung>,
    /// What the `coerce` rung changed, each at its JSON pointer.
    pub coercions: Vec<Coercion>,
    /// How many further complete top-level values the text held that were dropped (NDJSON
    /// lines, `{...}, {...}`, more fenced blocks): the first was kept, or the one that
    /// validated; 0 when they were collected into the array the schema asks for.
    pub dropped: usize,
}

/// Why no trustworthy value came out; decides how a caller re-asks the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FailureClass {
    /// Nothing but whitespace (or only a reasoning block).
    Empty,
    /// Text with no JSON object or array in it.
    Prose,
    /// JSON that stops early: cut off, or the server stopped on length. Re-ask with the
    /// partial output and more room.
    Truncated,
    /// JSON broken in a way no rung repairs, or nested too deep. Re-ask like prose.
    Malformed,
    /// Valid JSON that does not satisfy the schema, with the validation errors.
    WrongShape,
    /// A degenerate loop: the answer repeats one item, phrase or pair, pads with whitespace
    /// or writes a number without end ([`Repetition`]). Re-ask with anti-repetition sampling,
    /// never with a larger budget: the loop would only run longer.
    Repetition,
    /// A tool call to a tool that is not in the request's tool set. Only the structured call
    /// path's tool turns produce it (never the repair ladder): re-ask naming the tools.
    UnknownTool,
    /// A call to another tool than the one `tool_choice` names. Only tool turns produce it.
    ToolNotChosen,
    /// A tool call whose arguments do not satisfy that tool's parameters (or are not a JSON
    /// object). Only tool turns produce it: re-ask with the errors and the parameters.
    InvalidArguments,
    /// Under `tool_choice: auto`, calls that the conversation already holds with their results:
    /// the same tool with the same arguments again, the start of a tool loop that never ends.
    /// Only tool turns produce it: re-ask for an answer from the results.
    RepeatedCall,
}

impl FailureClass {
    /// Every class, in declaration order (the enum may grow: match with a fallback arm, and
    /// iterate this to cover what a version knows).
    pub const ALL: [FailureClass; 10] = [
        FailureClass::Empty,
        FailureClass::Prose,
        FailureClass::Truncated,
        FailureClass::Malformed,
        FailureClass::WrongShape,
        FailureClass::Repetition,
        FailureClass::UnknownTool,
        FailureClass::ToolNotChosen,
        FailureClass::InvalidArguments,
        FailureClass::RepeatedCall,
    ];

    /// The class's stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            FailureClass::Empty => "empty",
            FailureClass::Prose => "prose",
            FailureClass::Truncated => "truncated",
            FailureClass::Malformed => "malformed",
            FailureClass::WrongShape => "wrong_shape",
            FailureClass::Repetition => "repetition",
            FailureClass::UnknownTool => "unknown_tool",
            FailureClass::ToolNotChosen => "tool_not_chosen",
            FailureClass::InvalidArguments => "invalid_arguments",
            FailureClass::RepeatedCall => "repeated_call",
        }
    }
}

impl fmt::Display for FailureClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A repair that did not produce a value that can be trusted.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
#[non_exhaustive]
pub struct RepairFailure {
    /// What kind of failure: what a caller's re-ask should say.
    pub class: FailureClass,
    /// A one-line description, with the line and column where there is one.
    pub message: String,
    /// Byte offset in the input where the problem is, when there is one place.
    pub offset: Option<usize>,
    /// For `wrong_shape`: every validation error, with its JSON pointer.
    pub errors: Vec<ValidationError>,
    /// For a truncated top-level object: the members that were complete. Evidence, not a
    /// result: nothing in it has been validated.
    pub partial: Option<Map<String, Value>>,
    /// For a truncated top-level object: the schema's required names not in `partial`.
    pub missing_required: Vec<String>,
    /// Every rung that changed something before the ladder gave up, in ladder order.
    pub rungs_changed: Vec<Rung>,
    /// The parsed value when there is one (`wrong_shape`; a complete array under
    /// `finish_reason: length`).
    pub value: Option<Value>,
    /// What the `coerce` rung changed before validation still failed.
    pub coercions: Vec<Coercion>,
    /// For `repetition`: the loop.
    pub repetition: Option<Repetition>,
}

impl RepairFailure {
    /// The same failure classed `repetition` when it was classed truncated and `text` holds a
    /// degenerate loop: the loop spent the budget (the model may have left one loop for
    /// another, or for a string it never closed), so a larger budget would only make it
    /// longer. The evidence (partial members) stays.
    pub(super) fn with_repetition(mut self, text: &str) -> RepairFailure {
        if self.class != FailureClass::Truncated {
            return self;
        }
        if let Some(repetition) = find_repetition(text) {
            self.message = format!("the answer loops: {repetition}; {}", self.message);
            self.class = FailureClass::Repetition;
            self.repetition = Some(repetition);
        }
        self
    }
}

/// A failure found before the schema and the finish reason have had their say.
pub(super) struct ParseFailure {
    class: FailureClass,
    what: String,
    offset: Option<usize>,
    pub(super) changed: RungSet,
    partial: Option<Map<String, Value>>,
    /// The text would have parsed with a rung the caller did not allow.
    pub(super) needs_rung: bool,
}

impl ParseFailure {
    pub(super) fn empty(what: &str) -> ParseFailure {
        ParseFailure::new(FailureClass::Empty, what.to_owned(), None)
    }

    pub(super) fn binary() -> ParseFailure {
        ParseFailure::new(
            FailureClass::Malformed,
            "the input is mostly not text (control bytes or invalid UTF-8): no answer to repair"
                .to_owned(),
            None,
        )
    }

    pub(super) fn prose() -> ParseFailure {
        ParseFailure::new(
            FailureClass::Prose,
            "the input holds no JSON object or array".to_owned(),
            None,
        )
    }

    pub(super) fn unclosed_reasoning(at: usize) -> ParseFailure {
        ParseFailure::new(
            FailureClass::Truncated,
            "the answer is cut off inside its reasoning block".to_owned(),
            Some(at),
        )
    }

    fn new(class: FailureClass, what: String, offset: Option<usize>) -> ParseFailure {
        ParseFailure {
            class,
            what,
            offset,
            changed: RungSet::EMPTY,
            partial: None,
            needs_rung: false,
        }
    }

    pub(super) fn from_stop(
        stop: Stop,
        changed: RungSet,
        partial: Option<Map<String, Value>>,
    ) -> ParseFailure {
        let (class, what, at) = match stop {
            Stop::Cut(cut, at) => (
                FailureClass::Truncated,
                format!("the JSON document is cut off {}", cut.describe()),
                at,
            ),
            Stop::Broken { at, expected } => (
                FailureClass::Malformed,
                format!("the JSON document is malformed: expected {expected}"),
                at,
            ),
            Stop::TooDeep(at) => (
                FailureClass::Malformed,
                format!("the JSON document is nested too deep: more than {MAX_DEPTH} levels"),
                at,
            ),
            Stop::Needs(rung, at) => (
                FailureClass::Malformed,
                format!("the JSON document needs the `{rung}` rung, which is not allowed"),
                at,
            ),
        };
        let partial = if class == FailureClass::Truncated {
            partial
        } else {
            if let Some(members) = partial {
                drop_deep(Value::Object(members));
            }
            None
        };
        ParseFailure {
            class,
            what,
            offset: Some(at),
            changed,
            partial,
            needs_rung: matches!(stop, Stop::Needs(..)),
        }
    }

    pub(super) fn is_truncated(&self) -> bool {
        self.class == FailureClass::Truncated
    }

    pub(super) fn into_failure(self, text: &str, options: &RepairOptions<'_>) -> RepairFailure {
        let mut message = match self.offset {
            Some(at) => format!("{} ({})", self.what, position(text, at)),
            None => self.what,
        };
        let mut class = self.class;
        if options.finish_reason_length && class != FailureClass::Truncated {
            class = FailureClass::Truncated;
            message = format!("{LENGTH_MESSAGE}; besides, {message}");
        }
        let missing_required = missing_required(options, self.partial.as_ref());
        RepairFailure {
            class,
            message,
            offset: self.offset,
            errors: Vec::new(),
            partial: self.partial,
            missing_required,
            rungs_changed: self.changed.to_vec(),
            value: None,
            coercions: Vec::new(),
            repetition: None,
        }
    }
}

const LENGTH_MESSAGE: &str = "the server stopped on length (finish_reason: length)";

/// `line L, column C` (1-based, columns in characters) of byte offset `at`.
fn position(text: &str, at: usize) -> String {
    let (line, column) = crate::text::line_column(text, at);
    format!("line {line}, column {column}")
}

fn missing_required(
    options: &RepairOptions<'_>,
    partial: Option<&Map<String, Value>>,
) -> Vec<String> {
    let (Some(members), Some((schema, _))) = (partial, &options.schema) else {
        return Vec::new();
    };
    let schema = follow_refs(schema, schema).unwrap_or(schema);
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|name| !members.contains_key(*name))
        .map(str::to_owned)
        .collect()
}

/// Applies the finish reason, the schema and coercion to a parsed document.
pub(super) fn finish(
    text: &str,
    found: Found,
    options: &RepairOptions<'_>,
) -> Result<Repaired, RepairFailure> {
    let Found {
        mut value,
        mut changed,
        numbers,
        depth,
        others,
    } = found;
    debug_assert!(
        others.is_empty(),
        "several::finish takes the further values first"
    );
    if options.finish_reason_length {
        let (partial, value) = match value {
            Value::Object(members) => (Some(members), None),
            other => (None, Some(other)),
        };
        let missing_required = missing_required(options, partial.as_ref());
        return Err(RepairFailure {
            class: FailureClass::Truncated,
            message: format!("{LENGTH_MESSAGE}: the answer may be incomplete"),
            offset: None,
            errors: Vec::new(),
            partial,
            missing_required,
            rungs_changed: changed.to_vec(),
            value,
            coercions: Vec::new(),
            repetition: None,
        });
    }
    let rung = changed.last().unwrap_or(Rung::None);
    let Some((schema, validator)) = &options.schema else {
        return Ok(Repaired {
            value,
            rung,
            rungs_changed: changed.to_vec(),
            coercions: Vec::new(),
            dropped: 0,
        });
    };
    let mut violations = match validate(validator, &value, depth) {
        Ok(()) => {
            return Ok(Repaired {
                value,
                rung,
                rungs_changed: changed.to_vec(),
                coercions: Vec::new(),
                dropped: 0,
            });
        }
        Err(violations) => violations,
    };
    let mut coercions = Vec::new();
    if options.rungs.contains(Rung::Coerce) {
        let mut texts = Texts::new(text, numbers);
        let mut coercer = Coercer::new(schema, &mut texts);
        coercer.coerce(&mut value, schema, &mut String::new());
        coercions = coercer.coercions;
        if !coercions.is_empty() {
            changed.insert(Rung::Coerce);
            match validate(validator, &value, depth) {
                Ok(()) => {
                    return Ok(Repaired {
                        value,
                        rung: Rung::Coerce,
                        rungs_changed: changed.to_vec(),
                        coercions,
                        dropped: 0,
                    });
                }
                Err(remaining) => violations = remaining,
            }
        }
    }
    let count = violations.0.len();
    Err(RepairFailure {
        class: FailureClass::WrongShape,
        message: format!(
            "the JSON does not satisfy the schema: {count} violation{}",
            if count == 1 { "" } else { "s" }
        ),
        offset: None,
        errors: violations.0,
        partial: None,
        missing_required: Vec::new(),
        rungs_changed: changed.to_vec(),
        value: Some(value),
        coercions,
        repetition: None,
    })
}

/// Values up to this deep (all that `serde_json` parses) are validated on the caller's thread:
/// the validator's recursion over 128 levels fits any thread's stack.
const INLINE_VALIDATION_DEPTH: usize = 128;

/// Validates on this thread when the value is shallow, else on a helper thread whose stack
/// fits the depth (the validator recurses once per level of value that the schema reaches).
fn validate(validator: &Validator, value: &Value, depth: usize) -> Result<(), Violations> {
    if depth <= INLINE_VALIDATION_DEPTH {
        return validator.validate(value);
    }
    let stack = (1 << 20) + depth.min(MAX_DEPTH + 1) * 4096;
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("slmcode-validate".to_owned())
            .stack_size(stack)
            .spawn_scoped(scope, || validator.validate(value))
            .map(|handle| handle.join())
    })
    .unwrap_or_else(|_| Ok(validator.validate(value)))
    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Source texts of numbers, loaded from the parser's record or, after a plain `serde_json`
/// parse, by running the parser once more when a coercion first needs one.
struct Texts<'t> {
    text: &'t str,
    by_pointer: Option<HashMap<String, String>>,
    recorded: Option<parse::NumberTexts>,
}

impl<'t> Texts<'t> {
    fn new(text: &'t str, recorded: Option<parse::NumberTexts>) -> Texts<'t> {
        Texts {
            text,
            by_pointer: None,
            recorded,
        }
    }
}

impl NumberTexts for Texts<'_> {
    fn text(&mut self, pointer: &str, number: &Number) -> Option<String> {
        let text = self.text;
        let recorded = &mut self.recorded;
        let table = self.by_pointer.get_or_insert_with(|| {
            let list = recorded.take().unwrap_or_else(|| reparse_numbers(text));
            list.into_iter().collect()
        });
        let found = match table.get(pointer) {
            Some(found) => found.clone(),
            None if pointer.is_empty() => text.trim().to_owned(),
            None => return None,
        };
        let same = match (found.parse::<f64>(), number.as_f64()) {
            (Ok(written), Some(value)) => written == value,
            _ => false,
        };
        same.then_some(found)
    }
}

fn reparse_numbers(text: &str) -> parse::NumberTexts {
    let bytes = text.as_bytes();
    let start = super::scan::skip_space(bytes, 0);
    if !matches!(bytes.get(start), Some(b'{' | b'[')) {
        return Vec::new();
    }
    let mut parser = Parser::new(text, start, RungSet::ALL);
    let parsed = parser.parse();
    if let Ok(value) = parsed
        && parser.max_depth > SHALLOW
    {
        drop_deep(value);
    }
    std::mem::take(&mut parser.numbers)
}
