//! Readiness: how safe the resolved settings are for a small local model, as a score out of
//! 100 and the changes that would raise it.
//!
//! [`CHECKS`] is the one table of checks, points and thresholds (the README copies it). Each
//! check is all or nothing. [`assess`] is a pure function of a [`Resolved`]; applying the
//! changes to the file is the caller's job (`slmcode readiness --fix`), and only changes with
//! one right value are offered: a model, an endpoint or where a key lives are for the user to
//! decide, so those checks say what to run instead.

use super::keys::Key;
use super::resolve::{ConfigWarning, Resolved, SettingSource};
use super::values::{AntiRepetition, SettingValue, StructuredDecoding};
use super::{Provider, Settings};
use crate::schema::gbnf::Whitespace;

/// The smallest `max_tokens` that fits the largest contract's answer. The largest shipped
/// contract examples (`examples/contracts/architect.json` and `plan.json`) are about 1.2 KB of
/// pretty JSON, roughly 400 tokens at 3 bytes a token; 2048 leaves room for an answer five
/// times that size. (At their schema bounds the contracts allow far more, up to megabytes, so
/// the bounds cannot be the measure.) Below this a full answer is cut by `finish_reason:
/// length` and arrives truncated.
pub const MIN_MAX_TOKENS: u32 = 2048;
/// The largest `max_tokens` worth allowing: a small model that loops (repeating a list item
/// until the budget ends) burns the whole budget, and small local context windows (4k-8k)
/// must still hold the prompt.
pub const MAX_MAX_TOKENS: u32 = 8192;
/// The shortest request timeout that survives a cold local load: llama-server, Ollama and LM
/// Studio load a several-GB model on the first request, which takes tens of seconds on a
/// laptop disk, and then generate a 2,000-token answer at a few tokens per second on CPU.
pub const MIN_TIMEOUT_S: u64 = 120;
/// The longest request timeout worth waiting: past this a hung server holds a run for good.
pub const MAX_TIMEOUT_S: u64 = 600;
/// The shortest probe deadline: the probe's first request may wait for the same cold load.
pub const MIN_PROBE_TIMEOUT_S: u64 = 20;
/// The longest probe deadline: the probe must never become the slow path.
pub const MAX_PROBE_TIMEOUT_S: u64 = 60;
/// The highest temperature for JSON roles. Measured on a real small model with the
/// anti-repetition penalties on (bench/README.md, "Defaults"): 0 gave the most valid answers
/// (16 of 16, twice), 0.2 and 0.3 one or two fewer depending on the seed.
pub const MAX_TEMPERATURE: f64 = 0.2;
/// The shortest deadline for a whole structured call: a small model on CPU writes a long
/// contract's answer in tens of seconds, and a re-ask needs as long again.
pub const MIN_CALL_TIMEOUT_S: u64 = 60;
/// The longest deadline worth waiting for one call: past it a harness step is better failed
/// and retried with another model or setting.
pub const MAX_CALL_TIMEOUT_S: u64 = 900;
/// The most re-asks per structured call: the call's deadline bounds them, and past three a
/// failure mostly repeats itself.
pub const MAX_REASK: u32 = 3;

/// One row of the checks table: what is checked, what it is worth, what passes.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct CheckSpec {
    /// The check's name (`structured_decoding`, `retries`, `api_key`).
    pub name: &'static str,
    /// What passing is worth.
    pub points: u32,
    /// What passes, in words.
    pub passes_when: &'static str,
    /// Why it matters for a small model.
    pub why: &'static str,
}

/// Every check, in the order the table shows them. The points add up to 100.
pub static CHECKS: [CheckSpec; 12] = [
    CheckSpec {
        name: "structured_decoding",
        points: 15,
        passes_when: "auto",
        why: "off sends every request unconstrained and leaves it all to repair; --fix keeps a deliberate off (the troubleshooting switch)",
    },
    CheckSpec {
        name: "model",
        points: 10,
        passes_when: "set",
        why: "capabilities are probed and cached per model; an unset model is whatever the server loaded",
    },
    CheckSpec {
        name: "endpoint",
        points: 10,
        passes_when: "set (openai: its default is fine)",
        why: "the preset's default port is a guess about how the server was started",
    },
    CheckSpec {
        name: "timeout_s",
        points: 5,
        passes_when: "120 to 600",
        why: "a cold local load before the first token takes minutes; a server that sends nothing for longer is stuck",
    },
    CheckSpec {
        name: "call_timeout_s",
        points: 5,
        passes_when: "60 to 900",
        why: "one deadline bounds a call and its re-asks; too short cuts a slow model's long answer, too long holds a harness step",
    },
    CheckSpec {
        name: "probe_timeout_s",
        points: 5,
        passes_when: "20 to 60",
        why: "the probe's first request may wait for a cold load, but the probe must never be the slow path",
    },
    CheckSpec {
        name: "reask",
        points: 10,
        passes_when: "at most 3",
        why: "re-asks run within the call's deadline, each with a fresh seed after a loop; past three a failure mostly repeats itself",
    },
    CheckSpec {
        name: "max_tokens",
        points: 10,
        passes_when: "2048 to 8192",
        why: "too few cuts the largest contract's answer; too many lets a model that loops in a way the detector does not catch run for minutes",
    },
    CheckSpec {
        name: "temperature",
        points: 10,
        passes_when: "at most 0.2",
        why: "measured on a real small model: 0 gave the most valid answers; JSON roles need the most likely token",
    },
    CheckSpec {
        name: "anti_repetition",
        points: 10,
        passes_when: "always",
        why: "measured on a real small model: with the engine's penalties on every request, 16 of 16 answers were valid, without them 14",
    },
    CheckSpec {
        name: "grammar_whitespace",
        points: 5,
        passes_when: "compact",
        why: "measured on a real small model: the compact grammar gave as many or more valid answers in fewer tokens",
    },
    CheckSpec {
        name: "api_key",
        points: 5,
        passes_when: "from an environment variable, or none for a local provider",
        why: "a key in a file ends up in backups, dotfile repositories and screen shares",
    },
];

/// The outcome of one check.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Check {
    /// The check's name, as in [`CHECKS`].
    pub name: &'static str,
    /// Whether it passed.
    pub passed: bool,
    /// The current setting(s), as a person reads them.
    pub current: String,
    /// What would pass, for these settings.
    pub recommended: String,
    /// The points earned: all or nothing.
    pub points: u32,
    /// The points it is worth.
    pub max_points: u32,
    /// What `readiness --fix` writes for it (empty when it passed or cannot be fixed for you).
    pub changes: Vec<Change>,
    /// What to do by hand when it failed and no change can fix it.
    pub advice: Option<String>,
}

/// One value `readiness --fix` would write.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Change {
    /// The key.
    pub key: Key,
    /// Its value now.
    pub before: SettingValue,
    /// The recommended value.
    pub after: SettingValue,
}

/// Every check's outcome and the total.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Assessment {
    /// The checks, in [`CHECKS`] order.
    pub checks: Vec<Check>,
    /// The points earned, out of 100.
    pub score: u32,
}

impl Assessment {
    /// Every change the failing checks recommend, in check order.
    pub fn changes(&self) -> impl Iterator<Item = &Change> {
        self.checks.iter().flat_map(|check| check.changes.iter())
    }
}

/// Scores `resolved`.
pub fn assess(resolved: &Resolved) -> Assessment {
    let settings = &resolved.settings;
    let checks: Vec<Check> = CHECKS
        .iter()
        .map(|spec| {
            let outcome = match spec.name {
                "structured_decoding" => structured_decoding(settings),
                "model" => model(settings),
                "endpoint" => endpoint(settings),
                "timeout_s" => in_range(
                    Key::TimeoutS,
                    settings.timeout_s,
                    MIN_TIMEOUT_S,
                    MAX_TIMEOUT_S,
                ),
                "call_timeout_s" => in_range(
                    Key::CallTimeoutS,
                    settings.call_timeout_s,
                    MIN_CALL_TIMEOUT_S,
                    MAX_CALL_TIMEOUT_S,
                ),
                "probe_timeout_s" => in_range(
                    Key::ProbeTimeoutS,
                    settings.probe_timeout_s,
                    MIN_PROBE_TIMEOUT_S,
                    MAX_PROBE_TIMEOUT_S,
                ),
                "reask" => reask(settings),
                "max_tokens" => in_range(
                    Key::MaxTokens,
                    settings.max_tokens.into(),
                    MIN_MAX_TOKENS.into(),
                    MAX_MAX_TOKENS.into(),
                ),
                "temperature" => temperature(settings),
                "anti_repetition" => exactly(
                    Key::AntiRepetition,
                    settings,
                    SettingValue::Text(AntiRepetition::Always.as_str().to_owned()),
                ),
                "grammar_whitespace" => exactly(
                    Key::GrammarWhitespace,
                    settings,
                    SettingValue::Text(Whitespace::Compact.as_str().to_owned()),
                ),
                _ => api_key(resolved),
            };
            Check {
                name: spec.name,
                passed: outcome.passed,
                current: outcome.current,
                recommended: outcome.recommended,
                points: if outcome.passed { spec.points } else { 0 },
                max_points: spec.points,
                changes: if outcome.passed {
                    Vec::new()
                } else {
                    outcome.changes
                },
                advice: if outcome.passed { None } else { outcome.advice },
            }
        })
        .collect();
    let score = checks.iter().map(|check| check.points).sum();
    Assessment { checks, score }
}

/// What one check found, before points are attached.
struct Outcome {
    passed: bool,
    current: String,
    recommended: String,
    changes: Vec<Change>,
    advice: Option<String>,
}

fn change(key: Key, settings: &Settings, after: SettingValue) -> Change {
    Change {
        key,
        before: key.read(settings),
        after,
    }
}

/// `off` is never switched back: it is the troubleshooting switch (compare a model's answers
/// with and without constrained decoding), so a user who set it meant it. It costs the points,
/// and the advice says why and how to leave it.
fn structured_decoding(settings: &Settings) -> Outcome {
    let passed = settings.structured_decoding == StructuredDecoding::Auto;
    Outcome {
        passed,
        current: settings.structured_decoding.as_str().to_owned(),
        recommended: "auto".to_owned(),
        changes: Vec::new(),
        advice: Some(STRUCTURED_DECODING_OFF_ADVICE.to_owned()),
    }
}

/// What readiness says about `structured_decoding = off`, which `--fix` keeps.
pub const STRUCTURED_DECODING_OFF_ADVICE: &str = "off is kept (it is the switch for comparing \
     against prompt-only JSON), but it costs these points: every request goes unconstrained and \
     relies on repair; `slmcode config set structured_decoding auto` when you are done comparing";

fn model(settings: &Settings) -> Outcome {
    Outcome {
        passed: settings.model.is_some(),
        current: settings
            .model
            .clone()
            .unwrap_or_else(|| "(unset)".to_owned()),
        recommended: "set".to_owned(),
        changes: Vec::new(),
        advice: Some(
            "run `slmcode config set model MODEL`, with the id the server lists at /v1/models"
                .to_owned(),
        ),
    }
}

fn endpoint(settings: &Settings) -> Outcome {
    let passed = settings.endpoint.is_some() || settings.provider == Provider::OpenAi;
    Outcome {
        passed,
        current: settings
            .endpoint
            .clone()
            .unwrap_or_else(|| "(unset: the provider's default)".to_owned()),
        recommended: "set".to_owned(),
        changes: Vec::new(),
        advice: Some(
            "run `slmcode config set endpoint URL`, the server's base URL such as \
             http://127.0.0.1:8080/v1"
                .to_owned(),
        ),
    }
}

fn in_range(key: Key, value: u64, min: u64, max: u64) -> Outcome {
    Outcome {
        passed: (min..=max).contains(&value),
        current: value.to_string(),
        recommended: format!("{min} to {max}"),
        changes: vec![Change {
            key,
            before: SettingValue::Integer(value),
            after: SettingValue::Integer(value.clamp(min, max)),
        }],
        advice: None,
    }
}

/// Passes when `key` holds exactly `wanted`.
fn exactly(key: Key, settings: &Settings, wanted: SettingValue) -> Outcome {
    let current = key.read(settings);
    Outcome {
        passed: current == wanted,
        current: current.display(),
        recommended: wanted.display(),
        changes: vec![change(key, settings, wanted)],
        advice: None,
    }
}

fn reask(settings: &Settings) -> Outcome {
    Outcome {
        passed: settings.reask <= MAX_REASK,
        current: settings.reask.to_string(),
        recommended: format!("at most {MAX_REASK}"),
        changes: vec![change(
            Key::Reask,
            settings,
            SettingValue::Integer(MAX_REASK.into()),
        )],
        advice: None,
    }
}

fn temperature(settings: &Settings) -> Outcome {
    Outcome {
        passed: settings.temperature <= MAX_TEMPERATURE,
        current: SettingValue::Float(settings.temperature).display(),
        recommended: format!("at most {MAX_TEMPERATURE}"),
        changes: vec![change(Key::Temperature, settings, SettingValue::Float(0.0))],
        advice: None,
    }
}

fn api_key(resolved: &Resolved) -> Outcome {
    let settings = &resolved.settings;
    let in_file = resolved
        .warnings
        .iter()
        .any(|warning| matches!(warning, ConfigWarning::LiteralKeyInFile { .. }));
    let variable = settings
        .api_key_env
        .as_deref()
        .or(settings.provider.key_env())
        .unwrap_or("SLMCODE_API_KEY");
    let current = match resolved.source(Key::ApiKey) {
        SettingSource::Environment { name } if in_file => {
            format!("from env {name}, and a literal in the file")
        }
        SettingSource::Environment { name } => format!("from env {name}"),
        SettingSource::File { .. } => "literal in the file".to_owned(),
        SettingSource::Flag { name } => format!("from {name}"),
        SettingSource::Default if settings.provider.is_hosted() => "missing".to_owned(),
        SettingSource::Default => format!("none (not needed by {})", settings.provider),
    };
    let (passed, advice) = if in_file {
        (
            false,
            format!(
                "move the key to a variable: export {variable}=..., then `slmcode config set \
                 api_key_env {variable}` and `slmcode config unset api_key`"
            ),
        )
    } else if settings.api_key.is_none() && settings.provider.is_hosted() {
        (
            false,
            format!("{} needs a key: export {variable}=...", settings.provider),
        )
    } else {
        (true, String::new())
    };
    Outcome {
        passed,
        current,
        recommended: "from an environment variable".to_owned(),
        changes: Vec::new(),
        advice: Some(advice),
    }
}

#[cfg(test)]
mod tests {
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
            Some(
                "run `slmcode config set model MODEL`, with the id the server lists at /v1/models"
            )
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
}
