//! `slmcode schema list`: every contract with its Strict mark, title and size.

use serde::Serialize;
use serde_json::Value;
use slmcode::schema;

use crate::cli::exit::{CommandResult, Exit};
use crate::cli::printer::Printer;

#[derive(Debug, clap::Args)]
pub struct Args {}

/// `--json` output of `slmcode schema list`.
#[derive(Debug, Serialize)]
struct Listing {
    /// The contracts, in registry order.
    contracts: Vec<Entry>,
}

/// One contract in `slmcode schema list --json`.
#[derive(Debug, Serialize)]
struct Entry {
    /// The name `--schema` and role specs use (`plan`, `scope_judge`).
    name: &'static str,
    /// Whether the contract meets OpenAI's strict rules and is sent with `strict: true`.
    strict: bool,
    /// The schema's title.
    title: &'static str,
    /// The schema's description: what the contract is for.
    description: &'static str,
    /// Properties of the top-level object.
    top_level_properties: usize,
    /// Properties at every level, nested objects and array items included.
    total_properties: usize,
}

pub fn run(_args: Args, printer: &Printer) -> CommandResult {
    let contracts: Vec<Entry> = schema::contracts()
        .iter()
        .map(|contract| Entry {
            name: contract.name,
            strict: contract.strict,
            title: contract.title(),
            description: contract.description(),
            top_level_properties: properties(contract.schema()).len(),
            total_properties: total_properties(contract.schema()),
        })
        .collect();
    if printer.json() {
        printer.json_value(&Listing { contracts })?;
        return Ok(Exit::Success);
    }
    let rows = contracts.iter().map(|entry| {
        vec![
            entry.name.to_owned(),
            if entry.strict { "yes" } else { "no" }.to_owned(),
            entry.title.to_owned(),
            entry.top_level_properties.to_string(),
            entry.total_properties.to_string(),
        ]
    });
    printer.table(&["name", "strict", "title", "properties", "total"], rows)?;
    Ok(Exit::Success)
}

fn properties(schema: &Value) -> Vec<&Value> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.values().collect())
        .unwrap_or_default()
}

/// Properties at every level: each property counts, and so do the properties of the objects
/// it holds, directly or as array items.
fn total_properties(schema: &Value) -> usize {
    let own = properties(schema);
    let nested: usize = own
        .iter()
        .map(|property| {
            let mut inner = *property;
            while let Some(items) = inner.get("items") {
                inner = items;
            }
            total_properties(inner)
        })
        .sum();
    own.len() + nested
}
