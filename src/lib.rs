//! slmcode makes small and local language models return structured output a program can trust.
//!
//! The library is the core: it never prints and never exits. The `slmcode` binary is a thin
//! command-line layer over it (see `src/cli/`).
//!
//! Layers, from the bottom up:
//! - [`schema`]: the contract registry, validation with JSON-pointer paths, the supported
//!   schema subset and its linter, GBNF derivation and recognition, per-mechanism projection.
//!   It depends on nothing else in the crate but two private helpers every layer shares: `text`
//!   (line and column of an offset, "did you mean") and `memo` (the process-wide memo of
//!   compiled validators, grammars and tool sets).
//! - [`agents`]: role specs and `normalize_decoding` (contract, JSON-only, serial tools, stop
//!   sequences per role; language-specialised ids fold to their generic role).
//! - [`repair`]: the repair ladder (string-aware tolerant parsing, truncation detection, partial
//!   recovery, schema-driven coercion) and its statistics (pure counting: `repair` and
//!   `schema` do no I/O). Depends on `schema`.
//! - [`tools`]: a request's tools compiled into one constraint (JSON Schema `oneOf` and its
//!   GBNF, content-addressed), the `tool_choice` policy, and extraction of tool calls written
//!   as text. Depends on `schema` and `repair`.
//! - [`files`]: every file slmcode keeps (the config file, the capabilities cache, the repair
//!   statistics) is read, written (atomically) and edited (under a lock beside the file) here,
//!   and only regular files are touched. Depends on `repair` for the statistics' type.
//! - [`config`]: settings, with their provenance (flags > environment > file > defaults).
//! - [`backends`]: provider presets, transport, error classes and retry, probing, and the
//!   capabilities cache: which constraint mechanism an endpoint really supports.
//! - [`serve`]: an OpenAI-compatible proxy that puts the structured call path in front of an
//!   endpoint for any client of the chat API.

// Where tests live. A file's unit tests sit at its bottom, in `#[cfg(test)] mod tests { .. }`;
// when that would take the file past about 600 lines, they move to `<file>_tests.rs` beside it,
// declared `#[cfg(test)] #[path = "<file>_tests.rs"] mod tests;`. Tests that exercise a whole
// module through its public functions (corpora, end-to-end paths through the module) live in
// `<module>/tests.rs` or `<module>/tests/`. Tests of the binary run it for real, from
// `tests/cli/`; tests against real engines are in `tests/e2e/`.

#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(missing_docs)]

pub mod agents;
pub mod backends;
pub mod config;
pub mod files;
pub mod repair;
pub mod schema;
pub mod serve;
pub mod tools;

mod memo;
mod text;
