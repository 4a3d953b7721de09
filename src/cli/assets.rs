//! `slmcode assets [--check]`: the shell completions in `completions/` and the man pages in
//! `man/`, generated from the clap definitions. Hidden from help: it is for maintainers, and a
//! test runs `--check` so a change to the command line cannot ship with stale files.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::CommandFactory;
use clap_complete::Shell;

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

pub fn run(args: Args, printer: &Printer) -> CommandResult {
    let assets = generate()?;
    if args.check {
        let stale: Vec<String> = assets
            .iter()
            .filter(|asset| {
                std::fs::read(args.dir.join(&asset.path)).ok().as_deref()
                    != Some(&asset.contents[..])
            })
            .map(|asset| asset.path.display().to_string())
            .collect();
        let extra = unexpected_files(&args.dir, &assets)?;
        if stale.is_empty() && extra.is_empty() {
            printer.note(&format!("{} generated files are up to date", assets.len()));
            return Ok(Exit::Success);
        }
        let mut message = String::from("generated files are stale");
        if !stale.is_empty() {
            message.push_str(&format!("; out of date or missing: {}", stale.join(", ")));
        }
        if !extra.is_empty() {
            message.push_str(&format!("; no longer generated: {}", extra.join(", ")));
        }
        return Err(
            CliError::new(Exit::Failure, anyhow::anyhow!(message)).with_hint(format!(
                "run `{REGENERATE}` in the repository root and commit the result"
            )),
        );
    }
    for directory in ["completions", "man"] {
        let directory = args.dir.join(directory);
        if directory.exists() {
            std::fs::remove_dir_all(&directory)
                .with_context(|| format!("cannot clear {}", directory.display()))?;
        }
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
    printer.note(&format!(
        "wrote {} files under completions/ and man/",
        assets.len()
    ));
    Ok(Exit::Success)
}

/// Files in `completions/` or `man/` that the generator no longer produces (a removed command).
fn unexpected_files(root: &Path, assets: &[Asset]) -> Result<Vec<String>, CliError> {
    let mut extra = Vec::new();
    for directory in ["completions", "man"] {
        let Ok(entries) = std::fs::read_dir(root.join(directory)) else {
            continue;
        };
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot list {directory}/"))?;
            let relative = Path::new(directory).join(entry.file_name());
            if !assets.iter().any(|asset| asset.path == relative) {
                extra.push(relative.display().to_string());
            }
        }
    }
    extra.sort();
    Ok(extra)
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
