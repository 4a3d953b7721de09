//! One word per idea (the glossary at the crate root): no two public types of the library share
//! a name, and no public type takes a name that already means something else nearby.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Bare names that are ambiguous in this crate: `Value` is `serde_json::Value`; a source,
/// outcome or failure is always named with what it is the source, outcome or failure of.
const AMBIGUOUS: [&str; 4] = ["Value", "Source", "Outcome", "Failure"];

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            // The binary's own types are not the library's vocabulary.
            if path.file_name().is_some_and(|name| name != "cli") {
                rust_files(&path, into);
            }
        } else if path.extension().is_some_and(|extension| extension == "rs")
            && path.file_name().is_some_and(|name| name != "main.rs")
        {
            into.push(path);
        }
    }
}

/// Every `pub struct`, `pub enum`, `pub trait` and `pub type` at the start of a line, with the
/// files that declare it.
fn public_types() -> BTreeMap<String, Vec<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut types: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text.lines() {
            for keyword in ["pub struct ", "pub enum ", "pub trait ", "pub type "] {
                if let Some(rest) = line.strip_prefix(keyword) {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    let shown = file.strip_prefix(&root).unwrap().display().to_string();
                    types.entry(name).or_default().push(shown);
                }
            }
        }
    }
    types
}

#[test]
fn no_two_public_types_share_a_name() {
    let types = public_types();
    assert!(types.len() > 100, "found {} public types", types.len());
    let shared: Vec<_> = types.iter().filter(|(_, files)| files.len() > 1).collect();
    assert!(shared.is_empty(), "one name, several types: {shared:?}");
}

#[test]
fn no_public_type_has_an_ambiguous_bare_name() {
    let types = public_types();
    for name in AMBIGUOUS {
        assert!(
            !types.contains_key(name),
            "`{name}` is declared in {:?}; name it for what it is",
            types[name]
        );
    }
}

/// Words the glossary retired, each for the word that now means it: a retired word must not
/// come back as a name (a comment may still tell its history in other words).
const RETIRED: [(&str, &str); 7] = [
    ("evolve", "re-ask (`call::reask`, `ReaskAction`)"),
    ("EVOLVE", "REASK_ACTIONS"),
    (
        "struct Exchange",
        "Walk: the walk down the mechanism chain (one HTTP exchange is `exchange`)",
    ),
    ("struct Plan ", "CallPlan (`plan` is a contract)"),
    ("mod forward", "relay (`backends::relay`, `Relayed`)"),
    (
        "StreamEnd ",
        "StreamEnding, the one enum of how an answer's stream ended",
    ),
    (
        "struct Failed",
        "what failed (`ParseFailure`, `FailedOutput`; the call's `Ending`)",
    ),
];

#[test]
fn retired_words_stay_retired() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    rust_files(&root.join("cli"), &mut files);
    for file in files {
        if file.ends_with("naming_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for line in text
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
        {
            for (word, now) in RETIRED {
                let found = line.match_indices(word).any(|(at, _)| {
                    !line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
                        && !line[at + word.len()..]
                            .starts_with(|c: char| c.is_alphanumeric() || c == '_')
                });
                assert!(
                    !found,
                    "{}: `{word}` is retired, say {now}: {line}",
                    file.display()
                );
            }
        }
    }
}
