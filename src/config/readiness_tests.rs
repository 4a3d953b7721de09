//! Readiness: the table adds up, each check passes and fails where documented, and applying
//! the changes it offers makes every fixable check pass.

use super::*;
use crate::config::{Environment, Overrides, Resolved, resolve};

fn resolved(file: &str, pairs: &[(&str, &str)]) -> Resolved {
    let directory = tempfile::tempdir().unwrap();
    std::fs::write(directory.path().join("config.toml"), file).unwrap();
    let mut all = vec![(
        "SLMCODE_CONFIG_DIR".to_owned(),
        directory.path().display().to_string(),
    )];
    all.extend(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    resolve(&Environment::from_pairs(all), &Overrides::new()).unwrap()
}

fn check<'a>(assessment: &'a Assessment, name: &str) -> &'a Check {
    assessment
        .checks
        .iter()
        .find(|check| check.name == name)
        .unwrap()
}

fn failing(assessment: &Assessment) -> Vec<&'static str> {
    assessment
        .checks
        .iter()
        .filter(|check| !check.passed)
        .map(|check| check.name)
        .collect()
}

const READY: &str =
    "provider = \"llamacpp\"\nendpoint = \"http://127.0.0.1:8080/v1\"\nmodel = \"qwen\"\n";

#[test]
fn the_table_adds_up_to_100_and_every_check_is_assessed_in_order() {
    assert_eq!(CHECKS.iter().map(|spec| spec.points).sum::<u32>(), 100);
    let assessment = assess(&resolved(READY, &[]));
    let names: Vec<_> = assessment.checks.iter().map(|check| check.name).collect();
    let table: Vec<_> = CHECKS.iter().map(|spec| spec.name).collect();
    assert_eq!(names, table);
    assert_eq!(assessment.score, 100, "{assessment:#?}");
    assert!(assessment.changes().next().is_none());
}

#[test]
fn the_defaults_lose_only_model_and_endpoint() {
    let assessment = assess(&resolved("", &[]));
    assert_eq!(failing(&assessment), ["model", "endpoint"]);
    assert_eq!(assessment.score, 80);
    let model = check(&assessment, "model");
    assert_eq!(model.current, "(unset)");
    assert!(model.changes.is_empty());
    assert_eq!(
        model.advice.as_deref(),
        Some("run `slmcode config set model MODEL`, with the id the server lists at /v1/models")
    );
}

#[test]
fn openai_needs_no_endpoint_but_a_key() {
    let assessment = assess(&resolved(
        "provider = \"openai\"\nmodel = \"gpt-4o-mini\"\n",
        &[],
    ));
    assert_eq!(failing(&assessment), ["api_key"]);
    let key = check(&assessment, "api_key");
    assert_eq!(key.current, "missing");
    assert_eq!(
        key.advice.as_deref(),
        Some("openai needs a key: export OPENAI_API_KEY=...")
    );
    let with_key = assess(&resolved(
        "provider = \"openai\"\nmodel = \"gpt-4o-mini\"\n",
        &[("OPENAI_API_KEY", "sk-env")],
    ));
    assert_eq!(with_key.score, 100);
    assert_eq!(
        check(&with_key, "api_key").current,
        "from env OPENAI_API_KEY"
    );
}

#[test]
fn a_literal_key_in_the_file_fails_even_when_a_variable_wins() {
    let file = format!("{READY}api_key = \"sk-file\"\n");
    let assessment = assess(&resolved(&file, &[("LLAMA_API_KEY", "sk-env")]));
    let key = check(&assessment, "api_key");
    assert!(!key.passed);
    assert_eq!(
        key.current,
        "from env LLAMA_API_KEY, and a literal in the file"
    );
    assert_eq!(
        key.advice.as_deref(),
        Some(
            "move the key to a variable: export LLAMA_API_KEY=..., then `slmcode config set \
             api_key_env LLAMA_API_KEY` and `slmcode config unset api_key`"
        )
    );
    assert!(
        key.changes.is_empty(),
        "a key is never moved or deleted for the user"
    );
    let current = check(&assess(&resolved(&file, &[])), "api_key")
        .current
        .clone();
    assert_eq!(current, "literal in the file");
}

#[test]
fn a_local_provider_needs_no_key() {
    let assessment = assess(&resolved(READY, &[]));
    assert_eq!(
        check(&assessment, "api_key").current,
        "none (not needed by llamacpp)"
    );
}

#[test]
fn numeric_checks_recommend_the_nearest_passing_value() {
    for (file, name, before, after) in [
        ("timeout_s = 30\n", "timeout_s", 30, 120),
        ("timeout_s = 3600\n", "timeout_s", 3600, 600),
        ("probe_timeout_s = 5\n", "probe_timeout_s", 5, 20),
        ("probe_timeout_s = 300\n", "probe_timeout_s", 300, 60),
        ("max_tokens = 512\n", "max_tokens", 512, 2048),
        ("max_tokens = 32768\n", "max_tokens", 32768, 8192),
    ] {
        let assessment = assess(&resolved(&format!("{READY}{file}"), &[]));
        assert_eq!(failing(&assessment), [name], "{file}");
        let check = check(&assessment, name);
        assert_eq!(check.current, before.to_string());
        assert_eq!(check.changes.len(), 1);
        assert_eq!(check.changes[0].before, SettingValue::Integer(before));
        assert_eq!(check.changes[0].after, SettingValue::Integer(after));
        assert_eq!(check.points, 0);
        assert_eq!(assessment.score, 100 - check.max_points);
    }
}

#[test]
fn too_many_reasks_fail_the_reask_check() {
    let assessment = assess(&resolved(&format!("{READY}reask = 5\n"), &[]));
    assert_eq!(failing(&assessment), ["reask"]);
    let changes: Vec<_> = assessment.changes().cloned().collect();
    assert_eq!(
        changes,
        [Change {
            key: Key::Reask,
            before: SettingValue::Integer(5),
            after: SettingValue::Integer(3)
        }]
    );
}

#[test]
fn a_deliberate_structured_decoding_off_is_kept_and_costs_its_points() {
    let file = format!("{READY}structured_decoding = \"none\"\ntemperature = 0.7\n");
    let assessment = assess(&resolved(&file, &[]));
    assert_eq!(failing(&assessment), ["structured_decoding", "temperature"]);
    assert_eq!(assessment.score, 75);
    // Only the temperature is changed: off is the troubleshooting switch, never switched back.
    let changes: Vec<_> = assessment
        .changes()
        .map(|change| (change.key, change.before.display(), change.after.display()))
        .collect();
    assert_eq!(
        changes,
        [(Key::Temperature, "0.7".to_owned(), "0".to_owned())]
    );
    let off = check(&assessment, "structured_decoding");
    assert_eq!((off.points, off.max_points), (0, 15));
    let advice = off.advice.as_deref().unwrap();
    assert!(advice.starts_with("off is kept"), "{advice}");
    assert!(advice.contains("costs these points"), "{advice}");
    assert!(advice.contains("relies on repair"), "{advice}");
    // 0.2 is the documented limit: it passes.
    let limit = assess(&resolved(&format!("{READY}temperature = 0.2\n"), &[]));
    assert_eq!(limit.score, 100);
}

#[test]
fn the_measured_sampling_defaults_are_scored() {
    let file = format!(
        "{READY}anti_repetition = \"reask\"\ngrammar_whitespace = \"pretty\"\ncall_timeout_s = 30\n"
    );
    let assessment = assess(&resolved(&file, &[]));
    assert_eq!(
        failing(&assessment),
        ["call_timeout_s", "anti_repetition", "grammar_whitespace"]
    );
    assert_eq!(assessment.score, 80);
    let changes: Vec<_> = assessment
        .changes()
        .map(|change| (change.key, change.after.display()))
        .collect();
    assert_eq!(
        changes,
        [
            (Key::CallTimeoutS, "60".to_owned()),
            (Key::AntiRepetition, "always".to_owned()),
            (Key::GrammarWhitespace, "compact".to_owned()),
        ]
    );
}

#[test]
fn applying_every_change_passes_every_fixable_check() {
    let file = "provider = \"ollama\"\nstructured_decoding = \"off\"\nmax_tokens = 100\n\
                temperature = 1.5\ntimeout_s = 5\nprobe_timeout_s = 2000\n\
                reask = 5\ncall_timeout_s = 5000\n\
                anti_repetition = \"off\"\ngrammar_whitespace = \"pretty\"\n";
    let before = resolved(file, &[]);
    let assessment = assess(&before);
    // Only the key check passes: ollama needs none.
    assert_eq!(failing(&assessment).len(), 11, "{assessment:#?}");
    assert_eq!(assessment.score, 5);
    let mut after = before.clone();
    for change in assessment.changes() {
        change
            .key
            .apply(&mut after.settings, &change.after.display())
            .unwrap();
    }
    let fixed = assess(&after);
    // A deliberate `off` is kept: the user turns it back on.
    assert_eq!(
        failing(&fixed),
        ["structured_decoding", "model", "endpoint"]
    );
    assert_eq!(fixed.score, 65);
}
