//! The one integration test binary: runs the real `slmcode` binary in a scratch directory with
//! a cleared environment. One module per command.

mod assets;
mod config;
mod readiness;
mod roles;
mod schema;
mod settings_readme;
mod util;
mod validate;
