//! Raising the package's exceptions (defined in Python, `slmcode/_errors.py`) with their
//! evidence, from a repair failure, a validation failure or a failed call.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde::Serialize;
use serde_json::Value;
use slmcode::call::{CallFailure, CallMeta, RequestError};
use slmcode::repair::{FailureClass, RepairFailure};
use slmcode::schema::ValidationError;

use crate::convert::to_python;

/// The exception class for a failure class: what a caller catches.
pub fn class_for(class: FailureClass) -> &'static str {
    match class {
        FailureClass::Empty | FailureClass::Prose => "ProseError",
        FailureClass::Truncated => "TruncatedError",
        FailureClass::Malformed => "MalformedError",
        FailureClass::Repetition => "RepetitionError",
        // The wrong shape, and a tool turn's calls that do not fit the tools.
        _ => "SchemaViolation",
    }
}

/// `slmcode.<name>(message, **fields)` as an error to raise.
pub fn error(py: Python<'_>, name: &str, message: &str, fields: Bound<'_, PyDict>) -> PyErr {
    let made = py
        .import("slmcode._errors")
        .and_then(|module| module.getattr(name))
        .and_then(|class| class.call((message,), Some(&fields)));
    match made {
        Ok(exception) => PyErr::from_value(exception),
        Err(error) => error,
    }
}

/// A `serde` value (the meta, the repetition, the coercions) as Python objects.
pub fn serialized<'py>(py: Python<'py>, value: &impl Serialize) -> PyResult<Bound<'py, PyAny>> {
    let value = serde_json::to_value(value)
        .map_err(|error| pyo3::exceptions::PyRuntimeError::new_err(error.to_string()))?;
    to_python(py, value)
}

/// The validation errors as `[{"pointer", "message"}]`.
pub fn violations<'py>(
    py: Python<'py>,
    errors: &[ValidationError],
) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for error in errors {
        let item = PyDict::new(py);
        item.set_item("pointer", &error.pointer)?;
        item.set_item("message", &error.message)?;
        list.append(item)?;
    }
    Ok(list)
}

/// The fields every failed repair carries; `value` and `partial` are moved out of it.
pub fn repair_fields<'py>(py: Python<'py>, failure: RepairFailure) -> PyResult<Bound<'py, PyDict>> {
    let fields = PyDict::new(py);
    fields.set_item("failure_class", failure.class.as_str())?;
    fields.set_item("offset", failure.offset)?;
    fields.set_item("errors", violations(py, &failure.errors)?)?;
    fields.set_item("missing_required", &failure.missing_required)?;
    let rungs: Vec<&str> = failure
        .rungs_changed
        .iter()
        .map(|rung| rung.as_str())
        .collect();
    fields.set_item("rungs", rungs)?;
    fields.set_item("coercions", serialized(py, &failure.coercions)?)?;
    fields.set_item("repetition", serialized(py, &failure.repetition)?)?;
    fields.set_item("partial", optional(py, failure.partial.map(Value::Object))?)?;
    fields.set_item("value", optional(py, failure.value)?)?;
    Ok(fields)
}

fn optional(py: Python<'_>, value: Option<Value>) -> PyResult<Bound<'_, PyAny>> {
    match value {
        Some(value) => to_python(py, value),
        None => Ok(py.None().into_bound(py)),
    }
}

/// The error a failed repair raises from `loads`.
pub fn repair_error(py: Python<'_>, failure: RepairFailure) -> PyErr {
    let name = class_for(failure.class);
    let message = failure.message.clone();
    match repair_fields(py, failure) {
        Ok(fields) => error(py, name, &message, fields),
        Err(error) => error,
    }
}

/// The error a failed structured call raises, with the call's meta.
pub fn call_error(py: Python<'_>, failure: CallFailure) -> PyErr {
    match call_fields(py, failure) {
        Ok((name, message, fields)) => error(py, name, &message, fields),
        Err(error) => error,
    }
}

fn call_fields(
    py: Python<'_>,
    failure: CallFailure,
) -> PyResult<(&'static str, String, Bound<'_, PyDict>)> {
    let fields = PyDict::new(py);
    let message = failure.to_string();
    let name = match failure {
        CallFailure::Request(error) => request_name(&error),
        CallFailure::Endpoint { error, meta } => {
            fields.set_item("error_class", error.class.as_str())?;
            fields.set_item("status", error.status)?;
            set_meta(py, &fields, &meta)?;
            "EndpointError"
        }
        CallFailure::DeadlineExceeded(exceeded) => {
            let exceeded = *exceeded;
            fields.set_item("error_class", "canceled")?;
            fields.set_item("raw", &exceeded.raw)?;
            fields.set_item("raw_cut", exceeded.raw_cut)?;
            fields.set_item("missing_required", &exceeded.missing_required)?;
            fields.set_item(
                "partial",
                optional(py, exceeded.partial.map(Value::Object))?,
            )?;
            set_meta(py, &fields, &exceeded.meta)?;
            "EndpointError"
        }
        CallFailure::SchemaViolation(violation) => {
            let violation = *violation;
            fields.set_item("failure_class", violation.class.as_str())?;
            fields.set_item("errors", violations(py, &violation.errors)?)?;
            fields.set_item("raw", &violation.raw)?;
            fields.set_item("raw_cut", violation.raw_cut)?;
            fields.set_item("missing_required", &violation.missing_required)?;
            fields.set_item("text_fallback", &violation.text_fallback)?;
            fields.set_item(
                "partial",
                optional(py, violation.partial.map(Value::Object))?,
            )?;
            set_meta(py, &fields, &violation.meta)?;
            class_for(violation.class)
        }
        // A failure a later library adds: its message.
        _ => "Error",
    };
    Ok((name, message, fields))
}

fn request_name(error: &RequestError) -> &'static str {
    match error {
        RequestError::InvalidSchema(_) | RequestError::UnknownContract(_) => "SchemaError",
        _ => "RequestError",
    }
}

fn set_meta(py: Python<'_>, fields: &Bound<'_, PyDict>, meta: &CallMeta) -> PyResult<()> {
    fields.set_item("meta", serialized(py, meta)?)
}
