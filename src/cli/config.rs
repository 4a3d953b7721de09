//! `slmcode config get|set|unset|list|path`: read the resolved settings with their sources,
//! and edit `config.toml` safely (validated before writing, comments and other tools' tables
//! kept, written atomically, mode 0600 when it holds a literal key).
//!
//! An API key is never printed: values show as `<set>` everywhere, including `--json`.

use std::io::Read;
use std::path::PathBuf;

use anyhow::Context;
use clap::Subcommand;
use serde::Serialize;
use slmcode::config::{
    self, ConfigDirSource, ConfigFile, Environment, KEYS, Key, Normalisation, Resolved,
    SettingSource, SettingValue, UnknownKey,
};

use super::exit::{CliError, CommandResult, Exit};
use super::printer::Printer;
use super::settings_args::{self, SettingsArgs, config_error};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: ConfigCommand,
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
enum ConfigCommand {
    /// Print a setting's resolved value, normalised (an API key prints as <set>)
    Get {
        /// The setting, such as structured_decoding (`slmcode config list` shows them all)
        key: String,
        #[command(flatten)]
        settings: SettingsArgs,
    },
    /// Write a setting to config.toml, after checking the value
    Set {
        /// The setting, such as max_tokens
        key: String,
        /// The value; for api_key, `-` reads it from stdin so it stays out of shell history
        #[arg(allow_hyphen_values = true)]
        value: String,
    },
    /// Remove a setting from config.toml, so the environment or the default applies
    Unset {
        /// The setting (a misspelt key in the file can be removed by its own name)
        key: String,
    },
    /// Every setting, its value and where it came from
    List {
        #[command(flatten)]
        settings: SettingsArgs,
    },
    /// Print where config.toml is (it need not exist yet)
    Path,
}

/// `--json` output of `config get`.
#[derive(Debug, Serialize)]
struct GetReport {
    /// The key.
    key: Key,
    /// The resolved value: null when unset, `"<set>"` for an API key.
    value: SettingValue,
    /// Where it came from: `{"kind": "flag"|"environment"|"file"|"default", ...}`.
    source: SettingSource,
    /// The text as given, when normalising changed it (`none` for `off`); else null.
    normalised_from: Option<String>,
}

/// One row of `config list --json`.
#[derive(Debug, Serialize)]
struct ListEntry {
    /// The key.
    key: Key,
    /// The resolved value (as in `config get`).
    value: SettingValue,
    /// Where it came from.
    source: SettingSource,
}

/// `--json` output of `config list`.
#[derive(Debug, Serialize)]
struct ListReport<'a> {
    /// Where config.toml is.
    config_path: &'a PathBuf,
    /// Whether it exists.
    config_exists: bool,
    /// Every key, in registry order.
    settings: Vec<ListEntry>,
    /// Values rewritten on their way in: `{"key", "given", "value"}`.
    normalised: &'a [Normalisation],
    /// Warnings, as the messages printed on stderr.
    warnings: Vec<String>,
}

/// `--json` output of `config set`.
#[derive(Debug, Serialize)]
struct SetReport<'a> {
    /// The key.
    key: Key,
    /// The value written, normalised (`"<set>"` for an API key).
    value: SettingValue,
    /// What the file said before (null when the key was absent).
    previous: Option<SettingValue>,
    /// The file written.
    path: &'a PathBuf,
    /// Whether the file changed (false when it already held this value).
    changed: bool,
}

/// `--json` output of `config unset`.
#[derive(Debug, Serialize)]
struct UnsetReport<'a> {
    /// The key as given.
    key: &'a str,
    /// What the file said before (null when absent, or for a key slmcode does not know).
    previous: Option<SettingValue>,
    /// The file.
    path: &'a PathBuf,
    /// Whether the key was there and has been removed.
    changed: bool,
}

/// `--json` output of `config path`.
#[derive(Debug, Serialize)]
struct PathReport<'a> {
    /// Where config.toml is.
    path: &'a PathBuf,
    /// Whether it exists.
    exists: bool,
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    match args.command {
        ConfigCommand::Get { key, settings } => get(&key, &settings, printer),
        ConfigCommand::Set { key, value } => set(&key, value, printer),
        ConfigCommand::Unset { key } => unset(&key, printer),
        ConfigCommand::List { settings } => list(&settings, printer),
        ConfigCommand::Path => path(printer),
    }
}

fn known_key(name: &str) -> Result<Key, CliError> {
    Key::from_name(name).map_err(unknown_key)
}

fn unknown_key(error: UnknownKey) -> CliError {
    let names: Vec<_> = KEYS.iter().map(|spec| spec.name).collect();
    CliError::usage(error).with_hint(format!("the keys are: {}", names.join(", ")))
}

fn get(name: &str, settings: &SettingsArgs, printer: &Printer) -> CommandResult {
    let key = known_key(name)?;
    let resolved = settings_args::resolve(settings, printer)?;
    let value = resolved.value(key);
    let normalised = resolved.normalisation(key);
    if printer.json() {
        printer.json_value(&GetReport {
            key,
            value,
            source: resolved.source(key).clone(),
            normalised_from: normalised.map(|note| note.given.clone()),
        })?;
        return Ok(Exit::Success);
    }
    match value {
        SettingValue::Unset => printer.note(&format!("{key} is not set")),
        value => printer.line(&value.display())?,
    }
    if let Some(note) = normalised {
        printer.note(&normalised_message(note));
    }
    Ok(Exit::Success)
}

fn normalised_message(note: &Normalisation) -> String {
    format!(
        "{}: `{}` was normalised to `{}`",
        note.key, note.given, note.value
    )
}

fn list(settings: &SettingsArgs, printer: &Printer) -> CommandResult {
    let resolved = settings_args::resolve(settings, printer)?;
    let entries: Vec<ListEntry> = Key::ALL
        .into_iter()
        .map(|key| ListEntry {
            key,
            value: resolved.value(key),
            source: resolved.source(key).clone(),
        })
        .collect();
    if printer.json() {
        printer.json_value(&ListReport {
            config_path: &resolved.config_path,
            config_exists: resolved.config_exists,
            settings: entries,
            normalised: &resolved.normalised,
            warnings: resolved.warnings.iter().map(ToString::to_string).collect(),
        })?;
        return Ok(Exit::Success);
    }
    let rows = entries.iter().map(|entry| {
        vec![
            entry.key.name().to_owned(),
            entry.value.display(),
            entry.source.to_string(),
        ]
    });
    printer.table(&["key", "value", "source"], rows)?;
    for note in &resolved.normalised {
        printer.note(&normalised_message(note));
    }
    Ok(Exit::Success)
}

fn set(name: &str, text: String, printer: &Printer) -> CommandResult {
    let key = known_key(name)?;
    let text = if key == Key::ApiKey && text == "-" {
        let mut key_text = String::new();
        std::io::stdin()
            .read_to_string(&mut key_text)
            .context("cannot read the key from stdin")?;
        key_text
    } else {
        text
    };
    let value = key.parse(&text).map_err(CliError::usage)?;
    let environment = Environment::from_process();
    let path = config::config_path(&environment).map_err(config_error)?;
    let mut file = ConfigFile::load(&path).map_err(config_error)?;
    let previous = file.value(key);
    let changed = config::set_value(file.document_mut(), key, &value);
    if changed {
        file.save().map_err(config_error)?;
    }
    if printer.json() {
        printer.json_value(&SetReport {
            key,
            value: value.clone(),
            previous,
            path: &path,
            changed,
        })?;
    } else if changed {
        printer.note(&format!(
            "set {key} = {} in {}",
            value.display(),
            path.display()
        ));
    } else {
        printer.note(&format!(
            "{key} is already {} in {}",
            value.display(),
            path.display()
        ));
    }
    if key == Key::ApiKey {
        printer.warn(&format!(
            "a literal API key in {} is readable by anything that reads the file (it is kept at \
             mode 0600); prefer `slmcode config set api_key_env VARIABLE`",
            path.display()
        ));
    }
    if let Some(variable) = overriding_variable(&environment, key) {
        printer.warn(&format!(
            "{variable} is set and takes precedence over the file"
        ));
    }
    Ok(Exit::Success)
}

/// The environment variable that would win over the file for `key`, if one is set.
fn overriding_variable(environment: &Environment, key: Key) -> Option<String> {
    let variable = key.spec().environment;
    if environment.get(variable).is_some() {
        return Some(variable.to_owned());
    }
    if key != Key::ApiKey {
        return None;
    }
    // The key chain also reads api_key_env's variable and the provider's variable.
    let resolved: Option<Resolved> = config::resolve(environment, &config::Overrides::new()).ok();
    match resolved?.source(Key::ApiKey) {
        SettingSource::Environment { name } => Some(name.clone()),
        _ => None,
    }
}

fn unset(name: &str, printer: &Printer) -> CommandResult {
    let known = Key::from_name(name);
    let environment = Environment::from_process();
    let path = config::config_path(&environment).map_err(config_error)?;
    let mut file = ConfigFile::load(&path).map_err(config_error)?;
    let present = file
        .document()
        .as_table()
        .get(name)
        .is_some_and(|item| item.is_value());
    let key = match known {
        Ok(key) => Some(key),
        // A key slmcode does not know can still be removed when it is in the file (that is
        // how a misspelt key is cleaned up); otherwise it is a typo on the command line.
        Err(_) if present => None,
        Err(error) => return Err(unknown_key(error)),
    };
    let previous = key.and_then(|key| file.value(key));
    let changed = config::unset_value(file.document_mut(), name);
    if changed {
        file.save().map_err(config_error)?;
    }
    if printer.json() {
        printer.json_value(&UnsetReport {
            key: name,
            previous,
            path: &path,
            changed,
        })?;
    } else if changed {
        printer.note(&format!("removed {name} from {}", path.display()));
    } else {
        printer.note(&format!("{name} was not set in {}", path.display()));
    }
    if let Some(variable) = key.and_then(|key| overriding_variable(&environment, key)) {
        printer.warn(&format!("{variable} is still set and applies"));
    }
    Ok(Exit::Success)
}

fn path(printer: &Printer) -> CommandResult {
    let environment = Environment::from_process();
    let path = config::config_path(&environment).map_err(config_error)?;
    if environment.config_dir_source() == ConfigDirSource::EmptyVariable
        && let Some(directory) = path.parent()
    {
        printer.note(&format!(
            "SLMCODE_CONFIG_DIR is empty, which counts as unset: using the default directory {}",
            directory.display()
        ));
    }
    if printer.json() {
        printer.json_value(&PathReport {
            path: &path,
            exists: path.is_file(),
        })?;
    } else {
        printer.line(&path.display().to_string())?;
    }
    Ok(Exit::Success)
}
