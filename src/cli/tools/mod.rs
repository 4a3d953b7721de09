//! `slmcode tools`: compile a tool set into one constraint (`compile`), and read a tool call a
//! model wrote as text (`extract`).
//!
//! One file per subcommand; this module holds the subcommand enum, its dispatch, and reading a
//! tools file, which both share: a file that cannot be read, is not JSON, or is not a tool set
//! fails with exit 1 and the JSON pointer of the problem inside the file.

mod compile;
mod extract;

use std::path::Path;

use clap::Subcommand;
use serde_json::Value;
use slmcode::tools::{ToolChoice, ToolSet};

use super::exit::{CliError, CommandResult, Exit};
use super::input::too_deep;
use super::printer::Printer;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum Command {
    /// Compile a tool set into one constraint for a call: the JSON Schema (`oneOf` over the
    /// tools), its GBNF, or the request fields for the configured provider. The content
    /// address (key) goes to stderr, or into `--json`.
    Compile(compile::Args),
    /// Read a tool call written as text (a `<tool_call>` block, fenced or bare JSON, a Python
    /// call, ...), repair it and validate its arguments against the tool's schema; print the call.
    Extract(extract::Args),
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    match args.command {
        Command::Compile(args) => compile::run(args, printer),
        Command::Extract(args) => extract::run(args, printer),
    }
}

/// A tools file, read and checked: the tool set, and the `tool_choice` it carries when it is a
/// request body.
pub(super) struct ToolsFile {
    pub tools: ToolSet,
    pub tool_choice: Option<ToolChoice>,
}

/// Reads the tools file at `path`.
pub(super) fn load(path: &Path) -> Result<ToolsFile, CliError> {
    let name = path.display();
    let bytes = std::fs::read(path).map_err(|error| {
        CliError::new(
            Exit::Failure,
            anyhow::Error::new(error).context(format!("cannot read tools file {name}")),
        )
    })?;
    let document: Value = serde_json::from_slice(&bytes).map_err(|error| {
        let error = match too_deep(&format!("tools file {name}"), "slmcode", &error) {
            Some(message) => anyhow::anyhow!(message),
            None => {
                anyhow::Error::new(error).context(format!("tools file {name} is not valid JSON"))
            }
        };
        CliError::new(Exit::Failure, error)
    })?;
    let hint = "a tools file is an OpenAI `tools` array, an object with a `tools` array (such as a request body), or Anthropic tools with `input_schema`";
    let tools = ToolSet::from_value(&document).map_err(|error| {
        CliError::new(
            Exit::Failure,
            anyhow::Error::new(error).context(format!("tools file {name}")),
        )
        .with_hint(hint)
    })?;
    let tool_choice = match document.get("tool_choice") {
        Some(value) if document.get("tools").is_some() => Some(
            ToolChoice::from_value(value, "/tool_choice").map_err(|error| {
                CliError::new(
                    Exit::Failure,
                    anyhow::Error::new(error).context(format!("tools file {name}")),
                )
            })?,
        ),
        _ => None,
    };
    Ok(ToolsFile { tools, tool_choice })
}
