//! `slmcode status`: `.connection` from the cache or the prior, a quick reachability check, and
//! never a probe.

use crate::emulator::{Emulator, Profile, RefusingPort};
use crate::util::Slm;

#[test]
fn before_any_probe_the_prior_is_shown_and_nothing_is_probed() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let json = slm.run(["status", "--json"], "").code(0).json();
    let connection = &json["connection"];
    assert_eq!(connection["provider"], "llamacpp");
    assert_eq!(connection["endpoint"], emulator.base_url());
    assert_eq!(connection["model"], serde_json::Value::Null);
    assert_eq!(connection["reachable"], true);
    assert!(connection["latency_ms"].is_u64());
    assert_eq!(connection["source"], "prior");
    assert_eq!(connection["probed"], false);
    assert_eq!(connection["probed_at"], serde_json::Value::Null);
    assert_eq!(connection["demotions"], serde_json::json!([]));
    assert_eq!(json["config"]["structured_decoding"], "auto");
    assert_eq!(json["config"]["api_key_source"], serde_json::Value::Null);
    assert_eq!(json["repair"]["total"], 0);
    assert_eq!(emulator.chat_count(), 0);
}

#[test]
fn after_a_probe_the_cache_is_the_source() {
    let emulator = Emulator::start(Profile::vllm());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "vllm")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    slm.run(["probe"], "").code(0);
    let probes = emulator.chat_count();
    let run = slm.run(["status"], "");
    run.code(0);
    assert!(
        run.stdout
            .contains("mechanism:  json_schema (strict) (from cache)"),
        "{}",
        run.stdout
    );
    let json = slm.run(["status", "--json"], "").code(0).json();
    assert_eq!(json["connection"]["source"], "cache");
    assert_eq!(json["connection"]["probed"], true);
    assert!(
        json["connection"]["probed_at"]
            .as_str()
            .unwrap()
            .ends_with('Z')
    );
    assert_eq!(emulator.chat_count(), probes);
}

#[test]
fn offline_sends_nothing_and_an_unreachable_server_is_reported_not_fatal() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let json = slm
        .run(["status", "--json", "--offline"], "")
        .code(0)
        .json();
    assert_eq!(json["connection"]["reachable"], serde_json::Value::Null);
    assert!(emulator.requests().is_empty());

    // Held dead for the whole test: no parallel test can take the port.
    let dead = RefusingPort::new();
    let port = dead.port();
    slm.env("SLMCODE_ENDPOINT", &format!("http://127.0.0.1:{port}/v1"));
    let json = slm.run(["status", "--json"], "").code(0).json();
    assert_eq!(json["connection"]["reachable"], false);
}

#[test]
fn repair_stats_from_the_config_directory_are_shown() {
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp");
    std::fs::write(
        slm.config_dir().join("repair-stats.json"),
        r#"{"version": 1, "total": 3, "outcomes": {"repaired": 2, "truncated": 1},
            "rungs": {"fence": 1, "trailing_comma": 1}, "changed": {"fence": 1}}"#,
    )
    .unwrap();
    let json = slm
        .run(["status", "--json", "--offline"], "")
        .code(0)
        .json();
    assert_eq!(json["repair"]["total"], 3);
    assert_eq!(json["repair"]["rungs"]["fence"], 1);
    let run = slm.run(["status", "--offline"], "");
    run.code(0);
    assert!(
        run.stdout
            .contains("repairs:    3 (repaired 2, truncated 1)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("rungs:      fence 1, trailing_comma 1"),
        "{}",
        run.stdout
    );
    // Only failures recorded: no rung to list, and no empty line for it.
    std::fs::write(
        slm.config_dir().join("repair-stats.json"),
        r#"{"version": 1, "total": 2, "outcomes": {"wrong_shape": 2}, "rungs": {}, "changed": {}}"#,
    )
    .unwrap();
    let run = slm.run(["status", "--offline"], "");
    run.code(0);
    assert!(
        run.stdout.ends_with("repairs:    2 (wrong_shape 2)\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_fresh_install_shows_what_it_knows_and_exits_0() {
    let slm = Slm::new();
    let run = slm.run(["status"], "");
    run.code(0);
    assert!(
        run.stdout.starts_with(
            "provider:   openai-compatible\nendpoint:   not set (openai-compatible has no default)\n"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(&format!(
            "config:     {} (not created yet)\n",
            slm.config_dir().join("config.toml").display()
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains(&format!(
            "cache:      {}\n",
            slm.config_dir().join("capabilities.json").display()
        )),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.ends_with("repairs:    none recorded\n"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stderr,
        "warning: no endpoint is set, and provider openai-compatible has no default endpoint: \
         `slmcode config set endpoint URL` (such as http://127.0.0.1:8080/v1)\n"
    );
    let json = slm.run(["status", "--json"], "").code(0).json();
    assert_eq!(json["connection"], serde_json::Value::Null);
    assert_eq!(json["forms"], serde_json::json!([]));
    assert_eq!(json["config"]["exists"], false);
    assert_eq!(json["config"]["structured_decoding"], "auto");
    assert_eq!(json["repair"]["total"], 0);
    assert_eq!(
        json["cache_path"],
        slm.config_dir()
            .join("capabilities.json")
            .display()
            .to_string()
    );
    assert_eq!(json["warnings"].as_array().unwrap().len(), 1);
}
