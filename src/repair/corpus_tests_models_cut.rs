//! Corpus rows: truncation at every kind of position (including a number followed only by
//! a newline, as `echo` leaves it), closing tags inside strings, and edge cases of locating the
//! document. Each row was compared with
//! json_repair (PyPI) and jsonrepair (npm); where the answers differ, the row holds what the
//! ladder promises (truncation reported, never closed; prose never turned into JSON). Checked
//! by `corpus_tests::check`, ladder honesty included.

use super::corpus_tests::{Case, check, fails, ok};

pub(super) const CUTS_AND_EDGES: &[Case] = &[
    fails("{\"a\": 12\n", "truncated"),
    ok(
        r#"{"a": 1<|im_end|>"#,
        r#"{"a": 1}"#,
        "extract close_braces",
    ),
    ok(
        "```json\n{\n  \"goal\": \"Add a --verbose flag\",\n  \"steps\": [\n    {\"id\": 1, \"title\": \"Parse the flag\", \"depends_on\": [],},\n    {\"id\": 2, \"title\": \"Use it\", \"depends_on\": [1]}\n  ]\n}\n```",
        r#"{"goal": "Add a --verbose flag", "steps": [{"id": 1, "title": "Parse the flag", "depends_on": []}, {"id": 2, "title": "Use it", "depends_on": [1]}]}"#,
        "fence trailing_comma",
    ),
    ok(
        "Here is the JSON object:\n\n{\n\"verdict\": \"request_changes\",\n\"findings\": [\n{\"severity\": \"high\", \"file\": \"src/main.rs\", \"line\": 10, \"message\": \"unwrap on None\"}\n]\n}\n\nExplanation: The code calls unwrap().",
        r#"{"verdict": "request_changes", "findings": [{"severity": "high", "file": "src/main.rs", "line": 10, "message": "unwrap on None"}]}"#,
        "extract",
    ),
    ok(
        "{\"answer\": \"yes\"}<|end|>\n<|assistant|>Anything else?",
        r#"{"answer": "yes"}"#,
        "extract",
    ),
    ok(
        "Okay, here's the output:\n```\n{\"a\": [\"x\", \"y\"]}\n```",
        r#"{"a": ["x", "y"]}"#,
        "fence",
    ),
    ok(
        "<think>\nI could write:\n```json\n{\"wrong\": true}\n```\nBut better:\n</think>\n```json\n{\"right\": true}\n```",
        r#"{"right": true}"#,
        "think fence",
    ),
    ok(
        "<think>{\"a\": 0} is wrong; [1] too</think>\n\nFinal: {\"a\": 1}",
        r#"{"a": 1}"#,
        "think extract",
    ),
    ok(r#"The key "a" maps to {"a": 1}."#, r#"{"a": 1}"#, "extract"),
    ok(
        r#"{'html': '<a href="x">link</a>'}"#,
        r#"{"html": "<a href=\"x\">link</a>"}"#,
        "quotes",
    ),
    ok(
        r#"{file_path2: "a.rs", line_no: 3}"#,
        r#"{"file_path2": "a.rs", "line_no": 3}"#,
        "unquoted",
    ),
    ok(
        r#"[{'id': 1, 'done': False}, {'id': 2, 'done': True}]"#,
        r#"[{"id": 1, "done": false}, {"id": 2, "done": true}]"#,
        "quotes python_bools",
    ),
    ok(r#"{'msg': "it's ok"}"#, r#"{"msg": "it's ok"}"#, "quotes"),
    fails(r#"{"files": ["a.rs", "b.r"#, "truncated"),
    fails(r#"{"a": 1 /* note"#, "truncated"),
    fails(r#"{"a": 1, "b""#, "truncated"),
    fails(r#"[-"#, "truncated"),
    fails(r#"[1."#, "truncated"),
    fails(r#"[1e"#, "truncated"),
    fails(r#"[fals"#, "truncated"),
    fails(r#"{"a": n"#, "truncated"),
    fails(r#"{'a': 'hel"#, "truncated"),
    fails(r#"{“a”: “hel"#, "truncated"),
    fails("```json\n[1, 2,\n```", "truncated"),
    fails(r#"<think>ok</think>{"a": ["#, "truncated"),
    fails(r#"{abc"#, "truncated"),
    fails(r#"Here: {"#, "truncated"),
    ok("{\"a\": 1}\n{\"b\": ", r#"{"a": 1}"#, "extract"),
    fails(r#"{"a": [1, 2,"#, "truncated"),
    ok(
        r#"{"a": 1,,,"b": 2}"#,
        r#"{"a": 1, "b": 2}"#,
        "empty_elements",
    ),
    ok(
        r#"{"status": pending}"#,
        r#"{"status": "pending"}"#,
        "unquoted",
    ),
    ok(r#"{"a": "x\ty"}"#, r#"{"a": "x\ty"}"#, ""),
    ok(r#"{"a": "\u00E9"}"#, r#"{"a": "é"}"#, ""),
    ok(r#"{"a": "\ud83d x"}"#, r#"{"a": "� x"}"#, "escapes"),
    ok("{\"a\u{200b}\": 1}", "{\"a\u{200b}\": 1}", ""),
    ok(r#"{"说明": "修复错误"}"#, r#"{"说明": "修复错误"}"#, ""),
    ok(r#"{"t": "مرحبا"}"#, r#"{"t": "مرحبا"}"#, ""),
    ok(
        "{\"a\": 1}\n{\"a\": 2}\n{\"a\": 3}\n",
        r#"{"a": 1}"#,
        "extract",
    ),
    ok(
        "```json\n[\n  \"a\",\n  \"b\"\n]\n```\n```json\n[\"c\"]\n```",
        r#"["a", "b"]"#,
        "fence",
    ),
    ok(
        "```json title=\"out.json\"\n{\"a\": 1}\n```",
        r#"{"a": 1}"#,
        "extract",
    ),
    ok("~~~~\n{\"a\": 1}\n~~~~", r#"{"a": 1}"#, "fence"),
    ok("````json\n{\"a\": 1}\n````", r#"{"a": 1}"#, "fence"),
    ok(r#"{"a": 1}x"#, r#"{"a": 1}"#, "extract"),
    ok(r#"{"a": 0.5}"#, r#"{"a": 0.5}"#, ""),
    ok(r#"{"a": -0}"#, r#"{"a": -0.0}"#, ""),
    ok(
        "{\"a\": 1\n\"b\": [1 2 3,],}",
        r#"{"a": 1, "b": [1, 2, 3]}"#,
        "trailing_comma missing_commas",
    ),
    ok(r#"{"a": "C:\\"}"#, r#"{"a": "C:\\"}"#, ""),
    ok(
        r#"{"a": "say \"hi\", ok", "b": 1}"#,
        r#"{"a": "say \"hi\", ok", "b": 1}"#,
        "",
    ),
    ok(r#"{"it's": 1}"#, r#"{"it's": 1}"#, ""),
    fails("Here:\n```json\n{\"a\": [1,", "truncated"),
    fails(r#"(1, 2, 3)"#, "prose"),
    ok(r#"{"n": one}"#, r#"{"n": "one"}"#, "unquoted"),
    ok("// result\n{\"a\": 1}", r#"{"a": 1}"#, "extract"),
    fails("verdict: approve\nreason: fine", "prose"),
    fails(r#"<result><a>1</a></result>"#, "prose"),
];

#[test]
fn models_cut_rows() {
    check(CUTS_AND_EDGES);
}
