//! `Client`: settings resolved as the CLI resolves them (the given ones over the environment
//! over the config file over the defaults), and the structured call path run with them, the
//! GIL released for the whole call.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use slmcode::backends::TargetError;
use slmcode::call::{Answer, CallContext, StructuredRequest, structured_call};
use slmcode::config::{self, ConfigError, Environment, Key, Overrides, Settings};
use slmcode::schema::Mechanism;
use slmcode::tools::{ToolChoice, ToolSet};

use crate::convert::{from_python, to_python};
use crate::errors::{call_error, error, serialized};

/// Settings and, after the first call, the context calls share: the negotiated capabilities
/// (one probe per client at most), the capabilities cache and what the server was found to
/// refuse.
#[pyclass(module = "slmcode._native", frozen)]
pub struct Client {
    settings: Settings,
    warnings: Vec<String>,
    context: Mutex<Option<Arc<CallContext>>>,
}

#[pymethods]
impl Client {
    /// `Client(settings)`: `settings` maps setting names (as in `slmcode config`) to their
    /// text; the environment (`SLMCODE_*`) and the config file fill in the rest.
    #[new]
    fn new(py: Python<'_>, settings: BTreeMap<String, String>) -> PyResult<Client> {
        let mut overrides = Overrides::new();
        for (name, text) in settings {
            let key = Key::from_name(&name).map_err(|unknown| {
                error(py, "ConfigError", &unknown.to_string(), PyDict::new(py))
            })?;
            overrides.set(key, text);
        }
        let resolved = py
            .detach(|| config::resolve(&Environment::from_process(), &overrides))
            .map_err(|problem| config_error(py, &problem))?;
        Ok(Client {
            warnings: resolved.warnings.iter().map(ToString::to_string).collect(),
            settings: resolved.settings,
            context: Mutex::new(None),
        })
    }

    /// What resolving the settings warned about (a deprecated name, a value normalised).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.warnings.clone()
    }

    /// The settings in effect, by name, as `slmcode config show` prints their values.
    #[getter]
    fn settings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let shown = PyDict::new(py);
        for key in Key::ALL {
            // A key is shown, never its value.
            if key == Key::ApiKey {
                continue;
            }
            shown.set_item(key.name(), serialized(py, &key.read(&self.settings))?)?;
        }
        Ok(shown)
    }

    /// One structured call; returns `{"value", "tool_calls", "content", "meta"}`.
    #[pyo3(signature = (prompt, schema=None, tools=None, tool_choice=None, system=None, mechanism=None, seed=None))]
    #[allow(clippy::too_many_arguments)]
    fn generate<'py>(
        &self,
        py: Python<'py>,
        prompt: String,
        schema: Option<Bound<'py, PyAny>>,
        tools: Option<Bound<'py, PyAny>>,
        tool_choice: Option<String>,
        system: Option<String>,
        mechanism: Option<String>,
        seed: Option<u64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let request = request(
            py,
            prompt,
            schema,
            tools,
            tool_choice,
            system,
            mechanism,
            seed,
        )?;
        let context = self.context(py)?;
        let outcome = py
            .detach(|| structured_call(&request, &context))
            .map_err(|failure| call_error(py, failure))?;
        let generated = PyDict::new(py);
        generated.set_item("meta", serialized(py, &outcome.meta)?)?;
        match outcome.answer {
            Answer::Value(value) => {
                generated.set_item("value", to_python(py, value)?)?;
                generated.set_item("tool_calls", PyList::empty(py))?;
                generated.set_item("content", py.None())?;
            }
            Answer::Tools { calls, content } => {
                generated.set_item("value", py.None())?;
                generated.set_item("tool_calls", serialized(py, &calls)?)?;
                generated.set_item("content", content)?;
            }
        }
        Ok(generated)
    }
}

impl Client {
    /// The context, negotiated on first use (a probe when nothing is cached). The lock is
    /// taken without the GIL: a thread that waits for another's negotiation must not hold the
    /// GIL that the other needs to return.
    fn context(&self, py: Python<'_>) -> PyResult<Arc<CallContext>> {
        let made = py.detach(|| {
            let mut held = self
                .context
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if let Some(context) = held.as_ref() {
                return Ok(Arc::clone(context));
            }
            let context = Arc::new(CallContext::from_settings(&self.settings)?);
            *held = Some(Arc::clone(&context));
            Ok(context)
        });
        made.map_err(|problem: TargetError| {
            error(
                py,
                "ConfigError",
                &format!("{problem}: set one with endpoint=..., SLMCODE_ENDPOINT or `slmcode config set endpoint URL`"),
                PyDict::new(py),
            )
        })
    }
}

/// The request the arguments describe, as `slmcode generate` builds it from its flags.
#[allow(clippy::too_many_arguments)]
fn request(
    py: Python<'_>,
    prompt: String,
    schema: Option<Bound<'_, PyAny>>,
    tools: Option<Bound<'_, PyAny>>,
    tool_choice: Option<String>,
    system: Option<String>,
    mechanism: Option<String>,
    seed: Option<u64>,
) -> PyResult<StructuredRequest> {
    let request_error = |message: String| error(py, "RequestError", &message, PyDict::new(py));
    let mut request = match &schema {
        Some(schema) => match schema.cast::<PyString>() {
            Ok(name) => StructuredRequest::contract(name.to_cow()?.into_owned()),
            Err(_) => StructuredRequest::schema(from_python(schema)?),
        },
        None => StructuredRequest::default(),
    };
    if let Some(tools) = &tools {
        let document = from_python(tools)?;
        let set = ToolSet::from_value(&document)
            .map_err(|problem| request_error(format!("tools: {problem}")))?;
        let choice = match &tool_choice {
            Some(text) => ToolChoice::from_argument(text)
                .map_err(|problem| request_error(format!("tool_choice: {}", problem.reason)))?,
            // As `slmcode generate --tools`: a call when there is no schema to answer in.
            None if schema.is_some() => ToolChoice::Auto,
            None => ToolChoice::Required,
        };
        if let ToolChoice::Tool(name) = &choice
            && set.get(name).is_none()
        {
            return Err(request_error(format!(
                "tool_choice names {name:?}, which is not one of the tools ({})",
                set.names().join(", ")
            )));
        }
        request.tools = Some(set);
        request.tool_choice = Some(choice);
    } else if tool_choice.is_some() {
        return Err(request_error("tool_choice needs tools".to_owned()));
    }
    if prompt.trim().is_empty() {
        return Err(request_error(
            "nothing to ask: the prompt is empty".to_owned(),
        ));
    }
    if let Some(system) = system {
        request = request.system(system);
    }
    request = request.user(prompt);
    request.mechanism = mechanism
        .map(|text| text.parse::<Mechanism>())
        .transpose()
        .map_err(|unknown| request_error(unknown.to_string()))?;
    request.seed = seed;
    Ok(request)
}

fn config_error(py: Python<'_>, problem: &ConfigError) -> PyErr {
    let mut message = problem.to_string();
    let mut source = std::error::Error::source(problem);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    error(py, "ConfigError", &message, PyDict::new(py))
}
