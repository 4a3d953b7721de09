//! More corpus rows for the breadth of other repairers' published suites, decided on their
//! merits for model output: tuples, string concatenation, fullwidth punctuation, values of
//! several words, incomplete numbers. Each category has its positive rows and the rows on the
//! other side of its rule (a text that really ends inside a value stays truncated).

use super::corpus_tests::{Case, check, fails, ok};

#[test]
fn tuples_become_arrays_inside_a_document() {
    check(TUPLES);
}

#[test]
fn concatenated_strings_become_one() {
    check(CONCATENATION);
}

#[test]
fn fullwidth_punctuation_is_syntax_outside_strings_and_content_inside() {
    check(FULLWIDTH);
}

#[test]
fn bare_values_of_several_words_and_unquoted_tokens() {
    check(BARE_VALUES);
}

#[test]
fn several_top_level_values_keep_the_first() {
    check(SEVERAL_VALUES);
}

#[test]
fn incomplete_numbers_before_a_closer_are_completed() {
    check(INCOMPLETE_NUMBERS);
}

/// A parenthesized tuple inside a document is an array (`tuples`); a top-level tuple is not a
/// document, and parentheses around words are not a tuple.
pub(super) const TUPLES: &[Case] = &[
    ok(r#"{"point": (1, 2)}"#, r#"{"point": [1, 2]}"#, "tuples"),
    ok(
        r#"[(1, "a"), (2, "b")]"#,
        r#"[[1, "a"], [2, "b"]]"#,
        "tuples",
    ),
    ok(r#"{"a": ()}"#, r#"{"a": []}"#, "tuples"),
    ok(
        r#"{"a": (1, 2,)}"#,
        r#"{"a": [1, 2]}"#,
        "trailing_comma tuples",
    ),
    ok(
        r#"{"a": (1, 2]}"#,
        r#"{"a": [1, 2]}"#,
        "tuples close_braces",
    ),
    ok(
        r#"{"s": "f(x)", "t": ((1, 2), "x")}"#,
        r#"{"s": "f(x)", "t": [[1, 2], "x"]}"#,
        "tuples",
    ),
    ok(r#"{"s": "(1, 2)"}"#, r#"{"s": "(1, 2)"}"#, ""),
    // `(1)` is a parenthesized value, as Python reads it; `(1,)` is a tuple.
    ok(
        r#"{"a": (1), "b": ("x")}"#,
        r#"{"a": 1, "b": "x"}"#,
        "tuples",
    ),
    ok(r#"{"a": (1,)}"#, r#"{"a": [1]}"#, "trailing_comma tuples"),
    ok(r#"{"a": ["x", "y)"]}"#, r#"{"a": ["x", "y)"]}"#, ""),
    fails(r#"{"a": (1, 2"#, "truncated"),
    fails(r#"{"a": ("x", "y"#, "truncated"),
    fails("(1, 2)", "prose"),
    fails(r#"{"a": (see below)}"#, "malformed"),
];

/// `"a" + "b"` is the string `"ab"` (`concatenation`), across lines too; a `+` inside a string
/// is content, and a text that ends after the `+` is cut off.
pub(super) const CONCATENATION: &[Case] = &[
    ok(r#"{"a": "x" + "y"}"#, r#"{"a": "xy"}"#, "concatenation"),
    ok(
        r#"{"msg": "Hello, " + "world" + "!", "n": 1}"#,
        r#"{"msg": "Hello, world!", "n": 1}"#,
        "concatenation",
    ),
    ok(r#"["a" + "b", "c"]"#, r#"["ab", "c"]"#, "concatenation"),
    ok(
        "{\"a\": \"line one \" +\n  \"line two\"}",
        r#"{"a": "line one line two"}"#,
        "concatenation",
    ),
    ok(
        r#"{'a': 'x' + "y"}"#,
        r#"{"a": "xy"}"#,
        "quotes concatenation",
    ),
    ok(r#"{"a": "x + y"}"#, r#"{"a": "x + y"}"#, ""),
    ok(r#"{"a": "1" , "b": 2}"#, r#"{"a": "1", "b": 2}"#, ""),
    fails(r#"{"a": "x" +"#, "truncated"),
    fails(r#"{"a": "x" + "y"#, "truncated"),
    fails(r#"{"a": 1, "b" +2}"#, "malformed"),
];

/// Fullwidth punctuation between tokens is syntax (`fullwidth`); inside a string it is content,
/// also when the document needs other rungs.
pub(super) const FULLWIDTH: &[Case] = &[
    ok(r#"{"a"：1，"b"：2}"#, r#"{"a": 1, "b": 2}"#, "fullwidth"),
    ok(r#"｛"a": 1｝"#, r#"{"a": 1}"#, "fullwidth"),
    ok(r#"{"a": ［1，2］}"#, r#"{"a": [1, 2]}"#, "fullwidth"),
    ok(
        r#"｛"名前"：＂太郎，花子＂｝"#,
        r#"{"名前": "太郎，花子"}"#,
        "fullwidth",
    ),
    ok(r#"{'a'：'x，y'}"#, r#"{"a": "x，y"}"#, "quotes fullwidth"),
    ok(
        r#"{"a": "x"，"b": 2}"#,
        r#"{"a": "x", "b": 2}"#,
        "fullwidth",
    ),
    ok(r#"回答：{"a": "是，的"}"#, r#"{"a": "是，的"}"#, "extract"),
    ok(
        r#"{"a": "你好，世界：是的"}"#,
        r#"{"a": "你好，世界：是的"}"#,
        "",
    ),
    ok(
        r#"{"a": "你好，世界", }"#,
        r#"{"a": "你好，世界"}"#,
        "trailing_comma",
    ),
    fails(r#"{"a"：1，"b"："#, "truncated"),
    fails(r#"｛"a"：＂你好"#, "truncated"),
];

/// A bare value after a key runs over the words on its line up to `,`, `}`, `]`, a quote, a
/// comment or the next key (`unquoted`); URLs, paths, versions and UUIDs are kept as their
/// text. In an array bare words stay malformed; a text that ends inside one is cut off.
pub(super) const BARE_VALUES: &[Case] = &[
    ok(
        "{greeting: hello world}",
        r#"{"greeting": "hello world"}"#,
        "unquoted",
    ),
    ok(
        r#"{"name": John Smith, "age": 30}"#,
        r#"{"name": "John Smith", "age": 30}"#,
        "unquoted",
    ),
    ok(
        r#"{"a": two words "b": 1}"#,
        r#"{"a": "two words", "b": 1}"#,
        "unquoted missing_commas",
    ),
    ok(
        r#"{"a": ok b: 1}"#,
        r#"{"a": "ok", "b": 1}"#,
        "unquoted missing_commas",
    ),
    ok(
        "{\"a\": hello world // note\n}",
        r#"{"a": "hello world"}"#,
        "comments unquoted",
    ),
    ok(
        r#"{"path": /usr/local/bin, "n": 1}"#,
        r#"{"path": "/usr/local/bin", "n": 1}"#,
        "unquoted",
    ),
    ok(
        r#"{"url": https://example.com/a?b=1&c=2}"#,
        r#"{"url": "https://example.com/a?b=1&c=2"}"#,
        "unquoted",
    ),
    ok(
        r#"{"path": ./src/main.rs}"#,
        r#"{"path": "./src/main.rs"}"#,
        "unquoted",
    ),
    ok(r#"{"v": 1.2.3-beta}"#, r#"{"v": "1.2.3-beta"}"#, "unquoted"),
    ok(
        r#"{"id": 550e8400-e29b-41d4-a716-446655440000}"#,
        r#"{"id": "550e8400-e29b-41d4-a716-446655440000"}"#,
        "unquoted",
    ),
    ok(r#"{"n": 1_000_000}"#, r#"{"n": "1_000_000"}"#, "unquoted"),
    ok(r#"{"n": 0789}"#, r#"{"n": "0789"}"#, "unquoted"),
    ok(
        r#"{"row": 57eeeeb1-450b-482c-81b9-4be77e95dee2}"#,
        r#"{"row": "57eeeeb1-450b-482c-81b9-4be77e95dee2"}"#,
        "unquoted",
    ),
    ok(
        r#"{"date": 2024-10-18T18:35:22.229Z, "ratio": 1/3}"#,
        r#"{"date": "2024-10-18T18:35:22.229Z", "ratio": "1/3"}"#,
        "unquoted",
    ),
    fails("[2024-10-18T18:35:22Z]", "malformed"),
    fails("{greeting: hello wor", "truncated"),
    fails(
        "{\n  \"firstName\": \"John\"\n  lastName: Smith",
        "truncated",
    ),
    ok(
        "{\"verdict\": \"approve\"\nNote: I checked every file.",
        r#"{"verdict": "approve"}"#,
        "extract close_braces",
    ),
    fails(r#"{"url": https://exa"#, "truncated"),
    fails(r#"{"a": [hello world]}"#, "malformed"),
];

/// An incomplete number before a separator or closer (`numbers`): `1.` is `1.0`, `1e` and
/// `2.5e+` lose their exponent, a lone `-` is `null`. At the end of the text it may go on.
pub(super) const INCOMPLETE_NUMBERS: &[Case] = &[
    ok(r#"{"a": 1.}"#, r#"{"a": 1.0}"#, "numbers"),
    ok(r#"{"a": 1e}"#, r#"{"a": 1.0}"#, "numbers"),
    ok(
        r#"{"a": 2.5e+, "b": 1}"#,
        r#"{"a": 2.5, "b": 1}"#,
        "numbers",
    ),
    ok(r#"{"a": -}"#, r#"{"a": null}"#, "numbers"),
    ok("[1., 2]", "[1.0, 2]", "numbers"),
    ok("[1e , 2]", "[1.0, 2]", "numbers"),
    ok(
        r#"{"a": (1., -)}"#,
        r#"{"a": [1.0, null]}"#,
        "numbers tuples",
    ),
    fails(r#"{"a": 1."#, "truncated"),
    fails("{\"a\": 1. \n", "truncated"),
    fails("[1e", "truncated"),
    fails("[-", "truncated"),
    ok(r#"{"key": .25}"#, r#"{"key": 0.25}"#, "numbers"),
    fails(r#"{"key": .25"#, "truncated"),
    fails("[1.e5]", "malformed"),
    fails("[.5x]", "prose"),
];

/// Several top-level values (NDJSON, `{...}, {...}`, two fenced blocks): without a schema the
/// first is kept and the rest dropped (`extract`, or `fence`; the report counts them, see
/// `several.rs` for the schema's choice). A later value cut off is dropped the same way; a
/// first value cut off is truncated.
pub(super) const SEVERAL_VALUES: &[Case] = &[
    ok("{\"a\": 1}\n{\"b\": 2}\n", r#"{"a": 1}"#, "extract"),
    ok(r#"{"a": 1}, {"b": 2}, {"c": 3}"#, r#"{"a": 1}"#, "extract"),
    ok("[1]\n[2]", "[1]", "extract"),
    ok(
        "```json\n{\"a\": 1}\n```\nAnd the second:\n```json\n{\"b\": 2}\n```",
        r#"{"a": 1}"#,
        "fence",
    ),
    ok("{'a': 1}\n{\"b\": 2}", r#"{"a": 1}"#, "extract quotes"),
    ok("{\"a\": 1}\n{\"b\": ", r#"{"a": 1}"#, "extract"),
    fails("{\"a\": 1\n", "truncated"),
];

/// Every table of this module, for `corpus_tests::every_row`.
pub(super) const ALL_BREADTH_MORE: &[&[Case]] = &[
    TUPLES,
    CONCATENATION,
    FULLWIDTH,
    BARE_VALUES,
    INCOMPLETE_NUMBERS,
    SEVERAL_VALUES,
];
