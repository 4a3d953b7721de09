//! A real llama.cpp server that has just been started: it binds its port before it loads the
//! model and answers `503 Loading model` meanwhile (tests/real-engine/README.md). slmcode,
//! started the moment the port accepts connections, waits for the model and demotes nothing.
//!
//! The test starts a second server with the command line of the one `SLMCODE_E2E_PID` names
//! (read from `/proc`), on a port of its own, and stops it at the end.

use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::Slm;

/// A server started for one test; stopped (killed and reaped) when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The running engine's command line with its `--port` replaced by `port`.
fn engine_command(port: u16) -> Option<Vec<String>> {
    let pid = std::env::var("SLMCODE_E2E_PID").ok()?;
    let raw = std::fs::read(format!("/proc/{}/cmdline", pid.trim())).ok()?;
    let mut arguments: Vec<String> = raw
        .split(|byte| *byte == 0)
        .filter(|part| !part.is_empty())
        .map(|part| String::from_utf8_lossy(part).into_owned())
        .collect();
    let at = arguments.iter().position(|argument| argument == "--port")?;
    *arguments.get_mut(at + 1)? = port.to_string();
    Some(arguments)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[test]
fn a_server_that_is_loading_its_model_is_waited_for_and_nothing_is_demoted() {
    if crate::endpoint("loading::a_server_that_is_loading_its_model").is_none() {
        return;
    }
    let port = free_port();
    let Some(command) = engine_command(port) else {
        crate::skip(
            "loading::a_server_that_is_loading_its_model",
            "SLMCODE_E2E_PID does not name a running engine to start a second one like",
        );
        return;
    };
    let _server = Server(
        Command::new(&command[0])
            .args(&command[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start a second engine"),
    );
    // Wait for the port only (not for the model): the moment a harness would start.
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the engine did not bind its port"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &format!("http://127.0.0.1:{port}/v1"))
        .env("SLMCODE_MODEL", &crate::model());
    let run = slm.run(
        [
            "generate",
            "--schema",
            "scope_judge",
            "--prompt",
            "Is adding a README in scope of a documentation task?",
            "--json",
        ],
        "",
    );
    run.code(0);
    let json = run.json();
    assert_ne!(json["meta"]["mechanism"], "prompt_only", "{json:#}");
    assert_eq!(json["meta"]["demotions"], Value::Array(Vec::new()));
    let cache: Value =
        serde_json::from_slice(&std::fs::read(slm.config_dir().join("capabilities.json")).unwrap())
            .unwrap();
    let entry = &cache["entries"][0];
    assert_eq!(entry["probed"], true, "{entry:#}");
    assert_eq!(entry["mechanism"], "json_schema", "{entry:#}");
    assert_eq!(entry["demotions"], Value::Array(Vec::new()));
}
