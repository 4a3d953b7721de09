//! Corpus rows for truncation, the failure classes and schema coercion, and the checks of
//! `partial`, `missing_required` and `finish_reason: length`.

use serde_json::{Value, json};

use super::corpus_tests::{Case, check, fails, ok};
use super::{CoercionKind, FailureClass, RepairOptions, Rung, repair};

/// Every row of this file, for the coverage count in `corpus_tests`.
pub(super) const ALL_MORE: &[&[Case]] = &[TRUNCATED, NOT_CUT, FAILURES];

const TRUNCATED: &[Case] = &[
    // Cut inside a string, a key, a number, a literal, a comment, an escape.
    fails(r#"{"a": "hello wor"#, "truncated"),
    fails(r#"{"a": 1, "ke"#, "truncated"),
    fails(r#"{"a": 12"#, "truncated"),
    fails(r#"{"a": -"#, "truncated"),
    fails(r#"{"a": 1."#, "truncated"),
    fails(r#"{"a": 1e"#, "truncated"),
    fails(r#"{"a": 1e+"#, "truncated"),
    fails(r#"{"a": tr"#, "truncated"),
    fails(r#"{"a": nul"#, "truncated"),
    fails(r#"{"a": Non"#, "truncated"),
    fails(r#"{"a": -Inf"#, "truncated"),
    fails("{\"a\": 1 /* note", "truncated"),
    fails(r#"{"a": "x\"#, "truncated"),
    fails(r#"{"a": "\u12"#, "truncated"),
    fails(r#"{"a": "\ud83d"#, "truncated"),
    fails(r#"{"a": "\ud83d\u"#, "truncated"),
    // Cut after ':' or ',', right after an opener, after a key.
    fails(r#"{"a":"#, "truncated"),
    fails(r#"{"a": 1,"#, "truncated"),
    fails(r#"[1, 2,"#, "truncated"),
    fails(r#"{"#, "truncated"),
    fails(r#"["#, "truncated"),
    fails(r#"{"a": ["#, "truncated"),
    fails(r#"{"a": {"#, "truncated"),
    fails(r#"{"a""#, "truncated"),
    fails(r#"{a"#, "truncated"),
    fails(r#"{"a": 1, b"#, "truncated"),
    // A number at the very end may go on.
    fails(r#"[1, 2, 3"#, "truncated"),
    // Whitespace to the end of the text does not end a number either: `echo` and editors add
    // a newline to a cut-off answer.
    fails("[1, 2, 3\n", "truncated"),
    fails("[1, 2, 3 ", "truncated"),
    fails("{\"line\": 42\r\n", "truncated"),
    fails("```json\n{\"a\": 1\n", "truncated"),
    fails(r#"{"n": 0"#, "truncated"),
    fails(r#"{"n": [1.5"#, "truncated"),
    // Truncation wins over every other rung: fences, prose, quotes, comments.
    fails("```json\n{\"a\": [1, 2", "truncated"),
    fails(
        "Here you go: {\"plan\": {\"steps\": [\"a\", \"b",
        "truncated",
    ),
    fails("{'a': 'it's not", "truncated"),
    fails("<think>so {\"a\": 1} is", "truncated"),
    fails("{\"a\": \"x\" // comment\n, \"b\":", "truncated"),
    fails("```json\n{\"a\": \"unterminated\n```", "truncated"),
    fails("```json\n{\"a\": 1,\n```", "truncated"),
    fails("{\"a\": bare", "truncated"),
    fails("{\"text\": \"He said \"hi", "truncated"),
];

const NOT_CUT: &[Case] = &[
    // The final value is complete: only the closers are missing.
    ok(r#"{"a": true"#, r#"{"a": true}"#, "close_braces"),
    ok(r#"["x", "y""#, r#"["x", "y"]"#, "close_braces"),
    ok(r#"{"a": {}"#, r#"{"a": {}}"#, "close_braces"),
    ok(r#"[[1], [2]"#, "[[1], [2]]", "close_braces"),
    ok(
        "{\"a\": 1 // last\n",
        r#"{"a": 1}"#,
        "comments close_braces",
    ),
    // Prose on a later line ends the document like a closing fence (this row was `malformed`
    // before the review of the ladder's gaps; see `prose.rs`).
    ok(
        "{\"a\": 1, \"b\": 2\n\nI hope this helps!",
        r#"{"a": 1, "b": 2}"#,
        "extract close_braces",
    ),
];

const FAILURES: &[Case] = &[
    fails("", "empty"),
    fails("   \n\t ", "empty"),
    fails("<think>I cannot decide.</think>", "empty"),
    fails("\u{feff}", "empty"),
    fails("I'm sorry, I can't help with that.", "prose"),
    fails("Set {the config} and click [button].", "prose"),
    fails("- [ x ] done\n- item", "prose"),
    fails("<|im_start|>assistant\nNo JSON today<|im_end|>", "prose"),
    fails("```python\nprint('hi')\n```", "prose"),
    fails("The answer is 42.", "prose"),
    // Issue 14 turned `{"a": }` around: a key with no value is dropped (corpus_tests_breadth).
    fails(r#"{"a": ]"#, "malformed"),
    fails(r#"{"a": 1 2}"#, "malformed"),
    fails(r#"{"a": [1, 2 x]}"#, "malformed"),
    // Issue 14 turned `"b" 2` around: the missing `:` is supplied (corpus_tests_breadth).
    fails("{\"a\": 1, \"b\"\n 2}", "malformed"),
    fails(r#"{"a" 1}"#, "prose"),
    // Issue 14 turned these around: kept as their text (corpus_tests_breadth).
    fails(r#"[01]"#, "malformed"),
    fails(r#"[12px]"#, "malformed"),
    fails(r#"[.5]"#, "prose"),
    fails(r#"{"a": +1}"#, "malformed"),
    fails("{\"a\": [1, 2, ..x]}", "malformed"),
    fails("```json\n{the config}\n```", "malformed"),
];

#[test]
fn truncated_documents() {
    check(TRUNCATED);
}

#[test]
fn complete_final_values_get_their_closers() {
    check(NOT_CUT);
}

#[test]
fn failure_classes() {
    check(FAILURES);
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "done": {"type": "boolean"},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "ids": {"type": "array", "items": {"type": "integer"}},
            "owner": {"type": ["string", "null"]},
            "note": {"type": ["null", "integer"]},
            "verdict": {"enum": ["approve", "request_changes", "Comment"]},
            "meta": {"type": "object", "properties": {"n": {"type": "integer"}}},
            "steps": {"type": "array", "items": {"$ref": "#/definitions/step"}},
            "either": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
            "version": {"type": "string"}
        },
        "required": ["title"],
        "definitions": {
            "step": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "after": {"type": "array", "items": {"type": "integer"}}},
                "required": ["id"]
            }
        }
    })
}

/// (input, expected value, expected coercions as (pointer, kind)).
type CoercionRow = (&'static str, Value, &'static [(&'static str, CoercionKind)]);

#[test]
fn coercions_are_listed_with_their_pointers() {
    use CoercionKind::*;
    let rows: Vec<CoercionRow> = vec![
        (
            r#"{"title": "t", "done": "true"}"#,
            json!({"title": "t", "done": true}),
            &[("/done", StringToBoolean)],
        ),
        (
            r#"{"title": "t", "done": " FALSE "}"#,
            json!({"title": "t", "done": false}),
            &[("/done", StringToBoolean)],
        ),
        (
            r#"{"title": "t", "count": "3"}"#,
            json!({"title": "t", "count": 3}),
            &[("/count", StringToInteger)],
        ),
        (
            r#"{"title": "t", "count": "3.0"}"#,
            json!({"title": "t", "count": 3}),
            &[("/count", StringToInteger)],
        ),
        (
            r#"{"title": "t", "count": "-12"}"#,
            json!({"title": "t", "count": -12}),
            &[("/count", StringToInteger)],
        ),
        (
            r#"{"title": "t", "ratio": "0.25"}"#,
            json!({"title": "t", "ratio": 0.25}),
            &[("/ratio", StringToNumber)],
        ),
        (
            r#"{"title": "t", "tags": "solo"}"#,
            json!({"title": "t", "tags": ["solo"]}),
            &[("/tags", WrappedInArray)],
        ),
        (
            r#"{"title": "t", "ids": 7}"#,
            json!({"title": "t", "ids": [7]}),
            &[("/ids", WrappedInArray)],
        ),
        (
            r#"{"title": "t", "ids": "7"}"#,
            json!({"title": "t", "ids": [7]}),
            &[("/ids", WrappedInArray), ("/ids/0", StringToInteger)],
        ),
        (
            r#"{"title": ["t"]}"#,
            json!({"title": "t"}),
            &[("/title", UnwrappedArray)],
        ),
        (
            r#"{"title": "t", "count": ["4"]}"#,
            json!({"title": "t", "count": 4}),
            &[("/count", UnwrappedArray), ("/count", StringToInteger)],
        ),
        (
            r#"{"title": 12}"#,
            json!({"title": "12"}),
            &[("/title", NumberToString)],
        ),
        (
            r#"{"title": "t", "version": 1.10}"#,
            json!({"title": "t", "version": "1.10"}),
            &[("/version", NumberToString)],
        ),
        (
            "{'title': 't', 'version': 2.50,}",
            json!({"title": "t", "version": "2.50"}),
            &[("/version", NumberToString)],
        ),
        (
            r#"{"title": true}"#,
            json!({"title": "true"}),
            &[("/title", BooleanToString)],
        ),
        (
            r#"{"title": "t", "tags": "[\"a\", \"b\"]"}"#,
            json!({"title": "t", "tags": ["a", "b"]}),
            &[("/tags", ParsedString)],
        ),
        (
            r#"{"title": "t", "meta": "{\"n\": 2}"}"#,
            json!({"title": "t", "meta": {"n": 2}}),
            &[("/meta", ParsedString)],
        ),
        (
            r#"{"title": "t", "note": "null"}"#,
            json!({"title": "t", "note": null}),
            &[("/note", StringToNull)],
        ),
        (
            r#"{"title": "t", "verdict": " Approve "}"#,
            json!({"title": "t", "verdict": "approve"}),
            &[("/verdict", EnumSpelling)],
        ),
        (
            r#"{"title": "t", "verdict": "COMMENT"}"#,
            json!({"title": "t", "verdict": "Comment"}),
            &[("/verdict", EnumSpelling)],
        ),
        (
            r#"{"title": "t", "steps": [{"id": "1"}, {"id": 2, "after": "1"}]}"#,
            json!({"title": "t", "steps": [{"id": 1}, {"id": 2, "after": [1]}]}),
            &[
                ("/steps/0/id", StringToInteger),
                ("/steps/1/after", WrappedInArray),
                ("/steps/1/after/0", StringToInteger),
            ],
        ),
        (
            r#"{"title": "t", "either": "true"}"#,
            json!({"title": "t", "either": true}),
            &[("/either", StringToBoolean)],
        ),
        (
            r#"{"title": "t", "either": "5"}"#,
            json!({"title": "t", "either": 5}),
            &[("/either", StringToInteger)],
        ),
    ];
    let schema = schema();
    let options = RepairOptions::new().schema(&schema).unwrap();
    for (input, expected, coercions) in rows {
        let repaired =
            repair(input, &options).unwrap_or_else(|failure| panic!("{input}: {failure:?}"));
        assert_eq!(repaired.value, expected, "{input}");
        assert_eq!(repaired.rung, Rung::Coerce, "{input}");
        assert_eq!(
            repaired.rungs_changed.last(),
            Some(&Rung::Coerce),
            "{input}"
        );
        let listed: Vec<(&str, CoercionKind)> = repaired
            .coercions
            .iter()
            .map(|coercion| (coercion.pointer.as_str(), coercion.kind))
            .collect();
        assert_eq!(listed, coercions, "{input}");
    }
}

#[test]
fn coercion_never_invents() {
    let schema = json!({
        "type": "object",
        "properties": {
            "count": {"type": "integer", "minimum": 1, "maximum": 5},
            "name": {"type": "string", "maxLength": 3},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "level": {"enum": ["low", "LOW", "high"]},
            "text": {"type": "string"}
        },
        "required": ["count", "name"],
        "additionalProperties": false
    });
    let options = RepairOptions::new().schema(&schema).unwrap();
    let cases = [
        (r#"{"count": "3.5", "name": "ab"}"#, "/count"),
        (r#"{"count": 9, "name": "ab"}"#, "/count"),
        (r#"{"count": 2, "name": "abcdef"}"#, "/name"),
        (r#"{"count": 2}"#, ""),
        (r#"{"count": 2, "name": "ab", "extra": 1}"#, ""),
        (r#"{"count": 2, "name": "ab", "tags": "one,two"}"#, "/tags"),
        (r#"{"count": 2, "name": "ab", "level": "Low"}"#, "/level"),
        (r#"{"count": 2, "name": "ab", "text": null}"#, "/text"),
        (r#"{"count": "", "name": "ab"}"#, "/count"),
    ];
    for (input, pointer) in cases {
        let failure = repair(input, &options).expect_err(input);
        assert_eq!(failure.class, FailureClass::WrongShape, "{input}");
        assert!(
            failure.errors.iter().any(|error| error.pointer == pointer),
            "{input}: {:?}",
            failure.errors
        );
    }
    // "one,two" was wrapped (lossless), never split; the violation is minItems.
    let failure = repair(r#"{"count": 2, "name": "ab", "tags": "one,two"}"#, &options).unwrap_err();
    assert_eq!(failure.value.unwrap()["tags"], json!(["one,two"]));
    assert_eq!(failure.rungs_changed, vec![Rung::Coerce]);
}

#[test]
fn valid_values_are_not_coerced() {
    let schema = json!({"type": "object", "properties": {"a": {"type": ["string", "integer"]}}});
    let options = RepairOptions::new().schema(&schema).unwrap();
    let repaired = repair(r#"{"a": "3"}"#, &options).unwrap();
    assert_eq!(repaired.value, json!({"a": "3"}));
    assert_eq!(repaired.rung, Rung::None);
    assert!(repaired.coercions.is_empty());
}

#[test]
fn truncated_objects_carry_partial_members_and_missing_required() {
    let schema = json!({
        "type": "object",
        "properties": {"title": {"type": "string"}, "steps": {"type": "array"}, "done": {"type": "boolean"}},
        "required": ["title", "steps", "done"]
    });
    let options = RepairOptions::new().schema(&schema).unwrap();
    let failure = repair(
        "```json\n{\"title\": 'Plan', \"done\": false, \"steps\": [{\"id\": 1}, {\"i",
        &options,
    )
    .unwrap_err();
    assert_eq!(failure.class, FailureClass::Truncated);
    assert_eq!(
        Value::Object(failure.partial.clone().unwrap()),
        json!({"title": "Plan", "done": false})
    );
    assert_eq!(failure.missing_required, vec!["steps".to_owned()]);
    assert_eq!(failure.rungs_changed, vec![Rung::Fence, Rung::Quotes]);
    assert!(
        failure
            .message
            .starts_with("the JSON document is cut off inside a key (line 2, column 56)"),
        "{}",
        failure.message
    );

    // A number at the end is not a complete member.
    let failure = repair(r#"{"title": "x", "done": 1"#, &options).unwrap_err();
    assert_eq!(
        Value::Object(failure.partial.unwrap()),
        json!({"title": "x"})
    );
    assert_eq!(
        failure.missing_required,
        vec!["steps".to_owned(), "done".to_owned()]
    );

    // A truncated array has no partial members.
    let failure = repair("[1, 2", &options).unwrap_err();
    assert_eq!(failure.partial, None);
}

#[test]
fn finish_reason_length_is_always_truncated() {
    let schema = json!({"type": "object", "required": ["a", "b"]});
    let options = RepairOptions::new()
        .schema(&schema)
        .unwrap()
        .finish_reason_length(true);
    for input in [
        r#"{"a": 1}"#,
        "```json\n{\"a\": 1}\n```",
        r#"{"a": 1, "b": 2"#,
        "plain prose",
        "",
    ] {
        let failure = repair(input, &options).expect_err(input);
        assert_eq!(failure.class, FailureClass::Truncated, "{input}");
    }
    let failure = repair(r#"{"a": 1}"#, &options).unwrap_err();
    assert_eq!(Value::Object(failure.partial.unwrap()), json!({"a": 1}));
    assert_eq!(failure.missing_required, vec!["b".to_owned()]);
    assert_eq!(
        failure.message,
        "the server stopped on length (finish_reason: length): the answer may be incomplete"
    );
    let failure = repair("[1, 2]", &RepairOptions::new().finish_reason_length(true)).unwrap_err();
    assert_eq!(failure.value, Some(json!([1, 2])));
}

#[test]
fn truncation_wins_over_coercion() {
    let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
    let options = RepairOptions::new().schema(&schema).unwrap();
    let failure = repair(r#"{"n": "3"#, &options).unwrap_err();
    assert_eq!(failure.class, FailureClass::Truncated);
    assert!(failure.coercions.is_empty());
}

#[test]
fn messages_say_where() {
    let failure = repair("{\n  \"a\": ]", &RepairOptions::new()).unwrap_err();
    assert_eq!(
        failure.message,
        "the JSON document is malformed: expected a value (line 2, column 8)"
    );
    let failure = repair("Sure.", &RepairOptions::new()).unwrap_err();
    assert_eq!(failure.message, "the input holds no JSON object or array");
    let failure = repair("[1, 2", &RepairOptions::new()).unwrap_err();
    assert_eq!(
        failure.message,
        "the JSON document is cut off inside a number (line 1, column 5)"
    );
}
