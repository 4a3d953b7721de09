use crate::util::{Slm, repo_root};

#[test]
fn committed_completions_and_man_pages_are_up_to_date() {
    let slm = Slm::new();
    let run = slm.run(
        ["assets", "--check", "--dir", repo_root().to_str().unwrap()],
        "",
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn a_stale_or_extra_file_fails_the_check_and_names_the_command_to_run() {
    let slm = Slm::new();
    let copy = slm.work_dir().join("copy");
    slm.run(["assets", "--dir", copy.to_str().unwrap()], "")
        .code(0);
    slm.run(["assets", "--check", "--dir", copy.to_str().unwrap()], "")
        .code(0);

    std::fs::write(copy.join("man/slmcode-roles.1"), "old page\n").unwrap();
    std::fs::write(copy.join("completions/slmcode.tcsh"), "old\n").unwrap();
    let run = slm.run(["assets", "--check", "--dir", copy.to_str().unwrap()], "");
    run.code(1);
    assert_eq!(
        run.stderr,
        "error: generated files are stale; out of date or missing: man/slmcode-roles.1; \
         no longer generated: completions/slmcode.tcsh\n\
         hint: run `cargo run -- assets` in the repository root and commit the result\n"
    );
}

#[test]
fn writing_keeps_files_it_does_not_generate_and_removes_only_its_own_leftovers() {
    let slm = Slm::new();
    let notes = slm.file("man/notes.txt", "my notes\n");
    let script = slm.file("completions/mine.sh", "alias s=slmcode\n");
    let page = slm.file("man/other-tool.1", ".TH other\n");
    let leftover = slm.file("man/slmcode-gone.1", "a removed command's page\n");

    // The user's files are not the generator's: they neither fail the check nor get listed.
    let run = slm.run(["--json", "assets", "--check"], "");
    run.code(1);
    let report = run.json();
    assert_eq!(report["current"], false);
    assert_eq!(
        report["no_longer_generated"],
        serde_json::json!(["man/slmcode-gone.1"])
    );

    let run = slm.run(["--json", "assets"], "");
    run.code(0);
    let report = run.json();
    assert_eq!(report["dir"], ".");
    assert_eq!(report["removed"], serde_json::json!(["man/slmcode-gone.1"]));
    let written = report["written"].as_array().unwrap();
    assert!(written.contains(&"man/slmcode.1".into()), "{report}");
    assert!(
        written.contains(&"completions/slmcode.bash".into()),
        "{report}"
    );
    assert!(!leftover.exists());
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "my notes\n");
    assert_eq!(
        std::fs::read_to_string(&script).unwrap(),
        "alias s=slmcode\n"
    );
    assert_eq!(std::fs::read_to_string(&page).unwrap(), ".TH other\n");

    let run = slm.run(["--json", "assets", "--check"], "");
    run.code(0);
    assert_eq!(
        run.json(),
        serde_json::json!({"dir": ".", "current": true, "stale": [], "no_longer_generated": []})
    );
}

#[test]
fn a_failed_check_in_json_reports_the_stale_files_and_still_explains_on_stderr() {
    let slm = Slm::new();
    let copy = slm.work_dir().join("copy");
    let copy = copy.to_str().unwrap();
    slm.run(["assets", "--dir", copy], "").code(0);
    std::fs::write(slm.work_dir().join("copy/man/slmcode-roles.1"), "old\n").unwrap();
    let run = slm.run(["--json", "assets", "--check", "--dir", copy], "");
    run.code(1);
    assert_eq!(
        run.json(),
        serde_json::json!({
            "dir": copy,
            "current": false,
            "stale": ["man/slmcode-roles.1"],
            "no_longer_generated": []
        })
    );
    assert!(
        run.stderr.starts_with(
            "error: generated files are stale; out of date or missing: man/slmcode-roles.1\n"
        ),
        "{}",
        run.stderr
    );
}

#[test]
fn the_completions_cover_every_shell_and_the_man_pages_every_command() {
    let root = repo_root();
    for name in [
        "slmcode.bash",
        "_slmcode",
        "slmcode.fish",
        "slmcode.elv",
        "_slmcode.ps1",
    ] {
        let script = std::fs::read_to_string(root.join("completions").join(name)).unwrap();
        assert!(
            script.contains("readiness"),
            "{name} does not complete subcommands"
        );
    }
    for page in [
        "slmcode.1",
        "slmcode-validate.1",
        "slmcode-schema-list.1",
        "slmcode-config-set.1",
    ] {
        let text = std::fs::read_to_string(root.join("man").join(page)).unwrap();
        assert!(
            text.starts_with(".ie \\n(.g .ds Aq"),
            "{page} is not a man page"
        );
    }
}

#[test]
fn version_names_the_commit() {
    let slm = Slm::new();
    let run = slm.run(["--version"], "");
    run.code(0);
    let version = run.stdout.trim();
    let expected_prefix = concat!("slmcode ", env!("CARGO_PKG_VERSION"), " (commit ");
    assert!(
        version.starts_with(expected_prefix) && version.ends_with(')'),
        "{version}"
    );
    let commit = &version[expected_prefix.len()..version.len() - 1];
    assert!(
        commit == "unknown" || commit.chars().all(|c| c.is_ascii_hexdigit()),
        "{version}"
    );
}
