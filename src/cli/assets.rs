//! `slmcode assets [--check]`: the shell completions in `completions/` and the man pages in
//! `man/`, generated from the clap definitions. Hidden from help: it is for maintainers, and a
//! test runs `--check` so a change to the command line cannot ship with stale files.
//!
//! The directories may hold files of other names (it may run in a directory that is not the
//! repository): writing replaces and deletes only files of the names it generates, and `--check`
//! judges only those.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::CommandFactory;
use clap_complete::Shell;
use serde::Serialize;

use super::Cli;
use super::exit::{CliError, CommandResult, Exit};
use super::printer::Printer;

/// The command that rewrites the generated files; failure messages name it.
const REGENERATE: &str = "cargo run -- assets";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Compare the generated files with the ones on disk instead of writing them; exit 1 and
    /// name the stale ones when they differ.
    #[arg(long)]
    check: bool,

    /// The repository root that holds `completions/` and `man/`.
    #[arg(long, value_name = "DIR", default_value = ".")]
    dir: PathBuf,
}

/// One generated file: where it goes, relative to the root, and its contents.
struct Asset {
    path: PathBuf,
    contents: Vec<u8>,
}

/// `--json` output of `slmcode assets`.
#[derive(Debug, Serialize)]
struct Written {
    /// The root given with `--dir`, as given.
    dir: String,
    /// Every generated file, relative to the root, in a stable order.
    written: Vec<String>,
    /// Files of generated names that the generator no longer produces (a removed command), which
    /// were deleted. Files of other names are never touched.
    removed: Vec<String>,
}

/// `--json` output of `slmcode assets --check`.
#[derive(Debug, Serialize)]
struct Checked {
    /// The root given with `--dir`, as given.
    dir: String,
    /// Whether every generated file is on disk as generated and none is left over. Same as exit 0.
    current: bool,
    /// Generated files that are out of date or missing.
    stale: Vec<String>,
    /// Files of generated names that the generator no longer produces; `assets` deletes them.
    no_longer_generated: Vec<String>,
}

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let assets = generate()?;
    let leftover = leftover_files(&args.dir, &assets)?;
    if args.check {
        return check(&args.dir, &assets, leftover, printer);
    }
    let mut removed = Vec::new();
    for relative in leftover {
        let path = args.dir.join(&relative);
        std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
        removed.push(relative);
    }
    for asset in &assets {
        let path = args.dir.join(&asset.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, &asset.contents)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if printer.json() {
        printer.json_value(&Written {
            dir: args.dir.display().to_string(),
            written: assets
                .iter()
                .map(|asset| asset.path.display().to_string())
                .collect(),
            removed,
        })?;
    } else {
        printer.note(&format!(
            "wrote {} files under completions/ and man/",
            assets.len()
        ));
        if !removed.is_empty() {
            printer.note(&format!("removed {}", removed.join(", ")));
        }
    }
    Ok(Exit::Success)
}

fn check(
    root: &Path,
    assets: &[Asset],
    no_longer_generated: Vec<String>,
    printer: &Printer,
) -> CommandResult {
    let stale: Vec<String> = assets
        .iter()
        .filter(|asset| {
            std::fs::read(root.join(&asset.path)).ok().as_deref() != Some(&asset.contents[..])
        })
        .map(|asset| asset.path.display().to_string())
        .collect();
    let report = Checked {
        dir: root.display().to_string(),
        current: stale.is_empty() && no_longer_generated.is_empty(),
        stale,
        no_longer_generated,
    };
    if report.current {
        if printer.json() {
            printer.json_value(&report)?;
        } else {
            printer.note(&format!("{} generated files are up to date", assets.len()));
        }
        return Ok(Exit::Success);
    }
    let mut message = String::from("generated files are stale");
    if !report.stale.is_empty() {
        message.push_str(&format!(
            "; out of date or missing: {}",
            report.stale.join(", ")
        ));
    }
    if !report.no_longer_generated.is_empty() {
        message.push_str(&format!(
            "; no longer generated: {}",
            report.no_longer_generated.join(", ")
        ));
    }
    let hint = format!("run `{REGENERATE}` in the repository root and commit the result");
    if printer.json() {
        // The report is the answer on stdout; an error document there as well would make two.
        printer.json_value(&report)?;
        printer.error(&anyhow::anyhow!(message), Some(&hint));
        return Ok(Exit::Failure);
    }
    Err(CliError::new(Exit::Failure, anyhow::anyhow!(message)).with_hint(hint))
}

/// Files in `completions/` or `man/` that have a generated file's name but that the generator no
/// longer produces (a removed command). Only these names are the generator's: a user may keep
/// other files beside them (notes, a hand-written page), and those are never listed, so never
/// deleted.
fn leftover_files(root: &Path, assets: &[Asset]) -> Result<Vec<String>, CliError> {
    let mut leftover = Vec::new();
    for directory in ["completions", "man"] {
        let Ok(entries) = std::fs::read_dir(root.join(directory)) else {
            continue;
        };
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot list {directory}/"))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                continue;
            };
            // A directory, even of a generated name, was made by someone else.
            let is_directory = entry.file_type().is_ok_and(|kind| kind.is_dir());
            if is_directory || !has_generated_name(directory, name) {
                continue;
            }
            let relative = Path::new(directory).join(name);
            if !assets.iter().any(|asset| asset.path == relative) {
                leftover.push(relative.display().to_string());
            }
        }
    }
    leftover.sort();
    Ok(leftover)
}

/// Whether `name` in `directory` is a name the generator gives its files: `slmcode.<shell>` or
/// `_slmcode[.<ext>]` for a completion script, `slmcode.1` or `slmcode-<command>.1` for a man page.
fn has_generated_name(directory: &str, name: &str) -> bool {
    match directory {
        "completions" => {
            name.starts_with("slmcode.") || name == "_slmcode" || name.starts_with("_slmcode.")
        }
        _ => name == "slmcode.1" || (name.starts_with("slmcode-") && name.ends_with(".1")),
    }
}

/// Every generated file, in a stable order. Man pages carry the plain version, not the commit,
/// so they change only when the command line or the version does.
fn generate() -> Result<Vec<Asset>, CliError> {
    let mut assets = Vec::new();
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::Elvish,
        Shell::PowerShell,
    ] {
        let mut command = Cli::command();
        let mut contents = Vec::new();
        clap_complete::generate(shell, &mut command, "slmcode", &mut contents);
        let name = match shell {
            Shell::Bash => "slmcode.bash",
            Shell::Zsh => "_slmcode",
            Shell::Fish => "slmcode.fish",
            Shell::Elvish => "slmcode.elv",
            _ => "_slmcode.ps1",
        };
        assets.push(Asset {
            path: Path::new("completions").join(name),
            contents,
        });
    }
    let mut command = Cli::command()
        .long_version(env!("CARGO_PKG_VERSION"))
        .disable_help_subcommand(true);
    command.build();
    man_pages(&command, &mut assets)?;
    Ok(assets)
}

fn man_pages(command: &clap::Command, assets: &mut Vec<Asset>) -> Result<(), CliError> {
    let page = clap_mangen::Man::new(command.clone());
    let mut contents = Vec::new();
    page.render(&mut contents)
        .context("cannot render a man page")?;
    assets.push(Asset {
        path: Path::new("man").join(page.get_filename()),
        contents,
    });
    for subcommand in command
        .get_subcommands()
        .filter(|subcommand| !subcommand.is_hide_set())
    {
        man_pages(subcommand, assets)?;
    }
    Ok(())
}
