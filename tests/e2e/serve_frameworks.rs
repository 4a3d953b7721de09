//! The agent frameworks harness authors use, through `slmcode serve` in front of the real small
//! model (SmolLM2-135M-Instruct, `SLMCODE_E2E_REAL_ENDPOINT`): PydanticAI (tool output, native
//! output, and an agent with a function tool whose run must end in a text answer), the OpenAI
//! Agents SDK (`output_type`) and LangChain's `with_structured_output` (`json_schema` and
//! `function_calling`). `tests/e2e/serve_frameworks.py` runs one case per process, in a venv
//! this test makes once with the versions pinned below; the script lets no connection leave
//! the machine. Each case asserts what its user would: a validated object, or a tool loop that
//! ends in text within [`REQUEST_LIMIT`] requests. Every case runs and the table of outcomes
//! (requests, seconds) is printed before any assertion fails.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::serve_clients::{Proxy, venv};

/// The frameworks, pinned (with the OpenAI SDK and pydantic they share).
const PACKAGES: [&str; 6] = [
    "pydantic-ai-slim[openai]==2.68.0",
    "openai-agents==0.24.0",
    "langchain-openai==1.8.1",
    "langchain-core==1.8.3",
    "openai==3.57.0",
    "pydantic==2.14.4",
];

/// The requests a case may take (the script's own limit for the agents' runs).
const REQUEST_LIMIT: usize = 5;

/// The cases, as `serve_frameworks.py` names them.
const CASES: [&str; 6] = [
    "pydantic_ai_tool_output",
    "pydantic_ai_native_output",
    "pydantic_ai_tool_loop",
    "openai_agents_output",
    "langchain_json_schema",
    "langchain_function_calling",
];

/// One case's run: its report (or why there is none), and the requests the proxy logged.
struct Outcome {
    case: &'static str,
    report: Result<Value, String>,
    requests: usize,
    seconds: f64,
}

#[test]
fn agent_frameworks_get_validated_objects_and_a_tool_loop_that_ends_in_text() {
    // The venv first (a minute or two the first time), before taking the real model's turn.
    let python = std::env::var_os("SLMCODE_E2E_REAL_ENDPOINT")
        .is_some()
        .then(|| venv("frameworks", &PACKAGES));
    let Some((endpoint, model, _turn)) =
        crate::real_model::real_model("serve_frameworks::agent_frameworks")
    else {
        return;
    };
    let python = python.unwrap_or_else(|| venv("frameworks", &PACKAGES));
    // The model shares two cores with the rest of the suite: a probe may take longer than 20 s.
    let proxy = Proxy::start(&endpoint, &model, &[("SLMCODE_PROBE_TIMEOUT_S", "120")]);
    let outcomes: Vec<Outcome> = CASES
        .iter()
        .map(|case| run_case(&python, &proxy, case))
        .collect();
    let (code, lines) = proxy.stop();
    let table: Vec<String> = outcomes
        .iter()
        .map(|outcome| {
            format!(
                "{}: {} requests, {:.1} s: {}",
                outcome.case,
                outcome.requests,
                outcome.seconds,
                match &outcome.report {
                    Ok(report) => report.to_string(),
                    Err(error) => format!("failed: {error}"),
                }
            )
        })
        .collect();
    let table = table.join("\n");
    eprintln!("{table}");
    let failures: Vec<String> = outcomes
        .iter()
        .filter_map(|outcome| check(outcome).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{}\n\nevery case:\n{table}\n\nproxy log:\n{}",
        failures.join("\n"),
        lines.join("\n")
    );
    assert_eq!(code, Some(0), "{lines:?}");
}

/// Runs `case` against `proxy` and counts the requests it logged meanwhile.
fn run_case(python: &std::path::Path, proxy: &Proxy, case: &'static str) -> Outcome {
    let logged = |lines: &[String]| {
        lines
            .iter()
            .filter(|line| line.contains("POST /v1/chat/completions"))
            .count()
    };
    let before = logged(&proxy.lines());
    let started = Instant::now();
    let output = Command::new(python)
        .arg(crate::util::repo_root().join("tests/e2e/serve_frameworks.py"))
        .arg(case)
        .env("OPENAI_BASE_URL", proxy.base_url())
        .env("OPENAI_API_KEY", "not-used-by-the-proxy")
        .output()
        .expect("run the Python frameworks");
    let seconds = started.elapsed().as_secs_f64();
    // The proxy logs a request once it has answered it: let the last line arrive.
    let mut requests = logged(&proxy.lines()) - before;
    for _ in 0..20 {
        std::thread::sleep(Duration::from_millis(100));
        let now = logged(&proxy.lines()) - before;
        if now == requests {
            break;
        }
        requests = now;
    }
    let report = if output.status.success() {
        serde_json::from_slice(&output.stdout)
            .map_err(|error| format!("no report ({error}): {}", stdout_and_stderr(&output)))
    } else {
        Err(stdout_and_stderr(&output))
    };
    Outcome {
        case,
        report,
        requests,
        seconds,
    }
}

/// A failed run's stdout (the script's one line on the error) and the end of its stderr (the
/// traceback's).
fn stdout_and_stderr(output: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(6).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    format!(
        "exit {:?}; stdout: {}; stderr: ...\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).trim(),
        tail.join("\n")
    )
}

/// What the case's user would check: a `Person` valid against its schema, or a tool loop that
/// ended in text; within the request limit either way.
fn check(outcome: &Outcome) -> Result<(), String> {
    let case = outcome.case;
    let report = outcome
        .report
        .as_ref()
        .map_err(|error| format!("{case}: {error}"))?;
    if outcome.requests == 0 || outcome.requests > REQUEST_LIMIT {
        return Err(format!(
            "{case}: {} requests reached the proxy (1 to {REQUEST_LIMIT} expected): {report}",
            outcome.requests
        ));
    }
    if case == "pydantic_ai_tool_loop" {
        let text = report["text"].as_str().unwrap_or("");
        return if report["type"] == "str" && !text.trim().is_empty() {
            Ok(())
        } else {
            Err(format!("{case}: the run did not end in text: {report}"))
        };
    }
    let person = json!({"type": "object",
        "properties": {"name": {"type": "string", "maxLength": 20}, "age": {"type": "integer"}},
        "required": ["name", "age"], "additionalProperties": false});
    if report["type"] == "Person" && jsonschema::is_valid(&person, &report["value"]) {
        Ok(())
    } else {
        Err(format!("{case}: not a valid Person: {report}"))
    }
}
