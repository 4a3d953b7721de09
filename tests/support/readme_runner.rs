//! The README runner: every command the README shows is run, so the README cannot rot. The
//! tests that use it are `tests/cli/readme.rs` (every block, against emulators) and
//! `tests/e2e/readme.rs` (the llama.cpp blocks, against the real server).
//!
//! Each ```` ```sh ```` block of README.md runs in a scratch world of its own: a temporary config
//! directory and home, a working directory holding the repository's `examples/`, `completions/`
//! and `man/`, and `slmcode` first on `PATH`. The world starts with the README's set-up done (a
//! llama.cpp server at the default endpoint, emulated). A server URL the block names
//! (`http://127.0.0.1:11434/v1`, ...) is served by an emulator of the engine the block sets up
//! (`config set provider ollama`: the Ollama profile), or without one of the engine the URL
//! belongs to, the models the block names included. Each line is one command, run with bash
//! (`pipefail` on). What its trailing comment claims is checked:
//! - it must exit 0, or a code its `# exits N` (`# exits N or M`) comment names;
//! - `# prints TEXT` (the whole comment): stdout is TEXT, exactly (the final newline aside);
//! - every `` `fragment` `` in the comment is a quote of the output: it must appear in stdout or
//!   stderr. Comment text outside backticks is prose for people.
//!
//! `export NAME=value` sets a variable for the lines after it.
//!
//! Lines that are not run here, and why: `cargo install` (builds the release binary; CI builds
//! the same code), `cargo test` and `.ci/run` (they are this test run). `cargo run -q -- ARGS` is
//! run as `slmcode ARGS`.
//!
//! The end-to-end suite runs the blocks that name llama.cpp's endpoint against the real server
//! ([`run_real_engine_blocks`]).

// Each test binary uses part of the runner.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::emulator::{Emulator, Profile};
use crate::util::repo_root;

/// One command of a block: its line in the README, its text, the exit codes it may end with,
/// and what its comment claims it prints.
#[derive(Debug)]
pub struct Line {
    pub number: usize,
    pub text: String,
    pub expected: Vec<i32>,
    /// `# prints TEXT`: stdout, exactly.
    pub prints: Option<String>,
    /// The `` `fragments` `` of the comment: each appears in stdout or stderr.
    pub quotes: Vec<String>,
}

/// One ```` ```sh ```` block.
#[derive(Debug)]
pub struct Block {
    pub number: usize,
    pub lines: Vec<Line>,
}

impl Block {
    fn text(&self) -> String {
        self.lines
            .iter()
            .map(|line| line.text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// An endpoint the README names, and the provider whose engine it belongs to when the block
/// does not say.
type Engine = (&'static str, &'static str);

/// The endpoints a block may name.
const ENGINES: [Engine; 7] = [
    ("http://127.0.0.1:8080/v1", "llamacpp"),
    ("http://127.0.0.1:11434/v1", "ollama"),
    ("http://127.0.0.1:8000/v1", "vllm"),
    ("http://127.0.0.1:1234/v1", "lmstudio"),
    ("http://127.0.0.1:30000/v1", "sglang"),
    ("https://api.openai.com/v1", "openai"),
    ("https://my-resource.openai.azure.com/openai/v1", "azure"),
];

/// The provider a block sets up (`config set provider X`), if it does.
fn provider_of(block: &Block) -> Option<String> {
    block.lines.iter().rev().find_map(|line| {
        let words: Vec<&str> = line.text.split_whitespace().collect();
        words
            .windows(4)
            .find(|window| window[..3] == ["config", "set", "provider"])
            .map(|window| window[3].to_owned())
    })
}

/// The README's endpoint for llama.cpp, which the world starts configured with.
const LLAMA_CPP: &str = "http://127.0.0.1:8080/v1";

pub fn readme_blocks() -> Vec<Block> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let mut blocks = Vec::new();
    let mut current: Option<Block> = None;
    let mut in_other_fence = false;
    for (index, raw) in readme.lines().enumerate() {
        let number = index + 1;
        let trimmed = raw.trim_end();
        if let Some(block) = current.as_mut() {
            if trimmed == "```" {
                blocks.push(current.take().unwrap());
            } else if !trimmed.trim().is_empty() && !trimmed.trim_start().starts_with('#') {
                block.lines.push(command_line(number, trimmed));
            }
        } else if in_other_fence {
            in_other_fence = !trimmed.starts_with("```");
        } else if trimmed == "```sh" {
            current = Some(Block {
                number,
                lines: Vec::new(),
            });
        } else if trimmed.starts_with("```") {
            in_other_fence = true;
        }
    }
    assert!(
        current.is_none() && !in_other_fence,
        "README.md has an unclosed code fence"
    );
    blocks
}

/// A command line, its `# exits N` (or `# exits N, M or P`) annotation read off its trailing
/// comment (without one it must exit 0), and the output the comment claims.
pub fn command_line(number: usize, text: &str) -> Line {
    let (command, comment) = split_comment(text);
    let prints = comment
        .and_then(|comment| comment.trim().strip_prefix("prints "))
        .map(str::to_owned);
    let quotes = comment
        .map(|comment| {
            comment
                .split('`')
                .skip(1)
                .step_by(2)
                .filter(|quote| !quote.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let mut expected = Vec::new();
    if let Some(rest) = comment.and_then(|comment| comment.trim().strip_prefix("exits ")) {
        let codes = rest.split(':').next().unwrap_or_default();
        expected = codes
            .replace(" or ", ",")
            .split(',')
            .map_while(|code| code.trim().parse().ok())
            .collect();
    }
    if expected.is_empty() {
        expected.push(0);
    }
    Line {
        number,
        text: command.trim_end().to_owned(),
        expected,
        prints,
        quotes,
    }
}

/// Splits `text` at its first `#` that starts a shell comment (outside quotes, after a space).
fn split_comment(text: &str) -> (&str, Option<&str>) {
    let mut quote = None;
    let mut previous = ' ';
    for (at, character) in text.char_indices() {
        match (quote, character) {
            (None, '"' | '\'') => quote = Some(character),
            (Some(open), _) if character == open => quote = None,
            (None, '#') if previous.is_whitespace() => return (&text[..at], Some(&text[at + 1..])),
            _ => {}
        }
        previous = character;
    }
    (text, None)
}

/// Models a block names (`config set model X`, `--model X`), so the emulator serves them.
fn models_named(block: &Block) -> Vec<String> {
    let mut models = Vec::new();
    for line in &block.lines {
        let words: Vec<&str> = line.text.split_whitespace().collect();
        for pair in words.windows(2) {
            if pair[0] == "model" || pair[0] == "--model" {
                models.push(pair[1].to_owned());
            }
        }
    }
    models
}

/// A scratch world for one block.
struct World {
    root: tempfile::TempDir,
    env: BTreeMap<String, String>,
    /// README URL -> the URL that serves it in this world.
    endpoints: Vec<(String, String)>,
    /// Kept alive for the block's duration.
    _emulators: Vec<Emulator>,
}

impl World {
    fn new(block: &Block, real_llama_cpp: Option<&str>) -> World {
        let root = tempfile::tempdir().expect("temp dir");
        let work = root.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        for shared in ["examples", "completions", "man"] {
            std::os::unix::fs::symlink(repo_root().join(shared), work.join(shared)).unwrap();
        }
        let config = root.path().join("config");
        std::fs::create_dir_all(&config).unwrap();
        let text = block.text();
        let models = models_named(block);
        let provider = provider_of(block);
        let mut emulators = Vec::new();
        let mut endpoints = Vec::new();
        for (url, engine) in ENGINES {
            let serves_block = text.contains(url);
            if url != LLAMA_CPP && !serves_block {
                continue;
            }
            // The world's own llama.cpp server is llama.cpp's; an endpoint the block names is
            // served by the engine the block sets up.
            let engine = match &provider {
                Some(provider) if serves_block => provider.as_str(),
                _ => engine,
            };
            let served = match real_llama_cpp {
                Some(real) if url == LLAMA_CPP => real.to_owned(),
                _ => {
                    let mut profile = Profile::for_provider(engine)
                        .unwrap_or_else(|| panic!("no emulator profile for provider {engine}"));
                    profile.models.extend(models.iter().cloned());
                    let emulator = Emulator::start(profile);
                    let served = emulator.base_url();
                    emulators.push(emulator);
                    served
                }
            };
            endpoints.push((url.to_owned(), served));
        }
        let llama = &endpoints
            .iter()
            .find(|(url, _)| url == LLAMA_CPP)
            .unwrap()
            .1;
        std::fs::write(
            config.join("config.toml"),
            format!("# the README's set-up: a llama.cpp server\nprovider = \"llamacpp\"\nendpoint = \"{llama}\"\n"),
        )
        .unwrap();
        let binary = Path::new(env!("CARGO_BIN_EXE_slmcode"));
        let path = format!(
            "{}:{}",
            binary.parent().unwrap().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let env = BTreeMap::from([
            ("PATH".to_owned(), path),
            (
                "HOME".to_owned(),
                root.path().join("home").display().to_string(),
            ),
            (
                "SLMCODE_CONFIG_DIR".to_owned(),
                config.display().to_string(),
            ),
            ("NO_COLOR".to_owned(), "1".to_owned()),
            ("MANPAGER".to_owned(), "cat".to_owned()),
            ("MANWIDTH".to_owned(), "100".to_owned()),
        ]);
        World {
            root,
            env,
            endpoints,
            _emulators: emulators,
        }
    }

    fn work_dir(&self) -> PathBuf {
        self.root.path().join("work")
    }

    /// Runs one line; returns `None` for a line that is not run here.
    fn run(&mut self, line: &Line) -> Option<(i32, String, String)> {
        let mut text = line.text.clone();
        if text.starts_with("cargo install")
            || text.starts_with("cargo test")
            || text.contains(".ci/run")
        {
            return None;
        }
        if let Some(rest) = text.strip_prefix("cargo run -q -- ") {
            text = format!("slmcode {rest}");
        }
        for (url, served) in &self.endpoints {
            text = text.replace(url.as_str(), served);
        }
        if let Some(assignment) = text.strip_prefix("export ") {
            let (name, value) = assignment.split_once('=').expect("export NAME=value");
            self.env
                .insert(name.to_owned(), value.trim_matches('"').to_owned());
            return Some((0, String::new(), String::new()));
        }
        std::fs::create_dir_all(self.root.path().join("home")).unwrap();
        let output = Command::new("bash")
            .arg("-c")
            .arg(format!("set -o pipefail\n{text}"))
            .current_dir(self.work_dir())
            .env_clear()
            .envs(&self.env)
            .output()
            .expect("run bash");
        Some((
            output.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ))
    }
}

/// Runs `blocks`, returning a description of every line that did not exit as the README says.
pub fn run_blocks(blocks: &[&Block], real_llama_cpp: Option<&str>) -> (usize, Vec<String>) {
    let mut ran = 0;
    let mut failures = Vec::new();
    for block in blocks {
        let mut world = World::new(block, real_llama_cpp);
        for line in &block.lines {
            let Some((code, stdout, stderr)) = world.run(line) else {
                continue;
            };
            ran += 1;
            let mut wrong = Vec::new();
            if !line.expected.contains(&code) {
                wrong.push(format!("exited {code}, expected {:?}", line.expected));
            }
            if let Some(prints) = &line.prints
                && stdout.strip_suffix('\n').unwrap_or(&stdout) != prints
            {
                wrong.push(format!("printed something else than {prints:?}"));
            }
            for quote in &line.quotes {
                if !stdout.contains(quote.as_str()) && !stderr.contains(quote.as_str()) {
                    wrong.push(format!("did not say `{quote}`"));
                }
            }
            if !wrong.is_empty() {
                failures.push(format!(
                    "README.md:{} (block at line {}): `{}` {}\n--- stdout\n{}\n--- stderr\n{}",
                    line.number,
                    block.number,
                    line.text,
                    wrong.join("; "),
                    stdout.chars().take(2000).collect::<String>(),
                    stderr.chars().take(2000).collect::<String>(),
                ));
            }
        }
    }
    (ran, failures)
}

/// The end-to-end half: the README blocks that name llama.cpp's endpoint, against `endpoint`.
pub fn run_real_engine_blocks(endpoint: &str) -> (usize, Vec<String>) {
    let blocks = readme_blocks();
    let llama_blocks: Vec<&Block> = blocks
        .iter()
        .filter(|block| block.text().contains(LLAMA_CPP))
        .collect();
    assert!(
        !llama_blocks.is_empty(),
        "no README block names {LLAMA_CPP}"
    );
    run_blocks(&llama_blocks, Some(endpoint))
}
