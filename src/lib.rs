//! slmcode makes small and local language models return structured output a program can trust.
//!
//! The library is the core: it never prints and never exits. The `slmcode` binary is a thin
//! command-line layer over it (see `src/cli/`).
//!
//! Layers, from the bottom up:
//! - [`files`]: how slmcode writes the files it keeps (atomically) and edits them (under a
//!   lock beside the file). It depends on nothing else in the crate.
//! - [`schema`]: the contract registry, validation with JSON-pointer paths, the supported
//!   schema subset and its linter, GBNF derivation and recognition, per-mechanism projection.
//!   It depends on nothing else in the crate.
//! - [`agents`]: role specs and `normalize_decoding` (contract, JSON-only, serial tools, stop
//!   sequences per role; language-specialised ids fold to their generic role).
//! - [`repair`]: the repair ladder (string-aware tolerant parsing, truncation detection, partial
//!   recovery, schema-driven coercion) and its statistics. Depends on `schema` (and `files`,
//!   for the statistics file).
//! - [`tools`]: a request's tools compiled into one constraint (JSON Schema `oneOf` and its
//!   GBNF, content-addressed), the `tool_choice` policy, and extraction of tool calls written
//!   as text. Depends on `schema` and `repair`.
//! - [`config`]: settings, with their provenance (flags > environment > file > defaults).
//! - [`backends`]: provider presets, transport, error classes and retry, probing, and the
//!   capabilities cache: which constraint mechanism an endpoint really supports.
//! - [`serve`]: an OpenAI-compatible proxy that puts the structured call path in front of an
//!   endpoint for any client of the chat API.

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
