//! Where `schema gbnf` and `schema match` take their schema from: a contract named on the
//! command line, or a JSON Schema file given with `--file`.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use slmcode::schema::gbnf::Whitespace;
use slmcode::schema::gbnf::{self, Derived, GbnfError};

use crate::cli::exit::{CliError, Exit};
use crate::cli::input::load_schema_file;

/// A schema, with the name messages use for it.
pub(super) struct Named {
    /// The contract name, or the file's path as given.
    pub name: String,
    pub schema: Value,
}

/// Resolves `CONTRACT` or `--file`: exactly one of them.
pub(super) fn resolve(contract: Option<&str>, file: Option<&Path>) -> Result<Named, CliError> {
    match (contract, file) {
        (Some(name), None) => {
            let contract = super::contract(name)?;
            Ok(Named {
                name: contract.name.to_owned(),
                schema: contract.schema().clone(),
            })
        }
        (None, Some(file)) => Ok(Named {
            name: file.display().to_string(),
            schema: load_schema_file(file)?,
        }),
        (Some(_), Some(_)) => Err(CliError::usage(anyhow::anyhow!(
            "give a contract name or --file, not both"
        ))),
        (None, None) => Err(CliError::usage(anyhow::anyhow!(
            "give a contract name (such as `plan`) or --file with a JSON Schema"
        ))
        .with_hint("`slmcode schema list` shows every contract")),
    }
}

/// The schema's grammar with `whitespace` between tokens; a schema without one is a failure
/// that says why. So is a schema the validator cannot load (a `pattern` that is not a regular
/// expression to it, a `multipleOf` of 0): a grammar for it would constrain answers that
/// `generate` and `validate` then refuse to check.
pub(super) fn derive(named: &Named, whitespace: Whitespace) -> Result<Arc<Derived>, CliError> {
    let derived = gbnf::derive_with(&named.schema, whitespace).map_err(|error| {
        let hint = match &error {
            GbnfError::InvalidSchema { .. } => "`slmcode schema check FILE` lists every problem of a schema",
            GbnfError::Unsatisfiable { .. } => "a schema that no value satisfies cannot constrain anything; check its bounds and `required`",
            GbnfError::LeftRecursive { .. } => "put an object or array between a schema and its `$ref` back to itself",
            GbnfError::TooComplex { .. } => "flatten the nested allOf and anyOf, or send the schema itself with `--mechanism json_schema`",
        };
        CliError::new(
            Exit::Failure,
            anyhow::Error::new(error).context(format!("{} has no grammar", named.name)),
        )
        .with_hint(hint)
    })?;
    slmcode::schema::validator(&named.schema).map_err(|error| {
        CliError::new(
            Exit::Failure,
            anyhow::Error::new(error).context(format!("{} has no grammar", named.name)),
        )
        .with_hint("validation cannot load the schema, so no answer could be checked against it; `slmcode schema check FILE` lists every problem")
    })?;
    Ok(derived)
}
