//! Fuzzes `config.toml`: arbitrary bytes as the settings file, resolved the way every command
//! resolves it, then edited the way `config set` and `config unset` edit it. Beyond "no panic,
//! no overflow, no hang": an error names the file, and a line within it; an edit of a file that
//! resolved leaves a file that still resolves, with every other key's value as it was.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use slmcode::config::{
    CONFIG_FILE_NAME, ConfigError, ConfigFile, Environment, Key, Overrides, Settings, SettingValue,
    resolve, set_value, unset_value,
};

fn directory() -> &'static PathBuf {
    static DIRECTORY: OnceLock<PathBuf> = OnceLock::new();
    DIRECTORY.get_or_init(|| {
        let path = std::env::temp_dir().join(format!("slmcode-fuzz-config-{}", std::process::id()));
        std::fs::create_dir_all(&path).expect("a scratch directory");
        path
    })
}

fn environment() -> Environment {
    Environment::from_pairs([("SLMCODE_CONFIG_DIR", directory().to_str().unwrap())])
}

/// Every key's value as the file gives it.
fn file_values(path: &std::path::Path) -> Vec<Option<SettingValue>> {
    let file = ConfigFile::load(path).expect("a file that resolved loads for editing");
    Key::ALL.iter().map(|key| file.value(*key)).collect()
}

fuzz_target!(|data: &[u8]| {
    let path = directory().join(CONFIG_FILE_NAME);
    std::fs::write(&path, data).expect("the scratch file is written");
    let resolved = match resolve(&environment(), &Overrides::new()) {
        Ok(resolved) => resolved,
        Err(error) => {
            let message = error.to_string();
            assert!(message.contains(path.to_str().unwrap()), "{message}");
            let line = match &error {
                ConfigError::Syntax { line, .. }
                | ConfigError::UnknownKeyInFile { line, .. }
                | ConfigError::InvalidInFile { line, .. } => *line,
                _ => 1,
            };
            let lines = data.split(|byte| *byte == b'\n').count();
            assert!((1..=lines).contains(&line), "line {line} of {lines}: {message}");
            return;
        }
    };
    drop(resolved);
    let Some(&first) = data.first() else { return };
    let key = Key::ALL[usize::from(first) % Key::ALL.len()];
    let before = file_values(&path);
    for unset in [false, true] {
        let mut file = ConfigFile::load(&path).expect("a file that resolved loads for editing");
        if unset {
            unset_value(file.document_mut(), key.name());
        } else {
            set_value(file.document_mut(), key, &key.read(&Settings::default()));
        }
        file.save().expect("the scratch file is written");
        drop(file);
        if let Err(error) = resolve(&environment(), &Overrides::new()) {
            panic!("editing {} broke the file: {error}\n{:?}", key.name(), String::from_utf8_lossy(data));
        }
        let after = file_values(&path);
        for (index, other) in Key::ALL.iter().enumerate() {
            if *other != key {
                assert_eq!(before[index], after[index], "{} changed", other.name());
            }
        }
        std::fs::write(&path, data).expect("the scratch file is written");
    }
});
