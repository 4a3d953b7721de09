//! Corpus rows for the gaps a review found between the ladder and how small models really
//! break JSON: documents written with escaped quotes, Unicode spaces between tokens, raw line
//! breaks in keys, and a forgotten closer followed by prose. Every row failed (or was classed
//! differently) before the fix it names. Checked by `corpus_tests::check`, ladder honesty
//! included.

use super::corpus_tests::{Case, check, fails, ok};

/// Every row of this file, for the corpus-wide checks.
pub(super) const ALL_GAPS: &[&[Case]] = &[KEYS_WITH_LINE_BREAKS, UNICODE_SPACES];

/// A raw line break or tab inside a key is escaped by `control_chars`, as in a value; the key
/// must still be found when it is the document's first.
const KEYS_WITH_LINE_BREAKS: &[Case] = &[
    ok("{\"a\nb\": 1}", r#"{"a\nb": 1}"#, "control_chars"),
    ok("{'a\nb': 1}", r#"{"a\nb": 1}"#, "quotes control_chars"),
    ok(
        "Result: {\"line one\nline two\": 1}",
        r#"{"line one\nline two": 1}"#,
        "extract control_chars",
    ),
    ok(
        "{\"first\r\nname\": \"Ada\", \"n\": 1}",
        r#"{"first\r\nname": "Ada", "n": 1}"#,
        "control_chars",
    ),
    ok("[{\"a\nb\": 1}]", r#"[{"a\nb": 1}]"#, "control_chars"),
    ok(
        "{“a\nb”: 1}",
        r#"{"a\nb": 1}"#,
        "smart_quotes control_chars",
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
