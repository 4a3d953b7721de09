//! No input may panic, overflow the stack or hang the ladder: big inputs, deep inputs (on the
//! ordinary test thread, whose stack is small), NUL bytes, invalid UTF-8 (as the CLI passes it:
//! replaced), lone surrogates, and arbitrary bytes.

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::repair::{
    FailureClass, MAX_DEPTH, RepairOptions, Rung, drop_deep, equal_deep, repair, to_compact,
    to_pretty,
};

fn nested_arrays(depth: usize, inner: &str) -> String {
    format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn ten_megabytes_of_valid_and_of_broken_json() {
    let item = r#"{"id": 12345, "title": "a step with \"quotes\" and {braces}", "done": false, "tags": ["x", "y"]}"#;
    let count = 10 * 1024 * 1024 / item.len();
    let valid = format!("[{}]", vec![item; count].join(","));
    let result = repair(&valid, &RepairOptions::new()).unwrap();
    assert_eq!(result.rung, Rung::None);
    assert_eq!(result.value.as_array().unwrap().len(), count);

    // A trailing comma in every array and object, single quotes, Python literals, a fence.
    let broken_item = r#"{'id': 12345, 'title': 'a step with "quotes" and {braces}', 'done': False, 'tags': ['x', 'y',],}"#;
    let broken = format!("```json\n[{},]\n```", vec![broken_item; count].join(",\n"));
    let repaired = repair(&broken, &RepairOptions::new()).unwrap();
    assert_eq!(
        repaired.rungs_changed,
        vec![
            Rung::Fence,
            Rung::TrailingComma,
            Rung::Quotes,
            Rung::PythonBools
        ]
    );
    assert_eq!(repaired.value, result.value);

    // Cut off near the end of 10 MB of one item again and again: a loop that ran into the
    // budget; so is one item with a counter. With items that differ in their words,
    // truncated; nothing closed up either way.
    let cut = &valid[..valid.len() - 30];
    let failure = repair(cut, &RepairOptions::new()).unwrap_err();
    assert_eq!(failure.class, FailureClass::Repetition);
    let counted: Vec<String> = (0..count)
        .map(|id| item.replace("12345", &id.to_string()))
        .collect();
    let counted = format!("[{}]", counted.join(","));
    let failure = repair(&counted[..counted.len() - 30], &RepairOptions::new()).unwrap_err();
    assert_eq!(failure.class, FailureClass::Repetition);
    let words = [
        "parse", "retry", "cache", "table", "render", "socket", "token", "schema", "branch",
        "commit", "review", "deploy", "script", "header", "buffer", "thread", "signal",
    ];
    let mut state = 0x9E37_79B9_u64;
    let items: Vec<String> = (0..count)
        .map(|id| {
            let title: Vec<&str> = (0..8)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    words[(state % words.len() as u64) as usize]
                })
                .collect();
            format!(
                r#"{{"id": {id}, "title": "{}", "done": false}}"#,
                title.join(" ")
            )
        })
        .collect();
    let distinct = format!("[{}]", items.join(","));
    let failure = repair(&distinct[..distinct.len() - 30], &RepairOptions::new()).unwrap_err();
    assert_eq!(failure.class, FailureClass::Truncated);
}

#[test]
fn ten_thousand_levels_are_repaired_printed_and_dropped_on_a_test_thread() {
    let depth = 10_000;
    let valid = nested_arrays(depth, "1");
    let result = repair(&valid, &RepairOptions::new()).unwrap();
    assert_eq!(result.rung, Rung::None);
    assert_eq!(to_compact(&result.value), valid);
    drop_deep(result.value);
    // Pretty output indents the first PRETTY_DEPTH levels and writes the rest compactly, so it
    // stays linear in the depth.
    let result = repair(&nested_arrays(depth, "1"), &RepairOptions::new()).unwrap();
    let pretty = to_pretty(&result.value);
    assert_eq!(
        pretty.lines().count(),
        2 * crate::repair::write::PRETTY_DEPTH + 1
    );
    assert!(pretty.len() < 3 * depth + 20_000, "{} bytes", pretty.len());
    assert!(pretty.contains(&format!("{}1{}", "[".repeat(100), "]".repeat(100))));
    drop_deep(result.value);

    let objects = format!("{}null{}", "{\"a\":".repeat(depth), "}".repeat(depth));
    let result = repair(&format!("```json\n{objects}\n```"), &RepairOptions::new()).unwrap();
    assert_eq!(result.rung, Rung::Fence);
    assert_eq!(to_compact(&result.value), objects);
    drop_deep(result.value);

    // Broken at depth: a trailing comma in every array, and the closers missing.
    let broken = format!("{}1{}", "[".repeat(depth), ",]".repeat(depth / 2));
    let result = repair(&broken, &RepairOptions::new()).unwrap();
    assert_eq!(
        result.rungs_changed,
        vec![Rung::TrailingComma, Rung::CloseBraces]
    );
    let expected: Value = serde_json::from_str::<Value>("1").unwrap();
    let mut inner = &result.value;
    for _ in 0..depth {
        inner = &inner[0];
    }
    assert_eq!(inner, &expected);
    drop_deep(result.value);
}

#[test]
fn truncation_is_found_at_depth() {
    let depth = 10_000;
    // Ten thousand openers in a row are a loop (one byte repeated) as well as a truncation: an
    // answer cut by its budget that holds a loop is classed repetition.
    let failure = repair(&format!("{}1", "[".repeat(depth)), &RepairOptions::new()).unwrap_err();
    assert_eq!(failure.class, FailureClass::Repetition);
    let failure = repair(
        &format!("{}{{\"k\": \"cut", "[".repeat(depth)),
        &RepairOptions::new(),
    )
    .unwrap_err();
    assert_eq!(failure.class, FailureClass::Repetition);
    // Objects with a key of their own at every level do not loop: truncated.
    let key = |n: usize| {
        let letters = [
            b'a' + (n % 26) as u8,
            b'a' + (n / 26 % 26) as u8,
            b'a' + (n / 676 % 26) as u8,
        ];
        String::from_utf8(letters.to_vec()).unwrap()
    };
    let distinct: String = (0..depth).map(|n| format!("{{\"{}\":", key(n))).collect();
    let failure = repair(&format!("{distinct}\"cut"), &RepairOptions::new()).unwrap_err();
    assert_eq!(failure.class, FailureClass::Truncated);
    // A complete number followed by a comment: only closers are missing.
    let closed = repair(
        &format!("{}1 // done\n", "[".repeat(depth)),
        &RepairOptions::new(),
    )
    .unwrap();
    assert_eq!(closed.rung, Rung::CloseBraces);
    drop_deep(closed.value);
    // Cut at depth inside a top-level object keeps its complete members.
    let text = format!("{{\"a\": 1, \"deep\": {}", "[".repeat(depth));
    let failure = repair(&text, &RepairOptions::new()).unwrap_err();
    assert_eq!(Value::Object(failure.partial.unwrap()), json!({"a": 1}));
}

#[test]
fn a_hundred_kilobytes_cut_anywhere_late_is_truncated() {
    let items: Vec<String> = (0..2000)
        .map(|n| format!(r#"{{"name": "n", "values": [1.5, -{n}, true, null, "s"]}}"#))
        .collect();
    let text = format!("{{\"items\": [{}]}}", items.join(", "));
    assert!(text.len() > 100_000);
    for cut in (text.len() - 200..text.len() - 1).step_by(7) {
        let prefix = &text[..cut];
        match repair(prefix, &RepairOptions::new()) {
            Err(failure) => assert_eq!(failure.class, FailureClass::Truncated, "{cut}"),
            Ok(repaired) => {
                assert_eq!(repaired.rung, Rung::CloseBraces, "{cut}");
                assert!(prefix.ends_with(['"', ']', '}', 'e', 'l', ' ']), "{cut}");
            }
        }
    }
}

#[test]
fn the_depth_limit_is_a_clear_error_up_to_a_million() {
    let at_limit = nested_arrays(MAX_DEPTH, "");
    let result = repair(&at_limit, &RepairOptions::new()).unwrap();
    drop_deep(result.value);
    for depth in [MAX_DEPTH + 1, 1_000_000] {
        let failure = repair(&nested_arrays(depth, "0"), &RepairOptions::new()).unwrap_err();
        assert_eq!(failure.class, FailureClass::Malformed);
        assert_eq!(
            failure.message,
            format!(
                "the JSON document is nested too deep: more than 100000 levels (line 1, column {})",
                MAX_DEPTH + 1
            )
        );
    }
    let failure = repair(&"{\"a\":".repeat(1_000_000), &RepairOptions::new()).unwrap_err();
    assert_eq!(failure.class, FailureClass::Malformed);
}

#[test]
fn deep_values_validate_against_recursive_schemas() {
    let schema = json!({"type": "array", "items": {"$ref": "#"}});
    let options = RepairOptions::new().schema(&schema).unwrap();
    // 127 levels is as deep as serde_json parses: validated on this (small) test thread.
    let result = repair(&nested_arrays(127, ""), &options).unwrap();
    assert_eq!(result.rung, Rung::None);
    let result = repair(&nested_arrays(128, "1"), &options).unwrap_err();
    assert_eq!(result.class, FailureClass::WrongShape);
    let result = repair(&nested_arrays(10_000, ""), &options).unwrap();
    assert!(equal_deep(&result.value, &result.value));
    drop_deep(result.value);
    let failure = repair(&nested_arrays(10_000, "1"), &options).unwrap_err();
    assert_eq!(failure.class, FailureClass::WrongShape);
    drop_deep(failure.value.unwrap());
}

#[test]
fn ten_megabytes_of_random_bytes_are_malformed_not_braces_found_somewhere() {
    // A fixed xorshift stream: the same "random" bytes on every run.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let bytes: Vec<u8> = (0..10 * 1024 * 1024)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    let text = String::from_utf8_lossy(&bytes);
    let failure = repair(&text, &RepairOptions::new()).unwrap_err();
    assert_eq!(
        failure.class,
        FailureClass::Malformed,
        "{}",
        failure.message
    );
    assert!(failure.message.contains("not text"), "{}", failure.message);

    // Braces planted in the noise do not make it an answer either.
    let noise: String = text.chars().take(4096).collect();
    let planted = format!("{noise}{{\"a\": 1}}{noise}");
    let failure = repair(&planted, &RepairOptions::new()).unwrap_err();
    assert_eq!(failure.class, FailureClass::Malformed);
    let first = format!("{{\"a\": 1}}{noise}");
    let failure = repair(&first, &RepairOptions::new()).unwrap_err();
    assert_eq!(failure.class, FailureClass::Malformed);

    // The other side: an answer with a few raw control characters and invalid bytes in its
    // strings is text, and repairs.
    let answer = "{\"a\": \"x\u{1}y\u{fffd}\u{fffd}\", \"b\": \"\u{0}\u{7f}\u{2}\u{3}\u{4}\u{5}\u{6}\u{fffd} and words enough to be text\"}";
    let repaired = repair(answer, &RepairOptions::new()).unwrap();
    assert_eq!(repaired.rung, Rung::ControlChars);
}

#[test]
fn nul_bytes_and_control_characters() {
    let result = repair("{\"a\": \"x\u{0}y\"}", &RepairOptions::new()).unwrap();
    assert_eq!(result.value, json!({"a": "x\u{0}y"}));
    assert_eq!(result.rung, Rung::ControlChars);
    let failure = repair("{\"a\": \u{0}1}", &RepairOptions::new()).unwrap_err();
    assert_eq!(failure.class, FailureClass::Malformed);
    let failure = repair("\u{0}\u{0}\u{0}", &RepairOptions::new()).unwrap_err();
    assert_eq!(failure.class, FailureClass::Prose);
}

#[test]
fn invalid_utf8_replaced_the_way_the_cli_does_it() {
    let bytes = b"{\"a\": \"caf\xe9\", \"b\": [1, 2,]}\xff";
    let text = String::from_utf8_lossy(bytes);
    let result = repair(&text, &RepairOptions::new()).unwrap();
    assert_eq!(result.value, json!({"a": "caf\u{fffd}", "b": [1, 2]}));
}

#[test]
fn lone_surrogates_become_replacement_characters() {
    for (text, expected) in [
        (r#"["\ud800"]"#, "\u{fffd}"),
        (r#"["\udfff"]"#, "\u{fffd}"),
        (r#"["a\ud800b"]"#, "a\u{fffd}b"),
        (r#"["\ud800\ud800\udc00"]"#, "\u{fffd}\u{10000}"),
        (r#"["\udc00\ud800"]"#, "\u{fffd}\u{fffd}"),
        (r#"["\ud83d\ude00"]"#, "😀"),
    ] {
        let result = repair(text, &RepairOptions::new()).unwrap();
        assert_eq!(result.value, json!([expected]), "{text}");
    }
}

#[test]
fn adversarial_shapes_finish() {
    let class = |text: &str| repair(text, &RepairOptions::new()).map_err(|failure| failure.class);
    let many_openers = "{\"".repeat(200_000);
    assert_eq!(class(&many_openers).unwrap_err(), FailureClass::Repetition);
    // Every inner quote is followed by a space, so none of them closes the string.
    let quotes = format!("{{\"a\": \"{}\"}}", "\" ".repeat(200_000));
    let repaired = class(&quotes).unwrap();
    assert_eq!(repaired.value["a"].as_str().map(str::len), Some(400_000));
    assert_eq!(repaired.rung, Rung::InnerQuotes);
    let candidates = "[x] {y} ".repeat(200_000);
    assert_eq!(class(&candidates).unwrap_err(), FailureClass::Prose);
    let fences = "```\n".repeat(100_000);
    assert_eq!(class(&fences).unwrap_err(), FailureClass::Prose);
    let closers = format!("[{}", "}".repeat(200_000));
    assert_eq!(class(&closers).unwrap_err(), FailureClass::Prose);
    let mixed = format!("{}{}", "[{\"a\":".repeat(50_000), "]".repeat(100_000));
    assert_eq!(class(&mixed).unwrap_err(), FailureClass::Malformed);
    // Escaped openers that do not parse: the text is unescaped once, not once per opener.
    let escaped = r#"{\"a\": 1 2} "#.repeat(100_000);
    assert_eq!(class(&escaped).unwrap_err(), FailureClass::Malformed);
    // A megabyte written with escaped quotes, Unicode spaces between its tokens.
    let item = "{\\\"id\\\":\u{a0}1, \\\"t\\\": \\\"a \\\\\\\"b\\\\\\\" c\\\"}";
    let big = format!("[{}]", vec![item; 40_000].join(",\u{3000}"));
    let repaired = class(&big).unwrap();
    assert_eq!(repaired.value.as_array().map(Vec::len), Some(40_000));
    assert_eq!(repaired.value[0], json!({"id": 1, "t": "a \"b\" c"}));
    assert_eq!(
        repaired.rungs_changed,
        vec![Rung::UnicodeSpaces, Rung::Escapes]
    );
    // A cut-off string full of quotes and line breaks before prose: one look back, one parse.
    let quotes = format!("[\"a{}", "\"\nx ".repeat(200_000));
    let repaired = class(&quotes).unwrap();
    assert_eq!(repaired.value, json!(["a"]));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = repair(&text, &RepairOptions::new());
        let _ = repair(&text, &RepairOptions::new().finish_reason_length(true));
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        let _ = repair(&text, &RepairOptions::new());
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]});
        let _ = repair(&text, &RepairOptions::new().schema(&schema).unwrap());
    }
}
