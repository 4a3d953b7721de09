//! `slmcode validate`: strict validation of one JSON document against a schema.

use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use slmcode::schema::{self, ValidationError, Validator};

use super::exit::{CliError, CommandResult, Exit};
use super::input::{Input, load_schema_file, not_both_stdin, parse_json};
use super::printer::Printer;

#[derive(Debug, clap::Args)]
#[command(group = clap::ArgGroup::new("against").required(true).multiple(false))]
pub struct Args {
    /// The contract to validate against, such as `plan` (`slmcode schema list` shows them all).
    #[arg(long, value_name = "CONTRACT", group = "against")]
    schema: Option<String>,

    /// A JSON Schema file to validate against (`-` reads it from stdin).
    #[arg(long, value_name = "FILE", group = "against")]
    schema_file: Option<PathBuf>,

    /// The document to validate; `-` or nothing reads stdin.
    #[arg(value_name = "FILE")]
    input: Option<PathBuf>,
}

/// `--json` output of `slmcode validate`.
#[derive(Debug, Serialize)]
struct Report<'a> {
    /// Whether the document satisfies the schema.
    valid: bool,
    /// What the document was validated against: the contract's name (`--schema`), or the
    /// schema file's path as given (`--schema-file`).
    schema: String,
    /// Every violation, with the JSON pointer into the document. Empty when valid.
    errors: &'a [ValidationError],
}

/// What the document is validated against: a contract, or a compiled schema file.
enum Against {
    Contract(&'static Validator),
    File(Arc<Validator>),
}

impl Against {
    fn validator(&self) -> &Validator {
        match self {
            Against::Contract(validator) => validator,
            Against::File(validator) => validator,
        }
    }
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    // The schema is resolved before the input is read: a wrong contract name or a broken schema
    // file is reported without waiting on stdin.
    let input = Input::from_arg(args.input.as_deref());
    not_both_stdin(args.schema_file.as_deref(), &input)?;
    let (schema_name, described, against) = match (&args.schema, &args.schema_file) {
        (Some(name), _) => {
            let contract = super::schema::contract(name)?;
            (
                contract.name.to_owned(),
                format!("the {} contract", contract.name),
                Against::Contract(contract.validator()),
            )
        }
        (None, Some(path)) => {
            let schema_name = path.display().to_string();
            let schema = load_schema_file(path)?;
            let validator = schema::validator(&schema).map_err(|error| {
                CliError::new(
                    Exit::Failure,
                    anyhow::Error::new(error).context(format!("schema file {schema_name}")),
                )
            })?;
            (schema_name.clone(), schema_name, Against::File(validator))
        }
        (None, None) => unreachable!("clap requires one of --schema and --schema-file"),
    };
    let document: Value = parse_json(&input.read_bytes()?, &input)?;
    let errors = match against.validator().validate(&document) {
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
            "{} does not satisfy {described}: {} error{}",
            input.name(),
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
