//! Corpus rows for the looser fixes: missing commas, empty elements, inner quotes, escapes,
//! Python literals, control characters and missing closers. The checks are in `corpus_tests`.

use super::corpus_tests::{Case, check, ok};

pub(super) const LOOSER: &[Case] = &[
    // missing_commas
    ok(
        "{\"a\": 1 \"b\": 2}",
        r#"{"a": 1, "b": 2}"#,
        "missing_commas",
    ),
    ok(
        "{\n  \"a\": \"x\"\n  \"b\": \"y\"\n}",
        r#"{"a": "x", "b": "y"}"#,
        "missing_commas",
    ),
    ok("[1 2 3]", "[1, 2, 3]", "missing_commas"),
    ok(
        "[{\"a\": 1} {\"a\": 2}]",
        r#"[{"a": 1}, {"a": 2}]"#,
        "missing_commas",
    ),
    ok("[\"a\" \"b\"]", r#"["a", "b"]"#, "missing_commas"),
    ok(
        "{\"a\": [1] \"b\": {}}",
        r#"{"a": [1], "b": {}}"#,
        "missing_commas",
    ),
    ok(
        "{\"a\": true\n b: false}",
        r#"{"a": true, "b": false}"#,
        "unquoted missing_commas",
    ),
    ok("[true false null]", "[true, false, null]", "missing_commas"),
    // empty_elements
    ok("[1,,2]", "[1, 2]", "empty_elements"),
    ok("[,1]", "[1]", "empty_elements"),
    ok(
        "{\"a\": 1,, \"b\": 2}",
        r#"{"a": 1, "b": 2}"#,
        "empty_elements",
    ),
    ok("{, \"a\": 1}", r#"{"a": 1}"#, "empty_elements"),
    ok("[1,,]", "[1]", "trailing_comma empty_elements"),
    // inner_quotes
    ok(
        r#"{"q": "He said "hello" to me"}"#,
        r#"{"q": "He said \"hello\" to me"}"#,
        "inner_quotes",
    ),
    ok(
        r#"{"title": "The "best" plan", "n": 1}"#,
        r#"{"title": "The \"best\" plan", "n": 1}"#,
        "inner_quotes",
    ),
    ok(
        r#"{"a": "x "y" z"}"#,
        r#"{"a": "x \"y\" z"}"#,
        "inner_quotes",
    ),
    ok(
        r#"["a "b" c", "d"]"#,
        r#"["a \"b\" c", "d"]"#,
        "inner_quotes",
    ),
    ok(
        r#"{"t": "He said "hi", then left", "n": 1}"#,
        r#"{"t": "He said \"hi\", then left", "n": 1}"#,
        "inner_quotes",
    ),
    ok(
        r#"{"key "with" quotes": 1}"#,
        r#"{"key \"with\" quotes": 1}"#,
        "inner_quotes",
    ),
    ok(
        r#"{"a": "5" inches"}"#,
        r#"{"a": "5\" inches"}"#,
        "inner_quotes",
    ),
    ok(
        "{\"a\": \"x\" \"b\": \"y\"}",
        r#"{"a": "x", "b": "y"}"#,
        "missing_commas",
    ),
    // escapes
    ok(
        r#"{"re": "\d+\.\d+"}"#,
        r#"{"re": "\\d+\\.\\d+"}"#,
        "escapes",
    ),
    ok(
        r#"{"p": "C:\Users\me"}"#,
        r#"{"p": "C:\\Users\\me"}"#,
        "escapes",
    ),
    ok(r#"{"a": "\ud800"}"#, r#"{"a": "\ufffd"}"#, "escapes"),
    ok(r#"{"a": "\udc00x"}"#, r#"{"a": "\ufffdx"}"#, "escapes"),
    ok(r#"{"a": "\ud800\u0041"}"#, r#"{"a": "\ufffdA"}"#, "escapes"),
    ok(r#"{"a": "it\'s"}"#, r#"{"a": "it's"}"#, "escapes"),
    ok(r#"{"a": "\u12G4"}"#, r#"{"a": "\\u12G4"}"#, "escapes"),
    ok(r#"{"a": "\x41"}"#, r#"{"a": "\\x41"}"#, "escapes"),
    // python_bools
    ok(
        "{\"a\": True, \"b\": False, \"c\": None}",
        r#"{"a": true, "b": false, "c": null}"#,
        "python_bools",
    ),
    ok("[True, None]", "[true, null]", "python_bools"),
    ok("{'ok': True}", r#"{"ok": true}"#, "quotes python_bools"),
    ok(
        "{\"s\": \"True or None\", \"b\": False}",
        r#"{"s": "True or None", "b": false}"#,
        "python_bools",
    ),
    ok("{\"True\": True}", r#"{"True": true}"#, "python_bools"),
    ok(
        "{'a': [True, False], 'b': None,}",
        r#"{"a": [true, false], "b": null}"#,
        "trailing_comma quotes python_bools",
    ),
    // control_chars
    ok(
        "{\"a\": \"line one\nline two\"}",
        r#"{"a": "line one\nline two"}"#,
        "control_chars",
    ),
    ok(
        "{\"a\": \"tab\there\"}",
        r#"{"a": "tab\there"}"#,
        "control_chars",
    ),
    ok(
        "{\"code\": \"fn main() {\n    println!(\\\"hi\\\");\n}\"}",
        r#"{"code": "fn main() {\n    println!(\"hi\");\n}"}"#,
        "control_chars",
    ),
    ok(
        "{\"a\": \"nul\u{0}byte\"}",
        r#"{"a": "nul\u0000byte"}"#,
        "control_chars",
    ),
    ok(
        "{'a': 'multi\nline'}",
        r#"{"a": "multi\nline"}"#,
        "quotes control_chars",
    ),
    ok("{\"a\": \"x\r\ny\"}", r#"{"a": "x\r\ny"}"#, "control_chars"),
    // close_braces: missing closers after a complete final value.
    ok(
        "{\"a\": 1, \"b\": \"two\"",
        r#"{"a": 1, "b": "two"}"#,
        "close_braces",
    ),
    ok("{\"a\": [1, 2]", r#"{"a": [1, 2]}"#, "close_braces"),
    ok(
        "{\"a\": {\"b\": true",
        r#"{"a": {"b": true}}"#,
        "close_braces",
    ),
    ok(
        "```json\n{\"a\": 1\n```",
        r#"{"a": 1}"#,
        "fence close_braces",
    ),
    ok("```json\n{\"a\": 1```", r#"{"a": 1}"#, "fence close_braces"),
    ok("{\"a\": [1, 2}", r#"{"a": [1, 2]}"#, "close_braces"),
    ok("[{\"a\": 1]", r#"[{"a": 1}]"#, "close_braces"),
    ok("{\"a\": 1]", r#"{"a": 1}"#, "close_braces"),
    ok(
        "{\"a\": null<|im_end|>",
        r#"{"a": null}"#,
        "extract close_braces",
    ),
    ok(
        "{\"a\": [\"x\", {\"b\": \"y\"}",
        r#"{"a": ["x", {"b": "y"}]}"#,
        "close_braces",
    ),
    ok(
        "{\"items\": [1, 2] ",
        r#"{"items": [1, 2]}"#,
        "close_braces",
    ),
];

#[test]
fn looser_fixes() {
    check(LOOSER);
}
