//! What can go wrong reading or writing settings. Every message names where the bad value came
//! from: the file with its path and line, the environment variable, or the flag.

use std::path::PathBuf;

use crate::files::NotRegularFile;

use super::keys::{InvalidValue, UnknownKey};

/// A settings problem that stops resolution or an edit of `config.toml`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// Neither `SLMCODE_CONFIG_DIR` nor a home directory says where the config lives.
    #[error("no config directory: set SLMCODE_CONFIG_DIR (there is no home directory)")]
    NoConfigDirectory,
    /// Something other than a regular file is where the file should be (a FIFO, a socket, a
    /// device, a directory, or a symlink to one): it is neither read nor replaced.
    #[error(transparent)]
    NotRegularFile(#[from] NotRegularFile),
    /// The file exists but could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid TOML.
    #[error("{} line {line}, column {column}: not valid TOML: {message}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column (in characters) of the error.
        column: usize,
        /// The parser's description.
        message: String,
    },
    /// The file sets a key slmcode does not have (tables are left to other tools).
    #[error("{} line {line}: {error}", path.display())]
    UnknownKeyInFile {
        /// The file.
        path: PathBuf,
        /// 1-based line of the key.
        line: usize,
        /// The key and the nearest valid one.
        error: UnknownKey,
    },
    /// The file gives a key a value it does not accept.
    #[error("{} line {line}: {error}", path.display())]
    InvalidInFile {
        /// The file.
        path: PathBuf,
        /// 1-based line of the key.
        line: usize,
        /// The key, the value and what is accepted.
        error: InvalidValue,
    },
    /// An `SLMCODE_*` variable holds a value its key does not accept.
    #[error("environment variable {variable}: {error}")]
    InvalidInEnvironment {
        /// The variable's name.
        variable: String,
        /// The key, the value and what is accepted.
        error: InvalidValue,
    },
    /// A flag (or a library caller's override) holds a value its key does not accept.
    #[error("{flag}: {error}")]
    InvalidOverride {
        /// The flag, such as `--model`.
        flag: &'static str,
        /// The key, the value and what is accepted.
        error: InvalidValue,
    },
    /// The lock beside the file (`config.toml.lock`) could not be taken, so the file was not
    /// edited.
    #[error("cannot lock {}", path.display())]
    Lock {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file could not be written (it is left as it was).
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl ConfigError {
    /// The path of the config file this error is about, when it is about one.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            ConfigError::Read { path, .. }
            | ConfigError::Syntax { path, .. }
            | ConfigError::UnknownKeyInFile { path, .. }
            | ConfigError::InvalidInFile { path, .. }
            | ConfigError::Lock { path, .. }
            | ConfigError::Write { path, .. } => Some(path),
            ConfigError::NotRegularFile(error) => Some(&error.path),
            ConfigError::NoConfigDirectory
            | ConfigError::InvalidInEnvironment { .. }
            | ConfigError::InvalidOverride { .. } => None,
        }
    }
}
