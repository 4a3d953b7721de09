//! Clients no one here wrote, through `slmcode serve` in front of the real llama.cpp server:
//! the OpenAI Python SDK (`openai` from PyPI) and instructor on top of it, run by
//! `tests/e2e/serve_clients.py` in a venv this test makes once (cached under
//! `~/.cache/slmcode-serve-clients`, the versions pinned below). Against the tiny random-weight
//! model: anything well-formed came from the constraint. (The same script against SmolLM2
//! passes too, but that server has one slot and the behaviour tests of `real_model.rs` read
//! its greedy answers, which another test's prompts in its cache would change.)

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::util::Slm;

/// The clients, pinned: instructor 1.17.0 takes openai below 3.4.
const PACKAGES: [&str; 2] = ["openai==3.3.0", "instructor==1.17.0"];

/// The venv with the pinned clients, made when missing or holding other versions.
fn venv() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .expect("HOME or XDG_CACHE_HOME");
    let venv = cache.join("slmcode-serve-clients").join("venv");
    let python = venv.join("bin").join("python");
    let check = format!(
        "import openai, instructor; assert openai.__version__ == '{}' and instructor.__version__ == '{}'",
        &PACKAGES[0]["openai==".len()..],
        &PACKAGES[1]["instructor==".len()..]
    );
    let ready = Command::new(&python)
        .args(["-c", &check])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !ready {
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .expect("python3 -m venv");
        assert!(made.success(), "python3 -m venv {}", venv.display());
        let installed = Command::new(venv.join("bin").join("pip"))
            .args(["install", "-q"])
            .args(PACKAGES)
            .status()
            .expect("pip install");
        assert!(installed.success(), "pip install {PACKAGES:?}");
    }
    python
}

#[test]
fn the_openai_sdk_and_instructor_get_validated_answers_through_the_proxy() {
    let Some(endpoint) = crate::endpoint("serve_clients") else {
        return;
    };
    clients_through_the_proxy(&endpoint, &crate::model());
}

/// Runs the Python clients through a proxy in front of `endpoint` and checks their report and
/// the proxy's log.
fn clients_through_the_proxy(endpoint: &str, model: &str) {
    let python = venv();
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", endpoint)
        .env("SLMCODE_MODEL", model);
    let mut child = slm
        .command(["serve", "--listen", "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn slmcode serve");
    let stderr = child.stderr.take().unwrap();
    let (sender, address) = std::sync::mpsc::channel();
    let log = std::thread::spawn(move || {
        let mut lines = Vec::new();
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if let Some(rest) = line.split("listening on http://").nth(1) {
                let _ = sender.send(rest.split('/').next().unwrap_or("").to_owned());
            }
            lines.push(line);
        }
        lines
    });
    let address = address
        .recv_timeout(Duration::from_secs(300))
        .expect("slmcode serve says where it listens");
    let output = Command::new(&python)
        .arg(crate::util::repo_root().join("tests/e2e/serve_clients.py"))
        .env("OPENAI_BASE_URL", format!("http://{address}/v1"))
        .env("OPENAI_API_KEY", "not-used-by-the-proxy")
        .output()
        .expect("run the Python clients");
    // SAFETY: a signal to the child this test started and still owns.
    unsafe {
        libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
    }
    let status = child.wait().unwrap();
    let lines = log.join().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the clients failed:\n{stderr}\nproxy log:\n{}",
        lines.join("\n")
    );
    assert_eq!(status.code(), Some(0), "{lines:?}");
    let report: Value = serde_json::from_slice(&output.stdout).expect("the clients' report");
    let person = json!({"type": "object",
        "properties": {"name": {"type": "string", "maxLength": 20}, "age": {"type": "integer"}},
        "required": ["name", "age"], "additionalProperties": false});
    for key in ["json_schema", "json_schema_stream"] {
        let content = report[key]["content"].as_str().unwrap();
        let value: Value = serde_json::from_str(content).unwrap_or_else(|_| panic!("{report}"));
        assert!(jsonschema::is_valid(&person, &value), "{key}: {value}");
        assert_eq!(report[key]["finish_reason"], "stop", "{report}");
        assert!(report[key]["completion_tokens"].as_u64().unwrap() > 0);
    }
    assert_eq!(report["json_schema"]["mechanism"], "gbnf_grammar");
    let call = &report["tool_call"];
    assert!(call["id"].as_str().unwrap().starts_with("call_"), "{call}");
    assert_eq!(call["name"], "read_file");
    assert_eq!(call["finish_reason"], "tool_calls");
    let arguments: Value = serde_json::from_str(call["arguments"].as_str().unwrap()).unwrap();
    assert!(arguments["path"].is_string(), "{arguments}");
    // 24 tokens, one chunk each: the field that made the model write them was relayed too.
    assert!(
        report["plain_stream"]["chunks"].as_u64().unwrap() > 20,
        "a plain stream arrives in pieces: {report}"
    );
    assert_eq!(
        report["plain_stream"]["finish_reason"], "length",
        "{report}"
    );
    for key in ["instructor_tools", "instructor_json_schema"] {
        assert_eq!(report[key]["type"], "Person", "{report}");
        assert!(
            jsonschema::is_valid(&person, &report[key]["value"]),
            "{key}: {report}"
        );
    }
    // One line per request: 2 structured, 1 tools, 1 plain, 2 from instructor.
    let requests: Vec<&String> = lines
        .iter()
        .filter(|line| line.contains("POST /v1/chat/completions 200"))
        .collect();
    assert_eq!(requests.len(), 6, "{lines:?}");
    let count = |kind: &str| requests.iter().filter(|line| line.contains(kind)).count();
    // instructor's TOOLS mode names its function; JSON_SCHEMA mode sends a response_format.
    assert_eq!(count(" 200 tools "), 2, "{lines:?}");
    assert_eq!(count(" 200 structured "), 3, "{lines:?}");
    assert_eq!(count(" 200 passthrough "), 1, "{lines:?}");
    assert!(!lines.join("\n").contains("not-used-by-the-proxy"));
}
