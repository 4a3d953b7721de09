//! `slmcode readiness [--fix]`: scores the SLM-safe settings and, with `--fix`, writes the
//! recommended values to config.toml and shows what changed.
//!
//! Readiness is advice: it exits 0 whatever the score, and non-zero only when the settings
//! cannot be read at all (a broken config file or variable: exit 1; a bad flag: exit 2).

use serde::Serialize;
use slmcode::config::readiness::{self, Assessment, Change};
use slmcode::config::{self, ConfigFile, Key, SettingSource};

use super::exit::{CommandResult, Exit};
use super::printer::Printer;
use super::printer::plain_table;
use super::settings_args::{self, SettingsArgs, config_error};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write the recommended values to config.toml (atomically; comments are kept) and show
    /// what changed. A model, an endpoint and where the key lives are left to you.
    #[arg(long)]
    fix: bool,

    #[command(flatten)]
    settings: SettingsArgs,
}

/// `--json` output of `slmcode readiness`.
#[derive(Debug, Serialize)]
struct Report<'a> {
    /// The points earned (after the fix, with `--fix`).
    score: u32,
    /// Always 100.
    max_score: u32,
    /// Every check: `{name, passed, current, recommended, points, max_points, changes: [{key,
    /// before, after}], advice}` (see `slmcode::config::readiness::Check`).
    checks: &'a [readiness::Check],
    /// The settings file checked and fixed.
    config_path: &'a std::path::Path,
    /// What `--fix` did; null without `--fix`.
    fix: Option<FixReport>,
}

/// What `readiness --fix` did.
#[derive(Debug, Serialize)]
struct FixReport {
    /// The score before the fix.
    score_before: u32,
    /// The values written: `{key, before, after}`, `before` being the value that applied.
    applied: Vec<Change>,
    /// Whether the file was written (false when there was nothing to fix).
    written: bool,
    /// Keys fixed in the file that a variable or flag still overrides: `{key, source}`.
    still_overridden: Vec<Overridden>,
}

/// A fixed key whose file value does not apply, and what wins instead.
#[derive(Debug, Serialize)]
struct Overridden {
    /// The key.
    key: Key,
    /// What overrides the file.
    source: SettingSource,
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let resolved = settings_args::resolve(&args.settings, printer)?;
    let assessment = readiness::assess(&resolved);
    if !args.fix {
        render(&assessment, &resolved.config_path, None, printer)?;
        return Ok(Exit::Success);
    }

    // The lock only for a write: with nothing to write, a read-only config directory is fine.
    let mut preview = config::read_document(&resolved.config_path).map_err(config_error)?;
    let needs_writing = assessment
        .changes()
        .any(|change| config::set_value(&mut preview, change.key, &change.after));
    let mut applied = Vec::new();
    if needs_writing {
        let mut file = ConfigFile::load(&resolved.config_path).map_err(config_error)?;
        for change in assessment.changes() {
            if config::set_value(file.document_mut(), change.key, &change.after) {
                applied.push(change.clone());
            }
        }
        if !applied.is_empty() {
            file.save().map_err(config_error)?;
        }
    }
    let written = !applied.is_empty();
    let still_overridden = assessment
        .changes()
        .filter_map(|change| match resolved.source(change.key) {
            source @ (SettingSource::Environment { .. } | SettingSource::Flag { .. }) => {
                Some(Overridden {
                    key: change.key,
                    source: source.clone(),
                })
            }
            _ => None,
        })
        .collect();
    // Re-read what was written, so the score shown is the one the next run will see. Warnings
    // were already printed once.
    let after = config::resolve(
        &config::Environment::from_process(),
        &args.settings.overrides(),
    )
    .map_err(config_error)?;
    let fixed = readiness::assess(&after);
    let fix = FixReport {
        score_before: assessment.score,
        applied,
        written,
        still_overridden,
    };
    render(&fixed, &after.config_path, Some(fix), printer)?;
    Ok(Exit::Success)
}

fn render(
    assessment: &Assessment,
    config_path: &std::path::Path,
    fix: Option<FixReport>,
    printer: &Printer,
) -> std::io::Result<()> {
    if printer.json() {
        return printer.json_value(&Report {
            score: assessment.score,
            max_score: 100,
            checks: &assessment.checks,
            config_path,
            fix,
        });
    }
    if let Some(fix) = &fix {
        if fix.applied.is_empty() {
            printer.note("nothing to fix in the config file");
        } else {
            printer.line(&format!("fixed in {}:", config_path.display()))?;
            for change in &fix.applied {
                printer.line(&format!(
                    "  {}: {} -> {}",
                    change.key,
                    change.before.display(),
                    change.after.display()
                ))?;
            }
        }
        for overridden in &fix.still_overridden {
            printer.warn(&format!(
                "{} was fixed in the file, but {} still overrides it",
                overridden.key, overridden.source
            ));
        }
    }
    let rows = assessment.checks.iter().map(|check| {
        vec![
            check.name.to_owned(),
            check.current.clone(),
            check.recommended.clone(),
            format!("{}/{}", check.points, check.max_points),
        ]
    });
    printer.line(&plain_table(
        &["check", "current", "recommended", "points"],
        rows,
    ))?;
    match &fix {
        Some(fix) if fix.score_before != assessment.score => printer.line(&format!(
            "score: {}/100 (was {})",
            assessment.score, fix.score_before
        ))?,
        _ => printer.line(&format!("score: {}/100", assessment.score))?,
    }
    for check in assessment.checks.iter().filter(|check| !check.passed) {
        if let Some(advice) = &check.advice {
            printer.note(&format!("{}: {advice}", check.name));
        }
    }
    let fixable = assessment.changes().count();
    if fix.is_none() && fixable > 0 {
        printer.note(&format!(
            "run `slmcode readiness --fix` to write {fixable} recommended value{} to {}",
            if fixable == 1 { "" } else { "s" },
            config_path.display()
        ));
    }
    Ok(())
}
