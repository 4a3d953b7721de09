//! Schemas: the contracts slmcode ships, and everything it does with a JSON Schema.
//!
//! This module owns the constraint mechanisms' names ([`Mechanism`]), validation
//! ([`validate`]) and GBNF grammars ([`gbnf`]: derivation, parsing, recognition). It depends on nothing else in the crate, so every other layer can use it.

mod constraint;
pub mod gbnf;
mod mechanism;
mod problem;
pub mod validate;

pub use constraint::Constraint;
pub use mechanism::{Mechanism, UnknownMechanism};
pub use problem::{Problem, pointer_push};
pub use validate::{
    SchemaError, ValidateError, ValidationError, Validator, Violations, validate, validator,
};
