//! Tool calls through `slmcode generate --tools` against the real llama.cpp server with its
//! random-weight model: `required`, a named tool and `none`. The model's own output is never a
//! call, so every call that comes back was made so by the constraint the call path compiled
//! from the tools (the grammar, on this server), and was extracted and validated downstream.

use serde_json::Value;
use slmcode::schema::validator;
use slmcode::tools::ToolSet;

use crate::util::repo_root;
use crate::{real_engine, slm};

/// Sampled (temperature 1) with these seeds, besides the README's own greedy command.
const SEEDS: [&str; 4] = ["1", "2", "3", "4"];

fn shipped_tools() -> (String, ToolSet) {
    let path = repo_root().join("examples/tools.json");
    let tools = ToolSet::from_json(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (path.display().to_string(), tools)
}

/// The calls of a `generate --tools --json` run that exited 0, each checked: a tool of the
/// set, arguments that satisfy its parameters, an id.
fn valid_calls(out: &Value, tools: &ToolSet) -> Vec<String> {
    let calls = out["value"]["tool_calls"].as_array().expect("tool_calls");
    assert!(!calls.is_empty(), "no call: {out}");
    calls
        .iter()
        .map(|call| {
            let name = call["name"].as_str().unwrap();
            let tool = tools
                .get(name)
                .unwrap_or_else(|| panic!("{name} is no tool"));
            let parameters = validator(&tool.parameters).unwrap();
            assert!(parameters.is_valid(&call["arguments"]), "{call}");
            assert!(call["id"].as_str().unwrap().starts_with("call_"), "{call}");
            name.to_owned()
        })
        .collect()
}

#[test]
fn required_named_and_none_through_generate() {
    let Some((endpoint, model)) = real_engine("tool_calls::required_named_and_none") else {
        return;
    };
    let slm = slm(&endpoint, &model);
    let (path, tools) = shipped_tools();
    let generate = |extra: &[&str]| {
        let mut args = vec!["generate", "--tools", &path, "--json"];
        args.extend_from_slice(extra);
        slm.run(args, "")
    };

    // The README's command: greedy, so its first answer may loop; it ends in a valid call.
    let out = generate(&["--tool-choice", "required", "--prompt", "read the README"])
        .code(0)
        .json();
    valid_calls(&out, &tools);
    assert_eq!(out["meta"]["tools"]["carried"], "constraint", "{out}");
    assert_eq!(out["meta"]["mechanism"], "gbnf_grammar");

    for seed in SEEDS {
        let sampled = [
            "--temperature",
            "1",
            "--seed",
            seed,
            "--prompt",
            "Do something.",
        ];
        let out = generate(&[&["--tool-choice", "required"], &sampled[..]].concat())
            .code(0)
            .json();
        valid_calls(&out, &tools);
        let out = generate(&[&["--tool-choice", "run_command"], &sampled[..]].concat())
            .code(0)
            .json();
        for name in valid_calls(&out, &tools) {
            assert_eq!(name, "run_command", "seed {seed}: {out}");
        }
        assert_eq!(out["meta"]["tools"]["choice"]["name"], "run_command");

        let out = generate(&[&["--tool-choice", "none"], &sampled[..]].concat())
            .code(0)
            .json();
        assert_eq!(out["value"]["tool_calls"], serde_json::json!([]), "{out}");
        assert!(out["value"]["content"].is_string(), "{out}");
        assert_eq!(out["meta"]["tools"]["carried"], "nothing", "{out}");
    }
}
