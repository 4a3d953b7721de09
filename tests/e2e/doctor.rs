//! `slmcode doctor` against the real llama.cpp server: json_schema with strict is selected, and
//! every other form's outcome is what the server really does; under `openai-compatible`, the
//! server's `/props` makes it llama.cpp, and requests are what `llamacpp` would send.

use serde_json::Value;

use crate::real_engine;
use crate::util::Slm;

fn outcome(json: &Value, form: &str) -> String {
    json["forms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["form"] == form)
        .unwrap_or_else(|| panic!("no {form} row"))["outcome"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn an_unknown_provider_probes_everything_and_is_recognised_as_llama_cpp() {
    let Some((endpoint, _)) = real_engine("doctor::an_unknown_provider_probes_everything") else {
        return;
    };
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "openai-compatible")
        .env("SLMCODE_ENDPOINT", &endpoint);
    let run = slm.run(["doctor", "--json"], "");
    run.code(0);
    let json = run.json();
    assert_eq!(json["connection"]["mechanism"], "json_schema", "{json:#}");
    assert_eq!(json["connection"]["strict"], true);
    assert_eq!(json["connection"]["probed"], true);
    assert_eq!(outcome(&json, "json_schema_strict"), "supported");
    assert_eq!(outcome(&json, "json_schema"), "supported");
    assert_eq!(outcome(&json, "grammar"), "supported");
    assert_eq!(outcome(&json, "json_object"), "supported");
    // vLLM's fields: accepted with 200, ignored by llama-server.
    assert_eq!(outcome(&json, "structured_outputs"), "not_enforced");
    assert_eq!(outcome(&json, "guided_json"), "not_enforced");
    assert!(
        json["fingerprint"]["server"]
            .as_str()
            .unwrap()
            .starts_with("llama.cpp "),
        "{json:#}"
    );
    assert!(json["fingerprint"]["context_size"].is_u64());
    // The server's `/props` names llama.cpp: requests follow it, and doctor says so.
    let engine = &json["connection"]["engine"];
    assert_eq!(engine["provider"], "llamacpp", "{json:#}");
    assert_eq!(engine["source"], "fingerprint");
    let evidence = engine["evidence"].as_str().unwrap();
    assert!(
        evidence.starts_with("llama.cpp ") && evidence.ends_with(" (GET /props)"),
        "{evidence}"
    );
    let engine_check = json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["name"] == "engine")
        .unwrap();
    assert_eq!(
        engine_check["detail"],
        format!(
            "llamacpp, recognised by the server's fingerprint: {evidence}; the derived grammar goes before json_schema"
        )
    );
    // And a structured call goes to the derived grammar first, as under provider = llamacpp.
    let generated = slm
        .run(
            [
                "generate",
                "--schema",
                "scope_judge",
                "--prompt",
                "Is adding a README in scope?",
                "--max-tokens",
                "256",
                "--json",
            ],
            "",
        )
        .code(0)
        .json();
    assert_eq!(
        generated["meta"]["first_mechanism"], "gbnf_grammar",
        "{generated:#}"
    );
    assert_eq!(generated["meta"]["wire_form"], "grammar");
    assert_eq!(generated["meta"]["engine"]["source"], "fingerprint");
}

#[test]
fn llamacpp_with_its_model_passes_every_check() {
    let Some((endpoint, model)) = real_engine("doctor::llamacpp_with_its_model_passes_every_check")
    else {
        return;
    };
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &endpoint)
        .env("SLMCODE_MODEL", &model);
    let run = slm.run(["doctor"], "");
    run.code(0);
    assert!(run.stdout.contains("model_served  ok"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("mechanism     ok      json_schema (strict)"),
        "{}",
        run.stdout
    );
    let status = slm.run(["status", "--json"], "").code(0).json();
    assert_eq!(status["connection"]["source"], "cache");
    assert_eq!(status["connection"]["reachable"], true);
    assert_eq!(status["connection"]["mechanism"], "json_schema");
}
