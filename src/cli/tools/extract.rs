//! `slmcode tools extract TOOLS.json [FILE]`: the tool call in a model's text, repaired and
//! validated against its tool's schema.
//!
//! Prints the call `{"name", "arguments"}` (with `--all`, the array of every call). With serial
//! tools (the default) only the first call is kept and the others are reported as dropped.
//! Exit codes: 0 a valid call; 3 the text holds no call; 4 a call is cut off (or the server
//! stopped on length); 5 a call names an unknown tool or its arguments violate its schema;
//! 1 a bad tools file.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;
use slmcode::repair::Rung;
use slmcode::tools::{DroppedCall, ExtractError, ExtractOptions, ExtractedCall, extract};

use crate::cli::exit::{self, CliError, CommandResult, Exit};
use crate::cli::input::Input;
use crate::cli::printer::Printer;
use slmcode::repair::FailureClass;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The tools the text may call (same forms as `tools compile`).
    #[arg(value_name = "TOOLS.json")]
    tools: PathBuf,

    /// The model's text; `-` or nothing reads stdin.
    #[arg(value_name = "FILE")]
    input: Option<PathBuf>,

    /// Keep every call in the text instead of only the first.
    #[arg(long, conflicts_with = "serial")]
    all: bool,

    /// Keep only the first call (serial tools). The default.
    #[arg(long)]
    serial: bool,

    /// How the server said the answer ended; `length` means the last call is cut off.
    #[arg(long, value_name = "REASON")]
    finish_reason: Option<String>,
}

/// `--json` output of `slmcode tools extract`.
#[derive(Debug, Serialize)]
struct Report<'a> {
    /// The calls kept (one unless `--all`), each `{name, arguments, source, rung,
    /// rungs_changed, coercions, notes}`: `source` is `tool_call_tag`, `function_tag`, `fence`
    /// or `bare`; `rung` the highest repair rung the call needed.
    calls: &'a [ExtractedCall],
    /// Calls found and not kept, each `{name, reason}`.
    dropped: &'a [DroppedCall],
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let file = super::load(&args.tools)?;
    let input = Input::from_arg(args.input.as_deref());
    let text = input.read_text(printer)?;
    let options = ExtractOptions::default()
        .serial(!args.all)
        .finish_reason_length(
            args.finish_reason
                .as_deref()
                .is_some_and(|reason| reason.eq_ignore_ascii_case("length")),
        );
    let extraction = extract(&text, &file.tools, &options).map_err(extract_error)?;
    if printer.json() {
        printer.json_value(&Report {
            calls: &extraction.calls,
            dropped: &extraction.dropped,
        })?;
        return Ok(Exit::Success);
    }
    for call in &extraction.calls {
        if call.rung != Rung::None {
            let rungs: Vec<&str> = call
                .rungs_changed
                .iter()
                .map(|rung| rung.as_str())
                .collect();
            printer.note(&format!(
                "{}: repaired (rung {}; changed: {})",
                call.name,
                call.rung.as_str(),
                rungs.join(", ")
            ));
        }
        for coercion in &call.coercions {
            printer.note(&format!(
                "{}: coerced {} from {} to {}",
                call.name,
                if coercion.pointer.is_empty() {
                    "(root)"
                } else {
                    &coercion.pointer
                },
                coercion.from,
                coercion.to
            ));
        }
        for note in &call.notes {
            printer.note(&format!("{}: {note}", call.name));
        }
    }
    for dropped in &extraction.dropped {
        printer.note(&format!(
            "dropped a call{}: {}",
            dropped
                .name
                .as_deref()
                .map(|name| format!(" to {name}"))
                .unwrap_or_default(),
            dropped.reason
        ));
    }
    if args.all {
        let calls: Vec<Value> = extraction.calls.iter().map(ExtractedCall::call).collect();
        printer.json_value(&calls)?;
    } else {
        printer.json_value(&extraction.calls[0].call())?;
    }
    Ok(Exit::Success)
}

fn extract_error(error: ExtractError) -> CliError {
    let class = match &error {
        ExtractError::NoCall { class, .. } => *class,
        ExtractError::Truncated { .. } => FailureClass::Truncated,
        ExtractError::UnknownTool { .. } => FailureClass::UnknownTool,
        ExtractError::InvalidArguments { .. } => FailureClass::InvalidArguments,
    };
    let row = exit::failure(class);
    let hint = match class {
        FailureClass::Empty | FailureClass::Prose | FailureClass::Malformed => Some(
            "the model answered without calling a tool: re-ask for exactly one call".to_owned(),
        ),
        FailureClass::Truncated => Some(row.offline_hint()),
        // The error lists the tools or the arguments' errors: that is the whole story.
        _ => None,
    };
    let error = CliError::new(row.exit, error);
    match hint {
        Some(hint) => error.with_hint(hint),
        None => error,
    }
}
