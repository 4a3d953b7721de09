//! `slmcode probe [--refresh]`: the capability matrix of the configured endpoint: every wire
//! form's outcome (supported / rejected / not enforced / untested) and the mechanism selected.
//!
//! A valid cached probe is shown as it is (its source says `cache`); `--refresh` probes again.
//! Also the shared pieces `doctor` and `status` render: the target from settings, the
//! `.connection` object and the matrix rows. Exit 6 when the probe's plain request got no usable
//! answer: none at all, an error (a refused key, an unknown model), or something that is not a
//! chat completion.

use serde::Serialize;
use slmcode::backends::{
    CallError, Demotion, Engine, ErrorClass, Fingerprint, FormOutcome, NegotiateOptions,
    Negotiation, Negotiator, Target, TlsFailure, WireForm,
};
use slmcode::config::{Resolved, StructuredDecoding};
use slmcode::schema::Mechanism;

use super::exit::{CliError, CommandResult, Exit};
use super::printer::Printer;
use super::printer::plain_table;
use super::settings_args::{self, SettingsArgs};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Probe again even when the capabilities cache has a result for this endpoint and model.
    #[arg(long)]
    refresh: bool,

    #[command(flatten)]
    settings: SettingsArgs,
}

/// One row of the capability matrix (`forms[]` in `probe`, `doctor` and `status` JSON).
#[derive(Debug, Serialize)]
pub struct FormRow {
    /// The wire form: json_schema_strict, json_schema, structured_outputs, guided_json,
    /// grammar, json_object.
    pub form: WireForm,
    /// The mechanism it belongs to.
    pub mechanism: Mechanism,
    /// What goes on the wire, in words.
    pub wire: &'static str,
    /// supported, rejected, not_enforced or untested.
    pub outcome: &'static str,
    /// The HTTP status of a rejection.
    pub status: Option<u16>,
    /// Why: the body excerpt, the ignored answer, or why it was not tested.
    pub detail: String,
    /// Whether a request-time demotion took this form out of the running.
    pub demoted: bool,
}

/// The capability matrix rows of a negotiation.
pub fn form_rows(negotiation: &Negotiation) -> Vec<FormRow> {
    WireForm::ALL
        .into_iter()
        .map(|form| {
            let outcome = negotiation
                .capabilities
                .outcomes
                .get(&form)
                .cloned()
                .unwrap_or(FormOutcome::Untested {
                    reason: "not probed".to_owned(),
                });
            FormRow {
                form,
                mechanism: form.mechanism(),
                wire: form.wire(),
                outcome: outcome.name(),
                status: match &outcome {
                    FormOutcome::Rejected { status, .. } => Some(*status),
                    _ => None,
                },
                detail: outcome.detail(),
                demoted: negotiation
                    .demotions
                    .iter()
                    .any(|demotion| demotion.form == form),
            }
        })
        .collect()
}

/// `.connection` in `status` and `doctor` JSON: what slmcode talks to and how.
#[derive(Debug, Serialize)]
pub struct Connection {
    /// The provider.
    pub provider: String,
    /// The engine requests follow: `{provider, source, evidence}`, the provider setting, or
    /// under `openai-compatible` the engine the server's fingerprint names.
    pub engine: Engine,
    /// The normalised endpoint.
    pub endpoint: String,
    /// The model; null when none is configured.
    pub model: Option<String>,
    /// Whether the server answered the reachability check or the probe; null when not checked
    /// (`status --offline`).
    pub reachable: Option<bool>,
    /// The round trip of that check, in milliseconds.
    pub latency_ms: Option<u64>,
    /// The selected mechanism.
    pub mechanism: Mechanism,
    /// Whether json_schema requests carry `strict: true`.
    pub strict: bool,
    /// Whether a successful probe stands behind the mechanism.
    pub probed: bool,
    /// When that probe ran (RFC 3339 UTC).
    pub probed_at: Option<String>,
    /// probe, cache, prior or forced_off.
    pub source: &'static str,
    /// Why this mechanism.
    pub reason: String,
    /// Request-time demotions: `{form, status, at, body}`.
    pub demotions: Vec<Demotion>,
}

impl Connection {
    /// The connection of `negotiation` for `target`, with a reachability result if one ran.
    pub fn new(
        target: &Target,
        negotiation: &Negotiation,
        reachable: Option<bool>,
        latency_ms: Option<u64>,
    ) -> Connection {
        Connection {
            provider: target.provider.to_string(),
            engine: negotiation.engine(),
            endpoint: target.endpoint.to_string(),
            model: target.model.clone(),
            reachable,
            latency_ms,
            mechanism: negotiation.capabilities.mechanism,
            strict: negotiation.capabilities.strict,
            probed: negotiation.capabilities.probed,
            probed_at: negotiation.probed_at.clone(),
            source: negotiation.source.as_str(),
            reason: negotiation.reason(),
            demotions: negotiation.demotions.clone(),
        }
    }
}

/// The probe target the settings describe, or a config error with what to set.
pub fn target_from(resolved: &Resolved) -> Result<(Target, Option<String>), CliError> {
    Target::from_settings(&resolved.settings).map_err(|error| {
        CliError::new(Exit::Failure, error).with_hint(
            "set one with `slmcode config set endpoint http://127.0.0.1:8080/v1` (or --endpoint)",
        )
    })
}

/// Negotiation options from the settings and a command's flags.
pub fn options(resolved: &Resolved, refresh: bool, allow_probe: bool) -> NegotiateOptions {
    let mut options = NegotiateOptions::from_settings(&resolved.settings);
    options.refresh = refresh;
    options.allow_probe = allow_probe;
    options.check_fingerprint = allow_probe;
    options
}

/// Negotiates with a spinner on stderr while a probe may run (only on a terminal).
pub fn negotiate(target: &Target, options: &NegotiateOptions, printer: &Printer) -> Negotiation {
    let spinner = (options.allow_probe && options.structured_decoding == StructuredDecoding::Auto)
        .then(|| printer.spinner(&format!("probing {} ...", target.endpoint)));
    let negotiation = Negotiator::global().negotiate(target, options);
    if let Some(spinner) = spinner {
        spinner.finish_and_clear();
    }
    negotiation
}

/// `--json` output of `slmcode probe`.
#[derive(Debug, Serialize)]
struct Report {
    /// The provider.
    provider: String,
    /// The normalised endpoint.
    endpoint: String,
    /// The model, or null.
    model: Option<String>,
    /// The selected mechanism.
    mechanism: Mechanism,
    /// Whether json_schema requests carry `strict: true`.
    strict: bool,
    /// Whether a successful probe stands behind it.
    probed: bool,
    /// When that probe ran.
    probed_at: Option<String>,
    /// probe, cache, prior or forced_off.
    source: &'static str,
    /// Why this mechanism.
    reason: String,
    /// Whether the server answered (null when nothing was sent: cache or forced off).
    reachable: Option<bool>,
    /// How long the probe took, in milliseconds (null when nothing was probed).
    elapsed_ms: Option<u64>,
    /// The capability matrix: one row per wire form (see [`FormRow`]).
    forms: Vec<FormRow>,
    /// What the server said about itself, when known.
    fingerprint: Option<Fingerprint>,
    /// Request-time demotions.
    demotions: Vec<Demotion>,
    /// Warnings (corrupt cache replaced, server changed, cache not written).
    warnings: Vec<String>,
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let resolved = settings_args::resolve(&args.settings, printer)?;
    let (target, _) = target_from(&resolved)?;
    let options = options(&resolved, args.refresh, true);
    let negotiation = negotiate(&target, &options, printer);
    let reachable = negotiation.report.as_ref().map(|report| report.reachable);
    let report = Report {
        provider: target.provider.to_string(),
        endpoint: target.endpoint.to_string(),
        model: target.model.clone(),
        mechanism: negotiation.capabilities.mechanism,
        strict: negotiation.capabilities.strict,
        probed: negotiation.capabilities.probed,
        probed_at: negotiation.probed_at.clone(),
        source: negotiation.source.as_str(),
        reason: negotiation.reason(),
        reachable,
        elapsed_ms: negotiation.report.as_ref().map(|report| report.elapsed_ms),
        forms: form_rows(&negotiation),
        fingerprint: negotiation.fingerprint.clone(),
        demotions: negotiation.demotions.clone(),
        warnings: negotiation.warnings.clone(),
    };
    for warning in &report.warnings {
        printer.warn(warning);
    }
    if printer.json() {
        printer.json_value(&report)?;
    } else {
        render(&report, printer)?;
    }
    if let Some(no_answer) = no_answer(&negotiation, &target) {
        printer.error(
            &anyhow::anyhow!("{}", no_answer.detail),
            Some(&no_answer.remedy),
        );
        return Ok(Exit::Endpoint);
    }
    Ok(Exit::Success)
}

/// How a probe's plain chat request went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoAnswerKind {
    /// No HTTP answer at all: no connection, a failed TLS handshake, no answer in time.
    Unreachable,
    /// 401 or 403: the key was refused, or one is wanted.
    KeyRefused,
    /// Another error status (an unknown model, a server error).
    Refused,
    /// An answer that is no chat completion (another program on the port, a wrong path).
    Unusable,
}

/// The probe's plain request got no usable answer: how, what happened, and what to do.
pub struct NoAnswer {
    /// How it went wrong.
    pub kind: NoAnswerKind,
    /// The HTTP status, when the server answered with an error.
    pub status: Option<u16>,
    /// What happened, in one sentence.
    pub detail: String,
    /// What to do about it.
    pub remedy: String,
}

/// Whether the probe this negotiation ran got no usable answer to its plain request, whatever
/// the HTTP status (so nothing was learned, and requests will fail the same way): `probe`
/// exits 6 on it, and `doctor` fails a check with it.
pub fn no_answer(negotiation: &Negotiation, target: &Target) -> Option<NoAnswer> {
    if let (None, Some(failed)) = (&negotiation.report, &negotiation.failed_probe) {
        return Some(NoAnswer {
            kind: NoAnswerKind::Unreachable,
            status: failed.status,
            detail: format!(
                "the endpoint did not answer the probe at {}: {}",
                failed.at, failed.error
            ),
            remedy: format!(
                "{}; not probed again until {} (`slmcode probe --refresh` probes now)",
                if failed.refused {
                    refused_remedy(target)
                } else {
                    "start the server or fix the endpoint (`slmcode doctor` checks each step); \
                     a server that is loading answers once its model is in memory"
                        .to_owned()
                },
                failed.until().as_deref().unwrap_or("a minute later")
            ),
        });
    }
    let report = negotiation
        .report
        .as_ref()
        .filter(|report| !report.probed)?;
    let error = report.baseline_error.as_deref().unwrap_or("no answer");
    let failure = report.baseline_failure.as_ref();
    let (kind, detail, remedy) = match (report.baseline_status, failure) {
        (None, Some(CallError { tls: Some(tls), .. })) => (
            NoAnswerKind::Unreachable,
            format!("the endpoint did not answer the probe: {error}"),
            tls_remedy(tls, target),
        ),
        (Some(status @ (401 | 403)), _) => (
            NoAnswerKind::KeyRefused,
            format!("the server refused a plain chat request: {error}"),
            key_or_model_remedy(status, target),
        ),
        (Some(status), _) => (
            NoAnswerKind::Refused,
            format!("the server refused a plain chat request: {error}"),
            key_or_model_remedy(status, target),
        ),
        (None, Some(failure)) if failure.class == ErrorClass::Unknown => (
            NoAnswerKind::Unusable,
            format!("the server's answer to a plain chat request is not usable: {error}"),
            format!(
                "check that {} is the server's OpenAI-compatible base URL (another program may \
                 answer on that port): `slmcode config set endpoint URL`, then `slmcode probe \
                 --refresh`",
                target.endpoint
            ),
        ),
        (None, Some(failure)) if failure.refused => (
            NoAnswerKind::Unreachable,
            format!("the endpoint did not answer the probe: {error}"),
            refused_remedy(target),
        ),
        (None, _) => (
            NoAnswerKind::Unreachable,
            format!("the endpoint did not answer the probe: {error}"),
            "start the server or fix the endpoint (`slmcode doctor` checks each step); until it \
             answers, requests use prompt_only"
                .to_owned(),
        ),
    };
    Some(NoAnswer {
        kind,
        status: report.baseline_status,
        detail,
        remedy,
    })
}

/// What to do about a refused connection: nobody listens at the endpoint (an engine that is
/// loading its model has bound its port already, and answers 503).
pub fn refused_remedy(target: &Target) -> String {
    format!(
        "nothing listens at {}: start the server (llama-server, ollama serve, vllm serve, ...) \
         or fix the endpoint (`slmcode config set endpoint URL`)",
        target.endpoint
    )
}

/// What to do about a TLS failure with `target`: the library's sentence, with the command
/// that writes the endpoint with http:// when the port does not speak TLS.
pub fn tls_remedy(tls: &TlsFailure, target: &Target) -> String {
    let endpoint = target.endpoint.to_string();
    match (tls, endpoint.strip_prefix("https://")) {
        (TlsFailure::NotTls, Some(rest)) => format!(
            "{}: `slmcode config set endpoint http://{rest}`",
            tls.remedy()
        ),
        _ => tls.remedy().to_owned(),
    }
}

/// What to do about a server that refuses requests with `status`.
pub fn key_or_model_remedy(status: u16, target: &Target) -> String {
    match status {
        401 | 403 => match (&target.api_key, target.provider.key_env()) {
            (Some(_), _) => "the server refused the key: check it (`slmcode config list` shows where it comes from)".to_owned(),
            (None, Some(variable)) => format!("the server wants a key: export {variable}=... (or point api_key_env at the variable that holds it)"),
            (None, None) => "the server wants a key: export SLMCODE_API_KEY=... (or point api_key_env at the variable that holds it)".to_owned(),
        },
        _ => format!(
            "check the model (`slmcode config set model NAME`) and the endpoint ({}); then `slmcode probe --refresh`",
            target.endpoint
        ),
    }
}

fn render(report: &Report, printer: &Printer) -> std::io::Result<()> {
    printer.line(&matrix(&report.forms))?;
    printer.line("")?;
    let strict = if report.mechanism == Mechanism::JsonSchema {
        if report.strict {
            " (strict)"
        } else {
            " (no strict)"
        }
    } else {
        ""
    };
    printer.line(&format!(
        "selected: {}{strict}, from {}: {}",
        report.mechanism, report.source, report.reason
    ))?;
    if let Some(at) = &report.probed_at {
        printer.line(&format!("probed at: {at}"))?;
    }
    Ok(())
}

/// The capability matrix as a table.
pub fn matrix(forms: &[FormRow]) -> String {
    plain_table(
        &["FORM", "OUTCOME", "DETAIL"],
        forms.iter().map(|row| {
            let outcome = if row.demoted {
                format!("{} (demoted)", row.outcome)
            } else {
                row.outcome.to_owned()
            };
            vec![row.form.to_string(), outcome, row.detail.clone()]
        }),
    )
}
