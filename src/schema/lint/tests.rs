use serde_json::{Value, json};

use super::*;

/// `pointer: keyword: reason` for each problem, for readable assertions.
fn rendered(problems: &[Problem]) -> Vec<String> {
    problems.iter().map(ToString::to_string).collect()
}

/// The (pointer, keyword) pairs of the problems.
fn located(problems: &[Problem]) -> Vec<(String, Option<String>)> {
    problems
        .iter()
        .map(|problem| (problem.pointer.clone(), problem.keyword.clone()))
        .collect()
}

fn at(pointer: &str, keyword: &str) -> (String, Option<String>) {
    (pointer.to_owned(), Some(keyword.to_owned()))
}

/// A schema inside the subset and strict-ready, using every subset keyword.
fn clean() -> Value {
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://example.com/plan.schema.json",
        "title": "Plan",
        "description": "A plan",
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "minItems": 1,
                "maxItems": 50,
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer", "minimum": 1, "maximum": 999},
                        "title": {"type": "string", "minLength": 1, "maxLength": 120},
                        "kind": {"type": "string", "enum": ["code", "test"]},
                        "done": {"type": "boolean"}
                    },
                    "required": ["id", "title", "kind", "done"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["steps"],
        "additionalProperties": false,
        "examples": [{"steps": []}]
    })
}

#[test]
fn a_clean_schema_has_no_problems_of_either_kind() {
    assert_eq!(rendered(&subset_problems(&clean())), Vec::<String>::new());
    assert_eq!(rendered(&strict_problems(&clean())), Vec::<String>::new());
    assert!(is_strict_ready(&clean()));
}

#[test]
fn subset_keywords_outside_the_subset_are_reported_at_their_node() {
    let schema = json!({
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
            "name": {"type": "string", "pattern": "^[a-z]+$"},
            "kind": {"anyOf": [{"type": "string"}, {"type": "null"}]}
        },
        "if": {"required": ["name"]}
    });
    let problems = subset_problems(&schema);
    assert_eq!(
        located(&problems),
        vec![
            at("/properties/tags", "uniqueItems"),
            at("/properties/name", "pattern"),
            at("/properties/kind", "type"),
            at("/properties/kind", "anyOf"),
            at("", "if"),
        ],
        "{:#?}",
        rendered(&problems)
    );
    assert_eq!(
        problems[0].to_string(),
        "/properties/tags: `uniqueItems`: outside the contract subset: items are bounded only by `items`, `minItems` and `maxItems`"
    );
    assert_eq!(
        problems[3].reason,
        "composition is outside the contract subset"
    );
}

#[test]
fn subset_pointers_escape_property_names() {
    let schema =
        json!({"type": "object", "properties": {"a/b~c": {"type": "string", "format": "date"}}});
    assert_eq!(
        located(&subset_problems(&schema)),
        vec![at("/properties/a~1b~0c", "format")]
    );
}

#[test]
fn subset_rejects_boolean_and_non_object_schemas() {
    let schema = json!({"type": "object", "properties": {"anything": true, "odd": 3}});
    let problems = subset_problems(&schema);
    assert_eq!(
        rendered(&problems),
        vec![
            "/properties/anything: a boolean schema (`true`) is outside the subset: write the schema it stands for",
            "/properties/odd: a schema must be an object, not a number",
        ]
    );
}

#[test]
fn subset_items_must_be_one_schema() {
    for (items, reason) in [
        (
            json!(true),
            "a boolean (`true`) is outside the subset: give the items' schema",
        ),
        (
            json!([{"type": "string"}]),
            "a list of item schemas (a tuple) is outside the subset: give one schema for every item",
        ),
        (json!("string"), "must be a schema, not a string"),
    ] {
        let problems = subset_problems(&json!({"type": "array", "items": items}));
        assert_eq!(
            problems,
            vec![Problem {
                pointer: String::new(),
                keyword: Some("items".into()),
                reason: reason.into()
            }]
        );
    }
    // A nested items schema is walked.
    let problems =
        subset_problems(&json!({"type": "array", "items": {"type": "string", "format": "uri"}}));
    assert_eq!(located(&problems), vec![at("/items", "format")]);
}

#[test]
fn subset_needs_one_type_or_an_enum() {
    let problems = subset_problems(&json!({"type": "object", "properties": {
        "free": {"description": "anything"},
        "choice": {"enum": ["a", "b"]},
        "either": {"type": ["string", "null"]},
        "made_up": {"type": "text"}
    }}));
    assert_eq!(
        rendered(&problems),
        vec![
            "/properties/free: `type`: missing: without `type` or `enum` the schema accepts any value",
            "/properties/either: `type`: a list of types is outside the subset: a contract gives each value one type",
            "/properties/made_up: `type`: `text` is not a JSON Schema type (one of object, array, string, integer, number, boolean, null)",
        ]
    );
}

#[test]
fn subset_bounds_are_integers_on_integers() {
    let problems = subset_problems(&json!({"type": "object", "properties": {
        "ratio": {"type": "number", "minimum": 0},
        "half": {"type": "integer", "maximum": 1.5},
        "written_as_float": {"type": "integer", "minimum": 3.0},
        "name": {"type": "string", "maximum": 3}
    }}));
    assert_eq!(
        rendered(&problems),
        vec![
            "/properties/ratio: `minimum`: bounds on a `number` are outside the subset: only integers take `minimum`/`maximum`",
            "/properties/half: `maximum`: 1.5 is not an integer: non-integer bounds are outside the subset",
            "/properties/written_as_float: `minimum`: 3.0 is not an integer: non-integer bounds are outside the subset",
            "/properties/name: `maximum`: applies to integers, and this is of type string",
        ]
    );
}

#[test]
fn subset_keywords_must_match_the_type() {
    let problems = subset_problems(&json!({"type": "object", "properties": {
        "count": {"type": "integer", "minLength": 1},
        "name": {"type": "string", "items": {"type": "string"}, "maxItems": 2},
        "list": {"type": "array", "items": {"type": "string"}, "required": []}
    }}));
    assert_eq!(
        located(&problems),
        vec![
            at("/properties/count", "minLength"),
            at("/properties/name", "items"),
            at("/properties/name", "maxItems"),
            at("/properties/list", "required"),
        ]
    );
    assert_eq!(
        problems[0].reason,
        "applies to type string, and this is of type integer"
    );
}

#[test]
fn subset_length_bounds_are_non_negative_and_ordered() {
    let problems = subset_problems(&json!({"type": "object", "properties": {
        "negative": {"type": "string", "minLength": -1},
        "fraction": {"type": "array", "items": {"type": "string"}, "maxItems": 2.5},
        "inverted": {"type": "string", "minLength": 5, "maxLength": 2},
        "range": {"type": "integer", "minimum": 10, "maximum": 1}
    }}));
    assert_eq!(
        rendered(&problems),
        vec![
            "/properties/negative: `minLength`: must be a non-negative integer, not -1",
            "/properties/fraction: `maxItems`: must be a non-negative integer, not 2.5",
            "/properties/inverted: `minLength`: minLength 5 is above maxLength 2: no value could ever match",
            "/properties/range: `minimum`: minimum 10 is above maximum 1: no value could ever match",
        ]
    );
}

#[test]
fn subset_enums_are_non_empty_unique_and_of_the_type() {
    let problems = subset_problems(&json!({"type": "object", "properties": {
        "empty": {"type": "string", "enum": []},
        "twice": {"type": "string", "enum": ["a", "a"]},
        "mixed": {"type": "integer", "enum": [1, 2.0, "three"]},
        "not_a_list": {"enum": "a"}
    }}));
    assert_eq!(
        rendered(&problems),
        vec![
            "/properties/empty: `enum`: is empty: no value could ever match",
            "/properties/twice: `enum`: \"a\" is listed twice",
            "/properties/mixed: `enum`: \"three\" is not of type integer, so it can never match",
            "/properties/not_a_list: `enum`: must be an array of values",
        ]
    );
}

#[test]
fn subset_required_names_declared_properties_once() {
    let problems = subset_problems(&json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "required": ["a", "a", "b", 3]
    }));
    assert_eq!(
        rendered(&problems),
        vec![
            "(root): `required`: `a` is listed twice",
            "(root): `required`: `b` is required but not declared in `properties`",
            "(root): `required`: 3 is not a property name (a string)",
        ]
    );
}

#[test]
fn subset_additional_properties_is_a_boolean() {
    let problems = subset_problems(&json!({
        "type": "object",
        "properties": {},
        "additionalProperties": {"type": "string"}
    }));
    assert_eq!(located(&problems), vec![at("", "additionalProperties")]);
    assert!(
        subset_problems(&json!({"type": "object", "properties": {}, "additionalProperties": true}))
            .is_empty()
    );
}

#[test]
fn subset_schema_uri_is_draft_07_at_the_root() {
    let problems = subset_problems(&json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"a": {"type": "string", "$schema": "http://json-schema.org/draft-07/schema#"}}
    }));
    assert_eq!(
        rendered(&problems),
        vec![
            "(root): `$schema`: contracts are draft-07 (`http://json-schema.org/draft-07/schema#`), not \"https://json-schema.org/draft/2020-12/schema\"",
            "/properties/a: `$schema`: belongs at the root only",
        ]
    );
}

#[test]
fn subset_references_and_consts_are_outside() {
    let problems = subset_problems(&json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/a"}, "b": {"type": "string", "const": "x"}},
        "$defs": {"a": {"type": "string"}}
    }));
    assert_eq!(
        located(&problems),
        vec![
            at("/properties/a", "type"),
            at("/properties/a", "$ref"),
            at("/properties/b", "const"),
            at("", "$defs"),
        ]
    );
}

fn strict_object(properties: Value) -> Value {
    let required: Vec<String> = properties.as_object().unwrap().keys().cloned().collect();
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

#[test]
fn strict_objects_forbid_additional_properties() {
    let mut schema = strict_object(json!({"a": {"type": "string"}}));
    schema
        .as_object_mut()
        .unwrap()
        .remove("additionalProperties");
    assert_eq!(
        rendered(&strict_problems(&schema)),
        vec![
            "(root): `additionalProperties`: missing: every object must set `additionalProperties: false`"
        ]
    );
    schema["additionalProperties"] = json!(true);
    assert_eq!(
        rendered(&strict_problems(&schema)),
        vec![
            "(root): `additionalProperties`: `true` makes the object free-form: it must be `false`"
        ]
    );
    schema["additionalProperties"] = json!({"type": "string"});
    assert_eq!(
        rendered(&strict_problems(&schema)),
        vec![
            "(root): `additionalProperties`: a schema here makes the object a free-form map: it must be `false`"
        ]
    );
}

#[test]
fn strict_requires_every_property() {
    let mut schema = strict_object(json!({
        "a": {"type": "string"},
        "inner": strict_object(json!({"x": {"type": "integer"}, "y": {"type": ["integer", "null"]}}))
    }));
    schema["properties"]["inner"]["required"] = json!(["x"]);
    schema["required"] = json!(["inner"]);
    assert_eq!(
        rendered(&strict_problems(&schema)),
        vec![
            "(root): `required`: `a` is not listed: strict mode requires every property (make it nullable to let it be empty)",
            "/properties/inner: `required`: `y` is not listed: strict mode requires every property (make it nullable to let it be empty)",
        ]
    );
}

#[test]
fn strict_has_no_free_form_values() {
    let schema = strict_object(json!({
        "map": {"type": "object", "additionalProperties": false},
        "list": {"type": "array"},
        "anything": {"description": "whatever"},
        "yes": true
    }));
    assert_eq!(
        rendered(&strict_problems(&schema)),
        vec![
            "/properties/map: `properties`: missing: an object without properties is free-form",
            "/properties/list: `items`: missing: an array's items must have a schema, strict mode has no free-form values",
            "/properties/anything: `type`: missing: a schema without a type accepts any value, and strict mode has no free-form values",
            "/properties/yes: `true` accepts any value: strict mode has no free-form values",
        ]
    );
}

#[test]
fn strict_root_is_an_object_not_an_any_of() {
    assert_eq!(
        located(&strict_problems(
            &json!({"type": "array", "items": {"type": "string"}})
        )),
        vec![at("", "type")]
    );
    let schema = json!({"anyOf": [strict_object(json!({"a": {"type": "string"}}))]});
    assert_eq!(located(&strict_problems(&schema)), vec![at("", "anyOf")]);
}

#[test]
fn strict_allows_nullable_types_any_of_and_definitions() {
    let schema = json!({
        "type": "object",
        "properties": {
            "note": {"type": ["string", "null"], "maxLength": 200},
            "value": {"anyOf": [{"type": "number", "minimum": 0.5}, {"$ref": "#/$defs/pair"}]},
            "status": {"const": "ok"},
            "when": {"type": "string", "format": "date-time"}
        },
        "required": ["note", "value", "status", "when"],
        "additionalProperties": false,
        "$defs": {"pair": strict_object(json!({"left": {"type": "string"}, "right": {"type": "string"}}))}
    });
    assert_eq!(rendered(&strict_problems(&schema)), Vec::<String>::new());
    // The same schema leaves the contract subset in several places.
    assert!(!subset_problems(&schema).is_empty());
}

#[test]
fn strict_reports_unsupported_keywords() {
    let schema = strict_object(json!({
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
        "name": {"type": "string", "default": "x"},
        "both": {"allOf": [{"type": "string"}]},
        "one": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
    }));
    assert_eq!(
        rendered(&strict_problems(&schema)),
        vec![
            "/properties/tags: `uniqueItems`: not among the keywords OpenAI documents for strict mode",
            "/properties/name: `default`: OpenAI answers \"'default' is not permitted\" in strict mode",
            "/properties/both: `allOf`: OpenAI's strict mode does not support it",
            "/properties/both: `type`: missing: a schema without a type accepts any value, and strict mode has no free-form values",
            "/properties/one: `oneOf`: OpenAI's strict mode does not support it: use `anyOf`",
            "/properties/one: `type`: missing: a schema without a type accepts any value, and strict mode has no free-form values",
        ]
    );
}

#[test]
fn strict_limits_nesting_depth() {
    // Ten nested objects are allowed; the eleventh is one too many.
    let nest = |levels: usize| {
        let mut schema = strict_object(json!({"leaf": {"type": "string"}}));
        for _ in 1..levels {
            schema = strict_object(json!({"child": schema}));
        }
        schema
    };
    assert!(is_strict_ready(&nest(10)));
    let problems = strict_problems(&nest(11));
    assert_eq!(
        rendered(&problems),
        vec![format!(
            "{}: 11 levels of object nesting, above OpenAI's limit of 10",
            "/properties/child".repeat(10)
        )]
    );
}

#[test]
fn strict_limits_property_and_enum_counts() {
    let many: serde_json::Map<String, Value> = (0..5001)
        .map(|index| (format!("p{index}"), json!({"type": "boolean"})))
        .collect();
    let problems = strict_problems(&strict_object(Value::Object(many)));
    assert_eq!(
        rendered(&problems),
        vec!["(root): `properties`: 5001 object properties in total, above OpenAI's limit of 5000"]
    );

    let values: Vec<Value> = (0..1001).map(|index| json!(index)).collect();
    let problems = strict_problems(&strict_object(
        json!({"n": {"type": "integer", "enum": values}}),
    ));
    assert_eq!(
        rendered(&problems),
        vec!["(root): `enum`: 1001 enum values in total, above OpenAI's limit of 1000"]
    );
}

#[test]
fn strict_limits_large_string_enums_and_name_lengths() {
    // 251 values of 60 characters: 15,060 characters in an enum of more than 250 values.
    let values: Vec<Value> = (0..251)
        .map(|index| json!(format!("{index:060}")))
        .collect();
    let problems = strict_problems(&strict_object(
        json!({"s": {"type": "string", "enum": values}}),
    ));
    assert_eq!(
        rendered(&problems),
        vec![
            "/properties/s: `enum`: 251 string values of 15060 characters: OpenAI allows at most 15000 characters in an enum of more than 250 values"
        ]
    );
    // 250 values of the same length are fine.
    let values: Vec<Value> = (0..250)
        .map(|index| json!(format!("{index:060}")))
        .collect();
    assert!(is_strict_ready(&strict_object(
        json!({"s": {"type": "string", "enum": values}})
    )));

    // 121 property names of 1,000 characters each.
    let long: serde_json::Map<String, Value> = (0..121)
        .map(|index| (format!("{index:01000}"), json!({"type": "boolean"})))
        .collect();
    assert_eq!(
        rendered(&strict_problems(&strict_object(Value::Object(long)))),
        vec![
            "(root): 121000 characters of property names, definition names, enum and const values, above OpenAI's limit of 120000"
        ]
    );
}
