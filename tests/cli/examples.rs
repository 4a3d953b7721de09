//! The examples a Rust harness starts from, run as built (`cargo test` builds every example)
//! against the engine emulator: `examples/tool_loop.rs` runs a tool loop with the library alone.

use std::path::PathBuf;
use std::process::Command;

use serde_json::json;

use crate::emulator::{Emulator, Profile, Scripted};
use crate::util::Slm;

/// `target/<profile>/examples/<name>`, beside the directory of this test binary.
fn example(name: &str) -> PathBuf {
    let test_binary = std::env::current_exe().unwrap();
    let profile_dir = test_binary.parent().unwrap().parent().unwrap();
    let path = profile_dir.join("examples").join(name);
    assert!(path.exists(), "{} is not built", path.display());
    path
}

/// The example's stdout, once it exited 0 (else its output, in the panic).
fn succeeded(output: &std::process::Output) -> String {
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn the_tool_loop_runs_a_call_sends_its_result_under_its_id_and_prints_the_answer() {
    let emulator = Emulator::start(Profile::openai());
    emulator.script([
        Scripted::ToolCalls(json!([{"id": "call_7", "type": "function",
            "function": {"name": "read_file", "arguments": "{\"path\": \"Cargo.toml\"}"}}])),
        Scripted::Content("The package is called demo.".to_owned()),
    ]);
    let slm = Slm::new();
    slm.file("Cargo.toml", "[package]\nname = \"demo\"\n");
    let output = Command::new(example("tool_loop"))
        .arg("What is the package called?")
        .current_dir(slm.work_dir())
        .env_clear()
        .env("SLMCODE_CONFIG_DIR", slm.config_dir())
        .env("SLMCODE_PROVIDER", "openai")
        .env("SLMCODE_ENDPOINT", emulator.base_url())
        .env("OPENAI_API_KEY", "sk-test-EXAMPLE")
        // No probe, so that no probe request takes a scripted answer: a hosted API gets
        // native tools either way.
        .env("SLMCODE_STRUCTURED_DECODING", "off")
        .output()
        .unwrap();
    let stdout = succeeded(&output);
    assert_eq!(
        stdout,
        "turn 1: read_file {\"path\":\"Cargo.toml\"} -> 24 characters\n\
         answer after 2 turns: The package is called demo.\n"
    );
    let bodies = emulator.chat_bodies();
    assert_eq!(bodies.len(), 2);
    let messages = bodies[1]["messages"].as_array().unwrap();
    let assistant = &messages[messages.len() - 2];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["tool_calls"][0]["id"], "call_7");
    assert_eq!(assistant["tool_calls"][0]["function"]["name"], "read_file");
    let result = &messages[messages.len() - 1];
    assert_eq!(result["role"], "tool");
    assert_eq!(result["tool_call_id"], "call_7");
    assert_eq!(result["content"], "[package]\nname = \"demo\"\n");
    assert_eq!(
        bodies[1]["tools"], bodies[0]["tools"],
        "the tools on every turn"
    );
}

#[test]
fn a_harness_with_its_own_environment_keeps_its_files_where_that_environment_says() {
    let emulator = Emulator::start(Profile::llama_server());
    // The process's config directory, which the harness's own Environment overrides.
    let slm = Slm::new();
    let harness_dir = tempfile::tempdir().unwrap();
    let output = Command::new(example("own_config_dir"))
        .arg(harness_dir.path())
        .arg(emulator.base_url())
        .current_dir(slm.work_dir())
        .env_clear()
        .env("SLMCODE_CONFIG_DIR", slm.config_dir())
        .output()
        .unwrap();
    let stdout = succeeded(&output);
    assert_eq!(stdout, "gbnf_grammar\n");
    let mut kept: Vec<_> = std::fs::read_dir(harness_dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| !name.ends_with(".lock"))
        .collect();
    kept.sort();
    assert_eq!(kept, ["capabilities.json", "repair-stats.json"]);
    let process_dir: Vec<_> = std::fs::read_dir(slm.config_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert!(
        process_dir.is_empty(),
        "the process's config directory was written: {process_dir:?}"
    );
}
