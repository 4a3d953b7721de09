//! Projection: the form of a schema that goes on the wire for one mechanism.
//!
//! [`project`] is a pure function of the schema and the mechanism. What it returns is only
//! what the engine is asked to enforce; the output is always validated against the original
//! schema, so a keyword projected away is still checked, only later. Every keyword it drops
//! is in [`Projection::notes`] with its JSON pointer and the reason.
//!
//! The rule set:
//!
//! - **`json_schema`** (`response_format` with a `json_schema`): `strict` is true only when
//!   [`is_strict_ready`](super::is_strict_ready) holds for the original schema (OpenAI's rules,
//!   see [`strict_problems`](super::strict_problems)); a strict-ready schema already uses only
//!   keywords OpenAI documents, so nothing else changes for OpenAI. The same request shape goes
//!   to engines that convert the schema into a grammar themselves (llama-server with
//!   `common/json-schema-to-grammar.cpp`, vLLM, SGLang, LM Studio, Ollama), and llama.cpp's
//!   converter writes `maxLength: N` as `char{0,N}` and `maxItems` as a repetition of a group,
//!   which llama.cpp's current grammar parser refuses from 2000 repetitions on
//!   (`MAX_REPETITION_THRESHOLD` in `src/llama-grammar.cpp`, multiplied by the rules of a
//!   repeated group): such a build answers HTTP 400 "failed to parse grammar", and the
//!   mechanism would be demoted for a bound no model reaches. (Builds differ: the server in
//!   `tests/real-engine` accepts a single long repetition and refuses the repeated group.) So
//!   `minLength`, `maxLength`, `minItems` and `maxItems` above [`WIRE_BOUND_LIMIT`] are dropped.
//!   The `name` is the schema's `title` reduced to `[a-zA-Z0-9_-]{1,64}` (OpenAI's rule), or
//!   `response`.
//! - **`guided_json`** (vLLM `structured_outputs.json` / `guided_json`): the bounds above
//!   [`WIRE_BOUND_LIMIT`] as for `json_schema` (xgrammar expands them as well), and the
//!   keywords vLLM's xgrammar backend does not enforce (vLLM's
//!   `has_xgrammar_unsupported_json_features`): `multipleOf`, `uniqueItems`, `contains`,
//!   `minContains`, `maxContains`, `patternProperties`, `propertyNames`, a `format` outside
//!   xgrammar's list, and `minLength` / `maxLength` beside a `pattern` or `format` (xgrammar
//!   compiles the pattern and drops the lengths). With vLLM's default backend choice such a
//!   keyword sends the request to a slower backend; with xgrammar chosen explicitly it fails
//!   the request.
//! - **`gbnf_grammar`** (`grammar`): the grammar [`derive`](super::gbnf::derive()) makes, exact for
//!   the contract subset, with the whitespace the caller chose ([`project_with`]: the call path
//!   sends compact grammars by default); its notes are the projection's notes. Nothing is dropped
//!   for size: bounds of any size become chunked repetitions inside llama.cpp's limits. A schema
//!   with no grammar (invalid, unsatisfiable, left-recursive) is projected to the grammar of any
//!   JSON value, with the reason as a note, so the request still gets well-formed JSON.
//! - **`json_object`** and **`prompt_only`**: no schema on the wire; nothing to note (the
//!   prompt describes the schema, and validation checks all of it).

use serde_json::{Map, Value};

use super::gbnf;
use super::walk::{SCHEMA_ARRAY_KEYWORDS, SCHEMA_KEYWORDS, SCHEMA_MAP_KEYWORDS};
use super::{Constraint, Mechanism, Problem, is_strict_ready, pointer_push};

/// The largest `minLength` / `maxLength` / `minItems` / `maxItems` a schema keeps on the wire
/// for engines that build their own grammar from it (see the module documentation).
pub const WIRE_BOUND_LIMIT: u64 = 1000;

/// `format` values vLLM's xgrammar backend enforces (vLLM `STRING_SUPPORTED_FORMATS`, from
/// xgrammar's `json_schema_converter.cc`).
const XGRAMMAR_FORMATS: &[&str] = &[
    "email",
    "date",
    "time",
    "date-time",
    "duration",
    "ipv4",
    "ipv6",
    "hostname",
    "uuid",
    "uri",
    "uri-reference",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
];

/// Keywords vLLM's xgrammar backend does not enforce.
const XGRAMMAR_UNSUPPORTED: &[&str] = &[
    "multipleOf",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "patternProperties",
    "propertyNames",
];

/// The constraint for one request and what was left out of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Projection {
    /// What goes on the wire.
    pub constraint: Constraint,
    /// Every keyword dropped or approximated on the way, with its pointer into the original
    /// schema and the reason.
    pub notes: Vec<Problem>,
}

/// The wire form of `schema` for `mechanism` (see the module documentation for the rules); a
/// grammar allows pretty whitespace.
pub fn project(schema: &Value, mechanism: Mechanism) -> Projection {
    project_with(schema, mechanism, gbnf::Whitespace::Pretty)
}

/// [`project`], with a grammar that allows `whitespace` between tokens.
pub fn project_with(
    schema: &Value,
    mechanism: Mechanism,
    whitespace: gbnf::Whitespace,
) -> Projection {
    let mut notes = Vec::new();
    let constraint = match mechanism {
        Mechanism::JsonSchema => {
            let projected = strip(schema, "", &mut notes, &Wire::JsonSchema);
            Constraint::JsonSchema {
                name: wire_name(schema),
                schema: projected,
                strict: is_strict_ready(schema),
            }
        }
        Mechanism::GuidedJson => Constraint::GuidedJson {
            schema: strip(schema, "", &mut notes, &Wire::GuidedJson),
        },
        Mechanism::GbnfGrammar => match gbnf::derive_with(schema, whitespace) {
            Ok(derived) => {
                notes.extend(derived.notes.iter().cloned());
                Constraint::Grammar {
                    gbnf: derived.grammar.clone(),
                }
            }
            Err(error) => {
                notes.push(Problem {
                    pointer: String::new(),
                    keyword: None,
                    reason: format!("{error}; the grammar allows any JSON value instead"),
                });
                let any = gbnf::derive_with(&Value::Bool(true), whitespace)
                    .expect("`true` has a grammar");
                Constraint::Grammar {
                    gbnf: any.grammar.clone(),
                }
            }
        },
        Mechanism::JsonObject => Constraint::JsonObject,
        Mechanism::PromptOnly => Constraint::None,
    };
    Projection { constraint, notes }
}

/// Which wire form a schema is stripped for.
enum Wire {
    JsonSchema,
    GuidedJson,
}

/// A copy of `schema` without the keywords `wire` does not take, noting each.
fn strip(schema: &Value, pointer: &str, notes: &mut Vec<Problem>, wire: &Wire) -> Value {
    let Some(map) = schema.as_object() else {
        return schema.clone();
    };
    let mut out = Map::new();
    for (key, value) in map {
        let key = key.as_str();
        if let Some(reason) = dropped(key, value, map, wire) {
            notes.push(Problem {
                pointer: pointer.to_owned(),
                keyword: Some(key.to_owned()),
                reason,
            });
            continue;
        }
        let projected = if SCHEMA_KEYWORDS.contains(&key) && !value.is_array() {
            strip(value, &pointer_push(pointer, key), notes, wire)
        } else if (SCHEMA_ARRAY_KEYWORDS.contains(&key) || key == "items") && value.is_array() {
            let here = pointer_push(pointer, key);
            let items = value.as_array().expect("checked");
            Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| {
                        strip(item, &pointer_push(&here, &index.to_string()), notes, wire)
                    })
                    .collect(),
            )
        } else if SCHEMA_MAP_KEYWORDS.contains(&key) && value.is_object() {
            let here = pointer_push(pointer, key);
            let members = value.as_object().expect("checked");
            Value::Object(
                members
                    .iter()
                    .map(|(name, member)| {
                        (
                            name.clone(),
                            strip(member, &pointer_push(&here, name), notes, wire),
                        )
                    })
                    .collect(),
            )
        } else {
            value.clone()
        };
        out.insert(key.to_owned(), projected);
    }
    Value::Object(out)
}

/// Why `key` (with `value`, in the schema node `map`) does not go on the wire, if it does not.
fn dropped(key: &str, value: &Value, map: &Map<String, Value>, wire: &Wire) -> Option<String> {
    if ["minLength", "maxLength", "minItems", "maxItems"].contains(&key)
        && value.as_u64().is_some_and(|bound| bound > WIRE_BOUND_LIMIT)
    {
        return Some(format!(
            "above {WIRE_BOUND_LIMIT}: engines that build a grammar from the schema expand the bound into repetitions llama.cpp refuses past 2000 or compiles slowly; validation checks it"
        ));
    }
    let Wire::GuidedJson = wire else {
        return None;
    };
    if XGRAMMAR_UNSUPPORTED.contains(&key) {
        return Some(
            "vLLM's xgrammar backend does not enforce it; validation checks it".to_owned(),
        );
    }
    if key == "format"
        && value
            .as_str()
            .is_none_or(|format| !XGRAMMAR_FORMATS.contains(&format))
    {
        return Some(
            "not a format vLLM's xgrammar backend enforces; validation checks it".to_owned(),
        );
    }
    if ["minLength", "maxLength"].contains(&key)
        && (map.contains_key("pattern") || map.contains_key("format"))
    {
        return Some(
            "vLLM's xgrammar backend drops length bounds beside a pattern or format; validation checks it".to_owned(),
        );
    }
    None
}

/// OpenAI's `json_schema.name` (`^[a-zA-Z0-9_-]{1,64}$`) from the schema's title.
fn wire_name(schema: &Value) -> String {
    let title = schema
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut name = String::new();
    for ch in title.chars() {
        if ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' {
            name.push(ch);
        } else if !name.ends_with('_') && !name.is_empty() {
            name.push('_');
        }
    }
    let name = name.trim_end_matches('_');
    let name: String = name.chars().take(64).collect();
    if name.is_empty() {
        "response".to_owned()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::contracts;
    use serde_json::json;

    fn reasons(projection: &Projection) -> Vec<String> {
        projection
            .notes
            .iter()
            .map(|note| {
                format!(
                    "{} {}",
                    note.pointer,
                    note.keyword.as_deref().unwrap_or("-")
                )
            })
            .collect()
    }

    #[test]
    fn json_schema_is_strict_only_when_the_schema_is_strict_ready() {
        for contract in contracts() {
            let projection = project(contract.schema(), Mechanism::JsonSchema);
            let Constraint::JsonSchema {
                strict,
                schema,
                name,
            } = &projection.constraint
            else {
                panic!("json_schema projects to a json_schema constraint");
            };
            assert_eq!(*strict, contract.strict, "{}", contract.name);
            assert!(!name.is_empty() && name.len() <= 64, "{name}");
            // Contract bounds stay under the wire limit, so a contract goes out unchanged
            // unless it has a bound above it.
            if projection.notes.is_empty() {
                assert_eq!(schema, contract.schema(), "{}", contract.name);
            }
        }
        let loose = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let Constraint::JsonSchema { strict, .. } =
            project(&loose, Mechanism::JsonSchema).constraint
        else {
            unreachable!()
        };
        assert!(!strict);
    }

    #[test]
    fn huge_bounds_leave_the_json_schema_wire_forms() {
        let schema = json!({
            "title": "Big one!",
            "type": "object",
            "properties": {
                "text": {"type": "string", "minLength": 1, "maxLength": 4000},
                "list": {"type": "array", "maxItems": 5000, "minItems": 1000, "items": {"type": "string", "maxLength": 1000}}
            },
            "required": ["text", "list"],
            "additionalProperties": false
        });
        for mechanism in [Mechanism::JsonSchema, Mechanism::GuidedJson] {
            let projection = project(&schema, mechanism);
            assert_eq!(
                reasons(&projection),
                ["/properties/text maxLength", "/properties/list maxItems"],
                "{mechanism}"
            );
            let (Constraint::JsonSchema { schema: wire, .. }
            | Constraint::GuidedJson { schema: wire }) = &projection.constraint
            else {
                unreachable!()
            };
            assert_eq!(
                wire["properties"]["text"],
                json!({"type": "string", "minLength": 1})
            );
            assert_eq!(wire["properties"]["list"]["minItems"], 1000);
            assert_eq!(wire["properties"]["list"]["items"]["maxLength"], 1000);
        }
        let Constraint::JsonSchema { name, .. } =
            project(&schema, Mechanism::JsonSchema).constraint
        else {
            unreachable!()
        };
        assert_eq!(name, "Big_one");
    }

    #[test]
    fn guided_json_drops_what_xgrammar_does_not_enforce() {
        let schema = json!({
            "type": "object",
            "properties": {
                "tags": {"type": "array", "uniqueItems": true, "items": {"type": "string", "format": "color"}},
                "even": {"type": "integer", "multipleOf": 2},
                "when": {"type": "string", "format": "date-time"},
                "code": {"type": "string", "pattern": "^[A-Z]+$", "maxLength": 5},
                "map": {"type": "object", "propertyNames": {"maxLength": 3}, "patternProperties": {"^x": {"type": "integer"}}}
            },
            "$defs": {"deep": {"anyOf": [{"type": "number", "multipleOf": 0.5}]}}
        });
        let projection = project(&schema, Mechanism::GuidedJson);
        assert_eq!(
            reasons(&projection),
            [
                "/properties/tags uniqueItems",
                "/properties/tags/items format",
                "/properties/even multipleOf",
                "/properties/code maxLength",
                "/properties/map propertyNames",
                "/properties/map patternProperties",
                "/$defs/deep/anyOf/0 multipleOf",
            ]
        );
        let Constraint::GuidedJson { schema: wire } = &projection.constraint else {
            unreachable!()
        };
        assert_eq!(
            wire["properties"]["when"],
            json!({"type": "string", "format": "date-time"})
        );
        assert_eq!(
            wire["properties"]["code"],
            json!({"type": "string", "pattern": "^[A-Z]+$"})
        );
        // json_schema keeps them: the engines behind it differ, and validation checks anyway.
        assert!(project(&schema, Mechanism::JsonSchema).notes.is_empty());
    }

    #[test]
    fn gbnf_grammar_is_the_derived_grammar_with_its_notes() {
        let contract = crate::schema::contract("plan").unwrap();
        let projection = project(contract.schema(), Mechanism::GbnfGrammar);
        assert_eq!(
            projection.constraint,
            Constraint::Grammar {
                gbnf: gbnf::derive(contract.schema()).unwrap().grammar.clone()
            }
        );
        assert!(projection.notes.is_empty());

        let with_pattern = json!({"type": "string", "pattern": "(?=a)"});
        assert_eq!(
            reasons(&project(&with_pattern, Mechanism::GbnfGrammar)),
            [" pattern"]
        );

        // No grammar: any JSON value, and why.
        let projection = project(
            &json!({"type": "integer", "minimum": 2, "maximum": 1}),
            Mechanism::GbnfGrammar,
        );
        let Constraint::Grammar { gbnf: text } = &projection.constraint else {
            unreachable!()
        };
        let grammar = gbnf::parse(text).unwrap();
        assert!(grammar.recognize("{\"any\": [1, \"json\"]}").is_ok());
        assert!(
            projection.notes[0]
                .reason
                .starts_with("no value satisfies the schema")
        );
        assert!(
            projection.notes[0]
                .reason
                .ends_with("; the grammar allows any JSON value instead")
        );
    }

    #[test]
    fn json_object_and_prompt_only_carry_no_schema() {
        let schema = contracts()[0].schema();
        assert_eq!(
            project(schema, Mechanism::JsonObject),
            Projection {
                constraint: Constraint::JsonObject,
                notes: Vec::new()
            }
        );
        assert_eq!(
            project(schema, Mechanism::PromptOnly),
            Projection {
                constraint: Constraint::None,
                notes: Vec::new()
            }
        );
    }

    #[test]
    fn projection_is_pure() {
        for contract in contracts() {
            for mechanism in Mechanism::ALL {
                assert_eq!(
                    project(contract.schema(), mechanism),
                    project(contract.schema(), mechanism)
                );
            }
        }
    }
}
