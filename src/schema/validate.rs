//! Validation of any JSON value against any JSON Schema, with every error at its JSON pointer.
//!
//! The work is done by the `jsonschema` crate (built without network or file resolution, so a
//! user schema never reaches outside the process). A schema is compiled once: [`validator`]
//! keeps compiled schemas in a small process-wide cache keyed by a structural hash, so callers
//! can pass the same `Value` again and again and pay only for the walk over the instance.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use jsonschema::ReferencingError;
use jsonschema::error::ValidationErrorKind;
use serde::Serialize;
use serde_json::Value;

use super::display_pointer;
use crate::memo::Memo;

/// A schema that could not be compiled (an unknown `$schema` draft, a `$ref` that does not
/// resolve locally, a keyword with a value of the wrong type, ...).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid schema at {pointer}: {message}", pointer = display_pointer(.pointer))]
#[non_exhaustive]
pub struct SchemaError {
    /// JSON pointer into the schema where the problem was found (`""` for the root).
    pub pointer: String,
    /// What the compiler objected to.
    pub message: String,
}

/// One way in which a value does not satisfy a schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ValidationError {
    /// JSON pointer into the instance (`""` for the root, `/steps/2/id` for a nested field).
    pub pointer: String,
    /// What is wrong there, e.g. `"x" is not of type "integer"`.
    pub message: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", display_pointer(&self.pointer), self.message)
    }
}

/// Every error found in one value, in the order the validator reports them. Never empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(transparent)]
pub struct Violations(pub Vec<ValidationError>);

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.0.len();
        write!(
            f,
            "{count} schema violation{}",
            if count == 1 { "" } else { "s" }
        )?;
        for error in &self.0 {
            write!(f, "\n  {error}")?;
        }
        Ok(())
    }
}

/// The most characters a validation message keeps: the validator quotes the offending value, and
/// a 10 MB value must not become a 10 MB error message.
pub const MESSAGE_LIMIT: usize = 400;

/// `message` cut to [`MESSAGE_LIMIT`] characters in the middle, where the quoted value is: its
/// start and the end of the sentence ("... is not of type \"string\"") stay.
fn bounded_message(message: String) -> String {
    let count = message.chars().count();
    if count <= MESSAGE_LIMIT {
        return message;
    }
    let head: String = message.chars().take(MESSAGE_LIMIT * 2 / 3).collect();
    let tail: String = message.chars().skip(count - MESSAGE_LIMIT / 4).collect();
    format!(
        "{head}... ({} characters left out) ...{tail}",
        count - head.chars().count() - tail.chars().count()
    )
}

/// Whether `text` is a UUID in its hyphenated form, hex digits in either case: what the grammar
/// generates for `format: uuid`, and what the validator checks under 2019-09 and later.
fn is_uuid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(at, byte)| match at {
            8 | 13 | 18 | 23 => *byte == b'-',
            _ => byte.is_ascii_hexdigit(),
        })
}

/// A compiled schema, ready to validate many values.
pub struct Validator {
    compiled: jsonschema::Validator,
}

impl fmt::Debug for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Validator").finish_non_exhaustive()
    }
}

impl Validator {
    /// Compiles `schema`. A schema without `$schema` is read as draft-07, the draft slmcode's
    /// contracts are written in; an explicit `$schema` picks its own draft. `format` is
    /// asserted, not just annotated, because a user who wrote it meant it.
    pub fn compile(schema: &Value) -> Result<Validator, SchemaError> {
        // `uuid` is checked under every draft: drafts before 2019-09 do not define it, and the
        // validator would accept any string where the grammar generates UUIDs.
        let mut options = jsonschema::options()
            .should_validate_formats(true)
            .with_format("uuid", is_uuid);
        let declares_draft = schema.get("$schema").is_some_and(Value::is_string);
        if !declares_draft {
            options = options.with_draft(jsonschema::Draft::Draft7);
        }
        let sidestepped = super::wide_objects::for_compiler(schema);
        options
            .build(sidestepped.as_ref().unwrap_or(schema))
            .map(|compiled| Validator { compiled })
            .map_err(|error| {
                let message = match error.kind() {
                    // The crate's own words name a feature of its build.
                    ValidationErrorKind::Referencing(ReferencingError::Unretrievable {
                        uri,
                        ..
                    }) => format!(
                        "`$ref` to {uri}: slmcode reads no schema from files or the network, \
                         only references inside the schema (`#/$defs/...`)"
                    ),
                    _ => error.to_string(),
                };
                SchemaError {
                    // The schema is the instance the meta-schema validates, so the instance path
                    // is the place in the user's schema; the schema path would point into the
                    // meta-schema.
                    pointer: error.instance_path().to_string(),
                    // The message quotes the offending part of the schema, which may be most of it.
                    message: bounded_message(message),
                }
            })
    }

    /// `Ok` when `value` satisfies the schema; otherwise every violation with its pointer.
    pub fn validate(&self, value: &Value) -> Result<(), Violations> {
        if self.compiled.is_valid(value) {
            return Ok(());
        }
        let mut errors: Vec<ValidationError> = Vec::new();
        for error in self.compiled.iter_errors(value) {
            let error = ValidationError {
                pointer: error.instance_path().to_string(),
                message: bounded_message(error.to_string()),
            };
            if !errors.contains(&error) {
                errors.push(error);
            }
        }
        Err(Violations(errors))
    }

    /// Whether `value` satisfies the schema; cheaper than [`Validator::validate`] when the
    /// errors are not needed.
    pub fn is_valid(&self, value: &Value) -> bool {
        self.compiled.is_valid(value)
    }
}

/// Why [`validate`] did not return `Ok`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ValidateError {
    /// The schema itself could not be compiled.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// The value does not satisfy the schema.
    #[error(transparent)]
    Violations(#[from] Violations),
}

/// Validates `value` against `schema`, compiling the schema on first use.
pub fn validate(schema: &Value, value: &Value) -> Result<(), ValidateError> {
    validator(schema)?.validate(value)?;
    Ok(())
}

/// The compiled form of `schema`, from the process-wide memo when it has been seen before.
pub fn validator(schema: &Value) -> Result<Arc<Validator>, SchemaError> {
    static MEMO: Memo<Value, Validator> = Memo::new();
    MEMO.get_or_try_insert(
        structural_hash(schema),
        |seen| seen == schema,
        || Ok((schema.clone(), Validator::compile(schema)?)),
    )
}

/// A hash of a JSON value's structure and contents, without serialising it. Schemas are
/// shallow, so recursion here is bounded by the schema's own nesting.
pub fn structural_hash(value: &Value) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    hash_value(value, &mut hasher);
    hasher.finish()
}

fn hash_value(value: &Value, hasher: &mut impl Hasher) {
    match value {
        Value::Null => 0u8.hash(hasher),
        Value::Bool(flag) => (1u8, flag).hash(hasher),
        Value::Number(number) => (2u8, number.to_string()).hash(hasher),
        Value::String(text) => (3u8, text).hash(hasher),
        Value::Array(items) => {
            (4u8, items.len()).hash(hasher);
            items.iter().for_each(|item| hash_value(item, hasher));
        }
        Value::Object(members) => {
            (5u8, members.len()).hash(hasher);
            for (key, member) in members {
                key.hash(hasher);
                hash_value(member, hasher);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan_like() -> Value {
        json!({
            "type": "object",
            "properties": {
                "steps": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"id": {"type": "integer"}, "title": {"type": "string"}},
                        "required": ["id", "title"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["steps"]
        })
    }

    #[test]
    fn reports_each_error_at_its_pointer() {
        let value =
            json!({"steps": [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}, {"id": "x"}]});
        let ValidateError::Violations(violations) = validate(&plan_like(), &value).unwrap_err()
        else {
            panic!("expected violations");
        };
        let rendered: Vec<String> = violations.0.iter().map(ToString::to_string).collect();
        assert!(
            rendered.contains(&r#"/steps/2/id: "x" is not of type "integer""#.to_owned()),
            "{rendered:?}"
        );
        assert!(
            rendered
                .iter()
                .any(|line| line.starts_with("/steps/2: ") && line.contains("title")),
            "{rendered:?}"
        );
    }

    #[test]
    fn uuid_is_checked_under_every_draft() {
        for draft in [
            None,
            Some("http://json-schema.org/draft-04/schema#"),
            Some("http://json-schema.org/draft-07/schema#"),
            Some("https://json-schema.org/draft/2020-12/schema"),
        ] {
            let mut schema = json!({"type": "string", "format": "uuid"});
            if let Some(draft) = draft {
                schema["$schema"] = json!(draft);
            }
            let validator = Validator::compile(&schema).unwrap();
            assert!(
                validator
                    .validate(&json!("123e4567-E89B-12d3-a456-426614174000"))
                    .is_ok(),
                "{draft:?}"
            );
            for wrong in [
                "not-a-uuid",
                "123e4567e89b12d3a456426614174000",
                "123e4567-e89b-12d3-a456-42661417400g",
                "123e4567-e89b-12d3-a456-4266141740000",
            ] {
                assert!(
                    validator.validate(&json!(wrong)).is_err(),
                    "{draft:?} {wrong}"
                );
            }
        }
    }

    #[test]
    fn a_schema_error_quotes_a_huge_subschema_in_part() {
        let branches: Vec<Value> = (0..2000)
            .map(|n| json!({"const": format!("value {n}")}))
            .collect();
        // `items` may be a schema or an array of them: the meta-schema's `anyOf` fails on the
        // whole subschema that holds the bad pattern, and the message quotes all of it.
        let schema = json!({"items": {
            "anyOf": branches,
            "properties": {"p": {"pattern": ".*\\{\\{.+}}.*"}}
        }});
        let error = Validator::compile(&schema).unwrap_err();
        assert_eq!(error.pointer, "/items");
        assert!(
            error.message.chars().count() < MESSAGE_LIMIT + 60,
            "{}",
            error.message
        );
    }

    #[test]
    fn a_reference_outside_the_schema_is_named_in_its_own_words() {
        for uri in ["http://127.0.0.1:9/x.json", "file:///etc/schema.json"] {
            let error = Validator::compile(&json!({"$ref": uri})).unwrap_err();
            assert!(
                error
                    .message
                    .starts_with(&format!("`$ref` to {uri}: slmcode reads no schema")),
                "{}",
                error.message
            );
        }
    }

    #[test]
    fn a_huge_value_is_quoted_in_part() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let value = json!({"a": {"k": "x".repeat(1_000_000)}});
        let errors = Validator::compile(&schema)
            .unwrap()
            .validate(&value)
            .unwrap_err()
            .0;
        assert_eq!(errors.len(), 1);
        let message = &errors[0].message;
        assert!(
            message.chars().count() < MESSAGE_LIMIT + 60,
            "{} chars",
            message.len()
        );
        assert!(message.starts_with("{\"k\":\"xxx"), "{message}");
        assert!(
            message.ends_with("\"} is not of type \"string\""),
            "{message}"
        );
        assert!(message.contains("characters left out"), "{message}");
    }

    #[test]
    fn root_errors_are_named_root() {
        let error = validate(&plan_like(), &json!([])).unwrap_err();
        assert!(
            error.to_string().contains("(root): [] is not of type"),
            "{error}"
        );
    }

    #[test]
    fn valid_values_pass() {
        let value = json!({"steps": [{"id": 1, "title": "a"}]});
        validate(&plan_like(), &value).unwrap();
    }

    #[test]
    fn formats_are_asserted() {
        let schema = json!({"type": "string", "format": "date"});
        assert!(validate(&schema, &json!("2026-11-30")).is_ok());
        assert!(validate(&schema, &json!("yesterday")).is_err());
    }

    #[test]
    fn bad_schemas_are_errors_not_panics() {
        let error = Validator::compile(&json!({"type": 12})).unwrap_err();
        assert!(!error.message.is_empty());
        let error = Validator::compile(&json!({"$ref": "https://example.com/s.json"})).unwrap_err();
        assert!(!error.message.is_empty());
    }

    #[test]
    fn the_cache_returns_the_same_compiled_schema() {
        let first = validator(&plan_like()).unwrap();
        let second = validator(&plan_like()).unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        let other = validator(&json!({"type": "string"})).unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
    }

    #[test]
    fn structural_hash_sees_contents_and_order() {
        assert_ne!(
            structural_hash(&json!({"a": 1})),
            structural_hash(&json!({"a": 2}))
        );
        assert_ne!(
            structural_hash(&json!([1, 2])),
            structural_hash(&json!([2, 1]))
        );
        assert_eq!(structural_hash(&plan_like()), structural_hash(&plan_like()));
    }
}
