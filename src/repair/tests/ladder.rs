//! Checks of the ladder that a corpus row cannot express: coercion against a schema (with the
//! pointers it lists), the partial value and missing required keys of a truncated object,
//! `finish_reason: length`, where messages point, answers of only Unicode spaces, and outputs
//! too long or too deep to write as a row.

use serde_json::{Value, json};

use crate::repair::{CoercionKind, FailureClass, RepairOptions, Rung, repair};

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

#[test]
fn an_answer_of_only_unicode_spaces_is_empty() {
    for text in ["\u{a0}", "\u{200b}\u{feff}", " \u{3000}\n", "\u{c}"] {
        let failure = repair(text, &RepairOptions::new()).unwrap_err();
        assert_eq!(failure.class, FailureClass::Empty, "{text:?}");
        assert_eq!(failure.message, "the input is empty", "{text:?}");
    }
}

#[test]
fn long_and_deep_model_outputs() {
    let long = "x".repeat(20_000);
    let repaired = repair(
        &format!("Here you go:\n```json\n{{\"a\": \"{long}\",}}\n```"),
        &RepairOptions::new(),
    )
    .unwrap();
    assert_eq!(repaired.value, json!({ "a": long }));
    assert_eq!(repaired.rung, Rung::TrailingComma);

    // A long array that lost only its closer, after a complete string: closed.
    let items: Vec<String> = (0..500).map(|number| number.to_string()).collect();
    let text = format!("[{}, \"end\"", items.join(", "));
    let repaired = repair(&text, &RepairOptions::new()).unwrap();
    assert_eq!(repaired.value.as_array().map(Vec::len), Some(501));
    assert_eq!(repaired.rung, Rung::CloseBraces);
    // The same array cut after a number: truncated, with or without a final newline.
    for cut in [
        format!("[{}", items.join(", ")),
        format!("[{}\n", items.join(", ")),
    ] {
        let failure = repair(&cut, &RepairOptions::new()).unwrap_err();
        assert_eq!(failure.class, FailureClass::Truncated);
    }

    let nested = format!("{}1{}", "{\"a\":".repeat(100), "}".repeat(100));
    let repaired = repair(&format!("ok {nested}"), &RepairOptions::new()).unwrap();
    assert_eq!(
        repaired.value,
        serde_json::from_str::<Value>(&nested).unwrap()
    );
    assert_eq!(repaired.rung, Rung::Extract);
    // Two hundred levels of one key, cut: the answer holds a loop (the same opener again and
    // again), so a larger budget would only make it longer.
    let failure = repair(
        &format!("{}1", "{\"a\":".repeat(200)),
        &RepairOptions::new(),
    )
    .unwrap_err();
    assert_eq!(failure.class, FailureClass::Repetition);
}
