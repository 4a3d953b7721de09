//! Servers that are not there yet, or not at all: a refused connection fails fast
//! with the hint to start the server, a server that is loading its model (503) is waited for
//! and demotes nothing, and a probe that got no answer is not paid again by the next run.

use serde_json::{Value, json};

use crate::emulator::{Emulator, Profile, RefusingPort};
use crate::util::Slm;

fn scope_json() -> Vec<&'static str> {
    vec![
        "generate",
        "--schema",
        "scope_judge",
        "--prompt",
        "Is adding a README in scope of the task?",
        "--json",
    ]
}

#[test]
fn a_refused_connection_fails_fast_with_the_hint_to_start_the_server() {
    // Held dead for the whole test: no parallel test can take the port.
    let dead = RefusingPort::new();
    let endpoint = format!("http://127.0.0.1:{}/v1", dead.port());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &endpoint);
    for _ in 0..2 {
        let run = slm.run(scope_json(), "");
        run.code(6);
        let json = run.json();
        assert_eq!(json["error"]["kind"], "endpoint");
        // The grace's attempts at most (a poll every 250 ms for 2 s), never a deadline's worth.
        let requests = json["meta"]["requests"].as_u64().unwrap();
        assert!((1..=9).contains(&requests), "{json}");
        assert!(
            run.stderr.contains(&format!(
                "hint: nothing listens at {endpoint}: start the server"
            )),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn a_server_that_finishes_loading_during_the_run_is_waited_for_and_nothing_is_demoted() {
    let emulator = Emulator::start(Profile::loading_llama_server());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let run = std::thread::scope(|threads| {
        threads.spawn(|| {
            // 503 Loading model for a while, then the model is in memory.
            std::thread::sleep(std::time::Duration::from_millis(1500));
            emulator.set_profile(Profile::llama_server());
        });
        slm.run(scope_json(), "")
    });
    run.code(0);
    let json = run.json();
    assert_ne!(json["meta"]["mechanism"], "prompt_only", "{json}");
    assert_eq!(json["meta"]["demotions"], json!([]));
    let cache: Value =
        serde_json::from_slice(&std::fs::read(slm.config_dir().join("capabilities.json")).unwrap())
            .unwrap();
    let entry = &cache["entries"][0];
    assert_eq!(entry["probed"], true, "{entry}");
    assert_eq!(entry["mechanism"], "json_schema", "{entry}");
    assert_eq!(entry["demotions"], json!([]));
    assert!(entry.get("failed_probe").is_none(), "{entry}");
}

#[test]
fn a_server_still_loading_at_the_deadline_is_not_probed_again_by_the_next_run() {
    let emulator = Emulator::start(Profile::loading_llama_server());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url())
        .env("SLMCODE_PROBE_TIMEOUT_S", "2");
    let first = slm.run(["probe", "--json"], "");
    first.code(6);
    assert_eq!(first.json()["source"], "probe");
    let sent = emulator.chat_count();
    assert!(sent > 0);
    // The next runs within the lifetime pay nothing: no request reaches the server.
    for _ in 0..2 {
        let run = slm.run(["probe", "--json"], "");
        run.code(6);
        assert_eq!(run.json()["mechanism"], "prompt_only");
    }
    assert_eq!(emulator.chat_count(), sent);
    // doctor always probes afresh: the server has finished loading, and it finds that out.
    emulator.set_profile(Profile::llama_server());
    let doctor = slm.run(["doctor", "--json"], "");
    doctor.code(0);
    assert_eq!(doctor.json()["connection"]["mechanism"], "json_schema");
    assert!(emulator.chat_count() > sent);
    // Its success replaced the failure: probe now answers from the cache.
    assert_eq!(
        slm.run(["probe", "--json"], "").code(0).json()["source"],
        "cache"
    );
}
