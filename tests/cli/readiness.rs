//! `slmcode readiness [--fix]`: the table and score, `--fix` writing only what it can and
//! saying what changed, `--json` decoded back, exit 0 unless the settings cannot be read.

use serde_json::json;

use crate::util::{Slm, read_config, write_config};

#[test]
fn the_defaults_score_80_with_advice_for_what_is_missing() {
    let slm = Slm::new();
    let run = slm.run(["readiness"], "");
    run.code(0);
    assert_eq!(
        run.stdout,
        "\
check                current                                 recommended                   points
structured_decoding  auto                                    auto                          15/15
model                (unset)                                 set                           0/10
endpoint             (unset: the provider's default)         set                           0/10
timeout_s            120                                     120 to 600                    5/5
call_timeout_s       60                                      60 to 900                     5/5
probe_timeout_s      20                                      20 to 60                      5/5
reask                3                                       at most 3                     10/10
max_tokens           2048                                    2048 to 8192                  10/10
temperature          0                                       at most 0.2                   10/10
anti_repetition      always                                  always                        10/10
grammar_whitespace   compact                                 compact                       5/5
api_key              none (not needed by openai-compatible)  from an environment variable  5/5
score: 80/100
"
    );
    assert_eq!(
        run.stderr,
        "\
model: run `slmcode config set model MODEL`, with the id the server lists at /v1/models
endpoint: run `slmcode config set endpoint URL`, the server's base URL such as http://127.0.0.1:8080/v1
"
    );
    assert!(
        !slm.config_dir().join("config.toml").exists(),
        "readiness alone never writes"
    );
}

#[test]
fn json_carries_every_check() {
    let slm = Slm::new();
    write_config(&slm, "temperature = 0.8\n");
    let report = slm.run(["readiness", "--json"], "").code(0).json();
    assert_eq!(report["score"], 70);
    assert_eq!(report["max_score"], 100);
    assert_eq!(report["fix"], serde_json::Value::Null);
    assert_eq!(
        report["config_path"],
        json!(slm.config_dir().join("config.toml"))
    );
    let checks = report["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 12);
    let temperature = checks
        .iter()
        .find(|check| check["name"] == "temperature")
        .unwrap();
    assert_eq!(
        temperature,
        &json!({
            "name": "temperature",
            "passed": false,
            "current": "0.8",
            "recommended": "at most 0.2",
            "points": 0,
            "max_points": 10,
            "changes": [{"key": "temperature", "before": 0.8, "after": 0.0}],
            "advice": null,
        })
    );
    let total: u64 = checks
        .iter()
        .map(|check| check["max_points"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 100);
}

const UNSAFE: &str = "\
# lab server
provider = \"llamacpp\"
endpoint = \"http://127.0.0.1:8080/v1\"
model = \"qwen2.5-coder:7b\"
structured_decoding = \"none\"   # comparing against the floor
timeout_s = 30

[other_tool]
keep = true
";

#[test]
fn fix_writes_what_it_can_keeps_comments_and_says_what_changed() {
    let slm = Slm::new();
    let path = write_config(&slm, UNSAFE);
    let run = slm.run(["readiness", "--fix"], "");
    run.code(0);
    assert_eq!(
        run.stdout,
        format!(
            "\
fixed in {}:
  timeout_s: 30 -> 120
check                current                        recommended                   points
structured_decoding  off                            auto                          0/15
model                qwen2.5-coder:7b               set                           10/10
endpoint             http://127.0.0.1:8080/v1       set                           10/10
timeout_s            120                            120 to 600                    5/5
call_timeout_s       60                             60 to 900                     5/5
probe_timeout_s      20                             20 to 60                      5/5
reask                3                              at most 3                     10/10
max_tokens           2048                           2048 to 8192                  10/10
temperature          0                              at most 0.2                   10/10
anti_repetition      always                         always                        10/10
grammar_whitespace   compact                        compact                       5/5
api_key              none (not needed by llamacpp)  from an environment variable  5/5
score: 85/100 (was 80)
",
            path.display()
        )
    );
    // A deliberate off is kept, and readiness says what it costs and why.
    assert_eq!(
        run.stderr,
        format!(
            "structured_decoding: {}\n",
            slmcode::config::readiness::STRUCTURED_DECODING_OFF_ADVICE
        )
    );
    assert_eq!(
        read_config(&slm),
        "\
# lab server
provider = \"llamacpp\"
endpoint = \"http://127.0.0.1:8080/v1\"
model = \"qwen2.5-coder:7b\"
structured_decoding = \"none\"   # comparing against the floor
timeout_s = 120

[other_tool]
keep = true
"
    );

    // A second run has nothing to do and leaves the file exactly as it is.
    let before = std::fs::read(&path).unwrap();
    let again = slm.run(["readiness", "--fix"], "");
    again.code(0);
    assert!(
        again
            .stderr
            .starts_with("nothing to fix in the config file\nstructured_decoding: off is kept"),
        "{}",
        again.stderr
    );
    assert!(
        again.stdout.ends_with("score: 85/100\n"),
        "{}",
        again.stdout
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn fix_json_reports_before_and_after() {
    let slm = Slm::new();
    write_config(&slm, UNSAFE);
    let report = slm.run(["readiness", "--fix", "--json"], "").code(0).json();
    assert_eq!(report["score"], 85);
    assert_eq!(
        report["fix"],
        json!({
            "score_before": 80,
            "applied": [
                {"key": "timeout_s", "before": 30, "after": 120},
            ],
            "written": true,
            "still_overridden": [],
        })
    );
}

#[test]
fn fix_leaves_model_and_endpoint_to_the_user() {
    let slm = Slm::new();
    let run = slm.run(["readiness", "--fix"], "");
    run.code(0);
    assert_eq!(
        run.stderr,
        "\
nothing to fix in the config file
model: run `slmcode config set model MODEL`, with the id the server lists at /v1/models
endpoint: run `slmcode config set endpoint URL`, the server's base URL such as http://127.0.0.1:8080/v1
"
    );
    assert!(run.stdout.ends_with("score: 80/100\n"), "{}", run.stdout);
    assert!(!slm.config_dir().join("config.toml").exists());
}

#[test]
fn a_value_a_variable_overrides_is_fixed_in_the_file_and_the_variable_named() {
    let mut slm = Slm::new();
    slm.env("SLMCODE_TEMPERATURE", "0.9");
    let run = slm.run(["readiness", "--fix"], "");
    run.code(0);
    assert_eq!(read_config(&slm), "temperature = 0.0\n");
    assert!(
        run.stdout.contains("  temperature: 0.9 -> 0\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.starts_with(
            "warning: temperature was fixed in the file, but env SLMCODE_TEMPERATURE still \
             overrides it\n"
        ),
        "{}",
        run.stderr
    );
    // The score is honest: the variable still applies.
    assert!(run.stdout.ends_with("score: 70/100\n"), "{}", run.stdout);
}

#[test]
fn fix_takes_the_lock_only_when_there_is_something_to_write() {
    let mut slm = Slm::new();
    // A lock that cannot be taken, as in a read-only config directory (a directory in its
    // place stops root as well).
    let lock = slm.config_dir().join("config.toml.lock");
    std::fs::create_dir(&lock).unwrap();
    let run = slm.run(["readiness", "--fix"], "");
    run.code(0);
    assert!(
        run.stderr
            .starts_with("nothing to fix in the config file\n"),
        "{}",
        run.stderr
    );
    // The file holds the value already; only a variable overrides it: nothing to write either.
    write_config(&slm, "temperature = 0.0\n");
    slm.env("SLMCODE_TEMPERATURE", "0.9");
    let run = slm.run(["--json", "readiness", "--fix"], "");
    run.code(0);
    let fix = &run.json()["fix"];
    assert_eq!(fix["written"], false, "{fix}");
    assert_eq!(fix["applied"], json!([]), "{fix}");
    // With something to write, the lock is needed and its failure is the command's.
    write_config(&slm, "temperature = 0.5\n");
    let run = slm.run(["readiness", "--fix"], "");
    run.code(1);
    assert!(
        run.stderr
            .starts_with(&format!("error: {} is a directory", lock.display())),
        "{}",
        run.stderr
    );
    assert_eq!(read_config(&slm), "temperature = 0.5\n");
}

#[test]
fn a_key_in_the_file_costs_points_is_not_moved_and_is_never_printed() {
    const SECRET: &str = "sk-readiness-SECRET-77";
    let slm = Slm::new();
    let original =
        format!("provider = \"openai\"\nmodel = \"gpt-4o-mini\"\napi_key = \"{SECRET}\"\n");
    write_config(&slm, &original);
    let run = slm.run(["readiness", "--fix", "--json"], "");
    run.code(0);
    assert!(!run.stdout.contains(SECRET) && !run.stderr.contains(SECRET));
    let report = run.json();
    let key = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["name"] == "api_key")
        .unwrap()
        .clone();
    assert_eq!(key["passed"], false);
    assert_eq!(key["current"], "literal in the file");
    assert_eq!(
        key["advice"],
        "move the key to a variable: export OPENAI_API_KEY=..., then `slmcode config set \
         api_key_env OPENAI_API_KEY` and `slmcode config unset api_key`"
    );
    assert_eq!(report["score"], 95);
    assert_eq!(
        read_config(&slm),
        original,
        "the key stays where the user put it"
    );
}

#[test]
fn a_broken_config_is_the_one_failure() {
    let slm = Slm::new();
    let path = write_config(&slm, "reask = \"many\"\n");
    let run = slm.run(["readiness"], "");
    run.code(1);
    assert_eq!(
        run.stderr,
        format!(
            "error: {} line 1: invalid value `many` for reask: not a whole number; \
             expected a whole number from 0 to 5\nhint: set a valid value with `slmcode config \
             set reask VALUE`\n",
            path.display()
        )
    );
    let fix = slm.run(["readiness", "--fix"], "");
    fix.code(1);
    assert_eq!(read_config(&slm), "reask = \"many\"\n");
}

#[test]
fn flags_score_the_run_they_describe() {
    let slm = Slm::new();
    let report = slm
        .run(
            [
                "readiness",
                "--json",
                "--provider",
                "vllm",
                "--endpoint",
                "http://127.0.0.1:8000",
                "--model",
                "m",
            ],
            "",
        )
        .code(0)
        .json();
    assert_eq!(report["score"], 100);
    let endpoint = &report["checks"][2];
    assert_eq!(endpoint["current"], "http://127.0.0.1:8000/v1");
}
