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
    let mut edited = document("max_tokens = 1\n# about the model\nmodel = \"m\"\n\n[t]\na = 1\n");
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
fn mode_of(path: &Path) -> u32 {
    super::mode(path).unwrap()
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
    assert_eq!(mode_of(&path), 0o600);
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
