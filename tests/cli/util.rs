//! Running the real binary the way a user would, but isolated: a temporary config directory,
//! a cleared environment (no API keys, no user config), `NO_COLOR`.

// Not every test binary module uses every helper.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::emulator::Emulator;

/// A scratch world for one test: its own config directory and working directory.
pub struct Slm {
    root: tempfile::TempDir,
    extra_env: Vec<(String, String)>,
}

/// What one run of the binary produced.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// stdout parsed as JSON; panics with the whole run when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|error| panic!("stdout is not JSON ({error}):\n{self:#?}"))
    }

    /// Asserts the exit code, showing the whole run when it differs.
    #[track_caller]
    pub fn code(&self, expected: i32) -> &Run {
        assert_eq!(self.code, expected, "unexpected exit code:\n{self:#?}");
        self
    }
}

impl Slm {
    pub fn new() -> Slm {
        let root = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(root.path().join("config")).unwrap();
        std::fs::create_dir_all(root.path().join("work")).unwrap();
        Slm {
            root,
            extra_env: Vec::new(),
        }
    }

    /// Sets an environment variable for every later run.
    pub fn env(&mut self, key: &str, value: &str) -> &mut Slm {
        self.extra_env.push((key.to_owned(), value.to_owned()));
        self
    }

    /// The config directory the binary is pointed at (`SLMCODE_CONFIG_DIR`).
    pub fn config_dir(&self) -> PathBuf {
        self.root.path().join("config")
    }

    /// The working directory runs start in.
    pub fn work_dir(&self) -> PathBuf {
        self.root.path().join("work")
    }

    /// Writes a file under the working directory and returns its path.
    pub fn file(&self, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.work_dir().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(&path, contents).unwrap();
        path
    }

    /// The command, ready to run, without stdin.
    pub fn command<I, S>(&self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut command = Command::new(env!("CARGO_BIN_EXE_slmcode"));
        command
            .args(args)
            .current_dir(self.work_dir())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.root.path())
            .env("XDG_CONFIG_HOME", self.root.path().join("xdg"))
            .env("SLMCODE_CONFIG_DIR", self.config_dir())
            .env("NO_COLOR", "1");
        for (key, value) in &self.extra_env {
            command.env(key, value);
        }
        command
    }

    /// Runs with `args` and the given stdin (none: stdin is empty).
    pub fn run<I, S>(&self, args: I, stdin: impl AsRef<[u8]>) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn slmcode");
        let input = stdin.as_ref().to_vec();
        let mut pipe = child.stdin.take().unwrap();
        // Write from a thread: a large input must not deadlock against a full stdout pipe.
        let writer = std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
        let output = child.wait_with_output().expect("wait for slmcode");
        writer.join().unwrap();
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

impl Slm {
    /// Runs with `args` and the given stdin, with stdout's reading end closed before the
    /// binary gets its input (`slmcode ... | head -c0`): a command that reads stdin first
    /// always finds its stdout gone when it writes. stdout is empty in the result.
    pub fn run_with_stdout_closed<I, S>(&self, args: I, stdin: impl AsRef<[u8]>) -> Run
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn slmcode");
        drop(child.stdout.take());
        let mut pipe = child.stdin.take().unwrap();
        let _ = pipe.write_all(stdin.as_ref());
        drop(pipe);
        let output = child.wait_with_output().expect("wait for slmcode");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::new(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// `/dev/full`, opened for writing: every write to it fails with "no space left".
pub fn dev_full() -> Stdio {
    Stdio::from(
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full"),
    )
}

/// The repository's root, for fixtures and shipped examples.
pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch world whose runs go to `emulator` as `provider`.
pub fn slm_for(emulator: &Emulator, provider: &str) -> Slm {
    let mut slm = Slm::new();
    slm.env("SLMCODE_PROVIDER", provider)
        .env("SLMCODE_ENDPOINT", &emulator.base_url());
    slm
}

/// The config file the binary reads (`config.toml` in the config directory).
pub fn config_file(slm: &Slm) -> PathBuf {
    slm.config_dir().join("config.toml")
}

/// Writes the config file; returns its path.
pub fn write_config(slm: &Slm, contents: &str) -> PathBuf {
    let path = config_file(slm);
    std::fs::write(&path, contents).unwrap();
    path
}

/// The config file as it is now.
pub fn read_config(slm: &Slm) -> String {
    std::fs::read_to_string(config_file(slm)).unwrap()
}

/// `generate` asking the `scope_judge` contract whether a README is in scope, then `extra`.
pub fn scope(extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "generate".to_owned(),
        "--schema".to_owned(),
        "scope_judge".to_owned(),
        "--prompt".to_owned(),
        "Is a README in scope?".to_owned(),
    ];
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    args
}
