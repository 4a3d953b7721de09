//! A coding agent's tool loop with the library alone: ask for a call, run it, send the result
//! back under the call's id, and again, until the model answers without a call or the turns
//! run out. Every call that reaches `run` named a tool of the set and has arguments that satisfy
//! its parameters: the call path constrained, extracted, repaired, validated and re-asked.
//!
//! ```sh
//! SLMCODE_PROVIDER=llamacpp SLMCODE_ENDPOINT=http://127.0.0.1:8080/v1 \
//!     cargo run --example tool_loop -- "What does Cargo.toml name this package?"
//! ```
//!
//! The tools read the current directory only: `read_file` and `list_dir`, on relative paths
//! without `..`. Exits 0 with the answer (or a note that the turns ran out), 1 on an error.

use std::path::{Component, Path};

use serde_json::json;
use slmcode::call::{
    Answer, CallContext, ParsedToolCall, StructuredRequest, assistant_message, structured_call,
    tool_result_message,
};
use slmcode::config::{Environment, Overrides, resolve};
use slmcode::tools::{ToolChoice, ToolSet};

/// How many answers the loop asks for before it gives up.
const TURNS: usize = 4;

/// A tool's result is cut to this many characters: the model's context is small.
const RESULT_LIMIT: usize = 2000;

fn tools() -> Result<ToolSet, Box<dyn std::error::Error>> {
    let tools = json!([
        {"type": "function", "function": {"name": "read_file",
            "description": "Read a text file of the project.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                "required": ["path"], "additionalProperties": false}}},
        {"type": "function", "function": {"name": "list_dir",
            "description": "List the entries of a directory of the project.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
                "required": ["path"], "additionalProperties": false}}}
    ]);
    Ok(ToolSet::from_value(&tools)?)
}

/// Runs one call; a failure is a result the model reads, not an error of the loop.
fn run(call: &ParsedToolCall) -> String {
    let path = call.arguments["path"].as_str().unwrap_or(".");
    let inside = Path::new(path)
        .components()
        .all(|part| matches!(part, Component::Normal(_) | Component::CurDir));
    if !inside {
        return format!("error: {path} is outside the project");
    }
    let result = match call.name.as_str() {
        "read_file" => std::fs::read_to_string(path).map_err(|error| error.to_string()),
        "list_dir" => std::fs::read_dir(path)
            .map(|entries| {
                let mut names: Vec<String> = entries
                    .flatten()
                    .map(|entry| entry.file_name().to_string_lossy().into_owned())
                    .collect();
                names.sort();
                names.join("\n")
            })
            .map_err(|error| error.to_string()),
        other => Err(format!("no tool {other}")),
    };
    let text = result.unwrap_or_else(|error| format!("error: {error}"));
    text.chars().take(RESULT_LIMIT).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let question = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "What does Cargo.toml name this package?".to_owned());
    let resolved = resolve(&Environment::from_process(), &Overrides::new())?;
    let context = CallContext::from_settings(&resolved.settings)?;
    let mut request = StructuredRequest::default()
        .tools(tools()?, ToolChoice::Auto)
        .serial_tools(true)
        .system("You are a coding agent. Use the tools to look at the project, then answer.")
        .user(question);
    for turn in 1..=TURNS {
        let outcome = structured_call(&request, &context)?;
        let calls = outcome.tool_calls();
        if calls.is_empty() {
            let answer = content(&outcome.answer).unwrap_or_default();
            println!("answer after {turn} turns: {answer}");
            return Ok(());
        }
        request.messages.push(assistant_message(
            calls,
            content(&outcome.answer).as_deref(),
        ));
        for call in calls {
            let result = run(call);
            println!(
                "turn {turn}: {} {} -> {} characters",
                call.name,
                call.arguments,
                result.chars().count()
            );
            request.messages.push(tool_result_message(call, result));
        }
    }
    println!("no answer after {TURNS} turns");
    Ok(())
}

/// The text beside the calls (or instead of them), if the model wrote any.
fn content(answer: &Answer) -> Option<String> {
    match answer {
        Answer::Tools { content, .. } => content.clone(),
        Answer::Value(value) => Some(value.to_string()),
    }
}
