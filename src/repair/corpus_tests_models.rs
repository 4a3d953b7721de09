//! Corpus rows: how small models answer: think blocks, chatty prefixes, fences, Python and
//! JavaScript literals, comments, non-finite numbers, inner quotes, raw newlines, cut-offs,
//! chat-template tokens, BOM, CRLF, tabs, unicode. Each row was compared with
//! json_repair (PyPI) and jsonrepair (npm); where the answers differ, the row holds what the
//! ladder promises (truncation reported, never closed; prose never turned into JSON). Checked
//! by `corpus_tests::check`, ladder honesty included.

use super::corpus_tests::{Case, check, fails, ok};

pub(super) const MODEL_OUTPUTS: &[Case] = &[
    ok(
        "<think>\nThe user wants a plan. Let me output {\"steps\": []}... no, with steps.\n</think>\n\n```json\n{\"steps\": [{\"id\": 1, \"title\": \"read\"}]}\n```",
        r#"{"steps": [{"id": 1, "title": "read"}]}"#,
        "think fence",
    ),
    fails("<think>\nOkay so I need {\"a\": 1}\n", "truncated"),
    ok(
        "Alright, the JSON should be {\"x\": 0}.\n</think>\n\n{\"x\": 1}",
        r#"{"x": 1}"#,
        "think",
    ),
    ok(
        "Sure! Here's the JSON you requested:\n\n{\"verdict\": \"approve\", \"findings\": []}",
        r#"{"verdict": "approve", "findings": []}"#,
        "extract",
    ),
    ok(
        r#"Certainly. {"ok": true} Let me know if you need anything else!"#,
        r#"{"ok": true}"#,
        "extract",
    ),
    ok(
        "```jsonc\n{\n  // comment\n  \"a\": 1\n}\n```",
        r#"{"a": 1}"#,
        "fence comments",
    ),
    ok(
        "```javascript\n{ a: 1, b: 'two' }\n```",
        r#"{"a": 1, "b": "two"}"#,
        "fence quotes unquoted",
    ),
    ok(r#"Output: ```{"a":1}```"#, r#"{"a": 1}"#, "fence"),
    ok(
        "```json\n```json\n{\"a\": 1}\n```\n```",
        r#"{"a": 1}"#,
        "extract",
    ),
    ok("   ```json\n   {\"a\": 1}\n   ```", r#"{"a": 1}"#, "fence"),
    ok(
        "```json\r\n{\"a\": 1,\r\n \"b\": 2}\r\n```\r\n",
        r#"{"a": 1, "b": 2}"#,
        "fence",
    ),
    ok(
        "1. First item\n2. The result:\n   - `{\"a\": 1}`",
        r#"{"a": 1}"#,
        "extract",
    ),
    ok(
        r#"The answer is `{"a": [1, 2]}`."#,
        r#"{"a": [1, 2]}"#,
        "extract",
    ),
    ok(
        r#"{'name': 'test', 'enabled': True, 'value': None, 'items': ['a', 'b']}"#,
        r#"{"name": "test", "enabled": true, "value": null, "items": ["a", "b"]}"#,
        "quotes python_bools",
    ),
    ok(r#"{'a': 1, 'b': 'x'}"#, r#"{"a": 1, "b": "x"}"#, "quotes"),
    ok(
        r#"{name: 'slm', count: 3, tags: ['a', 'b'],}"#,
        r#"{"name": "slm", "count": 3, "tags": ["a", "b"]}"#,
        "trailing_comma quotes unquoted",
    ),
    ok(
        "{\n  \"a\": 1, // one\n  \"b\": 2 // two\n}",
        r#"{"a": 1, "b": 2}"#,
        "comments",
    ),
    ok(
        "{\n /* The plan:\n  * step one\n  */\n \"a\": 1\n}",
        r#"{"a": 1}"#,
        "comments",
    ),
    ok(
        r#"{"score": NaN, "max": Infinity, "min": -Infinity}"#,
        r#"{"score": null, "max": null, "min": null}"#,
        "non_finite",
    ),
    ok(
        "{\"a\": 1}\n\nNote: the object {like this} has one key.",
        r#"{"a": 1}"#,
        "extract",
    ),
    ok("[1, 2]\n\nSee [docs] for details.", r#"[1, 2]"#, "extract"),
    ok(
        r#"{"message": "Use the "force" flag", "ok": true}"#,
        r#"{"message": "Use the \"force\" flag", "ok": true}"#,
        "inner_quotes",
    ),
    ok(
        "{\"summary\": \"Line one\nLine two\", \"n\": 2}",
        r#"{"summary": "Line one\nLine two", "n": 2}"#,
        "control_chars",
    ),
    ok(
        "{\"patch\": \"def f():\n    return {'a': 1}\n\"}",
        r#"{"patch": "def f():\n    return {'a': 1}\n"}"#,
        "control_chars",
    ),
    fails(r#"{"summary": "The function handles the"#, "truncated"),
    fails(r#"{"steps": [{"id": 1, "tit"#, "truncated"),
    fails(r#"{"steps": [{"id": 1, "title":"#, "truncated"),
    fails(r#"{"a": 1, "#, "truncated"),
    fails(r#"{"line": 12"#, "truncated"),
    fails(r#"{"done": tru"#, "truncated"),
    fails("```json\n{\"a\": \"hel", "truncated"),
    fails(r#"{"files": ["#, "truncated"),
    fails(r#"{"a": "\u00"#, "truncated"),
    ok(
        r#"{"a": {"b": [1, 2]}"#,
        r#"{"a": {"b": [1, 2]}}"#,
        "close_braces",
    ),
    ok(r#"["a", "b""#, r#"["a", "b"]"#, "close_braces"),
    ok("{\"a\": 1}\n{\"a\": 2}", r#"{"a": 1}"#, "extract"),
    ok(r#"{"a": 1}, {"a": 2}"#, r#"{"a": 1}"#, "extract"),
    ok(
        "<start_of_turn>model\n{\"a\": 1}<end_of_turn>",
        r#"{"a": 1}"#,
        "extract",
    ),
    ok(
        "<|start_header_id|>assistant<|end_header_id|>\n\n{\"a\": 1}<|eot_id|>",
        r#"{"a": 1}"#,
        "extract",
    ),
    ok(r#"{"a": 1}<|end|>"#, r#"{"a": 1}"#, "extract"),
    ok("\u{feff}```json\n{\"a\": 1}\n```", r#"{"a": 1}"#, "fence"),
    ok(
        "{\r\n  \"a\": 1,\r\n  \"b\": [\r\n    2,\r\n  ],\r\n}\r\n",
        r#"{"a": 1, "b": [2]}"#,
        "trailing_comma",
    ),
    ok(
        "{\n\t\"a\": 1,\n\t\"b\": \"c\"\n}",
        r#"{"a": 1, "b": "c"}"#,
        "",
    ),
    ok(
        "{\"a\": \"col1\tcol2\"}",
        r#"{"a": "col1\tcol2"}"#,
        "control_chars",
    ),
    ok(r#"{"a": "caf\u00e9 \u2603"}"#, r#"{"a": "café ☃"}"#, ""),
    ok(
        r#"{"status": "done ✅", "mood": "🎉"}"#,
        r#"{"status": "done ✅", "mood": "🎉"}"#,
        "",
    ),
    ok(r#"{"e": "\ud83c\udf89"}"#, r#"{"e": "🎉"}"#, ""),
    ok(
        r#"{'summary': 'The user's file isn't found'}"#,
        r#"{"summary": "The user's file isn't found"}"#,
        "quotes",
    ),
    ok(
        r#"{"a": True, "b": false, "c": None}"#,
        r#"{"a": true, "b": false, "c": null}"#,
        "python_bools",
    ),
    ok(
        "{\n \"id\": 1\n \"title\": \"x\"\n \"deps\": []\n}",
        r#"{"id": 1, "title": "x", "deps": []}"#,
        "missing_commas",
    ),
    ok(
        "[\n {\"id\": 1}\n {\"id\": 2}\n]",
        r#"[{"id": 1}, {"id": 2}]"#,
        "missing_commas",
    ),
    fails(r#"I'm not sure what you mean. Could you clarify?"#, "prose"),
    fails(r#"Use {braces} and [brackets] wisely."#, "prose"),
    fails(r#""#, "empty"),
    fails("  \n\n\t", "empty"),
    fails(r#"<think>Let me think about {"a": 1}</think>"#, "empty"),
    ok(
        "Step 1: {\"id\": 1}\nStep 2: {\"id\": 2}",
        r#"{"id": 1}"#,
        "extract",
    ),
    ok(
        "```json\n{\"md\": \"use ```bash\\nls\\n``` here\"}\n```",
        r#"{"md": "use ```bash\nls\n``` here"}"#,
        "fence",
    ),
    ok(
        r#"{"a": [{"b": [1,],},],}"#,
        r#"{"a": [{"b": [1]}]}"#,
        "trailing_comma",
    ),
    fails(r#"{"a": +5}"#, "malformed"),
    // Issue 14: a token that starts like a number and goes on is a bare value, kept as text.
    ok(r#"{"a": 0x1F}"#, r#"{"a": "0x1F"}"#, "unquoted"),
    // Issue 14 turned this row around: an ellipsis placeholder is dropped (corpus_tests_breadth).
    ok(
        r#"{"items": [1, 2, ...]}"#,
        r#"{"items": [1, 2]}"#,
        "empty_elements",
    ),
    ok(r#"{"a": undefined}"#, r#"{"a": null}"#, "non_finite"),
    ok(
        r#"{“verdict”: “approve”, “reason”: “looks good”}"#,
        r#"{"verdict": "approve", "reason": "looks good"}"#,
        "smart_quotes",
    ),
    ok(r#"const result = {"a": 1};"#, r#"{"a": 1}"#, "extract"),
    ok(r#"result = {'a': 1}"#, r#"{"a": 1}"#, "extract quotes"),
    ok(
        "<tool_call>\n{\"name\": \"edit\", \"arguments\": {\"path\": \"x\"}}\n</tool_call>",
        r#"{"name": "edit", "arguments": {"path": "x"}}"#,
        "extract",
    ),
    ok(
        "```json\n{\"a\": 1}\n```\nAlternatively: {\"a\": 2}",
        r#"{"a": 1}"#,
        "fence",
    ),
    ok(
        r#"[{"a": 1}, {"a": 2}"#,
        r#"[{"a": 1}, {"a": 2}]"#,
        "close_braces",
    ),
    fails(r#"[{"a": 1}, {"a": 2"#, "truncated"),
    ok(
        "{\"a\": \"x\u{0}y\"}",
        r#"{"a": "x\u0000y"}"#,
        "control_chars",
    ),
    ok(
        "{\"a\": \"x\u{7}y\"}",
        r#"{"a": "x\u0007y"}"#,
        "control_chars",
    ),
    ok(r#"{status: done}"#, r#"{"status": "done"}"#, "unquoted"),
    ok("```json\n{\"a\": [1, 2]}```", r#"{"a": [1, 2]}"#, "fence"),
    ok(
        r#"{"path": "src\/main.rs"}"#,
        r#"{"path": "src/main.rs"}"#,
        "",
    ),
    ok(
        "{\"a\": 1}\n```\nexplanation\n```",
        r#"{"a": 1}"#,
        "extract",
    ),
    ok(r#"**Result:** {"a": 1}"#, r#"{"a": 1}"#, "extract"),
    ok(r#"<pre>{"a": 1}</pre>"#, r#"{"a": 1}"#, "extract"),
    ok(
        r#"{"a": 1E5, "b": -0.5e-3}"#,
        r#"{"a": 100000.0, "b": -0.0005}"#,
        "",
    ),
    ok(
        r#"{"id": 12345678901234567890}"#,
        r#"{"id": 12345678901234567890}"#,
        "",
    ),
    ok(r#"{"a": 1, "a": 2}"#, r#"{"a": 2}"#, ""),
    fails("{\n  \"a\": 1,\n  \"b\": \n", "truncated"),
    ok(r#"{"a": [1, 2}"#, r#"{"a": [1, 2]}"#, "close_braces"),
    ok(r#"{"a": 1}}]"#, r#"{"a": 1}"#, "extract"),
    ok(r#"{'a': 'it\'s'}"#, r#"{"a": "it's"}"#, "quotes"),
    fails("```json\n{\"a\": [\"x\n```", "truncated"),
    ok("{\n  \"a\": 1  # the count\n}", r#"{"a": 1}"#, "comments"),
    ok(
        r#"The result is {} since nothing changed."#,
        r#"{}"#,
        "extract",
    ),
    ok("```json\n[]\n```", r#"[]"#, "fence"),
];

#[test]
fn models_rows() {
    check(MODEL_OUTPUTS);
}
