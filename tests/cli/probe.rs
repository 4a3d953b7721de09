//! `slmcode probe`: the capability matrix, the cache shared by concurrent processes, and no key
//! anywhere a user (or another program) can read it.

use std::process::Stdio;

use serde_json::Value;

use crate::emulator::{Emulator, Fault, Profile, RefusingPort};
use crate::util::Slm;

fn outcome(json: &Value, form: &str) -> String {
    json["forms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["form"] == form)
        .unwrap()["outcome"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn vllm_matrix_tells_new_and_legacy_guided_fields_apart() {
    let emulator = Emulator::start(Profile::vllm());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "vllm")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let json = slm.run(["probe", "--json"], "").code(0).json();
    assert_eq!(json["mechanism"], "json_schema");
    assert_eq!(json["source"], "probe");
    assert_eq!(json["reachable"], true);
    assert_eq!(outcome(&json, "structured_outputs"), "supported");
    assert_eq!(outcome(&json, "guided_json"), "not_enforced");
    assert_eq!(outcome(&json, "grammar"), "untested");
    assert_eq!(json["fingerprint"]["server"], "vllm 0.12.0");
    let human = slm.run(["probe"], "");
    human.code(0);
    assert!(human.stdout.starts_with("FORM "), "{}", human.stdout);
    assert!(
        human
            .stdout
            .contains("selected: json_schema (strict), from cache"),
        "{}",
        human.stdout
    );
}

#[test]
fn refresh_probes_again_and_the_cache_otherwise_answers() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    slm.run(["probe"], "").code(0);
    let once = emulator.chat_count();
    assert_eq!(once, 5);
    assert_eq!(
        slm.run(["probe", "--json"], "").code(0).json()["source"],
        "cache"
    );
    assert_eq!(emulator.chat_count(), once);
    assert_eq!(
        slm.run(["probe", "--json", "--refresh"], "").code(0).json()["source"],
        "probe"
    );
    assert_eq!(emulator.chat_count(), 2 * once);
}

#[test]
fn a_probe_that_missed_stronger_forms_says_so_and_is_not_kept_for_good() {
    // A busy server: the json_schema forms wait behind the others past the probe's deadline.
    let emulator = Emulator::start(Profile::llama_server());
    emulator.delay_json_schema(Some(std::time::Duration::from_secs(5)));
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url())
        .env("SLMCODE_PROBE_TIMEOUT_S", "2");
    let run = slm.run(["probe", "--json"], "");
    let json = run.code(0).json();
    assert_eq!(json["mechanism"], "gbnf_grammar", "{json}");
    let reason = json["reason"].as_str().unwrap();
    assert!(
        reason
            .contains("no answer in time for json_schema_strict, json_schema; probed again after"),
        "{reason}"
    );
    assert!(
        run.stderr
            .contains("the probe got no answer in time for json_schema_strict, json_schema"),
        "{}",
        run.stderr
    );
    // The cache says so too, and the next run within the lifetime reads it.
    let cache: Value = serde_json::from_str(
        &std::fs::read_to_string(slm.config_dir().join("capabilities.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        cache["entries"][0]["incomplete_probe"]["unanswered"],
        serde_json::json!(["json_schema_strict", "json_schema"]),
        "{cache}"
    );
    emulator.delay_json_schema(None);
    let cached = slm.run(["probe", "--json"], "").code(0).json();
    assert_eq!(cached["source"], "cache");
    assert_eq!(cached["mechanism"], "gbnf_grammar");
    let fresh = slm.run(["probe", "--json", "--refresh"], "").code(0).json();
    assert_eq!(fresh["mechanism"], "json_schema", "{fresh}");
    assert!(
        !fresh["reason"]
            .as_str()
            .unwrap()
            .contains("no answer in time")
    );
}

#[test]
fn a_dead_endpoint_exits_6_and_degrades_to_prompt_only() {
    // Held dead for the whole test: no parallel test can take the port.
    let dead = RefusingPort::new();
    let port = dead.port();
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &format!("http://127.0.0.1:{port}/v1"))
        .env("SLMCODE_PROBE_TIMEOUT_S", "2");
    let run = slm.run(["probe", "--json"], "");
    run.code(6);
    let json = run.json();
    assert_eq!(json["mechanism"], "prompt_only");
    assert_eq!(json["reachable"], false);
    assert!(
        run.stderr
            .contains("error: the endpoint did not answer the probe"),
        "{}",
        run.stderr
    );
    // Refused: nobody listens, and the hint says to start the server.
    assert!(
        run.stderr.contains(&format!(
            "hint: nothing listens at http://127.0.0.1:{port}/v1: start the server"
        )),
        "{}",
        run.stderr
    );
    // The failure is remembered for a minute: the next run does not probe, and says so.
    let cache: serde_json::Value =
        serde_json::from_slice(&std::fs::read(slm.config_dir().join("capabilities.json")).unwrap())
            .unwrap();
    let entry = &cache["entries"][0];
    assert_eq!(entry["probed"], false);
    assert_eq!(entry["failed_probe"]["refused"], true);
    let again = slm.run(["probe", "--json"], "");
    again.code(6);
    assert_eq!(again.json()["source"], "cache");
    assert!(
        again.stderr.contains("not probed again until"),
        "{}",
        again.stderr
    );
    // --refresh probes afresh.
    let refreshed = slm.run(["probe", "--json", "--refresh"], "");
    refreshed.code(6);
    assert_eq!(refreshed.json()["source"], "probe");
}

#[test]
fn eight_concurrent_processes_share_the_cache_without_losing_an_entry() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let children: Vec<_> = (0..8)
        .map(|index| {
            slm.command(["probe", "--json", "--model", &format!("model-{index}")])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            output.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let text = std::fs::read_to_string(slm.config_dir().join("capabilities.json")).unwrap();
    let file: Value = serde_json::from_str(&text).unwrap();
    let mut models: Vec<&str> = file["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| {
            assert_eq!(entry["mechanism"], "json_schema");
            assert_eq!(entry["probed"], true);
            entry["model"].as_str().unwrap()
        })
        .collect();
    models.sort();
    let expected: Vec<String> = (0..8).map(|index| format!("model-{index}")).collect();
    assert_eq!(models, expected);
    // No stray temp files next to it.
    let leftovers: Vec<_> = std::fs::read_dir(slm.config_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_corrupt_cache_is_reported_and_replaced() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    std::fs::write(
        slm.config_dir().join("capabilities.json"),
        "{\"version\": 1, \"entries\": [",
    )
    .unwrap();
    let run = slm.run(["probe"], "");
    run.code(0);
    assert!(
        run.stderr.contains("warning: capabilities cache"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("is corrupt"), "{}", run.stderr);
    assert_eq!(run.stderr.matches("warning:").count(), 1, "{}", run.stderr);
    let again = slm.run(["probe"], "");
    again.code(0);
    assert_eq!(again.stderr, "");
}

#[test]
fn a_cache_from_a_newer_slmcode_is_kept_and_named_once() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let path = slm.config_dir().join("capabilities.json");
    let newer = "{\"version\": 99, \"entries\": [{\"shape\": \"unknown here\"}]}\n";
    std::fs::write(&path, newer).unwrap();
    let warning = format!(
        "warning: capabilities cache {} was written by a newer slmcode (format version 99; this \
         build reads 1): it is kept as it is, and nothing is cached\n",
        path.display()
    );
    for args in [
        vec!["probe", "--json"],
        vec!["probe", "--json"],
        vec!["status", "--json"],
    ] {
        let run = slm.run(&args, "");
        run.code(0);
        assert_eq!(run.stderr, warning, "{args:?}");
        if args[0] == "probe" {
            // Nothing was cached, so every run probes.
            assert_eq!(run.json()["source"], "probe");
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), newer, "{args:?}");
    }
    assert!(!slm.config_dir().join("capabilities.json.lock").exists());
}

#[test]
fn a_demotion_is_not_written_over_a_cache_from_a_newer_slmcode() {
    let emulator = Emulator::start(Profile::no_strict());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "openai-compatible")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let path = slm.config_dir().join("capabilities.json");
    let newer = "{\"version\": 2, \"entries\": []}\n";
    std::fs::write(&path, newer).unwrap();
    let run = slm.run(
        [
            "generate",
            "--schema",
            "scope_judge",
            "--prompt",
            "Is a README in scope?",
            "--mechanism",
            "json_schema",
        ],
        "",
    );
    run.code(0);
    assert_eq!(
        run.stderr,
        format!(
            "warning: capabilities cache {} was written by a newer slmcode (format version 2; \
             this build reads 1): it is kept as it is, and nothing is cached\ndegraded (demoted): \
             answered under json_schema, demoted json_schema_strict (HTTP 400), repair rung none, \
             1 attempt\n",
            path.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), newer);
}

const FAKE_KEY: &str = "sk-test-SCANME-7f3a9c1e5b";

#[test]
fn the_key_is_sent_in_the_header_and_appears_nowhere_else() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url())
        .env("LLAMA_API_KEY", FAKE_KEY);
    let mut seen = String::new();
    for args in [
        vec!["doctor"],
        vec!["doctor", "--json"],
        vec!["probe", "--json", "--refresh"],
        vec!["probe"],
        vec!["status", "--json"],
        vec!["status"],
    ] {
        let run = slm.run(&args, "");
        run.code(0);
        seen.push_str(&run.stdout);
        seen.push_str(&run.stderr);
    }
    // A server that echoes the key back in its errors.
    let echo = format!("{{\"error\": \"invalid api key {FAKE_KEY}\"}}");
    emulator.faults(vec![Fault::Status(401, echo, None); 40]);
    for args in [
        vec!["probe", "--json", "--refresh"],
        vec!["doctor", "--refresh"],
    ] {
        let run = slm.run(&args, "");
        seen.push_str(&run.stdout);
        seen.push_str(&run.stderr);
    }
    assert!(
        seen.contains("<redacted>"),
        "the echoed key was never shown at all: {seen}"
    );
    assert!(
        !seen.contains(FAKE_KEY),
        "the key leaked into output:\n{seen}"
    );
    for entry in std::fs::read_dir(slm.config_dir()).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(FAKE_KEY),
            "the key is in {}",
            path.display()
        );
    }
    let sent = emulator.requests();
    assert!(
        sent.iter()
            .any(|request| request.header("authorization") == Some(&format!("Bearer {FAKE_KEY}")))
    );
}

#[test]
fn https_to_a_plain_http_port_fails_at_once_and_says_so() {
    let emulator = Emulator::start(Profile::llama_server());
    let endpoint = emulator.base_url().replacen("http://", "https://", 1);
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &endpoint)
        // Before TLS failures were permanent, the probe retried them until its deadline.
        .env("SLMCODE_PROBE_TIMEOUT_S", "3");
    let fix = format!(
        "hint: if the server speaks plain HTTP (local engines do by default), write the endpoint \
         with http://: `slmcode config set endpoint {}`\n",
        emulator.base_url()
    );
    let run = slm.run(["probe"], "");
    run.code(6);
    assert_eq!(
        run.stderr,
        format!(
            "error: the endpoint did not answer the probe: permanent error: TLS failed: the \
             server on that port does not speak TLS (a plain-HTTP server?)\n{fix}"
        )
    );
    let generate = slm.run(
        [
            "generate",
            "--schema",
            "scope_judge",
            "--prompt",
            "In scope?",
            "--json",
        ],
        "",
    );
    generate.code(6);
    let json = generate.json();
    assert_eq!(json["error"]["class"], "permanent");
    assert_eq!(json["meta"]["retry_count"], 0);
    assert!(generate.stderr.ends_with(&fix), "{}", generate.stderr);
    let doctor = slm.run(["doctor"], "");
    doctor.code(6);
    assert!(
        doctor
            .stdout
            .contains("reachable     FAIL    permanent error: TLS failed: the server on that port does not speak TLS"),
        "{}",
        doctor.stdout
    );
    assert!(
        doctor.stderr.contains(&format!(
            "reachable: if the server speaks plain HTTP (local engines do by default), write the \
             endpoint with http://: `slmcode config set endpoint {}`",
            emulator.base_url()
        )),
        "{}",
        doctor.stderr
    );
    // Nothing but TLS handshakes reached the server: no request was ever read as one.
    assert!(emulator.requests().is_empty());
}

#[test]
fn a_self_signed_certificate_is_not_trusted_and_says_so() {
    let Some(server) = crate::tls_server::SelfSignedServer::start() else {
        crate::skip::skip(
            "a_self_signed_certificate_is_not_trusted_and_says_so",
            "there is no `openssl` command to make a self-signed certificate with",
        );
        return;
    };
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &server.base_url())
        .env("SLMCODE_PROBE_TIMEOUT_S", "3");
    let run = slm.run(["probe"], "");
    run.code(6);
    assert_eq!(
        run.stderr,
        "error: the endpoint did not answer the probe: permanent error: TLS failed: the server's \
         certificate is not trusted (self-signed, or issued by an authority slmcode does not \
         know)\nhint: slmcode trusts only the public certificate authorities built into it \
         (Mozilla's list), not the system's certificate store: give the server a certificate \
         from one of them, or reach a server on this machine over http://\n"
    );
    let json = slm
        .run(
            [
                "generate",
                "--schema",
                "scope_judge",
                "--prompt",
                "In scope?",
                "--json",
            ],
            "",
        )
        .code(6)
        .json();
    assert_eq!(json["error"]["class"], "permanent");
    assert_eq!(json["meta"]["retry_count"], 0);
    assert!(
        !json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("OtherError"),
        "{json:#}"
    );
}
