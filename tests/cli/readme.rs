//! Every `sh` block of README.md, run against engine emulators (see
//! `tests/support/readme_runner.rs`).

use crate::readme_runner::{command_line, readme_blocks, run_blocks};

#[test]
fn every_command_in_the_readme_runs_as_documented() {
    let blocks = readme_blocks();
    assert!(
        blocks.len() >= 20,
        "found only {} sh blocks in README.md",
        blocks.len()
    );
    let (ran, failures) = run_blocks(&blocks.iter().collect::<Vec<_>>(), None);
    assert!(ran >= 75, "only {ran} README commands ran");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn annotations_and_comments_are_read_as_a_shell_would() {
    assert_eq!(command_line(1, "slmcode x   # exits 5: why").expected, [5]);
    assert_eq!(
        command_line(1, "slmcode x   # exits 3 or 5: no JSON, or the wrong shape").expected,
        [3, 5]
    );
    assert_eq!(
        command_line(1, "slmcode x   # exits 0, 3 or 5").expected,
        [0, 3, 5]
    );
    let prints = command_line(1, "slmcode x   # prints it");
    assert_eq!(prints.expected, [0]);
    assert_eq!(prints.prints.as_deref(), Some("it"));
    let quoted = command_line(
        1,
        "slmcode x   # exits 5: `/age: \"36\"` and `b`, with prose",
    );
    assert_eq!(quoted.expected, [5]);
    assert_eq!(quoted.quotes, ["/age: \"36\"", "b"]);
    assert_eq!(quoted.prints, None);
    let line = command_line(1, r##"printf '{"a": "#1"}' | slmcode repair   # exits 4"##);
    assert_eq!(line.text, r##"printf '{"a": "#1"}' | slmcode repair"##);
    assert_eq!(line.expected, [4]);
}
