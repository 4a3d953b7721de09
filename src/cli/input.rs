//! Reading what a command was given: a file, stdin, or a schema file.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::Value;

use super::exit::{CliError, Exit};
use super::printer::Printer;

/// Where a command reads its document from: a path, or stdin for `-` or no path.
#[derive(Clone, Debug)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

impl Input {
    pub fn from_arg(path: Option<&Path>) -> Input {
        match path {
            None => Input::Stdin,
            Some(path) if path.as_os_str() == "-" => Input::Stdin,
            Some(path) => Input::File(path.to_owned()),
        }
    }

    /// A name for messages: the path, or `<stdin>`.
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_owned(),
            Input::File(path) => path.display().to_string(),
        }
    }

    /// The raw bytes; invalid UTF-8 is the caller's concern.
    /// The text, for commands that read a model's answer: invalid UTF-8 is replaced with
    /// U+FFFD, with a warning naming the input, because an answer with a stray byte is still
    /// worth reading.
    pub fn read_text(&self, printer: &Printer) -> Result<String, CliError> {
        match String::from_utf8(self.read_bytes()?) {
            Ok(text) => Ok(text),
            Err(error) => {
                printer.warn(&format!(
                    "{} is not valid UTF-8: invalid bytes were replaced with U+FFFD",
                    self.name()
                ));
                Ok(String::from_utf8_lossy(error.as_bytes()).into_owned())
            }
        }
    }

    pub fn read_bytes(&self) -> Result<Vec<u8>, CliError> {
        let mut bytes = Vec::new();
        match self {
            Input::Stdin => {
                std::io::stdin()
                    .lock()
                    .read_to_end(&mut bytes)
                    .context("cannot read stdin")?;
            }
            Input::File(path) => {
                bytes = std::fs::read(path)
                    .with_context(|| format!("cannot read {}", path.display()))?;
            }
        }
        Ok(bytes)
    }
}

/// How deep a document [`parse_json`] reads: `serde_json`'s recursion limit.
const MAX_DEPTH: usize = 128;

/// For a parse that stopped at serde_json's recursion limit: that `what` (an input's name) nests
/// deeper than `reader` (`slmcode`, or `this command` where another reads deeper) reads, and
/// where. The document may well be JSON; serde_json's only way
/// to tell this case is its message.
pub fn too_deep(what: &str, reader: &str, error: &serde_json::Error) -> Option<String> {
    error
        .to_string()
        .starts_with("recursion limit exceeded")
        .then(|| {
            format!(
                "{what} nests deeper than {MAX_DEPTH} levels, more than {reader} reads (line {}, \
                 column {})",
                error.line(),
                error.column()
            )
        })
}

/// Parses `bytes` as one JSON document (a leading byte-order mark is ignored); the error names
/// the input, line and column, and maps to the not-JSON or truncated exit code. Empty input
/// holds no JSON: it is not a document cut off.
pub fn parse_json(bytes: &[u8], input: &Input) -> Result<Value, CliError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(CliError::new(
            Exit::NotJson,
            anyhow::anyhow!("{} is empty: it holds no JSON document", input.name()),
        ));
    }
    serde_json::from_slice(bytes).map_err(|error| {
        if let Some(message) = too_deep(&input.name(), "this command", &error) {
            return CliError::new(Exit::Failure, anyhow::anyhow!(message)).with_hint(format!(
                "`slmcode repair` reads documents nested up to {} levels",
                slmcode::repair::MAX_DEPTH
            ));
        }
        let exit = if error.is_eof() {
            Exit::Truncated
        } else {
            Exit::NotJson
        };
        let what = if error.is_eof() {
            "ends before the JSON document does"
        } else {
            "is not JSON"
        };
        CliError::new(
            exit,
            anyhow::Error::new(error).context(format!("{} {what}", input.name())),
        )
        .with_hint("`slmcode repair` fixes the ways small models usually break JSON")
    })
}

/// Loads a JSON Schema file (`-` reads it from stdin); a file that is not JSON is a plain
/// failure naming the path and the position.
pub fn load_schema_file(path: &Path) -> Result<Value, CliError> {
    let input = Input::from_arg(Some(path));
    let text = match &input {
        Input::Stdin => input.read_bytes()?,
        Input::File(path) => std::fs::read(path)
            .with_context(|| format!("cannot read schema file {}", path.display()))?,
    };
    serde_json::from_slice(&text).map_err(|error| {
        let message = if let Some(message) =
            too_deep(&format!("schema file {}", input.name()), "slmcode", &error)
        {
            message
        } else {
            format!("schema file {} is not valid JSON: {error}", input.name())
        };
        CliError::new(Exit::Failure, anyhow::anyhow!(message))
    })
}

/// A command that reads both a schema file and a document cannot read both from stdin.
pub fn not_both_stdin(schema_file: Option<&Path>, document: &Input) -> Result<(), CliError> {
    let schema_on_stdin = schema_file.is_some_and(|path| path.as_os_str() == "-");
    if schema_on_stdin && matches!(document, Input::Stdin) {
        return Err(CliError::usage(anyhow::anyhow!(
            "the schema and the document cannot both be read from stdin"
        ))
        .with_hint("give the document as a file argument"));
    }
    Ok(())
}
