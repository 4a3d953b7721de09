//! `slmcode schema check FILE`: lint a user's JSON Schema, section by section.
//!
//! The report is a list of sections, each answering one question about the schema with every
//! problem found (JSON pointer and reason). A section is one entry in [`SECTIONS`]: a name, the
//! question, whether `--allow` may waive it, and the lint function.
//!
//! Exit code: 0 when no section fails; 1 when a section that is not allowed has problems. A
//! schema that does not compile always fails (`compile` cannot be allowed), because no
//! mechanism can use it. The other sections fail by default, as a linter's checks do, because
//! each problem means some mechanism will not enforce the schema as written; but a user schema
//! outside the contract subset, or not strict-ready, is still fully honoured by validation, so
//! `--allow subset` / `--allow strict` / `--allow grammar` report those problems without failing
//! on them (a grammar that is not exact is still sent, and validation catches the rest).

use std::path::PathBuf;

use clap::builder::PossibleValuesParser;
use serde::Serialize;
use serde_json::Value;
use slmcode::schema::{self, Problem, Validator};

use crate::cli::exit::{CommandResult, Exit};
use crate::cli::input::load_schema_file;
use crate::cli::printer::Printer;

/// One question the check answers about a schema.
struct Section {
    /// The name in the report and in `--allow`.
    name: &'static str,
    /// What a section without problems means.
    title: &'static str,
    /// Whether `--allow` may turn this section's problems into warnings.
    allowable: bool,
    /// Every problem of the schema for this section.
    lint: fn(&Value) -> Vec<Problem>,
}

/// The sections, in report order.
const SECTIONS: &[Section] = &[
    Section {
        name: "compile",
        title: "compiles as a JSON Schema",
        allowable: false,
        lint: compile_problems,
    },
    Section {
        name: "subset",
        title: "inside the contract subset",
        allowable: true,
        lint: schema::subset_problems,
    },
    Section {
        name: "strict",
        title: "ready for OpenAI strict mode",
        allowable: true,
        lint: schema::strict_problems,
    },
    Section {
        name: "grammar",
        title: "expressible as an exact GBNF grammar",
        allowable: true,
        lint: schema::gbnf::grammar_problems,
    },
];

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The JSON Schema file to check; `-` reads stdin.
    #[arg(value_name = "FILE")]
    file: PathBuf,

    /// Report this section's problems without failing on them (repeatable).
    #[arg(long, value_name = "SECTION", value_parser = allowable_sections())]
    allow: Vec<String>,
}

fn allowable_sections() -> PossibleValuesParser {
    PossibleValuesParser::new(
        SECTIONS
            .iter()
            .filter(|section| section.allowable)
            .map(|section| section.name),
    )
}

/// `--json` output of `slmcode schema check`.
#[derive(Debug, Serialize)]
struct Report {
    /// The schema file, as given.
    file: String,
    /// Whether the check passed: no section that is not allowed has problems. Same as exit 0.
    ok: bool,
    /// One entry per section, in a fixed order: `compile`, `subset`, `strict`.
    sections: Vec<SectionReport>,
}

/// One section of `slmcode schema check --json`.
#[derive(Debug, Serialize)]
struct SectionReport {
    /// `compile`, `subset` or `strict`.
    name: &'static str,
    /// What passing this section means, such as "inside the contract subset".
    title: &'static str,
    /// Whether `--allow` waived this section: its problems do not fail the check.
    allowed: bool,
    /// Whether the section found no problems.
    passed: bool,
    /// Every problem: `pointer` into the schema, `keyword` when there is one, `reason`.
    problems: Vec<Problem>,
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let file = args.file.display().to_string();
    let schema = load_schema_file(&args.file)?;
    let sections: Vec<SectionReport> = SECTIONS
        .iter()
        .map(|section| {
            let problems = (section.lint)(&schema);
            SectionReport {
                name: section.name,
                title: section.title,
                allowed: args.allow.iter().any(|name| name == section.name),
                passed: problems.is_empty(),
                problems,
            }
        })
        .collect();
    let failing: Vec<&str> = sections
        .iter()
        .filter(|section| !section.passed && !section.allowed)
        .map(|section| section.name)
        .collect();
    let report = Report {
        file,
        ok: failing.is_empty(),
        sections,
    };
    if printer.json() {
        printer.json_value(&report)?;
    } else {
        render(&report, &failing, printer)?;
    }
    Ok(if report.ok {
        Exit::Success
    } else {
        Exit::Failure
    })
}

fn render(report: &Report, failing: &[&str], printer: &Printer) -> std::io::Result<()> {
    for section in &report.sections {
        let count = section.problems.len();
        let status = match (count, section.allowed) {
            (0, _) => "ok".to_owned(),
            (count, allowed) => format!(
                "{count} problem{}{}",
                if count == 1 { "" } else { "s" },
                if allowed { ", allowed" } else { "" }
            ),
        };
        printer.line(&format!("{} ({}): {status}", section.name, section.title))?;
        for problem in &section.problems {
            printer.line(&format!("  {problem}"))?;
        }
    }
    if !failing.is_empty() {
        let waivable = failing.iter().all(|name| {
            SECTIONS
                .iter()
                .any(|section| section.name == *name && section.allowable)
        });
        printer.note(&format!(
            "{} fails the check: {}{}",
            report.file,
            failing.join(", "),
            if waivable {
                " (`--allow SECTION` reports a section without failing on it)"
            } else {
                ""
            }
        ));
    }
    Ok(())
}

/// The compiler's objection, if it has one: a schema that does not compile fails every use.
fn compile_problems(schema: &Value) -> Vec<Problem> {
    match Validator::compile(schema) {
        Ok(_) => Vec::new(),
        Err(error) => vec![Problem {
            pointer: error.pointer,
            keyword: None,
            reason: error.message,
        }],
    }
}
