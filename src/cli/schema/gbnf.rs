//! `slmcode schema gbnf CONTRACT | --file F`: the GBNF grammar derived from a schema.
//!
//! The grammar goes to stdout; what it approximates or leaves out goes to stderr as warnings
//! (or into the `notes` of `--json`). Exit 0 when a grammar was derived, 1 when the schema has
//! none (invalid, unsatisfiable, or referring to itself before any value), 2 for an unknown
//! contract or a wrong command line.

use std::path::PathBuf;

use serde::Serialize;
use slmcode::schema::Problem;
use slmcode::schema::gbnf::Whitespace;

use super::named;
use crate::cli::exit::{CommandResult, Exit};
use crate::cli::printer::Printer;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The contract, such as `plan` (`slmcode schema list` shows them all).
    #[arg(value_name = "CONTRACT")]
    contract: Option<String>,

    /// A JSON Schema file instead of a contract (`-` reads it from stdin).
    #[arg(long, value_name = "FILE", conflicts_with = "contract")]
    file: Option<PathBuf>,

    /// The whitespace allowed between tokens: pretty (at most one line break and an
    /// indentation; the exact grammar documented) or compact (none: what `generate` sends
    /// under the default `grammar_whitespace`).
    #[arg(long, value_name = "STYLE", default_value = "pretty", value_parser = whitespace)]
    whitespace: Whitespace,
}

fn whitespace(text: &str) -> Result<Whitespace, String> {
    text.parse()
        .map_err(|()| format!("`{text}` is not a whitespace style; expected compact or pretty"))
}

/// `--json` output of `slmcode schema gbnf`.
#[derive(Debug, Serialize)]
struct Report<'a> {
    /// The contract name, or the schema file's path.
    schema: &'a str,
    /// The GBNF text (llama.cpp syntax, start rule `root`).
    grammar: &'a str,
    /// Whether the grammar is exact for this schema: `notes` is empty.
    exact: bool,
    /// What the grammar approximates or leaves out: `pointer` into the schema, `keyword`
    /// when there is one, `reason`.
    notes: &'a [Problem],
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let named = named::resolve(args.contract.as_deref(), args.file.as_deref())?;
    let derived = named::derive(&named, args.whitespace)?;
    if printer.json() {
        printer.json_value(&Report {
            schema: &named.name,
            grammar: &derived.grammar,
            exact: derived.notes.is_empty(),
            notes: &derived.notes,
        })?;
    } else {
        printer.raw(&derived.grammar)?;
        for note in &derived.notes {
            printer.warn(&note.to_string());
        }
        if !derived.notes.is_empty() {
            printer.note(&format!(
                "the grammar is not exact for {} in {} place{}; validation still checks the whole schema",
                named.name,
                derived.notes.len(),
                if derived.notes.len() == 1 { "" } else { "s" }
            ));
        }
    }
    Ok(Exit::Success)
}
