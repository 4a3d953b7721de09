//! `slmcode roles [ID]...`: the normalised decoding of agent roles, as `normalize_decoding`
//! derives it from an id (and, with `--tools`, for a tool-using agent).

use serde::Serialize;
use slmcode::agents::{self, Decoding, RoleSpec};

use super::exit::{CliError, CommandResult, Exit};
use super::printer::Printer;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Agent ids to normalise (`planner`, `go-worker`, `describer`); none lists every known role.
    #[arg(value_name = "ID")]
    ids: Vec<String>,

    /// Treat the ids as agents with these tools (comma-separated), as a harness would declare them.
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    tools: Vec<String>,

    /// The contract the ids emit when their names do not lead to one.
    #[arg(long, value_name = "CONTRACT")]
    contract: Option<String>,
}

/// `--json` output of `slmcode roles`.
#[derive(Debug, Serialize)]
struct Listing {
    /// One entry per id, in the order given (or registry order when none was given).
    roles: Vec<Decoding>,
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let ids: Vec<String> = if args.ids.is_empty() {
        agents::known_role_ids()
            .into_iter()
            .map(str::to_owned)
            .collect()
    } else {
        args.ids
    };
    let mut roles = Vec::with_capacity(ids.len());
    for id in ids {
        let mut spec = RoleSpec::new(id).with_tools(args.tools.iter().cloned());
        spec.contract = args.contract.clone();
        let decoding = agents::normalize_decoding(&spec).map_err(|error| {
            CliError::usage(error).with_hint("`slmcode schema list` shows every contract")
        })?;
        roles.push(decoding);
    }
    if printer.json() {
        printer.json_value(&Listing { roles })?;
        return Ok(Exit::Success);
    }
    let rows = roles.iter().map(|role| {
        vec![
            role.id.clone(),
            role.generic_id.clone(),
            role.kind.as_str().to_owned(),
            role.contract.unwrap_or("-").to_owned(),
            yes_no(role.json_only),
            yes_no(role.serial_tools),
            role.stop
                .iter()
                .map(|stop| format!("{stop:?}"))
                .collect::<Vec<_>>()
                .join(" "),
        ]
    });
    let header = [
        "id",
        "generic",
        "kind",
        "contract",
        "json only",
        "serial tools",
        "stop",
    ];
    printer.table(&header, rows)?;
    Ok(Exit::Success)
}

fn yes_no(flag: bool) -> String {
    if flag { "yes" } else { "no" }.to_owned()
}
