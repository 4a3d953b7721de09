//! `slmcode config get|set|unset|list|path`: exact messages, `--json` decoded back, the file
//! untouched on every error, comments and other tables kept, keys never printed.

use serde_json::{Value, json};

use crate::util::{Run, Slm, config_file, read_config, write_config};

const KEY_LIST: &str = "provider, endpoint, model, api_key_env, api_key, structured_decoding, \
                        max_tokens, temperature, anti_repetition, thinking, grammar_whitespace, \
                        schema_in_prompt, brief_instructions, timeout_s, call_timeout_s, probe_timeout_s, \
                        reask, text_fallback, record_stats, serve_listen, serve_key_env, serve_max_connections";

/// Every byte a run printed, to scan for secrets.
fn everything(run: &Run) -> String {
    format!("{}\n{}", run.stdout, run.stderr)
}

#[test]
fn path_prints_where_the_file_is() {
    let slm = Slm::new();
    let path = config_file(&slm);
    let run = slm.run(["config", "path"], "");
    run.code(0);
    assert_eq!(run.stdout, format!("{}\n", path.display()));
    let report = slm.run(["config", "path", "--json"], "").code(0).json();
    assert_eq!(report, json!({"path": path, "exists": false}));
}

#[test]
fn set_writes_the_normalised_value_and_get_reads_it_back() {
    let slm = Slm::new();
    let path = config_file(&slm);
    let run = slm.run(["config", "set", "structured_decoding", "Prompt-Only"], "");
    run.code(0);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!("set structured_decoding = off in {}\n", path.display())
    );
    assert_eq!(read_config(&slm), "structured_decoding = \"off\"\n");
    let get = slm.run(["config", "get", "structured_decoding"], "");
    get.code(0);
    assert_eq!(get.stdout, "off\n");
    assert_eq!(get.stderr, "");

    let again = slm.run(["config", "set", "structured_decoding", "off"], "");
    again.code(0);
    assert_eq!(
        again.stderr,
        format!("structured_decoding is already off in {}\n", path.display())
    );
}

#[test]
fn set_json_reports_the_value_and_what_was_there() {
    let slm = Slm::new();
    write_config(&slm, "max_tokens = 1024\n");
    let report = slm
        .run(["config", "set", "max_tokens", "4096", "--json"], "")
        .code(0)
        .json();
    assert_eq!(
        report,
        json!({
            "key": "max_tokens",
            "value": 4096,
            "previous": 1024,
            "path": config_file(&slm),
            "changed": true,
        })
    );
    assert_eq!(read_config(&slm), "max_tokens = 4096\n");
}

#[test]
fn get_json_says_where_each_value_came_from() {
    let mut slm = Slm::new();
    let path = write_config(&slm, "# models\nmodel = \"from-file\"\n");
    let from_file = slm
        .run(["config", "get", "model", "--json"], "")
        .code(0)
        .json();
    assert_eq!(
        from_file,
        json!({
            "key": "model",
            "value": "from-file",
            "source": {"kind": "file", "path": path, "line": 2},
            "normalised_from": null,
        })
    );
    slm.env("SLMCODE_MODEL", "from-env");
    let from_env = slm
        .run(["config", "get", "model", "--json"], "")
        .code(0)
        .json();
    assert_eq!(from_env["value"], "from-env");
    assert_eq!(
        from_env["source"],
        json!({"kind": "environment", "name": "SLMCODE_MODEL"})
    );
    let from_flag = slm
        .run(
            ["config", "get", "model", "--model", "from-flag", "--json"],
            "",
        )
        .code(0)
        .json();
    assert_eq!(from_flag["value"], "from-flag");
    assert_eq!(
        from_flag["source"],
        json!({"kind": "flag", "name": "--model"})
    );
    let unset = slm
        .run(["config", "get", "api_key_env", "--json"], "")
        .code(0)
        .json();
    assert_eq!(unset["value"], Value::Null);
    assert_eq!(unset["source"], json!({"kind": "default"}));
}

#[test]
fn get_of_an_unset_key_prints_nothing_and_says_so() {
    let slm = Slm::new();
    let run = slm.run(["config", "get", "model"], "");
    run.code(0);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, "model is not set\n");
}

#[test]
fn a_bare_endpoint_is_completed_and_the_rewrite_is_shown() {
    let slm = Slm::new();
    slm.run(["config", "set", "endpoint", "http://127.0.0.1:8080/"], "")
        .code(0);
    assert_eq!(read_config(&slm), "endpoint = \"http://127.0.0.1:8080\"\n");
    let run = slm.run(["config", "get", "endpoint"], "");
    run.code(0);
    assert_eq!(run.stdout, "http://127.0.0.1:8080/v1\n");
    assert_eq!(
        run.stderr,
        "endpoint: `http://127.0.0.1:8080` was normalised to `http://127.0.0.1:8080/v1`\n"
    );
    let report = slm
        .run(["config", "get", "endpoint", "--json"], "")
        .code(0)
        .json();
    assert_eq!(report["normalised_from"], "http://127.0.0.1:8080");
}

#[test]
fn an_unknown_key_names_the_nearest_and_leaves_the_file_untouched() {
    let slm = Slm::new();
    let original = "# mine\nmax_tokens = 1024 # keep\n";
    write_config(&slm, original);
    for command in [
        vec!["config", "set", "max_token", "4096"],
        vec!["config", "get", "max_token"],
        vec!["config", "unset", "max_token"],
    ] {
        let run = slm.run(&command, "");
        run.code(2);
        assert_eq!(run.stdout, "");
        assert_eq!(
            run.stderr,
            format!(
                "error: unknown key `max_token` (did you mean `max_tokens`?)\nhint: the keys are: \
                 {KEY_LIST}\n"
            ),
            "{command:?}"
        );
        assert_eq!(read_config(&slm), original, "{command:?}");
    }
}

#[test]
fn a_bad_value_lists_what_is_accepted_and_leaves_the_file_untouched() {
    let slm = Slm::new();
    let original = "# mine\n\ntemperature = 0.1\n\n[other]\nx = 1\n";
    write_config(&slm, original);
    for (key, value, message) in [
        (
            "temperature",
            "hot",
            "invalid value `hot` for temperature: not a number; expected a number from 0 to 2",
        ),
        (
            "temperature",
            "-1",
            "invalid value `-1` for temperature: out of range; expected a number from 0 to 2",
        ),
        (
            "structured_decoding",
            "on",
            "invalid value `on` for structured_decoding: unknown mode; expected auto, off \
             (aliases for off: none, false, 0, prompt, prompt-only)",
        ),
        (
            "provider",
            "gemini",
            "invalid value `gemini` for provider: unknown provider; expected openai, azure, vllm, \
             sglang, llamacpp, lmstudio, ollama, omlx, openai-compatible",
        ),
        (
            "max_tokens",
            "0",
            "invalid value `0` for max_tokens: out of range; expected a whole number from 1 to \
             1000000",
        ),
        (
            "endpoint",
            "localhost:8080",
            "invalid value `localhost:8080` for endpoint: not a URL (it must start with http:// \
             or https://); expected an http(s) base URL such as http://127.0.0.1:8080/v1",
        ),
        (
            "record_stats",
            "maybe",
            "invalid value `maybe` for record_stats: not a switch; expected true or false (also \
             yes/no, on/off, 1/0)",
        ),
    ] {
        let run = slm.run(["config", "set", key, value], "");
        run.code(2);
        assert_eq!(run.stderr, format!("error: {message}\n"), "{key} {value}");
        assert_eq!(read_config(&slm), original, "{key} {value}");
    }
}

#[test]
fn set_and_unset_keep_comments_formatting_and_other_tables() {
    let slm = Slm::new();
    let original = "\
# slmcode settings for the lab machine

# the local llama-server
endpoint   =   \"http://127.0.0.1:8080/v1\"   # started by systemd
max_tokens = 1024

[editor]   # another tool's section
theme = \"dark\"
";
    write_config(&slm, original);
    slm.run(["config", "set", "max_tokens", "4096"], "").code(0);
    slm.run(["config", "set", "model", "qwen2.5-coder:7b"], "")
        .code(0);
    assert_eq!(
        read_config(&slm),
        "\
# slmcode settings for the lab machine

# the local llama-server
endpoint   =   \"http://127.0.0.1:8080/v1\"   # started by systemd
max_tokens = 4096
model = \"qwen2.5-coder:7b\"

[editor]   # another tool's section
theme = \"dark\"
"
    );
    let run = slm.run(["config", "unset", "endpoint"], "");
    run.code(0);
    assert_eq!(
        run.stderr,
        format!("removed endpoint from {}\n", config_file(&slm).display())
    );
    slm.run(["config", "unset", "model"], "").code(0);
    assert_eq!(
        read_config(&slm),
        "\
# slmcode settings for the lab machine

# the local llama-server
max_tokens = 4096

[editor]   # another tool's section
theme = \"dark\"
"
    );
    let report = slm
        .run(["config", "unset", "model", "--json"], "")
        .code(0)
        .json();
    assert_eq!(
        report,
        json!({"key": "model", "previous": null, "path": config_file(&slm), "changed": false})
    );
}

#[test]
fn list_shows_every_key_with_its_value_and_source() {
    let mut slm = Slm::new();
    let path = write_config(&slm, "provider = \"llama.cpp\"\nmax_tokens = 4096\n");
    slm.env("SLMCODE_TEMPERATURE", "0.1");
    let run = slm.run(["config", "list", "--model", "qwen"], "");
    run.code(0);
    let file = path.display();
    assert_eq!(
        run.stdout,
        format!(
            "\
key                    value           source
provider               llamacpp        file {file}:1
endpoint               (unset)         default
model                  qwen            flag --model
api_key_env            (unset)         default
api_key                (unset)         default
structured_decoding    auto            default
max_tokens             4096            file {file}:2
temperature            0.1             env SLMCODE_TEMPERATURE
anti_repetition        always          default
thinking               auto            default
grammar_whitespace     compact         default
schema_in_prompt       false           default
brief_instructions     false           default
timeout_s              120             default
call_timeout_s         60              default
probe_timeout_s        20              default
reask                  3               default
text_fallback          false           default
record_stats           true            default
serve_listen           127.0.0.1:8090  default
serve_key_env          (unset)         default
serve_max_connections  64              default
"
        )
    );
    assert_eq!(
        run.stderr,
        "provider: `llama.cpp` was normalised to `llamacpp`\n"
    );
    let report = slm.run(["config", "list", "--json"], "").code(0).json();
    assert_eq!(report["config_path"], json!(path));
    assert_eq!(report["config_exists"], true);
    let settings = report["settings"].as_array().unwrap();
    assert_eq!(settings.len(), 22);
    assert_eq!(
        settings[0],
        json!({"key": "provider", "value": "llamacpp", "source": {"kind": "file", "path": path, "line": 1}})
    );
    assert_eq!(settings[7]["value"], 0.1);
    assert_eq!(
        settings[18],
        json!({"key": "record_stats", "value": true, "source": {"kind": "default"}})
    );
    assert_eq!(
        report["normalised"],
        json!([{"key": "provider", "given": "llama.cpp", "value": "llamacpp"}])
    );
    assert_eq!(report["warnings"], json!([]));
}

#[test]
fn a_file_problem_names_the_path_and_line_and_exits_one() {
    let slm = Slm::new();
    let path = write_config(&slm, "model = \"m\"\nmax_token = 4096\n");
    let file = path.display();
    let run = slm.run(["config", "list"], "");
    run.code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        format!(
            "error: {file} line 2: unknown key `max_token` (did you mean `max_tokens`?)\nhint: \
             remove it with `slmcode config unset max_token`, or edit {file}\n"
        )
    );
    // The way out the hint names works, and removes only the misspelt key.
    let unset = slm.run(["config", "unset", "max_token"], "");
    unset.code(0);
    assert_eq!(read_config(&slm), "model = \"m\"\n");

    // A negative count is a number, only too small.
    write_config(&slm, "max_tokens = -5\n");
    let run = slm.run(["config", "get", "model"], "");
    run.code(1);
    assert!(
        run.stderr.starts_with(&format!(
            "error: {file} line 1: invalid value `-5` for max_tokens: out of range; expected a \
             whole number from 1 to 1000000\n"
        )),
        "{}",
        run.stderr
    );

    write_config(&slm, "temperature = 9\n");
    let run = slm.run(["config", "get", "model"], "");
    run.code(1);
    assert_eq!(
        run.stderr,
        format!(
            "error: {file} line 1: invalid value `9` for temperature: out of range; expected a \
             number from 0 to 2\nhint: set a valid value with `slmcode config set temperature \
             VALUE`\n"
        )
    );
    // `config set` can repair the value that breaks resolution.
    slm.run(["config", "set", "temperature", "0"], "").code(0);
    assert_eq!(read_config(&slm), "temperature = 0.0\n");
    slm.run(["config", "list"], "").code(0);
}

#[test]
fn a_file_that_is_not_toml_is_never_rewritten() {
    let slm = Slm::new();
    let original = "model = \"m\"\n[broken\n";
    let path = write_config(&slm, original);
    let run = slm.run(["config", "set", "max_tokens", "4096"], "");
    run.code(1);
    assert_eq!(
        run.stderr,
        format!(
            "error: {} line 2, column 8: not valid TOML: unclosed table, expected `]`\nhint: edit \
             {}\n",
            path.display(),
            path.display()
        )
    );
    assert_eq!(read_config(&slm), original);
    slm.run(["config", "get", "model"], "").code(1);
    slm.run(["config", "unset", "model"], "").code(1);
    assert_eq!(read_config(&slm), original);
}

#[test]
fn a_bad_variable_or_flag_says_which() {
    let mut slm = Slm::new();
    let run = slm.run(["config", "get", "model", "--timeout", "soon"], "");
    run.code(2);
    assert_eq!(
        run.stderr,
        "error: --timeout: invalid value `soon` for timeout_s: not a whole number; expected a \
         whole number of seconds from 1 to 86400\n"
    );
    slm.env("SLMCODE_REASK", "9");
    let run = slm.run(["config", "get", "model"], "");
    run.code(1);
    assert_eq!(
        run.stderr,
        "error: environment variable SLMCODE_REASK: invalid value `9` for reask: out of range; \
         expected a whole number from 0 to 5\nhint: unset SLMCODE_REASK or give it a valid value\n"
    );
}

#[test]
fn setting_a_key_a_variable_overrides_is_warned_about() {
    let mut slm = Slm::new();
    slm.env("SLMCODE_MODEL", "from-env");
    let run = slm.run(["config", "set", "model", "from-file"], "");
    run.code(0);
    assert_eq!(
        run.stderr,
        format!(
            "set model = from-file in {}\nwarning: SLMCODE_MODEL is set and takes precedence \
             over the file\n",
            config_file(&slm).display()
        )
    );
}

#[cfg(unix)]
#[test]
fn a_literal_key_makes_the_file_private_and_is_never_printed() {
    use std::os::unix::fs::PermissionsExt;
    const SECRET: &str = "sk-proj-LITERAL-do-not-print-1234";
    let slm = Slm::new();
    let path = write_config(&slm, "# mine\nmodel = \"m\"\n");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let run = slm.run(["config", "set", "api_key", SECRET], "");
    run.code(0);
    assert_eq!(
        run.stderr,
        format!(
            "set api_key = <set> in {file}\nwarning: a literal API key in {file} is readable by \
             anything that reads the file (it is kept at mode 0600); prefer `slmcode config set \
             api_key_env VARIABLE`\n",
            file = path.display()
        )
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    assert_eq!(
        read_config(&slm),
        format!("# mine\nmodel = \"m\"\napi_key = \"{SECRET}\"\n")
    );
    let get = slm.run(["config", "get", "api_key"], "");
    get.code(0);
    assert_eq!(get.stdout, "<set>\n");
    assert_eq!(
        get.stderr,
        format!(
            "warning: {} holds a literal api_key; keep the key in an environment variable and \
             set api_key_env to its name\n",
            path.display()
        )
    );
    let unset = slm
        .run(["config", "unset", "api_key", "--json"], "")
        .code(0)
        .json();
    assert_eq!(unset["previous"], "<set>");
    assert_eq!(read_config(&slm), "# mine\nmodel = \"m\"\n");
}

#[test]
fn a_key_from_stdin_stays_out_of_the_command_line() {
    let slm = Slm::new();
    let report = slm
        .run(
            ["config", "set", "api_key", "-", "--json"],
            "sk-from-stdin-42\n",
        )
        .code(0)
        .json();
    assert_eq!(report["value"], "<set>");
    assert_eq!(report["previous"], Value::Null);
    assert!(read_config(&slm).contains("api_key = \"sk-from-stdin-42\"\n"));
}

#[test]
fn no_output_ever_contains_a_key() {
    const FILE_KEY: &str = "sk-file-SECRET-0001";
    const ENV_KEY: &str = "sk-env-SECRET-0002";
    const NAMED_KEY: &str = "sk-named-SECRET-0003";
    let mut slm = Slm::new();
    write_config(
        &slm,
        &format!("provider = \"openai\"\napi_key_env = \"TEAM_KEY\"\napi_key = \"{FILE_KEY}\"\n"),
    );
    slm.env("OPENAI_API_KEY", ENV_KEY);
    slm.env("TEAM_KEY", NAMED_KEY);
    let commands: Vec<Vec<&str>> = vec![
        vec!["config", "list"],
        vec!["config", "list", "--json"],
        vec!["config", "get", "api_key"],
        vec!["config", "get", "api_key", "--json"],
        vec!["config", "get", "api_key_env", "--json"],
        vec!["config", "set", "api_key_env", "sk-pasted-by-mistake"],
        vec![
            "config",
            "set",
            "api_key_env",
            "sk-pasted-by-mistake",
            "--json",
        ],
        vec!["config", "set", "api_key", "sk-bad key"],
        vec!["config", "set", "api_key", "sk-bad key", "--json"],
        vec!["config", "unset", "api_key", "--json"],
        vec!["readiness"],
        vec!["readiness", "--json"],
    ];
    for command in &commands {
        let run = slm.run(command, "");
        let text = everything(&run);
        for secret in [FILE_KEY, ENV_KEY, NAMED_KEY, "sk-pasted", "sk-bad"] {
            assert!(
                !text.contains(secret),
                "{command:?} printed {secret}:\n{text}"
            );
        }
    }
    let pasted = slm.run(["config", "set", "api_key_env", "sk-pasted-by-mistake"], "");
    pasted.code(2);
    assert_eq!(
        pasted.stderr,
        "error: invalid value for api_key_env: not a variable name (is it the key itself? give \
         the variable's NAME); expected an environment variable name such as MY_API_KEY\n"
    );
}

#[test]
fn a_password_in_the_endpoint_is_never_printed() {
    const PASSWORD: &str = "pw-SECRET-0004";
    let endpoints = [
        format!("http://user:{PASSWORD}@127.0.0.1:9/v1"),
        // A password with the characters that end a URL's host, and one without a scheme.
        format!("http://user:{PASSWORD}/x#y?z@127.0.0.1:9/v1"),
        format!("user:{PASSWORD}@127.0.0.1:9/v1"),
        format!("ftp://user:{PASSWORD}@127.0.0.1:9/v1"),
        // A key as a query parameter.
        format!("http://127.0.0.1:9/v1?api-version=1&key={PASSWORD}"),
    ];
    for endpoint in &endpoints {
        let mut runs = Vec::new();
        let slm = Slm::new();
        runs.push(slm.run(["config", "set", "endpoint", endpoint.as_str()], ""));
        runs.push(slm.run(
            ["config", "set", "endpoint", endpoint.as_str(), "--json"],
            "",
        ));
        for command in ["probe", "doctor", "status"] {
            runs.push(slm.run([command, "--endpoint", endpoint.as_str()], ""));
        }
        let mut from_environment = Slm::new();
        from_environment.env("SLMCODE_ENDPOINT", endpoint);
        for command in [
            vec!["config", "list", "--json"],
            vec!["status", "--json"],
            vec!["doctor", "--json"],
            vec![
                "generate",
                "--schema",
                "scope_judge",
                "--prompt",
                "In scope?",
            ],
        ] {
            runs.push(from_environment.run(command, ""));
        }
        let from_file = Slm::new();
        write_config(&from_file, &format!("endpoint = \"{endpoint}\"\n"));
        runs.push(from_file.run(["config", "list"], ""));
        runs.push(from_file.run(["probe", "--json"], ""));
        runs.push(from_file.run(
            [
                "config",
                "set",
                "endpoint",
                "http://127.0.0.1:9/v1",
                "--json",
            ],
            "",
        ));
        write_config(&from_file, &format!("endpoint = \"{endpoint}\"\n"));
        runs.push(from_file.run(["config", "unset", "endpoint", "--json"], ""));
        for run in &runs {
            let text = everything(run);
            assert!(!text.contains(PASSWORD), "{endpoint}: printed:\n{text}");
        }
        // Every run refused the endpoint or reported what the file held: masked, not left out.
        for run in &runs {
            assert!(
                everything(run).contains("<redacted>"),
                "{endpoint}: {run:#?}"
            );
        }
        for dir in [&slm, &from_environment, &from_file] {
            for entry in std::fs::read_dir(dir.config_dir()).unwrap() {
                let path = entry.unwrap().path();
                let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
                assert!(
                    !text.contains(PASSWORD),
                    "the password is in {}",
                    path.display()
                );
            }
        }
    }
    let slm = Slm::new();
    let run = slm.run(["config", "set", "endpoint", endpoints[0].as_str()], "");
    run.code(2);
    assert_eq!(
        run.stderr,
        "error: invalid value `http://<redacted>@127.0.0.1:9/v1` for endpoint: credentials do not \
         belong in the URL (use api_key_env); expected an http(s) base URL such as \
         http://127.0.0.1:8080/v1\n"
    );
}

#[test]
fn a_key_that_is_not_ascii_is_refused_where_it_is_set_and_where_it_is_read() {
    // A typographic dash pasted from a web page: no HTTP header can carry it.
    const KEY: &str = "sk-proj\u{2013}NONASCII-0005";
    let slm = Slm::new();
    let path = write_config(&slm, "model = \"m\"\n");
    for args in [
        vec!["config", "set", "api_key", KEY],
        vec!["config", "set", "api_key", KEY, "--json"],
    ] {
        let run = slm.run(&args, "");
        run.code(2);
        assert_eq!(
            run.stderr,
            "error: invalid value for api_key: contains a character that is not ASCII (an HTTP \
             header carries only ASCII; was a dash or a quote pasted from a web page?); expected \
             a key without spaces\n"
        );
        assert_eq!(read_config(&slm), "model = \"m\"\n");
    }
    let run = slm.run(["config", "set", "api_key", "-"], format!("{KEY}\n"));
    run.code(2);
    assert!(!everything(&run).contains(KEY), "{run:#?}");

    let emulator = crate::emulator::Emulator::start(crate::emulator::Profile::llama_server());
    for variable in ["SLMCODE_API_KEY", "LLAMA_API_KEY", "TEAM_KEY"] {
        let mut slm = Slm::new();
        slm.env("SLMCODE_PROVIDER", "llamacpp")
            .env("SLMCODE_ENDPOINT", &emulator.base_url())
            .env("SLMCODE_API_KEY_ENV", "TEAM_KEY")
            .env(variable, KEY);
        for command in [
            vec!["probe"],
            vec!["doctor"],
            vec![
                "generate",
                "--schema",
                "scope_judge",
                "--prompt",
                "In scope?",
            ],
        ] {
            let run = slm.run(&command, "");
            run.code(1);
            assert_eq!(
                run.stderr,
                format!(
                    "error: environment variable {variable}: invalid value for api_key: contains \
                     a character that is not ASCII (an HTTP header carries only ASCII; was a \
                     dash or a quote pasted from a web page?); expected a key without \
                     spaces\nhint: unset {variable} or give it a valid value\n"
                ),
                "{command:?}"
            );
        }
    }
    assert!(emulator.requests().is_empty(), "a request went out");
    std::fs::write(&path, format!("api_key = \"{KEY}\"\n")).unwrap();
    let run = slm.run(["config", "list"], "");
    run.code(1);
    assert!(!everything(&run).contains(KEY), "{run:#?}");
}
