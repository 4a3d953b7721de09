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
