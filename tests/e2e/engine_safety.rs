//! A schema that takes llama-server down through its own json_schema conversion
//! (`tests/fixtures/schemas/recursive_allof.json`: a recursive `$ref` under a one-branch
//! `allOf`), sent by a client through `slmcode serve` and by `generate --schema-file`, with
//! both grammar whitespaces: slmcode sends the grammar it derives instead, gets a valid answer,
//! and the server is still up afterwards.

use std::time::Duration;

use serde_json::{Value, json};

use crate::serve_clients::Proxy;

fn fixture() -> (std::path::PathBuf, Value) {
    let path = crate::util::repo_root().join("tests/fixtures/schemas/recursive_allof.json");
    let schema = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (path, schema)
}

/// Whether the server at `endpoint` still answers (`GET /models`).
fn alive(endpoint: &str) -> bool {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    agent.get(format!("{endpoint}/models")).call().is_ok()
}

#[test]
fn a_schema_that_kills_the_servers_conversion_is_served_as_the_derived_grammar() {
    let Some(endpoint) = crate::endpoint("engine_safety") else {
        return;
    };
    let model = crate::model();
    let (path, schema) = fixture();
    assert!(alive(&endpoint), "the server is down before the test");
    for whitespace in ["compact", "pretty"] {
        let proxy = Proxy::start(
            &endpoint,
            &model,
            &[("SLMCODE_GRAMMAR_WHITESPACE", whitespace)],
        );
        let body = json!({
            "model": model,
            "messages": [{"role": "user", "content": "The site's menus."}],
            "max_tokens": 200,
            "response_format": {"type": "json_schema",
                "json_schema": {"name": "menus", "schema": schema}},
        });
        let (status, answer) = crate::chat(&proxy.base_url(), &body);
        let (_, lines) = proxy.stop();
        assert!(
            alive(&endpoint),
            "{whitespace}: the server died; proxy log:\n{}",
            lines.join("\n")
        );
        assert_eq!(status, 200, "{whitespace}: {answer}\n{}", lines.join("\n"));
        let content = answer["choices"][0]["message"]["content"].as_str().unwrap();
        let value: Value = serde_json::from_str(content).unwrap();
        assert!(
            jsonschema::is_valid(&schema, &value),
            "{whitespace}: {value}"
        );
        assert!(
            lines
                .iter()
                .any(|line| line.contains("mechanism=gbnf_grammar")),
            "{whitespace}: {lines:?}"
        );
        let mut slm = crate::slm(&endpoint, &model);
        slm.env("SLMCODE_GRAMMAR_WHITESPACE", whitespace);
        let run = slm.run(
            [
                "generate",
                "--schema-file",
                path.to_str().unwrap(),
                "--prompt",
                "The site's menus.",
                "--max-tokens",
                "200",
                "--json",
            ],
            "",
        );
        assert!(alive(&endpoint), "{whitespace}: the server died: {run:#?}");
        let json = run.code(0).json();
        assert_eq!(json["meta"]["first_mechanism"], "gbnf_grammar", "{json:#}");
        assert!(jsonschema::is_valid(&schema, &json["value"]), "{json:#}");
    }
}
