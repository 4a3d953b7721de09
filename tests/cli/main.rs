//! The one integration test binary: runs the real `slmcode` binary in a scratch directory with
//! a cleared environment. One module per command.

mod assets;
mod command_line;
mod config;
mod config_files;
mod doctor;
#[path = "../support/emulator.rs"]
mod emulator;
mod examples;
mod faults;
mod generate;
mod generate_tools;
mod hostile;
mod pipes;
mod probe;
mod readiness;
mod readme;
#[path = "../support/readme_runner.rs"]
mod readme_runner;
mod repair;
mod roles;
mod schema;
mod schema_gbnf;
mod serve;
mod serve_hostile;
mod serve_structured;
mod settings_readme;
#[path = "../support/skip.rs"]
mod skip;
mod snapshots;
mod status;
mod text_fallback;
mod thinking;
#[path = "../support/tls_server.rs"]
mod tls_server;
mod tools;
mod util;
mod validate;
