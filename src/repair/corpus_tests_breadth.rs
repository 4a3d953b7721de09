//! Corpus rows for breadth: categories the published suites of other
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
fn strings_without_commas_and_ellipsis_placeholders() {
    check(COMMAS_AND_ELLIPSES);
}

#[test]
fn a_key_without_a_value_is_dropped() {
    check(MISSING_VALUES);
}

#[test]
fn number_like_words_after_a_key_are_kept_as_text() {
    check(NUMBER_LIKE_WORDS);
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

/// Strings that lack the commas between them (`missing_commas`), and ellipsis placeholders
/// for more elements or members, dropped like empty elements (`empty_elements`: nothing is
/// invented). A text that ends at or inside the ellipsis is cut off.
pub(super) const COMMAS_AND_ELLIPSES: &[Case] = &[
    ok(r#"["x" "y" "z"]"#, r#"["x", "y", "z"]"#, "missing_commas"),
    ok(
        "[\"a\" \"b\" \"c\" \"d\" \"e\"]",
        r#"["a", "b", "c", "d", "e"]"#,
        "missing_commas",
    ),
    ok(r#"["x" "y", "z"]"#, r#"["x", "y", "z"]"#, "missing_commas"),
    // A quote inside a string followed by a word is still content.
    ok(
        r#"["He said "hi" to me"]"#,
        r#"["He said \"hi\" to me"]"#,
        "inner_quotes",
    ),
    ok("[1, 2, 3, ...]", "[1, 2, 3]", "empty_elements"),
    ok("[1, 2, 3, …]", "[1, 2, 3]", "empty_elements"),
    ok("[1, ..., 5]", "[1, 5]", "empty_elements"),
    ok(r#"["a", "b", ...]"#, r#"["a", "b"]"#, "empty_elements"),
    ok(r#"{"a": 2, ...}"#, r#"{"a": 2}"#, "empty_elements"),
    ok(
        r#"{"a": 2, ..., "z": 26}"#,
        r#"{"a": 2, "z": 26}"#,
        "empty_elements",
    ),
    ok(
        "{\"steps\": [\"read\", \"plan\", ...], /* ... */ \"n\": 2}",
        r#"{"steps": ["read", "plan"], "n": 2}"#,
        "comments empty_elements",
    ),
    ok(r#"{"a": "x ... y"}"#, r#"{"a": "x ... y"}"#, ""),
    // A quoted value that runs past an inner quote: the quote is content when a word follows
    // it (`inner_quotes`); `["hello,"world"]` is one string, since the comma sits inside it.
    ok(
        r#"{"key": "v"alue"}"#,
        r#"{"key": "v\"alue"}"#,
        "inner_quotes",
    ),
    ok(
        r#"["hello,"world"]"#,
        r#"["hello,\"world"]"#,
        "inner_quotes",
    ),
    ok(
        "[1, 2, /* more */ ... /* to come */]",
        "[1, 2]",
        "comments empty_elements",
    ),
    ok("[...]", "[]", "empty_elements"),
    ok("{ ... }", "{}", "empty_elements"),
    ok("[..., 7, 8]", "[7, 8]", "empty_elements"),
    fails("[1, 2, ...", "truncated"),
    fails("[1, 2, ..", "truncated"),
    fails(r#"{"a": 1, ..."#, "truncated"),
    fails("[1, 2, .... 3]", "malformed"),
    fails("[1, ... 2]", "malformed"),
];

/// A key with no value is dropped with its key (`empty_elements`: nothing is invented, so a
/// schema that requires it re-asks); a text cut after the `:` stays truncated.
pub(super) const MISSING_VALUES: &[Case] = &[
    ok(r#"{"a":, "b": 2}"#, r#"{"b": 2}"#, "empty_elements"),
    ok(
        r#"{"key1": 1, "key3": }"#,
        r#"{"key1": 1}"#,
        "empty_elements",
    ),
    ok(r#"{"a": }"#, "{}", "empty_elements"),
    ok(
        r#"[{"a": , "b": [1]}]"#,
        r#"[{"b": [1]}]"#,
        "empty_elements",
    ),
    ok(r#"{"a": ","}"#, r#"{"a": ","}"#, ""),
    fails(r#"{"a": "#, "truncated"),
    fails(r#"{"a": , "#, "truncated"),
    fails(r#"{"a": ]"#, "malformed"),
    // A missing `:` between a quoted key and its value on its line (`missing_commas`).
    ok(
        r#"{"a": 1, "b" 2}"#,
        r#"{"a": 1, "b": 2}"#,
        "missing_commas",
    ),
    ok(
        r#"{"a": 1, "b" "x", "c" [true]}"#,
        r#"{"a": 1, "b": "x", "c": [true]}"#,
        "missing_commas",
    ),
    fails(r#"{"a": 1, "b" +2}"#, "malformed"),
    fails("{\"a\": 1, \"b\"\n2}", "malformed"),
    fails(r#"{"a" 1}"#, "prose"),
    fails(r#"{"a": 1, "b" 2"#, "truncated"),
];

/// A token after a key that starts like a number and goes on (versions, UUIDs, leading zeros,
/// units) is a bare value kept as its text (`unquoted`); nothing is guessed, so a schema that
/// wants a number makes it a re-ask. In an array it stays malformed. An incomplete number
/// (`1.`, `1e`, `-`) before a closer is completed (`numbers`, in `corpus_tests_breadth_more`).
pub(super) const NUMBER_LIKE_WORDS: &[Case] = &[
    ok(
        r#"{"version": 0.0.1}"#,
        r#"{"version": "0.0.1"}"#,
        "unquoted",
    ),
    ok(r#"{"zip": 0789}"#, r#"{"zip": "0789"}"#, "unquoted"),
    ok(
        r#"{"id": 123e4567-e89b-12d3-a456-426614174000, "n": 1}"#,
        r#"{"id": "123e4567-e89b-12d3-a456-426614174000", "n": 1}"#,
        "unquoted",
    ),
    ok(r#"{"w": 12px}"#, r#"{"w": "12px"}"#, "unquoted"),
    ok(r#"{"n": 1_000}"#, r#"{"n": "1_000"}"#, "unquoted"),
    ok(r#"{"n": 12.5}"#, r#"{"n": 12.5}"#, ""),
    fails(r#"{"version": 0.0.1"#, "truncated"),
    fails("[0.0.1]", "malformed"),
    ok(r#"{"a": 1.x}"#, r#"{"a": "1.x"}"#, "unquoted"),
    fails("[1.x]", "malformed"),
];

/// Every table of this module, for `corpus_tests::every_row`.
pub(super) const ALL_BREADTH: &[&[Case]] = &[
    CLOSE_QUOTE,
    LITERAL_CASES,
    COMMAS_AND_ELLIPSES,
    MISSING_VALUES,
    NUMBER_LIKE_WORDS,
];
