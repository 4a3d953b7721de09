//! `slmcode doctor [--refresh] [--no-probe]`: checks every step between the settings and a
//! constrained answer (config, provider, endpoint, key, model, reachability, the model being
//! served, the engine requests follow, the probe, the cache, demotions), each with what to do
//! when it fails.
//!
//! The checks are collected first (probing included, behind a spinner on a terminal), then
//! rendered as a table or as JSON; the exit code comes from the same list: 0 when nothing
//! failed, 6 when the endpoint could not be reached or gave no usable answer to a plain chat
//! request (`answer`: an error status, or a body that is no chat completion), 1 for any other
//! failed check (a refused key fails `api_key`).

use std::time::Duration;

use serde::Serialize;
use slmcode::backends::{
    CallError, EngineSource, Fingerprint, FormOutcome, Negotiation, Target, WireForm, reachability,
};
use slmcode::config::{
    ConfigDirSource, Key, Provider, Resolved, SettingSource, StructuredDecoding,
};
use slmcode::schema::Mechanism;
use slmcode::schema::gbnf::Whitespace;

use super::exit::{CommandResult, Exit};
use super::printer::Printer;
use super::printer::plain_table;
use super::probe::{
    Connection, FormRow, NoAnswer, NoAnswerKind, form_rows, key_or_model_remedy, matrix, negotiate,
    no_answer, options, refused_remedy, target_from, tls_remedy,
};
use super::settings_args::{self, SettingsArgs};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Probe again even when the capabilities cache has a result.
    #[arg(long)]
    refresh: bool,

    /// Send no probe: use the cached result, or the provider's prior guess.
    #[arg(long, conflicts_with = "refresh")]
    no_probe: bool,

    #[command(flatten)]
    settings: SettingsArgs,
}

/// How one check went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Fine.
    Ok,
    /// Works, but worth knowing (and acting on).
    Warn,
    /// Broken: doctor exits non-zero.
    Fail,
    /// Not checked (e.g. no model configured to look for).
    Skip,
}

/// One check (`checks[]` in `doctor --json`).
#[derive(Debug, Serialize)]
pub struct Check {
    /// What was checked: config, provider, endpoint, api_key, model, reachable, model_served,
    /// engine (which engine requests follow, and how it was known), mechanism, answer (no usable
    /// answer to a plain request), cache, demotion.
    pub name: &'static str,
    /// ok, warn, fail or skip.
    pub status: Status,
    /// What was found.
    pub detail: String,
    /// What to do about it (null when nothing needs doing).
    pub remedy: Option<String>,
}

fn check(
    name: &'static str,
    status: Status,
    detail: impl Into<String>,
    remedy: Option<String>,
) -> Check {
    Check {
        name,
        status,
        detail: detail.into(),
        remedy,
    }
}

/// `--json` output of `slmcode doctor`.
#[derive(Debug, Serialize)]
struct Report {
    /// Whether no check failed.
    ok: bool,
    /// Every check, in order (see [`Check`]).
    checks: Vec<Check>,
    /// What slmcode talks to and how (the same object as `status --json | jq .connection`).
    connection: Connection,
    /// The capability matrix (see `probe --json`).
    forms: Vec<FormRow>,
    /// What the server said about itself, when known.
    fingerprint: Option<Fingerprint>,
    /// The settings file (whether or not it exists).
    config_path: String,
    /// The capabilities cache file.
    cache_path: Option<String>,
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let resolved = settings_args::resolve(&args.settings, printer)?;
    let mut checks = Vec::new();
    checks.push(config_check(&resolved));
    checks.push(check(
        "provider",
        Status::Ok,
        format!(
            "{} ({})",
            resolved.settings.provider,
            resolved.source(Key::Provider)
        ),
        None,
    ));
    let (target, backend_note) = match target_from(&resolved) {
        Ok(found) => found,
        Err(error) => {
            checks.push(check(
                "endpoint",
                Status::Fail,
                error.error.to_string(),
                error.hint.clone(),
            ));
            return finish_early(checks, &resolved, printer);
        }
    };
    checks.push(endpoint_check(
        &resolved,
        &target.endpoint.to_string(),
        backend_note,
    ));
    checks.push(key_check(&resolved));

    let timeout = Duration::from_secs(resolved.settings.probe_timeout_s.clamp(1, 5));
    let reach = reachability::check(&target, timeout);
    checks.push(model_check(&resolved, &target, &reach.models));
    checks.push(if reach.reachable {
        let latency = reach.latency_ms.unwrap_or(0);
        match reach.status {
            None => check(
                "reachable",
                Status::Ok,
                format!("answered in {latency} ms"),
                None,
            ),
            Some(status @ (401 | 403)) => check(
                "reachable",
                Status::Ok,
                format!("answered GET /models with HTTP {status} in {latency} ms (see api_key)"),
                None,
            ),
            Some(status) => check(
                "reachable",
                Status::Warn,
                format!("answered GET /models with HTTP {status} in {latency} ms"),
                Some(
                    "some servers have no /models route; the probe below is what counts".to_owned(),
                ),
            ),
        }
    } else {
        check(
            "reachable",
            Status::Fail,
            reach
                .error
                .clone()
                .unwrap_or_else(|| "no answer".to_owned()),
            Some(unreachable_remedy(reach.failure.as_ref(), &target)),
        )
    });
    checks.push(match reach.model_listed {
        Some(true) => check(
            "model_served",
            Status::Ok,
            "the server lists the model",
            None,
        ),
        Some(false) => check(
            "model_served",
            Status::Fail,
            format!(
                "the server does not list {}; it serves: {}",
                target.model.as_deref().unwrap_or(""),
                reach.models.join(", ")
            ),
            Some("`slmcode config set model NAME` with one of the served models".to_owned()),
        ),
        None => check(
            "model_served",
            Status::Skip,
            "not checked (no model set, or no model list)",
            None,
        ),
    });

    if let Some(status @ (401 | 403)) = reach.status {
        refuse_key(&mut checks, &target, status, "GET /models");
    }

    let mut negotiate_options = options(&resolved, args.refresh, !args.no_probe);
    // A recent failed probe is what doctor is asked to explain: it probes afresh after one.
    negotiate_options.refresh |= !args.no_probe
        && negotiate_options.cache.as_ref().is_some_and(|cache| {
            cache
                .get(&target.key())
                .0
                .is_some_and(|entry| !entry.probed && entry.failed_probe.is_some())
        });
    if !reach.reachable {
        // A server that refused a plain GET gets a short probe, not the whole deadline: enough
        // to record that it did not answer (and so prompt_only), or to find it just came up.
        negotiate_options.probe_timeout =
            negotiate_options.probe_timeout.min(Duration::from_secs(3));
    }
    let negotiation = negotiate(&target, &negotiate_options, printer);
    checks.push(engine_check(
        &negotiation,
        resolved.settings.grammar_whitespace,
    ));
    let mechanism = negotiation.capabilities.mechanism;
    checks.push(if resolved.settings.structured_decoding == StructuredDecoding::Off {
        check(
            "mechanism",
            Status::Warn,
            format!("prompt_only: {}", negotiation.reason()),
            Some("`slmcode config set structured_decoding auto` to negotiate constrained decoding".to_owned()),
        )
    } else if mechanism == Mechanism::PromptOnly {
        check(
            "mechanism",
            Status::Warn,
            format!("prompt_only: {}", negotiation.reason()),
            Some("output will be repaired, not constrained; see the matrix for each form's reason".to_owned()),
        )
    } else {
        let strict = if mechanism == Mechanism::JsonSchema && negotiation.capabilities.strict { " (strict)" } else { "" };
        let status = if negotiation.capabilities.probed { Status::Ok } else { Status::Warn };
        let remedy = (!negotiation.capabilities.probed)
            .then(|| "`slmcode probe` to check it against the server".to_owned());
        check("mechanism", status, format!("{mechanism}{strict}: {}", negotiation.reason()), remedy)
    });
    // Whatever the status of the plain request's answer: a 200 that is no chat completion
    // fails here as surely as a 404, since every request would fail the same way.
    match no_answer(&negotiation, &target) {
        Some(NoAnswer {
            kind: NoAnswerKind::KeyRefused,
            status: Some(status),
            ..
        }) => refuse_key(&mut checks, &target, status, "a plain chat request"),
        // The reachable check failed already, with what to do.
        Some(NoAnswer {
            kind: NoAnswerKind::Unreachable,
            ..
        }) if !reach.reachable => {}
        Some(no_answer) => checks.push(check(
            "answer",
            Status::Fail,
            no_answer.detail,
            Some(no_answer.remedy),
        )),
        None => {}
    }
    let cache_path = negotiate_options
        .cache
        .as_ref()
        .map(|cache| cache.path().display().to_string());
    let cache_detail = match (&cache_path, &negotiation.probed_at) {
        (Some(path), Some(at)) => format!("{path} (probed at {at})"),
        (Some(path), None) => format!("{path} (no probe result for this endpoint and model)"),
        (None, _) => "no config directory: results are not cached".to_owned(),
    };
    let cache_status = if negotiation.warnings.is_empty() {
        Status::Ok
    } else {
        Status::Warn
    };
    checks.push(check("cache", cache_status, cache_detail, None));
    for warning in &negotiation.warnings {
        checks.push(check("cache", Status::Warn, warning.clone(), None));
    }
    for demotion in &negotiation.demotions {
        checks.push(check(
            "demotion",
            Status::Warn,
            format!(
                "{} demoted at {}{}: {}",
                demotion.form,
                demotion.at,
                demotion
                    .status
                    .map(|status| format!(" (HTTP {status})"))
                    .unwrap_or_default(),
                demotion.body
            ),
            Some(format!(
                "`slmcode probe --refresh` re-probes; delete {} to forget demotions",
                cache_path.as_deref().unwrap_or("capabilities.json")
            )),
        ));
    }

    let connection = Connection::new(
        &target,
        &negotiation,
        Some(reach.reachable),
        reach.latency_ms,
    );
    let report = Report {
        ok: !checks.iter().any(|check| check.status == Status::Fail),
        forms: form_rows(&negotiation),
        fingerprint: negotiation.fingerprint.clone(),
        config_path: resolved.config_path.display().to_string(),
        cache_path,
        connection,
        checks,
    };
    render(&report, printer)?;
    Ok(exit_code(&report.checks))
}

/// Which engine requests follow and how it was known (the provider setting, or the server's
/// fingerprint under `openai-compatible`), and on llama.cpp where the derived grammar goes in
/// the mechanism chain, which the selected mechanism alone does not say.
fn engine_check(negotiation: &Negotiation, whitespace: Whitespace) -> Check {
    let engine = negotiation.engine();
    let mut detail = if engine.source == EngineSource::Setting
        && engine.provider == Provider::OpenAiCompatible
    {
        let server = negotiation
            .fingerprint
            .as_ref()
            .and_then(|fingerprint| fingerprint.server.as_deref());
        match server {
            Some(server) => format!(
                "openai-compatible: the server says {server}, which names no engine slmcode \
                 follows; nothing engine-specific is assumed"
            ),
            None => "openai-compatible: the server named no engine (llama.cpp answers GET /props, \
                     Ollama GET /api/version); nothing engine-specific is assumed"
                .to_owned(),
        }
    } else {
        engine.summary()
    };
    let capabilities = &negotiation.capabilities;
    let grammar_usable = capabilities.outcomes.get(&WireForm::Grammar)
        == Some(&FormOutcome::Supported)
        && !negotiation
            .demotions
            .iter()
            .any(|demotion| demotion.form == WireForm::Grammar);
    if engine.provider == Provider::LlamaCpp
        && grammar_usable
        && capabilities.mechanism == Mechanism::JsonSchema
    {
        detail.push_str(match whitespace {
            Whitespace::Compact => "; the derived grammar goes before json_schema",
            Whitespace::Pretty => {
                "; a schema with a number or a format, and any but a contract's that derives, go to the derived grammar before json_schema"
            }
        });
    }
    check("engine", Status::Ok, detail, None)
}

/// Marks the `api_key` check failed: the server answered `what` with `status`.
fn refuse_key(checks: &mut [Check], target: &Target, status: u16, what: &str) {
    let Some(key) = checks.iter_mut().find(|check| check.name == "api_key") else {
        return;
    };
    if key.status == Status::Fail {
        return;
    }
    let refused = if target.api_key.is_some() {
        "the server refused the key"
    } else {
        "the server wants a key"
    };
    *key = check(
        "api_key",
        Status::Fail,
        format!("{refused}: HTTP {status} to {what}"),
        Some(key_or_model_remedy(status, target)),
    );
}

/// What to do about an endpoint that gave no answer to the reachability check, `failure` saying
/// why when known: a TLS failure says what to fix; anything else, start the server or fix the
/// endpoint.
fn unreachable_remedy(failure: Option<&CallError>, target: &Target) -> String {
    if failure.is_some_and(|failure| failure.refused) {
        return refused_remedy(target);
    }
    match failure.and_then(|failure| failure.tls.as_ref()) {
        Some(tls) => tls_remedy(tls, target),
        None => format!(
            "start the server at {} or fix the endpoint (`slmcode config set endpoint URL`)",
            target.endpoint
        ),
    }
}

fn exit_code(checks: &[Check]) -> Exit {
    if checks
        .iter()
        .any(|check| matches!(check.name, "reachable" | "answer") && check.status == Status::Fail)
    {
        Exit::Endpoint
    } else if checks.iter().any(|check| check.status == Status::Fail) {
        Exit::Failure
    } else {
        Exit::Success
    }
}

/// Renders what was collected when no target could be built.
fn finish_early(checks: Vec<Check>, resolved: &Resolved, printer: &Printer) -> CommandResult {
    if printer.json() {
        printer.json_value(&serde_json::json!({
            "ok": false,
            "checks": checks,
            "connection": null,
            "forms": [],
            "fingerprint": null,
            "config_path": resolved.config_path.display().to_string(),
            "cache_path": null,
        }))?;
    } else {
        printer.line(&checks_table(&checks))?;
        print_remedies(&checks, printer);
    }
    Ok(exit_code(&checks))
}

fn config_check(resolved: &Resolved) -> Check {
    let path = resolved.config_path.display();
    if !resolved.warnings.is_empty() {
        let detail = resolved
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        return check(
            "config",
            Status::Warn,
            detail,
            Some(format!("edit {path} or use `slmcode config`")),
        );
    }
    let mut notes = Vec::new();
    if !resolved.config_exists {
        notes.push("not created yet: defaults, environment and flags apply");
    }
    match resolved.config_dir_source {
        ConfigDirSource::Environment => notes.push("directory from SLMCODE_CONFIG_DIR"),
        ConfigDirSource::Platform => {}
        ConfigDirSource::EmptyVariable => {
            notes.push("SLMCODE_CONFIG_DIR is empty, which counts as unset: the default directory")
        }
    }
    let detail = if notes.is_empty() {
        path.to_string()
    } else {
        format!("{path} ({})", notes.join("; "))
    };
    if resolved.config_dir_source == ConfigDirSource::EmptyVariable {
        // Most likely a variable exported from another that was unset.
        return check(
            "config",
            Status::Warn,
            detail,
            Some("unset SLMCODE_CONFIG_DIR, or set it to the directory you mean".to_owned()),
        );
    }
    check("config", Status::Ok, detail, None)
}

fn endpoint_check(resolved: &Resolved, endpoint: &str, backend_note: Option<String>) -> Check {
    let source = resolved.source(Key::Endpoint);
    let origin = match source {
        SettingSource::Default => format!("the {} preset's default", resolved.settings.provider),
        other => other.to_string(),
    };
    let mut notes = Vec::new();
    if let Some(note) = resolved.normalisation(Key::Endpoint) {
        notes.push(format!("normalised from {}", note.given));
    }
    notes.extend(backend_note.map(|note| format!("normalised: {note}")));
    let detail = if notes.is_empty() {
        format!("{endpoint} ({origin})")
    } else {
        format!("{endpoint} ({origin}; {})", notes.join("; "))
    };
    let status = if notes.is_empty() {
        Status::Ok
    } else {
        Status::Warn
    };
    let remedy = (!notes.is_empty())
        .then(|| format!("write it as `slmcode config set endpoint {endpoint}` to silence this"));
    check("endpoint", status, detail, remedy)
}

fn key_check(resolved: &Resolved) -> Check {
    let provider = resolved.settings.provider;
    match (&resolved.settings.api_key, resolved.source(Key::ApiKey)) {
        (Some(_), source) => check("api_key", Status::Ok, format!("set ({source})"), None),
        (None, _) if provider.is_hosted() => check(
            "api_key",
            Status::Fail,
            format!("no key: {provider} needs one"),
            Some(format!(
                "export {}=... (or point api_key_env at the variable that holds it)",
                provider.key_env().unwrap_or("SLMCODE_API_KEY")
            )),
        ),
        (None, _) => check(
            "api_key",
            Status::Ok,
            "none (a local server needs none unless started with --api-key)",
            None,
        ),
    }
}

fn model_check(resolved: &Resolved, target: &Target, served: &[String]) -> Check {
    match &target.model {
        Some(model) => check(
            "model",
            Status::Ok,
            format!("{model} ({})", resolved.source(Key::Model)),
            None,
        ),
        None if target.preset().requires_model => check(
            "model",
            Status::Fail,
            format!(
                "no model set: {} needs one in every request",
                target.provider
            ),
            Some(if served.is_empty() {
                "`slmcode config set model NAME`".to_owned()
            } else {
                format!(
                    "`slmcode config set model NAME`; the server serves: {}",
                    served.join(", ")
                )
            }),
        ),
        None => check(
            "model",
            Status::Ok,
            "none set: the server uses the model it serves",
            None,
        ),
    }
}

fn render(report: &Report, printer: &Printer) -> std::io::Result<()> {
    if printer.json() {
        return printer.json_value(report);
    }
    printer.line(&checks_table(&report.checks))?;
    printer.line("")?;
    printer.line(&matrix(&report.forms))?;
    if let Some(fingerprint) = &report.fingerprint {
        printer.line("")?;
        printer.line(&format!("server: {}", fingerprint.summary()))?;
    }
    print_remedies(&report.checks, printer);
    Ok(())
}

fn checks_table(checks: &[Check]) -> String {
    plain_table(
        &["CHECK", "STATUS", "DETAIL"],
        checks.iter().map(|check| {
            let status = match check.status {
                Status::Ok => "ok",
                Status::Warn => "warn",
                Status::Fail => "FAIL",
                Status::Skip => "skip",
            };
            vec![
                check.name.to_owned(),
                status.to_owned(),
                check.detail.clone(),
            ]
        }),
    )
}

fn print_remedies(checks: &[Check], printer: &Printer) {
    for check in checks.iter().filter(|check| check.status == Status::Fail) {
        if let Some(remedy) = &check.remedy {
            printer.note(&format!("{}: {remedy}", check.name));
        }
    }
    if checks.iter().any(|check| check.status == Status::Fail) {
        printer.note("doctor: a check failed");
    }
}
