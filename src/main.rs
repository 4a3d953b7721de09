//! The `slmcode` binary: parse the command line, run the command, map the outcome to an exit code.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod cli;

/// The stack of the thread that runs a command. A model's answer may be nested as deep as the
/// repair ladder reads ([`slmcode::repair::MAX_DEPTH`] levels), and cloning, validating,
/// serialising and dropping such a value recurse once per level in `serde_json` and the
/// validator: this is room for that at the frame sizes of a debug build. It is reserved
/// address space; only the pages a command touches are ever used.
const STACK_BYTES: usize = 64 * 1024 * 1024 + slmcode::repair::MAX_DEPTH * 8 * 1024;

fn main() -> std::process::ExitCode {
    match std::thread::Builder::new()
        .name("slmcode".to_owned())
        .stack_size(STACK_BYTES)
        .spawn(cli::main)
    {
        Ok(command) => command
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        // No thread to be had (a tight limit on threads or memory): run on this one.
        Err(_) => cli::main(),
    }
}
