//! `slmcode generate`: the structured call path on the command line. Asks the configured
//! endpoint for one answer that satisfies a contract (`--schema`), a schema file
//! (`--schema-file`) or a role's contract (`--role`), and prints the validated JSON.
//!
//! Everything that decides the answer is the library's ([`structured_call`]): negotiation (a
//! probe when nothing is cached), the mechanism chain with its demotions, repair, validation
//! and the failure-matched re-asks. This module resolves the arguments, shows a spinner on a
//! terminal while waiting, and renders the outcome: the value (compact, or `--pretty`) or with
//! `--json` the value and its meta; on failure the evidence, and an exit code per failure
//! class (3 no JSON, 4 truncated, 5 schema violation, 6 endpoint, 7 loop); with `text_fallback`
//! on, an answer failure prints the last answer's text instead, with a warning (exit 8).
//!
//! With `--tools FILE` the request is a tool turn ([`tools`]): it asks for a call (or under
//! `--tool-choice auto`, a call or an answer) and prints `{"tool_calls": [...], "content"}`.

mod footer;
mod tools;

use std::path::PathBuf;

use anyhow::anyhow;
use serde::Serialize;
use serde_json::{Map, Value};
use slmcode::agents::{self, RoleSpec};
use slmcode::backends::{CallError, ErrorClass, Target};
use slmcode::call::{
    Answer, CallContext, CallFailure, CallMeta, CallProgress, DegradeReason, RequestError,
    SchemaViolation, StructuredOutcome, StructuredRequest, structured_call,
};
use slmcode::config::{self, Environment, Key, Resolved};
use slmcode::repair::{self, FailureClass};
use slmcode::schema::{self, Mechanism, ValidationError};

use super::exit::{self, CliError, CommandResult, Exit};
use super::input::{Input, load_schema_file};
use super::printer::Printer;
use super::probe::{negotiate, options, refused_remedy, target_from, tls_remedy};
use super::settings_args::{SettingsArgs, config_error};

#[derive(Debug, clap::Args)]
#[command(group = clap::ArgGroup::new("output").required(true).multiple(true))]
pub struct Args {
    /// The contract to produce, such as `plan` (`slmcode schema list` shows them all).
    #[arg(
        long,
        value_name = "CONTRACT",
        group = "output",
        conflicts_with = "schema_file"
    )]
    schema: Option<String>,

    /// A JSON Schema file to produce an instance of.
    #[arg(long, value_name = "FILE", group = "output")]
    schema_file: Option<PathBuf>,

    /// The agent role asking (`planner`, `go-worker`): its stop sequences, and its contract
    /// when neither --schema nor --schema-file is given.
    #[arg(long, value_name = "ID", group = "output")]
    role: Option<String>,

    /// Tools the model may call (an OpenAI `tools` array, a request body with `tools`, or
    /// Anthropic tools): the answer is the call(s), `{"tool_calls": [{"id", "name",
    /// "arguments"}], "content"}`.
    #[arg(long, value_name = "FILE", group = "output")]
    tools: Option<PathBuf>,

    /// With --tools: required (a call to any tool), auto (a call or an answer), none (no
    /// tools), or a tool's name (a call to it) [default: the file's tool_choice, else required
    /// without a schema and auto with one].
    #[arg(long, value_name = "CHOICE", requires = "tools")]
    tool_choice: Option<String>,

    /// The request; without it, the request is read from stdin.
    #[arg(long, value_name = "TEXT")]
    prompt: Option<String>,

    /// A system message, sent before the contract's instructions.
    #[arg(long, value_name = "TEXT")]
    system: Option<String>,

    /// The first request's completion budget (a truncation re-ask doubles it, up to 8192).
    #[arg(long, value_name = "N")]
    max_tokens: Option<String>,

    /// How many failure-matched re-asks may be sent (0: none).
    #[arg(long, value_name = "N")]
    reask: Option<String>,

    /// The deadline of the whole call in seconds: every answer, retry and re-ask fits in it;
    /// when it passes, the call fails (exit 6, class canceled) with what had arrived.
    #[arg(long, value_name = "SECONDS")]
    call_timeout: Option<String>,

    /// Sampling temperature (0 to 2).
    #[arg(long, value_name = "T")]
    temperature: Option<String>,

    /// When requests carry the engine's anti-repetition sampling: always, reask (only the
    /// re-ask after a loop) or off.
    #[arg(long, value_name = "WHEN")]
    anti_repetition: Option<String>,

    /// Whether a thinking model reasons before it answers: auto (its chat template decides),
    /// off or on (the engine's switch: chat_template_kwargs.enable_thinking on llama.cpp,
    /// vLLM and SGLang, reasoning_effort on Ollama).
    #[arg(long, value_name = "MODE")]
    thinking: Option<String>,

    /// Force a mechanism for this call: json_schema, guided_json, gbnf_grammar, json_object or
    /// prompt_only. Nothing is probed and recorded demotions are ignored; a rejection still
    /// walks down to prompt_only (and is recorded).
    #[arg(long, value_name = "MECHANISM")]
    mechanism: Option<Mechanism>,

    /// A sampling seed, for repeatable answers with a temperature above 0.
    #[arg(long, value_name = "N")]
    seed: Option<u64>,

    /// When every attempt failed, print the last answer's text as it came, the failure as a
    /// warning, and exit 8, instead of failing [default: the text_fallback setting, false].
    #[arg(long, value_name = "BOOL")]
    text_fallback: Option<String>,

    /// Print the value indented.
    #[arg(long)]
    pretty: bool,

    /// End with one line on stderr: how often the answer was asked for again and why, and
    /// what degraded (`Retries: 1 (prose) · Degraded: json_schema_strict → json_object (400)`).
    #[arg(long)]
    verbose: bool,

    #[command(flatten)]
    settings: SettingsArgs,
}

/// `--json` output of a successful `slmcode generate`.
#[derive(Debug, Serialize)]
struct Generated<'a> {
    /// The value; it satisfies the schema.
    value: &'a Value,
    /// What happened: mechanism, demotions, repair rung, attempts, retries, tokens (see
    /// [`CallMeta`]).
    meta: &'a CallMeta,
}

/// `--json` output of a failed `slmcode generate` (exit 3, 4, 5 or 6).
#[derive(Debug, Serialize)]
struct FailedOutput<'a> {
    /// The error, with its evidence.
    error: FailureDetail<'a>,
    /// What happened before it.
    meta: &'a CallMeta,
}

/// `--json` output of a `slmcode generate` that fell back to the last answer's text (exit 8,
/// `text_fallback` on).
#[derive(Debug, Serialize)]
struct FellBack<'a> {
    /// The last answer's text, whole, as the model wrote it: not validated.
    text: &'a str,
    /// The failure the text stands in for: `kind` is `text_fallback` and `exit_code` 8; `class`
    /// and the evidence are the failure's.
    error: FailureDetail<'a>,
    /// What happened before it.
    meta: &'a CallMeta,
}

/// `error` in [`FailedOutput`]: the fields every command's error has, plus the evidence.
#[derive(Debug, Serialize)]
struct FailureDetail<'a> {
    /// `not_json`, `truncated`, `schema_violation`, `endpoint` or `repetition`; `text_fallback`
    /// in [`FellBack`].
    kind: &'static str,
    /// The exit code.
    exit_code: u8,
    /// What went wrong, in one line.
    message: String,
    /// Always empty here (the shape is the same as every command's error).
    causes: Vec<String>,
    /// What to do about it.
    hint: Option<String>,
    /// For an answer: the failure class (`empty`, `prose`, `malformed`, `truncated`,
    /// `wrong_shape`); for the endpoint: the error class (`transient`, `rate_limited`,
    /// `permanent`, `context_overflow`, `canceled`, `unknown`).
    class: &'static str,
    /// The HTTP status of an endpoint failure.
    status: Option<u16>,
    /// Validation errors of the last answer against the schema, with JSON pointers.
    errors: &'a [ValidationError],
    /// The last answer's text, at most 4000 characters; null for an endpoint failure.
    raw: Option<&'a str>,
    /// Whether `raw` was cut.
    raw_cut: bool,
    /// For a truncated top-level object: the members that were complete (not validated).
    partial: Option<&'a Map<String, Value>>,
    /// For a truncated top-level object: the required members still missing.
    missing_required: &'a [String],
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let resolved = resolve(&args, printer)?;
    let request = request(&args, printer)?;
    let schema_file = args.schema_file.is_some();
    let (target, _) = target_from(&resolved)?;
    // A forced mechanism sends no probe: the cache (or the preset's prior) fills the context.
    let negotiate_options = options(&resolved, false, args.mechanism.is_none());
    let negotiation = negotiate(&target, &negotiate_options, printer);
    for warning in &negotiation.warnings {
        printer.warn(warning);
    }
    let spinner = printer.spinner("waiting for the model ...");
    let shown = spinner.clone();
    let context = CallContext::new(resolved.settings.clone(), target, negotiation)
        .with_cache(negotiate_options.cache.clone())
        .with_progress(move |progress| shown.set_message(progress_line(progress)));
    let result = structured_call(&request, &context);
    spinner.finish_and_clear();
    let footer = args
        .verbose
        .then(|| meta_of(&result).map(footer::footer))
        .flatten();
    let finished = (|| -> CommandResult {
        match result {
            Ok(outcome) => {
                warn_meta(&outcome.meta, schema_file, printer);
                if args.tools.is_some() {
                    tools::print(&outcome, args.pretty, printer)?;
                    if !printer.json()
                        && let Some(note) = degraded_note(&outcome.meta)
                    {
                        printer.note(&note);
                    }
                    return Ok(Exit::Success);
                }
                let Answer::Value(value) = &outcome.answer else {
                    return Err(CliError::new(
                        Exit::Failure,
                        anyhow!("the model answered with tool calls, but no --tools were given"),
                    ));
                };
                if printer.json() {
                    printer.json_value(&Generated {
                        value,
                        meta: &outcome.meta,
                    })?;
                } else {
                    let text = if args.pretty {
                        repair::to_pretty(value)
                    } else {
                        repair::to_compact(value)
                    };
                    printer.line(&text)?;
                    if let Some(note) = degraded_note(&outcome.meta) {
                        printer.note(&note);
                    }
                }
                Ok(Exit::Success)
            }
            Err(CallFailure::Request(error)) => Err(request_error(error, &args)),
            Err(CallFailure::Endpoint { error, meta }) => {
                warn_meta(&meta, schema_file, printer);
                let hint = endpoint_hint(&error, &context.target);
                let detail = FailureDetail {
                    kind: Exit::Endpoint.name(),
                    exit_code: Exit::Endpoint as u8,
                    message: error.to_string(),
                    causes: Vec::new(),
                    hint: Some(hint.clone()),
                    class: error.class.as_str(),
                    status: error.status,
                    errors: &[],
                    raw: None,
                    raw_cut: false,
                    partial: None,
                    missing_required: &[],
                };
                fail(detail, &meta, Exit::Endpoint, printer)
            }
            Err(CallFailure::DeadlineExceeded(exceeded)) => {
                warn_meta(&exceeded.meta, schema_file, printer);
                let detail = FailureDetail {
                    kind: Exit::Endpoint.name(),
                    exit_code: Exit::Endpoint as u8,
                    message: exceeded.to_string(),
                    causes: Vec::new(),
                    hint: Some(format!(
                        "the model did not finish within the call's deadline of {} s: raise --call-timeout (setting call_timeout_s), or lower --max-tokens",
                        exceeded.deadline.as_secs()
                    )),
                    class: ErrorClass::Canceled.as_str(),
                    status: None,
                    errors: &[],
                    raw: Some(&exceeded.raw),
                    raw_cut: exceeded.raw_cut,
                    partial: exceeded.partial.as_ref(),
                    missing_required: &exceeded.missing_required,
                };
                fail(detail, &exceeded.meta, Exit::Endpoint, printer)
            }
            Err(CallFailure::SchemaViolation(violation)) => {
                warn_meta(&violation.meta, schema_file, printer);
                let exit = Exit::for_failure(violation.class);
                let exit = if violation.text_fallback.is_some() {
                    Exit::TextFallback
                } else {
                    exit
                };
                let detail = FailureDetail {
                    kind: exit.name(),
                    exit_code: exit as u8,
                    message: violation.to_string(),
                    causes: Vec::new(),
                    hint: Some(if args.tools.is_some() {
                        tools::hint(&violation, resolved.settings.max_tokens)
                    } else {
                        violation_hint(&violation, resolved.settings.max_tokens)
                    }),
                    class: violation.class.as_str(),
                    status: None,
                    errors: &violation.errors,
                    raw: Some(&violation.raw),
                    raw_cut: violation.raw_cut,
                    partial: violation.partial.as_ref(),
                    missing_required: &violation.missing_required,
                };
                if let Some(text) = &violation.text_fallback {
                    return fall_back(text, detail, &violation.meta, printer);
                }
                if !printer.json() {
                    for error in &violation.errors {
                        printer.note(&format!("  {error}"));
                    }
                }
                fail(detail, &violation.meta, exit, printer)
            }
            // A failure a later library adds: its message, exit 1.
            Err(failure) => Err(CliError::new(Exit::Failure, anyhow::Error::new(failure))),
        }
    })();
    if let Some(footer) = footer {
        printer.note(&footer);
    }
    finished
}

/// Settings from the flags (`--max-tokens` and `--reask` are settings for one run), the
/// environment and the file.
fn resolve(args: &Args, printer: &Printer) -> Result<Resolved, CliError> {
    let mut overrides = args.settings.overrides();
    if let Some(max_tokens) = &args.max_tokens {
        overrides.set(Key::MaxTokens, max_tokens.clone());
    }
    for (key, value) in [
        (Key::Reask, &args.reask),
        (Key::CallTimeoutS, &args.call_timeout),
        (Key::Temperature, &args.temperature),
        (Key::AntiRepetition, &args.anti_repetition),
        (Key::Thinking, &args.thinking),
        (Key::TextFallback, &args.text_fallback),
    ] {
        if let Some(value) = value {
            overrides.set(key, value.clone());
        }
    }
    let resolved =
        config::resolve(&Environment::from_process(), &overrides).map_err(config_error)?;
    for warning in &resolved.warnings {
        printer.warn(&warning.to_string());
    }
    Ok(resolved)
}

/// The request the arguments describe; the schema is checked before stdin is read.
fn request(args: &Args, printer: &Printer) -> Result<StructuredRequest, CliError> {
    let mut request = match (&args.schema, &args.schema_file) {
        (Some(name), _) => StructuredRequest::contract(super::schema::contract(name)?.name),
        (None, Some(path)) => {
            let schema = load_schema_file(path)?;
            schema::validator(&schema).map_err(|error| {
                CliError::new(
                    Exit::Failure,
                    anyhow::Error::new(error).context(format!("schema file {}", path.display())),
                )
            })?;
            let name = path
                .file_stem()
                .map(|stem| {
                    stem.to_string_lossy()
                        .trim_end_matches(".schema")
                        .to_owned()
                })
                .unwrap_or_default();
            StructuredRequest::schema(schema).named(name)
        }
        (None, None) => StructuredRequest::default(),
    };
    if let Some(id) = &args.role {
        let spec = RoleSpec::new(id.clone());
        let decoding = agents::normalize_decoding(&spec).map_err(|error| {
            CliError::usage(error).with_hint("`slmcode schema list` shows every contract")
        })?;
        if request.schema.is_none() && decoding.contract.is_none() && args.tools.is_none() {
            return Err(CliError::usage(anyhow!(
                "role `{id}` is {} and has no contract",
                decoding.kind.as_str()
            ))
            .with_hint(
                "give a schema with --schema or --schema-file; `slmcode roles` lists the roles",
            ));
        }
        request = request.with_role(spec);
    }
    if let Some(path) = &args.tools {
        let file = super::tools::load(path)?;
        request.tools = Some(file.tools);
        let choice_from_flag = args.tool_choice.is_some();
        request.tool_choice = match &args.tool_choice {
            Some(text) => Some(
                slmcode::tools::ToolChoice::from_argument(text)
                    .map_err(|error| CliError::usage(anyhow!("--tool-choice: {}", error.reason)))?,
            ),
            // The library's default is OpenAI's (`auto`); this command's own is a call when
            // there is no schema to answer in, as its help says.
            None => file.tool_choice.or(Some(if request.schema.is_some() {
                slmcode::tools::ToolChoice::Auto
            } else {
                slmcode::tools::ToolChoice::Required
            })),
        };
        // Checked before anything is sent (negotiation may probe).
        if let Some(slmcode::tools::ToolChoice::Tool(name)) = &request.tool_choice
            && request
                .tools
                .as_ref()
                .is_some_and(|tools| tools.get(name).is_none())
        {
            let known = request
                .tools
                .as_ref()
                .map(|tools| tools.names().join(", "))
                .unwrap_or_default();
            if choice_from_flag {
                return Err(CliError::usage(anyhow!(
                    "--tool-choice names {name:?}, which is not one of the tools in {} ({known})",
                    path.display()
                )));
            }
            // The file's own tool_choice: the file is what to fix, as `tools compile` says.
            return Err(CliError::new(
                Exit::Failure,
                anyhow!("tool_choice names {name:?}, which is not one of the tools ({known})")
                    .context(format!("tools file {}", path.display())),
            ));
        }
    }
    let text = match &args.prompt {
        Some(text) => text.clone(),
        None => Input::Stdin.read_text(printer)?,
    };
    if text.trim().is_empty() {
        return Err(
            CliError::usage(anyhow!("nothing to ask: the request is empty"))
                .with_hint("give it with --prompt TEXT, or on stdin"),
        );
    }
    if let Some(system) = &args.system {
        request = request.system(system.clone());
    }
    request = request.user(text);
    request.mechanism = args.mechanism;
    request.seed = args.seed;
    Ok(request)
}

/// Errors the library finds in a request before sending anything.
fn request_error(error: RequestError, args: &Args) -> CliError {
    match error {
        RequestError::InvalidSchema(_) => CliError::new(Exit::Failure, error),
        RequestError::Tools(slmcode::tools::CompileError::UnknownTool { .. }) => {
            CliError::usage(error).with_hint("--tool-choice names a tool: one of the file's tools")
        }
        // One tool's schema admits no call: the tools file is what to fix. The compile error
        // alone, since the request error's message already repeats it.
        RequestError::Tools(
            inner @ slmcode::tools::CompileError::Grammar { tool: Some(_), .. },
        ) => match &args.tools {
            Some(path) => CliError::new(
                Exit::Failure,
                anyhow::Error::new(inner).context(format!("tools file {}", path.display())),
            ),
            None => CliError::new(Exit::Failure, RequestError::Tools(inner)),
        },
        RequestError::Tools(_) => CliError::new(Exit::Failure, error),
        _ => CliError::usage(error),
    }
}

/// What the progress line says while an answer streams: its tokens and their rate.
fn progress_line(progress: &CallProgress) -> String {
    let attempt = if progress.attempt > 1 {
        format!("re-ask {}: ", progress.attempt - 1)
    } else {
        String::new()
    };
    match progress.tokens_per_second {
        Some(rate) => format!(
            "{attempt}{} tokens, {rate:.0} tokens/s, {:.0} s",
            progress.tokens,
            progress.elapsed.as_secs_f64()
        ),
        None => format!(
            "{attempt}{} token{}",
            progress.tokens,
            if progress.tokens == 1 { "" } else { "s" }
        ),
    }
}

fn fail(
    detail: FailureDetail<'_>,
    meta: &CallMeta,
    exit: Exit,
    printer: &Printer,
) -> CommandResult {
    if printer.json() {
        let message = detail.message.clone();
        let hint = detail.hint.clone();
        printer.json_value(&FailedOutput {
            error: detail,
            meta,
        })?;
        printer.error(&anyhow!(message), hint.as_deref());
    } else {
        printer.error(&anyhow!(detail.message), detail.hint.as_deref());
    }
    Ok(exit)
}

/// Seed 004's backstop: the last answer's text on stdout as it came (with `--json`, beside the
/// failure), the failure as a warning on stderr, exit 8.
fn fall_back(
    text: &str,
    detail: FailureDetail<'_>,
    meta: &CallMeta,
    printer: &Printer,
) -> CommandResult {
    let warning = format!(
        "no valid answer, so the last one is printed as it came (text_fallback is on): {}",
        detail.message
    );
    if printer.json() {
        printer.json_value(&FellBack {
            text,
            error: detail,
            meta,
        })?;
    } else {
        if text.ends_with('\n') {
            printer.raw(text)?;
        } else {
            printer.line(text)?;
        }
        for error in detail.errors {
            printer.note(&format!("  {error}"));
        }
    }
    printer.warn(&warning);
    Ok(Exit::TextFallback)
}

fn endpoint_hint(error: &CallError, target: &Target) -> String {
    if let Some(tls) = &error.tls {
        return tls_remedy(tls, target);
    }
    if error.refused {
        return refused_remedy(target);
    }
    match error.class {
        ErrorClass::ContextOverflow => {
            "the request does not fit the model's context: shorten the prompt or lower --max-tokens"
                .to_owned()
        }
        ErrorClass::RateLimited => "the server is rate limiting: try again later".to_owned(),
        ErrorClass::Canceled => "no answer in time: raise --timeout".to_owned(),
        ErrorClass::Permanent if matches!(error.status, Some(401 | 403)) => {
            "the server refused the key: check api_key_env with `slmcode config list`".to_owned()
        }
        _ => "`slmcode doctor` checks every step from the settings to an answer".to_owned(),
    }
}

/// What to do about `violation`; `max_tokens` is the budget the call was given.
fn violation_hint(violation: &SchemaViolation, max_tokens: u32) -> String {
    let meta = &violation.meta;
    if meta.degrade_reason == Some(DegradeReason::StructuredDecodingOff) {
        return "nothing constrained the model: `slmcode config set structured_decoding auto` lets the endpoint enforce the schema".to_owned();
    }
    let row = exit::failure(violation.class);
    let detail = match violation.class {
        FailureClass::Repetition if meta.reasks.is_empty() => {
            " and no re-ask was allowed".to_owned()
        }
        FailureClass::Repetition => {
            let loops = meta
                .reasks
                .iter()
                .filter(|reask| reask.class == FailureClass::Repetition)
                .count();
            match loops {
                0 => " and the re-asks did not break it".to_owned(),
                1 => " and the re-ask with anti-repetition sampling did not break it".to_owned(),
                _ => format!(
                    " and {loops} re-asks with anti-repetition sampling and fresh seeds did not break it"
                ),
            }
        }
        FailureClass::Truncated => {
            let last = meta.reasks.last().map(|reask| reask.max_tokens);
            if let Some(hint) = deadline_cut(last, max_tokens, meta.deadline_s) {
                return hint;
            }
            last.map_or_else(String::new, |budget| {
                format!(" (the last request had {budget})")
            })
        }
        _ => format!(" under {}", meta.mechanism),
    };
    row.call_hint(&detail)
}

/// The hint for a truncated answer whose last request had a budget below the call's
/// (`max_tokens`): all the deadline left room for, so more tokens would not help; `None`
/// otherwise.
fn deadline_cut(last_budget: Option<u32>, max_tokens: u32, deadline_s: f64) -> Option<String> {
    let budget = last_budget.filter(|budget| *budget < max_tokens)?;
    Some(format!(
        "the answer ran out of tokens: the last request had {budget}, all the call's deadline of \
         {deadline_s} s left room for: raise --call-timeout (setting call_timeout_s)"
    ))
}

/// Warnings the call produced, and for a schema file what the projection left out of the wire
/// form (a keyword a mechanism cannot carry is dropped from the wire form only, never from
/// validation, and the user is told). A contract's notes stay in
/// `meta.notes`: they are by design (bounds too large for a grammar engine), the same on every
/// call, and validation checks them anyway.
fn warn_meta(meta: &CallMeta, schema_file: bool, printer: &Printer) {
    for warning in &meta.warnings {
        printer.warn(warning);
    }
    for note in meta.notes.iter().filter(|_| schema_file) {
        printer.warn(&format!(
            "the {} wire form leaves out {note} (validation still checks it)",
            meta.mechanism
        ));
    }
}

/// The call's meta, whatever the outcome (none for a request refused before anything was sent).
fn meta_of(result: &Result<StructuredOutcome, CallFailure>) -> Option<&CallMeta> {
    match result {
        Ok(outcome) => Some(&outcome.meta),
        Err(failure) => failure.meta(),
    }
}

/// One line on stderr when the value did not come from a first-try constrained answer.
fn degraded_note(meta: &CallMeta) -> Option<String> {
    let reason = meta.degrade_reason?;
    let mut note = format!("degraded ({reason}): answered under {}", meta.mechanism);
    if !meta.demotions.is_empty() {
        let demoted: Vec<String> = meta
            .demotions
            .iter()
            .map(|demotion| match demotion.status {
                Some(status) => format!("{} (HTTP {status})", demotion.form),
                None => format!("{} (not enforced)", demotion.form),
            })
            .collect();
        note.push_str(&format!(", demoted {}", demoted.join(", ")));
    }
    let loops = meta
        .reasks
        .iter()
        .filter(|reask| reask.class == FailureClass::Repetition)
        .count();
    if loops > 0 {
        note.push_str(&format!(
            ", {loops} loop{} cut off",
            if loops == 1 { "" } else { "s" }
        ));
    }
    if let Some(rung) = meta.repair_rung {
        note.push_str(&format!(", repair rung {rung}"));
    }
    note.push_str(&format!(
        ", {} attempt{}",
        meta.attempts,
        if meta.attempts == 1 { "" } else { "s" }
    ));
    Some(note)
}

#[cfg(test)]
mod tests {
    use super::deadline_cut;

    #[test]
    fn a_truncation_the_deadline_caused_points_at_the_deadline_not_the_budget() {
        assert_eq!(
            deadline_cut(Some(363), 2048, 60.0).as_deref(),
            Some(
                "the answer ran out of tokens: the last request had 363, all the call's deadline \
                 of 60 s left room for: raise --call-timeout (setting call_timeout_s)"
            )
        );
        // The call's own budget (or a raised one) ran out: more tokens may help.
        assert_eq!(deadline_cut(Some(2048), 2048, 60.0), None);
        assert_eq!(deadline_cut(Some(4096), 2048, 60.0), None);
        assert_eq!(deadline_cut(None, 2048, 60.0), None);
    }
}
