//! The environment, as resolution sees it: a snapshot taken once (so resolution is a pure
//! function of its inputs, and tests pass their own), and the one registry of every
//! environment variable slmcode reads for its settings.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;

use super::keys::KEYS;
use super::{CONFIG_DIR_ENV, Provider};

/// A snapshot of environment variables. An empty value counts as unset, as shells make it easy
/// to export `SLMCODE_MODEL=` by accident and hard to tell it from unset.
#[derive(Clone, Default)]
pub struct Environment {
    variables: BTreeMap<String, String>,
    /// Taken from the process: `variables` holds only slmcode's own variables, and any other
    /// name (the one `api_key_env` or `serve_key_env` names) is read from the process when
    /// asked. A shell holds dozens of variables slmcode never reads; copying each into the
    /// snapshot cost more than a whole 1 KB repair's parsing.
    others_from_process: bool,
}

impl Environment {
    /// The current process's environment. Variables whose name or value is not UTF-8 are left
    /// out: none of slmcode's variables can be like that and still be meaningful.
    pub fn from_process() -> Environment {
        let variables = std::env::vars_os()
            .filter_map(|(name, value)| {
                let name = name.into_string().ok()?;
                is_own(&name).then_some(())?;
                Some((name, value.into_string().ok()?))
            })
            .collect();
        Environment {
            variables,
            others_from_process: true,
        }
    }

    /// An environment holding exactly `pairs` (for tests and for programs that manage their own).
    pub fn from_pairs<I, K, V>(pairs: I) -> Environment
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<String>,
    {
        let variables = pairs
            .into_iter()
            .map(|(name, value)| (name.into(), value.into()))
            .collect();
        Environment {
            variables,
            others_from_process: false,
        }
    }

    /// The value of `name`, or `None` when it is unset or empty.
    pub fn get(&self, name: &str) -> Option<Cow<'_, str>> {
        let value = if self.others_from_process && !is_own(name) {
            Cow::Owned(std::env::var(name).ok()?)
        } else {
            Cow::Borrowed(self.variables.get(name)?.as_str())
        };
        (!value.is_empty()).then_some(value)
    }

    /// Where `config.toml` lives under this environment: `$SLMCODE_CONFIG_DIR` when set and not
    /// empty (an empty value counts as unset, like every variable here), else the platform's
    /// config directory for slmcode (which the platform derives from the process's home
    /// directory). `None` only when there is no home directory.
    pub fn config_dir(&self) -> Option<PathBuf> {
        match self.get(CONFIG_DIR_ENV) {
            Some(dir) => Some(PathBuf::from(dir.as_ref())),
            None => super::platform_config_dir(),
        }
    }

    /// Where [`Environment::config_dir`] comes from, so a user can be told when an empty
    /// `SLMCODE_CONFIG_DIR` was passed over.
    pub fn config_dir_source(&self) -> ConfigDirSource {
        match self.variables.get(CONFIG_DIR_ENV) {
            Some(dir) if !dir.is_empty() => ConfigDirSource::Environment,
            Some(_) => ConfigDirSource::EmptyVariable,
            None => ConfigDirSource::Platform,
        }
    }
}

/// Where the config directory comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfigDirSource {
    /// `SLMCODE_CONFIG_DIR`.
    Environment,
    /// The platform's config directory for slmcode: `SLMCODE_CONFIG_DIR` is unset.
    Platform,
    /// The platform's config directory for slmcode: `SLMCODE_CONFIG_DIR` is set but empty,
    /// which counts as unset.
    EmptyVariable,
}

/// Values of the environment may be keys: the snapshot never prints them.
impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Environment")
            .field("variables", &self.variables.len())
            .field("others_from_process", &self.others_from_process)
            .finish()
    }
}

/// Whether `name` is one of slmcode's own variables (`SLMCODE_*`, a provider's key variable),
/// which a snapshot of the process keeps.
fn is_own(name: &str) -> bool {
    name.starts_with("SLMCODE_")
        || Provider::ALL
            .iter()
            .any(|provider| provider.key_env() == Some(name))
}

/// One environment variable slmcode reads, for the README and `--help` texts.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EnvironmentVariable {
    /// The variable's name.
    pub name: &'static str,
    /// What it does.
    pub doc: String,
}

/// Every environment variable that affects settings: `SLMCODE_CONFIG_DIR`, one `SLMCODE_<KEY>`
/// per key of the registry (so any setting can be given to one run, CI or a harness without
/// touching the file), and each provider's conventional key variable.
pub fn environment_variables() -> Vec<EnvironmentVariable> {
    let mut variables = vec![EnvironmentVariable {
        name: CONFIG_DIR_ENV,
        doc: "the directory holding config.toml, capabilities.json and repair stats (empty \
              counts as unset)"
            .to_owned(),
    }];
    variables.extend(KEYS.iter().map(|spec| EnvironmentVariable {
        name: spec.environment,
        doc: format!("sets {}: {}", spec.name, spec.doc),
    }));
    let mut provider_variables: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
    for provider in Provider::ALL {
        if let Some(name) = provider.key_env() {
            match provider_variables
                .iter_mut()
                .find(|(known, _)| *known == name)
            {
                Some((_, providers)) => providers.push(provider.as_str()),
                None => provider_variables.push((name, vec![provider.as_str()])),
            }
        }
    }
    variables.extend(
        provider_variables
            .into_iter()
            .map(|(name, providers)| EnvironmentVariable {
                name,
                doc: format!(
                    "the API key for provider {}, read after api_key_env and SLMCODE_API_KEY",
                    providers.join(", ")
                ),
            }),
    );
    variables
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_values_count_as_unset() {
        let environment = Environment::from_pairs([("A", "1"), ("B", "")]);
        assert_eq!(environment.get("A").as_deref(), Some("1"));
        assert_eq!(environment.get("B"), None);
        assert_eq!(environment.get("C"), None);
    }

    #[test]
    fn the_config_directory_follows_slmcode_config_dir() {
        let environment = Environment::from_pairs([(CONFIG_DIR_ENV, "/tmp/slm")]);
        assert_eq!(environment.config_dir(), Some(PathBuf::from("/tmp/slm")));
    }

    #[test]
    fn an_empty_slmcode_config_dir_counts_as_unset_and_is_told_apart() {
        let set = Environment::from_pairs([(CONFIG_DIR_ENV, "/tmp/slm")]);
        assert_eq!(set.config_dir_source(), ConfigDirSource::Environment);
        let empty = Environment::from_pairs([(CONFIG_DIR_ENV, "")]);
        assert_eq!(empty.config_dir(), super::super::platform_config_dir());
        assert_eq!(empty.config_dir_source(), ConfigDirSource::EmptyVariable);
        let unset = Environment::from_pairs([("HOME", "/home/me")]);
        assert_eq!(unset.config_dir(), super::super::platform_config_dir());
        assert_eq!(unset.config_dir_source(), ConfigDirSource::Platform);
    }

    #[test]
    fn every_variable_slmcode_reads_for_its_settings_is_its_own() {
        for variable in environment_variables() {
            assert!(is_own(variable.name), "{}", variable.name);
        }
        assert!(!is_own("HOME"));
        assert!(!is_own("MY_TEAM_KEY"));
    }

    #[test]
    fn the_process_snapshot_keeps_its_own_variables_and_reads_any_other_when_asked() {
        // Variables every test process has: PATH is not slmcode's, so it is read on demand.
        let environment = Environment::from_process();
        assert!(!environment.variables.contains_key("PATH"));
        assert_eq!(
            environment.get("PATH").as_deref(),
            std::env::var("PATH")
                .ok()
                .filter(|path| !path.is_empty())
                .as_deref()
        );
        assert!(environment.variables.keys().all(|name| is_own(name)));
    }

    #[test]
    fn debug_never_shows_values() {
        let environment = Environment::from_pairs([("OPENAI_API_KEY", "sk-secret")]);
        assert!(!format!("{environment:?}").contains("sk-secret"));
    }

    #[test]
    fn the_registry_lists_every_key_and_provider_variable_once() {
        let variables = environment_variables();
        let names: Vec<_> = variables.iter().map(|variable| variable.name).collect();
        for spec in &KEYS {
            assert!(names.contains(&spec.environment), "{}", spec.name);
        }
        for provider in Provider::ALL {
            if let Some(name) = provider.key_env() {
                assert_eq!(names.iter().filter(|known| **known == name).count(), 1);
            }
        }
        assert!(names.contains(&"SLMCODE_CONFIG_DIR"));
    }
}
