//! `slmcode._native`: the Python binding's native half, a thin layer over the library. The
//! public API, its types and its exceptions are `slmcode/__init__.py` and
//! `slmcode/_errors.py`; this module converts arguments, calls the crate and converts back.
//! The repair ladder and the structured call run with the GIL released.

// A repair failure is an ordinary outcome and carries its evidence by value, as in the crate.
#![allow(clippy::result_large_err)]

mod call;
mod convert;
mod errors;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyDict, PyString};
use serde_json::Value;
use slmcode::repair::{RepairFailure, RepairOptions, Repaired};
use slmcode::schema::{self, ValidateError};

use convert::{from_python, parse_strict, to_python};
use errors::{error, repair_error, repair_fields, serialized, violations};

/// A schema argument: a contract's name or a JSON Schema as Python objects.
fn schema_value(py: Python<'_>, schema: &Bound<'_, PyAny>) -> PyResult<Value> {
    if let Ok(name) = schema.cast::<PyString>() {
        let name = name.to_cow()?;
        return match schema::contract(&name) {
            Ok(contract) => Ok(contract.schema().clone()),
            Err(unknown) => Err(error(
                py,
                "SchemaError",
                &unknown.to_string(),
                PyDict::new(py),
            )),
        };
    }
    from_python(schema)
}

/// The value as Python objects and the report (none when the strict read took it), or the
/// failure.
type Ladder<'py> = Result<(Bound<'py, PyAny>, Option<Repaired>), RepairFailure>;

/// Runs the ladder with the GIL released: valid text with no schema is read straight into
/// Python objects first (rung `none`), which is what most answers are.
fn run_repair<'py>(
    py: Python<'py>,
    text: &PyBackedStr,
    schema: Option<&Bound<'py, PyAny>>,
    finish_reason_length: bool,
) -> PyResult<Ladder<'py>> {
    let text: &str = text;
    if schema.is_none() && !finish_reason_length && starts_like_json(text) {
        let bare = text.strip_prefix('\u{feff}').unwrap_or(text);
        if let Some(object) = parse_strict(py, bare)? {
            return Ok(Ok((object, None)));
        }
    }
    let schema = schema.map(|schema| schema_value(py, schema)).transpose()?;
    let mut options = RepairOptions::new().finish_reason_length(finish_reason_length);
    if let Some(schema) = &schema {
        options = options
            .schema(schema)
            .map_err(|problem| error(py, "SchemaError", &problem.to_string(), PyDict::new(py)))?;
    }
    match py.detach(|| slmcode::repair(text, &options)) {
        Ok(mut repaired) => {
            let value = std::mem::take(&mut repaired.value);
            Ok(Ok((to_python(py, value)?, Some(repaired))))
        }
        Err(failure) => Ok(Err(failure)),
    }
}

/// What the library's own first rung would try: text whose first and last non-space bytes
/// could open and close one JSON value (a scalar only ever parses whole).
fn starts_like_json(text: &str) -> bool {
    let trimmed = text
        .trim_start_matches('\u{feff}')
        .trim_matches([' ', '\t', '\n', '\r']);
    matches!(
        (trimmed.as_bytes().first(), trimmed.as_bytes().last()),
        (Some(b'{'), Some(b'}'))
            | (Some(b'['), Some(b']'))
            | (Some(b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'), _)
    )
}

/// `repair(text, schema=None, finish_reason_length=False)`: the report as a dict, success
/// and failure alike (the shape of `slmcode repair --json`).
#[pyfunction]
#[pyo3(signature = (text, schema=None, finish_reason_length=false))]
fn repair<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    schema: Option<Bound<'py, PyAny>>,
    finish_reason_length: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let report = PyDict::new(py);
    match run_repair(py, &text, schema.as_ref(), finish_reason_length)? {
        Ok((value, repaired)) => {
            let (rung, rungs, coercions, dropped) = match &repaired {
                Some(repaired) => (
                    repaired.rung.as_str(),
                    repaired
                        .rungs_changed
                        .iter()
                        .map(|rung| rung.as_str())
                        .collect(),
                    serialized(py, &repaired.coercions)?,
                    repaired.dropped,
                ),
                None => ("none", Vec::new(), serialized(py, &Vec::<()>::new())?, 0),
            };
            report.set_item("ok", true)?;
            report.set_item("value", value)?;
            report.set_item("rung", rung)?;
            report.set_item("rungs", rungs)?;
            report.set_item("coercions", coercions)?;
            report.set_item("dropped", dropped)?;
        }
        Err(failure) => {
            report.set_item("ok", false)?;
            report.set_item("message", failure.message.clone())?;
            report.update(repair_fields(py, failure)?.as_mapping())?;
        }
    }
    Ok(report)
}

/// `loads(text, schema=None)`: the value, or the failure raised as its exception.
#[pyfunction]
#[pyo3(signature = (text, schema=None))]
fn loads<'py>(
    py: Python<'py>,
    text: PyBackedStr,
    schema: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    match run_repair(py, &text, schema.as_ref(), false)? {
        Ok((value, _)) => Ok(value),
        Err(failure) => Err(repair_error(py, failure)),
    }
}

/// `validate(value, schema)`: `None`, or `SchemaViolation` with every error's pointer.
#[pyfunction]
fn validate(py: Python<'_>, value: Bound<'_, PyAny>, schema: Bound<'_, PyAny>) -> PyResult<()> {
    let value = from_python(&value)?;
    let schema = schema_value(py, &schema)?;
    match py.detach(|| schema::validate(&schema, &value)) {
        Ok(()) => Ok(()),
        Err(ValidateError::Schema(problem)) => Err(error(
            py,
            "SchemaError",
            &problem.to_string(),
            PyDict::new(py),
        )),
        Err(ValidateError::Violations(found)) => {
            let fields = PyDict::new(py);
            fields.set_item("failure_class", "wrong_shape")?;
            fields.set_item("errors", violations(py, &found.0)?)?;
            Err(error(py, "SchemaViolation", &found.to_string(), fields))
        }
        // A failure a later library adds: its message.
        Err(other) => Err(error(py, "Error", &other.to_string(), PyDict::new(py))),
    }
}

/// `contract(name)`: the contract's name, schema, prompt, grammar and marks, as a dict.
#[pyfunction]
fn contract<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    let contract = schema::contract(name)
        .map_err(|unknown| error(py, "SchemaError", &unknown.to_string(), PyDict::new(py)))?;
    let grammar = schema::gbnf::derive(contract.schema())
        .map_err(|problem| PyValueError::new_err(problem.to_string()))?;
    let found = PyDict::new(py);
    found.set_item("name", contract.name)?;
    found.set_item("title", contract.title())?;
    found.set_item("description", contract.description())?;
    found.set_item("strict", contract.strict)?;
    found.set_item("schema", to_python(py, contract.schema().clone())?)?;
    found.set_item("prompt", contract.prompt())?;
    found.set_item("grammar", &grammar.grammar)?;
    Ok(found)
}

/// The names of the shipped contracts, in the registry's order.
#[pyfunction]
fn contracts() -> Vec<&'static str> {
    schema::contracts()
        .iter()
        .map(|contract| contract.name)
        .collect()
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(repair, module)?)?;
    module.add_function(wrap_pyfunction!(loads, module)?)?;
    module.add_function(wrap_pyfunction!(validate, module)?)?;
    module.add_function(wrap_pyfunction!(contract, module)?)?;
    module.add_function(wrap_pyfunction!(contracts, module)?)?;
    module.add_class::<call::Client>()?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
