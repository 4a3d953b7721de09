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

/// The anchors GitHub gives the headings of a Markdown text: lower case, every character but
/// letters, digits, spaces, `-` and `_` dropped, spaces made `-`; a repeated one gets `-1`,
/// `-2`, ... Headings inside code blocks are none.
fn anchors(markdown: &str) -> Vec<String> {
    let mut anchors: Vec<String> = Vec::new();
    let mut in_code = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let taken = anchors
            .iter()
            .filter(|known| {
                **known == slug
                    || known
                        .strip_prefix(slug.as_str())
                        .and_then(|rest| rest.strip_prefix('-'))
                        .is_some_and(|number| number.parse::<u32>().is_ok())
            })
            .count();
        anchors.push(if taken == 0 {
            slug
        } else {
            format!("{slug}-{taken}")
        });
    }
    anchors
}

#[test]
fn every_link_to_a_heading_finds_it() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut broken = Vec::new();
    for file in ["README.md", "bench/README.md"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let folder = root.join(file).parent().unwrap().to_owned();
        let mut at = 0;
        while let Some(found) = text[at..].find("](") {
            let start = at + found + 2;
            at = start;
            let Some(end) = text[start..].find(')') else {
                break;
            };
            let target = &text[start..start + end];
            let Some((path, anchor)) = target.split_once('#') else {
                continue;
            };
            if path.contains("://") || path.contains(' ') {
                continue;
            }
            let linked = if path.is_empty() {
                text.clone()
            } else {
                match std::fs::read_to_string(folder.join(path)) {
                    Ok(linked) => linked,
                    Err(error) => {
                        broken.push(format!("{file}: {target}: {error}"));
                        continue;
                    }
                }
            };
            if !anchors(&linked).iter().any(|known| known == anchor) {
                broken.push(format!("{file}: {target}: no such heading"));
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    assert_eq!(
        anchors("# A b\n```\n# not one\n```\n## The proxy (`benches/serve.rs`)\n# A b\n"),
        ["a-b", "the-proxy-benchesservers", "a-b-1"]
    );
}
