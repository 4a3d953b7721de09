//! Resolution: one chain, flags > environment > file > defaults, that remembers where every
//! value came from.
//!
//! The API key has a chain of its own, because keys live in variables named by convention:
//! the variable named by `api_key_env`, then `SLMCODE_API_KEY`, then the provider's
//! conventional variable ([`Provider::key_env`]), then a literal `api_key` in the file (with a
//! warning). The endpoint is completed once the provider is known (a bare server address gets
//! `/v1`), and every such rewrite is reported in [`Resolved::normalised`] so `doctor` can say so.

use std::fmt;
use std::path::{Path, PathBuf};

use super::Settings;
use super::endpoint::normalize_endpoint;
use super::environment::{ConfigDirSource, Environment};
use super::error::ConfigError;
use super::file::{self, CONFIG_FILE_NAME};
use super::keys::{KEYS, Key};
use super::parse;
use super::values::{Secret, SettingValue};

/// Where a resolved value came from.
///
/// In JSON: `{"kind": "flag", "name": "--model"}`, `{"kind": "environment", "name":
/// "SLMCODE_MODEL"}`, `{"kind": "file", "path": "/home/me/.config/slmcode/config.toml",
/// "line": 3}` or `{"kind": "default"}`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SettingSource {
    /// A command-line flag (or a library caller's [`Overrides`]).
    Flag {
        /// The flag, such as `--model`.
        name: &'static str,
    },
    /// An environment variable.
    Environment {
        /// The variable's name.
        name: String,
    },
    /// The settings file.
    File {
        /// The file.
        path: PathBuf,
        /// The 1-based line of the key.
        line: usize,
    },
    /// Nothing set it: the built-in default.
    Default,
}

impl fmt::Display for SettingSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingSource::Flag { name } => write!(f, "flag {name}"),
            SettingSource::Environment { name } => write!(f, "env {name}"),
            SettingSource::File { path, line } => write!(f, "file {}:{line}", path.display()),
            SettingSource::Default => f.write_str("default"),
        }
    }
}

/// The source of every key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingSources([SettingSource; Key::ALL.len()]);

impl Default for SettingSources {
    fn default() -> SettingSources {
        SettingSources(std::array::from_fn(|_| SettingSource::Default))
    }
}

impl SettingSources {
    /// Where `key`'s value came from.
    pub fn get(&self, key: Key) -> &SettingSource {
        &self.0[key as usize]
    }

    fn set(&mut self, key: Key, source: SettingSource) {
        self.0[key as usize] = source;
    }
}

/// Values given on the command line (or by a program linking the library), highest in
/// precedence. Values are the raw text, parsed by the same registry as everything else; the
/// provenance names the key's flag ([`KeySpec::flag`](super::KeySpec::flag)).
#[derive(Clone, Default)]
pub struct Overrides {
    values: Vec<(Key, String)>,
}

impl Overrides {
    /// No overrides.
    pub fn new() -> Overrides {
        Overrides::default()
    }

    /// Sets `key` to `text`; a later call for the same key wins.
    pub fn set(&mut self, key: Key, text: impl Into<String>) -> &mut Overrides {
        self.values.retain(|(known, _)| *known != key);
        self.values.push((key, text.into()));
        self
    }

    /// [`Overrides::set`], by value, for building in one expression.
    pub fn with(mut self, key: Key, text: impl Into<String>) -> Overrides {
        self.set(key, text);
        self
    }

    /// The text given for `key`, if any.
    pub fn get(&self, key: Key) -> Option<&str> {
        self.values
            .iter()
            .find(|(known, _)| *known == key)
            .map(|(_, text)| text.as_str())
    }

    /// Whether nothing is overridden.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// An override may be a key: only the keys are shown.
impl fmt::Debug for Overrides {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.values.iter().map(|(key, _)| key.name()))
            .finish()
    }
}

/// A value that was rewritten on its way in (`none` -> `off`, `llama.cpp` -> `llamacpp`,
/// `http://127.0.0.1:8080` -> `http://127.0.0.1:8080/v1`). Never recorded for the API key.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Normalisation {
    /// The key.
    pub key: Key,
    /// The text as given.
    pub given: String,
    /// The value it became.
    pub value: String,
}

/// Something about the settings the user should act on, though it does not stop anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigWarning {
    /// The file holds a literal `api_key`.
    LiteralKeyInFile {
        /// The file.
        path: PathBuf,
    },
    /// The file holds a literal `api_key` and others can read it.
    KeyFileReadable {
        /// The file.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// `api_key_env` names a variable that is not set (the chain went on without it).
    KeyVariableUnset {
        /// The variable's name.
        variable: String,
    },
    /// The file holds a key an earlier version had (its value is ignored).
    RemovedKeyInFile {
        /// The file.
        path: PathBuf,
        /// The key, its line and why it is gone.
        removed: file::RemovedKey,
    },
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigWarning::LiteralKeyInFile { path } => write!(
                f,
                "{} holds a literal api_key; keep the key in an environment variable and set \
                 api_key_env to its name",
                path.display()
            ),
            ConfigWarning::KeyFileReadable { path, mode } => write!(
                f,
                "{} holds a literal api_key and other users can read it (mode {mode:04o}); run \
                 `chmod 600 {}`",
                path.display(),
                path.display()
            ),
            ConfigWarning::KeyVariableUnset { variable } => {
                write!(f, "api_key_env names {variable}, which is not set")
            }
            ConfigWarning::RemovedKeyInFile { path, removed } => write!(
                f,
                "{} line {}: `{}` is no longer a setting and is ignored ({}); `slmcode config \
                 unset {}` removes it",
                path.display(),
                removed.line,
                removed.name,
                removed.why,
                removed.name
            ),
        }
    }
}

impl serde::Serialize for ConfigWarning {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// The settings every other layer runs on, with where each value came from.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The typed settings.
    pub settings: Settings,
    /// Where each value came from.
    pub sources: SettingSources,
    /// Where the settings file is (whether or not it exists).
    pub config_path: PathBuf,
    /// Where its directory came from (`SLMCODE_CONFIG_DIR`, or the platform's default).
    pub config_dir_source: ConfigDirSource,
    /// Whether the settings file exists.
    pub config_exists: bool,
    /// What the user should know and can act on.
    pub warnings: Vec<ConfigWarning>,
    /// Values that were rewritten on their way in (the endpoint's `/v1`, aliases).
    pub normalised: Vec<Normalisation>,
}

impl Resolved {
    /// Where `key`'s value came from.
    pub fn source(&self, key: Key) -> &SettingSource {
        self.sources.get(key)
    }

    /// `key`'s resolved value, as `config get` shows it.
    pub fn value(&self, key: Key) -> SettingValue {
        key.read(&self.settings)
    }

    /// The rewrite of `key`'s value, if it had one.
    pub fn normalisation(&self, key: Key) -> Option<&Normalisation> {
        self.normalised.iter().find(|note| note.key == key)
    }
}

/// Resolves the settings from `overrides` (flags), the `environment` snapshot, the settings
/// file in `environment`'s config directory, and the defaults, in that order of precedence.
///
/// Errors: no config directory; an unreadable or invalid-TOML file; an unknown top-level key
/// or a bad value in the file (with path and line); a bad value in a variable or an override.
pub fn resolve(environment: &Environment, overrides: &Overrides) -> Result<Resolved, ConfigError> {
    let config_path = environment
        .config_dir()
        .ok_or(ConfigError::NoConfigDirectory)?
        .join(CONFIG_FILE_NAME);
    let entries = file::read_entries(&config_path)?;
    let config_exists = entries.is_some();
    let file::FileEntries { entries, removed } = entries.unwrap_or_default();
    let mut settings = Settings::default();
    let mut sources = SettingSources::default();
    let mut given: Vec<(Key, String)> = Vec::new();
    let mut literal_key: Option<(Secret, SettingSource)> = None;

    for entry in entries {
        let source = SettingSource::File {
            path: config_path.clone(),
            line: entry.line,
        };
        let invalid = |error| ConfigError::InvalidInFile {
            path: config_path.clone(),
            line: entry.line,
            error,
        };
        if entry.key == Key::ApiKey {
            // Checked now, used only if nothing in the environment provides a key.
            let mut scratch = Settings::default();
            Key::ApiKey
                .apply(&mut scratch, &entry.text)
                .map_err(invalid)?;
            literal_key = scratch.api_key.map(|secret| (secret, source));
            continue;
        }
        entry
            .key
            .apply(&mut settings, &entry.text)
            .map_err(invalid)?;
        sources.set(entry.key, source);
        given.push((entry.key, entry.text));
    }

    for spec in KEYS.iter().filter(|spec| spec.key != Key::ApiKey) {
        if let Some(text) = environment.get(spec.environment) {
            spec.key.apply(&mut settings, text).map_err(|error| {
                ConfigError::InvalidInEnvironment {
                    variable: spec.environment.to_owned(),
                    error,
                }
            })?;
            sources.set(
                spec.key,
                SettingSource::Environment {
                    name: spec.environment.to_owned(),
                },
            );
            given.push((spec.key, text.to_owned()));
        }
    }

    for key in Key::ALL {
        if let Some(text) = overrides.get(key) {
            let flag = key.spec().flag;
            key.apply(&mut settings, text)
                .map_err(|error| ConfigError::InvalidOverride { flag, error })?;
            sources.set(key, SettingSource::Flag { name: flag });
            given.push((key, text.to_owned()));
        }
    }

    let mut warnings: Vec<ConfigWarning> = removed
        .into_iter()
        .map(|removed| ConfigWarning::RemovedKeyInFile {
            path: config_path.clone(),
            removed,
        })
        .collect();
    if overrides.get(Key::ApiKey).is_none() {
        let (key, source) =
            resolve_api_key(environment, &settings, literal_key.clone(), &mut warnings)?;
        settings.api_key = key;
        sources.set(Key::ApiKey, source);
    }
    if literal_key.is_some() {
        warnings.push(ConfigWarning::LiteralKeyInFile {
            path: config_path.clone(),
        });
        if let Some(mode) = file::mode(&config_path).filter(|mode| mode & 0o077 != 0) {
            warnings.push(ConfigWarning::KeyFileReadable {
                path: config_path.clone(),
                mode,
            });
        }
    }

    let normalised = normalise(&mut settings, &given);
    settings.config_dir = config_path.parent().map(Path::to_path_buf);
    Ok(Resolved {
        settings,
        sources,
        config_path,
        config_dir_source: environment.config_dir_source(),
        config_exists,
        warnings,
        normalised,
    })
}

/// The key chain: `api_key_env`'s variable, `SLMCODE_API_KEY`, the provider's variable, the
/// file's literal key. A variable that holds something that cannot be a key is an error (a
/// header the server rejects is harder to diagnose); the error never quotes it.
fn resolve_api_key(
    environment: &Environment,
    settings: &Settings,
    literal_key: Option<(Secret, SettingSource)>,
    warnings: &mut Vec<ConfigWarning>,
) -> Result<(Option<Secret>, SettingSource), ConfigError> {
    if let Some(variable) = &settings.api_key_env
        && environment.get(variable).is_none()
    {
        warnings.push(ConfigWarning::KeyVariableUnset {
            variable: variable.clone(),
        });
    }
    let chain = [
        settings.api_key_env.as_deref(),
        Some(Key::ApiKey.spec().environment),
        settings.provider.key_env(),
    ];
    for variable in chain.into_iter().flatten() {
        if let Some(text) = environment.get(variable) {
            let key = parse::api_key(text).map_err(|reason| ConfigError::InvalidInEnvironment {
                variable: variable.to_owned(),
                error: super::InvalidValue {
                    key: Key::ApiKey,
                    given: None,
                    reason,
                },
            })?;
            let source = SettingSource::Environment {
                name: variable.to_owned(),
            };
            return Ok((Some(Secret::new(key)), source));
        }
    }
    Ok(match literal_key {
        Some((secret, source)) => (Some(secret), source),
        None => (None, SettingSource::Default),
    })
}

/// Completes the endpoint for the provider and records every textual value that reads
/// differently from how it was given. `given` is in layer order, so the last entry for a key
/// is the one that won.
fn normalise(settings: &mut Settings, given: &[(Key, String)]) -> Vec<Normalisation> {
    // The text was checked when it was parsed, so normalising cannot fail; should it, the
    // backends report the error when they normalise the same text again.
    if let Some(endpoint) = &settings.endpoint
        && let Ok(normalized) = normalize_endpoint(settings.provider, endpoint)
    {
        settings.endpoint = Some(normalized.endpoint.to_string());
    }
    let mut notes = Vec::new();
    for key in Key::ALL {
        let Some((_, text)) = given.iter().rev().find(|(known, _)| *known == key) else {
            continue;
        };
        if let SettingValue::Text(value) = key.read(settings)
            && value != text.trim()
        {
            notes.push(Normalisation {
                key,
                given: text.trim().to_owned(),
                value,
            });
        }
    }
    notes
}

/// The settings file's path under `environment`, for commands that edit it.
pub fn config_path(environment: &Environment) -> Result<PathBuf, ConfigError> {
    Ok(environment
        .config_dir()
        .ok_or(ConfigError::NoConfigDirectory)?
        .join(CONFIG_FILE_NAME))
}

#[cfg(test)]
#[path = "resolve_tests.rs"]
mod tests;
