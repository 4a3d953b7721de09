//! `slmcode schema match CONTRACT | --file F [INPUT|-]`: is a document in the language of the
//! schema's grammar, and if not, where does it leave it.
//!
//! This is the question a grammar-constrained decoder answers token by token, asked of a
//! finished text: canonical JSON of a valid instance (properties in schema order, bounded
//! whitespace) matches; anything else stops somewhere, and the report says where (line,
//! column, a caret under the spot) and what the grammar would have taken there.
//!
//! Exit 0 when the document matches, 5 when it does not, 1 when the schema has no grammar or
//! the input cannot be read, 2 for an unknown contract or a wrong command line.

use std::path::PathBuf;

use serde::Serialize;
use slmcode::schema::gbnf::Whitespace;
use slmcode::schema::gbnf::{self, Mismatch};

use super::named;
use crate::cli::exit::{CliError, CommandResult, Exit};
use crate::cli::input::{Input, not_both_stdin};
use crate::cli::printer::Printer;

/// How many characters of the offending line the report shows on each side of the caret.
const CONTEXT: usize = 40;

#[derive(Debug, clap::Args)]
#[command(
    override_usage = "slmcode schema match [OPTIONS] <CONTRACT> [INPUT]\n       slmcode schema match [OPTIONS] --file <FILE> [INPUT]"
)]
pub struct Args {
    /// The contract, such as `plan` (`slmcode schema list` shows them all). With `--file`,
    /// this place holds the INPUT.
    #[arg(value_name = "CONTRACT")]
    contract: Option<String>,

    /// The document to check; `-` or nothing reads stdin.
    #[arg(value_name = "INPUT")]
    input: Option<PathBuf>,

    /// A JSON Schema file instead of a contract (`-` reads it from stdin).
    #[arg(long, value_name = "FILE")]
    file: Option<PathBuf>,
}

/// `--json` output of `slmcode schema match`.
#[derive(Debug, Serialize)]
struct Report<'a> {
    /// Whether the whole document is in the grammar's language.
    matches: bool,
    /// The contract name, or the schema file's path.
    schema: &'a str,
    /// Where the document leaves the language (`offset` in bytes, 1-based `line` and
    /// `column` in characters, the character `found` there or null at the end, and what was
    /// `expected`); null when it matches.
    mismatch: Option<&'a Mismatch>,
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    // With --file, the first operand is the input.
    let (contract, input) = match (&args.file, args.contract, args.input) {
        (Some(_), Some(_), Some(_)) => {
            return Err(CliError::usage(anyhow::anyhow!(
                "with --file, give only the INPUT, not a contract name"
            )));
        }
        (Some(_), first, None) => (None, first.map(PathBuf::from)),
        (None, contract, input) => (contract, input),
        (Some(_), None, input) => (None, input),
    };
    not_both_stdin(args.file.as_deref(), &Input::from_arg(input.as_deref()))?;
    let named = named::resolve(contract.as_deref(), args.file.as_deref())?;
    let derived = named::derive(&named, Whitespace::Pretty)?;
    let grammar = gbnf::parse(&derived.grammar).map_err(|error| {
        CliError::new(
            Exit::Failure,
            anyhow::Error::new(error).context(format!(
                "the grammar derived from {} does not parse",
                named.name
            )),
        )
    })?;
    let input = Input::from_arg(input.as_deref());
    let bytes = input.read_bytes()?;
    // Where the input stops being UTF-8, if it does.
    let bad_byte = std::str::from_utf8(&bytes)
        .err()
        .map(|error| error.valid_up_to());
    let outcome = match std::str::from_utf8(&bytes) {
        Ok(text) => grammar
            .recognize(text)
            .map_err(|mismatch| (mismatch, text.to_owned())),
        Err(error) => {
            // JSON is UTF-8: the language stops at the first byte that is not.
            let valid = &bytes[..error.valid_up_to()];
            let text = String::from_utf8_lossy(valid).into_owned();
            let before_end = grammar.recognize(&text).err();
            let mismatch = not_utf8(&text, before_end);
            Err((mismatch, String::from_utf8_lossy(&bytes).into_owned()))
        }
    };
    let mismatch = outcome.as_ref().err();
    if printer.json() {
        printer.json_value(&Report {
            matches: mismatch.is_none(),
            schema: &named.name,
            mismatch: mismatch.map(|(mismatch, _)| mismatch),
        })?;
    } else if let Some((mismatch, text)) = mismatch {
        printer.line(&format!(
            "{}:{}:{}: {}",
            input.name(),
            mismatch.line,
            mismatch.column,
            reason(mismatch, bad_byte)
        ))?;
        for line in caret(text, mismatch) {
            printer.line(&line)?;
        }
        printer.note(&format!(
            "{} is not in the language of the grammar for {}",
            input.name(),
            named.name
        ));
    } else {
        printer.line("matches")?;
    }
    Ok(if mismatch.is_some() {
        Exit::SchemaViolation
    } else {
        Exit::Success
    })
}

/// What went wrong, in words: at a byte that is not UTF-8 the text has not ended, whatever
/// the mismatch's `found` (null there, as at the end) would otherwise say.
fn reason(mismatch: &Mismatch, bad_byte: Option<usize>) -> String {
    let reason = mismatch.reason();
    match reason.strip_prefix("unexpected end of input") {
        Some(rest) if bad_byte == Some(mismatch.offset) => format!("invalid UTF-8{rest}"),
        _ => reason,
    }
}

/// The mismatch for input whose UTF-8 breaks after `text`: where the valid part already
/// left the language, if it did before its end; otherwise at the bad byte.
fn not_utf8(text: &str, before_end: Option<Mismatch>) -> Mismatch {
    match before_end {
        Some(mismatch) if mismatch.offset < text.len() => mismatch,
        other => {
            let line = text.matches('\n').count() + 1;
            let line_start = text.rfind('\n').map_or(0, |index| index + 1);
            Mismatch {
                offset: text.len(),
                line,
                column: text[line_start..].chars().count() + 1,
                found: None,
                expected: other.map(|mismatch| mismatch.expected).unwrap_or_default(),
            }
        }
    }
}

/// The offending line (a window of it, with tabs and control characters shown as spaces so
/// the caret lines up) and a caret under the column.
fn caret(text: &str, mismatch: &Mismatch) -> [String; 2] {
    let line = text.lines().nth(mismatch.line - 1).unwrap_or("");
    let chars: Vec<char> = line
        .chars()
        .map(|ch| if ch.is_control() { ' ' } else { ch })
        .collect();
    let at = mismatch.column - 1;
    let start = at.saturating_sub(CONTEXT);
    let end = (at + CONTEXT).min(chars.len());
    let mut shown: String = chars[start..end.max(start)].iter().collect();
    let mut offset = at - start;
    if start > 0 {
        shown.insert_str(0, "...");
        offset += 3;
    }
    if end < chars.len() {
        shown.push_str("...");
    }
    [format!("  {shown}"), format!("  {}^", " ".repeat(offset))]
}
