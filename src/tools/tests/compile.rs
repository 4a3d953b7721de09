use std::sync::Arc;

use serde_json::{Value, json};

use super::instances::{Size, instance, other_type};
use super::{FIXTURES, call, fixture};
use crate::schema::{Constraint, Mechanism, Validator, gbnf, validator};
use crate::tools::{
    CompileError, CompileOptions, CompiledTools, Policy, ToolChoice, ToolSet, compile,
    compile_uncached, default_answer, key,
};

/// The compiled grammar (parsed by the crate's parser) and schema (compiled by the validator).
struct Checker {
    grammar: gbnf::Grammar,
    schema: Arc<Validator>,
}

impl Checker {
    fn new(compiled: &CompiledTools) -> Checker {
        let text = compiled.grammar.as_ref().expect("a grammar");
        Checker {
            grammar: gbnf::parse(text).unwrap_or_else(|error| panic!("{error}\n{text}")),
            schema: validator(compiled.schema.as_ref().expect("a schema")).unwrap(),
        }
    }

    #[track_caller]
    fn accepts(&self, value: &Value) {
        for text in [
            serde_json::to_string(value).unwrap(),
            serde_json::to_string_pretty(value).unwrap(),
        ] {
            if let Err(mismatch) = self.grammar.recognize(&text) {
                panic!("grammar refuses a valid call: {mismatch}\n{text}");
            }
        }
        if let Err(violations) = self.schema.validate(value) {
            panic!("schema refuses a valid call: {violations:?}\n{value}");
        }
    }

    /// Refused by the grammar; by the schema too unless `schema_may_accept`.
    #[track_caller]
    fn refuses(&self, value: &Value, schema_may_accept: bool, what: &str) {
        let text = serde_json::to_string(value).unwrap();
        assert!(
            self.grammar.recognize(&text).is_err(),
            "grammar accepts {what}: {text}"
        );
        if !schema_may_accept {
            assert!(
                !self.schema.is_valid(value),
                "schema accepts {what}: {text}"
            );
        }
    }
}

fn required(compiled_tool: &crate::tools::Tool) -> Vec<String> {
    compiled_tool.parameters["required"]
        .as_array()
        .map(|names| {
            names
                .iter()
                .map(|name| name.as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn closed(tool: &crate::tools::Tool) -> bool {
    tool.parameters.get("additionalProperties") == Some(&json!(false))
}

fn required_calls(tools: &ToolSet) -> Arc<CompiledTools> {
    compile(tools, &CompileOptions::new(ToolChoice::Required)).unwrap()
}

#[test]
fn every_tool_accepts_its_smallest_and_fullest_calls() {
    for (file, _) in FIXTURES {
        let tools = fixture(file);
        let compiled = required_calls(&tools);
        assert_eq!(compiled.policy, Policy::Constrained);
        assert_eq!(compiled.branches.len(), tools.len(), "{file}");
        let checker = Checker::new(&compiled);
        for tool in tools.tools() {
            for size in [Size::Smallest, Size::Fullest] {
                let arguments = instance(&tool.parameters, &tool.parameters, size, 0);
                assert!(
                    tool.validator().is_valid(&arguments),
                    "{file} {}: the sample is not valid: {arguments}",
                    tool.name
                );
                checker.accepts(&call(&tool.name, arguments));
            }
        }
    }
}

#[test]
fn invalid_calls_are_refused() {
    for (file, _) in FIXTURES {
        let tools = fixture(file);
        let checker = Checker::new(&required_calls(&tools));
        let names = tools.names();
        for (index, tool) in tools.tools().iter().enumerate() {
            let valid = instance(&tool.parameters, &tool.parameters, Size::Smallest, 0);
            let full = instance(&tool.parameters, &tool.parameters, Size::Fullest, 0);
            checker.refuses(&call("no_such_tool", valid.clone()), false, "a wrong name");
            checker.refuses(
                &call(&tool.name.to_uppercase(), valid.clone()),
                false,
                "a name in the wrong case",
            );
            // Another tool's arguments under this tool's name.
            let other = &tools.tools()[(index + 1) % tools.len()];
            let other_arguments = instance(&other.parameters, &other.parameters, Size::Fullest, 0);
            let foreign: Vec<&String> = other_arguments
                .as_object()
                .unwrap()
                .keys()
                .filter(|name| tool.parameters["properties"].get(name.as_str()).is_none())
                .collect();
            if let Some(foreign) = foreign.first() {
                let mut arguments = valid.clone();
                arguments[foreign.as_str()] = other_arguments[foreign.as_str()].clone();
                checker.refuses(
                    &call(&tool.name, arguments),
                    !closed(tool),
                    &format!(
                        "{}'s argument {foreign} in a {} call",
                        other.name, tool.name
                    ),
                );
            }
            let mut extra = valid.clone();
            extra["unexpected_argument"] = json!(1);
            checker.refuses(&call(&tool.name, extra), !closed(tool), "an extra argument");
            for name in required(tool) {
                let mut missing = valid.clone();
                missing.as_object_mut().unwrap().remove(&name);
                checker.refuses(
                    &call(&tool.name, missing),
                    false,
                    &format!("{} without {name}", tool.name),
                );
            }
            if let Some((name, value)) = full.as_object().unwrap().iter().next() {
                let mut wrong = full.clone();
                wrong[name.as_str()] = other_type(value);
                let accepts_anything = tool.name == "update_config" && name == "value";
                if !accepts_anything {
                    checker.refuses(
                        &call(&tool.name, wrong),
                        false,
                        &format!("{} with {name} of the wrong type", tool.name),
                    );
                }
            }
            checker.refuses(
                &json!({"name": tool.name}),
                false,
                "a call without arguments",
            );
            checker.refuses(&json!({"arguments": valid}), false, "a call without a name");
        }
        assert!(names.len() > 1);
    }
}

#[test]
fn a_named_tool_constrains_to_its_branch_only() {
    let tools = fixture("coding_agent.json");
    let options = CompileOptions::new(ToolChoice::Tool("run_command".into()));
    let compiled = compile(&tools, &options).unwrap();
    assert_eq!(compiled.branches, ["run_command"]);
    let schema = compiled.schema.as_ref().unwrap();
    assert!(schema.get("oneOf").is_none(), "{schema}");
    assert_eq!(
        schema["properties"]["name"],
        json!({"const": "run_command"})
    );
    let checker = Checker::new(&compiled);
    checker.accepts(&call(
        "run_command",
        json!({"command": "cargo", "args": ["test"]}),
    ));
    checker.refuses(
        &call("read_file", json!({"path": "a"})),
        false,
        "another tool",
    );
}

#[test]
fn auto_is_a_call_or_text_and_a_union_only_with_an_answer_shape() {
    let tools = fixture("coding_agent.json");
    let plain = compile(&tools, &CompileOptions::new(ToolChoice::Auto)).unwrap();
    assert_eq!(plain.policy, Policy::CallOrText);
    assert!(
        plain.reason.contains("plain-text answer"),
        "{}",
        plain.reason
    );
    // Only a grammar leaves the answer free beside a constrained call.
    for mechanism in [
        Mechanism::JsonSchema,
        Mechanism::GuidedJson,
        Mechanism::JsonObject,
        Mechanism::PromptOnly,
    ] {
        assert_eq!(
            plain.constraint(mechanism),
            Constraint::None,
            "{mechanism:?}"
        );
    }
    let Constraint::Grammar { gbnf } = plain.constraint(Mechanism::GbnfGrammar) else {
        panic!("a grammar under gbnf_grammar");
    };
    assert_eq!(Some(&gbnf), plain.grammar.as_ref());
    let grammar = gbnf::parse(&gbnf).unwrap_or_else(|error| panic!("{error}\n{gbnf}"));
    for text in [
        "The tests pass; nothing to change.",
        "4",
        "Sure. {\"name\": \"not a call\"} is only text here",
        "```json\n{\"a\": 1}\n```",
    ] {
        assert!(grammar.recognize(text).is_ok(), "text refused: {text}");
    }
    assert!(plain.schema.is_none(), "no JSON Schema says a call or text");
    let required = compile(&tools, &CompileOptions::new(ToolChoice::Required)).unwrap();
    for tool in tools.tools() {
        let arguments = instance(&tool.parameters, &tool.parameters, Size::Smallest, 0);
        let text = serde_json::to_string(&call(&tool.name, arguments)).unwrap();
        assert!(
            grammar.recognize(&text).is_ok(),
            "a call to {} refused: {text}",
            tool.name
        );
        // The call branch is the `required` grammar, renamed.
        assert!(Checker::new(&required).grammar.recognize(&text).is_ok());
    }
    for (text, what) in [
        ("", "an empty answer"),
        (" leading space", "text that opens with whitespace"),
        ("{\"answer\": \"x\"}", "an object that is not a call"),
        (
            "{\"name\": \"rm_rf\", \"arguments\": {}}",
            "a call to an unknown tool",
        ),
        ("{\"name\": \"read_file\"", "a call cut off"),
    ] {
        assert!(
            grammar.recognize(text).is_err(),
            "grammar accepts {what}: {text}"
        );
    }

    let options = CompileOptions::new(ToolChoice::Auto).with_answer(default_answer());
    let union = compile(&tools, &options).unwrap();
    assert_eq!(union.policy, Policy::Constrained);
    assert_eq!(union.answer, Some(default_answer()));
    let checker = Checker::new(&union);
    checker.accepts(&json!({"answer": "The tests pass; nothing to change."}));
    checker.accepts(&call("read_file", json!({"path": "README.md"})));
    checker.refuses(&json!({"answer": 3}), false, "an answer that is not text");
    checker.refuses(
        &json!({"answer": "x", "name": "read_file"}),
        false,
        "an answer mixed with a call",
    );
    // The branches are exclusive by construction: no note says otherwise.
    assert!(
        union
            .notes
            .iter()
            .all(|note| note.keyword.as_deref() != Some("oneOf")),
        "{:?}",
        union.notes
    );
    assert_ne!(union.key, plain.key);
}

#[test]
fn none_sends_no_tools() {
    let compiled = compile(
        &fixture("coding_agent.json"),
        &CompileOptions::new(ToolChoice::None),
    )
    .unwrap();
    assert_eq!(compiled.policy, Policy::NoTools);
    assert!(compiled.branches.is_empty() && compiled.schema.is_none());
    assert_eq!(compiled.constraint(Mechanism::JsonSchema), Constraint::None);
}

#[test]
fn errors_name_what_is_wrong() {
    let tools = fixture("coding_agent.json");
    let unknown = compile(
        &tools,
        &CompileOptions::new(ToolChoice::Tool("delete_everything".into())),
    )
    .unwrap_err();
    assert_eq!(
        unknown.to_string(),
        "tool_choice names \"delete_everything\", which is not one of the tools (edit_file, list_directory, read_file, run_command, search, write_file)"
    );
    let overlapping = CompileOptions::new(ToolChoice::Auto).with_answer(
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    );
    assert!(matches!(
        compile(&tools, &overlapping),
        Err(CompileError::AnswerShape { .. })
    ));
    let impossible = ToolSet::from_json(
        r#"[{"name":"ok","parameters":{}},{"name":"never","parameters":{"type":"object","properties":{"x":{"type":"string","minLength":5,"maxLength":2}},"required":["x"]}}]"#,
    )
    .unwrap();
    let error = compile(&impossible, &CompileOptions::new(ToolChoice::Required)).unwrap_err();
    let CompileError::Grammar { tool, pointer, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(tool.as_deref(), Some("never"), "{error}");
    assert!(
        pointer.starts_with("/properties/x") || pointer.is_empty(),
        "{error}"
    );
}

#[test]
fn keys_follow_meaning_not_spelling() {
    let options = CompileOptions::new(ToolChoice::Required);
    let openai = ToolSet::from_json(
        r#"[{"type":"function","function":{"name":"b","description":"one","parameters":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"integer"}},"required":["x"]}}},
            {"type":"function","function":{"name":"a","parameters":{"required":["q"],"type":"object","properties":{"q":{"type":"string"}}}}}]"#,
    )
    .unwrap();
    let anthropic_reordered = ToolSet::from_json(
        r#"{"tools":[{"name":"a","input_schema":{"properties":{"q":{"type":"string"}},"type":"object","required":["q"]}},
            {"name":"b","description":"another description","input_schema":{"required":["x"],"properties":{"x":{"type":"string"},"y":{"type":"integer"}},"type":"object"}}]}"#,
    )
    .unwrap();
    let property_order_changed = ToolSet::from_json(
        r#"[{"name":"b","parameters":{"type":"object","properties":{"y":{"type":"integer"},"x":{"type":"string"}},"required":["x"]}},
            {"name":"a","parameters":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}}]"#,
    )
    .unwrap();
    let first = compile_uncached(&openai, &options).unwrap();
    let second = compile_uncached(&anthropic_reordered, &options).unwrap();
    assert_eq!(first.key, second.key);
    assert_eq!(first, second, "equal keys, equal compilations");
    assert_eq!(first.branches, ["a", "b"]);
    assert_ne!(key(&property_order_changed, &options), first.key);
    assert_ne!(
        key(&openai, &CompileOptions::new(ToolChoice::Tool("a".into()))),
        first.key
    );
    // The answer shape only counts under auto.
    assert_eq!(
        key(&openai, &options.clone().with_answer(default_answer())),
        first.key
    );
    assert!(first.key.starts_with("sha256:") && first.key.len() == 71);
}

#[test]
fn the_cache_returns_the_same_compilation() {
    let tools = fixture("thirty_tools.json");
    let options = CompileOptions::new(ToolChoice::Required);
    let first = compile(&tools, &options).unwrap();
    let again = compile(&fixture("thirty_tools.json"), &options).unwrap();
    assert!(Arc::ptr_eq(&first, &again));
    assert_eq!(*first, compile_uncached(&tools, &options).unwrap());
}

#[test]
fn notes_name_the_tool_and_the_pointer_in_its_schema() {
    let compiled = required_calls(&fixture("messy.json"));
    let has = |tool: &str, pointer: &str, keyword: &str| {
        compiled.notes.iter().any(|note| {
            note.tool.as_deref() == Some(tool)
                && note.pointer == pointer
                && note.keyword.as_deref() == Some(keyword)
        })
    };
    assert!(has("create_issue", "/properties/assignee_email", "format"));
    // A regular expression is in the grammar: nothing to note.
    assert!(!has(
        "create_issue",
        "/$defs/Label/properties/color/anyOf/0",
        "pattern"
    ));
    assert!(has(
        "schedule_meeting",
        "/definitions/Attendee/properties/email",
        "format"
    ));
    // An integer bound on a number is in the grammar: nothing to note.
    assert!(!has(
        "http_request",
        "/properties/timeout",
        "exclusiveMinimum"
    ));
    assert!(has("set_reminder", "", "$id"));
    assert!(has("set_reminder", "", "$schema"));
    assert!(has("set_reminder", "", "additionalProperties"));
    assert!(
        compiled.notes.iter().all(|note| note.tool.is_some()),
        "{:?}",
        compiled.notes
    );
    let rendered = compiled
        .notes
        .iter()
        .find(|note| note.keyword.as_deref() == Some("$id"))
        .unwrap()
        .to_string();
    assert_eq!(
        rendered,
        "set_reminder: (root): `$id`: the schema's identifier \"https://example.com/schemas/set_reminder\" is removed in the combined schema, so its local references resolve against the tool's own schema as written"
    );
}

#[test]
fn references_are_rewritten_into_the_combined_schema() {
    let compiled = required_calls(&fixture("messy.json"));
    let schema = compiled.schema.as_ref().unwrap();
    let definitions = schema["$defs"].as_object().unwrap();
    let keys: Vec<&str> = definitions.keys().map(String::as_str).collect();
    assert!(keys.contains(&"create_issue__Label"), "{keys:?}");
    assert!(keys.contains(&"schedule_meeting__Attendee"), "{keys:?}");
    assert!(keys.contains(&"make_tree"), "{keys:?}");
    let tree = schema["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .find(|branch| branch["properties"]["name"]["const"] == "make_tree")
        .unwrap();
    assert_eq!(
        tree["properties"]["arguments"],
        json!({"$ref": "#/$defs/make_tree"})
    );
    let checker = Checker::new(&compiled);
    let nested = json!({"name": "root", "children": [{"name": "a", "children": [{"name": "b"}]}]});
    checker.accepts(&call("make_tree", nested));
    checker.refuses(
        &call(
            "make_tree",
            json!({"name": "root", "children": [{"children": []}]}),
        ),
        false,
        "a nested node without its name",
    );
}

#[test]
fn constraints_per_mechanism() {
    let compiled = required_calls(&fixture("anthropic.json"));
    let schema = compiled.schema.clone().unwrap();
    assert_eq!(
        compiled.constraint(Mechanism::JsonSchema),
        Constraint::JsonSchema {
            name: "tool_call".into(),
            schema: schema.clone(),
            strict: false
        }
    );
    assert_eq!(
        compiled.constraint(Mechanism::GuidedJson),
        Constraint::GuidedJson { schema }
    );
    assert_eq!(
        compiled.constraint(Mechanism::GbnfGrammar),
        Constraint::Grammar {
            gbnf: compiled.grammar.clone().unwrap()
        }
    );
    assert_eq!(
        compiled.constraint(Mechanism::JsonObject),
        Constraint::JsonObject
    );
    assert_eq!(compiled.constraint(Mechanism::PromptOnly), Constraint::None);
}

#[test]
fn names_that_need_escaping_and_colliding_keys() {
    let tools = ToolSet::from_json(
        r##"[{"name": "fs/read file", "parameters": {"type": "object", "properties": {"p": {"$ref": "#/$defs/P"}}, "required": ["p"], "$defs": {"P": {"type": "string"}}}},
            {"name": "fs.read.file", "parameters": {"type": "object", "properties": {"q": {"$ref": "#/$defs/P"}}, "required": ["q"], "$defs": {"P": {"type": "integer"}}}},
            {"name": "say \"hi\"", "parameters": {"type": "object", "properties": {}}}]"##,
    )
    .unwrap();
    let compiled = required_calls(&tools);
    let definitions: Vec<&String> = compiled.schema.as_ref().unwrap()["$defs"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(definitions, ["fs_read_file__P", "fs_read_file-2__P"]);
    let checker = Checker::new(&compiled);
    checker.accepts(&call("fs/read file", json!({"p": "x"})));
    checker.accepts(&call("fs.read.file", json!({"q": 3})));
    checker.accepts(&call("say \"hi\"", json!({})));
    checker.refuses(
        &call("fs.read.file", json!({"q": "x"})),
        false,
        "the other tool's definition",
    );
}

#[test]
fn projection_for_the_wire_is_noted_per_tool() {
    let tools = ToolSet::from_json(
        r##"[{"name": "save", "parameters": {"type": "object", "properties": {"text": {"type": "string", "maxLength": 100000}, "size": {"$ref": "#/$defs/Size"}}, "required": ["text"], "$defs": {"Size": {"type": "integer", "multipleOf": 4}}}},
            {"name": "ping", "parameters": {"type": "object", "properties": {}}}]"##,
    )
    .unwrap();
    let compiled = required_calls(&tools);
    let json_schema = compiled.project(Mechanism::JsonSchema);
    let Constraint::JsonSchema {
        name,
        schema,
        strict,
    } = &json_schema.constraint
    else {
        panic!("{:?}", json_schema.constraint);
    };
    assert_eq!((name.as_str(), *strict), ("tool_call", false));
    let save = schema["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .find(|branch| branch["properties"]["name"]["const"] == "save")
        .unwrap();
    assert!(
        save["properties"]["arguments"]["properties"]["text"]
            .get("maxLength")
            .is_none()
    );
    assert!(
        json_schema
            .notes
            .iter()
            .any(|note| note.tool.as_deref() == Some("save")
                && note.pointer == "/properties/text"
                && note.keyword.as_deref() == Some("maxLength"))
    );
    let guided = compiled.project(Mechanism::GuidedJson);
    assert!(
        guided
            .notes
            .iter()
            .any(|note| note.tool.as_deref() == Some("save")
                && note.pointer == "/$defs/Size"
                && note.keyword.as_deref() == Some("multipleOf"))
    );
    assert!(compiled.project(Mechanism::GbnfGrammar).notes.is_empty());
}

#[test]
fn the_text_grammar_is_the_text_branch_alone() {
    let grammar = gbnf::parse(crate::tools::TEXT_GRAMMAR).unwrap();
    assert!(grammar.recognize("The README says hello.").is_ok());
    assert!(grammar.recognize("4").is_ok());
    for refused in ["", "{\"name\": \"read_file\"}", " leading space"] {
        assert!(grammar.recognize(refused).is_err(), "{refused:?}");
    }
}
