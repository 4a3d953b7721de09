//! The repair corpus: how small models break JSON, one row per way, with the value (or failure
//! class) and the rungs each must produce. The rows live in `tests/fixtures/repair/<kind>.json`,
//! one file per thing wrong with the input (fences, trailing_commas, truncated, ...); rows are
//! written from what models do, not copied from any other library's tests.
//!
//! To add a row, append an object to the file of its kind (or start a new file with the same
//! shape): `input`, then either `value` (the expected JSON value) with `rungs` (the rungs that
//! change something, in ladder order; the last is the reported rung, `none` when empty) or
//! `fails` (the failure class), and optionally `why`. `cargo test --lib repair::tests::corpus`
//! checks them all.
//!
//! Every successful row is also run through the ladder-honesty check: with exactly the rungs
//! the row lists, the same value comes out; without any one of them, it does not; with none
//! of them, it does not.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::repair::{RepairOptions, Rung, RungSet, repair};

/// The folder of the corpus files, read at test time: `tests/fixtures` is not in the package.
fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/repair")
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    /// What is wrong with the inputs of this file.
    about: String,
    rows: Vec<Row>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Row {
    input: String,
    value: Option<Value>,
    rungs: Option<Vec<String>>,
    fails: Option<String>,
    /// Why the row expects what it does, where that is not plain.
    #[serde(rename = "why")]
    _why: Option<String>,
}

/// One corpus row, named by its file and index for the messages.
pub(crate) struct Case {
    pub(crate) file: String,
    pub(crate) index: usize,
    pub(crate) input: String,
    pub(crate) expect: Expect,
}

#[derive(Debug, PartialEq)]
pub(crate) enum Expect {
    /// The value and the rungs that changed something, in ladder order; the last one is the
    /// reported rung (`none` when the list is empty).
    Value(Value, Vec<Rung>),
    /// A failure of this class.
    Fails(String),
}

impl Case {
    fn name(&self) -> String {
        format!("{}[{}] {:?}", self.file, self.index, self.input)
    }
}

/// Every row of every corpus file, in file-name order; a file or row that does not have the
/// shape above fails here, naming it.
pub(crate) fn every_row() -> Vec<Case> {
    let dir = folder();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|error| panic!("{}: {error}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    paths.sort();
    let mut cases = Vec::new();
    for path in paths {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{file}: {error}"));
        let parsed: File =
            serde_json::from_str(&text).unwrap_or_else(|error| panic!("{file}: {error}"));
        assert!(
            !parsed.about.is_empty() && !parsed.rows.is_empty(),
            "{file} is empty"
        );
        for (index, row) in parsed.rows.into_iter().enumerate() {
            let expect = match (row.value, row.rungs, row.fails) {
                (Some(value), Some(names), None) => {
                    Expect::Value(value, rungs(&file, index, &names))
                }
                (None, None, Some(class)) => Expect::Fails(class),
                _ => panic!("{file}[{index}]: a row has `value` and `rungs`, or `fails`"),
            };
            cases.push(Case {
                file: file.clone(),
                index,
                input: row.input,
                expect,
            });
        }
    }
    cases
}

fn rungs(file: &str, index: usize, names: &[String]) -> Vec<Rung> {
    names
        .iter()
        .map(|name| {
            Rung::from_name(name).unwrap_or_else(|| panic!("{file}[{index}]: no rung {name}"))
        })
        .collect()
}

/// Checks every row; collects all mismatches before failing so one run shows them all.
#[test]
fn every_row_of_the_corpus_repairs_as_written() {
    let cases = every_row();
    let problems: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            check_one(case)
                .err()
                .map(|problem| format!("{}: {problem}", case.name()))
        })
        .collect();
    assert!(
        problems.is_empty(),
        "{} of {} rows are wrong:\n{}",
        problems.len(),
        cases.len(),
        problems.join("\n")
    );
}

fn check_one(case: &Case) -> Result<(), String> {
    let result = repair(&case.input, &RepairOptions::new());
    match (&case.expect, result) {
        (Expect::Value(expected, listed), Ok(repaired)) => {
            if !listed.windows(2).all(|pair| pair[0] < pair[1]) {
                return Err("the row lists its rungs out of ladder order".into());
            }
            if repaired.value != *expected {
                return Err(format!("value {}", repaired.value));
            }
            if repaired.rungs_changed != *listed {
                return Err(format!("rungs {:?}", repaired.rungs_changed));
            }
            let reported = listed.last().copied().unwrap_or(Rung::None);
            if repaired.rung != reported {
                return Err(format!("reported rung {}", repaired.rung));
            }
            honest(&case.input, expected, listed)
        }
        (Expect::Value(..), Err(failure)) => Err(format!(
            "failed: {} ({})",
            failure.class.as_str(),
            failure.message
        )),
        (Expect::Fails(class), Err(failure)) if failure.class.as_str() == class => Ok(()),
        (Expect::Fails(_), Err(failure)) => Err(format!(
            "failed as {} ({})",
            failure.class.as_str(),
            failure.message
        )),
        (Expect::Fails(_), Ok(repaired)) => Err(format!(
            "repaired into {} by {}",
            repaired.value, repaired.rung
        )),
    }
}

/// The ladder semantics, checked by running the ladder with only some rungs.
fn honest(input: &str, expected: &Value, listed: &[Rung]) -> Result<(), String> {
    let only = RungSet::of(listed);
    match repair(input, &RepairOptions::new().rungs(only)) {
        Ok(repaired) if repaired.value == *expected => {}
        other => return Err(format!("with only its rungs: {other:?}")),
    }
    for rung in listed {
        let without = only.without(*rung);
        if let Ok(repaired) = repair(input, &RepairOptions::new().rungs(without))
            && repaired.value == *expected
        {
            return Err(format!("{rung} was listed but not needed"));
        }
    }
    let stopped_before = listed
        .last()
        .map(|last| RungSet::ALL.without(*last).to_vec());
    if let Some(allowed) = stopped_before {
        let prefix: Vec<Rung> = allowed
            .into_iter()
            .filter(|rung| rung < listed.last().unwrap())
            .collect();
        if let Ok(repaired) = repair(input, &RepairOptions::new().rungs(RungSet::of(&prefix)))
            && repaired.value == *expected
        {
            return Err("the ladder stopped one rung early and still parsed".into());
        }
    }
    Ok(())
}

#[test]
fn the_corpus_covers_every_rung_but_coerce_and_every_failure_class() {
    let cases = every_row();
    assert!(cases.len() >= 600, "{} rows", cases.len());
    for rung in Rung::ALL {
        if rung == Rung::Coerce {
            continue;
        }
        let named = cases.iter().any(|case| match &case.expect {
            Expect::Value(_, listed) => listed.last().copied().unwrap_or(Rung::None) == rung,
            Expect::Fails(_) => false,
        });
        assert!(named, "no row reports {rung}");
    }
    for class in ["empty", "prose", "malformed", "truncated"] {
        let named = cases
            .iter()
            .any(|case| matches!(&case.expect, Expect::Fails(named) if named == class));
        assert!(named, "no row fails as {class}");
    }
}

/// The same input may sit in two files (a row on the other side of another kind's rule), but
/// never with two expectations.
#[test]
fn an_input_listed_twice_expects_the_same_both_times() {
    let cases = every_row();
    let mut seen: std::collections::HashMap<&str, &Case> = std::collections::HashMap::new();
    for case in &cases {
        if let Some(first) = seen.insert(&case.input, case) {
            assert_eq!(
                first.expect,
                case.expect,
                "{} and {}",
                first.name(),
                case.name()
            );
        }
    }
}
