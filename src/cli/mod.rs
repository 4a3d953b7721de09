//! The command line: clap definitions, dispatch, and rendering. Nothing here is library API;
//! each command is a thin layer that resolves its arguments, calls the core, and renders what
//! comes back through the [`Printer`](printer::Printer).

mod assets;
mod config;
mod doctor;
mod exit;
mod generate;
mod input;
mod printer;
mod probe;
mod readiness;
mod repair;
mod roles;
mod schema;
mod serve;
mod settings_args;
mod status;
mod tools;
mod validate;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use exit::{CommandResult, Exit};
use printer::{ColorChoice, Printer};

/// `slmcode --version`: the version and the commit it was built from.
const LONG_VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("SLMCODE_COMMIT"),
    ")"
);

/// The end of `slmcode --help`: where to start, and the exit codes scripts branch on.
const AFTER_HELP: &str = "\
Start with: slmcode config set endpoint http://127.0.0.1:8080/v1 && slmcode doctor

Exit codes: 0 success; 1 other failure (unreadable file, bad schema, config, failed check);
2 usage; 3 no JSON in the input; 4 truncated JSON; 5 JSON that violates the schema;
6 endpoint failure; 7 a loop the re-asks did not break; 8 no valid answer, the last one printed
as text (text_fallback).";

/// Structured output that a program can trust, from small and local language models.
#[derive(Debug, Parser)]
#[command(
    name = "slmcode",
    version,
    long_version = LONG_VERSION,
    after_help = AFTER_HELP,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// Print machine-readable JSON on stdout instead of human output. The shape of each
    /// command's JSON is documented in the README and stays stable.
    #[arg(long, global = true, help_heading = "Global options")]
    json: bool,

    /// Say less on stderr: no notes or warnings, only errors.
    #[arg(short, long, global = true, help_heading = "Global options")]
    quiet: bool,

    /// When to colour messages on stderr.
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t = ColorChoice::Auto,
        value_name = "WHEN",
        help_heading = "Global options"
    )]
    color: ColorChoice,

    #[command(subcommand)]
    command: Command,
}

/// Each command's flags are defined only when the command runs (or its help, a completion script
/// or a man page is made): defining every command's flags cost a 1 KB `repair` more than the
/// repair itself (bench/README.md, "Instructions").
#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    /// Repair a model's answer into JSON (fences, prose, trailing commas, quotes, truncation
    /// detection, ...) and validate it, printing the value or a failure with its own exit code.
    Repair(repair::Args),
    /// Validate a JSON document strictly against a schema, reporting every error with its JSON
    /// pointer.
    Validate(validate::Args),
    /// Ask the endpoint for JSON that satisfies a contract or a schema file, through the
    /// structured call path (negotiated mechanism, demotions, repair, validation, re-asks), and
    /// print the validated value; with --tools, ask for a tool call and print it.
    Generate(Box<generate::Args>),
    /// The contracts slmcode ships (list, show), lint of a JSON Schema (check), and its exact
    /// GBNF grammar (gbnf, match).
    Schema(schema::Args),
    /// Tools as a constraint: compile a tool set into one constraint for a call (JSON Schema,
    /// GBNF, request fields), and extract a tool call a model wrote as text.
    Tools(tools::Args),
    /// How each agent role is decoded: its contract, JSON-only, serial tools, stop sequences.
    /// Language-specialised ids (`go-worker`) fold to their generic role.
    Roles(roles::Args),
    /// Check every step from the settings to a constrained answer: endpoint, key, model,
    /// reachability, each mechanism's probe outcome and the one selected. Exits non-zero when a
    /// check fails.
    Doctor(doctor::Args),
    /// Show the settings in brief and the connection: endpoint, reachability, the mechanism in
    /// use and where it came from. Never probes.
    Status(status::Args),
    /// Probe the endpoint and print the capability matrix (a cached result unless --refresh).
    Probe(probe::Args),
    /// Score the settings for a small local model (out of 100); --fix writes the recommended
    /// values.
    Readiness(readiness::Args),
    /// Read and edit settings: get, set, unset, list (with where each value comes from), path.
    Config(config::Args),
    /// An OpenAI-compatible proxy in front of the endpoint: requests with response_format, or
    /// with tools and a tool_choice other than none, take the structured call path (validated
    /// JSON, tool calls validated against their parameters); any other is relayed unchanged.
    /// No tool_choice is auto, OpenAI's default: the model calls a tool or answers in text.
    /// Point OPENAI_BASE_URL at it.
    Serve(serve::Args),
    /// Write (or with --check, verify) the generated shell completions and man pages.
    #[command(hide = true)]
    Assets(assets::Args),
}

/// Runs the command line and maps the outcome to the process's exit code.
pub fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(error) => return unparsed(&error),
    };
    let printer = Printer::new(cli.json, cli.quiet, cli.color);
    let outcome = run(cli.command, &printer);
    finish(outcome, &printer)
}

/// The command line, parsed as `Cli::try_parse` parses it, except that the definition of every
/// command and flag (a tree of a few thousand small allocations) is left for the end of the
/// process to take back: freeing it here cost more than a 1 KB repair itself (bench/README.md,
/// "Instructions").
fn parse() -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let mut definition = Cli::command();
    let parsed = definition
        .try_get_matches_from_mut(std::env::args_os())
        .and_then(|mut matches| {
            Cli::from_arg_matches_mut(&mut matches)
                .map_err(|error| error.format(&mut Cli::command()))
        });
    std::mem::forget(definition);
    parsed
}

/// A command line clap did not turn into a command: help or a version, which are successes,
/// or a usage error (exit 2), told on stderr in clap's words and, when `--json` is among the
/// arguments, also on stdout as the error document of every other failure.
fn unparsed(error: &clap::Error) -> ExitCode {
    if !error.use_stderr() {
        let printer = Printer::new(false, false, ColorChoice::Auto);
        // Through the Printer, so a full stdout fails as it fails any command.
        return match printer.raw(&error.render().to_string()) {
            Ok(()) => Exit::Success.into(),
            Err(io) => finish(Err(io.into()), &printer),
        };
    }
    if wants_json() {
        let printer = Printer::new(true, false, ColorChoice::Auto);
        // clap's message still goes to stderr below, whatever became of this.
        let _ = printer.json_value(&error_document(&usage_error(error)));
    }
    let _ = error.print();
    Exit::Usage.into()
}

/// Whether `--json` is among the arguments, before any `--` (after it, it is a value).
fn wants_json() -> bool {
    std::env::args_os()
        .skip(1)
        .take_while(|argument| argument != "--")
        .any(|argument| argument == "--json")
}

/// clap's usage error in the terms of slmcode's own: the message on one line, and clap's tips
/// and the usage line as the hint.
fn usage_error(error: &clap::Error) -> exit::CliError {
    let text = error.render().to_string();
    let one_line = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut message = None;
    let mut usage = None;
    let mut subcommands = Vec::new();
    let mut hints = Vec::new();
    for paragraph in text.split("\n\n").map(str::trim) {
        if let Some(rest) = paragraph.strip_prefix("error: ") {
            message = Some(one_line(rest));
        } else if paragraph.starts_with("tip: ") {
            hints.extend(
                paragraph
                    .lines()
                    .map(|line| one_line(line.trim().trim_start_matches("tip: "))),
            );
        } else if let Some(rest) = paragraph.strip_prefix("Usage: ") {
            usage = Some(one_line(rest.lines().next().unwrap_or(rest)));
        } else if let Some(rest) = paragraph.strip_prefix("Commands:") {
            // A name opens each entry two spaces in; its description's next lines are deeper.
            subcommands = rest
                .lines()
                .filter_map(|line| line.strip_prefix("  "))
                .filter(|entry| !entry.starts_with(' '))
                .filter_map(|entry| entry.split_whitespace().next())
                .collect();
        }
    }
    // A command without its subcommand and without any other argument is answered with its
    // help, which has no `error:` line: the message is the one clap gives when there are other
    // arguments, so both read the same.
    let message = match message {
        Some(message) => message,
        None => {
            let command: Vec<&str> = usage
                .as_deref()
                .unwrap_or("slmcode")
                .split(' ')
                .take_while(|word| !word.starts_with(['[', '<']))
                .collect();
            format!(
                "'{}' requires a subcommand but one was not provided [subcommands: {}]",
                command.join(" "),
                subcommands.join(", ")
            )
        }
    };
    if let Some(usage) = usage {
        hints.push(format!("usage: {usage}"));
    }
    let mut error = exit::CliError::usage(anyhow::anyhow!(message));
    if !hints.is_empty() {
        error = error.with_hint(hints.join("; "));
    }
    error
}

fn run(command: Command, printer: &Printer) -> CommandResult {
    match command {
        Command::Validate(args) => validate::run(args, printer),
        Command::Repair(args) => repair::run(args, printer),
        Command::Schema(args) => schema::run(args, printer),
        Command::Roles(args) => roles::run(args, printer),
        Command::Config(args) => config::run(args, printer),
        Command::Readiness(args) => readiness::run(args, printer),
        Command::Assets(args) => assets::run(args, printer),
        Command::Doctor(args) => doctor::run(args, printer),
        Command::Status(args) => status::run(args, printer),
        Command::Probe(args) => probe::run(args, printer),
        Command::Generate(args) => generate::run(*args, printer),
        Command::Tools(args) => tools::run(args, printer),
        Command::Serve(args) => serve::run(args, printer),
    }
}

fn finish(outcome: CommandResult, printer: &Printer) -> ExitCode {
    match outcome {
        Ok(exit) => exit.into(),
        Err(error) if error.is_broken_pipe() => Exit::Success.into(),
        Err(error) => {
            if printer.json()
                && let Err(io) = printer.json_value(&error_document(&error))
                && io.kind() == std::io::ErrorKind::BrokenPipe
            {
                return error.exit.into();
            }
            printer.error(&error.error, error.hint.as_deref());
            error.exit.into()
        }
    }
}

/// The `--json` form of a failure, on stdout.
fn error_document(error: &exit::CliError) -> serde_json::Value {
    serde_json::json!({
        "error": {
            "kind": error.exit.name(),
            "exit_code": error.exit as u8,
            "message": error.error.to_string(),
            "causes": error.error.chain().skip(1).map(|cause| cause.to_string()).collect::<Vec<_>>(),
            "hint": error.hint,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definitions_are_consistent() {
        Cli::command().debug_assert();
    }
}
