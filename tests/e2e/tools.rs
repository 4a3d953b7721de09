//! Tools as a constraint against the real llama.cpp server: the compiled grammar (and the
//! request fragment `tools compile --format request` prints) reaches the decoder, so a random
//! model at temperature 1 writes nothing but valid calls; and the `tool_choice` forms this
//! server understands for its own tool calling.
//!
//! Measured on this server (llama.cpp's `common_chat_tool_choice_parse_oaicompat` in
//! `common/chat.cpp` accepts only the strings `auto`, `none` and `required`): a named tool in
//! OpenAI's object form is accepted (200) but not enforced (the answer may call another tool or
//! none), and a plain name is a 400. A named tool is enforced here through the constraint.

use std::time::Duration;

use serde_json::{Value, json};
use slmcode::backends::{AuthHeader, Client, normalize_endpoint};
use slmcode::config::Provider;
use slmcode::schema::validator;
use slmcode::tools::{ExtractOptions, ToolSet, extract};

use crate::real_engine;
use crate::util::{Slm, repo_root};

const SEEDS: u64 = 12;

fn coding_agent() -> (String, ToolSet) {
    let path = repo_root().join("tests/fixtures/tools/coding_agent.json");
    let tools = ToolSet::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (path.display().to_string(), tools)
}

fn client(endpoint: &str) -> Client {
    let endpoint = normalize_endpoint(Provider::LlamaCpp, endpoint)
        .unwrap()
        .endpoint;
    Client::new(endpoint, AuthHeader::Bearer, None)
}

/// Sends `fields` with a user message, temperature 1 and `seed`; returns the first choice.
fn ask(client: &Client, fields: &Value, seed: u64) -> Result<Value, String> {
    let mut body = json!({
        "messages": [{"role": "user", "content": "Call one of the tools."}],
        "temperature": 1,
        "seed": seed,
        "max_tokens": 1024
    });
    for (key, value) in fields.as_object().unwrap() {
        body[key] = value.clone();
    }
    let answer = client
        .post_json(
            &client.endpoint().chat_url(),
            &body,
            Duration::from_secs(120),
        )
        .map_err(|error| error.to_string())?;
    Ok(answer["choices"][0].clone())
}

/// `tools compile` through the binary, with `args` after the tools file.
fn compile(tools: &str, args: &[&str]) -> Value {
    let slm = Slm::new();
    let mut all = vec!["tools", "compile", tools, "--json"];
    all.extend_from_slice(args);
    slm.run(all, "").code(0).json()
}

#[test]
fn compiled_grammars_make_every_output_a_valid_call() {
    let Some((endpoint, _)) =
        real_engine("tools::compiled_grammars_make_every_output_a_valid_call")
    else {
        return;
    };
    let client = client(&endpoint);
    // Every fixture, the messy ones included: numbers with bounds are in the grammar, and its
    // exponents stop where a double does, so every output is JSON that serde_json reads.
    for file in [
        "coding_agent.json",
        "thirty_tools.json",
        "anthropic.json",
        "messy.json",
        "browser_agent.json",
        "issue_tracker.json",
        "mcp_filesystem.json",
    ] {
        let path = repo_root().join("tests/fixtures/tools").join(file);
        let tools = ToolSet::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let report = compile(&path.display().to_string(), &["--format", "gbnf"]);
        let schema = validator(&report["schema"]).unwrap();
        let mut named = Vec::new();
        let mut cut = 0;
        for seed in 0..SEEDS {
            let choice = ask(&client, &json!({"grammar": report["grammar"]}), seed).unwrap();
            let text = choice["message"]["content"].as_str().unwrap();
            // A recursive argument (messy.json's tree) can outgrow max_tokens: a cut call is
            // no evidence either way, and extraction must call it cut, not repair it.
            if choice["finish_reason"] == "length" {
                let options = ExtractOptions::default().finish_reason_length(true);
                let error = extract(text, &tools, &options).unwrap_err();
                assert!(
                    error.to_string().contains("cut off"),
                    "{file} seed {seed}: {error}"
                );
                cut += 1;
                continue;
            }
            assert_eq!(
                choice["finish_reason"], "stop",
                "{file} seed {seed}: {choice}"
            );
            let extraction = extract(text, &tools, &ExtractOptions::default())
                .unwrap_or_else(|error| panic!("{file} seed {seed}: {error}: {text}"));
            let call = &extraction.calls[0];
            let value: Value = serde_json::from_str(text)
                .unwrap_or_else(|error| panic!("{file} seed {seed}: {error}: {text}"));
            assert!(schema.is_valid(&value), "{file} seed {seed}: {text}");
            assert_eq!(call.rung.as_str(), "none", "{file} seed {seed}: {text}");
            named.push(call.name.clone());
        }
        assert!(
            cut <= SEEDS / 4,
            "{file}: {cut} of {SEEDS} answers were cut"
        );
        named.sort();
        named.dedup();
        assert!(
            named.len() > 1,
            "{file}: a union lets the model pick: {named:?}"
        );
    }
}

#[test]
fn the_request_fragment_for_llamacpp_is_enforced() {
    let Some((endpoint, _)) = real_engine("tools::the_request_fragment_for_llamacpp") else {
        return;
    };
    let client = client(&endpoint);
    // The fragment carries the derived grammar (the server's json_schema converter lets
    // `format` and huge exponents through), so every answer is a valid call as it stands.
    for file in [
        "coding_agent.json",
        "browser_agent.json",
        "issue_tracker.json",
    ] {
        let path = repo_root().join("tests/fixtures/tools").join(file);
        let tools = ToolSet::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let report = compile(
            &path.display().to_string(),
            &[
                "--format",
                "request",
                "--provider",
                "llamacpp",
                "--endpoint",
                &endpoint,
            ],
        );
        let request = &report["request"];
        assert_eq!(request["carries"], "constraint");
        assert_eq!(request["mechanism"], "gbnf_grammar");
        let schema = validator(&report["schema"]).unwrap();
        for seed in 0..SEEDS {
            let choice = ask(&client, &request["body"], seed).unwrap();
            let text = choice["message"]["content"].as_str().unwrap();
            assert_eq!(
                choice["finish_reason"], "stop",
                "{file} seed {seed}: {text}"
            );
            let value: Value = serde_json::from_str(text)
                .unwrap_or_else(|error| panic!("{file} seed {seed}: {error}: {text}"));
            assert!(schema.is_valid(&value), "{file} seed {seed}: {text}");
            let extraction = extract(text, &tools, &ExtractOptions::default())
                .unwrap_or_else(|error| panic!("{file} seed {seed}: {error}: {text}"));
            assert_eq!(
                extraction.calls[0].rung.as_str(),
                "none",
                "{file} seed {seed}"
            );
        }
    }
}

#[test]
fn a_named_tool_through_the_grammar_calls_only_that_tool() {
    let Some((endpoint, _)) = real_engine("tools::a_named_tool_through_the_grammar") else {
        return;
    };
    let (path, tools) = coding_agent();
    let report = compile(&path, &["--tool-choice", "run_command", "--format", "gbnf"]);
    let client = client(&endpoint);
    for seed in 0..SEEDS {
        let choice = ask(&client, &json!({"grammar": report["grammar"]}), seed).unwrap();
        let text = choice["message"]["content"].as_str().unwrap();
        let extraction = extract(text, &tools, &ExtractOptions::default())
            .unwrap_or_else(|error| panic!("seed {seed}: {error}: {text}"));
        assert_eq!(
            extraction.calls[0].name, "run_command",
            "seed {seed}: {text}"
        );
    }
}

#[test]
fn auto_with_an_answer_shape_gives_a_call_or_an_answer() {
    let Some((endpoint, _)) = real_engine("tools::auto_with_an_answer_shape") else {
        return;
    };
    let (path, tools) = coding_agent();
    let report = compile(
        &path,
        &["--tool-choice", "auto", "--answer", "--format", "gbnf"],
    );
    let schema = validator(&report["schema"]).unwrap();
    let client = client(&endpoint);
    for seed in 0..SEEDS {
        let choice = ask(&client, &json!({"grammar": report["grammar"]}), seed).unwrap();
        let text = choice["message"]["content"].as_str().unwrap();
        let value: Value = serde_json::from_str(text)
            .unwrap_or_else(|error| panic!("seed {seed}: not JSON ({error}): {text}"));
        assert!(schema.is_valid(&value), "seed {seed}: {text}");
        if value.get("answer").is_none() {
            extract(text, &tools, &ExtractOptions::default())
                .unwrap_or_else(|error| panic!("seed {seed}: {error}: {text}"));
        }
    }
}

#[test]
fn the_tool_choice_forms_this_server_understands() {
    let Some((endpoint, _)) = real_engine("tools::the_tool_choice_forms") else {
        return;
    };
    let (path, tools) = coding_agent();
    // Native tools: what `--format request` plans for a backend without an enforcing mechanism.
    let report = compile(
        &path,
        &[
            "--format",
            "request",
            "--provider",
            "llamacpp",
            "--mechanism",
            "prompt_only",
        ],
    );
    let native = &report["request"]["body"];
    assert_eq!(native["parallel_tool_calls"], false);
    let client = client(&endpoint);
    let with_choice = |choice: Value| {
        let mut fields = native.clone();
        fields["tool_choice"] = choice;
        fields
    };
    for seed in 0..SEEDS {
        let none = ask(&client, &with_choice(json!("none")), seed).unwrap();
        assert!(
            none["message"]["tool_calls"].is_null(),
            "none, seed {seed}: {none}"
        );

        let required = ask(&client, &with_choice(json!("required")), seed).unwrap();
        let calls = &required["message"]["tool_calls"];
        assert_eq!(
            calls.as_array().map(Vec::len),
            Some(1),
            "required, seed {seed}: {required}"
        );
        // The server's own tool calls, read back as OpenAI `tool_calls` text, are valid calls.
        let text = json!({"tool_calls": calls}).to_string();
        extract(&text, &tools, &ExtractOptions::default())
            .unwrap_or_else(|error| panic!("required, seed {seed}: {error}: {text}"));

        // Accepted, not enforced: whatever comes back is still checked downstream.
        let named = ask(
            &client,
            &with_choice(json!({"type": "function", "function": {"name": "read_file"}})),
            seed,
        )
        .unwrap();
        if let Some(calls) = named["message"]["tool_calls"].as_array() {
            let text = json!({"tool_calls": calls}).to_string();
            extract(&text, &tools, &ExtractOptions::default())
                .unwrap_or_else(|error| panic!("named, seed {seed}: {error}: {text}"));
        }
    }
    let plain_name = ask(&client, &with_choice(json!("read_file")), 0).unwrap_err();
    assert!(plain_name.contains("Invalid tool_choice"), "{plain_name}");
}

#[test]
fn a_tool_parameter_with_a_pattern_is_valid_from_the_random_model() {
    let Some((endpoint, model)) = real_engine("tools::a_tool_parameter_with_a_pattern") else {
        return;
    };
    let slm = crate::slm(&endpoint, &model);
    crate::real_model::a_patterned_parameter_is_valid_on_the_first_answer(&slm, "Open a ticket.");
}
