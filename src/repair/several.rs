//! Several top-level values in one answer: NDJSON lines, `{...}, {...}`, or one fenced block
//! after another. The first value is the answer unless a schema says otherwise: when the first
//! does not validate, the values are collected into one array if the schema asks for an array,
//! or else the first later value that validates is kept. How many values were dropped is
//! reported (`Repaired::dropped`), so a caller knows the answer held more.
//!
//! Only complete values separated by whitespace, commas and comments (NDJSON as MongoDB's shell
//! prints it, `/* 1 */` before each), or each in its own fence, count:
//! prose between two values ends the search, and a later value that is cut off is not one.

use serde_json::Value;

use super::document;
use super::fence;
use super::outcome::{self, FailureClass, RepairFailure, Repaired};
use super::parse::SHALLOW;
use super::rung::{Rung, RungSet};
use super::scan;
use super::write::drop_deep;
use super::{Found, RepairOptions};
use crate::schema::follow_refs;

/// The complete values after the document that ends at `end`, each separated from the one
/// before only by whitespace, commas and comments. `base` holds the rungs every one of them needs
/// before its own (a reasoning block removed); `extract` is added, since the text before each
/// is dropped when it is kept.
pub(super) fn following(text: &str, end: usize, allowed: RungSet, base: RungSet) -> Vec<Found> {
    let bytes = text.as_bytes();
    let mut values = Vec::new();
    let mut at = end;
    loop {
        let (mut next, _) = scan::skip_blank_and_comments(bytes, at);
        while bytes.get(next) == Some(&b',') {
            (next, _) = scan::skip_blank_and_comments(bytes, next + 1);
        }
        if !matches!(bytes.get(next), Some(b'{' | b'[')) {
            return values;
        }
        let Some((found, end)) = read(text, next, allowed, base) else {
            return values;
        };
        values.push(found);
        at = end;
    }
}

/// The complete values of the fenced blocks after the one opened at `opening` whose document
/// ends at `end`.
pub(super) fn fenced(
    text: &str,
    opening: usize,
    end: usize,
    allowed: RungSet,
    base: RungSet,
) -> Vec<Found> {
    let bytes = text.as_bytes();
    let mut values = Vec::new();
    let (mut opening, mut at) = (opening, end);
    while let Some(closing) = fence::closing(bytes, opening, at) {
        let Some(fence) = fence::json_block(bytes, closing.end) else {
            break;
        };
        let Some((found, end)) = read(text, fence.content, allowed, base) else {
            break;
        };
        values.push(found);
        (opening, at) = (fence.opening, end);
    }
    values
}

fn read(text: &str, start: usize, allowed: RungSet, base: RungSet) -> Option<(Found, usize)> {
    let attempt = document::attempt(text, start, allowed);
    match (attempt.result, attempt.end) {
        (Ok(value), Some(end)) => Some((
            Found {
                value,
                changed: base.union(attempt.changed).with(Rung::Extract),
                numbers: Some(attempt.numbers),
                depth: attempt.depth,
                others: Vec::new(),
            },
            end,
        )),
        (Ok(value), None) => {
            drop_found(value, attempt.depth);
            None
        }
        (Err(_), _) => {
            if let Some(members) = attempt.partial {
                drop_deep(Value::Object(members));
            }
            None
        }
    }
}

fn drop_found(value: Value, depth: usize) {
    if depth > SHALLOW {
        drop_deep(value);
    }
}

/// Applies the finish reason, the schema and coercion (`outcome::finish`), choosing among
/// several top-level values as the module header says.
pub(super) fn finish(
    text: &str,
    mut found: Found,
    options: &RepairOptions<'_>,
) -> Result<Repaired, RepairFailure> {
    let others = std::mem::take(&mut found.others);
    if others.is_empty() {
        return outcome::finish(text, found, options);
    }
    let dropped = others.len();
    let schema = options.schema.as_ref().map(|(schema, _)| *schema);
    let Some(schema) = schema.filter(|_| !options.finish_reason_length) else {
        for other in others {
            drop_found(other.value, other.depth);
        }
        return outcome::finish(text, found, options).map(|repaired| Repaired {
            dropped,
            ..repaired
        });
    };
    // The first value goes into the array as it was read, not as coercion left it in the
    // failure: only a schema that wants an array needs that copy.
    let first = wants_array(schema).then(|| (found.value.clone(), found.changed, found.depth));
    let failure = match outcome::finish(text, found, options) {
        Ok(repaired) => {
            if let Some((value, _, depth)) = first {
                drop_found(value, depth);
            }
            for other in others {
                drop_found(other.value, other.depth);
            }
            return Ok(Repaired {
                dropped,
                ..repaired
            });
        }
        Err(failure) if failure.class == FailureClass::WrongShape => failure,
        Err(failure) => return Err(failure),
    };
    if let Some((value, changed, depth)) = first {
        let mut items = vec![value];
        let mut changed = changed.with(Rung::Extract);
        let mut deepest = depth;
        for other in &others {
            items.push(other.value.clone());
            changed = changed.union(other.changed);
            deepest = deepest.max(other.depth);
        }
        let collected = Found {
            value: Value::Array(items),
            changed,
            numbers: Some(Vec::new()),
            depth: deepest + 1,
            others: Vec::new(),
        };
        if let Ok(repaired) = outcome::finish(text, collected, options) {
            return Ok(repaired);
        }
    }
    for other in others {
        if let Ok(repaired) = outcome::finish(text, other, options) {
            return Ok(Repaired {
                dropped,
                ..repaired
            });
        }
    }
    Err(failure)
}

/// Whether the schema's top level is an array (`"type": "array"`, or a list of types with it),
/// after the root's `$ref`s.
fn wants_array(schema: &Value) -> bool {
    let top = follow_refs(schema, schema).unwrap_or(schema);
    match top.get("type") {
        Some(Value::String(kind)) => kind == "array",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "array"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{FailureClass, RepairOptions, Rung, repair};

    fn dropped(text: &str) -> usize {
        repair(text, &RepairOptions::new()).unwrap().dropped
    }

    #[test]
    fn without_a_schema_the_first_is_kept_and_the_rest_counted() {
        let repaired = repair("{\"a\": 1}\n{\"b\": 2}\n[3]\n", &RepairOptions::new()).unwrap();
        assert_eq!(repaired.value, json!({"a": 1}));
        assert_eq!(repaired.dropped, 2);
        assert_eq!(repaired.rungs_changed, vec![Rung::Extract]);
        assert_eq!(dropped(r#"{"a": 1}, {"b": 2}"#), 1);
        assert_eq!(dropped("```json\n{\"a\": 1}\n```\nor\n~~~\n[2]\n~~~"), 1);
        // A run of the other marker inside a block does not close it.
        assert_eq!(
            dropped("```json\n{\"a\": 1}\n~~~\n```\n```json\n[2]\n```"),
            1
        );
        // A cut-off later value is not one; prose between values ends the search.
        assert_eq!(dropped("{\"a\": 1}\n{\"b\": 2}\n{\"c\": "), 1);
        assert_eq!(dropped("{\"a\": 1} and then {\"b\": 2}"), 0);
        assert_eq!(dropped(r#"{"a": 1}"#), 0);
        assert_eq!(dropped("{\"a\": 1}\nDone."), 0);
    }

    #[test]
    fn a_schema_keeps_the_value_that_validates_or_collects_an_array() {
        let person = json!({"type": "object", "required": ["name", "age"]});
        let options = RepairOptions::new().schema(&person).unwrap();
        let text = "{\"name\": \"Ada\"}\n{'name': 'Bob', 'age': 41}\n";
        let repaired = repair(text, &options).unwrap();
        assert_eq!(repaired.value, json!({"name": "Bob", "age": 41}));
        assert_eq!(repaired.rungs_changed, vec![Rung::Extract, Rung::Quotes]);
        assert_eq!(repaired.rung, Rung::Quotes);
        assert_eq!(repaired.dropped, 1);
        // The first validates: it is kept, however many follow.
        let first = repair("{\"name\": \"A\", \"age\": 1}\n{\"name\": \"B\"}", &options).unwrap();
        assert_eq!(first.value, json!({"name": "A", "age": 1}));
        assert_eq!(first.dropped, 1);
        let fenced =
            "```json\n{\"name\": \"Ada\"}\n```\n```json\n{\"name\": \"Bob\", \"age\": 2}\n```";
        let repaired = repair(fenced, &options).unwrap();
        assert_eq!(repaired.value, json!({"name": "Bob", "age": 2}));
        assert_eq!(repaired.rungs_changed, vec![Rung::Fence, Rung::Extract]);
        let none = repair("{\"name\": 1}\n{\"age\": 2}", &options).unwrap_err();
        assert_eq!(none.class, FailureClass::WrongShape);
        assert_eq!(none.value, Some(json!({"name": 1})));

        let list = json!({"type": "array", "items": {"type": "object"}});
        let options = RepairOptions::new().schema(&list).unwrap();
        let repaired = repair("{\"a\": 1}\n{\"b\": 2}", &options).unwrap();
        assert_eq!(repaired.value, json!([{"a": 1}, {"b": 2}]));
        assert_eq!(repaired.dropped, 0);
        assert_eq!(repaired.rung, Rung::Extract);
        // An array that validates as it stands is kept; the next is dropped.
        let repaired = repair("[{\"a\": 1}]\n[{\"b\": 2}]", &options).unwrap();
        assert_eq!(repaired.value, json!([{"a": 1}]));
        assert_eq!(repaired.dropped, 1);
    }

    #[test]
    fn values_with_comments_between_them_are_several() {
        // As MongoDB's shell prints a query's documents.
        let text = "/* 1 */\n{\"a\": 1}\n\n/* 2 */\n{\"a\": 2},\n// 3\n{\"a\": 3}\n";
        assert_eq!(dropped(text), 2);
        let list = json!({"type": "array"});
        let options = RepairOptions::new().schema(&list).unwrap();
        let repaired = repair(text, &options).unwrap();
        assert_eq!(repaired.value, json!([{"a": 1}, {"a": 2}, {"a": 3}]));
        // An unclosed comment is no separator.
        assert_eq!(dropped("{\"a\": 1}\n/* 2\n{\"a\": 2}"), 0);
    }

    #[test]
    fn an_array_behind_the_roots_ref_collects_the_values() {
        let list = json!({
            "$ref": "#/$defs/list",
            "$defs": {"list": {"type": "array", "items": {"type": "object"}}}
        });
        let options = RepairOptions::new().schema(&list).unwrap();
        let repaired = repair("{\"a\": 1}\n{\"b\": 2}", &options).unwrap();
        assert_eq!(repaired.value, json!([{"a": 1}, {"b": 2}]));
        assert_eq!(repaired.dropped, 0);
    }

    #[test]
    fn a_length_stop_is_truncated_whatever_follows() {
        let person = json!({"type": "object", "required": ["name"]});
        let options = RepairOptions::new()
            .schema(&person)
            .unwrap()
            .finish_reason_length(true);
        let failure = repair("{\"a\": 1}\n{\"name\": \"x\"}", &options).unwrap_err();
        assert_eq!(failure.class, FailureClass::Truncated);
    }
}
