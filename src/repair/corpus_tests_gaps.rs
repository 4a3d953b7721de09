//! Corpus rows for the gaps a review found between the ladder and how small models really
//! break JSON: documents written with escaped quotes, Unicode spaces between tokens, raw line
//! breaks in keys, and a forgotten closer followed by prose. Every row failed (or was classed
//! differently) before the fix it names. Checked by `corpus_tests::check`, ladder honesty
//! included.

use super::corpus_tests::{Case, check, fails, ok};

/// Every row of this file, for the corpus-wide checks.
pub(super) const ALL_GAPS: &[&[Case]] = &[
    ESCAPED_DOCUMENTS,
    KEYS_WITH_LINE_BREAKS,
    UNICODE_SPACES,
    PROSE_AFTER_VALUE,
];

/// A whole document written with escaped quotes and no outer quotes (what a model writes
/// after seeing JSON inside a JSON string) is unescaped by `escapes`, as often as it takes;
/// ordinary escapes inside ordinary strings are left alone.
const ESCAPED_DOCUMENTS: &[Case] = &[
    ok(
        r#"{\"a\": \"b\", \"n\": 1}"#,
        r#"{"a": "b", "n": 1}"#,
        "escapes",
    ),
    ok(
        "```json\n{\\\"a\\\": \\\"b\\\", \\\"n\\\": 1}\n```",
        r#"{"a": "b", "n": 1}"#,
        "fence escapes",
    ),
    ok(r#"[{\"a\": 1}]"#, r#"[{"a": 1}]"#, "escapes"),
    ok(
        r#"[\"src/a.rs\", \"src/b.rs\"]"#,
        r#"["src/a.rs", "src/b.rs"]"#,
        "escapes",
    ),
    ok(r#"{\\"a\\": 1}"#, r#"{"a": 1}"#, "escapes"),
    ok(r#"{\\\"a\\\": [\\\"x\\\"]}"#, r#"{"a": ["x"]}"#, "escapes"),
    ok(
        r#"[{\"a\": 1},]"#,
        r#"[{"a": 1}]"#,
        "trailing_comma escapes",
    ),
    ok(
        r#"{\n  \"title\": \"Plan\",\n  \"steps\": [\"read\", \"write\"]\n}"#,
        r#"{"title": "Plan", "steps": ["read", "write"]}"#,
        "escapes",
    ),
    ok(
        r#"{\"q\": \"say \\\"hi\\\"\", \"path\": \"C:\\\\tmp\", \"e\": \"\\u00e9\"}"#,
        r#"{"q": "say \"hi\"", "path": "C:\\tmp", "e": "é"}"#,
        "escapes",
    ),
    ok(
        r#"{\"text\": \"line one\\nline two\"}"#,
        r#"{"text": "line one\nline two"}"#,
        "escapes",
    ),
    ok(
        r#"The result is "{\"a\": 1, \"ok\": true}"."#,
        r#"{"a": 1, "ok": true}"#,
        "extract escapes",
    ),
    ok(r#"{\"a\": 1}\n"#, r#"{"a": 1}"#, "escapes"),
    ok(
        r#"{\"done\": True, \"items\": [\"a\",]}"#,
        r#"{"done": true, "items": ["a"]}"#,
        "trailing_comma escapes python_bools",
    ),
    ok(
        "{\\\"a\\\": 1, \\\"b\\\": [1, 2]\n\nThat is the answer.",
        r#"{"a": 1, "b": [1, 2]}"#,
        "extract escapes close_braces",
    ),
    // Ordinary strings keep their escapes: the document is readable as written.
    ok(r#"{"s": "{\"a\": 1}"}"#, r#"{"s": "{\"a\": 1}"}"#, ""),
    ok(
        r#"{"s": "{\"a\": 1}",}"#,
        r#"{"s": "{\"a\": 1}"}"#,
        "trailing_comma",
    ),
    ok(
        r#"Use {"a": "[\"x\"]"} here"#,
        r#"{"a": "[\"x\"]"}"#,
        "extract",
    ),
    ok(r#"[\"'] matches a quote; [1]"#, "[1]", "extract"),
    // Cut off inside the escaped document: truncated, like any other.
    fails(r#"{\"a\": \"b"#, "truncated"),
    fails(r#"[{\"a\": 1}, {\"b\""#, "truncated"),
    fails(r#"{\"a\": 1, \"b\": 2"#, "truncated"),
];

#[test]
fn escaped_documents() {
    check(ESCAPED_DOCUMENTS);
}

/// A raw line break inside a key is the model breaking the line (`control_chars`): it goes,
/// with the indentation after it, in a one-word key, and becomes a space in a phrase; a tab
/// stays (escaped), and a line break in a value is content. The key must still be found when
/// it is the document's first.
const KEYS_WITH_LINE_BREAKS: &[Case] = &[
    ok("{\"a\nb\": 1}", r#"{"ab": 1}"#, "control_chars"),
    ok("{'a\nb': 1}", r#"{"ab": 1}"#, "quotes control_chars"),
    ok(
        "Result: {\"line one\nline two\": 1}",
        r#"{"line one line two": 1}"#,
        "extract control_chars",
    ),
    ok(
        "{\"first\r\nname\": \"Ada\", \"n\": 1}",
        r#"{"firstname": "Ada", "n": 1}"#,
        "control_chars",
    ),
    ok("[{\"a\nb\": 1}]", r#"[{"ab": 1}]"#, "control_chars"),
    ok("{“a\nb”: 1}", r#"{"ab": 1}"#, "smart_quotes control_chars"),
    ok("{\"na\n    me\": 1}", r#"{"name": 1}"#, "control_chars"),
    ok("{\"a\tb\": 1}", r#"{"a\tb": 1}"#, "control_chars"),
    ok(
        "{\"na\nme\": \"x\ny\"}",
        r#"{"name": "x\ny"}"#,
        "control_chars",
    ),
    // Past a line break, the first quote must end the key: this is prose.
    fails("Use {\" to open\nand \"key\" to name it.", "prose"),
];

#[test]
fn keys_with_line_breaks() {
    check(KEYS_WITH_LINE_BREAKS);
}

/// Unicode spaces between tokens are spacing (`unicode_spaces`); inside strings they are
/// content, and a number they follow at the very end may still go on.
const UNICODE_SPACES: &[Case] = &[
    ok("{\"a\":\u{a0}1}", r#"{"a": 1}"#, "unicode_spaces"),
    ok(
        "{\"a\": 1,\u{2003}\"b\": 2}",
        r#"{"a": 1, "b": 2}"#,
        "unicode_spaces",
    ),
    ok(
        "{\u{3000}\"名前\"\u{3000}:\u{3000}\"太郎\"\u{3000}}",
        r#"{"名前": "太郎"}"#,
        "unicode_spaces",
    ),
    ok(
        "{\"a\": 1,\u{feff}\"b\": 2}",
        r#"{"a": 1, "b": 2}"#,
        "unicode_spaces",
    ),
    ok("[1,\u{200b}2]", "[1, 2]", "unicode_spaces"),
    ok(
        "{\n\u{a0}\u{a0}\"steps\": [\n\u{a0}\u{a0}\u{a0}\u{a0}\"read\"\n\u{a0}\u{a0}]\n}",
        r#"{"steps": ["read"]}"#,
        "unicode_spaces",
    ),
    ok("\u{a0}{\"a\": 1}\u{2028}", r#"{"a": 1}"#, "unicode_spaces"),
    ok(
        "```json\n{\"a\": 1}\u{a0}\n```",
        r#"{"a": 1}"#,
        "fence unicode_spaces",
    ),
    ok(
        "{\"s\": \"no\u{a0}break and\u{200b}zero width\"}x",
        "{\"s\": \"no\u{a0}break and\u{200b}zero width\"}",
        "extract",
    ),
    ok(
        "{\"a\":\u{a0}True}",
        r#"{"a": true}"#,
        "unicode_spaces python_bools",
    ),
    ok(
        "{a\u{a0}: ok\u{a0}}",
        r#"{"a": "ok"}"#,
        "unicode_spaces unquoted",
    ),
    ok(
        "{\"q\":\u{a0}\"He said \"hi\"\u{a0}to me\"}",
        r#"{"q": "He said \"hi\"\u00a0to me"}"#,
        "unicode_spaces inner_quotes",
    ),
    ok(
        "{\"a\": \"x\"\u{a0}\"b\": 2}",
        r#"{"a": "x", "b": 2}"#,
        "unicode_spaces missing_commas",
    ),
    fails("[1, 2\u{a0}", "truncated"),
    fails("{\"a\":\u{3000}", "truncated"),
    fails("\u{a0}\u{200b}\u{3000}", "empty"),
];

#[test]
fn unicode_spaces() {
    check(UNICODE_SPACES);
}

#[test]
fn an_answer_of_only_unicode_spaces_is_empty() {
    use super::{FailureClass, RepairOptions, repair};
    for text in ["\u{a0}", "\u{200b}\u{feff}", " \u{3000}\n", "\u{c}"] {
        let failure = repair(text, &RepairOptions::new()).unwrap_err();
        assert_eq!(failure.class, FailureClass::Empty, "{text:?}");
        assert_eq!(failure.message, "the input is empty", "{text:?}");
    }
}

/// A forgotten closer followed, on a later line, by prose: the final value is complete, so
/// `close_braces` supplies the closers and `extract` drops the prose. What the issue calls
/// truncated stays truncated.
const PROSE_AFTER_VALUE: &[Case] = &[
    ok(
        "[\"a\", \"b\"\n\nThese are the files I found.",
        r#"["a", "b"]"#,
        "extract close_braces",
    ),
    ok(
        "{\"files\": [\"src/main.rs\", \"src/lib.rs\"\n\nThese are the files I found.",
        r#"{"files": ["src/main.rs", "src/lib.rs"]}"#,
        "extract close_braces",
    ),
    ok(
        "{\"a\": 1\n\nThat is all.",
        r#"{"a": 1}"#,
        "extract close_braces",
    ),
    // A number followed by prose is complete; only one at the very end may go on.
    ok(
        "[1, 2, 3\n\nThese are the numbers.",
        "[1, 2, 3]",
        "extract close_braces",
    ),
    ok(
        "{\"verdict\": \"approve\"\nNote: I checked every file.",
        r#"{"verdict": "approve"}"#,
        "extract close_braces",
    ),
    ok(
        "[null, 1\nNone of these are strings.",
        "[null, 1]",
        "extract close_braces",
    ),
    ok(
        "{'done': True\n\nLet me know if you need more.",
        r#"{"done": true}"#,
        "extract quotes python_bools close_braces",
    ),
    ok(
        "[\"a\", \"b\"\n\n- a.rs is the entry point\n- b.rs is a helper",
        r#"["a", "b"]"#,
        "extract close_braces",
    ),
    ok(
        "[1, 2\n\n1. The first number\n2. The second",
        "[1, 2]",
        "extract close_braces",
    ),
    ok(
        "[\"a.rs\", \"b.rs\"\n\n1. a.rs is the entry point",
        r#"["a.rs", "b.rs"]"#,
        "extract close_braces",
    ),
    ok(
        "{\"a\": 1,\n\"b\": [1, 2\n\nThat is all.",
        r#"{"a": 1, "b": [1, 2]}"#,
        "extract close_braces",
    ),
    ok(
        "<|im_start|>assistant\n[\"a\", \"b\"\n\nThese are the files.<|im_end|>",
        r#"["a", "b"]"#,
        "extract close_braces",
    ),
    ok(
        "[\"a\", \"b\"\r\n\r\nThese are the files.",
        r#"["a", "b"]"#,
        "extract close_braces",
    ),
    ok(
        "{\"a\": \"b\"\n\n**Done.**",
        r#"{"a": "b"}"#,
        "extract close_braces",
    ),
    ok(
        "{\"a\": {\"b\": [1]\n\n以上です。",
        r#"{"a": {"b": [1]}}"#,
        "extract close_braces",
    ),
    ok(
        "```json\n[\"a\", \"b\"\n\nThese are the files.\n```",
        r#"["a", "b"]"#,
        "fence extract close_braces",
    ),
    ok(
        "Here you go:\n[\"a\", \"b\"\n\nThese are \"all\" the files.",
        r#"["a", "b"]"#,
        "extract close_braces",
    ),
    // A missing comma before the next member on a later line is still a missing comma.
    ok(
        "{\"a\": 1\nb: 2}",
        r#"{"a": 1, "b": 2}"#,
        "unquoted missing_commas",
    ),
    ok("[true\nfalse]", "[true, false]", "missing_commas"),
    // Still truncated: a cut-off string (whose quotes close nothing before prose), a value
    // cut after `,` or `:`, a number at the very end.
    fails("{\"q\": \"He said \"hi\" to me\n\nand left", "truncated"),
    fails(
        "[\"a\", \"b\",\n\nThese are the files I found.",
        "truncated",
    ),
    fails("[1, 2, 3\n\n", "truncated"),
    fails("{\"a\": \"b\nThese are", "truncated"),
    // Prose on the same line does not end the document: after a number it stays malformed,
    // after a string the quote is content and the string is cut off.
    fails("{\"a\": 1 xyz}", "malformed"),
    fails("[\"a\", \"b\" These are the files.", "truncated"),
];

#[test]
fn prose_after_a_forgotten_closer() {
    check(PROSE_AFTER_VALUE);
}
