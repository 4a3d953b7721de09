//! Snapshots of the human output a user reads: every `--help` (found by walking `slmcode help`,
//! so a new subcommand gets a snapshot without a list to keep in sync), `doctor`, `status`,
//! `probe` against the engine emulator, and `config list`.
//!
//! The committed snapshots live in `tests/cli/snapshots/`. A changed or missing snapshot fails
//! the test: locally insta also writes the candidate next to it as `.snap.new`; under `CI=true`
//! it writes nothing. To review and accept a change:
//!
//! ```text
//! cargo insta review                                    # with cargo-insta installed
//! INSTA_UPDATE=always cargo test --test cli snapshots   # without: writes the .snap files
//! git diff tests/cli/snapshots                          # then read what changed
//! ```
//!
//! A help snapshot left behind by a removed command also fails (`no_help_snapshot_is_stale`):
//! delete the file it names.

use std::collections::BTreeSet;

use crate::emulator::{Emulator, Profile};
use crate::util::{Run, Slm, repo_root};

/// The scratch directory made stable.
fn settings(slm: &Slm) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(repo_root().join("tests/cli/snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    let root = slm.config_dir().parent().unwrap().display().to_string();
    settings.add_filter(&regex_escape(&root), "[TMP]");
    settings
}

/// [`settings`], and the emulator's port, times and durations made stable: for the output of a
/// run against a server, not for help texts, where a port or a duration is written once and
/// must not be hidden.
fn run_settings(slm: &Slm, emulator: Option<&Emulator>) -> insta::Settings {
    let mut settings = settings(slm);
    if let Some(emulator) = emulator {
        settings.add_filter(
            &regex_escape(&emulator.root_url()),
            "http://127.0.0.1:[PORT]",
        );
    }
    settings.add_filter(
        r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z",
        "[TIMESTAMP]",
    );
    settings.add_filter(r"\b\d+(\.\d+)? ?(ms|µs|s)\b", "[DURATION]");
    settings
}

/// `text` as a regex that matches it literally.
fn regex_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

/// One run as a snapshot: the exit code and both streams, as a user would see them.
fn render(run: &Run) -> String {
    format!(
        "exit: {}\n----- stdout -----\n{}----- stderr -----\n{}",
        run.code, run.stdout, run.stderr
    )
}

/// The subcommand names in the `Commands:` section of a help text; `help` itself is left out
/// (it takes no `--help` of its own; its text is in the top level's).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.is_empty())
        // Names are indented by two spaces; wrapped descriptions by more.
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// Every command path, the top level (empty) first, found through `slmcode help <path>`.
fn command_paths(slm: &Slm) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut pending = vec![Vec::<String>::new()];
    while let Some(path) = pending.pop() {
        let mut args = vec!["help".to_owned()];
        args.extend(path.iter().cloned());
        let run = slm.run(&args, "");
        run.code(0);
        for name in subcommands(&run.stdout).into_iter().rev() {
            let mut child = path.clone();
            child.push(name);
            pending.push(child);
        }
        paths.push(path);
    }
    paths
}

fn help_snapshot_name(path: &[String]) -> String {
    if path.is_empty() {
        "help".to_owned()
    } else {
        format!("help_{}", path.join("_"))
    }
}

#[test]
fn the_walk_finds_nested_subcommands() {
    let slm = Slm::new();
    let paths = command_paths(&slm);
    let names: BTreeSet<String> = paths.iter().map(|path| path.join(" ")).collect();
    for expected in ["", "config", "config list", "schema gbnf", "doctor"] {
        assert!(names.contains(expected), "{expected:?} not in {names:?}");
    }
    assert!(
        !names
            .iter()
            .any(|name| name.split(' ').any(|n| n == "help"))
    );
}

/// Every command's help; each is checked even when an earlier one fails, so one run lists
/// every snapshot to review.
#[test]
fn every_help() {
    let slm = Slm::new();
    let settings = settings(&slm);
    let mut failed = Vec::new();
    for path in command_paths(&slm) {
        let mut args = path.clone();
        args.push("--help".to_owned());
        let run = slm.run(&args, "");
        run.code(0);
        let mut settings = settings.clone();
        settings.set_description(format!("slmcode {}", args.join(" ")));
        let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            settings.bind(|| insta::assert_snapshot!(help_snapshot_name(&path), render(&run)));
        }));
        if checked.is_err() {
            failed.push(args.join(" "));
        }
    }
    assert!(failed.is_empty(), "help snapshots to review: {failed:?}");
}

#[test]
fn no_help_snapshot_is_stale() {
    let slm = Slm::new();
    let expected: BTreeSet<String> = command_paths(&slm)
        .iter()
        .map(|path| format!("{}.snap", help_snapshot_name(path)))
        .collect();
    let stale: Vec<String> = std::fs::read_dir(repo_root().join("tests/cli/snapshots"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("help") && name.ends_with(".snap"))
        .filter(|name| !expected.contains(name))
        .collect();
    assert!(
        stale.is_empty(),
        "help snapshots of commands that no longer exist: {stale:?}"
    );
}

/// A world pointed at `emulator` as a llama.cpp server.
fn llama_world(emulator: &Emulator) -> Slm {
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "llamacpp")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    slm
}

#[test]
fn doctor() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = llama_world(&emulator);
    let run = slm.run(["doctor"], "");
    run_settings(&slm, Some(&emulator)).bind(|| insta::assert_snapshot!("doctor", render(&run)));
}

#[test]
fn status_before_and_after_a_probe() {
    let emulator = Emulator::start(Profile::llama_server());
    let slm = llama_world(&emulator);
    let before = slm.run(["status"], "");
    slm.run(["probe"], "").code(0);
    let after = slm.run(["status"], "");
    let settings = run_settings(&slm, Some(&emulator));
    settings.bind(|| {
        insta::assert_snapshot!("status_before_probe", render(&before));
        insta::assert_snapshot!("status_after_probe", render(&after));
    });
}

#[test]
fn probe() {
    let emulator = Emulator::start(Profile::vllm());
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", "vllm")
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    let fresh = slm.run(["probe"], "");
    let cached = slm.run(["probe"], "");
    let settings = run_settings(&slm, Some(&emulator));
    settings.bind(|| {
        insta::assert_snapshot!("probe", render(&fresh));
        insta::assert_snapshot!("probe_cached", render(&cached));
    });
}

#[test]
fn config_list() {
    let mut slm = Slm::new();
    std::fs::write(
        slm.config_dir().join("config.toml"),
        "model = \"qwen2.5-coder-1.5b\"\nmax_tokens = 512\n",
    )
    .unwrap();
    slm.env("SLMCODE_ENDPOINT", "http://127.0.0.1:8080/v1");
    let run = slm.run(["config", "list"], "");
    run_settings(&slm, None).bind(|| insta::assert_snapshot!("config_list", render(&run)));
}
