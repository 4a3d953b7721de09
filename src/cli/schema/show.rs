//! `slmcode schema show CONTRACT [--prompt [--brief]]`: a contract's schema, or its prompt.

use serde::Serialize;
use serde_json::Value;

use crate::cli::exit::{CommandResult, Exit};
use crate::cli::printer::Printer;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The contract, such as `plan` or `review` (`slmcode schema list` shows them all).
    #[arg(value_name = "CONTRACT")]
    contract: String,

    /// Print the prompt that describes the contract's fields instead of its schema.
    #[arg(long)]
    prompt: bool,

    /// With --prompt: the brief prompt, sent under an exact constraint when
    /// `brief_instructions` is on (each field's meaning, without its type, bounds and enum list,
    /// and without the sentence asking for JSON only: the constraint enforces those)
    #[arg(long, requires = "prompt")]
    brief: bool,
}

/// `--json` output of `slmcode schema show`.
#[derive(Debug, Serialize)]
struct Shown {
    /// The contract's name.
    name: &'static str,
    /// The schema's title.
    title: &'static str,
    /// Whether the contract is sent with `strict: true` where the engine supports it.
    strict: bool,
    /// The JSON Schema; absent with `--prompt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    schema: Option<&'static Value>,
    /// The prompt, as markdown; present only with `--prompt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt: Option<&'static str>,
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let contract = super::contract(&args.contract)?;
    let prompt = if args.brief {
        contract.brief_prompt()
    } else {
        contract.prompt()
    };
    if printer.json() {
        printer.json_value(&Shown {
            name: contract.name,
            title: contract.title(),
            strict: contract.strict,
            schema: (!args.prompt).then(|| contract.schema()),
            prompt: args.prompt.then_some(prompt),
        })?;
    } else if args.prompt {
        printer.raw(prompt)?;
        if args.brief {
            printer.raw("\n")?;
        }
    } else {
        printer.json_value(contract.schema())?;
    }
    Ok(Exit::Success)
}
