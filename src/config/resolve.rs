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
            spec.key.apply(&mut settings, &text).map_err(|error| {
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
            given.push((spec.key, text.into_owned()));
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
        if let Some(mode) = crate::files::mode(&config_path).filter(|mode| mode & 0o077 != 0) {
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
            let key =
                parse::api_key(&text).map_err(|reason| ConfigError::InvalidInEnvironment {
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
mod tests {
    //! Resolution: every layer overriding the one below, provenance, the key chain, file errors.

    use std::path::Path;

    use super::*;
    use crate::config::{
        ConfigWarning, Environment, Key, Overrides, SettingSource, SettingValue, Settings,
    };

    /// A temporary config directory, with `config.toml` holding `contents` (none: no file).
    fn directory(contents: Option<&str>) -> tempfile::TempDir {
        let directory = tempfile::tempdir().unwrap();
        if let Some(contents) = contents {
            std::fs::write(directory.path().join("config.toml"), contents).unwrap();
        }
        directory
    }

    fn environment(directory: &Path, pairs: &[(&str, &str)]) -> Environment {
        let mut all = vec![(
            "SLMCODE_CONFIG_DIR".to_owned(),
            directory.display().to_string(),
        )];
        all.extend(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        Environment::from_pairs(all)
    }

    fn file_source(directory: &Path, line: usize) -> SettingSource {
        SettingSource::File {
            path: directory.join("config.toml"),
            line,
        }
    }

    #[test]
    fn nothing_set_resolves_to_the_defaults() {
        let dir = directory(None);
        let resolved = resolve(&environment(dir.path(), &[]), &Overrides::new()).unwrap();
        assert_eq!(
            resolved.settings,
            Settings {
                config_dir: Some(dir.path().to_owned()),
                ..Settings::default()
            }
        );
        for key in Key::ALL {
            assert_eq!(resolved.source(key), &SettingSource::Default, "{key}");
        }
        assert_eq!(resolved.config_path, dir.path().join("config.toml"));
        assert!(!resolved.config_exists);
        assert!(resolved.warnings.is_empty());
        assert!(resolved.normalised.is_empty());
    }

    /// For every key but the API key: a value for the file, one for the environment and one for a
    /// flag, all different and all different from the default.
    fn layered_values(key: Key) -> [&'static str; 3] {
        match key {
            Key::Provider => ["vllm", "ollama", "llamacpp"],
            Key::Endpoint => [
                "http://127.0.0.1:1/v1",
                "http://127.0.0.1:2/v1",
                "http://127.0.0.1:3/v1",
            ],
            Key::Model => ["file-model", "env-model", "flag-model"],
            Key::ApiKeyEnv => ["FILE_KEY", "ENV_KEY", "FLAG_KEY"],
            Key::StructuredDecoding => ["off", "auto", "off"],
            Key::MaxTokens => ["100", "200", "300"],
            Key::Temperature => ["0.5", "0.7", "0.9"],
            Key::AntiRepetition => ["off", "reask", "off"],
            Key::Thinking => ["off", "on", "off"],
            Key::GrammarWhitespace => ["pretty", "pretty", "pretty"],
            Key::SchemaInPrompt => ["true", "false", "true"],
            Key::BriefInstructions => ["true", "false", "true"],
            Key::TimeoutS => ["10", "20", "30"],
            Key::CallTimeoutS => ["40", "50", "60"],
            Key::ProbeTimeoutS => ["11", "21", "31"],
            Key::Reask => ["2", "3", "4"],
            Key::TextFallback => ["true", "false", "true"],
            Key::RecordStats => ["false", "true", "false"],
            Key::ServeListen => ["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"],
            Key::ServeKeyEnv => ["FILE_PROXY", "ENV_PROXY", "FLAG_PROXY"],
            Key::ServeMaxConnections => ["5", "6", "7"],
            Key::ApiKey => unreachable!("the key has its own chain"),
        }
    }

    fn toml_line(key: Key, text: &str) -> String {
        format!("{} = \"{text}\"\n", key.name())
    }

    #[test]
    fn every_layer_overrides_the_one_below_and_says_so() {
        for key in Key::ALL.into_iter().filter(|key| *key != Key::ApiKey) {
            let [file_text, env_text, flag_text] = layered_values(key);
            let variable = key.spec().environment;
            let dir = directory(Some(&format!("# comment\n{}", toml_line(key, file_text))));

            let from_file = resolve(&environment(dir.path(), &[]), &Overrides::new()).unwrap();
            assert_eq!(from_file.value(key), key.parse(file_text).unwrap(), "{key}");
            assert_eq!(from_file.source(key), &file_source(dir.path(), 2), "{key}");

            let env = environment(dir.path(), &[(variable, env_text)]);
            let from_env = resolve(&env, &Overrides::new()).unwrap();
            assert_eq!(from_env.value(key), key.parse(env_text).unwrap(), "{key}");
            assert_eq!(
                from_env.source(key),
                &SettingSource::Environment {
                    name: variable.to_owned()
                },
                "{key}"
            );

            let from_flag = resolve(&env, &Overrides::new().with(key, flag_text)).unwrap();
            assert_eq!(from_flag.value(key), key.parse(flag_text).unwrap(), "{key}");
            assert_eq!(
                from_flag.source(key),
                &SettingSource::Flag {
                    name: key.spec().flag
                },
                "{key}"
            );
            // Nothing else moved.
            for other in Key::ALL.into_iter().filter(|other| *other != key) {
                if other != Key::ApiKey {
                    assert_eq!(
                        from_flag.source(other),
                        &SettingSource::Default,
                        "{key} moved {other}"
                    );
                }
            }
        }
    }

    #[test]
    fn an_empty_variable_counts_as_unset() {
        let dir = directory(Some("model = \"from-file\"\n"));
        let env = environment(dir.path(), &[("SLMCODE_MODEL", "")]);
        let resolved = resolve(&env, &Overrides::new()).unwrap();
        assert_eq!(resolved.settings.model.as_deref(), Some("from-file"));
    }

    #[test]
    fn the_api_key_chain_in_order() {
        let dir = directory(Some("api_key_env = \"MY_KEY\"\napi_key = \"from-file\"\n"));
        let everything = [
            ("MY_KEY", "from-named"),
            ("SLMCODE_API_KEY", "from-slmcode"),
            ("OPENAI_API_KEY", "from-provider"),
            ("SLMCODE_PROVIDER", "openai"),
        ];
        let expectations = [
            ("from-named", "MY_KEY"),
            ("from-slmcode", "SLMCODE_API_KEY"),
            ("from-provider", "OPENAI_API_KEY"),
        ];
        for (skip, (expected, variable)) in expectations.iter().enumerate() {
            let pairs: Vec<_> = everything[skip..].to_vec();
            let resolved = resolve(&environment(dir.path(), &pairs), &Overrides::new()).unwrap();
            assert_eq!(
                resolved.settings.api_key.as_ref().map(|key| key.expose()),
                Some(*expected)
            );
            assert_eq!(
                resolved.source(Key::ApiKey),
                &SettingSource::Environment {
                    name: (*variable).to_owned()
                }
            );
        }
        let resolved = resolve(
            &environment(dir.path(), &[("SLMCODE_PROVIDER", "openai")]),
            &Overrides::new(),
        )
        .unwrap();
        assert_eq!(
            resolved.settings.api_key.as_ref().unwrap().expose(),
            "from-file"
        );
        assert_eq!(resolved.source(Key::ApiKey), &file_source(dir.path(), 2));
        assert!(
            resolved
                .warnings
                .contains(&ConfigWarning::KeyVariableUnset {
                    variable: "MY_KEY".to_owned()
                })
        );
        assert!(
            resolved
                .warnings
                .contains(&ConfigWarning::LiteralKeyInFile {
                    path: dir.path().join("config.toml")
                })
        );
    }

    #[test]
    fn the_provider_variable_follows_the_resolved_provider() {
        let dir = directory(Some("provider = \"llamacpp\"\n"));
        let env = environment(
            dir.path(),
            &[
                ("OPENAI_API_KEY", "openai-key"),
                ("LLAMA_API_KEY", "llama-key"),
            ],
        );
        let resolved = resolve(&env, &Overrides::new()).unwrap();
        assert_eq!(resolved.settings.api_key.unwrap().expose(), "llama-key");
        // openai-compatible has no conventional variable: an OpenAI key is not sent to it.
        let resolved = resolve(
            &env,
            &Overrides::new().with(Key::Provider, "openai-compatible"),
        )
        .unwrap();
        assert_eq!(resolved.settings.api_key, None);
        assert_eq!(resolved.source(Key::ApiKey), &SettingSource::Default);
    }

    #[test]
    fn a_variable_that_cannot_be_a_key_is_an_error_that_never_quotes_it() {
        let dir = directory(None);
        let env = environment(dir.path(), &[("SLMCODE_API_KEY", "sk-live 123")]);
        let error = resolve(&env, &Overrides::new()).unwrap_err().to_string();
        assert_eq!(
            error,
            "environment variable SLMCODE_API_KEY: invalid value for api_key: contains whitespace \
         or a control character; expected a key without spaces"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_readable_file_with_a_key_is_warned_about() {
        use std::os::unix::fs::PermissionsExt;
        let dir = directory(Some("api_key = \"sk-file\"\n"));
        let path = dir.path().join("config.toml");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let resolved = resolve(&environment(dir.path(), &[]), &Overrides::new()).unwrap();
        assert!(resolved.warnings.contains(&ConfigWarning::KeyFileReadable {
            path: path.clone(),
            mode: 0o644
        }));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let resolved = resolve(&environment(dir.path(), &[]), &Overrides::new()).unwrap();
        assert_eq!(
            resolved.warnings,
            vec![ConfigWarning::LiteralKeyInFile { path }]
        );
    }

    #[test]
    fn a_bare_endpoint_gets_v1_and_the_rewrite_is_reported() {
        let dir = directory(Some("endpoint = \"http://127.0.0.1:8080/\"\n"));
        let resolved = resolve(&environment(dir.path(), &[]), &Overrides::new()).unwrap();
        assert_eq!(
            resolved.settings.endpoint.as_deref(),
            Some("http://127.0.0.1:8080/v1")
        );
        let note = resolved.normalisation(Key::Endpoint).unwrap();
        assert_eq!(note.given, "http://127.0.0.1:8080/");
        assert_eq!(note.value, "http://127.0.0.1:8080/v1");

        let azure = resolve(
            &environment(dir.path(), &[("SLMCODE_PROVIDER", "azure")]),
            &Overrides::new().with(Key::Endpoint, "https://name.openai.azure.com"),
        )
        .unwrap();
        // A bare Azure resource is Azure's v1 API; the dated deployment API is kept as written.
        assert_eq!(
            azure.settings.endpoint.as_deref(),
            Some("https://name.openai.azure.com/openai/v1")
        );
        assert_eq!(
            azure.normalisation(Key::Endpoint).unwrap().value,
            "https://name.openai.azure.com/openai/v1"
        );
        let deployment = resolve(
            &environment(dir.path(), &[("SLMCODE_PROVIDER", "azure")]),
            &Overrides::new().with(
                Key::Endpoint,
                "https://name.openai.azure.com/openai/deployments/gpt?api-version=2024-10-21",
            ),
        )
        .unwrap();
        assert_eq!(
            deployment.settings.endpoint.as_deref(),
            Some("https://name.openai.azure.com/openai/deployments/gpt?api-version=2024-10-21")
        );
        assert_eq!(deployment.normalisation(Key::Endpoint), None);
    }

    #[test]
    fn aliases_are_reported_as_normalised() {
        let dir = directory(None);
        let env = environment(
            dir.path(),
            &[
                ("SLMCODE_STRUCTURED_DECODING", "prompt-only"),
                ("SLMCODE_PROVIDER", "llama.cpp"),
            ],
        );
        let resolved = resolve(&env, &Overrides::new()).unwrap();
        assert_eq!(
            resolved.value(Key::StructuredDecoding),
            SettingValue::Text("off".to_owned())
        );
        let notes: Vec<_> = resolved
            .normalised
            .iter()
            .map(|note| (note.key, note.given.as_str(), note.value.as_str()))
            .collect();
        assert_eq!(
            notes,
            [
                (Key::Provider, "llama.cpp", "llamacpp"),
                (Key::StructuredDecoding, "prompt-only", "off"),
            ]
        );
    }

    #[track_caller]
    fn file_error(contents: &str) -> String {
        let dir = directory(Some(contents));
        let message = resolve(&environment(dir.path(), &[]), &Overrides::new())
            .unwrap_err()
            .to_string();
        message.replace(&dir.path().display().to_string(), "DIR")
    }

    #[test]
    fn file_problems_name_the_path_the_line_and_the_key() {
        assert_eq!(
            file_error("model = \"m\"\nmax_token = 4096\n"),
            "DIR/config.toml line 2: unknown key `max_token` (did you mean `max_tokens`?)"
        );
        assert_eq!(
            file_error("\n\ntemperature = 7\n"),
            "DIR/config.toml line 3: invalid value `7` for temperature: out of range; expected a \
         number from 0 to 2"
        );
        assert_eq!(
            file_error("model = [\"a\"]\n"),
            "DIR/config.toml line 1: invalid value for model: found an array; expected a model id \
         such as qwen2.5-coder:7b"
        );
        assert_eq!(
            file_error("model = \"m\"\nmax_tokens = \n"),
            "DIR/config.toml line 2, column 14: not valid TOML: string values must be quoted, \
         expected literal string"
        );
        assert_eq!(
            file_error("api_key = \"sk-secret key\"\n"),
            "DIR/config.toml line 1: invalid value for api_key: contains whitespace or a control \
         character; expected a key without spaces"
        );
    }

    #[test]
    fn other_tools_tables_are_ignored() {
        let dir = directory(Some(
            "model = \"m\"\n\n[other_tool]\nmax_token = 1\n\n[[servers]]\nname = \"x\"\n",
        ));
        let resolved = resolve(&environment(dir.path(), &[]), &Overrides::new()).unwrap();
        assert_eq!(resolved.settings.model.as_deref(), Some("m"));
    }

    #[test]
    fn toml_types_read_as_their_text() {
        let dir = directory(Some(
            "max_tokens = \"4096\"\ntemperature = 0\nstructured_decoding = false\nrecord_stats = 0\n",
        ));
        let resolved = resolve(&environment(dir.path(), &[]), &Overrides::new()).unwrap();
        assert_eq!(resolved.settings.max_tokens, 4096);
        assert_eq!(resolved.settings.temperature, 0.0);
        assert_eq!(
            resolved.settings.structured_decoding,
            crate::config::StructuredDecoding::Off
        );
        assert!(!resolved.settings.record_stats);
    }

    #[test]
    fn bad_variables_and_flags_name_themselves() {
        let dir = directory(None);
        let env = environment(dir.path(), &[("SLMCODE_REASK", "9")]);
        assert_eq!(
            resolve(&env, &Overrides::new()).unwrap_err().to_string(),
            "environment variable SLMCODE_REASK: invalid value `9` for reask: out of range; \
         expected a whole number from 0 to 5"
        );
        let env = environment(dir.path(), &[]);
        assert_eq!(
            resolve(&env, &Overrides::new().with(Key::TimeoutS, "soon"))
                .unwrap_err()
                .to_string(),
            "--timeout: invalid value `soon` for timeout_s: not a whole number; expected a whole \
         number of seconds from 1 to 86400"
        );
    }

    #[test]
    fn nothing_secret_shows_in_debug_output() {
        let dir = directory(Some("api_key = \"sk-in-file\"\n"));
        let env = environment(dir.path(), &[("OPENAI_API_KEY", "sk-in-env")]);
        let overrides = Overrides::new().with(Key::ApiKey, "sk-in-flag");
        let resolved = resolve(&env, &overrides).unwrap();
        assert_eq!(
            resolved.settings.api_key.as_ref().unwrap().expose(),
            "sk-in-flag"
        );
        let shown = format!("{resolved:?} {env:?} {overrides:?}");
        for secret in ["sk-in-file", "sk-in-env", "sk-in-flag"] {
            assert!(!shown.contains(secret), "{shown}");
        }
    }

    #[test]
    fn a_removed_key_in_the_file_is_ignored_with_a_warning() {
        let dir = directory(Some(
            "max_parallel = 4\nllm_retry_count = 2\nllm_retry_delay_ms = 500\nreask = 0\n",
        ));
        let resolved = resolve(&environment(dir.path(), &[]), &Overrides::new()).unwrap();
        // The rest of the file applies.
        assert_eq!(resolved.settings.reask, 0);
        let warnings: Vec<String> = resolved.warnings.iter().map(ToString::to_string).collect();
        let path = dir.path().join("config.toml");
        assert_eq!(
            warnings,
            [
                format!(
                    "{} line 1: `max_parallel` is no longer a setting and is ignored (slmcode never \
                 limited concurrency; the server queues parallel requests itself); `slmcode \
                 config unset max_parallel` removes it",
                    path.display()
                ),
                format!(
                    "{} line 2: `llm_retry_count` is no longer a setting and is ignored (every request \
                 is retried by the retry policy (3 attempts, jittered backoff)); `slmcode config \
                 unset llm_retry_count` removes it",
                    path.display()
                ),
                format!(
                    "{} line 3: `llm_retry_delay_ms` is no longer a setting and is ignored (every \
                 request is retried by the retry policy (3 attempts, jittered backoff)); `slmcode \
                 config unset llm_retry_delay_ms` removes it",
                    path.display()
                ),
            ]
        );
        // Anything else unknown is still refused.
        let typo = directory(Some("max_paralel = 4\n"));
        assert!(resolve(&environment(typo.path(), &[]), &Overrides::new()).is_err());
    }
}
