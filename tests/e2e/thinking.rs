//! A thinking chat template on the real llama.cpp server (the tiny model, `TEMPLATE=think`: the
//! generation prompt opens `<think>\n` unless `chat_template_kwargs.enable_thinking` is false,
//! and the server, seeing the block open, returns what the model writes as `reasoning_content`
//! until `</think>`). What it shows, measured on this server:
//! - `thinking = off` reaches the template: the answer comes back as content, no reasoning;
//! - `thinking = on` under json_schema (whose grammar this server applies only after
//!   `</think>`, which a random model never writes): the random text comes back as
//!   reasoning and no content; it is reported in `meta.reasoning` and never taken for the
//!   answer, so the call fails;
//! - under the derived grammar, which the server applies from the first token, the
//!   constrained value comes back in `reasoning_content`: read as the answer, with a warning.

use serde_json::Value;

use crate::think_endpoint;
use crate::util::{Run, Slm};
use crate::{model, slm};

fn generate(slm: &Slm, extra: &[&str]) -> Run {
    let mut args = vec![
        "generate",
        "--schema",
        "scope_judge",
        "--prompt",
        "Is adding a README in scope?",
        "--json",
        "--max-tokens",
        "256",
        "--reask",
        "0",
    ];
    args.extend_from_slice(extra);
    slm.run(args, "")
}

fn meta(json: &Value) -> &Value {
    json.get("meta").unwrap_or_else(|| &json["error"]["meta"])
}

#[test]
fn thinking_off_reaches_the_template_and_the_answer_comes_as_content() {
    let Some(endpoint) = think_endpoint("thinking_off_reaches_the_template") else {
        return;
    };
    let slm = slm(&endpoint, &model());
    for mechanism in ["json_schema", "gbnf_grammar"] {
        let run = generate(&slm, &["--thinking", "off", "--mechanism", mechanism]);
        let json = run.code(0).json();
        assert!(json["value"]["in_scope"].is_boolean(), "{json}");
        let meta = meta(&json);
        assert_eq!(meta["reasoning"], Value::Null, "{mechanism}: {json}");
        assert_eq!(
            meta["warnings"],
            serde_json::json!([]),
            "{mechanism}: {json}"
        );
    }
}

#[test]
fn the_reasoning_is_reported_apart_and_never_taken_for_the_answer() {
    let Some(endpoint) = think_endpoint("the_reasoning_is_reported_apart") else {
        return;
    };
    let slm = slm(&endpoint, &model());
    let run = generate(&slm, &["--thinking", "on", "--mechanism", "json_schema"]);
    assert_ne!(
        run.code, 0,
        "random reasoning is not an answer: {}",
        run.stdout
    );
    let json = run.json();
    let reasoning = &meta(&json)["reasoning"];
    assert_eq!(reasoning["source"], "field", "{json}");
    assert_eq!(reasoning["unfinished"], true, "{json}");
    assert!(
        !reasoning["text"].as_str().unwrap_or_default().is_empty(),
        "{json}"
    );
    assert!(json.get("value").is_none());
}

#[test]
fn a_constrained_answer_the_server_files_as_reasoning_is_read_with_a_warning() {
    let Some(endpoint) = think_endpoint("a_constrained_answer_filed_as_reasoning") else {
        return;
    };
    let slm = slm(&endpoint, &model());
    let run = generate(&slm, &["--mechanism", "gbnf_grammar"]);
    let json = run.code(0).json();
    assert!(json["value"]["in_scope"].is_boolean(), "{json}");
    let meta = meta(&json);
    assert_eq!(meta["wire_form"], "grammar");
    assert_eq!(meta["reasoning"], Value::Null);
    assert!(
        meta["warnings"][0]
            .as_str()
            .is_some_and(|warning| warning.contains("returned the constrained answer as reasoning")),
        "{json}"
    );
}
