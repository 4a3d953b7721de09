//! A reader that closes stdout early (`slmcode ... | head -c1`) is not an error: no error is
//! reported on stderr, and the command still exits with its own verdict.

use crate::util::Slm;

#[test]
fn a_closed_stdout_keeps_the_verdict_and_is_no_error() {
    let slm = Slm::new();
    let plan =
        std::fs::read_to_string(crate::util::repo_root().join("examples/contracts/plan.json"))
            .unwrap();
    let not_a_plan = r#"{"goal": "x", "steps": []}"#;
    let broken = "Sure:\n```json\n{\"a\": 1,}\n```";
    let rows: &[(&[&str], &str, i32)] = &[
        (&["schema", "match", "plan"], &plan, 0),
        (&["schema", "match", "plan"], not_a_plan, 5),
        (&["--json", "schema", "match", "plan"], not_a_plan, 5),
        (&["validate", "--schema", "plan"], &plan, 0),
        (&["validate", "--schema", "plan"], not_a_plan, 5),
        (&["--json", "validate", "--schema", "plan"], not_a_plan, 5),
        (&["repair"], broken, 0),
        (&["repair", "--pretty"], broken, 0),
        (&["--json", "repair"], broken, 0),
        (&["--json", "repair", "--schema", "plan"], not_a_plan, 5),
        (&["--json", "repair"], "{\"a\": [1, 2", 4),
        (&["--json", "repair"], "no JSON here", 3),
    ];
    for (args, input, code) in rows {
        let run = slm.run_with_stdout_closed(*args, input);
        run.code(*code);
        assert!(
            !run.stderr.lines().any(|line| line.starts_with("error:")),
            "{args:?}: {}",
            run.stderr
        );
    }
}
