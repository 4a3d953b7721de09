//! Corpus rows for the gaps a review found between the ladder and how small models really
//! break JSON: documents written with escaped quotes, Unicode spaces between tokens, raw line
//! breaks in keys, and a forgotten closer followed by prose. Every row failed (or was classed
//! differently) before the fix it names. Checked by `corpus_tests::check`, ladder honesty
//! included.

use super::corpus_tests::{Case, check, fails, ok};

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
