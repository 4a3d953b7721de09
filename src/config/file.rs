//! `config.toml`: reading it with positions for messages, editing it without losing the
//! user's comments, formatting or other tools' tables, and writing it atomically.
//!
//! What the file may hold: the keys of the registry at the top level. A top-level key slmcode
//! does not know is an error (a misspelt `max_token = 4096` silently ignored is worse than a
//! refusal), but tables (`[other_tool]`) are left alone, read by nobody here and kept intact by
//! every edit.
//!
//! Edits are pure functions on a [`toml_edit::DocumentMut`] ([`set_value`], [`unset_value`]);
//! [`write_atomic`] is the thin I/O step: a temporary file in the same directory, fsync,
//! rename, so a reader sees the old file or the new one and never half of one.
//!
//! [`write_atomic`]: crate::files::write_atomic
//!
//! An edit holds the lock on `config.toml.lock` from the load to the save ([`ConfigFile`]), as
//! the capabilities cache and the repair stats do, so parallel `config set` runs all land.
//!
//! Only a regular file, or a symlink to one, is read or written: a FIFO, a socket, a device or
//! a directory at the path (or at the end of the link) is an error that names it, because
//! reading a FIFO blocks and renaming over a device replaces it.

use std::io;
use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item};

use crate::files::{self, FileError, FileLock};

use super::error::ConfigError;
use super::keys::{InvalidValue, Key};
use super::values::{Secret, SettingValue};

/// The settings file's name inside the config directory.
pub const CONFIG_FILE_NAME: &str = "config.toml";

/// One key as the file gives it: its value as text and the line it is on.
#[derive(Clone, Debug)]
pub(crate) struct FileEntry {
    pub key: Key,
    pub text: String,
    pub line: usize,
}

/// The TOML parser's complaint about `text`, at its line and column in the file at `path`.
fn syntax_error(path: &Path, text: &str, error: &toml_edit::TomlError) -> ConfigError {
    let (line, column) = crate::text::line_column(text, error.span().map_or(0, |span| span.start));
    ConfigError::Syntax {
        path: path.to_owned(),
        line,
        column,
        message: error.message().trim_end().to_owned(),
    }
}

/// Reads the file for resolution: every known key with its text and line, or the first
/// problem (syntax, unknown key, a value of the wrong TOML type). A missing file is `None`.
pub(crate) fn read_entries(path: &Path) -> Result<Option<FileEntries>, ConfigError> {
    let Some(text) = read_text(path)? else {
        return Ok(None);
    };
    let document = toml_edit::Document::parse(text.as_str())
        .map_err(|error| syntax_error(path, &text, &error))?;
    let mut entries = Vec::new();
    let mut removed = Vec::new();
    for (name, item) in document.as_table().iter() {
        let line = document
            .as_table()
            .get_key_value(name)
            .and_then(|(key, _)| key.span())
            .map_or(1, |span| crate::text::line_column(&text, span.start).0);
        let key = match Key::from_name(name) {
            Ok(key) => key,
            // A table is another tool's namespace (or a future one of ours): not our business.
            Err(_) if item.is_table_like() || item.is_array_of_tables() => continue,
            // A key an earlier version had: ignored, with a warning, so an old file still works.
            Err(_) if super::keys::removed_key(name).is_some() => {
                let (name, why) = super::keys::removed_key(name).expect("checked");
                removed.push(RemovedKey { name, why, line });
                continue;
            }
            Err(error) => {
                return Err(ConfigError::UnknownKeyInFile {
                    path: path.to_owned(),
                    line,
                    error,
                });
            }
        };
        let text = item_text(item).map_err(|found| ConfigError::InvalidInFile {
            path: path.to_owned(),
            line,
            error: InvalidValue {
                key,
                given: None,
                reason: format!("found {found}"),
            },
        })?;
        entries.push(FileEntry { key, text, line });
    }
    Ok(Some(FileEntries { entries, removed }))
}

/// What [`read_entries`] found: the keys, and the removed ones the file still holds.
#[derive(Debug, Default)]
pub(crate) struct FileEntries {
    pub entries: Vec<FileEntry>,
    pub removed: Vec<RemovedKey>,
}

/// A key an earlier version wrote in the file, which this one no longer reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemovedKey {
    /// Its name.
    pub name: &'static str,
    /// Why it is gone.
    pub why: &'static str,
    /// Its line in the file.
    pub line: usize,
}

/// The file's text, or `None` when it does not exist. Only a regular file (or a symlink to
/// one) is read: a FIFO would block every command.
fn read_text(path: &Path) -> Result<Option<String>, ConfigError> {
    let read = |source| ConfigError::Read {
        path: path.to_owned(),
        source,
    };
    let bytes = match files::read_regular(path) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return Ok(None),
        Err(FileError::NotRegular(error)) => return Err(error.into()),
        Err(FileError::Io(source)) => return Err(read(source)),
    };
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|error| read(io::Error::new(io::ErrorKind::InvalidData, error)))
}

/// A scalar TOML value as the text a key parser reads; the kind of value found otherwise.
/// Strings are taken as written, so `max_tokens = "4096"` works as well as `max_tokens = 4096`,
/// and `structured_decoding = false` reads as the alias `false`.
fn item_text(item: &Item) -> Result<String, &'static str> {
    match item {
        Item::Value(toml_edit::Value::String(text)) => Ok(text.value().clone()),
        Item::Value(toml_edit::Value::Integer(number)) => Ok(number.value().to_string()),
        Item::Value(toml_edit::Value::Float(number)) => Ok(number.value().to_string()),
        Item::Value(toml_edit::Value::Boolean(flag)) => Ok(flag.value().to_string()),
        Item::Value(toml_edit::Value::Datetime(_)) => Err("a date"),
        Item::Value(toml_edit::Value::Array(_)) => Err("an array"),
        Item::Value(toml_edit::Value::InlineTable(_)) | Item::Table(_) => Err("a table"),
        Item::ArrayOfTables(_) => Err("an array of tables"),
        Item::None => Err("nothing"),
    }
}

/// The settings file's document as it is now (empty when there is no file), read without the
/// lock: to find out whether an edit would change anything before taking the lock, which a
/// read-only config directory cannot give. The edit itself loads the file again under the lock
/// ([`ConfigFile::load`]).
pub fn read_document(path: &Path) -> Result<DocumentMut, ConfigError> {
    let text = read_text(path)?.unwrap_or_default();
    parse_document(path, &text)
}

fn parse_document(path: &Path, text: &str) -> Result<DocumentMut, ConfigError> {
    text.parse::<DocumentMut>()
        .map_err(|error| syntax_error(path, text, &error))
}

/// The settings file loaded for editing: the document as the user wrote it, and the lock on
/// `config.toml.lock` beside it, held until this is dropped. Another process's edit waits for
/// this one's save, so edits made at the same moment all land (each reads what the one before
/// it wrote).
#[derive(Debug)]
pub struct ConfigFile {
    path: PathBuf,
    document: DocumentMut,
    exists: bool,
    /// Whether the file's lines end in CRLF (its first line break says), so that an edit
    /// writes them back that way.
    crlf: bool,
    _lock: FileLock,
}

impl ConfigFile {
    /// Takes the file's lock (waiting while another process edits it), then loads `path` for
    /// editing; a missing file is an empty document. Only the TOML syntax is checked here, so
    /// that a file with a bad value can still be repaired with `config set`. Loading the same
    /// file again before this one is dropped waits for it, in this thread too.
    pub fn load(path: &Path) -> Result<ConfigFile, ConfigError> {
        // Refused before a lock file is made beside something that is not a settings file.
        files::regular_file_exists(path).map_err(|error| match error {
            FileError::NotRegular(error) => ConfigError::from(error),
            FileError::Io(source) => ConfigError::Read {
                path: path.to_owned(),
                source,
            },
        })?;
        let lock = FileLock::acquire(path).map_err(|error| match error {
            FileError::NotRegular(error) => ConfigError::from(error),
            FileError::Io(source) => ConfigError::Lock {
                path: FileLock::path_for(path),
                source,
            },
        })?;
        let text = read_text(path)?;
        let exists = text.is_some();
        let text = text.unwrap_or_default();
        let crlf = text
            .find('\n')
            .is_some_and(|end| text[..end].ends_with('\r'));
        let document = parse_document(path, &text)?;
        Ok(ConfigFile {
            path: path.to_owned(),
            document,
            exists,
            crlf,
            _lock: lock,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file existed when it was loaded.
    pub fn exists(&self) -> bool {
        self.exists
    }

    /// The document, as edited so far.
    pub fn document(&self) -> &DocumentMut {
        &self.document
    }

    /// The document, to edit with [`set_value`] and [`unset_value`].
    pub fn document_mut(&mut self) -> &mut DocumentMut {
        &mut self.document
    }

    /// What the file says for `key` (not the resolved value), if anything. A value the key
    /// does not accept comes back as text, as [`Key::quotable`] quotes it (an endpoint without
    /// its password), or as a secret when it may not be quoted at all.
    pub fn value(&self, key: Key) -> Option<SettingValue> {
        let item = self.document.as_table().get(key.name())?;
        let text = item_text(item).ok()?;
        Some(match key.parse(&text) {
            Ok(value) => value,
            Err(_) => match key.quotable(&text) {
                Some(quoted) => SettingValue::Text(quoted),
                None => SettingValue::Secret(Secret::new(text)),
            },
        })
    }

    /// Whether the file holds a literal API key (and must be private).
    pub fn holds_literal_key(&self) -> bool {
        holds_literal_key(&self.document)
    }

    /// Writes the document atomically, with the line endings the file had (LF for a new file):
    /// mode 0600 when it holds a literal key, otherwise the existing file's mode (a new file
    /// gets the default mode under the umask). Only a regular file is replaced (a symlink to
    /// one is written through).
    pub fn save(&self) -> Result<(), ConfigError> {
        let mut text = self.document.to_string();
        if self.crlf {
            text = with_crlf(&text);
        }
        files::write_atomic(&self.path, text.as_bytes(), self.holds_literal_key()).map_err(
            |error| match error {
                FileError::NotRegular(error) => error.into(),
                FileError::Io(source) => ConfigError::Write {
                    path: self.path.clone(),
                    source,
                },
            },
        )
    }
}

/// `text` with every bare line feed made CRLF. toml_edit writes LF between the lines it
/// formats whatever the file had, but keeps a CRLF written inside a multi-line string.
fn with_crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    let mut previous = None;
    for character in text.chars() {
        if character == '\n' && previous != Some('\r') {
            out.push('\r');
        }
        out.push(character);
        previous = Some(character);
    }
    out
}

/// Whether a settings document holds a literal `api_key`.
pub fn holds_literal_key(document: &DocumentMut) -> bool {
    document.as_table().contains_key(Key::ApiKey.name())
}

/// Sets `key` to `value` at the top level, keeping the key's comments and a trailing comment on
/// the value. [`SettingValue::Unset`] removes the key. Returns whether the document changed.
pub fn set_value(document: &mut DocumentMut, key: Key, value: &SettingValue) -> bool {
    let Some(mut new) = value.to_toml() else {
        return unset_value(document, key.name());
    };
    let table = document.as_table_mut();
    // In place, not `insert`: inserting replaces the key too, and the comments above a key
    // belong to the key.
    if let Some(Item::Value(old)) = table.get_mut(key.name()) {
        let mut bare = old.clone();
        bare.decor_mut().clear();
        if bare.to_string().trim() == new.to_string().trim() {
            return false;
        }
        *new.decor_mut() = old.decor().clone();
        *old = new;
        return true;
    }
    let had_values = table.iter().any(|(_, item)| item.is_value());
    table.insert(key.name(), Item::Value(new));
    if !had_values {
        // A file of comments only: they stay above the first key rather than drifting below it.
        let trailing = document.trailing().as_str().unwrap_or_default().to_owned();
        if !trailing.trim().is_empty() && !has_tables(document) {
            document.set_trailing("");
            if let Some(mut inserted) = document.as_table_mut().key_mut(key.name()) {
                inserted.leaf_decor_mut().set_prefix(trailing);
            }
        }
    }
    true
}

/// Removes the top-level key `name` (any name, so a misspelt key can be removed too). The
/// comments above it are kept: they move onto whatever follows, because the first key's
/// comments are often the file's own header. Returns whether the key was there.
pub fn unset_value(document: &mut DocumentMut, name: &str) -> bool {
    let table = document.as_table_mut();
    let Some((removed_key, removed)) = table.get_key_value(name) else {
        return false;
    };
    if removed.is_table_like() || removed.is_array_of_tables() {
        // A table is not a setting; `unset` never deletes another tool's section.
        return false;
    }
    let comments = removed_key
        .leaf_decor()
        .prefix()
        .and_then(|prefix| prefix.as_str())
        .unwrap_or_default()
        .to_owned();
    let names: Vec<(String, bool)> = table
        .iter()
        .map(|(key, item)| (key.to_owned(), item.is_value()))
        .collect();
    table.remove(name);
    if comments.trim().is_empty() {
        return true;
    }
    let position = names.iter().position(|(key, _)| key == name).unwrap_or(0);
    let next_value = names[position + 1..]
        .iter()
        .find(|(_, is_value)| *is_value)
        .map(|(key, _)| key.clone());
    if let Some(next) = next_value
        && let Some(mut key) = document.as_table_mut().key_mut(&next)
    {
        let existing = key
            .leaf_decor()
            .prefix()
            .and_then(|prefix| prefix.as_str())
            .unwrap_or_default()
            .to_owned();
        key.leaf_decor_mut()
            .set_prefix(format!("{comments}{existing}"));
        return true;
    }
    if let Some(first) = first_table_mut(document) {
        let existing = first
            .decor()
            .prefix()
            .and_then(|prefix| prefix.as_str())
            .unwrap_or_default()
            .to_owned();
        first
            .decor_mut()
            .set_prefix(format!("{comments}{existing}"));
        return true;
    }
    let trailing = document.trailing().as_str().unwrap_or_default().to_owned();
    document.set_trailing(format!("{comments}{trailing}"));
    true
}

fn has_tables(document: &DocumentMut) -> bool {
    document
        .as_table()
        .iter()
        .any(|(_, item)| item.is_table() || item.is_array_of_tables())
}

/// The table written first after the top-level values (the lowest position).
fn first_table_mut(document: &mut DocumentMut) -> Option<&mut toml_edit::Table> {
    document
        .as_table_mut()
        .iter_mut()
        .filter_map(|(_, item)| item.as_table_mut())
        .filter(|table| !table.is_dotted())
        .min_by_key(|table| table.position().unwrap_or(isize::MAX))
}

#[cfg(test)]
mod tests {
    //! The settings file: edits that keep comments and other tools' tables, atomic writes, modes.

    use super::*;
    use crate::config::{Key, Secret, SettingValue};

    const USER_FILE: &str = "\
# my slmcode settings
# (shared with the team)

# the local server
endpoint = \"http://127.0.0.1:8080/v1\"   # llama-server
max_tokens = 1024

[other_tool]
theme = \"dark\" # keep me
";

    fn document(text: &str) -> DocumentMut {
        text.parse().unwrap()
    }

    fn text(key: &str) -> SettingValue {
        SettingValue::Text(key.to_owned())
    }

    #[test]
    fn set_replaces_a_value_and_keeps_every_comment_and_table() {
        let mut edited = document(USER_FILE);
        assert!(set_value(
            &mut edited,
            Key::MaxTokens,
            &SettingValue::Integer(4096)
        ));
        assert_eq!(
            edited.to_string(),
            USER_FILE.replace("max_tokens = 1024", "max_tokens = 4096")
        );
        assert!(set_value(
            &mut edited,
            Key::Endpoint,
            &text("http://127.0.0.1:9090/v1")
        ));
        assert_eq!(
            edited.to_string(),
            USER_FILE
                .replace("max_tokens = 1024", "max_tokens = 4096")
                .replace("8080", "9090")
        );
    }

    #[test]
    fn set_adds_a_new_key_among_the_top_level_values() {
        let mut edited = document(USER_FILE);
        assert!(set_value(
            &mut edited,
            Key::StructuredDecoding,
            &text("off")
        ));
        assert_eq!(
            edited.to_string(),
            USER_FILE.replace(
                "max_tokens = 1024\n",
                "max_tokens = 1024\nstructured_decoding = \"off\"\n"
            )
        );
    }

    #[test]
    fn set_writes_typed_values() {
        let mut edited = DocumentMut::new();
        set_value(&mut edited, Key::Temperature, &SettingValue::Float(0.0));
        set_value(&mut edited, Key::RecordStats, &SettingValue::Bool(false));
        set_value(&mut edited, Key::Reask, &SettingValue::Integer(1));
        assert_eq!(
            edited.to_string(),
            "temperature = 0.0\nrecord_stats = false\nreask = 1\n"
        );
    }

    #[test]
    fn setting_the_same_value_changes_nothing() {
        let mut edited = document(USER_FILE);
        assert!(!set_value(
            &mut edited,
            Key::MaxTokens,
            &SettingValue::Integer(1024)
        ));
        assert!(!set_value(
            &mut edited,
            Key::Endpoint,
            &text("http://127.0.0.1:8080/v1")
        ));
        assert_eq!(edited.to_string(), USER_FILE);
    }

    #[test]
    fn a_comments_only_file_keeps_its_comments_on_top() {
        let mut edited = document("# notes about my setup\n");
        set_value(&mut edited, Key::Model, &text("qwen"));
        assert_eq!(
            edited.to_string(),
            "# notes about my setup\nmodel = \"qwen\"\n"
        );
    }

    #[test]
    fn unset_of_the_first_key_keeps_the_header_comments() {
        let mut edited = document(USER_FILE);
        assert!(unset_value(&mut edited, "endpoint"));
        assert_eq!(
            edited.to_string(),
            "\
# my slmcode settings
# (shared with the team)

# the local server
max_tokens = 1024

[other_tool]
theme = \"dark\" # keep me
"
        );
    }

    #[test]
    fn unset_of_the_last_value_moves_its_comments_above_the_first_table() {
        let mut edited =
            document("max_tokens = 1\n# about the model\nmodel = \"m\"\n\n[t]\na = 1\n");
        assert!(unset_value(&mut edited, "model"));
        assert_eq!(
            edited.to_string(),
            "max_tokens = 1\n# about the model\n\n[t]\na = 1\n"
        );
        let mut only = document("# header\nmodel = \"m\"\n");
        assert!(unset_value(&mut only, "model"));
        assert_eq!(only.to_string(), "# header\n");
    }

    #[test]
    fn unset_leaves_tables_and_absent_keys_alone() {
        let mut edited = document(USER_FILE);
        assert!(!unset_value(&mut edited, "other_tool"));
        assert!(!unset_value(&mut edited, "model"));
        assert_eq!(edited.to_string(), USER_FILE);
        // A misspelt key can be removed by its own name.
        let mut typo = document("max_token = 1\nmodel = \"m\"\n");
        assert!(unset_value(&mut typo, "max_token"));
        assert_eq!(typo.to_string(), "model = \"m\"\n");
    }

    #[test]
    fn file_values_read_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "max_tokens = 0\nprovider = \"llama.cpp\"\napi_key = \"sk-x\"\n",
        )
        .unwrap();
        let file = ConfigFile::load(&path).unwrap();
        assert!(file.exists());
        assert_eq!(file.value(Key::MaxTokens), Some(text("0")));
        assert_eq!(file.value(Key::Provider), Some(text("llamacpp")));
        assert_eq!(
            file.value(Key::ApiKey),
            Some(SettingValue::Secret(Secret::new("sk-x")))
        );
        assert_eq!(file.value(Key::Model), None);
        assert!(file.holds_literal_key());
    }

    #[test]
    fn refused_values_are_quoted_without_what_may_be_secret() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(
            &path,
            "endpoint = \"http://me:hunter2@h:1/v1\"\napi_key_env = \"sk-pasted-1\"\n",
        )
        .unwrap();
        let file = ConfigFile::load(&path).unwrap();
        assert_eq!(
            file.value(Key::Endpoint),
            Some(text("http://<redacted>@h:1/v1"))
        );
        assert_eq!(
            file.value(Key::ApiKeyEnv),
            Some(SettingValue::Secret(Secret::new("sk-pasted-1")))
        );
    }

    #[test]
    fn a_missing_file_loads_empty_and_a_broken_one_says_where() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let file = ConfigFile::load(&path).unwrap();
        assert!(!file.exists());
        assert_eq!(file.document().to_string(), "");
        // The lock is held until the file is dropped, even against this thread.
        drop(file);
        std::fs::write(&path, "model = \"m\"\n[broken\n").unwrap();
        let error = ConfigFile::load(&path).unwrap_err();
        assert!(
            matches!(error, ConfigError::Syntax { line: 2, .. }),
            "{error}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_file_with_a_literal_key_is_written_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "model = \"m\"\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let mut file = ConfigFile::load(&path).unwrap();
        set_value(
            file.document_mut(),
            Key::ApiKey,
            &SettingValue::Secret(Secret::new("sk-1")),
        );
        file.save().unwrap();
        assert_eq!(files::mode(&path).unwrap(), 0o600);
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "model = \"m\"\napi_key = \"sk-1\"\n"
        );
    }

    #[test]
    fn a_loaded_file_holds_the_lock_until_it_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        let lock_path = dir.path().join("config.toml.lock");
        let mut file = ConfigFile::load(&path).unwrap();
        let other = std::fs::File::open(&lock_path).unwrap();
        assert!(matches!(
            other.try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
        set_value(file.document_mut(), Key::Model, &text("m"));
        file.save().unwrap();
        assert!(matches!(
            other.try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
        drop(file);
        other.try_lock().unwrap();
    }

    #[test]
    fn a_crlf_file_is_saved_with_crlf_and_an_lf_file_with_lf() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        for (original, edited) in [
            (
                "# mine\r\nmodel = \"a\"\r\n\r\n[other]\r\nx = \"\"\"\r\ntwo\r\nlines\"\"\"\r\n",
                "# mine\r\nmodel = \"b\"\r\nmax_tokens = 4096\r\n\r\n[other]\r\nx = \"\"\"\r\ntwo\r\nlines\"\"\"\r\n",
            ),
            (
                "# mine\nmodel = \"a\"\n",
                "# mine\nmodel = \"b\"\nmax_tokens = 4096\n",
            ),
            // The first line break decides.
            (
                "model = \"a\"\r\n# lf\n",
                "model = \"b\"\r\nmax_tokens = 4096\r\n# lf\r\n",
            ),
            ("", "model = \"b\"\nmax_tokens = 4096\n"),
        ] {
            std::fs::write(&path, original).unwrap();
            let mut file = ConfigFile::load(&path).unwrap();
            set_value(file.document_mut(), Key::Model, &text("b"));
            set_value(
                file.document_mut(),
                Key::MaxTokens,
                &SettingValue::Integer(4096),
            );
            file.save().unwrap();
            drop(file);
            assert_eq!(
                std::fs::read_to_string(&path).unwrap(),
                edited,
                "{original:?}"
            );
        }
    }
}
