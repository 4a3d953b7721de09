//! Clients no one here wrote, through `slmcode serve` in front of the real llama.cpp server:
//! the OpenAI Python SDK (`openai` from PyPI) and instructor on top of it, run by
//! `tests/e2e/serve_clients.py` in a venv this test makes once (cached under
//! `~/.cache/slmcode-serve-clients`, in a directory named for the versions pinned below).
//! Against the tiny random-weight model: anything well-formed came from the constraint. The
//! agent frameworks, in front of the real small model, are `serve_frameworks.rs`; both use the
//! venv and the proxy of this module.

use std::hash::{Hash, Hasher};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::util::Slm;

/// The clients, pinned: instructor 1.17.0 takes openai below 3.4.
const PACKAGES: [&str; 2] = ["openai==3.3.0", "instructor==1.17.0"];

/// A venv under `~/.cache/slmcode-serve-clients` holding `packages` (pinned requirements),
/// made when missing. Its directory is named for `name` and a hash of the pins, so a changed
/// pin makes a new venv; a venv is ready once `pins.txt`, written after a successful install,
/// holds its pins.
pub fn venv(name: &str, packages: &[&str]) -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .expect("HOME or XDG_CACHE_HOME");
    let pins = packages.join("\n");
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    pins.hash(&mut hasher);
    let venv = cache
        .join("slmcode-serve-clients")
        .join(format!("{name}-{:016x}", hasher.finish()));
    let python = venv.join("bin").join("python");
    let marker = venv.join("pins.txt");
    if std::fs::read_to_string(&marker).is_ok_and(|written| written == pins) && python.exists() {
        return python;
    }
    let made = Command::new("python3")
        .args(["-m", "venv", "--clear"])
        .arg(&venv)
        .status()
        .expect("python3 -m venv");
    assert!(made.success(), "python3 -m venv {}", venv.display());
    let installed = Command::new(venv.join("bin").join("pip"))
        .args(["install", "-q"])
        .args(packages)
        .status()
        .expect("pip install");
    assert!(installed.success(), "pip install {packages:?}");
    std::fs::write(&marker, pins).expect("write pins.txt");
    python
}

/// `slmcode serve` on a free port in front of a llama.cpp server, with its log collected.
pub struct Proxy {
    child: Child,
    /// The scratch world (config directory, capabilities cache), removed with the proxy.
    _world: Slm,
    /// `127.0.0.1:<port>`.
    pub address: String,
    lines: Arc<Mutex<Vec<String>>>,
    log: Option<std::thread::JoinHandle<()>>,
}

impl Proxy {
    /// Starts the proxy for `endpoint` and `model` (provider `llamacpp`), with `env` on top.
    pub fn start(endpoint: &str, model: &str, env: &[(&str, &str)]) -> Proxy {
        let mut slm = Slm::new();
        slm.env("SLMCODE_PROVIDER", "llamacpp")
            .env("SLMCODE_ENDPOINT", endpoint)
            .env("SLMCODE_MODEL", model);
        for (key, value) in env {
            slm.env(key, value);
        }
        let mut child = slm
            .command(["serve", "--listen", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn slmcode serve");
        let stderr = child.stderr.take().unwrap();
        let (sender, address) = std::sync::mpsc::channel();
        let lines = Arc::new(Mutex::new(Vec::new()));
        let collected = Arc::clone(&lines);
        let log = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(rest) = line.split("listening on http://").nth(1) {
                    let _ = sender.send(rest.split('/').next().unwrap_or("").to_owned());
                }
                collected.lock().unwrap().push(line);
            }
        });
        let Ok(address) = address.recv_timeout(Duration::from_secs(300)) else {
            let _ = child.kill();
            let status = child.wait().unwrap();
            log.join().unwrap();
            panic!(
                "slmcode serve did not say where it listens ({status}):\n{}",
                lines.lock().unwrap().join("\n")
            );
        };
        Proxy {
            child,
            _world: slm,
            address,
            lines,
            log: Some(log),
        }
    }

    /// The base URL a client is given: `http://127.0.0.1:<port>/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.address)
    }

    /// The log lines so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap().clone()
    }

    /// Stops the proxy (SIGTERM) and returns its exit code and its whole log.
    pub fn stop(mut self) -> (Option<i32>, Vec<String>) {
        // SAFETY: a signal to the child this test started and still owns.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        let status = self.child.wait().unwrap();
        if let Some(log) = self.log.take() {
            log.join().unwrap();
        }
        (status.code(), self.lines())
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        // A failed assertion before `stop`: the proxy does not outlive the test.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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
    let python = venv("clients", &PACKAGES);
    let proxy = Proxy::start(endpoint, model, &[]);
    let output = Command::new(&python)
        .arg(crate::util::repo_root().join("tests/e2e/serve_clients.py"))
        .env("OPENAI_BASE_URL", proxy.base_url())
        .env("OPENAI_API_KEY", "not-used-by-the-proxy")
        .output()
        .expect("run the Python clients");
    let (code, lines) = proxy.stop();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the clients failed:\n{stderr}\nproxy log:\n{}",
        lines.join("\n")
    );
    assert_eq!(code, Some(0), "{lines:?}");
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
