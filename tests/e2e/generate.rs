//! `slmcode generate` against the real llama.cpp server with its random-weight model: every one
//! of the 16 contracts under each forced mechanism. The model's unconstrained output is never
//! JSON, so json_schema and gbnf_grammar must succeed every time (the server's decoder makes
//! the JSON), while json_object and prompt_only must fail cleanly: a schema violation or no
//! JSON, with the exit code of the failure class and the raw text in `--json`, never a crash.
//!
//! The constrained runs sample (temperature 1) with fixed seeds: a harder test of enforcement
//! than the one argmax path, and the only way this model fits every contract in the server's
//! 4096-token context. At temperature 0 its argmax, under the derived grammar, keeps every
//! array going to `maxItems` (plan, tasks, docs and architect need more than 2600 tokens);
//! sampled, it writes answers of every size and closes them.

use serde_json::Value;
use slmcode::schema;

use crate::util::{Run, Slm};
use crate::{real_engine, slm};

/// Small enough that an unconstrained ramble ends quickly.
const BUDGET: &str = "256";

/// Enough for every contract's sampled, constrained answer from this model (at most ~750
/// tokens seen), and with the longest contract prompt (~1300 tokens) inside a 4096 context.
const CONSTRAINED_BUDGET: &str = "1536";

/// The seeds of the sampled runs.
const SEEDS: [&str; 2] = ["1", "2"];

fn generate(slm: &Slm, contract: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "generate",
        "--schema",
        contract,
        "--prompt",
        "Carry out the task: add a cache to the HTTP client.",
        "--json",
    ];
    args.extend_from_slice(extra);
    slm.run(args, "")
}

/// The exit code `generate` documents for a failure class.
fn exit_for(class: &str) -> i32 {
    match class {
        "empty" | "prose" | "malformed" => 3,
        "truncated" => 4,
        "wrong_shape" => 5,
        other => panic!("unknown failure class {other}"),
    }
}

/// Every contract succeeds under `mechanism` with each seed, first try, valid as it came.
fn every_contract_succeeds(mechanism: &str, wire_forms: &[&str]) {
    let Some((endpoint, model)) = real_engine(&format!("generate::{mechanism}")) else {
        return;
    };
    let mut slm = slm(&endpoint, &model);
    slm.env("SLMCODE_TEMPERATURE", "1");
    for (contract, seed) in schema::contracts()
        .iter()
        .flat_map(|contract| SEEDS.map(|seed| (contract, seed)))
    {
        let run = generate(
            &slm,
            contract.name,
            &[
                "--mechanism",
                mechanism,
                "--max-tokens",
                CONSTRAINED_BUDGET,
                "--seed",
                seed,
            ],
        );
        assert_eq!(
            run.code, 0,
            "{} under {mechanism}, seed {seed}: {run:#?}",
            contract.name
        );
        let json = run.json();
        assert!(
            contract.validate(&json["value"]).is_ok(),
            "{}: {json:#}",
            contract.name
        );
        let meta = &json["meta"];
        assert_eq!(meta["mechanism"], mechanism, "{}: {meta:#}", contract.name);
        assert!(
            wire_forms.contains(&meta["wire_form"].as_str().unwrap()),
            "{}: {meta:#}",
            contract.name
        );
        assert_eq!(meta["source"], "forced");
        assert_eq!(meta["repair_rung"], "none", "{}: {meta:#}", contract.name);
        assert_eq!(meta["attempts"], 1, "{}: {meta:#}", contract.name);
        assert_eq!(meta["demotions"], Value::Array(Vec::new()));
    }
}

/// Every contract fails cleanly under `mechanism` (nothing makes the random model's JSON fit).
fn every_contract_fails_cleanly(mechanism: &str, classes: &[&str]) {
    let Some((endpoint, model)) = real_engine(&format!("generate::{mechanism}")) else {
        return;
    };
    let slm = slm(&endpoint, &model);
    for contract in schema::contracts() {
        let run = generate(
            &slm,
            contract.name,
            &["--mechanism", mechanism, "--max-tokens", BUDGET],
        );
        let json = run.json();
        let error = &json["error"];
        let class = error["class"]
            .as_str()
            .unwrap_or_else(|| panic!("{run:#?}"));
        assert!(classes.contains(&class), "{}: {run:#?}", contract.name);
        assert_eq!(run.code, exit_for(class), "{}: {run:#?}", contract.name);
        assert_eq!(error["exit_code"], run.code);
        assert!(error["raw"].is_string(), "{}: {json:#}", contract.name);
        assert!(run.stderr.starts_with("error: "), "{}", run.stderr);
        assert_eq!(json["meta"]["mechanism"], mechanism);
        assert!(json["meta"]["attempts"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn every_contract_under_json_schema() {
    every_contract_succeeds("json_schema", &["json_schema_strict", "json_schema"]);
}

#[test]
fn every_contract_under_gbnf_grammar() {
    every_contract_succeeds("gbnf_grammar", &["grammar"]);
}

#[test]
fn every_contract_under_json_object_fails_cleanly() {
    // JSON, but not the contract's shape.
    every_contract_fails_cleanly("json_object", &["wrong_shape", "truncated"]);
}

#[test]
fn every_contract_under_prompt_only_fails_cleanly() {
    every_contract_fails_cleanly(
        "prompt_only",
        &["empty", "prose", "malformed", "truncated", "wrong_shape"],
    );
}

#[test]
fn the_negotiated_mechanism_is_the_compact_grammar_and_the_next_run_uses_the_cache() {
    let Some((endpoint, model)) = real_engine("generate::negotiated") else {
        return;
    };
    let slm = slm(&endpoint, &model);
    let run = generate(&slm, "plan", &["--max-tokens", BUDGET]);
    let json = run.code(0).json();
    assert!(
        schema::contract("plan")
            .unwrap()
            .validate(&json["value"])
            .is_ok()
    );
    // The probe selects strict json_schema; on llama-server the derived grammar goes first
    // (compact whitespace), and the server streams.
    assert_eq!(json["meta"]["wire_form"], "grammar");
    assert_eq!(json["meta"]["source"], "negotiated");
    assert_eq!(json["meta"]["streamed"], true);
    let status = slm
        .run(["status", "--json", "--offline"], "")
        .code(0)
        .json();
    assert_eq!(status["connection"]["source"], "cache");
    assert_eq!(status["repair"]["total"], 1);
}

#[test]
fn truncation_is_reported_and_fixed_by_the_reask() {
    let Some((endpoint, model)) = real_engine("generate::truncation") else {
        return;
    };
    let slm = slm(&endpoint, &model);
    // scope_judge takes this model about 37 tokens under json_schema: 8 is far too few, and
    // without a re-ask the cut is reported with what was complete.
    let run = generate(
        &slm,
        "scope_judge",
        &[
            "--mechanism",
            "json_schema",
            "--max-tokens",
            "8",
            "--reask",
            "0",
        ],
    );
    run.code(4);
    let json = run.json();
    assert_eq!(json["error"]["class"], "truncated");
    assert_eq!(json["meta"]["finish_reason"], "length");
    assert!(json["error"]["raw"].as_str().unwrap().starts_with('{'));
    assert!(
        json["error"]["missing_required"]
            .as_array()
            .unwrap()
            .contains(&Value::from("in_scope")),
        "{json:#}"
    );
    // 24 tokens: cut, and the one re-ask with 48 finishes the object.
    let run = generate(
        &slm,
        "scope_judge",
        &["--mechanism", "json_schema", "--max-tokens", "24"],
    );
    let json = run.code(0).json();
    let reask = &json["meta"]["reasks"][0];
    assert_eq!(reask["class"], "truncated");
    assert_eq!(reask["action"], "raise_max_tokens");
    assert_eq!(reask["max_tokens"], 48);
    assert!(
        schema::contract("scope_judge")
            .unwrap()
            .validate(&json["value"])
            .is_ok()
    );
}

#[test]
fn structured_decoding_off_sends_no_constraint_and_the_error_says_so() {
    let Some((endpoint, model)) = real_engine("generate::off") else {
        return;
    };
    let slm = slm(&endpoint, &model);
    slm.run(["config", "set", "structured_decoding", "off"], "")
        .code(0);
    let run = generate(&slm, "plan", &["--max-tokens", "64"]);
    let json = run.json();
    let class = json["error"]["class"].as_str().unwrap();
    assert_eq!(run.code, exit_for(class), "{run:#?}");
    assert_eq!(json["meta"]["source"], "structured_decoding_off");
    assert_eq!(json["meta"]["wire_form"], Value::Null);
    assert_eq!(json["meta"]["degrade_reason"], "structured_decoding_off");
    assert!(
        json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("structured_decoding is off: nothing constrained the output"),
        "{json:#}"
    );
    assert!(
        run.stderr.contains("structured_decoding auto"),
        "{}",
        run.stderr
    );
}
