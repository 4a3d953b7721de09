//! `slmcode doctor` against the engine emulator: what it selects, what it says, how it exits.

use serde_json::{Value, json};

use crate::emulator::{Emulator, Fault, Profile, RefusingPort};
use crate::util::{Run, Slm};

fn doctor(slm: &Slm, extra: &[&str]) -> Run {
    let mut args = vec!["doctor"];
    args.extend_from_slice(extra);
    slm.run(args, "")
}

fn check<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["name"] == name)
        .unwrap_or_else(|| panic!("no {name} check in {json:#}"))
}

fn form<'a>(json: &'a Value, name: &str) -> &'a Value {
    json["forms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["form"] == name)
        .unwrap()
}

#[test]
fn llama_server_gets_strict_json_schema_and_a_truthful_matrix() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let run = doctor(&slm, &[]);
    run.code(0);
    assert!(
        run.stdout
            .contains("json_schema_strict  supported  accepted and enforced"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("server: llama.cpp b6500-emulated, n_ctx 4096"),
        "{}",
        run.stdout
    );

    let json = doctor(&slm, &["--json"]).code(0).json();
    assert_eq!(json["ok"], true);
    assert_eq!(json["connection"]["mechanism"], "json_schema");
    assert_eq!(json["connection"]["strict"], true);
    assert_eq!(json["connection"]["probed"], true);
    // The second run used the cache written by the first.
    assert_eq!(json["connection"]["source"], "cache");
    assert_eq!(form(&json, "grammar")["outcome"], "supported");
    assert_eq!(form(&json, "guided_json")["outcome"], "untested");
    assert_eq!(check(&json, "reachable")["status"], "ok");
    assert!(
        json["cache_path"]
            .as_str()
            .unwrap()
            .ends_with("capabilities.json")
    );
    assert_eq!(json["fingerprint"]["server"], "llama.cpp b6500-emulated");
}

#[test]
fn the_generic_provider_in_front_of_llama_server_is_recognised_and_doctor_says_from_what() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = Slm::new();
    // The default provider, openai-compatible.
    slm.env("SLMCODE_ENDPOINT", &emulator.base_url());
    let run = doctor(&slm, &[]);
    run.code(0);
    assert!(
        run.stdout.contains(
            "engine        ok      llamacpp, recognised by the server's fingerprint: llama.cpp b6500-emulated (GET /props); the derived grammar goes before json_schema"
        ),
        "{}",
        run.stdout
    );
    let json = doctor(&slm, &["--json"]).code(0).json();
    assert_eq!(json["connection"]["provider"], "openai-compatible");
    assert_eq!(
        json["connection"]["engine"],
        json!({"provider": "llamacpp", "source": "fingerprint",
            "evidence": "llama.cpp b6500-emulated (GET /props)"})
    );
    assert_eq!(check(&json, "engine")["status"], "ok");
    // status shows it from the cache, without probing.
    let status = slm.run(["status", "--offline"], "");
    status.code(0);
    assert!(
        status.stdout.contains(
            "provider:   openai-compatible\nengine:     llamacpp, recognised by the server's fingerprint: llama.cpp b6500-emulated (GET /props)\n"
        ),
        "{}",
        status.stdout
    );

    // A provider the user named stands, and says so; the grammar note follows the setting.
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_GRAMMAR_WHITESPACE", "pretty");
    let json = doctor(&slm, &["--json"]).code(0).json();
    assert_eq!(
        json["connection"]["engine"],
        json!({"provider": "llamacpp", "source": "setting", "evidence": null})
    );
    assert_eq!(
        check(&json, "engine")["detail"],
        "llamacpp (the provider setting); a schema with a number or a format, and any but a contract's that derives, go to the derived grammar before json_schema"
    );

    // A server that names no engine: openai-compatible, and doctor says what it heard.
    let emulator = Emulator::start(Profile::vllm());
    let mut slm = Slm::new();
    slm.env("SLMCODE_ENDPOINT", &emulator.base_url());
    let json = doctor(&slm, &["--json"]).code(0).json();
    assert_eq!(
        json["connection"]["engine"]["provider"],
        "openai-compatible"
    );
    assert_eq!(
        check(&json, "engine")["detail"],
        "openai-compatible: the server says vllm 0.12.0, which names no engine slmcode follows; nothing engine-specific is assumed"
    );
}

#[test]
fn a_refused_key_or_request_fails_with_what_to_do() {
    let unauthorized =
        r#"{"error": {"message": "Invalid API Key", "type": "authentication_error"}}"#;
    let emulator = Emulator::start(Profile::llama_server());
    emulator.faults((0..20).map(|_| Fault::Status(401, unauthorized.to_owned(), None)));
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url())
        .env("SLMCODE_API_KEY", "sk-wrong-key");
    let json = doctor(&slm, &["--json"]).code(1).json();
    assert_eq!(json["ok"], false);
    assert_eq!(check(&json, "api_key")["status"], "fail");
    assert_eq!(
        check(&json, "api_key")["detail"],
        "the server refused the key: HTTP 401 to a plain chat request"
    );
    assert_eq!(
        check(&json, "api_key")["remedy"],
        "the server refused the key: check it (`slmcode config list` shows where it comes from)"
    );
    let probe = slm.run(["probe"], "");
    probe.code(6);
    assert!(
        probe.stderr.starts_with(
            "error: the server refused a plain chat request: permanent error: HTTP 401"
        ),
        "{}",
        probe.stderr
    );

    // A model the server does not have: the request is refused, not the key.
    let not_found =
        r#"{"error": {"message": "model 'qwen' not found", "type": "not_found_error"}}"#;
    let emulator = Emulator::start(Profile::llama_server());
    emulator.faults((0..10).map(|_| Fault::Status(404, not_found.to_owned(), None)));
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let run = doctor(&slm, &[]);
    run.code(6);
    assert!(
        run.stdout.contains(
            "answer        FAIL    the server refused a plain chat request: permanent error: HTTP 404"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(&format!(
            "answer: check the model (`slmcode config set model NAME`) and the endpoint ({}); then `slmcode probe --refresh`",
            emulator.base_url()
        )),
        "{}",
        run.stderr
    );
}

#[test]
fn a_dead_port_fails_with_the_endpoint_exit_code_and_a_remedy() {
    // Held dead for the whole test: no parallel test can take the port.
    let dead = RefusingPort::new();
    let port = dead.port();
    let mut slm = Slm::new();
    let endpoint = format!("http://127.0.0.1:{port}/v1");
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &endpoint);
    let run = doctor(&slm, &[]);
    run.code(6);
    assert!(run.stdout.contains("reachable     FAIL"), "{}", run.stdout);
    assert!(
        run.stderr.contains(&format!(
            "reachable: nothing listens at {endpoint}: start the server"
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("doctor: a check failed"),
        "{}",
        run.stderr
    );
    let json = doctor(&slm, &["--json"]).code(6).json();
    assert_eq!(json["ok"], false);
    assert_eq!(json["connection"]["reachable"], false);
    assert_eq!(json["connection"]["mechanism"], "prompt_only");
}

#[test]
fn structured_decoding_off_is_reported_and_nothing_is_probed() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url())
        .env("SLMCODE_STRUCTURED_DECODING", "prompt-only");
    let json = doctor(&slm, &["--json"]).code(0).json();
    assert_eq!(json["connection"]["source"], "forced_off");
    assert_eq!(json["connection"]["mechanism"], "prompt_only");
    assert_eq!(check(&json, "mechanism")["status"], "warn");
    assert!(
        check(&json, "mechanism")["remedy"]
            .as_str()
            .unwrap()
            .contains("structured_decoding auto")
    );
    assert_eq!(emulator.chat_count(), 0);
}

#[test]
fn no_probe_uses_the_prior_and_sends_no_chat_request() {
    let emulator = Emulator::start(Profile::vllm());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "vllm")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let json = doctor(&slm, &["--json", "--no-probe"]).code(0).json();
    assert_eq!(json["connection"]["source"], "prior");
    assert_eq!(json["connection"]["probed"], false);
    assert_eq!(json["connection"]["mechanism"], "json_schema");
    assert_eq!(check(&json, "mechanism")["status"], "warn");
    assert_eq!(emulator.chat_count(), 0);
}

#[test]
fn a_bare_endpoint_is_normalised_and_doctor_says_so() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.root_url());
    let json = doctor(&slm, &["--json"]).code(0).json();
    let endpoint = check(&json, "endpoint");
    assert_eq!(endpoint["status"], "warn");
    assert_eq!(
        endpoint["detail"],
        format!(
            "{} (env SLMCODE_ENDPOINT; normalised from {})",
            emulator.base_url(),
            emulator.root_url()
        )
    );
    assert_eq!(json["connection"]["endpoint"], emulator.base_url());
}

#[test]
fn a_hosted_provider_without_a_key_fails_with_what_to_export() {
    let emulator = Emulator::start(Profile::openai());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "openai")
        .env("SLMCODE_ENDPOINT", &emulator.base_url())
        .env("SLMCODE_MODEL", "gpt-4o-mini");
    let run = doctor(&slm, &[]);
    run.code(1);
    assert!(
        run.stderr.contains("api_key: export OPENAI_API_KEY=..."),
        "{}",
        run.stderr
    );
}

#[test]
fn a_missing_or_unserved_model_fails_and_lists_what_is_served() {
    let emulator = Emulator::start(Profile::ollama());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "ollama")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let json = doctor(&slm, &["--json"]).code(1).json();
    assert_eq!(check(&json, "model")["status"], "fail");
    assert!(
        check(&json, "model")["remedy"]
            .as_str()
            .unwrap()
            .ends_with("the server serves: qwen3:4b")
    );

    slm.env("SLMCODE_MODEL", "llama3");
    let json = doctor(&slm, &["--json"]).code(1).json();
    assert_eq!(check(&json, "model_served")["status"], "fail");
    slm.env("SLMCODE_MODEL", "qwen3:4b");
    let json = doctor(&slm, &["--json"]).code(0).json();
    assert_eq!(check(&json, "model_served")["status"], "ok");
    assert_eq!(
        json["fingerprint"]["capabilities"],
        serde_json::json!(["completion", "tools"])
    );
}

#[test]
fn a_server_that_lies_about_enforcing_is_prompt_only_with_a_warning() {
    let emulator = Emulator::start(Profile::liar());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "openai-compatible")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let json = doctor(&slm, &["--json"]).code(0).json();
    assert_eq!(json["connection"]["mechanism"], "prompt_only");
    assert_eq!(json["connection"]["probed"], true);
    assert_eq!(check(&json, "mechanism")["status"], "warn");
    for row in json["forms"].as_array().unwrap() {
        assert_eq!(row["outcome"], "not_enforced", "{row}");
    }
}

#[test]
fn request_time_demotions_are_shown_with_status_and_body() {
    let emulator = Emulator::start(Profile::llama_server());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    doctor(&slm, &[]).code(0);
    // Demote strict json_schema in the cache the way the call path will (library API).
    let cache = slmcode::backends::CapabilityCache::in_dir(&slm.config_dir());
    let entry = cache.read().entries.pop().unwrap();
    cache
        .record_demotion(
            &entry.key(),
            slmcode::backends::Demotion::now(
                slmcode::backends::WireForm::JsonSchemaStrict,
                Some(400),
                "strict refused",
            ),
            &entry.capabilities(),
        )
        .unwrap();
    let json = doctor(&slm, &["--json"]).code(0).json();
    assert_eq!(json["connection"]["strict"], false);
    assert_eq!(
        json["connection"]["demotions"][0]["form"],
        "json_schema_strict"
    );
    assert_eq!(json["connection"]["demotions"][0]["status"], 400);
    assert_eq!(check(&json, "demotion")["status"], "warn");
    assert_eq!(form(&json, "json_schema_strict")["demoted"], true);
    // With every enforced form demoted, the reason says so (not "nothing was enforced").
    for demoted in [
        slmcode::backends::WireForm::JsonSchema,
        slmcode::backends::WireForm::Grammar,
        slmcode::backends::WireForm::JsonObject,
    ] {
        let entry = cache.read().entries.pop().unwrap();
        cache
            .record_demotion(
                &entry.key(),
                slmcode::backends::Demotion::now(demoted, Some(400), "refused"),
                &entry.capabilities(),
            )
            .unwrap();
    }
    let json = doctor(&slm, &["--json"]).code(0).json();
    assert_eq!(json["connection"]["mechanism"], "prompt_only");
    assert_eq!(
        check(&json, "mechanism")["detail"],
        "prompt_only: every form the cached probe found enforced was demoted at request time (see the demotions): prompt-only JSON and repair"
    );
    // A 500 during probing from a server that is only busy is not a demotion.
    emulator.faults([Fault::Status(503, "busy".to_owned(), None)]);
    doctor(&slm, &["--refresh"]).code(0);
}

#[test]
fn a_server_whose_answers_are_not_chat_completions_fails_the_answer_check() {
    let emulator = Emulator::start(Profile::not_a_chat_server());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let run = doctor(&slm, &[]);
    run.code(6);
    assert!(
        run.stdout.contains(
            "answer        FAIL    the server's answer to a plain chat request is not usable: \
             unknown error: the answer is not a chat completion (it has no choices): "
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(&format!(
            "answer: check that {} is the server's OpenAI-compatible base URL (another program \
             may answer on that port): `slmcode config set endpoint URL`, then `slmcode probe \
             --refresh`\n",
            emulator.base_url()
        )),
        "{}",
        run.stderr
    );
    let json = doctor(&slm, &["--json"]).code(6).json();
    assert_eq!(json["ok"], false);
    let answer = check(&json, "answer");
    assert_eq!(answer["status"], "fail");
    assert!(
        answer["detail"].as_str().unwrap().ends_with(
            r#"the answer is not a chat completion (it has no choices): {"hello":"world"}"#
        ),
        "{answer}"
    );
    // probe and generate fail the same way, with the same exit code.
    let probe = slm.run(["probe"], "");
    probe.code(6);
    assert!(
        probe.stderr.starts_with(
            "error: the server's answer to a plain chat request is not usable: unknown error: the \
             answer is not a chat completion (it has no choices): {\"hello\":\"world\"}\n"
        ),
        "{}",
        probe.stderr
    );
    slm.run(
        [
            "generate",
            "--schema",
            "scope_judge",
            "--prompt",
            "In scope?",
        ],
        "",
    )
    .code(6);
}
