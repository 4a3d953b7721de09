//! `slmcode status [--offline]`: the settings in brief and `.connection`: what slmcode talks to,
//! whether it answers (one quick GET, skipped with `--offline`), and the mechanism requests use,
//! from the capabilities cache or the provider's prior, and the repair statistics (which rung
//! fixed how many answers). Never probes. Exits 0 unless the settings cannot be read: without an
//! endpoint (a fresh install) it shows the settings, the cache and the statistics, and says what
//! to set.

use std::time::Duration;

use serde::Serialize;
use slmcode::backends::{EngineSource, Target, TargetError, reachability};
use slmcode::config::{Key, StructuredDecoding};
use slmcode::files::stats::{self, STATS_FILE};
use slmcode::repair::Stats;
use slmcode::serve::{ProxyState, ProxyStatus, proxy_status};

use super::exit::{CommandResult, Exit};
use super::printer::{Printer, error_chain};
use super::probe::{Connection, FormRow, form_rows, negotiate, options};
use super::settings_args::{self, SettingsArgs};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Do not contact the endpoint at all (`.connection.reachable` is null).
    #[arg(long)]
    offline: bool,

    #[command(flatten)]
    settings: SettingsArgs,
}

/// `.config` in `status --json`: the settings that shape requests, and where they live.
#[derive(Debug, Serialize)]
struct ConfigSummary {
    /// The settings file.
    path: String,
    /// Whether it exists.
    exists: bool,
    /// auto or off.
    structured_decoding: StructuredDecoding,
    /// The completion budget.
    max_tokens: u32,
    /// Sampling temperature.
    temperature: f64,
    /// One request's timeout, in seconds.
    timeout_s: u64,
    /// The probe's deadline, in seconds.
    probe_timeout_s: u64,
    /// Where the key comes from ("env OPENAI_API_KEY"), or null when there is none. Never the key.
    api_key_source: Option<String>,
}

/// `--json` output of `slmcode status`.
#[derive(Debug, Serialize)]
struct Report {
    /// The settings in brief (see [`ConfigSummary`]).
    config: ConfigSummary,
    /// provider, engine, endpoint, model, reachable, latency_ms, mechanism, strict, probed,
    /// probed_at, source (probe/cache/prior/forced_off), reason, demotions; null when there is no endpoint
    /// to talk to (none set, and the provider has no default).
    connection: Option<Connection>,
    /// The capability matrix from the cache (untested rows when nothing is cached; empty
    /// without an endpoint).
    forms: Vec<FormRow>,
    /// The capabilities cache file.
    cache_path: Option<String>,
    /// Repair statistics from `repair-stats.json` in the config directory: `{version, total,
    /// outcomes: {name: count}, rungs: {rung: count}, changed: {rung: count}, calls: {as_is |
    /// repaired | reasked | failed: count}}`.
    repair: Stats,
    /// The proxy `slmcode serve` runs with this config directory: `{state: running | stale |
    /// not_checked, address, pid, started_at, endpoint, counters}` (counters null unless
    /// running; not_checked under --offline); null when none was started.
    proxy: Option<ProxyStatus>,
    /// Warnings (no endpoint, a corrupt cache, unreadable repair stats).
    warnings: Vec<String>,
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let resolved = settings_args::resolve(&args.settings, printer)?;
    let negotiate_options = options(&resolved, false, false);
    let mut warnings = Vec::new();
    // Without an endpoint there is no connection to show, but the settings, the cache and the
    // repair statistics are still worth showing: a fresh install is not a failure.
    let (connection, forms, why_none) = match Target::from_settings(&resolved.settings) {
        Ok((target, _)) => {
            let negotiation = negotiate(&target, &negotiate_options, printer);
            let (reachable, latency_ms) = if args.offline {
                (None, None)
            } else {
                let timeout = Duration::from_secs(resolved.settings.probe_timeout_s.clamp(1, 3));
                let reach = reachability::check(&target, timeout);
                (Some(reach.reachable), reach.latency_ms)
            };
            warnings.extend(negotiation.warnings.iter().cloned());
            let connection = Connection::new(&target, &negotiation, reachable, latency_ms);
            (Some(connection), form_rows(&negotiation), None)
        }
        Err(error) => {
            warnings.push(format!(
                "{error}: `slmcode config set endpoint URL` (such as http://127.0.0.1:8080/v1)"
            ));
            let endpoint = match error {
                TargetError::NoEndpoint(provider) => format!("not set ({provider} has no default)"),
                other => format!("unusable: {other}"),
            };
            (None, Vec::new(), Some(endpoint))
        }
    };
    let stats_path = resolved.config_path.with_file_name(STATS_FILE);
    let repair = stats::load(&stats_path).unwrap_or_else(|error| {
        warnings.push(format!("repair stats: {}", error_chain(&error)));
        Stats::new()
    });
    let settings = &resolved.settings;
    let report = Report {
        config: ConfigSummary {
            path: resolved.config_path.display().to_string(),
            exists: resolved.config_exists,
            structured_decoding: settings.structured_decoding,
            max_tokens: settings.max_tokens,
            temperature: settings.temperature,
            timeout_s: settings.timeout_s,
            probe_timeout_s: settings.probe_timeout_s,
            api_key_source: settings
                .api_key
                .as_ref()
                .map(|_| resolved.source(Key::ApiKey).to_string()),
        },
        connection,
        forms,
        cache_path: negotiate_options
            .cache
            .as_ref()
            .map(|cache| cache.path().display().to_string()),
        repair,
        proxy: resolved
            .config_path
            .parent()
            .and_then(|dir| proxy_status(dir, (!args.offline).then_some(Duration::from_secs(2)))),
        warnings,
    };
    for warning in &report.warnings {
        printer.warn(warning);
    }
    if printer.json() {
        printer.json_value(&report)?;
        return Ok(Exit::Success);
    }
    let mut lines = Vec::new();
    match &report.connection {
        Some(connection) => lines.extend(connection_lines(connection)),
        None => {
            lines.push(format!("provider:   {}", settings.provider));
            lines.push(format!(
                "endpoint:   {}",
                why_none.as_deref().unwrap_or("not set")
            ));
            lines.push(format!(
                "model:      {}",
                settings.model.as_deref().unwrap_or("(server default)")
            ));
        }
    }
    lines.push(format!(
        "decoding:   structured_decoding = {}",
        report.config.structured_decoding
    ));
    let created = if report.config.exists {
        ""
    } else {
        " (not created yet)"
    };
    lines.push(format!("config:     {}{created}", report.config.path));
    lines.push(format!(
        "cache:      {}",
        report
            .cache_path
            .as_deref()
            .unwrap_or("none (no config directory)")
    ));
    lines.push(proxy_line(report.proxy.as_ref()));
    for line in lines {
        printer.line(&line)?;
    }
    let repair = &report.repair;
    if repair.total == 0 {
        printer.line("repairs:    none recorded")?;
    } else {
        let rungs: Vec<String> = repair
            .rungs
            .iter()
            .map(|(rung, count)| format!("{rung} {count}"))
            .collect();
        let outcomes: Vec<String> = repair
            .outcomes
            .iter()
            .map(|(outcome, count)| format!("{outcome} {count}"))
            .collect();
        printer.line(&format!(
            "repairs:    {} ({})",
            repair.total,
            outcomes.join(", ")
        ))?;
        // Answers that never parsed or validated stopped on no rung: nothing to list then.
        if !rungs.is_empty() {
            printer.line(&format!("rungs:      {}", rungs.join(", ")))?;
        }
        // `generate` calls: how many were fixed by repair, and how many needed a re-ask.
        if !repair.calls.is_empty() {
            let calls: Vec<String> = repair
                .calls
                .iter()
                .map(|(ending, count)| format!("{ending} {count}"))
                .collect();
            printer.line(&format!("calls:      {}", calls.join(", ")))?;
        }
    }
    Ok(Exit::Success)
}

/// The line about `slmcode serve`.
fn proxy_line(proxy: Option<&ProxyStatus>) -> String {
    match proxy {
        None => "proxy:      none (`slmcode serve` starts one)".to_owned(),
        Some(proxy) => match &proxy.counters {
            Some(counters) => format!(
                "proxy:      running on {} (pid {}): {} requests, {} passthrough, {} structured, {} tools, {} succeeded, {} failed, {} refused, {} in flight",
                proxy.address,
                proxy.pid,
                counters.requests,
                counters.passthrough,
                counters.structured,
                counters.tools,
                counters.succeeded,
                counters.failed,
                counters.refused,
                counters.in_flight
            ),
            None if proxy.state == ProxyState::NotChecked => format!(
                "proxy:      on {} (pid {}), not asked (--offline)",
                proxy.address, proxy.pid
            ),
            None => format!(
                "proxy:      stale: nothing answers on {} (pid {} is gone or stuck; its state file is left over)",
                proxy.address, proxy.pid
            ),
        },
    }
}

/// The lines about what slmcode talks to and how.
fn connection_lines(connection: &Connection) -> Vec<String> {
    let reach = match (connection.reachable, connection.latency_ms) {
        (None, _) => "not checked (--offline)".to_owned(),
        (Some(true), Some(latency)) => format!("yes ({latency} ms)"),
        (Some(true), None) => "yes".to_owned(),
        (Some(false), _) => "NO".to_owned(),
    };
    let strict = if connection.strict { " (strict)" } else { "" };
    let mut lines = vec![format!("provider:   {}", connection.provider)];
    if connection.engine.source == EngineSource::Fingerprint {
        lines.push(format!("engine:     {}", connection.engine.summary()));
    }
    lines.extend([
        format!("endpoint:   {}", connection.endpoint),
        format!(
            "model:      {}",
            connection.model.as_deref().unwrap_or("(server default)")
        ),
        format!("reachable:  {reach}"),
        format!(
            "mechanism:  {}{strict} (from {})",
            connection.mechanism, connection.source
        ),
        format!(
            "probed at:  {}",
            connection.probed_at.as_deref().unwrap_or("never")
        ),
        format!("demotions:  {}", connection.demotions.len()),
    ]);
    lines
}
