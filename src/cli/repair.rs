//! `slmcode repair`: a model's answer on stdin (or in a file) to repaired, validated JSON on
//! stdout, or a clear failure with its own exit code (3 no JSON, 4 truncated, 5 wrong shape).
//!
//! Values of any depth are written with the repair module's iterative writer, never with
//! `serde_json`'s recursive one, and dropped with `drop_deep`. Every run is counted in
//! `<config dir>/repair-stats.json` (always: the `record_stats` setting is not read yet);
//! a stats file that cannot be read or written is a warning, never a failure.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use anyhow::anyhow;
use serde::Serialize;
use serde_json::Value;
use slmcode::config::{self, ConfigError, Environment, Key, Overrides};
use slmcode::files::stats::STATS_FILE;
use slmcode::repair::{self, Coercion, RepairFailure, RepairOptions, Repaired, Repetition, Stats};
use slmcode::schema::ValidationError;

use super::exit::{self, CliError, CommandResult, Exit};
use super::input::{Input, load_schema_file, not_both_stdin};
use super::printer::{Printer, error_chain};
use super::settings_args;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The model's answer; `-` or nothing reads stdin.
    #[arg(value_name = "FILE")]
    input: Option<PathBuf>,

    /// Validate (and coerce) against this contract (`slmcode schema list` shows them all);
    /// `none` repairs without a schema.
    #[arg(long, value_name = "CONTRACT", conflicts_with = "schema_file")]
    schema: Option<String>,

    /// Validate (and coerce) against the JSON Schema in this file (`-` reads it from stdin).
    #[arg(long, value_name = "FILE")]
    schema_file: Option<PathBuf>,

    /// How the server said the answer ended; `length` means it was cut off, so the result is
    /// always "truncated".
    #[arg(long, value_enum, value_name = "REASON")]
    finish_reason: Option<FinishReason>,

    /// Print the repaired JSON indented instead of compact.
    #[arg(long)]
    pretty: bool,

    /// Whether to count this run in the repair stats (overrides `record_stats`).
    #[arg(long, value_name = "BOOL")]
    record_stats: Option<String>,
}

/// The finish reasons an OpenAI-compatible server reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum FinishReason {
    /// The model ended its answer itself.
    Stop,
    /// The server stopped the model at `max_tokens`.
    Length,
}

/// `--json` output of `slmcode repair`, on success and on failure alike (the exit code still
/// tells which).
///
/// `{"ok": bool, "rung": "fence"|null, "rungs": ["fence", ...], "coercions": [{"pointer",
/// "kind", "from", "to"}], "value": <the value>|null, "class": null|"empty"|"prose"|
/// "truncated"|"malformed"|"wrong_shape"|"repetition", "message": null|"...", "errors":
/// [{"pointer", "message"}], "partial": {...}|null, "missing_required": ["..."],
/// "repetition": null|{"kind", "start", "end", "period", "repeats", "unit"}, "dropped": N}`
#[derive(Debug, Serialize)]
struct Report<'a> {
    /// Whether a value that can be trusted came out.
    ok: bool,
    /// The first rung after which the document parsed (and validated); null on failure.
    rung: Option<&'static str>,
    /// Every rung that changed something, in ladder order.
    rungs: Vec<&'static str>,
    /// What the `coerce` rung changed, each at its JSON pointer.
    coercions: &'a [Coercion],
    /// The repaired value; on failure the parsed value when there is one (wrong shape).
    value: Value,
    /// The failure class; null on success.
    class: Option<&'static str>,
    /// The failure's one-line description; null on success.
    message: Option<&'a str>,
    /// For `wrong_shape`: every validation error with its JSON pointer.
    errors: &'a [ValidationError],
    /// For a truncated top-level object: the members that were complete.
    partial: Value,
    /// For a truncated top-level object: the required names the partial members lack.
    missing_required: &'a [String],
    /// For `repetition`: the loop (its kind, where it starts, the repeated unit).
    repetition: Option<&'a Repetition>,
    /// How many further top-level values the answer held that were dropped (0 on failure).
    dropped: usize,
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    not_both_stdin(
        args.schema_file.as_deref(),
        &Input::from_arg(args.input.as_deref()),
    )?;
    let schema = resolve_schema(&args)?;
    let stats_file = stats_file(args.record_stats.as_deref(), printer)?;
    let input = Input::from_arg(args.input.as_deref());
    let text = input.read_text(printer)?;
    let mut options =
        RepairOptions::new().finish_reason_length(args.finish_reason == Some(FinishReason::Length));
    if let Some((name, schema)) = &schema {
        options = options.schema(schema).map_err(|error| {
            CliError::new(
                Exit::Failure,
                anyhow::Error::new(error).context(format!("schema {name}")),
            )
        })?;
    }
    let result = repair::repair(&text, &options);
    // Counted now, saved after the answer is out: a stats file that cannot be written (or is
    // locked, or holds a counter at its limit) never costs the user the answer.
    let counted = stats_file.map(|path| {
        let mut stats = Stats::new();
        stats.record(&result);
        (stats, path)
    });
    let outcome = if printer.json() {
        json_report(result, printer)
    } else {
        match result {
            Ok(repaired) => {
                let rendered = if args.pretty {
                    repair::to_pretty(&repaired.value)
                } else {
                    repair::to_compact(&repaired.value)
                };
                let written = printer.line(&rendered);
                if written.is_ok() && repaired.rung != repair::Rung::None {
                    printer.note(&rung_note(&repaired));
                }
                repair::drop_deep(repaired.value);
                written.map(|()| Exit::Success).map_err(CliError::from)
            }
            Err(failure) => Err(failure_error(failure, &input)),
        }
    };
    if let Some((stats, path)) = counted {
        save_stats(&stats, &path, printer);
    }
    outcome
}

/// `--schema CONTRACT | --schema-file FILE | --schema none`, as the schema's name and value.
fn resolve_schema(args: &Args) -> Result<Option<(String, Cow<'static, Value>)>, CliError> {
    if let Some(path) = &args.schema_file {
        let schema = load_schema_file(path)?;
        return Ok(Some((path.display().to_string(), Cow::Owned(schema))));
    }
    match args.schema.as_deref() {
        None | Some("none") => Ok(None),
        Some(name) => {
            let contract = super::schema::contract(name)?;
            Ok(Some((
                format!("the {} contract", contract.name),
                Cow::Borrowed(contract.schema()),
            )))
        }
    }
}

/// `repaired at rung X (changed: a, b, X)`, plus the coercions, on one line.
fn rung_note(repaired: &Repaired) -> String {
    let changed: Vec<&str> = repaired
        .rungs_changed
        .iter()
        .map(|rung| rung.as_str())
        .collect();
    let mut note = format!(
        "repaired at rung {} (changed: {})",
        repaired.rung,
        changed.join(", ")
    );
    if !repaired.coercions.is_empty() {
        let coerced: Vec<String> = repaired
            .coercions
            .iter()
            .map(|coercion| {
                let pointer = if coercion.pointer.is_empty() {
                    "(root)"
                } else {
                    &coercion.pointer
                };
                format!("{pointer} {}", coercion.kind.as_str())
            })
            .collect();
        note.push_str(&format!("; coerced {}", coerced.join(", ")));
    }
    match repaired.dropped {
        0 => {}
        1 => note.push_str("; 1 more top-level value dropped"),
        more => note.push_str(&format!("; {more} more top-level values dropped")),
    }
    note
}

fn failure_error(failure: RepairFailure, input: &Input) -> CliError {
    let mut text = format!("{}: {}", input.name(), failure.message);
    for error in &failure.errors {
        text.push_str(&format!("\n  {error}"));
    }
    if let Some(partial) = &failure.partial {
        let names: Vec<&str> = partial.keys().map(String::as_str).collect();
        text.push_str(&format!("\n  complete members: {}", list_or_none(&names)));
        if !failure.missing_required.is_empty() {
            let missing: Vec<&str> = failure
                .missing_required
                .iter()
                .map(String::as_str)
                .collect();
            text.push_str(&format!("\n  missing required: {}", missing.join(", ")));
        }
    }
    let row = exit::failure(failure.class);
    drop_failure(failure);
    CliError::new(row.exit, anyhow!(text)).with_hint(row.offline_hint())
}

fn list_or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

fn drop_failure(failure: RepairFailure) {
    if let Some(value) = failure.value {
        repair::drop_deep(value);
    }
    if let Some(partial) = failure.partial {
        repair::drop_deep(Value::Object(partial));
    }
}

fn json_report(result: Result<Repaired, RepairFailure>, printer: &Printer) -> CommandResult {
    // The report's own fields are shallow; the value and the partial members may be deep, so
    // they are moved into the document afterwards and written with the iterative writer.
    let (mut document, exit) = {
        let (report, exit) = match &result {
            Ok(repaired) => (
                Report {
                    ok: true,
                    rung: Some(repaired.rung.as_str()),
                    rungs: names(&repaired.rungs_changed),
                    coercions: &repaired.coercions,
                    value: Value::Null,
                    class: None,
                    message: None,
                    errors: &[],
                    partial: Value::Null,
                    missing_required: &[],
                    repetition: None,
                    dropped: repaired.dropped,
                },
                Exit::Success,
            ),
            Err(failure) => (
                Report {
                    ok: false,
                    rung: None,
                    rungs: names(&failure.rungs_changed),
                    coercions: &failure.coercions,
                    value: Value::Null,
                    class: Some(failure.class.as_str()),
                    message: Some(&failure.message),
                    errors: &failure.errors,
                    partial: Value::Null,
                    missing_required: &failure.missing_required,
                    repetition: failure.repetition.as_ref(),
                    dropped: 0,
                },
                Exit::for_failure(failure.class),
            ),
        };
        let document = serde_json::to_value(&report).map_err(anyhow::Error::from)?;
        (document, exit)
    };
    let (value, partial) = match result {
        Ok(repaired) => (repaired.value, None),
        Err(failure) => (failure.value.unwrap_or(Value::Null), failure.partial),
    };
    document["value"] = value;
    document["partial"] = partial.map_or(Value::Null, Value::Object);
    let mut text = repair::to_pretty(&document);
    text.push('\n');
    repair::drop_deep(document);
    printer.raw(&text)?;
    Ok(exit)
}

fn names(rungs: &[repair::Rung]) -> Vec<&'static str> {
    rungs.iter().map(|rung| rung.as_str()).collect()
}

/// The stats file in the settings' config directory, when the `record_stats` setting (flag >
/// environment > file > default) is on. A bad flag is a usage error; settings that cannot be
/// resolved otherwise are a warning, and the run is then not counted.
fn stats_file(flag: Option<&str>, printer: &Printer) -> Result<Option<PathBuf>, CliError> {
    let mut overrides = Overrides::new();
    if let Some(value) = flag {
        overrides.set(Key::RecordStats, value.to_owned());
    }
    match config::resolve(&Environment::from_process(), &overrides) {
        Ok(resolved) => Ok(resolved
            .settings
            .config_dir
            .filter(|_| resolved.settings.record_stats)
            .map(|dir| dir.join(STATS_FILE))),
        Err(error @ ConfigError::InvalidOverride { .. }) => Err(settings_args::config_error(error)),
        Err(error) => {
            printer.warn(&format!(
                "{}; this run is not counted in the repair stats",
                error_chain(&error)
            ));
            Ok(None)
        }
    }
}

/// Adds this run's counts to the stats file at `path`; any problem is a warning.
fn save_stats(stats: &Stats, path: &Path, printer: &Printer) {
    match slmcode::files::stats::add(stats, path) {
        Ok(None) => {}
        Ok(Some(replaced)) => {
            printer.warn(&format!("{replaced}; starting the repair stats afresh"));
        }
        Err(error) => {
            printer.warn(&format!("{}; this run is not counted", error_chain(&error)));
        }
    }
}
