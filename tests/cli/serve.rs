//! `slmcode serve` through the real binary in front of the engine emulator: plain requests
//! relayed unchanged (streams chunk by chunk), the proxy's key, refusals, the log line per
//! request, signals, and `slmcode status` with a running and a stale proxy; and the helpers the
//! other serve tests share. The call path is in `serve_structured.rs`, hostile clients in
//! `serve_hostile.rs`.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::emulator::{Emulator, Profile};
use crate::serve_structured::structured_body;
use crate::util::{Slm, slm_for};

/// A running `slmcode serve`: its address, and its stderr lines as they come.
pub struct Served {
    pub child: Child,
    pub address: String,
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Served {
    /// Starts `slmcode serve --listen 127.0.0.1:0 ARGS` and waits for its "listening" line.
    pub fn start(slm: &Slm, args: &[&str]) -> Served {
        let mut command = slm.command(
            ["serve", "--listen", "127.0.0.1:0"]
                .iter()
                .chain(args.iter()),
        );
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn slmcode serve");
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (found, address) = std::sync::mpsc::channel();
        let lines = log.clone();
        std::thread::spawn(move || {
            let mut found = Some(found);
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(rest) = line.split("listening on http://").nth(1)
                    && let Some(sender) = found.take()
                {
                    let _ = sender.send(rest.split('/').next().unwrap_or("").to_owned());
                }
                lines.lock().unwrap().push(line);
            }
        });
        let address = match address.recv_timeout(Duration::from_secs(60)) {
            Ok(address) => address,
            Err(_) => {
                let _ = child.kill();
                panic!("slmcode serve did not start: {:?}", log.lock().unwrap());
            }
        };
        Served {
            child,
            address,
            log,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.address)
    }

    pub fn lines(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// Waits (up to ten seconds) for a log line containing `needle`.
    pub fn wait_for_line(&self, needle: &str) -> String {
        for _ in 0..1000 {
            if let Some(line) = self.lines().into_iter().find(|line| line.contains(needle)) {
                return line;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("no log line with {needle:?} in {:?}", self.lines());
    }

    /// Sends `signal` and waits for the exit code.
    pub fn stop(mut self, signal: libc::c_int) -> (i32, Vec<String>) {
        // SAFETY: sending a signal to a child this test started and still owns.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, signal);
        }
        let status = self.child.wait().unwrap();
        // Let the reader thread take the last lines.
        std::thread::sleep(Duration::from_millis(100));
        (status.code().unwrap_or(-1), self.lines())
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A scratch world pointed at `emulator` as a llama.cpp server.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .new_agent()
}

/// POSTs `body` with optional bearer `key`; returns status, headers and body text.
pub fn post(url: &str, body: &Value, key: Option<&str>) -> (u16, Vec<(String, String)>, String) {
    let mut request = agent().post(url).content_type("application/json");
    if let Some(key) = key {
        request = request.header("Authorization", format!("Bearer {key}"));
    }
    let mut response = request.send(body.to_string().as_bytes()).expect("post");
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                value.to_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let text = response.body_mut().read_to_string().unwrap_or_default();
    (status, headers, text)
}

pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_str())
}

/// The `data:` payloads of an event stream, `[DONE]` included.
pub fn events(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(str::to_owned)
        .collect()
}

/// A streamed chat completion that ends with `[DONE]`: its chunks, and the content their
/// deltas add up to.
pub fn streamed_answer(text: &str) -> (Vec<Value>, String) {
    let events = events(text);
    assert_eq!(events.last().map(String::as_str), Some("[DONE]"), "{text}");
    let chunks: Vec<Value> = events[..events.len() - 1]
        .iter()
        .map(|event| serde_json::from_str(event).unwrap())
        .collect();
    let content = chunks
        .iter()
        .filter_map(|chunk| chunk.pointer("/choices/0/delta/content")?.as_str())
        .collect();
    (chunks, content)
}

#[test]
fn a_plain_request_is_relayed_unchanged_with_the_upstream_key_and_never_the_clients() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = slm_for(&emulator, "llamacpp");
    slm.env("SLMCODE_API_KEY_ENV", "UPSTREAM_KEY")
        .env("UPSTREAM_KEY", "sk-upstream-secret");
    let served = Served::start(&slm, &[]);
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}],
        "temperature": 0.3, "logit_bias": {"42": 1}, "user": "abc"});
    let (status, _, text) = post(
        &served.url("/v1/chat/completions"),
        &body,
        Some("client-key"),
    );
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        answer["id"], "chatcmpl-emulated",
        "the upstream's answer as it came"
    );
    let received = emulator.requests().pop().unwrap();
    assert_eq!(received.path, "/v1/chat/completions");
    assert_eq!(received.json(), body, "the body is relayed unchanged");
    assert_eq!(
        received.header("authorization"),
        Some("Bearer sk-upstream-secret"),
        "the upstream gets the configured key, not the client's"
    );
    assert!(!text.contains("sk-upstream-secret"));
    let line = served.wait_for_line("POST /v1/chat/completions 200 passthrough");
    assert!(!served.lines().join("\n").contains("sk-upstream"), "{line}");
    // Without /v1 too, and /v1/models.
    let (status, _, _) = post(&served.url("/chat/completions"), &body, None);
    assert_eq!(status, 200);
    let mut models = agent().get(served.url("/v1/models")).call().unwrap();
    assert_eq!(models.status().as_u16(), 200);
    let models: Value = serde_json::from_str(&models.body_mut().read_to_string().unwrap()).unwrap();
    assert_eq!(models["object"], "list");
    served.wait_for_line("GET /v1/models 200 passthrough");
}

#[test]
fn a_plain_stream_is_relayed_chunk_by_chunk_as_it_arrives() {
    let emulator = Emulator::start(Profile::llama_server());
    emulator.token_delay(Duration::from_millis(30));
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    let body = json!({"stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let response = agent()
        .post(served.url("/v1/chat/completions"))
        .content_type("application/json")
        .send(body.to_string().as_bytes())
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(
        response.headers().get("content-type").unwrap(),
        "text/event-stream"
    );
    let mut reader = BufReader::new(response.into_body().into_reader());
    let mut first_content = None;
    let mut all = String::new();
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap() > 0 {
        if first_content.is_none() && line.contains("\"content\":\"") {
            // The upstream is still generating when the first token reaches the client.
            first_content = Some(emulator.streams().len());
        }
        all.push_str(&line);
        line.clear();
    }
    assert_eq!(
        first_content,
        Some(0),
        "the first token came before the stream ended"
    );
    let streams = emulator.wait_for_streams(1);
    assert!(streams[0].completed);
    let events = events(&all);
    assert_eq!(events.last().unwrap(), "[DONE]");
    assert!(events.len() > 10, "one event per token: {}", events.len());
}

#[test]
fn the_proxy_key_is_asked_for_when_one_is_set() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = slm_for(&emulator, "llamacpp");
    slm.env("PROXY_KEY", "proxy-secret-1");
    let served = Served::start(&slm, &["--key-env", "PROXY_KEY"]);
    // The probe at start-up asked its own questions.
    let probed = emulator.chat_count();
    let body = json!({"messages": [{"role": "user", "content": "hi"}]});
    let url = served.url("/v1/chat/completions");
    let (status, _, text) = post(&url, &body, None);
    assert_eq!(status, 401, "{text}");
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"]["code"], "invalid_api_key");
    assert_eq!(post(&url, &body, Some("proxy-secret-2")).0, 401);
    assert_eq!(post(&url, &body, Some("proxy-secret-1")).0, 200);
    assert_eq!(
        emulator.chat_count(),
        probed + 1,
        "refused requests never reach the engine"
    );
    let received = emulator.requests().pop().unwrap();
    assert_eq!(
        received.header("authorization"),
        None,
        "the proxy key stays here"
    );
    served.wait_for_line("401 refused class=invalid_api_key");
    assert!(!served.lines().join("\n").contains("proxy-secret"));

    // A named variable that is not set is an error, not an open proxy.
    let run = slm.run(
        [
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--key-env",
            "NOT_SET_ANYWHERE",
        ],
        "",
    );
    run.code(1);
    assert!(run.stderr.contains("NOT_SET_ANYWHERE"), "{}", run.stderr);
}

#[test]
fn requests_the_proxy_cannot_take_are_refused_in_openai_shape() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    let probed = emulator.chat_count();
    let url = served.url("/v1/chat/completions");
    let send_raw = |body: &str| {
        let mut response = agent()
            .post(&url)
            .content_type("application/json")
            .send(body.as_bytes())
            .unwrap();
        (
            response.status().as_u16(),
            response.body_mut().read_to_string().unwrap(),
        )
    };
    let (status, text) = send_raw("{not json");
    assert_eq!(status, 400);
    assert!(text.contains("not JSON"), "{text}");
    let bad_schema = json!({"messages": [{"role": "user", "content": "x"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": 12}}}});
    let (status, _, text) = post(&url, &bad_schema, None);
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("invalid_request"), "{text}");
    let unknown = json!({"messages": [], "response_format": {"type": "yaml"}});
    assert_eq!(post(&url, &unknown, None).0, 400);
    let image = json!({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}],
        "response_format": {"type": "json_object"}});
    assert_eq!(post(&url, &image, None).0, 400);
    assert_eq!(post(&served.url("/v1/embeddings"), &json!({}), None).0, 404);
    let get = agent().get(&url).call().unwrap();
    assert_eq!(get.status().as_u16(), 405);
    assert_eq!(emulator.chat_count(), probed);
    served.wait_for_line("POST /v1/embeddings 404 refused class=not_found");
}

#[test]
fn an_upstream_that_fails_is_a_502_for_a_relayed_request_and_its_status_for_an_error() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    emulator.faults([crate::emulator::Fault::Status(
        400,
        json!({"error": {"message": "bad field"}}).to_string(),
        None,
    )]);
    let body = json!({"messages": [{"role": "user", "content": "hi"}]});
    let (status, _, text) = post(&served.url("/v1/chat/completions"), &body, None);
    assert_eq!(status, 400, "the upstream's own error, relayed");
    assert!(text.contains("bad field"));
    drop(emulator);
    let (status, _, text) = post(&served.url("/v1/chat/completions"), &body, None);
    assert_eq!(status, 502, "{text}");
    let (status, _, text) = post(
        &served.url("/v1/chat/completions"),
        &structured_body(false),
        None,
    );
    assert_eq!(status, 502, "{text}");
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"]["type"], "upstream_error");
}

#[test]
fn sigterm_and_sigint_stop_it_cleanly_and_remove_the_state_file() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let served = Served::start(&slm, &[]);
        let state = slm.config_dir().join("serve.json");
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
        assert_eq!(written["address"], served.address.as_str());
        assert_eq!(written["pid"], served.child.id());
        let (code, lines) = served.stop(signal);
        assert_eq!(code, 0, "{lines:?}");
        assert!(
            lines
                .iter()
                .any(|line| line.contains("stopped after 0 requests")),
            "{lines:?}"
        );
        assert!(!state.exists(), "the state file goes with the proxy");
    }
}

#[test]
fn a_stop_lets_the_request_in_flight_finish() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &["--json"]);
    emulator.always_delay(Duration::from_millis(1500));
    let before = emulator.requests().len();
    let url = served.url("/v1/chat/completions");
    let body = json!({"messages": [{"role": "user", "content": "hi"}]});
    let in_flight = std::thread::spawn(move || post(&url, &body, None).0);
    for _ in 0..500 {
        if emulator.requests().len() > before {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let (code, lines) = served.stop(libc::SIGTERM);
    assert_eq!(
        in_flight.join().unwrap(),
        200,
        "answered before the proxy stopped"
    );
    assert_eq!(code, 0, "{lines:?}");
    // --json: one JSON object per request on stderr.
    let record: Value = lines
        .iter()
        .find_map(|line| serde_json::from_str(line).ok())
        .expect("a JSON log line");
    assert_eq!(record["kind"], "passthrough");
    assert_eq!(record["status"], 200);
    assert!(record["duration_ms"].is_u64(), "{record}");
}

#[test]
fn status_shows_a_running_proxys_counters_and_calls_a_dead_one_stale() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = slm_for(&emulator, "llamacpp");
    let served = Served::start(&slm, &[]);
    let body = json!({"messages": [{"role": "user", "content": "hi"}]});
    post(&served.url("/v1/chat/completions"), &body, None);
    post(
        &served.url("/v1/chat/completions"),
        &structured_body(false),
        None,
    );
    let run = slm.run(["status", "--json"], "");
    run.code(0);
    let report = run.json();
    let proxy = &report["proxy"];
    assert_eq!(proxy["state"], "running", "{report}");
    assert_eq!(proxy["address"], served.address.as_str());
    assert_eq!(proxy["counters"]["passthrough"], 1);
    assert_eq!(proxy["counters"]["structured"], 1);
    assert_eq!(proxy["counters"]["succeeded"], 1);
    let run = slm.run(["status", "--offline"], "");
    assert!(
        run.stdout.contains("not asked (--offline)"),
        "--offline asks nothing: {}",
        run.stdout
    );
    let run = slm.run(["status", "--json", "--offline"], "");
    assert_eq!(run.json()["proxy"]["state"], "not_checked");
    assert_eq!(run.json()["proxy"]["counters"], Value::Null);
    let run = slm.run(["status"], "");
    assert!(
        run.stdout
            .contains(&format!("proxy:      running on {}", served.address)),
        "{}",
        run.stdout
    );

    // Killed without a chance to clean up: the file stays, nothing answers there.
    let (code, _) = served.stop(libc::SIGKILL);
    assert_ne!(code, 0);
    assert!(slm.config_dir().join("serve.json").exists());
    let run = slm.run(["status", "--json"], "");
    run.code(0);
    assert_eq!(run.json()["proxy"]["state"], "stale");
    assert_eq!(run.json()["proxy"]["counters"], Value::Null);
    let run = slm.run(["status"], "");
    assert!(run.stdout.contains("proxy:      stale"), "{}", run.stdout);

    // No proxy ever started: null, and a line that says so.
    let fresh = slm_for(&emulator, "llamacpp");
    let run = fresh.run(["status", "--json", "--offline"], "");
    assert_eq!(run.json()["proxy"], Value::Null);
}

#[test]
fn an_upstream_that_echoes_its_key_never_shows_it_to_the_client() {
    let emulator = Emulator::start(Profile::llama_server());
    emulator.echo_key();
    let mut slm = slm_for(&emulator, "llamacpp");
    slm.env("SLMCODE_API_KEY_ENV", "UPSTREAM_KEY")
        .env("UPSTREAM_KEY", "sk-upstream-secret");
    let served = Served::start(&slm, &[]);
    let plain = json!({"messages": [{"role": "user", "content": "hi"}]});
    let (status, _, text) = post(&served.url("/v1/chat/completions"), &plain, None);
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(answer["model"], "<redacted>", "{text}");
    // Streamed: the emulator cuts the key between two pieces of the first chunk.
    let streamed = json!({"stream": true, "messages": [{"role": "user", "content": "hi"}]});
    let (status, _, text) = post(&served.url("/v1/chat/completions"), &streamed, None);
    assert_eq!(status, 200, "{text}");
    assert!(!text.contains("sk-upstream"), "{text}");
    let events = events(&text);
    assert_eq!(events.last().unwrap(), "[DONE]");
    for event in &events[..events.len() - 1] {
        let chunk: Value = serde_json::from_str(event).unwrap();
        assert_eq!(chunk["model"], "<redacted>", "{event}");
    }
    let mut models = agent().get(served.url("/v1/models")).call().unwrap();
    let text = models.body_mut().read_to_string().unwrap();
    assert!(!text.contains("sk-upstream"), "{text}");
    assert!(text.contains("\"id\":\"<redacted>\""), "{text}");
}

#[test]
fn a_relayed_request_past_the_call_deadline_says_so_not_that_the_server_was_idle() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = slm_for(&emulator, "llamacpp");
    slm.env("SLMCODE_TIMEOUT_S", "30")
        .env("SLMCODE_CALL_TIMEOUT_S", "1");
    let served = Served::start(&slm, &[]);
    emulator.always_delay(Duration::from_secs(3));
    let body = json!({"messages": [{"role": "user", "content": "hi"}]});
    let (status, _, text) = post(&served.url("/v1/chat/completions"), &body, None);
    assert_eq!(status, 502, "{text}");
    let error: Value = serde_json::from_str(&text).unwrap();
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("deadline passed"), "{message}");
    assert_eq!(error["error"]["class"], "canceled");
    emulator.always_delay(Duration::ZERO);
}
