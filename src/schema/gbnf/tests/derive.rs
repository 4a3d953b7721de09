//! Derivation: the grammar text, notes for what it cannot express, errors, and the
//! constructs beyond the contract subset.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::schema::gbnf::{GbnfError, derive, derive_uncached, parse};

fn grammar_of(schema: &Value) -> crate::schema::gbnf::Grammar {
    let derived = derive_uncached(schema).unwrap();
    parse(&derived.grammar).unwrap_or_else(|error| panic!("{error}\n{}", derived.grammar))
}

fn accepts(schema: &Value, text: &str) -> bool {
    grammar_of(schema).recognize(text).is_ok()
}

/// The notes as `pointer keyword`.
fn noted(schema: &Value) -> Vec<String> {
    derive_uncached(schema)
        .unwrap()
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
fn a_small_schema_gives_this_grammar() {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "maxLength": 10},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 3}
        },
        "required": ["name"],
        "additionalProperties": false
    });
    let derived = derive_uncached(&schema).unwrap();
    assert!(derived.notes.is_empty());
    assert_eq!(
        derived.grammar,
        concat!(
            "root ::= ws \"{\" ws name-kv (ws \",\" ws age-kv)? (ws \",\" ws tags-kv)? ws \"}\" ws\n",
            "name-kv ::= \"\\\"name\\\"\" ws \":\" ws name\n",
            "name ::= \"\\\"\" char{0,10} \"\\\"\"\n",
            "age-kv ::= \"\\\"age\\\"\" ws \":\" ws age\n",
            "age ::= \"0\" | [1-9] | [1-9] [0-9] | \"1\" [0-4] [0-9] | \"150\"\n",
            "tags-kv ::= \"\\\"tags\\\"\" ws \":\" ws tags\n",
            "tags ::= \"[\" ws (tags-item (ws \",\" ws tags-item){0,2} ws)? \"]\"\n",
            "tags-item ::= \"\\\"a\\\"\" | \"\\\"b\\\"\"\n",
            "ws ::= ([ \\t] | \"\\r\"? \"\\n\" [ \\t]{0,32})?\n",
            "char ::= [^\\\"\\\\\\x00-\\x1F] | \"\\\\\" escape\n",
            "escape ::= [\\\"\\\\/bfnrt] | \"u\" ([0-9a-cA-Ce-fE-F] hex{3} | [dD] [0-7] hex{2} | [dD] [8-9a-bA-B] hex{2} \"\\\\u\" [dD] [c-fC-F] hex{2})\n",
            "hex ::= [0-9a-fA-F]\n",
        )
    );
    // Deterministic, and cached by structure.
    assert_eq!(derive_uncached(&schema).unwrap(), derived);
    let first = derive(&schema).unwrap();
    let second = derive(&schema.clone()).unwrap();
    assert!(Arc::ptr_eq(&first, &second));
    assert_eq!(*first, derived);
}

#[test]
fn inexpressible_keywords_are_noted_with_pointers() {
    let schema = json!({
        "type": "object",
        "properties": {
            "email": {"type": "string", "format": "email"},
            "code": {"type": "string", "pattern": "^[A-Z]+\\1$"},
            "ratio": {"type": "number", "minimum": 0.5, "maximum": 1},
            "even": {"type": "integer", "minimum": 5, "multipleOf": 2},
            "set": {"type": "array", "uniqueItems": true},
            "odd": {"not": {"type": "null"}},
            "loose": {"type": "object", "properties": {"a": {"type": "integer"}}},
            "guessed": {"properties": {"b": {"type": "boolean"}}, "additionalProperties": false},
            "nullable": {"type": "string", "nullable": true}
        },
        "additionalProperties": false
    });
    assert_eq!(
        noted(&schema),
        [
            "/properties/email format",
            "/properties/code pattern",
            "/properties/ratio minimum",
            "/properties/even multipleOf",
            "/properties/set uniqueItems",
            "/properties/odd not",
            "/properties/loose additionalProperties",
            "/properties/guessed -",
            "/properties/nullable nullable",
        ]
    );
    // The grammar still derives, and still parses.
    grammar_of(&schema);
}

#[test]
fn declared_empty_properties_mean_no_members() {
    let no_arguments = json!({"type": "object", "properties": {}});
    assert!(accepts(&no_arguments, "{}") && accepts(&no_arguments, "{ }"));
    assert!(!accepts(&no_arguments, r#"{"url": "https://example.com"}"#));
    assert_eq!(
        noted(&no_arguments),
        [" additionalProperties"].map(str::to_owned)
    );
    // Without `properties`, or with others allowed in so many words, an object is free-form.
    for free in [
        json!({"type": "object"}),
        json!({"type": "object", "properties": {}, "additionalProperties": true}),
    ] {
        assert!(
            accepts(&free, r#"{"url": "https://example.com"}"#),
            "{free}"
        );
        assert!(noted(&free).is_empty(), "{free}");
    }
}

#[test]
fn number_bounds_are_in_the_grammar() {
    let timeout = json!({"type": "number", "minimum": 0, "maximum": 60});
    for good in ["0", "0.5", "59.999", "60", "60.000", "12"] {
        assert!(accepts(&timeout, good), "{good}");
    }
    for bad in ["-0.5", "60.001", "61", "600", "4E3", "1e1"] {
        assert!(!accepts(&timeout, bad), "{bad}");
    }
    assert!(noted(&timeout).is_empty());
    let positive = json!({"type": "number", "exclusiveMinimum": 0});
    assert!(accepts(&positive, "0.001") && accepts(&positive, "12345.5"));
    assert!(!accepts(&positive, "0") && !accepts(&positive, "0.000") && !accepts(&positive, "-1"));
    // Draft-04 boolean exclusives, and the tighter of two bounds on a side.
    let draft4 = json!({"type": "number", "minimum": -1, "exclusiveMinimum": true,
        "maximum": 1, "exclusiveMaximum": true});
    assert!(accepts(&draft4, "-0.5") && accepts(&draft4, "0.25"));
    assert!(!accepts(&draft4, "-1") && !accepts(&draft4, "1"));
    let tighter = json!({"type": "number", "maximum": 5, "exclusiveMaximum": 2});
    assert!(accepts(&tighter, "1.99") && !accepts(&tighter, "2") && !accepts(&tighter, "4"));
    // A bound that is not an integer is rounded outwards, and said so.
    let rounded = json!({"type": "number", "minimum": 0, "maximum": 2.5});
    assert!(accepts(&rounded, "2.5") && accepts(&rounded, "3"));
    assert!(!accepts(&rounded, "3.1") && !accepts(&rounded, "-1"));
    assert_eq!(noted(&rounded), [" maximum"].map(str::to_owned));
    let nullable = json!({"type": ["number", "null"], "minimum": 1, "maximum": 2});
    assert!(accepts(&nullable, "null") && accepts(&nullable, "1.5"));
    assert!(!accepts(&nullable, "2.5"));
    let empty = json!({"type": "number", "minimum": 3, "exclusiveMaximum": 3});
    let error = derive_uncached(&empty).unwrap_err().to_string();
    assert!(
        error.contains("no number lies between the bounds"),
        "{error}"
    );
}

#[test]
fn schemas_without_a_grammar_are_errors() {
    let invalid = |schema: Value| match derive_uncached(&schema) {
        Err(GbnfError::InvalidSchema { pointer, reason }) => format!("{pointer}: {reason}"),
        other => panic!("expected an invalid schema, got {other:?}"),
    };
    assert_eq!(
        invalid(json!(12)),
        ": a schema must be an object or a boolean, not a number"
    );
    assert_eq!(
        invalid(json!({"type": "text"})),
        "/type: unknown type `text`"
    );
    assert_eq!(
        invalid(json!({"properties": {"a": "string"}})),
        "/properties/a: a schema must be an object or a boolean, not a string"
    );
    assert_eq!(
        invalid(json!({"$ref": "#/$defs/missing"})),
        "/$ref: $ref `#/$defs/missing` does not point into the schema"
    );
    assert_eq!(
        invalid(json!({"type": "string", "maxLength": -1})),
        "/maxLength: maxLength must be a non-negative integer"
    );

    let unsatisfiable = |schema: Value| match derive_uncached(&schema) {
        Err(error @ GbnfError::Unsatisfiable { .. }) => error.to_string(),
        other => panic!("expected no value to satisfy, got {other:?}"),
    };
    assert_eq!(
        unsatisfiable(json!(false)),
        "no value satisfies the schema: (root): the schema is `false`: no value satisfies this schema, so the grammar leaves it out"
    );
    assert!(
        unsatisfiable(json!({"type": "integer", "minimum": 5, "maximum": 4}))
            .contains("no integer lies between the bounds")
    );
    assert!(unsatisfiable(json!({"type": "string", "enum": [1, 2]})).contains("no allowed value"));
    match derive_uncached(
        &json!({"type": "object", "properties": {"a": false}, "required": ["a"], "additionalProperties": false}),
    ) {
        Err(GbnfError::Unsatisfiable { notes }) => {
            let reasons: Vec<String> = notes.iter().map(ToString::to_string).collect();
            assert_eq!(
                reasons,
                [
                    "/properties/a: the schema is `false`: no value satisfies this schema, so the grammar leaves it out",
                    "(root): `required`: required property `a` accepts no value: no value satisfies this schema, so the grammar leaves it out",
                ]
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(
        unsatisfiable(json!({"type": "array", "minItems": 1, "items": false}))
            .starts_with("no value satisfies")
    );

    let recursive = json!({
        "$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "null"}]}},
        "$ref": "#/$defs/a"
    });
    assert_eq!(
        derive_uncached(&recursive),
        Err(GbnfError::LeftRecursive { rule: "a".into() })
    );
}

/// Each level's two members inline the next level through `allOf`, so the walk doubles per
/// level: 2^30 schemas for 31 levels, unless the derivation stops at its step limit.
fn doubling(levels: usize) -> Value {
    let mut definitions = serde_json::Map::new();
    for level in 0..levels {
        let next = json!({"allOf": [{"$ref": format!("#/definitions/d{}", level + 1)}]});
        definitions.insert(
            format!("d{level}"),
            json!({"type": "object", "properties": {"a": next.clone(), "b": next},
                "additionalProperties": false}),
        );
    }
    definitions.insert(format!("d{levels}"), json!({"type": "string"}));
    json!({"definitions": definitions, "allOf": [{"$ref": "#/definitions/d0"}]})
}

#[test]
fn combinators_that_multiply_one_another_stop_at_a_limit_of_the_schema_size() {
    match derive_uncached(&doubling(30)) {
        Err(GbnfError::TooComplex { pointer, steps }) => {
            assert_eq!(steps, 20_000);
            // Where the steps ran out: deep in the chain, at a place the schema has (each
            // level is merged into the `allOf` that inlines it).
            assert!(pointer.starts_with("/definitions/d"), "{pointer}");
            assert!(doubling(30).pointer(&pointer).is_some(), "{pointer}");
        }
        other => panic!("{other:?}"),
    }
    let problems = crate::schema::gbnf::grammar_problems(&doubling(30));
    assert!(problems[0].reason.contains("too complex"), "{problems:?}");
    // Ten levels are 2,047 schemas walked: within the limit, and exact.
    let derived = derive_uncached(&doubling(10)).unwrap();
    assert!(derived.notes.is_empty(), "{:?}", derived.notes.first());
}

#[test]
fn parts_that_accept_nothing_are_left_out() {
    let schema = json!({
        "type": "object",
        "properties": {"never": false, "kept": {"type": "boolean"}},
        "additionalProperties": false
    });
    assert_eq!(noted(&schema), ["/properties/never -"]);
    assert!(accepts(&schema, "{\"kept\":true}"));
    assert!(!accepts(&schema, "{\"never\":1}"));
    // An array whose items accept nothing is the empty array.
    let schema = json!({"type": "array", "items": false});
    assert!(accepts(&schema, "[]"));
    assert!(!accepts(&schema, "[1]"));
}

#[test]
fn references_and_recursion() {
    let schema = json!({
        "$defs": {
            "tree": {
                "type": "object",
                "properties": {
                    "leaf": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/tree"}}
                },
                "required": ["leaf"],
                "additionalProperties": false
            }
        },
        "$ref": "#/$defs/tree"
    });
    let derived = derive_uncached(&schema).unwrap();
    assert!(
        derived.grammar.contains("tree-children-item ::= tree\n")
            || derived.grammar.contains("ws \":\" ws tree-children"),
        "{}",
        derived.grammar
    );
    let grammar = parse(&derived.grammar).unwrap();
    grammar
        .recognize(r#"{"leaf":1,"children":[{"leaf":2},{"leaf":3,"children":[{"leaf":4,"children":[]}]}]}"#)
        .unwrap();
    assert!(
        grammar
            .recognize(r#"{"leaf":1,"children":[{"children":[]}]}"#)
            .is_err()
    );

    // A reference to the whole document.
    let schema = json!({
        "type": "object",
        "properties": {"next": {"$ref": "#"}, "n": {"type": "integer"}},
        "required": ["n"],
        "additionalProperties": false
    });
    assert!(accepts(&schema, r#"{"next":{"next":{"n":3},"n":2},"n":1}"#));
    assert!(!accepts(&schema, r#"{"next":{},"n":1}"#));

    // draft-07 ignores keywords beside $ref, and says so.
    let schema = json!({
        "definitions": {"small": {"type": "integer", "maximum": 3}},
        "$ref": "#/definitions/small",
        "minimum": 2
    });
    assert_eq!(noted(&schema), [" $ref"]);
    assert!(accepts(&schema, "0"));
    // From 2019-09 on they apply.
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"small": {"type": "integer", "maximum": 3}},
        "$ref": "#/$defs/small",
        "minimum": 2
    });
    assert!(noted(&schema).is_empty());
    assert!(accepts(&schema, "2") && accepts(&schema, "3"));
    assert!(!accepts(&schema, "1") && !accepts(&schema, "4"));
    // References outside the document are not followed.
    let schema = json!({"$ref": "https://example.com/schema.json"});
    assert_eq!(noted(&schema), ["/$ref $ref"]);
}

#[test]
fn combinations() {
    // allOf intersects.
    let schema = json!({"allOf": [
        {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
        {"properties": {"a": {"minimum": 3}, "b": {"type": "string"}}, "required": ["b"], "additionalProperties": false}
    ]});
    assert!(accepts(&schema, r#"{"a":3,"b":""}"#));
    assert!(!accepts(&schema, r#"{"a":2,"b":""}"#));
    assert!(!accepts(&schema, r#"{"a":3}"#));

    // anyOf with keywords beside it: each branch gets them.
    let schema = json!({
        "type": "object",
        "properties": {"kind": {"type": "string"}},
        "required": ["kind"],
        "additionalProperties": false,
        "anyOf": [
            {"properties": {"kind": {"const": "a"}}},
            {"properties": {"kind": {"const": "b"}}}
        ]
    });
    assert!(accepts(&schema, r#"{"kind":"a"}"#) && accepts(&schema, r#"{"kind":"b"}"#));
    assert!(!accepts(&schema, r#"{"kind":"c"}"#));

    // oneOf: exact when the branches cannot overlap, noted when they can.
    let disjoint = json!({"oneOf": [{"type": "string"}, {"type": "integer"}]});
    assert!(noted(&disjoint).is_empty());
    let overlapping = json!({"oneOf": [{"type": "integer"}, {"type": "number"}]});
    assert_eq!(noted(&overlapping), [" oneOf"]);

    // Type arrays; integer and number together are number.
    let schema = json!({"type": ["integer", "number", "null"]});
    assert!(accepts(&schema, "1.5e3") && accepts(&schema, "null") && !accepts(&schema, "\"1\""));

    // enum values the other keywords rule out are dropped, with a note.
    let schema = json!({"type": "string", "maxLength": 1, "enum": ["a", 1, "bb", null]});
    assert_eq!(noted(&schema), [" enum", " enum", " enum"]);
    assert!(accepts(&schema, "\"a\"") && !accepts(&schema, "\"bb\""));
    // const values are written as serde_json writes them.
    let schema = json!({"const": {"b": [1, "é"], "a": null}});
    assert!(accepts(&schema, r#"{"b":[1,"é"],"a":null}"#));
    assert!(!accepts(&schema, r#"{"b": [1,"é"],"a":null}"#));
}

#[test]
fn integers_bounds_of_every_form() {
    let schema = json!({"type": "integer", "exclusiveMinimum": 0.5, "maximum": 3.7});
    for (text, inside) in [("0", false), ("1", true), ("3", true), ("4", false)] {
        assert_eq!(accepts(&schema, text), inside, "{text}");
    }
    let draft4 = json!({"type": "integer", "minimum": 0, "exclusiveMinimum": true, "maximum": 2, "exclusiveMaximum": true});
    assert!(accepts(&draft4, "1") && !accepts(&draft4, "0") && !accepts(&draft4, "2"));
    let negative = json!({"type": "integer", "minimum": -12, "maximum": -3});
    assert!(accepts(&negative, "-12") && accepts(&negative, "-3") && !accepts(&negative, "-2"));
    assert!(!accepts(&negative, "-13") && !accepts(&negative, "-012"));
}

#[test]
fn tuples_and_free_form_objects() {
    let tuple = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "array",
        "prefixItems": [{"type": "integer"}, {"type": "string"}],
        "items": {"type": "boolean"},
        "maxItems": 3
    });
    for (text, inside) in [
        ("[]", true),
        ("[1]", true),
        ("[1,\"a\"]", true),
        ("[1,\"a\",true]", true),
        ("[1,\"a\",true,false]", false),
        ("[\"a\"]", false),
        ("[1,2]", false),
    ] {
        assert_eq!(accepts(&tuple, text), inside, "{text}");
    }
    let draft7 = json!({"type": "array", "items": [{"const": 1}, {"const": 2}], "additionalItems": false, "minItems": 1});
    assert!(accepts(&draft7, "[1]") && accepts(&draft7, "[1,2]"));
    assert!(!accepts(&draft7, "[]") && !accepts(&draft7, "[1,2,3]"));

    let map = json!({"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 1, "maxProperties": 2});
    assert!(accepts(&map, r#"{"a":1}"#) && accepts(&map, r#"{"a":1, "b\"":2}"#));
    assert!(
        !accepts(&map, "{}")
            && !accepts(&map, r#"{"a":1,"b":2,"c":3}"#)
            && !accepts(&map, r#"{"a":"x"}"#)
    );
    let closed = json!({"type": "object", "additionalProperties": false});
    assert!(accepts(&closed, "{ }") && !accepts(&closed, r#"{"a":1}"#));
    let anything = json!({"type": "object"});
    assert!(accepts(&anything, r#"{"a":[1,{"b":null}],"c":"d"}"#));
}

#[test]
fn whitespace_is_bounded() {
    let schema = json!({"type": "array", "items": {"type": "integer"}});
    let indent = " ".repeat(32);
    assert!(accepts(&schema, &format!("[\n{indent}1,\r\n\t2 ]\n")));
    assert!(!accepts(&schema, &format!("[\n{indent} 1]")));
    assert!(!accepts(&schema, "[  1]"));
    assert!(!accepts(&schema, "[\n\n1]"));
    assert!(!accepts(&schema, "[1] \n"));
}

#[test]
fn property_names_that_look_like_shared_rules_get_their_own() {
    let schema = json!({
        "type": "object",
        "properties": {"ws": {"type": "integer", "minimum": 1}, "string": {"type": "integer"}, "root": {"type": "string", "maxLength": 2}},
        "required": ["ws", "string", "root"],
        "additionalProperties": false
    });
    let derived = derive_uncached(&schema).unwrap();
    // The values of `ws` and `root` need rules of their own; the shared names stay shared.
    assert!(
        derived
            .grammar
            .contains("\nws-kv ::= \"\\\"ws\\\"\" ws \":\" ws ws-2\n"),
        "{}",
        derived.grammar
    );
    assert!(
        derived
            .grammar
            .contains("\nstring-kv ::= \"\\\"string\\\"\" ws \":\" ws integer\n"),
        "{}",
        derived.grammar
    );
    assert!(
        derived
            .grammar
            .contains("\nroot-kv ::= \"\\\"root\\\"\" ws \":\" ws root-2\n"),
        "{}",
        derived.grammar
    );
    parse(&derived.grammar)
        .unwrap()
        .recognize(r#"{"ws":1,"string":-2,"root":"ab"}"#)
        .unwrap();
}

#[test]
fn grammar_problems_answer_the_check() {
    use crate::schema::gbnf::grammar_problems;
    for contract in crate::schema::contracts() {
        assert!(
            grammar_problems(contract.schema()).is_empty(),
            "{}",
            contract.name
        );
    }
    let reasons = |schema: Value| -> Vec<String> {
        grammar_problems(&schema)
            .iter()
            .map(ToString::to_string)
            .collect()
    };
    assert_eq!(
        // `idn-hostname`: one of the formats the grammar does not generate (see `formats.rs`).
        reasons(json!({"type": "string", "format": "idn-hostname"})),
        [
            "(root): `format`: formats are not translated into the grammar; checked when the output is validated"
        ]
    );
    assert_eq!(
        reasons(json!({"type": 3})),
        ["/type: type must be a string or an array, not a number"]
    );
    assert_eq!(
        reasons(
            json!({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "null"}]}}, "$ref": "#/$defs/a"})
        ),
        [
            "(root): `$ref`: the schema refers to itself before any value is written (rule `a` is left-recursive)"
        ]
    );
    assert_eq!(
        reasons(json!({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/a"}]}}, "$ref": "#/$defs/a"})),
        [
            "(root): `$ref`: no value satisfies this schema: its references go round in a circle without reaching a value (rules root, a)"
        ]
    );
    assert_eq!(reasons(json!(false)).len(), 1);
}

/// Keys of free-form objects follow `propertyNames`, and `patternProperties` beside
/// `additionalProperties: false` give each pattern's keys its schema; the validator agrees on
/// every sample.
#[test]
fn property_names_and_pattern_properties_shape_the_keys() {
    use crate::schema::validate;
    let cases: &[(Value, &[&str], usize)] = &[
        (
            json!({"type": "object", "propertyNames": {"pattern": "^[a-z]+$"},
                "additionalProperties": {"type": "integer"}}),
            &[
                r#"{}"#,
                r#"{"ab":1}"#,
                r#"{"ab":1,"c":2}"#,
                r#"{"A":1}"#,
                r#"{"ab":"x"}"#,
            ],
            0,
        ),
        (
            json!({"type": "object", "propertyNames": {"maxLength": 2}}),
            &[r#"{"ab":[1]}"#, r#"{"abc":1}"#, r#"{"":null}"#],
            0,
        ),
        (
            json!({"type": "object", "patternProperties": {"^x-": {"type": "string"}},
                "additionalProperties": false, "minProperties": 1}),
            &[r#"{"x-a":"v"}"#, r#"{}"#, r#"{"y":"v"}"#, r#"{"x-a":1}"#],
            0,
        ),
        (
            json!({"type": "object", "patternProperties": {"^a": {"type": "string"},
                "^b": {"type": "integer"}}, "additionalProperties": false}),
            &[r#"{"a1":"v","b1":2}"#, r#"{"b":"v"}"#, r#"{"c":1}"#],
            1,
        ),
    ];
    for (schema, texts, notes) in cases {
        let derived = derive_uncached(schema).unwrap();
        assert_eq!(derived.notes.len(), *notes, "{schema}: {:?}", derived.notes);
        let grammar = parse(&derived.grammar).unwrap();
        for text in *texts {
            let value: Value = serde_json::from_str(text).unwrap();
            let valid = validate(schema, &value).is_ok();
            assert_eq!(
                grammar.recognize(text).is_ok(),
                valid,
                "{schema}: {text}\n{}",
                derived.grammar
            );
        }
    }
    // Declared properties that propertyNames refuses, and patterns beside declared
    // properties, keep their notes.
    let declared = json!({"type": "object", "properties": {"Bad": {"type": "string"}},
        "propertyNames": {"pattern": "^[a-z]+$"}, "patternProperties": {"^x": {}},
        "additionalProperties": false});
    let keywords: Vec<Option<String>> = derive_uncached(&declared)
        .unwrap()
        .notes
        .iter()
        .map(|note| note.keyword.clone())
        .collect();
    assert!(
        keywords.contains(&Some("propertyNames".to_owned())),
        "{keywords:?}"
    );
    assert!(
        keywords.contains(&Some("patternProperties".to_owned())),
        "{keywords:?}"
    );
}

/// Whether the grammar and the validator agree on every text of `texts`.
fn agrees_with_validation(schema: &Value, texts: impl IntoIterator<Item = String>) {
    let grammar = grammar_of(schema);
    for text in texts {
        let value: Value = serde_json::from_str(&text).unwrap();
        let valid = crate::schema::validate(schema, &value).is_ok();
        assert_eq!(
            grammar.recognize(&text).is_ok(),
            valid,
            "{text} under {schema}"
        );
    }
}

/// The integers of a window, for a number also written with a fraction of zeros (an
/// integer is written in serde_json's form only).
fn integer_texts(kind: &str) -> Vec<String> {
    (-1300i32..=1300)
        .flat_map(|value| {
            let mut texts = vec![value.to_string()];
            if kind == "number" {
                texts.push(format!("{value}.0"));
            }
            texts
        })
        .collect()
}

#[test]
fn whole_multiples_are_exact() {
    // JSONSchemaBench Github_trivial o25195 and o83695, and a step of 1 on a number
    // (Github_ultra o46322): with the bounds on either side, or both.
    let steps = [1, 2, 3, 7, 12, 25, 100, 1000];
    let bounds = [
        json!({}),
        json!({"minimum": 0}),
        json!({"minimum": -5}),
        json!({"exclusiveMinimum": 0}),
        json!({"maximum": 0}),
        json!({"maximum": 12}),
        json!({"minimum": 9, "maximum": 1200}),
        json!({"minimum": -1000, "exclusiveMaximum": 40}),
    ];
    // The benchmark's cases hold exactly.
    for schema in [
        json!({"type": "integer", "multipleOf": 3}),
        json!({"type": "integer", "minimum": 0, "multipleOf": 12}),
        json!({"type": "number", "minimum": 0, "maximum": 99999999, "multipleOf": 1}),
        json!({"type": "number", "minimum": 1, "maximum": 12, "multipleOf": 1}),
    ] {
        assert!(noted(&schema).is_empty(), "{schema}");
    }
    let mut exact = 0;
    for step in steps {
        for kind in ["integer", "number"] {
            for bound in &bounds {
                let mut schema = bound.clone();
                schema["type"] = json!(kind);
                schema["multipleOf"] = json!(step);
                if !noted(&schema).is_empty() {
                    // A bound that cuts into the multiples of an open range, or too many
                    // multiples to list: the range alone, with the note.
                    assert_eq!(noted(&schema), [" multipleOf"], "{schema}");
                    continue;
                }
                exact += 1;
                agrees_with_validation(&schema, integer_texts(kind));
                if kind == "integer" {
                    for text in ["-0", "012", "1e1", "0.5"] {
                        assert!(!accepts(&schema, text), "{text} under {schema}");
                    }
                }
            }
        }
    }
    assert!(exact >= 90, "{exact} of 128 exact");
}

#[test]
fn multiples_the_grammar_cannot_bound_are_noted() {
    // A bound that cuts into the multiples on an open range: the grammar keeps the range and
    // says so.
    let schema = json!({"type": "integer", "minimum": 100, "multipleOf": 7});
    assert_eq!(noted(&schema), [" multipleOf"]);
    assert!(accepts(&schema, "101"));
    // Steps that are not whole numbers, and automata past the rule limit.
    for schema in [
        json!({"type": "number", "multipleOf": 0.01}),
        json!({"type": "integer", "multipleOf": 1.5}),
        json!({"type": "integer", "multipleOf": 997}),
    ] {
        assert_eq!(noted(&schema), [" multipleOf"], "{schema}");
    }
    // Multiples of 1000 need four states, not a thousand: a rule for each and each count of
    // digits still allowed (fewer where a state cannot reach a multiple in time).
    let schema = json!({"type": "integer", "multipleOf": 1000});
    let derived = derive_uncached(&schema).unwrap();
    assert!(derived.notes.is_empty());
    let states = derived
        .grammar
        .lines()
        .filter(|line| line.starts_with("multiple-of-1000"))
        .count();
    assert!(states <= 4 * 20, "{}", derived.grammar);
    // At most twenty digits, as every integer in the grammar (JSONSchemaBench Github_trivial
    // o83695: a random model wrote multiples of 12 until its budget).
    for step in [1000u64, 12] {
        let schema = json!({"type": "integer", "multipleOf": step});
        let largest = u64::MAX - u64::MAX % step;
        assert!(accepts(&schema, &largest.to_string()), "{largest}");
        assert!(accepts(&schema, &format!("-{largest}")), "{largest}");
        let longer = format!("{largest}0");
        assert!(!accepts(&schema, &longer), "{longer}");
    }
    // No multiple between the bounds.
    let schema = json!({"type": "integer", "minimum": 1, "maximum": 2, "multipleOf": 3});
    assert!(matches!(
        derive_uncached(&schema),
        Err(GbnfError::Unsatisfiable { .. })
    ));
}

#[test]
fn a_pattern_that_matches_every_key_holds_every_member() {
    // JSONSchemaBench WashingtonPost wp_100 and JsonSchemaStore v4-config: patternProperties
    // whose pattern matches any key, and no additionalProperties, so every member's value
    // must satisfy the pattern's schema.
    for pattern in ["^[a-zA-Z0-9_]*", ".*", "x*$", "^a|b?"] {
        let schema = json!({
            "type": "object",
            "patternProperties": {pattern: {"type": "object"}}
        });
        assert!(noted(&schema).is_empty(), "{pattern}: {:?}", noted(&schema));
        assert!(accepts(&schema, r#"{"a": {}, "b": {"c": 1}}"#), "{pattern}");
        assert!(!accepts(&schema, r#"{"a": "U a]"}"#), "{pattern}");
        assert!(accepts(&schema, "{}"));
    }
    // A pattern anchored at both ends leaves other keys to additionalProperties: the grammar
    // writes the pattern's keys only, as it writes only declared properties, with the note
    // (JSON Schema Store's mongodb-atlas-search-index-definition, `^.*$`).
    let schema = json!({"type": "object", "patternProperties": {"^.*$": {"type": "object"}}});
    assert_eq!(noted(&schema), [" additionalProperties"]);
    assert!(accepts(&schema, r#"{"a": {}}"#));
    assert!(!accepts(&schema, r#"{"a": "U a]"}"#));
    assert!(!accepts(&schema, r#"{"a\n": "U a]"}"#));
    // Several patterns, one of them matching everything: a key under two must satisfy both.
    let schema = json!({
        "type": "object",
        "patternProperties": {"^a": {"type": "integer"}, "": {"type": "number"}},
        "additionalProperties": {"type": "string"}
    });
    assert_eq!(noted(&schema), [" patternProperties"]);
    assert!(!accepts(&schema, r#"{"b": "text"}"#));
    assert!(accepts(&schema, r#"{"b": 1.5}"#));
}

#[test]
fn property_dependencies_are_exact() {
    // JSONSchemaBench WashingtonPost wp_37: two properties need one written after them.
    let names = ["a", "b", "c", "d"];
    let every_subset = || {
        (0..1u32 << names.len()).map(|subset| {
            let members: Vec<String> = (0..names.len())
                .filter(|bit| subset & (1 << bit) != 0)
                .map(|bit| format!("\"{}\":1", names[bit]))
                .collect();
            format!("{{{}}}", members.join(","))
        })
    };
    let object = |extra: Value| {
        let mut schema = json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer"},
                "b": {"type": "integer"},
                "c": {"type": "integer"},
                "d": {"type": "integer"}
            },
            "additionalProperties": false
        });
        schema
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        schema
    };
    for extra in [
        // Needed later, earlier, both; chains and cycles; a required trigger.
        json!({"dependencies": {"a": ["c"], "b": ["c"]}}),
        json!({"dependencies": {"d": ["a"]}}),
        json!({"dependencies": {"b": ["a", "d"]}}),
        json!({"dependencies": {"a": ["b"], "b": ["c"], "c": ["d"]}}),
        json!({"dependencies": {"a": ["d"], "d": ["a"]}}),
        json!({"dependencies": {"a": ["b"]}, "required": ["a"]}),
        json!({"dependencies": {"c": ["b"]}, "required": ["d"]}),
        json!({"dependentRequired": {"c": ["a"], "d": ["b"]}, "$schema": "https://json-schema.org/draft/2020-12/schema"}),
        json!({"dependencies": {"a": []}}),
    ] {
        let schema = object(extra);
        assert!(noted(&schema).is_empty(), "{schema}: {:?}", noted(&schema));
        agrees_with_validation(&schema, every_subset());
    }
    // Past the bound, or a schema dependency: the dependency is noted, the grammar looser.
    let mut wide = json!({"type": "object", "properties": {}, "dependencies": {}, "additionalProperties": false});
    for index in 0..5 {
        wide["properties"][format!("p{index}")] = json!({"type": "integer"});
        wide["properties"][format!("q{index}")] = json!({"type": "integer"});
        wide["dependencies"][format!("p{index}")] = json!([format!("q{index}")]);
    }
    let many = wide;
    assert_eq!(noted(&many), [" dependencies"].map(str::to_owned));
    assert!(accepts(&many, r#"{"p0":1}"#));
    let schema_form = object(json!({"dependencies": {"a": {"required": ["b"]}, "c": ["d"]}}));
    assert_eq!(
        noted(&schema_form),
        ["/dependencies/a -"].map(str::to_owned)
    );
    assert!(!accepts(&schema_form, r#"{"c":1}"#));
    // Draft-07 does not know dependentRequired: the validator ignores it, and the grammar.
    let draft7 = object(json!({"dependentRequired": {"c": ["a"]}}));
    assert_eq!(noted(&draft7), [" dependentRequired"].map(str::to_owned));
    agrees_with_validation(&draft7, every_subset());
    // A needed property the grammar does not write.
    let undeclared = object(json!({"dependencies": {"a": ["z"]}}));
    assert_eq!(noted(&undeclared), ["/dependencies/a -"].map(str::to_owned));
}

#[test]
fn one_of_arrays_apart_but_for_the_empty_one() {
    // JSONSchemaBench Github_hard o65730: an array of nullable numbers or an array of arrays
    // of them. Only `[]` matches both, so under `oneOf` it matches none.
    let schema = json!({
        "definitions": {
            "nullable_number": {"oneOf": [{"type": "number"}, {"type": "null"}]},
            "numbers": {"type": "array", "items": {"$ref": "#/definitions/nullable_number"}}
        },
        "oneOf": [
            {"$ref": "#/definitions/numbers"},
            {"type": "array", "items": {"$ref": "#/definitions/numbers"}}
        ]
    });
    let texts = [
        "[]",
        "[1]",
        "[null]",
        "[1,null]",
        "[[]]",
        "[[1]]",
        "[[],[null,2]]",
        "[1,[1]]",
        "[[1],1]",
    ];
    assert!(noted(&schema).is_empty(), "{:?}", noted(&schema));
    agrees_with_validation(&schema, texts.map(str::to_owned));
    // One branch that needs an item already: `[]` matches the other alone.
    let mut one_empty = schema.clone();
    one_empty["oneOf"][1]["minItems"] = json!(1);
    assert!(noted(&one_empty).is_empty());
    agrees_with_validation(&one_empty, texts.map(str::to_owned));
    // Items that overlap: still anyOf, with the note.
    let overlapping = json!({"oneOf": [
        {"type": "array", "items": {"type": "number"}},
        {"type": "array", "items": {"type": "integer"}}
    ]});
    assert_eq!(noted(&overlapping), [" oneOf"].map(str::to_owned));
}

#[test]
fn a_required_name_only_patterns_cover_takes_their_schemas() {
    // JSONSchemaBench Github_medium o48427 and Handwritten dep7, reduced: `_id` is declared by
    // the pattern alone, and additionalProperties applies only to names no pattern matches.
    let schema = json!({"type": "object", "patternProperties": {"^[^$]": {"type": "string"}},
        "additionalProperties": false, "required": ["_id"]});
    // The patterns declare the object's other members too: they are written around the
    // required one.
    agrees_with_validation(
        &schema,
        [
            r#"{"_id":"x"}"#,
            r#"{"_id":1}"#,
            "{}",
            r#"{"_id":"x","a":"y"}"#,
            r#"{"a":"y","_id":"x","b":"z"}"#,
            r#"{"a":"y"}"#,
            r#"{"_id":"x","$a":"y"}"#,
            r#"{"_id":"x","a":1}"#,
        ]
        .map(str::to_owned),
    );
    // A pattern member may repeat the required key, which validation reads once: the one note.
    let notes = derive_uncached(&schema).unwrap().notes;
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].keyword.as_deref(), Some("patternProperties"));
    assert!(!notes[0].reason.contains("declared"), "{}", notes[0].reason);
    // Declared properties keep their order, and pattern members come between any of them
    // (JSONSchemaBench Github_hard o12335: `name:en` is required and only a pattern declares
    // it; its valid instance writes other patterns' members between the required ones).
    let fields = json!({"type": "object", "properties": {"id": {"type": "integer"}},
        "patternProperties": {"^name:(en|nl)$": {"type": "string"},
            "^sso:[0-9]$": {"type": "string"}},
        "required": ["name:en", "sso:0"], "additionalProperties": false});
    agrees_with_validation(
        &fields,
        [
            r#"{"id":1,"name:en":"a","name:nl":"b","sso:0":"c","sso:1":"d"}"#,
            r#"{"name:nl":"b","name:en":"a","sso:0":"c"}"#,
            r#"{"id":1,"name:en":"a"}"#,
            r#"{"id":1,"name:en":"a","sso:0":"c","other":1}"#,
        ]
        .map(str::to_owned),
    );
    // Every pattern that matches the name applies, as in validation.
    let both = json!({"type": "object", "patternProperties": {"^a": {"type": "integer"},
        "b$": {"minimum": 3}}, "additionalProperties": false, "required": ["ab"]});
    agrees_with_validation(
        &both,
        [
            r#"{"ab":3}"#,
            r#"{"ab":2}"#,
            r#"{"ab":3.5}"#,
            r#"{"ab":"x"}"#,
        ]
        .map(str::to_owned),
    );
    // A pattern that matches keeps additionalProperties away; one that does not leaves the
    // name to it.
    let matched = json!({"type": "object", "patternProperties": {"^a": {"type": "integer"}},
        "additionalProperties": {"type": "string"}, "required": ["a"]});
    agrees_with_validation(&matched, [r#"{"a":1}"#, r#"{"a":"s"}"#].map(str::to_owned));
    let unmatched = json!({"type": "object", "patternProperties": {"^x": {"type": "integer"}},
        "additionalProperties": {"type": "string"}, "required": ["a"]});
    agrees_with_validation(
        &unmatched,
        [r#"{"a":1}"#, r#"{"a":"s"}"#].map(str::to_owned),
    );
    // A matching pattern whose schema is `false` still makes the name impossible.
    let refused = json!({"type": "object", "patternProperties": {"^a": false},
        "required": ["a"]});
    assert!(matches!(
        derive_uncached(&refused),
        Err(GbnfError::Unsatisfiable { .. })
    ));
}

#[test]
fn pattern_members_beside_property_names_are_written() {
    // JSONSchemaBench Github_hard o83677, reduced: one member whose key both propertyNames
    // and the pattern describe. The pattern members were left out beside propertyNames, so
    // minProperties found no member and the schema was called unsatisfiable.
    let schema = json!({"type": "object", "minProperties": 1, "additionalProperties": false,
        "propertyNames": {"pattern": "^[a-z]+$"},
        "patternProperties": {"^[a-z]+$": {"type": "string"}}});
    assert!(noted(&schema).is_empty(), "{:?}", noted(&schema));
    agrees_with_validation(
        &schema,
        [
            r#"{"a":"x"}"#,
            r#"{"a":"x","b":"y"}"#,
            "{}",
            r#"{"A":"x"}"#,
            r#"{"a":1}"#,
        ]
        .map(str::to_owned),
    );
    // A pattern that matches every key leaves the key to propertyNames alone (JSON Schema
    // Store staticwebapp.config: `.*` beside `^\d+$`).
    let any_key = json!({"type": "object", "additionalProperties": false,
        "propertyNames": {"pattern": "^[0-9]+$"},
        "patternProperties": {".*": {"type": "integer"}}});
    assert!(noted(&any_key).is_empty(), "{:?}", noted(&any_key));
    agrees_with_validation(
        &any_key,
        [r#"{"404":1}"#, r#"{"a":1}"#, r#"{"404":"x"}"#, "{}"].map(str::to_owned),
    );
    // A key limited by both: the grammar follows the pattern and notes the rest.
    let limited = json!({"type": "object", "minProperties": 1, "additionalProperties": false,
        "propertyNames": {"maxLength": 2},
        "patternProperties": {"^[a-z]+$": {"type": "string"}}});
    assert!(accepts(&limited, r#"{"ab":"x"}"#));
    assert!(!accepts(&limited, "{}"));
    // Patterns whose schemas accept nothing leave the keys outside them to
    // additionalProperties; the grammar cannot write only those keys, so it writes any key
    // and says so, instead of calling the schema unsatisfiable.
    let outside = json!({"type": "object", "minProperties": 1,
        "patternProperties": {"^x": false}});
    assert!(accepts(&outside, r#"{"a":1}"#));
    assert!(!accepts(&outside, "{}"));
    assert!(
        noted(&outside).contains(&" patternProperties".to_owned()),
        "{:?}",
        noted(&outside)
    );
}

#[test]
fn patterns_of_all_of_branches_are_combined() {
    // JSONSchemaBench Handwritten allOfPProp1: each branch's patterns, and the closed branches'
    // additionalProperties: false, together. Keeping one branch's patterns beside another's
    // `false` left no key at all, and minProperties then no object.
    let schema = json!({"type": "object", "allOf": [
        {"patternProperties": {"^.{1,3}$": false}, "additionalProperties": true},
        {"patternProperties": {"a": true}, "additionalProperties": false},
        {"patternProperties": {"b": true}, "additionalProperties": false}],
        "minProperties": 4});
    assert!(accepts(&schema, r#"{"abcd":1,"abce":1,"abcf":1,"abcg":1}"#));
    assert!(!accepts(
        &schema,
        r#"{"cdef":1,"abce":1,"abcf":1,"abcg":1}"#
    ));
    assert!(!accepts(&schema, r#"{"abcd":1}"#));
    // A pattern in two branches takes both schemas; patterns of different branches each keep
    // theirs, without a note when no branch's additionalProperties is left out by that (the
    // two notes are the object's own: keys outside the patterns, and a key under two, at the
    // first branch's patterns).
    let same = json!({"type": "object", "allOf": [
        {"patternProperties": {"^a": {"type": "integer"}}},
        {"patternProperties": {"^a": {"minimum": 3}, "^b": {"type": "string"}}}]});
    assert_eq!(
        noted(&same),
        [" additionalProperties", "/allOf/0 patternProperties"]
    );
    agrees_with_validation(
        &same,
        [
            r#"{"a":3}"#,
            r#"{"a":2}"#,
            r#"{"a":3.5}"#,
            r#"{"b":"x"}"#,
            r#"{"b":1}"#,
        ]
        .map(str::to_owned),
    );
    // A closed branch that another branch's pattern reaches past: the key is written under
    // that pattern, and the note says validation checks the closed branch.
    let closed = json!({"type": "object", "allOf": [
        {"patternProperties": {"^a": {"type": "integer"}}},
        {"additionalProperties": false}]});
    assert!(
        noted(&closed)
            .iter()
            .any(|note| note.ends_with(" patternProperties")),
        "{:?}",
        noted(&closed)
    );
}

/// Every note's pointer names a place in `schema`, and a note about a keyword the grammar
/// does not know points at a schema that has it.
fn notes_point_into(schema: &Value) {
    let derived = derive_uncached(schema).unwrap();
    for note in &derived.notes {
        let place = schema
            .pointer(&note.pointer)
            .unwrap_or_else(|| panic!("{note} points at nothing in {schema}"));
        if note.reason.starts_with("not a keyword the grammar knows") {
            let keyword = note.keyword.as_deref().unwrap();
            assert!(place.get(keyword).is_some(), "{note}: no `{keyword}` there");
        }
    }
}

#[test]
fn notes_of_merged_schemas_point_at_the_keyword() {
    // JSONSchemaBench JsonSchemaStore service-schema, reduced: the object's keywords are
    // merged into each `anyOf` branch, and a note about a keyword of `properties/a` pointed at
    // `/anyOf/0/properties/a/...`, which is not in the schema.
    let schema = json!({"type": "object",
        "properties": {"a": {"anyOf": [{"enum": ["x1"], "foo": 1}, {"enum": ["y1"], "foo": 2}]}},
        "anyOf": [{"properties": {"a": {"pattern": "^x"}}}, {"properties": {"a": {"pattern": "^y"}}}],
        "required": ["a"], "additionalProperties": false});
    notes_point_into(&schema);
    let noted = noted(&schema);
    assert!(
        noted.contains(&"/properties/a/anyOf/0 foo".to_owned()),
        "{noted:?}"
    );
    assert!(
        noted.contains(&"/properties/a/anyOf/1 foo".to_owned()),
        "{noted:?}"
    );
    // A branch left out in one combination is not empty on its own, and its note says so.
    let notes = derive_uncached(&schema).unwrap().notes;
    let empty = notes
        .iter()
        .find(|note| note.reason.starts_with("no allowed value"))
        .unwrap();
    assert!(empty.reason.contains("combined with"), "{empty}");
    agrees_with_validation(
        &schema,
        [r#"{"a":"x1"}"#, r#"{"a":"y1"}"#, r#"{"a":"x2"}"#].map(str::to_owned),
    );
    // `allOf` branches, `$ref` targets and the keywords beside a `$ref`: each keyword's note
    // points where the keyword is.
    let combined = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {"base": {"type": "object", "properties": {"n": {"type": "string", "bar": 1}}}},
        "allOf": [{"$ref": "#/$defs/base", "baz": 2}, {"properties": {"m": {"qux": 3}}}]});
    notes_point_into(&combined);
    let noted = self::noted(&combined);
    for expected in [
        "/$defs/base/properties/n bar",
        "/allOf/0 baz",
        "/allOf/1/properties/m qux",
    ] {
        assert!(
            noted.contains(&expected.to_owned()),
            "{expected}: {noted:?}"
        );
    }
}

#[test]
fn notes_do_not_multiply_with_merged_branches() {
    // JSONSchemaBench JsonSchemaStore service-schema: 238 branches, each merged with a property
    // of 240 branches, printed 237,619 warnings, one per pair. A note is about a place in the
    // schema, so there are as many as places.
    let size = 30;
    let inner: Vec<Value> = (0..size)
        .map(|index| json!({"const": format!("v{index}"), "foo": index}))
        .collect();
    let outer: Vec<Value> = (0..size)
        .map(|index| json!({"properties": {"t": {"const": format!("v{index}")}}}))
        .collect();
    let schema = json!({"type": "object", "properties": {"t": {"anyOf": inner}},
        "anyOf": outer, "required": ["t"], "additionalProperties": false});
    notes_point_into(&schema);
    let notes = derive_uncached(&schema).unwrap().notes;
    assert!(notes.len() <= 3 * size, "{} notes", notes.len());
    assert!(accepts(&schema, r#"{"t":"v7"}"#));
}
