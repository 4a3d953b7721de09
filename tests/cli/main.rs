//! The one integration test binary: runs the real `slmcode` binary in a scratch directory with
//! a cleared environment. One module per command.

mod assets;
mod config;
mod doctor;
#[path = "../support/emulator.rs"]
mod emulator;
mod probe;
mod readiness;
mod repair;
mod roles;
mod schema;
mod settings_readme;
mod status;
mod util;
mod validate;
