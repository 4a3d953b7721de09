//! The corpus: how small models break JSON, one row per way, with the value (or failure
//! class) and the rungs each must produce. Rows are written from what models do, not copied
//! from any other library's tests. `corpus_tests_more` holds the truncation, failure and
//! coercion rows; the checks shared by both live here.
//!
//! Every successful row is also run through the ladder-honesty check: with exactly the rungs
//! the row lists, the same value comes out; without any one of them, it does not; with none
//! of them, it does not.

use serde_json::Value;

use super::{RepairOptions, Rung, RungSet, repair};

/// One corpus row.
pub(super) struct Case {
    pub(super) input: &'static str,
    pub(super) expect: Expect,
}

pub(super) enum Expect {
    /// The value (as JSON) and the rungs that changed something, in ladder order; the last
    /// one is the reported rung (`none` when the list is empty).
    Value(&'static str, &'static str),
    /// A failure of this class.
    Fails(&'static str),
}

pub(super) const fn ok(input: &'static str, value: &'static str, rungs: &'static str) -> Case {
    Case {
        input,
        expect: Expect::Value(value, rungs),
    }
}

pub(super) const fn fails(input: &'static str, class: &'static str) -> Case {
    Case {
        input,
        expect: Expect::Fails(class),
    }
}

/// Every row of every corpus module, for checks that hold on all of them (a loop detector that
/// must not fire on any of them, for one).
pub(super) fn every_row() -> impl Iterator<Item = &'static Case> {
    VALID_AND_LOCATED
        .iter()
        .chain(SYNTAX)
        .chain(super::corpus_tests_loose::LOOSER)
        .chain(super::corpus_tests_more::ALL_MORE.iter().copied().flatten())
        .chain(super::corpus_tests_gaps::ALL_GAPS.iter().copied().flatten())
        .chain(super::corpus_tests_models::MODEL_OUTPUTS)
        .chain(super::corpus_tests_models_cut::CUTS_AND_EDGES)
        .chain(super::corpus_tests_models_more::MORE_MODEL_OUTPUTS)
        .chain(
            super::corpus_tests_breadth::ALL_BREADTH
                .iter()
                .copied()
                .flatten(),
        )
        .chain(
            super::corpus_tests_breadth_more::ALL_BREADTH_MORE
                .iter()
                .copied()
                .flatten(),
        )
}

fn rungs(names: &str) -> Vec<Rung> {
    names
        .split_whitespace()
        .map(|name| Rung::from_name(name).unwrap_or_else(|| panic!("no rung {name}")))
        .collect()
}

/// Checks every row; collects all mismatches before failing so one run shows them all.
pub(super) fn check(cases: &[Case]) {
    let mut problems = Vec::new();
    for (row, case) in cases.iter().enumerate() {
        if let Err(problem) = check_one(case) {
            problems.push(format!("row {row} {:?}: {problem}", case.input));
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {} rows are wrong:\n{}",
        problems.len(),
        cases.len(),
        problems.join("\n")
    );
}

fn check_one(case: &Case) -> Result<(), String> {
    let result = repair(case.input, &RepairOptions::new());
    match (&case.expect, result) {
        (Expect::Value(json, names), Ok(repaired)) => {
            let expected: Value = serde_json::from_str(json).expect("the row's value is JSON");
            let listed = rungs(names);
            if !listed.windows(2).all(|pair| pair[0] < pair[1]) {
                return Err("the row lists its rungs out of ladder order".into());
            }
            if repaired.value != expected {
                return Err(format!("value {}", repaired.value));
            }
            if repaired.rungs_changed != listed {
                return Err(format!("rungs {:?}", repaired.rungs_changed));
            }
            let reported = listed.last().copied().unwrap_or(Rung::None);
            if repaired.rung != reported {
                return Err(format!("reported rung {}", repaired.rung));
            }
            honest(case.input, &expected, &listed)
        }
        (Expect::Value(..), Err(failure)) => Err(format!(
            "failed: {} ({})",
            failure.class.as_str(),
            failure.message
        )),
        (Expect::Fails(class), Err(failure)) if failure.class.as_str() == *class => Ok(()),
        (Expect::Fails(_), Err(failure)) => Err(format!(
            "failed as {} ({})",
            failure.class.as_str(),
            failure.message
        )),
        (Expect::Fails(_), Ok(repaired)) => Err(format!(
            "repaired into {} by {}",
            repaired.value, repaired.rung
        )),
    }
}

/// The ladder semantics, checked by running the ladder with only some rungs.
fn honest(input: &str, expected: &Value, listed: &[Rung]) -> Result<(), String> {
    let only = RungSet::of(listed);
    match repair(input, &RepairOptions::new().rungs(only)) {
        Ok(repaired) if repaired.value == *expected => {}
        other => return Err(format!("with only its rungs: {other:?}")),
    }
    for rung in listed {
        let without = only.without(*rung);
        if let Ok(repaired) = repair(input, &RepairOptions::new().rungs(without))
            && repaired.value == *expected
        {
            return Err(format!("{rung} was listed but not needed"));
        }
    }
    let stopped_before = listed
        .last()
        .map(|last| RungSet::ALL.without(*last).to_vec());
    if let Some(allowed) = stopped_before {
        let prefix: Vec<Rung> = allowed
            .into_iter()
            .filter(|rung| rung < listed.last().unwrap())
            .collect();
        if let Ok(repaired) = repair(input, &RepairOptions::new().rungs(RungSet::of(&prefix)))
            && repaired.value == *expected
        {
            return Err("the ladder stopped one rung early and still parsed".into());
        }
    }
    Ok(())
}

const VALID_AND_LOCATED: &[Case] = &[
    // none: valid as it stands.
    ok(r#"{"a": 1}"#, r#"{"a": 1}"#, ""),
    ok(r#"  [1, 2, 3]  "#, "[1, 2, 3]", ""),
    ok("\u{feff}{\"bom\": true}", r#"{"bom": true}"#, ""),
    ok(r#""just a string""#, r#""just a string""#, ""),
    ok("42\n", "42", ""),
    ok(
        r#"{"s": "a \"quoted\" {brace} [and] , comma"}"#,
        r#"{"s": "a \"quoted\" {brace} [and] , comma"}"#,
        "",
    ),
    ok(
        r#"{"emoji": "\ud83d\ude00", "e": "\u00e9"}"#,
        r#"{"emoji": "😀", "e": "é"}"#,
        "",
    ),
    ok(
        r#"{"nested": {"deep": [{"x": null}, [], {}]}}"#,
        r#"{"nested": {"deep": [{"x": null}, [], {}]}}"#,
        "",
    ),
    // think: a reasoning block first.
    ok(
        "<think>The user wants {\"a\": 2}? No, 1.</think>\n{\"a\": 1}",
        r#"{"a": 1}"#,
        "think",
    ),
    ok(
        "<thinking>\nLet me plan: [step one]\n</thinking>\n\n[1, 2]",
        "[1, 2]",
        "think",
    ),
    ok(
        "Okay, so the answer is {x}.\n</think>\n{\"a\": 1}",
        r#"{"a": 1}"#,
        "think",
    ),
    ok("<think></think>{\"a\": 1}", r#"{"a": 1}"#, "think"),
    // A closing tag inside the document's strings is content, not the end of a reasoning
    // block the template opened.
    ok(
        "{'a': 'close with </think> tag', 'b': 1}",
        r#"{"a": "close with </think> tag", "b": 1}"#,
        "quotes",
    ),
    ok(
        "Here: {\"a\": \"x</think>y\"}",
        r#"{"a": "x</think>y"}"#,
        "extract",
    ),
    ok(
        "```json\n{\"doc\": \"The </reasoning> element\", \"n\": 1,}\n```",
        r#"{"doc": "The </reasoning> element", "n": 1}"#,
        "fence trailing_comma",
    ),
    ok(
        "Maybe {\"a\": [1, 2... no.\n</think>\n{\"a\": 1}",
        r#"{"a": 1}"#,
        "think",
    ),
    ok(
        "<reasoning>{\"draft\": 0}</reasoning>{'a': 1}",
        r#"{"a": 1}"#,
        "think quotes",
    ),
    ok(
        "<think>hmm</think>\n```json\n{\"a\": 1}\n```",
        r#"{"a": 1}"#,
        "think fence",
    ),
    ok(
        "<think>ok</think>Here it is: {\"a\": 1}",
        r#"{"a": 1}"#,
        "think extract",
    ),
    // fence: the document inside a code fence.
    ok("```json\n{\"a\": 1}\n```", r#"{"a": 1}"#, "fence"),
    ok("```JSON\n[1, 2]\n```", "[1, 2]", "fence"),
    ok("```\n{\"a\": 1}\n```", r#"{"a": 1}"#, "fence"),
    ok(
        "Sure! Here is the plan:\n\n```json\n{\"a\": 1}\n```\n\nLet me know!",
        r#"{"a": 1}"#,
        "fence",
    ),
    ok(
        "Result: ```json {\"a\": 1}``` as requested.",
        r#"{"a": 1}"#,
        "fence",
    ),
    ok("~~~json\n{\"a\": 1}\n~~~", r#"{"a": 1}"#, "fence"),
    ok(
        "```python\nprint({'no': 1})\n```\n```json\n{\"yes\": 1}\n```",
        r#"{"yes": 1}"#,
        "fence",
    ),
    ok(
        "```json\n{\"code\": \"```inner```\"}\n```",
        r#"{"code": "```inner```"}"#,
        "fence",
    ),
    ok("```json\n{\"a\": 1}\n", r#"{"a": 1}"#, "fence"),
    ok("```json5\n{\"a\": 1}\n```", r#"{"a": 1}"#, "fence"),
    ok(
        "```json\n{\"a\": 1}\nThat is all.\n```",
        r#"{"a": 1}"#,
        "fence extract",
    ),
    // extract: carved out of prose.
    ok(
        "Here is the JSON you asked for: {\"a\": 1}",
        r#"{"a": 1}"#,
        "extract",
    ),
    ok(
        "{\"a\": 1}\n\nThis object has one key, a, set to 1.",
        r#"{"a": 1}"#,
        "extract",
    ),
    ok(
        "Answer:\n[1, 2, 3]\nHope this helps",
        "[1, 2, 3]",
        "extract",
    ),
    ok(
        "Set {the config} first, then: {\"a\": 1}",
        r#"{"a": 1}"#,
        "extract",
    ),
    ok(
        "Click [button] and read {\"a\": [1]}",
        r#"{"a": [1]}"#,
        "extract",
    ),
    ok("{\"a\": 1} {\"b\": 2}", r#"{"a": 1}"#, "extract"),
    ok("[1] and [2]", "[1]", "extract"),
    ok(
        "<|im_start|>assistant\n{\"a\": 1}<|im_end|>",
        r#"{"a": 1}"#,
        "extract",
    ),
    ok("{\"a\": 1}</s>", r#"{"a": 1}"#, "extract"),
    ok(
        "The value {\"s\": \"has } and { inside\"} is it.",
        r#"{"s": "has } and { inside"}"#,
        "extract",
    ),
    ok("Note: [the list] is empty: []", "[]", "extract"),
    ok("{\"a\": 1}}", r#"{"a": 1}"#, "extract"),
    ok("json\n{\"a\": 1}", r#"{"a": 1}"#, "extract"),
    ok("callback({\"a\": 1});", r#"{"a": 1}"#, "extract"),
    ok("{{\"a\": 1}}", r#"{"a": 1}"#, "extract"),
    ok(
        "<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a.rs\"}}\n</tool_call>",
        r#"{"name": "read", "arguments": {"path": "a.rs"}}"#,
        "extract",
    ),
    ok(r#""{\"a\": 1}""#, r#""{\"a\": 1}""#, ""),
];

const SYNTAX: &[Case] = &[
    // trailing_comma
    ok(r#"{"a": 1,}"#, r#"{"a": 1}"#, "trailing_comma"),
    ok("[1, 2, 3,]", "[1, 2, 3]", "trailing_comma"),
    ok(
        "{\"a\": [1, 2,\n],\n}",
        r#"{"a": [1, 2]}"#,
        "trailing_comma",
    ),
    ok(
        r#"[{"a": 1,}, {"b": 2,},]"#,
        r#"[{"a": 1}, {"b": 2}]"#,
        "trailing_comma",
    ),
    ok(
        r#"{"s": "keep ,} this",}"#,
        r#"{"s": "keep ,} this"}"#,
        "trailing_comma",
    ),
    ok("[1 ,  ]", "[1]", "trailing_comma"),
    ok(
        "```json\n{\"steps\": [\"a\", \"b\",],}\n```",
        r#"{"steps": ["a", "b"]}"#,
        "fence trailing_comma",
    ),
    ok("[[],[1,],]", "[[], [1]]", "trailing_comma"),
    // quotes
    ok("{'a': 'b'}", r#"{"a": "b"}"#, "quotes"),
    ok(
        "{'msg': 'don't stop'}",
        r#"{"msg": "don't stop"}"#,
        "quotes",
    ),
    ok(
        "{'msg': 'it\\'s fine'}",
        r#"{"msg": "it's fine"}"#,
        "quotes",
    ),
    ok("{'q': 'say \"hi\"'}", r#"{"q": "say \"hi\""}"#, "quotes"),
    ok("['a', 'b', 'c']", r#"["a", "b", "c"]"#, "quotes"),
    ok(
        "{\"a\": 'mixed', 'b': \"quotes\"}",
        r#"{"a": "mixed", "b": "quotes"}"#,
        "quotes",
    ),
    ok(
        "{'name': 'O'Brien', 'x': 1}",
        r#"{"name": "O'Brien", "x": 1}"#,
        "quotes",
    ),
    ok("{'text': 'a, b: c'}", r#"{"text": "a, b: c"}"#, "quotes"),
    ok("{'path': 'C:\\\\dir'}", r#"{"path": "C:\\dir"}"#, "quotes"),
    ok(
        "{'list': ['it's', 'ok'],}",
        r#"{"list": ["it's", "ok"]}"#,
        "trailing_comma quotes",
    ),
    // comments
    ok(
        "{\n  // the answer\n  \"a\": 1\n}",
        r#"{"a": 1}"#,
        "comments",
    ),
    ok(
        "{\"a\": 1 /* one */, \"b\": 2}",
        r#"{"a": 1, "b": 2}"#,
        "comments",
    ),
    ok("[1, 2] // done", "[1, 2]", "extract"),
    ok(
        "{\n  \"a\": 1, # python style\n  \"b\": 2\n}",
        r#"{"a": 1, "b": 2}"#,
        "comments",
    ),
    ok(
        "{\"url\": \"http://x.org/a//b\"}x",
        r#"{"url": "http://x.org/a//b"}"#,
        "extract",
    ),
    ok(
        "{\"a\": 1, // first\n \"b\": [2, /* two */ 3]}",
        r#"{"a": 1, "b": [2, 3]}"#,
        "comments",
    ),
    ok("{/* lead */\"a\": 1}", r#"{"a": 1}"#, "comments"),
    // unquoted keys and bare words
    ok("{a: 1}", r#"{"a": 1}"#, "unquoted"),
    ok(
        "{name: \"x\", max_tokens: 5}",
        r#"{"name": "x", "max_tokens": 5}"#,
        "unquoted",
    ),
    ok(
        "{\n  steps: [\n    {id: 1, title: \"go\"}\n  ]\n}",
        r#"{"steps": [{"id": 1, "title": "go"}]}"#,
        "unquoted",
    ),
    ok("{max-tokens: 5}", r#"{"max-tokens": 5}"#, "unquoted"),
    ok(
        "{1: \"one\", 2: \"two\"}",
        r#"{"1": "one", "2": "two"}"#,
        "unquoted",
    ),
    ok("{\"status\": ok}", r#"{"status": "ok"}"#, "unquoted"),
    ok(
        "{\"path\": ./src/main.rs, \"n\": 1}",
        r#"{"path": "./src/main.rs", "n": 1}"#,
        "unquoted",
    ),
    ok(
        "{verdict: approve}",
        r#"{"verdict": "approve"}"#,
        "unquoted",
    ),
    // smart quotes
    ok("{“a”: “b”}", r#"{"a": "b"}"#, "smart_quotes"),
    ok("{‘a’: ‘it’s’}", r#"{"a": "it’s"}"#, "smart_quotes"),
    ok(
        r#"{"a": "she said “hi”"}x"#,
        r#"{"a": "she said “hi”"}"#,
        "extract",
    ),
    ok("[“x”, “y”]", r#"["x", "y"]"#, "smart_quotes"),
    ok(
        "{“title”: “The “best” plan”}",
        r#"{"title": "The “best” plan"}"#,
        "smart_quotes",
    ),
    ok(
        "{“a”: 1, \"b\": “c”}",
        r#"{"a": 1, "b": "c"}"#,
        "smart_quotes",
    ),
    // non_finite
    ok("{\"a\": NaN}", r#"{"a": null}"#, "non_finite"),
    ok("[Infinity, -Infinity, 1]", "[null, null, 1]", "non_finite"),
    ok("{\"a\": undefined}", r#"{"a": null}"#, "non_finite"),
    ok("{\"big\": 1e999}", r#"{"big": null}"#, "non_finite"),
    ok("{\"s\": \"NaN\"}x", r#"{"s": "NaN"}"#, "extract"),
    ok("{'a': NaN}", r#"{"a": null}"#, "quotes non_finite"),
];

#[test]
fn valid_and_located_documents() {
    check(VALID_AND_LOCATED);
}

#[test]
fn syntax_fixes() {
    check(SYNTAX);
}

#[test]
fn the_corpus_covers_every_rung_but_coerce_and_has_150_rows() {
    let all: Vec<&Case> = VALID_AND_LOCATED
        .iter()
        .chain(SYNTAX)
        .chain(super::corpus_tests_loose::LOOSER)
        .chain(super::corpus_tests_more::ALL_MORE.iter().copied().flatten())
        .chain(super::corpus_tests_gaps::ALL_GAPS.iter().copied().flatten())
        .chain(
            super::corpus_tests_breadth::ALL_BREADTH
                .iter()
                .copied()
                .flatten(),
        )
        .chain(
            super::corpus_tests_breadth_more::ALL_BREADTH_MORE
                .iter()
                .copied()
                .flatten(),
        )
        .collect();
    assert!(all.len() >= 150, "{} rows", all.len());
    for rung in Rung::ALL {
        if rung == Rung::Coerce {
            continue;
        }
        let named = all.iter().any(|case| match case.expect {
            Expect::Value(_, names) => {
                rung == Rung::None && names.is_empty() || rungs(names).last() == Some(&rung)
            }
            Expect::Fails(_) => false,
        });
        assert!(named, "no row reports {rung}");
    }
}
