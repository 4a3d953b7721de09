//! Writing and dropping values of any depth without recursion.
//!
//! `serde_json` serialises and drops a `Value` recursively, one stack frame per level, so a
//! document nested 10,000 deep can overflow a thread's stack after it has been parsed. The
//! writer here produces exactly `serde_json::to_string` / `to_string_pretty` output (strings
//! and numbers are still formatted by `serde_json`) from an explicit stack, and [`drop_deep`]
//! takes containers apart level by level. Pretty output indents the first [`PRETTY_DEPTH`]
//! levels and writes anything deeper compactly, so its size stays linear in the value's: the
//! indentation of n levels alone would otherwise be quadratic (n² bytes for `[[[...]]]`).

use serde_json::{Map, Value};

/// How many levels pretty output indents; a container nested deeper is written compactly.
pub const PRETTY_DEPTH: usize = 64;

/// Drops `value` without recursion: every container's children are moved onto a heap stack
/// before the container itself is freed. Use it for values that may be deeply nested.
pub fn drop_deep(value: Value) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => pending.extend(items),
            Value::Object(members) => pending.extend(members.into_iter().map(|(_, member)| member)),
            _ => {}
        }
    }
}

/// How deep `value` nests (a scalar is 0, `[]` is 1), counted without recursion and without
/// looking further than `limit` levels: the answer is at most `limit + 1`.
pub fn depth_beyond(value: &Value, limit: usize) -> usize {
    let mut deepest = 0;
    let mut pending = vec![(value, 0usize)];
    while let Some((value, depth)) = pending.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(members) => Box::new(members.values()),
            _ => continue,
        };
        deepest = deepest.max(depth + 1);
        if depth + 1 > limit {
            return deepest;
        }
        pending.extend(children.map(|child| (child, depth + 1)));
    }
    deepest
}

/// `value` as compact JSON, exactly as `serde_json::to_string` writes it, at any depth.
pub fn to_compact(value: &Value) -> String {
    let mut out = Vec::new();
    write(value, None, usize::MAX, &mut out);
    into_string(out)
}

/// `value` as indented JSON, exactly as `serde_json::to_string_pretty` writes it up to
/// [`PRETTY_DEPTH`] levels (deeper containers compactly), at any depth.
pub fn to_pretty(value: &Value) -> String {
    let mut out = Vec::new();
    write(value, Some(2), usize::MAX, &mut out);
    into_string(out)
}

/// Compact JSON cut to about `limit` bytes (with `...` when cut): for quoting a value in a
/// report.
pub fn to_compact_bounded(value: &Value, limit: usize) -> String {
    let mut out = Vec::new();
    if write(value, None, limit, &mut out) {
        out.truncate(limit);
        let mut text = into_string_lossy(out);
        text.push_str("...");
        return text;
    }
    into_string(out)
}

fn into_string(out: Vec<u8>) -> String {
    String::from_utf8(out).unwrap_or_else(|error| into_string_lossy(error.into_bytes()))
}

fn into_string_lossy(out: Vec<u8>) -> String {
    String::from_utf8_lossy(&out).into_owned()
}

enum Open<'v> {
    Array(std::slice::Iter<'v, Value>),
    Object(serde_json::map::Iter<'v>),
}

/// Writes `value`; returns true when it stopped because `out` grew past `limit`.
fn write(value: &Value, indent: Option<usize>, limit: usize, out: &mut Vec<u8>) -> bool {
    let mut stack: Vec<(Open<'_>, bool)> = Vec::new();
    let mut next = Some(value);
    loop {
        if out.len() > limit {
            return true;
        }
        if let Some(value) = next.take() {
            match value {
                Value::Array(items) if !items.is_empty() => {
                    out.push(b'[');
                    stack.push((Open::Array(items.iter()), true));
                }
                Value::Object(members) if !members.is_empty() => {
                    out.push(b'{');
                    stack.push((Open::Object(members.iter()), true));
                }
                Value::Array(_) => out.extend_from_slice(b"[]"),
                Value::Object(_) => out.extend_from_slice(b"{}"),
                scalar => scalar_to(scalar, out),
            }
            continue;
        }
        let depth = stack.len();
        let Some((open, first)) = stack.last_mut() else {
            return false;
        };
        let child = match open {
            Open::Array(items) => items.next().map(|item| (None, item)),
            Open::Object(members) => members.next().map(|(key, member)| (Some(key), member)),
        };
        match child {
            Some((key, child)) => {
                if !*first {
                    out.push(b',');
                }
                *first = false;
                let indent = indent.filter(|_| depth <= PRETTY_DEPTH);
                newline(indent, depth, out);
                if let Some(key) = key {
                    string_to(key, out);
                    out.push(b':');
                    if indent.is_some() {
                        out.push(b' ');
                    }
                }
                next = Some(child);
            }
            None => {
                let closer = match open {
                    Open::Array(_) => b']',
                    Open::Object(_) => b'}',
                };
                stack.pop();
                newline(indent.filter(|_| depth <= PRETTY_DEPTH), depth - 1, out);
                out.push(closer);
            }
        }
    }
}

fn newline(indent: Option<usize>, depth: usize, out: &mut Vec<u8>) {
    if let Some(width) = indent {
        out.push(b'\n');
        out.resize(out.len() + width * depth, b' ');
    }
}

fn string_to(text: &str, out: &mut Vec<u8>) {
    // A string never recurses, so serde_json's own escaping is safe and exact.
    serde_json::to_writer(&mut *out, text).expect("writing to a Vec cannot fail");
}

fn scalar_to(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::String(text) => string_to(text, out),
        other => serde_json::to_writer(&mut *out, other).expect("writing to a Vec cannot fail"),
    }
}

/// Compares two values without recursion (for tests and for checking a deep value against an
/// expectation).
pub fn equal_deep(left: &Value, right: &Value) -> bool {
    let mut pending = vec![(left, right)];
    while let Some((left, right)) = pending.pop() {
        match (left, right) {
            (Value::Array(a), Value::Array(b)) => {
                if a.len() != b.len() {
                    return false;
                }
                pending.extend(a.iter().zip(b));
            }
            (Value::Object(a), Value::Object(b)) => {
                if !same_keys(a, b) {
                    return false;
                }
                pending.extend(a.iter().map(|(key, member)| (member, &b[key])));
            }
            (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => {
                return false;
            }
            (a, b) => {
                if a != b {
                    return false;
                }
            }
        }
    }
    true
}

fn same_keys(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    a.len() == b.len() && a.keys().all(|key| b.contains_key(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn output_is_exactly_serde_json_output() {
        let values = [
            json!(null),
            json!([]),
            json!({}),
            json!({"a": [1, 2.5, -3, "x\n\u{1}\"é/", {"b": {}}, []], "": null, "c": true}),
            json!([[[[]]], {"k": [{}]}, 1e300, -0.0, u64::MAX, i64::MIN]),
        ];
        for value in values {
            assert_eq!(to_compact(&value), serde_json::to_string(&value).unwrap());
            assert_eq!(
                to_pretty(&value),
                serde_json::to_string_pretty(&value).unwrap()
            );
        }
    }

    #[test]
    fn pretty_output_indents_the_first_levels_and_stays_linear() {
        // Built by hand: `json!` serialises what it interpolates, recursively.
        let mut deep = json!("x");
        for _ in 0..20_000 {
            let mut member = Map::new();
            member.insert("k".to_owned(), Value::Array(vec![deep]));
            deep = Value::Object(member);
        }
        let compact = to_compact(&deep);
        let pretty = to_pretty(&deep);
        // Past PRETTY_DEPTH levels nothing is indented: the indentation adds at most
        // PRETTY_DEPTH lines of at most 2 * PRETTY_DEPTH spaces on each side.
        let bound = compact.len() + 4 * PRETTY_DEPTH * (2 * PRETTY_DEPTH + 2);
        assert!(pretty.len() <= bound, "{} > {bound}", pretty.len());
        assert!(
            pretty.starts_with("{\n  \"k\": [\n    {\n      \"k\": ["),
            "{}",
            &pretty[..40]
        );
        // The same value, read back by the (non-recursive) repair ladder.
        let reparsed = crate::repair::repair(&pretty, &crate::repair::RepairOptions::new())
            .unwrap()
            .value;
        assert!(equal_deep(&reparsed, &deep));
        drop_deep(reparsed);
        // Up to the limit it is serde_json's output exactly.
        let mut shallow = json!(1);
        for _ in 0..PRETTY_DEPTH {
            shallow = Value::Array(vec![shallow]);
        }
        assert_eq!(
            to_pretty(&shallow),
            serde_json::to_string_pretty(&shallow).unwrap()
        );
        drop_deep(deep);
    }

    #[test]
    fn bounded_output_is_cut() {
        let value = json!({"text": "a".repeat(100)});
        let short = to_compact_bounded(&value, 20);
        assert_eq!(short, format!("{{\"text\":\"{}...", "a".repeat(11)));
        assert_eq!(to_compact_bounded(&json!([1]), 20), "[1]");
    }

    #[test]
    fn depth_and_equality_work_without_recursion() {
        let mut deep = Value::Null;
        for _ in 0..200_000 {
            deep = Value::Array(vec![deep]);
        }
        assert_eq!(depth_beyond(&deep, 10), 11);
        assert_eq!(depth_beyond(&json!([[1], {"a": [[]]}]), 100), 4);
        assert_eq!(depth_beyond(&json!(1), 100), 0);
        let text = to_compact(&deep);
        assert_eq!(text.len(), 200_000 * 2 + 4);
        assert!(equal_deep(&deep, &deep));
        assert!(!equal_deep(&deep, &json!([])));
        assert!(!equal_deep(&json!({"a": 1}), &json!({"b": 1})));
        drop_deep(deep);
    }
}
