//! Properties of the ladder over generated input:
//! (a) a valid value, serialised, fenced, wrapped in prose or given trailing commas, comes
//!     back equal;
//! (b) a prefix of a valid document is either reported truncated or repaired into a value
//!     that agrees with the original everywhere the prefix reached;
//! (c) on arbitrary JSON-ish soup the ladder never panics, and the rungs it reports are exactly
//!     the rungs it needs (the same check the corpus makes, on inputs nobody wrote).

use proptest::prelude::*;
use serde_json::{Map, Number, Value};

use crate::repair::{FailureClass, RepairOptions, Rung, RungSet, repair};

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| Value::Number(n.into())),
        any::<u64>().prop_map(|n| Value::Number(n.into())),
        any::<f64>()
            .prop_filter_map("finite", Number::from_f64)
            .prop_map(Value::Number),
        text().prop_map(Value::String),
    ]
}

/// Strings with the characters that matter: quotes, backslashes, braces, control
/// characters, fences, chat tokens, typographic quotes and non-ASCII text.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 ]{0,12}",
        r#"[\x00-\x1f"'\\{}\[\],:/#`<|>~ a-z“”‘’é😀]{0,16}"#,
        Just("```json".to_owned()),
        Just("<|im_end|>".to_owned()),
        Just("He said \"hi\"".to_owned()),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((text(), inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn container() -> impl Strategy<Value = Value> {
    value().prop_filter("a document is an object or an array", |value| {
        value.is_object() || value.is_array()
    })
}

/// Serialises `value` with a comma after the last element of every non-empty container.
fn with_trailing_commas(value: &Value, out: &mut String) {
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for item in items {
                with_trailing_commas(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(members) if !members.is_empty() => {
            out.push('{');
            for (key, member) in members {
                out.push_str(&serde_json::to_string(key).unwrap());
                out.push(':');
                with_trailing_commas(member, out);
                out.push_str(", ");
            }
            out.push('}');
        }
        other => out.push_str(&serde_json::to_string(other).unwrap()),
    }
}

/// Whether `got` agrees with `original` everywhere a prefix of `original`'s text could reach:
/// containers hold a prefix of the original's elements or members, all equal but the last,
/// which agrees in turn; with `cut_string`, that last value may be a string cut short.
fn agrees_with_prefix(got: &Value, original: &Value, cut_string: bool) -> bool {
    match (got, original) {
        (Value::Array(got), Value::Array(original)) => {
            got.len() <= original.len()
                && got.iter().zip(original).enumerate().all(|(index, (a, b))| {
                    if index + 1 == got.len() {
                        agrees_with_prefix(a, b, cut_string)
                    } else {
                        a == b
                    }
                })
        }
        (Value::Object(got), Value::Object(original)) => {
            got.len() <= original.len()
                && got.iter().zip(original).enumerate().all(|(index, (a, b))| {
                    a.0 == b.0
                        && if index + 1 == got.len() {
                            agrees_with_prefix(a.1, b.1, cut_string)
                        } else {
                            a.1 == b.1
                        }
                })
        }
        (Value::String(got), Value::String(original)) if cut_string => original.starts_with(got),
        _ => got == original,
    }
}

fn repaired(text: &str) -> Value {
    match repair(text, &RepairOptions::new()) {
        Ok(repaired) => repaired.value,
        Err(failure) => panic!("{text:?}: {failure:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn a_serialised_value_comes_back_as_it_was(value in value(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        let result = repair(&text, &RepairOptions::new()).unwrap();
        prop_assert_eq!(result.rung, Rung::None);
        prop_assert_eq!(result.value, value);
    }

    #[test]
    fn a_fenced_or_prose_wrapped_value_comes_back_as_it_was(
        value in container(),
        pretty in any::<bool>(),
        tag in prop_oneof![Just(""), Just("json"), Just("JSON")],
        before in "[A-Za-z ,.!:]{0,30}",
        after in "[A-Za-z ,.!:{}\\[\\]]{0,30}",
    ) {
        // Prose does not open with a comma: text that does continues the value (an object
        // closed early, `{"a":1}, "b":2}`, is merged by design).
        prop_assume!(!after.trim_start().starts_with(','));
        let document = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        let fenced = format!("{before}\n```{tag}\n{document}\n```\n{after}");
        prop_assert_eq!(&repaired(&fenced), &value);
        let wrapped = format!("{before}\n{document}\n\n{after}");
        prop_assert_eq!(&repaired(&wrapped), &value);
        let inline = format!("{before} ```{tag} {document}``` {after}");
        prop_assert_eq!(&repaired(&inline), &value);
    }

    #[test]
    fn trailing_commas_everywhere_come_back_as_they_were(value in container()) {
        let mut text = String::new();
        with_trailing_commas(&value, &mut text);
        prop_assert_eq!(&repaired(&text), &value);
    }

    #[test]
    fn a_prefix_is_truncated_or_agrees_with_the_original(value in container(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap()
        } else {
            serde_json::to_string(&value).unwrap()
        };
        for (cut, _) in text.char_indices().skip(1) {
            let prefix = &text[..cut];
            match repair(prefix, &RepairOptions::new()) {
                // A cut that lands in a string right after the closers the containers need
                // reads as a forgotten quote (`close_quote`): the one case no reader can tell
                // apart; then the last string is a prefix of the original's.
                Ok(repaired) => prop_assert!(
                    agrees_with_prefix(&repaired.value, &value, false)
                        || (repaired.rungs_changed.contains(&Rung::CloseQuote)
                            && agrees_with_prefix(&repaired.value, &value, true)),
                    "{:?} became {} but the original is {}", prefix, repaired.value, value
                ),
                Err(failure) => prop_assert_eq!(
                    failure.class, FailureClass::Truncated, "{:?}: {}", prefix, failure.message
                ),
            }
        }
    }

    #[test]
    fn the_reported_rungs_are_exactly_the_needed_ones(soup in soup()) {
        let Ok(result) = repair(&soup, &RepairOptions::new()) else {
            return Ok(());
        };
        let changed = RungSet::of(&result.rungs_changed);
        prop_assert_eq!(result.rung, changed.last().unwrap_or(Rung::None));
        let only = repair(&soup, &RepairOptions::new().rungs(changed));
        prop_assert_eq!(only.map(|again| again.value).ok(), Some(result.value.clone()));
        for rung in &result.rungs_changed {
            let without = repair(&soup, &RepairOptions::new().rungs(changed.without(*rung)));
            prop_assert!(
                without.map(|again| again.value != result.value).unwrap_or(true),
                "{} was reported for {:?} but is not needed", rung, soup
            );
        }
    }
}

/// Text assembled from the pieces small models break JSON with.
fn soup() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("{"),
        Just("}"),
        Just("["),
        Just("]"),
        Just(":"),
        Just(","),
        Just(" "),
        Just("\n"),
        Just("\"a\""),
        Just("\"b\": "),
        Just("'c'"),
        Just("'it's'"),
        Just("d"),
        Just("key: "),
        Just("1"),
        Just("-2.5"),
        Just("1e3"),
        Just("True"),
        Just("None"),
        Just("NaN"),
        Just("-Infinity"),
        Just("null"),
        Just("// note\n"),
        Just("/* x */"),
        Just("# c\n"),
        Just("```json\n"),
        Just("```"),
        Just("“q”"),
        Just("\"He said \"hi\" ok\""),
        Just("\"\\d\""),
        Just("\"\\ud800\""),
        Just("\"tab\there\""),
        Just("<think>"),
        Just("</think>"),
        Just("Sure! "),
        Just("<|im_end|>"),
        Just("ok"),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}
