//! All of the binary's output goes through the [`Printer`].
//!
//! stdout carries only data (a value, a table, a `--json` document); messages go to stderr;
//! progress goes to stderr and only when stderr is a terminal. Colour follows `--color`, then
//! `NO_COLOR`, then whether the stream is a terminal, and output reads the same without it.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::borrow::Cow;
use std::io::{self, IsTerminal, Write};
use std::time::Duration;

use clap::ValueEnum;
use serde::Serialize;

/// When to colour output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when the stream is a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    Always,
    Never,
}

/// A reader that closed stdout (`slmcode ... | head -c1`) has read all it wanted: that is not a
/// failure, and the command still exits with its own verdict (a failed match stays 5). Any
/// other failure (a full disk) is an error that says it was stdout.
fn reader_gone_is_fine(written: io::Result<()>) -> io::Result<()> {
    match written {
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        Err(error) => Err(io::Error::new(
            error.kind(),
            format!("cannot write to stdout: {error}"),
        )),
        Ok(()) => Ok(()),
    }
}

/// Where and how a command writes.
#[derive(Clone, Debug)]
pub struct Printer {
    json: bool,
    quiet: bool,
    color_stderr: bool,
    progress: bool,
}

impl Printer {
    pub fn new(json: bool, quiet: bool, color: ColorChoice) -> Printer {
        let stderr_is_terminal = io::stderr().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
        let color_stderr = match color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => stderr_is_terminal && !no_color,
        };
        Printer {
            json,
            quiet,
            color_stderr,
            progress: stderr_is_terminal && !quiet,
        }
    }

    /// Whether the user asked for `--json`.
    pub fn json(&self) -> bool {
        self.json
    }

    /// Writes `text` and a newline to stdout.
    pub fn line(&self, text: &str) -> io::Result<()> {
        let mut stdout = io::stdout().lock();
        reader_gone_is_fine((|| {
            stdout.write_all(text.as_bytes())?;
            stdout.write_all(b"\n")?;
            stdout.flush()
        })())
    }

    /// Writes `text` to stdout exactly as given.
    pub fn raw(&self, text: &str) -> io::Result<()> {
        let mut stdout = io::stdout().lock();
        reader_gone_is_fine((|| {
            stdout.write_all(text.as_bytes())?;
            stdout.flush()
        })())
    }

    /// Writes `value` as pretty JSON and a newline to stdout, with the writer that keeps a
    /// deep value's output linear in its size ([`slmcode::repair::to_pretty`]: serde_json's own
    /// pretty printer indents every level, n² bytes for n levels).
    pub fn json_value<T: Serialize + ?Sized>(&self, value: &T) -> io::Result<()> {
        let document = serde_json::to_value(value).map_err(io::Error::other)?;
        let mut text = slmcode::repair::to_pretty(&document);
        slmcode::repair::drop_deep(document);
        text.push('\n');
        self.raw(&text)
    }

    /// Writes a table to stdout, in the one style every command uses ([`plain_table`]).
    pub fn table(
        &self,
        header: &[&str],
        rows: impl IntoIterator<Item = Vec<String>>,
    ) -> io::Result<()> {
        self.line(&plain_table(header, rows))
    }

    /// A message for the user on stderr; silenced by `-q`.
    pub fn note(&self, text: &str) {
        if !self.quiet {
            to_stderr(&format!("{}\n", visible(text)));
        }
    }

    /// `warning: ...` on stderr; silenced by `-q`.
    pub fn warn(&self, text: &str) {
        if !self.quiet {
            to_stderr(&format!(
                "{}: {}\n",
                self.paint("warning", "1;33"),
                visible(text)
            ));
        }
    }

    /// A line of a long-running command's log on stderr (`serve`): its output, never silenced.
    pub fn log(&self, text: &str) {
        to_stderr(&format!("{}\n", visible(text)));
    }

    /// An error with its causes and a hint, on stderr; never silenced.
    pub fn error(&self, error: &anyhow::Error, hint: Option<&str>) {
        let mut text = format!(
            "{}: {}\n",
            self.paint("error", "1;31"),
            visible(&error.to_string())
        );
        for cause in error.chain().skip(1) {
            text.push_str(&format!("  caused by: {}\n", visible(&cause.to_string())));
        }
        if let Some(hint) = hint {
            text.push_str(&format!(
                "{}: {}\n",
                self.paint("hint", "1;36"),
                visible(hint)
            ));
        }
        to_stderr(&text);
    }

    /// A spinner on stderr while network work runs; a no-op unless stderr is a terminal.
    pub fn spinner(&self, message: &str) -> indicatif::ProgressBar {
        if !self.progress {
            return indicatif::ProgressBar::hidden();
        }
        let spinner = indicatif::ProgressBar::new_spinner();
        spinner.set_message(message.to_owned());
        spinner.enable_steady_tick(Duration::from_millis(100));
        spinner
    }

    fn paint(&self, text: &str, style: &str) -> String {
        if self.color_stderr {
            format!("\x1b[{style}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

/// Writes `text` to stderr, and nothing happens when it cannot be written (a full disk, a closed
/// descriptor): the data went to stdout and the exit code says how the command went, so a
/// message that cannot be shown must not turn into a panic.
fn to_stderr(text: &str) {
    let mut stderr = io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
}

/// An error and its causes on one line, `: ` between them, for a warning.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}

/// `text` with its control characters other than line breaks and tabs written as escapes
/// (`\u{1b}`): a message or table echoes what the user or a server wrote, and a raw escape
/// sequence in it would drive the terminal (clear the screen, set the title).
fn visible(text: &str) -> Cow<'_, str> {
    let control = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if control(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Aligned columns without borders, two spaces apart, no trailing spaces: easy to read and to
/// `grep`/`awk`.
pub fn plain_table(header: &[&str], rows: impl IntoIterator<Item = Vec<String>>) -> String {
    let mut table = comfy_table::Table::new();
    table
        .load_style(comfy_table::presets::NOTHING)
        .set_header(header.to_vec());
    for row in rows {
        table.add_row(row.iter().map(|cell| visible(cell)));
    }
    for column in table.column_iter_mut() {
        column.set_padding((0, 2));
    }
    table.trim_fmt()
}
