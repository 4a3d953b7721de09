//! Settings: the typed values the core runs on, and where each one came from.
//!
//! [`Settings`] is what every other layer takes. [`resolve`] builds it from flags
//! ([`Overrides`]), an [`Environment`] snapshot, the `config.toml` file and the defaults, in
//! that order of precedence, and tags every value with its [`SettingSource`]. The key registry
//! ([`KEYS`]) names, documents and parses every setting; [`environment_variables`] lists every
//! variable read. [`ConfigFile`] edits the file without losing comments or other tools'
//! tables, and writes it atomically. [`readiness`] scores how safe the settings are for a
//! small local model. An endpoint's base URL is normalised once, for every layer
//! ([`crate::backends::normalize_endpoint`]).
//!
//! This module uses nothing else in the crate but `schema` (for the grammar's whitespace) and
//! `files` (atomic writes); it reads files and the environment but never the network, never
//! prints and never exits.

use crate::schema::gbnf::Whitespace;

pub(crate) mod endpoint;
mod environment;
mod error;
mod file;
mod keys;
mod parse;
mod provider;
pub mod readiness;
mod resolve;
mod values;

pub use environment::{ConfigDirSource, Environment, EnvironmentVariable, environment_variables};
pub use error::ConfigError;
pub use file::{
    CONFIG_FILE_NAME, ConfigFile, RemovedKey, holds_literal_key, read_document, set_value,
    unset_value,
};
pub use keys::{InvalidValue, KEYS, Key, KeySpec, UnknownKey};
pub use provider::{Provider, UnknownProvider};
pub use resolve::{
    ConfigWarning, Normalisation, Overrides, Resolved, SettingSource, SettingSources, config_path,
    resolve,
};
pub use values::{
    AntiRepetition, InvalidStructuredDecoding, Secret, SettingValue, StructuredDecoding, Thinking,
};

/// Every setting, resolved and typed. [`Settings::default`] holds the defaults.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Settings {
    /// The kind of server; decides the preset (default endpoint, key variable, probes).
    pub provider: Provider,
    /// The OpenAI-style base URL (`http://127.0.0.1:8080/v1`); `None` means the preset's default.
    pub endpoint: Option<String>,
    /// The model id to request; `None` lets the server choose (local servers serve one model).
    pub model: Option<String>,
    /// The NAME of the environment variable that holds the API key.
    pub api_key_env: Option<String>,
    /// The key itself, once resolved from the environment (or, with a warning, the file).
    pub api_key: Option<Secret>,
    /// `auto` negotiates a mechanism; `off` forces prompt-only and repair.
    pub structured_decoding: StructuredDecoding,
    /// The completion budget of one structured request.
    pub max_tokens: u32,
    /// Sampling temperature for structured requests.
    pub temperature: f64,
    /// When requests carry the engine's anti-repetition sampling.
    pub anti_repetition: AntiRepetition,
    /// Whether a thinking model is asked to think (where the engine takes the switch).
    pub thinking: Thinking,
    /// The whitespace a derived grammar allows between tokens (`gbnf_grammar` requests).
    pub grammar_whitespace: Whitespace,
    /// Whether a contract's instructions carry its JSON Schema after the field descriptions.
    pub schema_in_prompt: bool,
    /// Whether a contract's instructions leave out what an exact constraint on the wire already
    /// enforces ([`Contract::brief_prompt`](crate::schema::Contract::brief_prompt)).
    pub brief_instructions: bool,
    /// The longest wait for the next piece of an answer (idle time between streamed chunks,
    /// or for the headers), in seconds.
    pub timeout_s: u64,
    /// The deadline of one whole structured call (every answer, retry and re-ask), in seconds.
    pub call_timeout_s: u64,
    /// The whole probe's deadline, in seconds.
    pub probe_timeout_s: u64,
    /// How many failure-matched repair prompts a structured call may send.
    pub reask: u32,
    /// Whether a structured call whose every attempt failed gives back the last answer's text
    /// (seed 004's backstop): the call still fails, with the text in
    /// [`SchemaViolation::text_fallback`](crate::call::SchemaViolation::text_fallback)
    /// for the caller to use as plain text.
    pub text_fallback: bool,
    /// Whether repair statistics are counted and persisted.
    pub record_stats: bool,
    /// Where the capabilities cache and the repair statistics are kept: the config directory
    /// of the [`Environment`] the settings were resolved with. `None` (the default): neither
    /// is read nor written, and negotiation remembers only in memory. Not a setting a user
    /// writes: it follows `SLMCODE_CONFIG_DIR` as the settings file does.
    pub config_dir: Option<std::path::PathBuf>,
    /// Where `slmcode serve` listens.
    pub serve_listen: std::net::SocketAddr,
    /// The NAME of the environment variable holding the key clients of the proxy must send.
    pub serve_key_env: Option<String>,
    /// How many requests the proxy handles at once.
    pub serve_max_connections: u32,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            provider: Provider::OpenAiCompatible,
            endpoint: None,
            model: None,
            api_key_env: None,
            api_key: None,
            structured_decoding: StructuredDecoding::Auto,
            max_tokens: 2048,
            temperature: 0.0,
            anti_repetition: AntiRepetition::Always,
            thinking: Thinking::Auto,
            grammar_whitespace: Whitespace::Compact,
            schema_in_prompt: false,
            brief_instructions: false,
            timeout_s: 120,
            call_timeout_s: 60,
            probe_timeout_s: 20,
            reask: 3,
            text_fallback: false,
            record_stats: true,
            config_dir: None,
            serve_listen: std::net::SocketAddr::from(([127, 0, 0, 1], 8090)),
            serve_key_env: None,
            serve_max_connections: 64,
        }
    }
}

/// The environment variable that moves slmcode's config directory (tests, CI, several
/// profiles side by side).
pub const CONFIG_DIR_ENV: &str = "SLMCODE_CONFIG_DIR";

/// The platform's config directory for slmcode (`~/.config/slmcode` on Linux).
fn platform_config_dir() -> Option<std::path::PathBuf> {
    directories::ProjectDirs::from("", "", "slmcode").map(|dirs| dirs.config_dir().to_path_buf())
}
