//! `slmcode validate`: strict validation of one JSON document against a schema.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;
use slmcode::schema::{self, ValidationError};

use super::exit::{CliError, CommandResult, Exit};
use super::input::{Source, load_schema_file, parse_json};
use super::printer::Printer;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// A JSON Schema file to validate against.
    #[arg(long, value_name = "FILE")]
    schema_file: PathBuf,

    /// The document to validate; `-` or nothing reads stdin.
    #[arg(value_name = "FILE")]
    input: Option<PathBuf>,
}

/// `--json` output of `slmcode validate`.
#[derive(Debug, Serialize)]
struct Report<'a> {
    /// Whether the document satisfies the schema.
    valid: bool,
    /// The schema's name: a contract name, or the schema file's path.
    schema: String,
    /// Every violation, with the JSON pointer into the document. Empty when valid.
    errors: &'a [ValidationError],
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let schema_name = args.schema_file.display().to_string();
    let schema = load_schema_file(&args.schema_file)?;
    let validator = schema::validator(&schema).map_err(|error| {
        CliError::new(
            Exit::Failure,
            anyhow::anyhow!("schema file {schema_name}: {error}"),
        )
    })?;
    let source = Source::from_arg(args.input.as_deref());
    let document: Value = parse_json(&source.read_bytes()?, &source)?;
    let errors = match validator.validate(&document) {
        Ok(()) => Vec::new(),
        Err(violations) => violations.0,
    };
    let valid = errors.is_empty();
    if printer.json() {
        printer.json_value(&Report {
            valid,
            schema: schema_name,
            errors: &errors,
        })?;
    } else if valid {
        printer.line("valid")?;
    } else {
        for error in &errors {
            printer.line(&error.to_string())?;
        }
        printer.note(&format!(
            "{} does not satisfy {schema_name}: {} error{}",
            source.name(),
            errors.len(),
            if errors.len() == 1 { "" } else { "s" }
        ));
    }
    Ok(if valid {
        Exit::Success
    } else {
        Exit::SchemaViolation
    })
}
