//! Schemas: the contracts slmcode ships, and everything it does with a JSON Schema.
//!
//! This module owns the constraint mechanisms' names ([`Mechanism`]), validation
//! ([`validate()`]), the contract registry ([`contract`], [`contracts()`]), the lint of a
//! schema against the contract subset and OpenAI's strict rules ([`subset_problems`],
//! [`strict_problems`]), GBNF grammars
//! ([`gbnf`]: derivation, parsing, recognition), and the projection of a schema for each
//! mechanism ([`project`]). It depends on nothing else in the crate, so every other layer can
//! use it.

mod constraint;
pub(crate) mod contracts;
pub(crate) mod distinct;
pub mod gbnf;
pub(crate) mod lint;
mod mechanism;
mod pointer;
mod problem;
mod projection;
pub(crate) mod validate;
pub(crate) mod walk;
mod wide_objects;

pub use constraint::Constraint;
pub use contracts::{Contract, JSON_ONLY, UnknownContract, contract, contracts};
pub use lint::{is_strict_ready, strict_problems, subset_problems};
pub use mechanism::{Mechanism, UnknownMechanism};
pub(crate) use pointer::{decode_fragment, follow_refs, push_token, resolve_ref, unescape_token};
pub(crate) use pointer::{display_pointer, pointer_push};
pub use problem::Problem;
pub(crate) use problem::json_kind;
pub use projection::{Projection, project, project_with};
pub use validate::{
    SchemaError, ValidateError, ValidationError, Validator, Violations, validate, validator,
};
