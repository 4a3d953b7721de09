//! The one integration test binary: runs the real `slmcode` binary in a scratch directory with
//! a cleared environment. One module per command.

mod config;
mod readiness;
mod util;
mod validate;
