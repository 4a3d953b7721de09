//! The settings flags server-facing commands share (`--provider`, `--endpoint`, `--model`,
//! `--api-key-env`, `--timeout`), and the one step that turns them, the environment and the
//! file into resolved settings.
//!
//! The flags hold only what was typed: they are parsed by the config key registry during
//! resolution, like the environment and the file, so a bad value reads the same wherever it
//! came from, and `config list` can say a value came from a flag.

use slmcode::config::{self, ConfigError, Environment, Key, Overrides, Resolved};

use super::exit::{CliError, Exit};
use super::printer::Printer;

// Flags that override settings for one run; flatten into a command's clap `Args`. Not a doc
// comment: clap would take it for the about text of every command that flattens this, and the
// commands' flags are defined after their own about text (`defer` in cli/mod.rs).
#[derive(Debug, Default, Clone, clap::Args)]
#[command(next_help_heading = "Settings (override the environment and config.toml)")]
pub struct SettingsArgs {
    /// The kind of server: openai, azure, vllm, sglang, llamacpp, lmstudio, ollama, omlx,
    /// openai-compatible
    ///
    /// openai-compatible probes everything, and requests follow the engine the server names:
    /// llama.cpp (GET /props) is sent what llamacpp is, the derived grammar first; Ollama (GET
    /// /api/version) what ollama is. A provider named here is never overridden.
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,

    /// The OpenAI-style base URL, such as http://127.0.0.1:8080/v1
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,

    /// The model id to request
    #[arg(long, value_name = "ID")]
    pub model: Option<String>,

    /// The NAME of the environment variable holding the API key (never the key itself)
    #[arg(long, value_name = "VARIABLE")]
    pub api_key_env: Option<String>,

    /// The longest wait for the next piece of an answer (the idle time between streamed
    /// chunks), in seconds
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<String>,

    /// A command's own settings flags (`serve --listen`), resolved with the others.
    #[arg(skip)]
    pub extra: Vec<(Key, Option<String>)>,
}

impl SettingsArgs {
    /// The flags as resolution overrides.
    pub fn overrides(&self) -> Overrides {
        let mut overrides = Overrides::new();
        for (key, value) in [
            (Key::Provider, &self.provider),
            (Key::Endpoint, &self.endpoint),
            (Key::Model, &self.model),
            (Key::ApiKeyEnv, &self.api_key_env),
            (Key::TimeoutS, &self.timeout),
        ] {
            if let Some(value) = value {
                overrides.set(key, value.clone());
            }
        }
        for (key, value) in &self.extra {
            if let Some(value) = value {
                overrides.set(*key, value.clone());
            }
        }
        overrides
    }
}

/// Resolves the settings for a command from its flags, the process environment and the file,
/// and prints the resolution's warnings (on stderr, silenced by `-q`).
pub fn resolve(args: &SettingsArgs, printer: &Printer) -> Result<Resolved, CliError> {
    let resolved =
        config::resolve(&Environment::from_process(), &args.overrides()).map_err(config_error)?;
    for warning in &resolved.warnings {
        printer.warn(&warning.to_string());
    }
    Ok(resolved)
}

/// A settings problem as a command error: a bad flag is a usage error; anything in the file
/// or the environment is a config problem (exit 1), with what to do about it.
pub fn config_error(error: ConfigError) -> CliError {
    let hint = match &error {
        ConfigError::UnknownKeyInFile { path, error, .. } => Some(format!(
            "remove it with `slmcode config unset {}`, or edit {}",
            error.given,
            path.display()
        )),
        ConfigError::InvalidInFile { error, .. } => Some(format!(
            "set a valid value with `slmcode config set {} VALUE`",
            error.key
        )),
        ConfigError::Syntax { path, .. } => Some(format!("edit {}", path.display())),
        ConfigError::InvalidInEnvironment { variable, .. } => {
            Some(format!("unset {variable} or give it a valid value"))
        }
        ConfigError::NotRegularFile(error) => Some(format!(
            "replace {} with a regular file or a symlink to one",
            error.path.display()
        )),
        ConfigError::NoConfigDirectory
        | ConfigError::Read { .. }
        | ConfigError::Lock { .. }
        | ConfigError::Write { .. }
        | ConfigError::InvalidOverride { .. } => None,
        // A kind a later library adds: its message says it all.
        _ => None,
    };
    let exit = match error {
        ConfigError::InvalidOverride { .. } => Exit::Usage,
        _ => Exit::Failure,
    };
    let mut error = CliError::new(exit, error);
    if let Some(hint) = hint {
        error = error.with_hint(hint);
    }
    error
}
