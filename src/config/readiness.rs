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
#[path = "readiness_tests.rs"]
mod tests;
