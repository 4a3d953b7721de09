//! Prompt sync: every prompt's "## Fields" section describes exactly its schema's properties,
//! with the schema's type, requiredness, bounds and enum values, in schema order.

use serde_json::{Value, json};

use crate::schema::contracts::{JSON_ONLY, contract, contracts};

/// One line of a prompt's "## Fields" section.
#[derive(Debug, PartialEq)]
struct PromptField {
    path: String,
    spec: String,
    meaning: String,
}

/// The fields a prompt describes, or the first line of its "## Fields" section that is not a
/// field line.
fn prompt_fields(prompt: &str) -> Result<Vec<PromptField>, String> {
    let mut lines = prompt.lines().skip_while(|line| *line != "## Fields");
    if lines.next().is_none() {
        return Err("no `## Fields` section".to_owned());
    }
    let mut fields = Vec::new();
    for line in lines.take_while(|line| !line.starts_with("## ")) {
        if line.trim().is_empty() {
            continue;
        }
        let parsed = line.strip_prefix("- `").and_then(|rest| {
            let (path, rest) = rest.split_once("` (")?;
            let (spec, meaning) = rest.split_once("): ")?;
            Some(PromptField {
                path: path.to_owned(),
                spec: spec.to_owned(),
                meaning: meaning.to_owned(),
            })
        });
        match parsed {
            Some(field) if !field.meaning.trim().is_empty() => fields.push(field),
            _ => return Err(format!("not a field line: {line:?}")),
        }
    }
    Ok(fields)
}

/// Every property of `schema` at every level, as (path, spec) in schema order: `steps`,
/// `steps[].id`, `owner.name`. The spec is what the prompt's parenthesis must say.
pub(super) fn schema_fields(schema: &Value) -> Vec<(String, String)> {
    let mut fields = Vec::new();
    object_fields(schema, "", &mut fields);
    fields
}

fn object_fields(node: &Value, prefix: &str, fields: &mut Vec<(String, String)>) {
    let Some(properties) = node.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required: Vec<&str> = node
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, property) in properties {
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        fields.push((
            path.clone(),
            spec(property, required.contains(&name.as_str())),
        ));
        let mut inner = property;
        let mut inner_path = path;
        while inner["type"] == "array" {
            inner = &inner["items"];
            inner_path.push_str("[]");
        }
        if inner["type"] == "object" {
            object_fields(inner, &inner_path, fields);
        }
    }
}

/// `string, required, 1 to 500 characters`: type, requiredness, then the constraints.
fn spec(node: &Value, required: bool) -> String {
    let mut parts = vec![
        type_phrase(node),
        if required { "required" } else { "optional" }.to_owned(),
    ];
    parts.extend(constraints(node));
    parts.join(", ")
}

fn type_phrase(node: &Value) -> String {
    match node["type"].as_str() {
        Some("array") => format!("array of {}", type_phrase(&node["items"])),
        Some(name) => name.to_owned(),
        None => "value".to_owned(),
    }
}

fn constraints(node: &Value) -> Vec<String> {
    let mut parts = Vec::new();
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        let listed: Vec<String> = values.iter().map(Value::to_string).collect();
        parts.push(format!("one of {}", listed.join(", ")));
    }
    let bound = |keyword: &str| node.get(keyword).and_then(Value::as_i64);
    match node["type"].as_str() {
        Some("string") => parts.extend(range(
            bound("minLength"),
            bound("maxLength"),
            Some("character"),
        )),
        Some("integer") => parts.extend(range(bound("minimum"), bound("maximum"), None)),
        Some("array") => {
            parts.extend(range(bound("minItems"), bound("maxItems"), Some("item")));
            let items = &node["items"];
            if !matches!(items["type"].as_str(), Some("object" | "array")) {
                let each = constraints(items);
                if !each.is_empty() {
                    parts.push(format!("each {}", each.join(" and ")));
                }
            }
        }
        _ => {}
    }
    parts
}

/// `1 to 500 characters`, `at most 50 items`, `at least 1`, `0 to 1000000`. A zero lower
/// bound on a length or a count is the default and goes unsaid.
fn range(low: Option<i64>, high: Option<i64>, unit: Option<&str>) -> Option<String> {
    let low = if unit.is_some() {
        low.filter(|low| *low > 0)
    } else {
        low
    };
    let units = |count: i64| match unit {
        Some(unit) if count == 1 => format!(" {unit}"),
        Some(unit) => format!(" {unit}s"),
        None => String::new(),
    };
    match (low, high) {
        (Some(low), Some(high)) => Some(format!("{low} to {high}{}", units(high))),
        (Some(low), None) => Some(format!("at least {low}{}", units(low))),
        (None, Some(high)) => Some(format!("at most {high}{}", units(high))),
        (None, None) => None,
    }
}

/// Every way the prompt and the schema disagree.
fn prompt_mismatches(schema: &Value, prompt: &str) -> Vec<String> {
    let mut mismatches = Vec::new();
    let described = match prompt_fields(prompt) {
        Ok(fields) => fields,
        Err(error) => return vec![error],
    };
    let expected = schema_fields(schema);
    for (index, field) in described.iter().enumerate() {
        if described[..index]
            .iter()
            .any(|earlier| earlier.path == field.path)
        {
            mismatches.push(format!("the prompt describes `{}` twice", field.path));
        }
        match expected.iter().find(|(path, _)| *path == field.path) {
            None => mismatches.push(format!(
                "the prompt names `{}`, which the schema does not have",
                field.path
            )),
            Some((_, spec)) if *spec != field.spec => mismatches.push(format!(
                "`{}`: the prompt says ({}), the schema says ({spec})",
                field.path, field.spec
            )),
            Some(_) => {}
        }
    }
    for (path, _) in &expected {
        if !described.iter().any(|field| field.path == *path) {
            mismatches.push(format!(
                "the schema's `{path}` is not described in the prompt"
            ));
        }
    }
    if mismatches.is_empty() {
        let order: Vec<&str> = described.iter().map(|field| field.path.as_str()).collect();
        let schema_order: Vec<&str> = expected.iter().map(|(path, _)| path.as_str()).collect();
        if order != schema_order {
            mismatches.push(format!(
                "the prompt lists the fields in another order than the schema: {order:?} vs {schema_order:?}"
            ));
        }
    }
    mismatches
}

#[test]
fn every_prompt_describes_exactly_the_schema() {
    for contract in contracts() {
        let mismatches = prompt_mismatches(contract.schema(), contract.prompt());
        assert!(mismatches.is_empty(), "{}: {mismatches:#?}", contract.name);
    }
}

#[test]
fn every_prompt_asks_for_one_object_under_the_schema_title() {
    for contract in contracts() {
        let prompt = contract.prompt();
        assert_eq!(
            prompt.lines().next(),
            Some(format!("# {}", contract.title()).as_str()),
            "{}",
            contract.name
        );
        assert!(
            prompt.lines().any(|line| line == JSON_ONLY),
            "{} lacks {JSON_ONLY:?}",
            contract.name
        );
    }
}

#[test]
fn a_brief_prompt_keeps_every_line_and_every_meaning_and_drops_what_a_grammar_guarantees() {
    for contract in contracts() {
        let brief = contract.brief_prompt();
        let fields = prompt_fields(contract.prompt()).unwrap();
        assert!(!brief.contains(JSON_ONLY), "{}", contract.name);
        for field in &fields {
            let bound = field.spec.split(", ").find(|part| part.ends_with(" items"));
            let line = match bound {
                Some(bound) => format!("- `{}` ({bound}): {}", field.path, field.meaning),
                None => format!("- `{}`: {}", field.path, field.meaning),
            };
            assert!(
                brief.lines().any(|brief_line| brief_line == line),
                "{}: {line:?} missing from\n{brief}",
                contract.name
            );
            assert!(
                !brief.contains(&field.spec),
                "{}: {}",
                contract.name,
                field.spec
            );
        }
        let kept = |text: &str| -> Vec<String> {
            text.lines()
                .filter(|line| !line.trim().is_empty() && *line != JSON_ONLY)
                .filter(|line| {
                    !fields
                        .iter()
                        .any(|field| line.starts_with(&format!("- `{}` ", field.path)))
                })
                .map(str::to_owned)
                .collect()
        };
        let brief_kept: Vec<String> = kept(brief)
            .into_iter()
            .filter(|line| {
                !fields
                    .iter()
                    .any(|field| line.starts_with(&format!("- `{}`", field.path)))
            })
            .collect();
        assert_eq!(
            brief_kept,
            kept(contract.prompt()),
            "{}: every other line as written",
            contract.name
        );
        assert!(
            !brief.contains("\n\n\n") && !brief.ends_with('\n'),
            "{}",
            contract.name
        );
        assert!(
            brief.len() * 10 < contract.prompt().len() * 9,
            "{}: at least a tenth shorter",
            contract.name
        );
    }
}

#[test]
fn a_brief_prompt_still_says_where_each_list_ends() {
    let brief = contract("architect").unwrap().brief_prompt();
    for line in [
        "- `summary`: the design in a few sentences.",
        "- `components` (1 to 30 items): the components.",
        "- `components[].depends_on` (at most 30 items): names of the components it uses; empty for none.",
        "- `risks[].impact`: how bad it would be.",
    ] {
        assert!(
            brief.lines().any(|brief_line| brief_line == line),
            "{line:?} missing from\n{brief}"
        );
    }
}

fn sample_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "verdict": {"type": "string", "enum": ["yes", "no"]},
            "items": {"type": "array", "maxItems": 3, "items": {
                "type": "object",
                "properties": {
                    "line": {"type": "integer", "minimum": 1},
                    "tags": {"type": "array", "items": {"type": "string", "minLength": 1, "maxLength": 9}}
                },
                "required": ["line"]
            }}
        },
        "required": ["verdict", "items"]
    })
}

const SAMPLE_PROMPT: &str = "# Sample

## Fields

- `verdict` (string, required, one of \"yes\", \"no\"): the answer.
- `items` (array of object, required, at most 3 items): things.
- `items[].line` (integer, required, at least 1): a line.
- `items[].tags` (array of string, optional, each 1 to 9 characters): tags.

## Rules

- `not_a_field` (string, required): lines after the section are prose.
";

#[test]
fn the_prompt_check_accepts_a_matching_prompt() {
    assert_eq!(
        prompt_mismatches(&sample_schema(), SAMPLE_PROMPT),
        Vec::<String>::new()
    );
}

#[test]
fn the_prompt_check_catches_every_kind_of_drift() {
    let schema = sample_schema();
    let cases = [
        (
            SAMPLE_PROMPT.replace("- `items[].line`", "- `items[].lines`"),
            vec![
                "the prompt names `items[].lines`, which the schema does not have",
                "the schema's `items[].line` is not described in the prompt",
            ],
        ),
        (
            SAMPLE_PROMPT.replace(
                "- `items[].tags` (array of string, optional, each 1 to 9 characters): tags.\n",
                "",
            ),
            vec!["the schema's `items[].tags` is not described in the prompt"],
        ),
        (
            SAMPLE_PROMPT.replace("one of \"yes\", \"no\"", "one of \"yes\""),
            vec![
                "`verdict`: the prompt says (string, required, one of \"yes\"), the schema says (string, required, one of \"yes\", \"no\")",
            ],
        ),
        (
            SAMPLE_PROMPT.replace(
                "(integer, required, at least 1)",
                "(string, required, at least 1)",
            ),
            vec![
                "`items[].line`: the prompt says (string, required, at least 1), the schema says (integer, required, at least 1)",
            ],
        ),
        (
            SAMPLE_PROMPT.replace("array of string, optional", "array of string, required"),
            vec![
                "`items[].tags`: the prompt says (array of string, required, each 1 to 9 characters), the schema says (array of string, optional, each 1 to 9 characters)",
            ],
        ),
        (
            SAMPLE_PROMPT.replace("at most 3 items", "at most 5 items"),
            vec![
                "`items`: the prompt says (array of object, required, at most 5 items), the schema says (array of object, required, at most 3 items)",
            ],
        ),
        (
            SAMPLE_PROMPT.replace("- `verdict`", "* `verdict`"),
            vec![
                "not a field line: \"* `verdict` (string, required, one of \\\"yes\\\", \\\"no\\\"): the answer.\"",
            ],
        ),
        (
            SAMPLE_PROMPT.replace("## Fields", "## Output"),
            vec!["no `## Fields` section"],
        ),
    ];
    for (prompt, expected) in cases {
        assert_eq!(prompt_mismatches(&schema, &prompt), expected, "{prompt}");
    }
    let reordered = SAMPLE_PROMPT
        .replace(
            "- `verdict` (string, required, one of \"yes\", \"no\"): the answer.\n",
            "",
        )
        .replace(
            "## Rules",
            "- `verdict` (string, required, one of \"yes\", \"no\"): the answer.\n\n## Rules",
        );
    let mismatches = prompt_mismatches(&schema, &reordered);
    assert_eq!(mismatches.len(), 1, "{mismatches:?}");
    assert!(mismatches[0].starts_with("the prompt lists the fields in another order"));
}
