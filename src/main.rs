//! The `slmcode` binary: parse the command line, run the command, map the outcome to an exit code.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
