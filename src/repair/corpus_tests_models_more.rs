//! Corpus rows: model-specific endings (Phi-3, Gemma, Qwen, Llama chat tokens), Markdown
//! around the answer, cut-offs inside every kind of token, reasoning blocks in odd places. Each row was compared with
//! json_repair (PyPI) and jsonrepair (npm); where the answers differ, the row holds what the
//! ladder promises (truncation reported, never closed; prose never turned into JSON). Checked
//! by `corpus_tests::check`, ladder honesty included.

use super::corpus_tests::{Case, check, fails, ok};

pub(super) const MORE_MODEL_OUTPUTS: &[Case] = &[
    // An unquoted URL is one bare word: `://` is neither a key's colon nor a comment.
    ok(
        "{\"url\": https://example.com/a?b=c}",
        r#"{"url": "https://example.com/a?b=c"}"#,
        "unquoted",
    ),
    ok(
        "{\"docs\": http://localhost:8080/api//v1, \"n\": 1} // see the docs",
        r#"{"docs": "http://localhost:8080/api//v1", "n": 1}"#,
        "extract unquoted",
    ),
    ok(
        "{\"a\": ./x // the path\n}",
        r#"{"a": "./x"}"#,
        "comments unquoted",
    ),
    fails("{\"url\": https://exa", "truncated"),
    fails("{\"url\": https:", "truncated"),
    ok(
        "<think>hm</think>\n<answer>\n{\"a\": 1}\n</answer>",
        r#"{"a": 1}"#,
        "think extract",
    ),
    ok("{\"a\": 1}\n```", r#"{"a": 1}"#, "extract"),
    ok(
        r#"{"args": "{\"path\": \"x\"}"}"#,
        r#"{"args": "{\"path\": \"x\"}"}"#,
        "",
    ),
    // Issue 14: kept as its text after a key (corpus_tests_breadth); in an array, malformed.
    fails(r#"[1_000]"#, "malformed"),
    ok(r#"{"a": {"b": 1}}}}}}"#, r#"{"a": {"b": 1}}"#, "extract"),
    ok(
        "{\"a\": \"x\r\ny\",}",
        r#"{"a": "x\r\ny"}"#,
        "trailing_comma control_chars",
    ),
    ok(
        "{'url': 'http://a.b/c', // link\n 'n': 1}",
        r#"{"url": "http://a.b/c", "n": 1}"#,
        "quotes comments",
    ),
    ok(
        "### JSON\n\n```json\n{\"a\": 1}\n```\n\n### Notes\n- none",
        r#"{"a": 1}"#,
        "fence",
    ),
    ok(
        "```json\n{\"draft\": true}\n```\nCorrected:\n```json\n{\"draft\": false}\n```",
        r#"{"draft": true}"#,
        "fence",
    ),
    ok(
        "[\n  \"a\",\n  \"b\",\n]",
        r#"["a", "b"]"#,
        "trailing_comma",
    ),
    ok(r#"{"a ": 1}"#, r#"{"a ": 1}"#, ""),
    ok(r#"{"ok": "true"}"#, r#"{"ok": "true"}"#, ""),
    ok(
        r#"{‘note’: ‘don’t’}"#,
        r#"{"note": "don’t"}"#,
        "smart_quotes",
    ),
    ok(
        r#"{"a": "the "end""}"#,
        r#"{"a": "the \"end\""}"#,
        "inner_quotes",
    ),
    ok(
        r#"In 2024 we got {"year": 2024}"#,
        r#"{"year": 2024}"#,
        "extract",
    ),
    ok("[\n\"a\"\n\"b\"\n]", r#"["a", "b"]"#, "missing_commas"),
    ok(
        r#"['x', True, None]"#,
        r#"["x", true, null]"#,
        "quotes python_bools",
    ),
    ok(r#"JSON: {"a": 1}"#, r#"{"a": 1}"#, "extract"),
    ok(
        r#"{"patch": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n"}"#,
        r#"{"patch": "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n"}"#,
        "",
    ),
    ok(r#"{"p": "C:\temp"}"#, r#"{"p": "C:\temp"}"#, ""),
    ok(r#"{"a":1,"b":2,}"#, r#"{"a": 1, "b": 2}"#, "trailing_comma"),
    ok("Here:\u{feff}{\"a\": 1}", r#"{"a": 1}"#, "extract"),
    fails(r#"{"a": "partial"#, "truncated"),
    ok("```json\n{\"a\": 1}\n```<|end|>", r#"{"a": 1}"#, "fence"),
    ok(
        "```json\n{\"verdict\": \"approve\"}\n```\n\n**Explanation:**\n* The code is {fine}.\n* See [link].",
        r#"{"verdict": "approve"}"#,
        "fence",
    ),
    ok(
        "{\"a\": 1, \"b\": [2]}\n{\"a\": 1, \"b\": [",
        r#"{"a": 1, "b": [2]}"#,
        "extract",
    ),
    ok(
        r#"{"file\_path": "a.rs"}"#,
        r#"{"file\\_path": "a.rs"}"#,
        "escapes",
    ),
    fails(r#"{"a" = 1}"#, "prose"),
    ok(r#"{'a': (1, 2)}"#, r#"{"a": [1, 2]}"#, "quotes tuples"),
    ok(r#"{"a": 1}."#, r#"{"a": 1}"#, "extract"),
    ok(r#"The output is '{"a": 1}'"#, r#"{"a": 1}"#, "extract"),
    ok(
        "1. Read the file\n2. Output:\n{\"done\": true}",
        r#"{"done": true}"#,
        "extract",
    ),
    ok(
        "[\"line1\nline2\", \"x\"]",
        r#"["line1\nline2", "x"]"#,
        "control_chars",
    ),
    ok("- {\"a\": 1}\n- {\"a\": 2}", r#"{"a": 1}"#, "extract"),
    fails("```json\n{\"n\": 4", "truncated"),
    ok(r#"[true"#, r#"[true]"#, "close_braces"),
    ok(r#"{"a": null"#, r#"{"a": null}"#, "close_braces"),
    fails(r#"{"a": 1, "b": {"c": 2, "d"#, "truncated"),
    fails("{\"a\":\n", "truncated"),
    fails(r#"{"a": "say \"hi"#, "truncated"),
    fails(r#"{'ke"#, "truncated"),
    fails(r#"{'a': No"#, "truncated"),
    fails(r#"{"a": Na"#, "truncated"),
    fails(r#"{“ke"#, "truncated"),
    fails(r#"[{"a": 1},"#, "truncated"),
    fails("```json\n{\"a\": {", "truncated"),
    fails(r#"[1e-"#, "truncated"),
    fails(r#"{"\u00"#, "truncated"),
    ok(
        "```json\n[\"a\", \"b\"\n```",
        r#"["a", "b"]"#,
        "fence close_braces",
    ),
    ok(r#"[1, 2<|im_end|>"#, r#"[1, 2]"#, "extract close_braces"),
    ok(r#"{"a": 5</s>"#, r#"{"a": 5}"#, "extract close_braces"),
    fails("<think>\nI'll answer {\"a\": 1}", "truncated"),
    fails("<think>hmm</think>\nI don't know.", "prose"),
    ok(
        "<thinking>```json\n{\"no\": 1}\n```</thinking>\n```json\n{\"yes\": 1}\n```",
        r#"{"yes": 1}"#,
        "think fence",
    ),
    ok(
        "Sure, let me think.\n</think>\nHere: {\"a\": 1}",
        r#"{"a": 1}"#,
        "think extract",
    ),
    ok(r#"{"a": "x\ny"}"#, r#"{"a": "x\ny"}"#, ""),
    ok(r#"{"a": 1.5E-10}"#, r#"{"a": 1.5e-10}"#, ""),
    ok(r#"[[1, 2,], [3,],]"#, r#"[[1, 2], [3]]"#, "trailing_comma"),
    fails(r#"{"count": 3 items}"#, "malformed"),
    ok(r#"{"done": "True"}"#, r#"{"done": "True"}"#, ""),
    ok(
        r#"{"a": "it’s “quoted”"}x"#,
        r#"{"a": "it’s “quoted”"}"#,
        "extract",
    ),
    ok(r#"Result: ```[1,2]```"#, r#"[1, 2]"#, "fence"),
    ok("```json {\"a\": 1}\n```", r#"{"a": 1}"#, "fence"),
    ok(
        r#"Use {name} as key: {"name": "x"}"#,
        r#"{"name": "x"}"#,
        "extract",
    ),
    ok(r#"{"🎉": 1}"#, r#"{"🎉": 1}"#, ""),
    ok("{\t\"a\"\t:\t1\t}", r#"{"a": 1}"#, ""),
    ok(
        "{\r\n\"a\": [\r\n1,\r\n2\r\n]\r\n",
        r#"{"a": [1, 2]}"#,
        "close_braces",
    ),
    ok("<!-- output -->\n{\"a\": 1}", r#"{"a": 1}"#, "extract"),
];

#[test]
fn models_more_rows() {
    check(MORE_MODEL_OUTPUTS);
}

#[test]
fn long_and_deep_model_outputs() {
    use super::{FailureClass, RepairOptions, Rung, repair};
    use serde_json::json;

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
        serde_json::from_str::<serde_json::Value>(&nested).unwrap()
    );
    assert_eq!(repaired.rung, Rung::Extract);
    let failure = repair(
        &format!("{}1", "{\"a\":".repeat(200)),
        &RepairOptions::new(),
    )
    .unwrap_err();
    assert_eq!(failure.class, FailureClass::Truncated);
}
