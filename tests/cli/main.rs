//! The one integration test binary: runs the real `slmcode` binary in a scratch directory with
//! a cleared environment. One module per command.

mod repair;
mod schema;
mod util;
mod validate;
