//! Writing and dropping values of any depth without recursion.
//!
//! `serde_json` serialises and drops a `Value` recursively, one stack frame per level, so a
//! document nested 10,000 deep can overflow a thread's stack after it has been parsed. The
//! writer here produces exactly `serde_json::to_string` / `to_string_pretty` output (numbers
//! are formatted by `serde_json`, strings escaped as it escapes them) from an explicit stack,
//! and [`drop_deep`] takes containers apart level by level. Pretty output indents the first
//! [`PRETTY_DEPTH`] levels and writes anything deeper compactly, so its size stays linear in the
//! value's: the indentation of n levels alone would otherwise be quadratic (n² bytes for
//! `[[[...]]]`).

use serde_json::{Map, Number, Value};

use super::scan::find_in_string;

/// How many levels pretty output indents; a container nested deeper is written compactly.
pub const PRETTY_DEPTH: usize = 64;

/// Drops `value` without recursion: every container's children that hold children of their own
/// are moved onto a heap stack before the container itself is freed; the others (scalars,
/// strings, empty containers) are freed where they are. Use it for values that may be deeply
/// nested.
pub fn drop_deep(value: Value) {
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => {
                for item in items {
                    keep_if_nested(item, &mut pending);
                }
            }
            Value::Object(members) => {
                for (_, member) in members {
                    keep_if_nested(member, &mut pending);
                }
            }
            _ => {}
        }
    }
}

fn keep_if_nested(value: Value, pending: &mut Vec<Value>) {
    let nested = match &value {
        Value::Array(items) => !items.is_empty(),
        Value::Object(members) => !members.is_empty(),
        _ => false,
    };
    if nested {
        pending.push(value);
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
    let mut out = String::new();
    write(value, None, usize::MAX, &mut out);
    out
}

/// `value` as indented JSON, exactly as `serde_json::to_string_pretty` writes it up to
/// 64 levels (`PRETTY_DEPTH`; deeper containers compactly), at any depth.
pub fn to_pretty(value: &Value) -> String {
    let mut out = String::new();
    write(value, Some(2), usize::MAX, &mut out);
    out
}

/// Compact JSON cut to about `limit` bytes (with `...` when cut): for quoting a value in a
/// report.
pub fn to_compact_bounded(value: &Value, limit: usize) -> String {
    let mut out = String::new();
    if write(value, None, limit, &mut out) {
        let mut bytes = out.into_bytes();
        bytes.truncate(limit);
        let mut text = String::from_utf8_lossy(&bytes).into_owned();
        text.push_str("...");
        return text;
    }
    out
}

enum Open<'v> {
    Array(std::slice::Iter<'v, Value>),
    Object(serde_json::map::Iter<'v>),
}

/// Writes `value`; returns true when it stopped because `out` grew past `limit`.
fn write(value: &Value, indent: Option<usize>, limit: usize, out: &mut String) -> bool {
    let mut stack: Vec<(Open<'_>, bool)> = Vec::new();
    let mut next = Some(value);
    loop {
        if out.len() > limit {
            return true;
        }
        if let Some(value) = next.take() {
            match value {
                Value::Array(items) if !items.is_empty() => {
                    out.push('[');
                    stack.push((Open::Array(items.iter()), true));
                }
                Value::Object(members) if !members.is_empty() => {
                    out.push('{');
                    stack.push((Open::Object(members.iter()), true));
                }
                Value::Array(_) => out.push_str("[]"),
                Value::Object(_) => out.push_str("{}"),
                Value::String(text) => string_to(text, out),
                Value::Number(number) => number_to(number, out),
                Value::Bool(true) => out.push_str("true"),
                Value::Bool(false) => out.push_str("false"),
                Value::Null => out.push_str("null"),
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
                    out.push(',');
                }
                *first = false;
                let indent = indent.filter(|_| depth <= PRETTY_DEPTH);
                newline(indent, depth, out);
                if let Some(key) = key {
                    string_to(key, out);
                    out.push(':');
                    if indent.is_some() {
                        out.push(' ');
                    }
                }
                next = Some(child);
            }
            None => {
                let closer = match open {
                    Open::Array(_) => ']',
                    Open::Object(_) => '}',
                };
                stack.pop();
                newline(indent.filter(|_| depth <= PRETTY_DEPTH), depth - 1, out);
                out.push(closer);
            }
        }
    }
}

fn newline(indent: Option<usize>, depth: usize, out: &mut String) {
    if let Some(width) = indent {
        out.push('\n');
        out.extend(std::iter::repeat_n(' ', width * depth));
    }
}

/// A number as `serde_json` writes it: integers digit by digit, doubles by the `Display` of
/// `serde_json`'s `Number`, which is its serialisation.
fn number_to(number: &Number, out: &mut String) {
    if let Some(magnitude) = number.as_u64() {
        digits_to(magnitude, out);
    } else if let Some(negative) = number.as_i64() {
        out.push('-');
        digits_to(negative.unsigned_abs(), out);
    } else {
        use std::fmt::Write;
        write!(out, "{number}").expect("writing to a String cannot fail");
    }
}

fn digits_to(mut magnitude: u64, out: &mut String) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (magnitude % 10) as u8;
        magnitude /= 10;
        if magnitude == 0 {
            break;
        }
    }
    for &digit in &digits[start..] {
        out.push(char::from(digit));
    }
}

/// `text` as a JSON string, escaped exactly as `serde_json` escapes one: `"` and `\`, the short
/// escapes `\b \t \n \f \r`, every other control character as `\u00xx`, nothing else.
/// Written straight into the `String` (the output is text by construction, so it needs no UTF-8
/// check afterwards), the runs between escapes found by the parser's string search and copied
/// whole.
fn string_to(text: &str, out: &mut String) {
    out.reserve(text.len() + 2);
    out.push('"');
    let bytes = text.as_bytes();
    let mut copied = 0;
    loop {
        // The bytes a JSON string escapes: control characters, `"` and `\`.
        let at = find_in_string(bytes, copied, b'"');
        // `at` holds an ASCII byte (or is the end), so the run ends on a character boundary.
        out.push_str(&text[copied..at]);
        let Some(&byte) = bytes.get(at) else {
            break;
        };
        out.push('\\');
        match byte {
            b'"' => out.push('"'),
            b'\\' => out.push('\\'),
            0x08 => out.push('b'),
            b'\t' => out.push('t'),
            b'\n' => out.push('n'),
            0x0C => out.push('f'),
            b'\r' => out.push('r'),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("u00");
                out.push(char::from(HEX[usize::from(byte >> 4)]));
                out.push(char::from(HEX[usize::from(byte & 0xF)]));
            }
        }
        copied = at + 1;
    }
    out.push('"');
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
            json!([0.1, -2.5, 1.5e-7, 123456789.125, 1e21, 5e-324, 0, -1, 42]),
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
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut specials: Vec<char> = (0u8..0x20).map(char::from).collect();
        specials.extend(['"', '\\', '/', '\u{7f}', 'é', '€', '😀', ' ', 'a']);
        // Each one at every offset within and across the eight-byte words the writer checks.
        for special in &specials {
            for offset in 0..20 {
                let text = format!("{}{special}{}", "x".repeat(offset), "yz".repeat(offset % 7));
                let value = Value::String(text);
                assert_eq!(to_compact(&value), serde_json::to_string(&value).unwrap());
            }
        }
        // Two close together: the first one's borrow must not mark a byte after it.
        for offset in 0..12 {
            for gap in 0..10 {
                for (first, second) in [
                    ('\u{1}', '"'),
                    // A space, `#` and `]` are what a borrow would mark after a control
                    // character, a quote and a backslash.
                    ('\u{1}', ' '),
                    ('"', '#'),
                    ('\\', ']'),
                    ('"', '\\'),
                    ('\n', 'a'),
                    ('\u{1f}', '\u{0}'),
                ] {
                    let text =
                        format!("{}{first}{}{second}zz", "x".repeat(offset), "y".repeat(gap));
                    let value = Value::String(text);
                    assert_eq!(to_compact(&value), serde_json::to_string(&value).unwrap());
                }
            }
        }
        let all = Value::String(specials.iter().cycle().take(500).collect());
        assert_eq!(to_compact(&all), serde_json::to_string(&all).unwrap());
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
