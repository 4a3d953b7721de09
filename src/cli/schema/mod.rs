//! `slmcode schema`: the contracts slmcode ships, lint of a user's JSON Schema, and the GBNF
//! grammar of a schema (derivation and matching).
//!
//! One file per subcommand; this module holds the subcommand enum, its dispatch, and the contract
//! lookup every command that takes a contract name shares.

mod check;
mod gbnf;
mod list;
mod r#match;
mod named;
mod show;

use clap::Subcommand;
use slmcode::schema::{self, Contract};

use super::exit::{CliError, CommandResult};
use super::printer::Printer;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    /// List the contracts: name, whether they are Strict, title, property counts.
    List(list::Args),
    /// Print a contract's JSON Schema, or with `--prompt` the prompt that describes its fields.
    Show(show::Args),
    /// Lint a JSON Schema file: does it compile, is it inside the contract subset, is it ready
    /// for OpenAI strict mode. Every problem is listed with its JSON pointer.
    Check(check::Args),
    /// Print the GBNF grammar (llama.cpp syntax) derived from a contract or a schema file; what
    /// it cannot express is reported on stderr.
    Gbnf(gbnf::Args),
    /// Check whether a document is in the language of a schema's grammar, and if not, where it
    /// leaves it.
    Match(r#match::Args),
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    match args.command {
        Command::List(args) => list::run(args, printer),
        Command::Show(args) => show::run(args, printer),
        Command::Check(args) => check::run(args, printer),
        Command::Gbnf(args) => gbnf::run(args, printer),
        Command::Match(args) => r#match::run(args, printer),
    }
}

/// The contract a `CONTRACT` argument names; an unknown name is a usage error that lists the
/// valid ones.
pub(super) fn contract(name: &str) -> Result<&'static Contract, CliError> {
    schema::contract(name).map_err(|error| {
        CliError::usage(error).with_hint("`slmcode schema list` shows every contract")
    })
}
