//! The extraction corpus: `tests/fixtures/tools/extract_corpus.txt`, run against the coding
//! agent's tool set. The file's header documents the format.

use serde_json::Value;

use super::fixture;
use crate::tools::{ExtractError, ExtractOptions, extract};

const CORPUS: &str = include_str!("../../../tests/fixtures/tools/extract_corpus.txt");

struct Case {
    name: String,
    options: ExtractOptions,
    text: String,
    expect: Value,
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for block in CORPUS.split("\n=== ").skip(1) {
        let (head, expect) = block.split_once("\n--- expect\n").expect("an expect line");
        let (name, mut text) = head.split_once('\n').expect("a text");
        let mut options = ExtractOptions::default();
        while let Some(rest) = text.strip_prefix("%% ") {
            let (flag, after) = rest.split_once('\n').unwrap_or((rest, ""));
            match flag {
                "all" => options.serial = false,
                "length" => options.finish_reason_length = true,
                other => panic!("unknown option {other}"),
            }
            text = after;
        }
        cases.push(Case {
            name: name.to_owned(),
            options,
            text: text.to_owned(),
            expect: serde_json::from_str(expect.trim())
                .unwrap_or_else(|error| panic!("{name}: expectation: {error}")),
        });
    }
    cases
}

fn error_kind(error: &ExtractError) -> &'static str {
    match error {
        ExtractError::NoCall { .. } => "no_call",
        ExtractError::Truncated { .. } => "truncated",
        ExtractError::UnknownTool { .. } => "unknown_tool",
        ExtractError::InvalidArguments { .. } => "invalid_arguments",
    }
}

#[test]
fn the_corpus_has_the_styles_small_models_write() {
    let cases = cases();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    let texts: String = cases.iter().map(|case| case.text.as_str()).collect();
    for style in [
        "<tool_call>",
        "```json",
        "\"parameters\"",
        "\"input\"",
        "\\\"",
        "'name'",
        ",}",
        "<function=",
        "[TOOL_CALLS]",
        "tool_calls",
    ] {
        assert!(texts.contains(style), "no case with {style}");
    }
}

#[test]
fn every_corpus_case_extracts_as_expected() {
    let tools = fixture("coding_agent.json");
    let mut failures = Vec::new();
    for case in cases() {
        let outcome = extract(&case.text, &tools, &case.options);
        if let Err(problem) = check(&case, &outcome) {
            failures.push(format!("{}: {problem}\n  got: {outcome:?}", case.name));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn check(
    case: &Case,
    outcome: &Result<crate::tools::Extraction, ExtractError>,
) -> Result<(), String> {
    let expect = &case.expect;
    if let Some(kind) = expect.get("error").and_then(Value::as_str) {
        let Err(error) = outcome else {
            return Err(format!("expected a {kind} error"));
        };
        if error_kind(error) != kind {
            return Err(format!("expected {kind}, got {}", error_kind(error)));
        }
        if let Some(class) = expect.get("class").and_then(Value::as_str) {
            let ExtractError::NoCall { class: found, .. } = error else {
                return Err(format!(
                    "a class is expected of a no_call error, not {error}"
                ));
            };
            if found.as_str() != class {
                return Err(format!("expected class {class}, got {}", found.as_str()));
            }
        }
        if let Some(part) = expect.get("message").and_then(Value::as_str)
            && !error.to_string().contains(part)
        {
            return Err(format!("message {:?} lacks {part:?}", error.to_string()));
        }
        return Ok(());
    }
    let extraction = outcome
        .as_ref()
        .map_err(|error| format!("error: {error}"))?;
    let first = extraction.calls.first().ok_or("no call")?;
    if let Some(call) = expect.get("call")
        && &first.call() != call
    {
        return Err(format!("first call {} is not {call}", first.call()));
    }
    if let Some(Value::Array(calls)) = expect.get("calls") {
        let got: Vec<Value> = extraction.calls.iter().map(|call| call.call()).collect();
        if &got != calls {
            return Err(format!("calls {got:?}"));
        }
    }
    if let Some(source) = expect.get("source")
        && source != first.source.as_str()
    {
        return Err(format!("source {}", first.source.as_str()));
    }
    if let Some(rung) = expect.get("rung")
        && rung != first.rung.as_str()
    {
        return Err(format!("rung {}", first.rung.as_str()));
    }
    if let Some(Value::Array(rungs)) = expect.get("rungs_changed") {
        let got: Vec<&str> = first
            .rungs_changed
            .iter()
            .map(|rung| rung.as_str())
            .collect();
        if rungs
            .iter()
            .map(|rung| rung.as_str().unwrap())
            .ne(got.iter().copied())
        {
            return Err(format!("rungs_changed {got:?}"));
        }
    }
    let dropped: Vec<Option<&str>> = extraction
        .dropped
        .iter()
        .map(|dropped| dropped.name.as_deref())
        .collect();
    let expected_dropped: Vec<Option<&str>> = match expect.get("dropped") {
        Some(Value::Array(names)) => names.iter().map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if dropped != expected_dropped {
        return Err(format!("dropped {dropped:?}"));
    }
    if let Some(Value::Array(notes)) = expect.get("notes") {
        for note in notes.iter().filter_map(Value::as_str) {
            if !first.notes.iter().any(|written| written.contains(note)) {
                return Err(format!("no note with {note:?} in {:?}", first.notes));
            }
        }
    }
    if let Some(count) = expect.get("coercions").and_then(Value::as_u64)
        && first.coercions.len() as u64 != count
    {
        return Err(format!("coercions {:?}", first.coercions));
    }
    if case.options.serial && extraction.calls.len() != 1 {
        return Err("serial extraction kept more than one call".into());
    }
    Ok(())
}

/// Built here, not kept in the corpus file: that file is also a corpus of texts that never loop.
#[test]
fn a_call_that_loops_until_the_budget_runs_out_is_a_loop_not_prose() {
    let tools = fixture("coding_agent.json");
    let text = format!(
        "{{\"name\": \"edit_file\", \"arguments\": {{\"path\": \"a.rs\", \"edits\": [{}{{\"old_text\": \"x\", \"new_",
        "{\"old_text\": \"x\", \"new_text\": \"y\"}, ".repeat(12)
    );
    let options = ExtractOptions {
        finish_reason_length: true,
        ..ExtractOptions::default()
    };
    match extract(&text, &tools, &options) {
        Err(ExtractError::NoCall { class, message }) => {
            assert_eq!(class.as_str(), "repetition", "{message}");
            assert!(message.contains("the answer loops"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}
