//! Corpus rows for the breadth of issue 14: categories the published suites of other
//! repairers cover, decided here on their merits for model output. Rows are our own data; each
//! category has its positive rows and the rows on the other side of its rule.

use super::corpus_tests::{Case, check, fails, ok};

/// A missing closing quote (`close_quote`): the text ends with exactly the closers the open
/// containers need, so the model forgot the quote. A text that really ends inside a string
/// stays truncated.
pub(super) const CLOSE_QUOTE: &[Case] = &[
    ok(r#"{"a":"b}"#, r#"{"a": "b"}"#, "close_quote"),
    ok(r#"["abc]"#, r#"["abc"]"#, "close_quote"),
    ok(
        r#"{"url":"https://x.com/}"#,
        r#"{"url": "https://x.com/"}"#,
        "close_quote",
    ),
    ok(r#"{"time":"12:20}"#, r#"{"time": "12:20"}"#, "close_quote"),
    ok(
        r#"["This is C(2)", "This is F(3)]"#,
        r#"["This is C(2)", "This is F(3)"]"#,
        "close_quote",
    ),
    ok(
        r#"{"a": "first, b: 1}"#,
        r#"{"a": "first, b: 1"}"#,
        "close_quote",
    ),
    ok(r#"{"a": ["x", "y]}"#, r#"{"a": ["x", "y"]}"#, "close_quote"),
    ok(
        "{\"a\": \"b\" ,\n \"c\": \"d  \n}\n",
        r#"{"a": "b", "c": "d"}"#,
        "close_quote",
    ),
    ok(r#"{'a': 'b}"#, r#"{"a": "b"}"#, "quotes close_quote"),
    ok(
        "{\"a\": \"x\ty}",
        r#"{"a": "x\ty"}"#,
        "control_chars close_quote",
    ),
    ok(r#"{"a": "x\"}"#, r#"{"a": "x\""}"#, "close_quote"),
    // The other side: cut inside the string.
    fails(r#"{"a": "hello wor"#, "truncated"),
    fails(r#"["abc"#, "truncated"),
    fails(r#"{"a": "b]"#, "truncated"),
    fails(r#"{"a": ["x", "y}"#, "truncated"),
    fails(r#"{"a": ["x", "y]"#, "truncated"),
    fails(r#"{"code": "f() {}"#, "truncated"),
    fails(r#"{"list": "[1, 2]"#, "truncated"),
    fails(r#"{"a}"#, "truncated"),
    fails("```json\n{\"a\": \"unterminated\n```", "truncated"),
];

#[test]
fn literals_in_any_case_and_non_finite_spellings() {
    check(LITERAL_CASES);
}

#[test]
fn a_missing_closing_quote_is_supplied_and_a_cut_string_stays_truncated() {
    check(CLOSE_QUOTE);
}

/// Literals in another case and non-finite spellings: `TRUE`, `Null` (`python_bools`);
/// `nan`, `inf`, `-Infinity` in any case (`non_finite`, null). Inside strings they stay content;
/// lower-case `none` is a word, not Python's `None`.
pub(super) const LITERAL_CASES: &[Case] = &[
    ok(
        r#"{"a": TRUE, "b": FALSE, "c": Null}"#,
        r#"{"a": true, "b": false, "c": null}"#,
        "python_bools",
    ),
    ok("[TRUE, fAlSe, NULL]", "[true, false, null]", "python_bools"),
    ok(r#"{"a": nan}"#, r#"{"a": null}"#, "non_finite"),
    ok(
        "[nan, NAN, inf, -inf, INFINITY, -infinity]",
        "[null, null, null, null, null, null]",
        "non_finite",
    ),
    ok(
        r#"{"a": "TRUE", "b": "nan"}"#,
        r#"{"a": "TRUE", "b": "nan"}"#,
        "",
    ),
    ok(r#"{"a": none}"#, r#"{"a": "none"}"#, "unquoted"),
    ok(r#"{"a": nano}"#, r#"{"a": "nano"}"#, "unquoted"),
    ok(
        r#"{"a": TRUE "b": 1}"#,
        r#"{"a": true, "b": 1}"#,
        "missing_commas python_bools",
    ),
    fails(r#"{"a": TRU"#, "truncated"),
    fails("[1, inf", "truncated"),
    fails("[1, -in", "truncated"),
    fails(r#"{"a": -INF"#, "truncated"),
    ok("[1, nan", "[1, null]", "non_finite close_braces"),
    fails(r#"{"x": [infinite]}"#, "malformed"),
];

/// Every table of this module, for `corpus_tests::every_row`.
pub(super) const ALL_BREADTH: &[&[Case]] = &[CLOSE_QUOTE, LITERAL_CASES];
