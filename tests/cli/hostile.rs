//! What a careless or hostile input does to the commands that read a model's or a server's JSON:
//! values nested to the documented limit and past it, output that must stay linear in the
//! input, a stderr that cannot be written, and a stats file at its limits or locked by another
//! process. Each case ends in a clear message and a documented exit code, never a crash.

use std::io::Write;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::emulator::{Emulator, Profile, Streaming};
use crate::util::{Slm, dev_full};

/// `{"a":{"a":...1...}}`, `depth` levels.
fn nested_objects(depth: usize) -> String {
    format!("{}1{}", "{\"a\":".repeat(depth), "}".repeat(depth))
}

/// `{"b":{"c":...1...}}`, `depth` levels, each key different (letters only: a key with a
/// counter in it would read as a loop, and so would one key repeated).
fn nested_distinct_objects(depth: usize) -> String {
    let key = |mut index: usize| {
        let mut key = String::new();
        loop {
            key.insert(0, char::from(b'a' + (index % 26) as u8));
            index /= 26;
            if index == 0 {
                return key;
            }
        }
    };
    let mut text = String::new();
    for level in 0..depth {
        text.push_str(&format!("{{\"{}\":", key(level)));
    }
    text.push('1');
    text.push_str(&"}".repeat(depth));
    text
}

/// `[[...[]...]]`, `depth` levels.
fn nested_arrays(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

fn tools_file(slm: &Slm) -> String {
    let tools = json!([{"type": "function", "function": {"name": "read_file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}},
            "required": ["path"]}}}]);
    slm.file("tools.json", tools.to_string())
        .to_str()
        .unwrap()
        .to_owned()
}

#[test]
fn tools_extract_reads_any_depth_and_refuses_past_the_limit_in_words() {
    let slm = Slm::new();
    let tools = tools_file(&slm);
    for depth in [10_000, 50_000] {
        let call = format!(
            "{{\"name\": \"read_file\", \"arguments\": {}}}",
            nested_objects(depth)
        );
        let run = slm.run(["tools", "extract", &tools], &call);
        run.code(5);
        assert!(
            run.stderr
                .contains("the read_file call's arguments do not satisfy its schema"),
            "{depth}: {}",
            run.stderr
        );
    }
    let run = slm.run(["tools", "extract", &tools], nested_objects(1_000_000));
    run.code(3);
    assert!(
        run.stderr
            .contains("nested too deep: more than 100000 levels"),
        "{}",
        run.stderr
    );
}

#[test]
fn generate_prints_a_deep_answer_and_refuses_one_past_the_limit() {
    // The whole answer at once: streamed one character a chunk, megabytes take a while.
    let emulator = Emulator::start(Profile {
        streaming: Streaming::Whole,
        ..Profile::strict_proxy()
    });
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "openai-compatible")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let schema = slm.file("any.schema.json", r#"{"type": "object"}"#);
    let schema = schema.to_str().unwrap();
    let deep = nested_distinct_objects(20_000);
    emulator.answers([deep.clone(), deep.clone()]);
    let args = |extra: &[&'static str]| {
        let mut args = vec![
            "generate",
            "--schema-file",
            schema,
            "--prompt",
            "go",
            "--mechanism",
            "prompt_only",
            "--reask",
            "0",
            // The emulator counts a token a character.
            "--max-tokens",
            "1000000",
        ];
        args.extend_from_slice(extra);
        args
    };
    let plain = slm.run(args(&[]), "");
    plain.code(0);
    assert_eq!(plain.stdout.trim_end(), deep);
    // --json: the meta and the value, in output linear in the value.
    let json = slm.run(args(&["--json"]), "");
    json.code(0);
    assert!(
        json.stdout.len() < 2 * deep.len() + 100_000,
        "{} bytes of --json output for a value of {} bytes",
        json.stdout.len(),
        deep.len()
    );
    assert!(
        json.stdout.contains("\"stream_end\": \"finished\""),
        "{}",
        &json.stdout[json.stdout.len().saturating_sub(1500)..]
    );
    emulator.answers([nested_distinct_objects(101_000)]);
    let too_deep = slm.run(args(&[]), "");
    too_deep.code(3);
    assert!(
        too_deep
            .stderr
            .contains("nested too deep: more than 100000 levels"),
        "{}",
        too_deep.stderr
    );
    // A deep answer that repeats one key is a loop, whatever its depth.
    emulator.answers([nested_objects(20_000)]);
    let looped = slm.run(args(&[]), "");
    looped.code(7);
}

#[test]
fn pretty_and_json_output_stay_linear_in_a_deep_input() {
    let slm = Slm::new();
    let input = nested_arrays(20_000);
    for args in [vec!["repair", "--pretty"], vec!["repair", "--json"]] {
        let run = slm.run(&args, &input);
        run.code(0);
        assert!(
            run.stdout.len() < 2 * input.len() + 50_000,
            "{args:?}: {} bytes out of {} in",
            run.stdout.len(),
            input.len()
        );
    }
}

#[test]
fn a_violation_of_a_huge_value_is_quoted_in_part() {
    let slm = Slm::new();
    let schema = slm.file(
        "s.json",
        r#"{"type": "object", "properties": {"a": {"type": "string"}}}"#,
    );
    let document = json!({"a": {"k": "x".repeat(10_000_000)}}).to_string();
    for command in ["validate", "repair"] {
        let run = slm.run(
            [command, "--schema-file", schema.to_str().unwrap()],
            &document,
        );
        run.code(5);
        let said = format!("{}{}", run.stdout, run.stderr);
        assert!(said.len() < 2_000, "{command}: {} bytes out", said.len());
        assert!(said.contains("characters left out"), "{said}");
    }
}

/// `slmcode repair` started with `input` written to its stdin and the given stdout and stderr.
fn spawn_repair(slm: &Slm, input: &str, stdout: Stdio, stderr: Stdio) -> std::process::Child {
    let mut child = slm
        .command(["repair"])
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child
}

#[test]
fn a_stderr_that_cannot_be_written_does_not_cost_the_answer() {
    let slm = Slm::new();
    for (input, code, stdout) in [("{\"a\": 1,}", 0, "{\"a\":1}\n"), ("{\"a\": ", 4, "")] {
        let child = spawn_repair(&slm, input, Stdio::piped(), dev_full());
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(code), "{input}");
        assert_eq!(String::from_utf8_lossy(&output.stdout), stdout, "{input}");
    }
}

#[test]
fn a_full_stdout_is_an_error_that_names_stdout() {
    let slm = Slm::new();
    let child = spawn_repair(&slm, "{\"a\": 1,}", dev_full(), Stdio::piped());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("error: cannot write to stdout: No space left on device"),
        "{stderr}"
    );
}

#[test]
fn a_counter_at_its_limit_saturates_and_the_answer_comes_first() {
    let slm = Slm::new();
    let stats = slm.config_dir().join("repair-stats.json");
    let at_limit = json!({"version": 1, "total": u64::MAX, "outcomes": {"repaired": u64::MAX},
        "rungs": {"trailing_comma": u64::MAX}, "changed": {"trailing_comma": u64::MAX}});
    std::fs::write(&stats, at_limit.to_string()).unwrap();
    let run = slm.run(["repair"], "{\"a\": 1,}");
    run.code(0);
    assert_eq!(run.stdout, "{\"a\":1}\n");
    let after: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(after["total"], u64::MAX);
    assert_eq!(after["rungs"]["trailing_comma"], u64::MAX);
}

#[test]
fn a_stats_lock_held_by_another_process_is_waited_for_briefly_then_skipped() {
    let slm = Slm::new();
    let lock = std::fs::File::create(slm.config_dir().join("repair-stats.json.lock")).unwrap();
    lock.lock().unwrap();
    let mut child = spawn_repair(&slm, "{\"a\": 1,}", Stdio::piped(), Stdio::piped());
    // A command that waited for the lock for good would still be running: kill it and fail.
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("repair waited for the stats lock without end");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "{\"a\":1}\n");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "repair-stats.json.lock is locked by another process; this run is not counted"
        ),
        "{stderr}"
    );
    lock.unlock().unwrap();
}

#[test]
fn escape_sequences_in_what_a_message_or_table_echoes_reach_the_terminal_escaped() {
    let slm = Slm::new();
    // An unknown contract's name, echoed in the error and its suggestion.
    let run = slm.run(["schema", "show", "pl\x1b[2Jan"], "");
    run.code(2);
    assert!(!run.stderr.contains('\x1b'), "{:?}", run.stderr);
    assert!(run.stderr.contains("pl\\u{1b}[2Jan"), "{}", run.stderr);
    // A role id, echoed in the table of how it is decoded.
    let run = slm.run(["roles", "a\x1b]0;pwned\x07x"], "");
    assert!(
        !run.stdout.contains('\x1b') && !run.stderr.contains('\x1b'),
        "{run:?}"
    );
    assert!(
        run.stdout.contains("\\u{1b}]0;pwned\\u{7}x")
            || run.stderr.contains("\\u{1b}]0;pwned\\u{7}x"),
        "{run:?}"
    );
}
