//! The command line itself, before any command runs: a usage error clap finds is one with
//! `--json` too (the error document on stdout, clap's words on stderr, exit 2), and help and
//! the version follow the rule of every output (a full stdout is exit 1).

use serde_json::json;

use crate::util::{Slm, dev_full};

#[test]
fn a_usage_error_clap_finds_is_the_error_document_under_json() {
    let slm = Slm::new();
    let plan = crate::util::repo_root().join("examples/contracts/plan.json");
    let plan = plan.to_str().unwrap();
    let cases: [(&[&str], &str, &str); 6] = [
        (
            &["--json", "repair", "--bogus"],
            "unexpected argument '--bogus' found",
            "to pass '--bogus' as a value, use '-- --bogus'; usage: slmcode repair [OPTIONS] [FILE]",
        ),
        (
            &["schema", "--json"],
            "'slmcode schema' requires a subcommand but one was not provided \
             [subcommands: list, show, check, gbnf, match, help]",
            "usage: slmcode schema [OPTIONS] <COMMAND>",
        ),
        (
            // No other argument: clap answers with the help on stderr, the document is the same.
            &["--json", "schema"],
            "'slmcode schema' requires a subcommand but one was not provided \
             [subcommands: list, show, check, gbnf, match, help]",
            "usage: slmcode schema [OPTIONS] <COMMAND>",
        ),
        (
            &["--json", "validate", plan],
            "the following required arguments were not provided: \
             <--schema <CONTRACT>|--schema-file <FILE>>",
            "usage: slmcode validate <--schema <CONTRACT>|--schema-file <FILE>> <FILE>",
        ),
        (
            &[
                "--json",
                "validate",
                "--schema",
                "plan",
                "--schema-file",
                plan,
                plan,
            ],
            "the argument '--schema <CONTRACT>' cannot be used with '--schema-file <FILE>'",
            "usage: slmcode validate <--schema <CONTRACT>|--schema-file <FILE>> <FILE>",
        ),
        (
            &["--json", "--color", "sometimes", "repair"],
            "invalid value 'sometimes' for '--color <WHEN>' [possible values: auto, always, never]",
            "",
        ),
    ];
    for (args, message, hint) in cases {
        let run = slm.run(args, "");
        run.code(2);
        let hint = if hint.is_empty() {
            json!(null)
        } else {
            json!(hint)
        };
        assert_eq!(
            run.json(),
            json!({"error": {"kind": "usage", "exit_code": 2, "message": message, "causes": [],
                "hint": hint}}),
            "{args:?}"
        );
        // stderr keeps clap's own words: those of the same line with another global flag.
        let quiet: Vec<&str> = args
            .iter()
            .map(|arg| if *arg == "--json" { "-q" } else { arg })
            .collect();
        let plain = slm.run(&quiet, "");
        plain.code(2);
        assert_eq!(plain.stdout, "", "{args:?}");
        assert_eq!(run.stderr, plain.stderr, "{args:?}");
    }
    // After `--`, `--json` is a value, not the flag.
    let run = slm.run(["repair", "--bogus", "--", "--json"], "");
    run.code(2);
    assert_eq!(run.stdout, "");
}

#[test]
fn help_and_the_version_to_a_full_stdout_are_an_error_that_names_stdout() {
    let slm = Slm::new();
    for args in [
        &["help"][..],
        &["--help"],
        &["-h"],
        &["--version"],
        &["schema", "--help"],
        &["help", "schema", "check"],
        &["--json", "--help"],
    ] {
        let output = slm
            .command(args)
            .stdout(dev_full())
            .stderr(std::process::Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: cannot write to stdout: No space left on device"),
            "{args:?}: {stderr}"
        );
    }
    // Help is still a success where it can be written.
    let run = slm.run(["help"], "");
    run.code(0);
    assert!(
        run.stdout.starts_with("Structured output"),
        "{}",
        run.stdout
    );
}
