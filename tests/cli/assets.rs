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
