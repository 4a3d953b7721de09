//! The check that the branches of a `oneOf` cannot overlap, as far as a cheap look at their
//! types, literal values, required discriminator properties and required properties tells.
//! Where it cannot tell, the grammar derives the `oneOf` as an `anyOf`, with a note.
//!
//! The last test is about what the grammar writes, not about the schema: an object branch that
//! declares its properties is generated with those properties only, so no object it generates
//! satisfies a branch that requires a property it does not declare (the Pydantic union of
//! models, each with its own required fields).

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::{Map, Value};

use super::derive::{ANNOTATIONS, Deriver};
use super::types::{type_names, value_types};
use crate::schema::distinct::equality_hash;

/// What one `oneOf` branch can be, as far as a cheap look can tell.
struct Shape {
    /// The JSON types it allows; `None` for any.
    types: Option<BTreeSet<&'static str>>,
    /// The only values it allows (`enum` / `const`), if it limits them.
    values: Option<Vec<Value>>,
    /// Required properties whose values are limited, with those values.
    discriminators: Vec<(String, Vec<Value>)>,
    /// Every required property.
    required: Vec<String>,
    /// The only properties the grammar writes in an object of this branch, when it declares
    /// them (and nothing else in the branch could add others).
    declared: Option<HashSet<String>>,
}

/// Keywords beside which a branch's declared properties are all its grammar writes.
const PLAIN_OBJECT: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "minProperties",
    "maxProperties",
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
];

fn literal_values(map: &Map<String, Value>) -> Option<Vec<Value>> {
    if let Some(constant) = map.get("const") {
        return Some(vec![constant.clone()]);
    }
    map.get("enum").and_then(Value::as_array).cloned()
}

fn shape(deriver: &mut Deriver<'_>, branch: &Value) -> Shape {
    let unknown = Shape {
        types: None,
        values: None,
        discriminators: Vec::new(),
        required: Vec::new(),
        declared: None,
    };
    let Some(mut map) = branch.as_object() else {
        return unknown;
    };
    if let Some(reference) = map.get("$ref").and_then(Value::as_str)
        && let Some(target) = deriver.lookup(reference)
        && let Some(target) = target.as_object()
    {
        map = target;
    }
    let values = literal_values(map);
    let types = match (&values, map.get("type")) {
        (Some(values), _) => Some(
            values
                .iter()
                .flat_map(|value| value_types(value).iter().copied())
                .collect(),
        ),
        (None, Some(types)) => Some(
            type_names(types)
                .iter()
                .flat_map(|name| match name.as_str() {
                    "number" => ["number", "integer"].as_slice(),
                    "integer" => ["integer"].as_slice(),
                    "string" => ["string"].as_slice(),
                    "object" => ["object"].as_slice(),
                    "array" => ["array"].as_slice(),
                    "boolean" => ["boolean"].as_slice(),
                    "null" => ["null"].as_slice(),
                    _ => [].as_slice(),
                })
                .copied()
                .collect(),
        ),
        (None, None) => alternative_types(deriver, map, 0),
    };
    let required: HashSet<&str> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let discriminators = map
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .filter(|(name, _)| required.contains(name.as_str()))
                .filter_map(|(name, schema)| {
                    Some((name.clone(), literal_values(schema.as_object()?)?))
                })
                .collect()
        })
        .unwrap_or_default();
    let properties = map.get("properties").and_then(Value::as_object);
    let declared = (map.keys().all(|key| PLAIN_OBJECT.contains(&key.as_str()))
        && (properties.is_some_and(|properties| !properties.is_empty()) || !required.is_empty()))
    .then(|| {
        properties
            .into_iter()
            .flat_map(|properties| properties.keys().cloned())
            .chain(required.iter().map(|name| (*name).to_owned()))
            .collect()
    });
    Shape {
        types,
        values,
        discriminators,
        required: required.iter().map(|name| (*name).to_owned()).collect(),
        declared,
    }
}

/// The types a schema made only of `oneOf` / `anyOf` branches allows: those its branches
/// name (through `$ref`s and nested alternatives, a few levels deep); `None` when a branch
/// does not say.
fn alternative_types(
    deriver: &mut Deriver<'_>,
    map: &Map<String, Value>,
    depth: u32,
) -> Option<BTreeSet<&'static str>> {
    let mut keywords = map
        .keys()
        .filter(|key| !ANNOTATIONS.contains(&key.as_str()));
    let keyword = keywords.next()?;
    if keywords.next().is_some() || !["oneOf", "anyOf"].contains(&keyword.as_str()) || depth > 4 {
        return None;
    }
    let mut types = BTreeSet::new();
    for branch in map.get(keyword)?.as_array()? {
        let mut branch = branch.as_object()?;
        if let Some(reference) = branch.get("$ref").and_then(Value::as_str) {
            branch = deriver.lookup(reference)?.as_object()?;
        }
        let named = if branch.contains_key("type") || literal_values(branch).is_some() {
            shape(deriver, &Value::Object(branch.clone())).types?
        } else {
            alternative_types(deriver, branch, depth + 1)?
        };
        types.extend(named);
    }
    Some(types)
}

/// Keywords beside which an array branch is its items and its length bounds only (with
/// annotations).
const PLAIN_ARRAY: &[&str] = &["type", "items", "minItems", "maxItems"];

/// When every branch is an array of one `items` schema and no two branches' items overlap
/// (as [`pairwise_disjoint`] tells of the items): the branches (a `$ref` read), each with how
/// few items it allows. Two such branches can only both accept `[]`.
pub(crate) fn arrays_apart(
    deriver: &mut Deriver<'_>,
    branches: &[Value],
) -> Option<Vec<(Map<String, Value>, u64)>> {
    let mut arrays = Vec::new();
    let mut items = Vec::new();
    for branch in branches {
        let mut map = branch.as_object()?;
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            map = deriver.lookup(reference)?.as_object()?;
        }
        let plain = map.get("type").and_then(Value::as_str) == Some("array")
            && map.keys().all(|key| {
                PLAIN_ARRAY.contains(&key.as_str()) || ANNOTATIONS.contains(&key.as_str())
            });
        let item = map.get("items").filter(|item| item.is_object())?;
        if !plain {
            return None;
        }
        items.push(item.clone());
        let fewest = map.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        arrays.push((map.clone(), fewest));
    }
    pairwise_disjoint(deriver, &items, true).then_some(arrays)
}

/// Whether no value the grammar writes for branch `a` satisfies branch `b`: each type `a`
/// allows is one `b` refuses, or an object without a property `b` requires.
fn separated(a: &Shape, b: &Shape) -> bool {
    let (Some(left), Some(right)) = (&a.types, &b.types) else {
        return false;
    };
    let lacks_required = a
        .declared
        .as_ref()
        .is_some_and(|declared| b.required.iter().any(|name| !declared.contains(name)));
    left.iter().all(|name| {
        let shared = right.contains(name)
            || (*name == "integer" && right.contains("number"))
            || (*name == "number" && right.contains("integer"));
        !shared || (*name == "object" && lacks_required)
    })
}

fn disjoint(a: &Shape, b: &Shape) -> bool {
    if let (Some(left), Some(right)) = (&a.types, &b.types) {
        // `integer` values are also `number` values.
        let overlap = left.iter().any(|name| right.contains(name))
            || left.contains("number") && right.contains("integer")
            || left.contains("integer") && right.contains("number");
        if !overlap {
            return true;
        }
    }
    if let (Some(left), Some(right)) = (&a.values, &b.values)
        && !left.iter().any(|value| right.contains(value))
    {
        return true;
    }
    a.discriminators.iter().any(|(name, left)| {
        b.discriminators
            .iter()
            .any(|(other, right)| other == name && !left.iter().any(|value| right.contains(value)))
    })
}

/// Whether no value the grammar writes can match two of the branches, as far as types, literal
/// values and required (discriminator) properties show. `alone`: the branches are derived as
/// they are, without keywords beside the `oneOf` merged into them (which could declare more
/// properties).
pub(crate) fn pairwise_disjoint(
    deriver: &mut Deriver<'_>,
    branches: &[Value],
    alone: bool,
) -> bool {
    let mut shapes: Vec<Shape> = branches
        .iter()
        .map(|branch| shape(deriver, branch))
        .collect();
    if !alone {
        for shape in &mut shapes {
            shape.declared = None;
        }
    }
    // The branches that share a discriminator with values no two of them share are disjoint
    // from one another without comparing them in pairs: a tool set's `oneOf` is thousands of
    // branches, each with its own `name` const. Only the pairs involving the other branches
    // are left to compare.
    let (settled, rest) = match discriminated(&shapes) {
        Some(settled) => {
            let rest: Vec<usize> = (0..shapes.len()).filter(|&index| !settled[index]).collect();
            (settled, rest)
        }
        None => (vec![false; shapes.len()], (0..shapes.len()).collect()),
    };
    rest.iter().all(|&index| {
        let a = &shapes[index];
        (0..shapes.len())
            .filter(|&other| other > index || settled[other])
            .all(|other| {
                let b = &shapes[other];
                disjoint(a, b) || (separated(a, b) && separated(b, a))
            })
    })
}

/// For the discriminator name most branches have: which branches have it, when no value of it
/// is allowed by two of them (which makes those branches pairwise [`disjoint`]); `None` when
/// no such name exists or two branches share a value.
fn discriminated(shapes: &[Shape]) -> Option<Vec<bool>> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for shape in shapes {
        for (name, _) in &shape.discriminators {
            *counts.entry(name.as_str()).or_default() += 1;
        }
    }
    let (name, _) = counts
        .into_iter()
        .filter(|&(_, count)| count >= 2)
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))?;
    let mut owners: HashMap<u64, Vec<(usize, &Value)>> = HashMap::new();
    let mut settled = vec![false; shapes.len()];
    for (index, shape) in shapes.iter().enumerate() {
        let Some((_, values)) = shape.discriminators.iter().find(|(found, _)| found == name) else {
            continue;
        };
        settled[index] = true;
        for value in values {
            let bucket = owners.entry(equality_hash(value)).or_default();
            if bucket
                .iter()
                .any(|&(owner, seen)| owner != index && seen == value)
            {
                return None;
            }
            bucket.push((index, value));
        }
    }
    Some(settled)
}

#[cfg(test)]
mod tests {
    //! Unit tests of the overlap check.

    use serde_json::{Value, json};

    use super::*;
    use crate::schema::gbnf::shared::Whitespace;

    fn shapes(branches: &[Value]) -> Vec<Shape> {
        let root = json!({});
        let mut deriver = Deriver::new(&root, Whitespace::Pretty);
        branches
            .iter()
            .map(|branch| shape(&mut deriver, branch))
            .collect()
    }

    fn call(name: &str) -> Value {
        json!({
            "type": "object",
            "properties": {"name": {"const": name}, "arguments": {"type": "object"}},
            "required": ["name", "arguments"]
        })
    }

    #[test]
    fn branches_told_apart_by_a_discriminator_are_not_compared_in_pairs() {
        // A tool set's oneOf: a `name` const per tool, then the plain answer.
        let mut branches: Vec<Value> = (0..2000).map(|index| call(&format!("t{index}"))).collect();
        branches.push(json!({
            "type": "object",
            "properties": {"answer": {"type": "string"}},
            "required": ["answer"]
        }));
        let settled = discriminated(&shapes(&branches)).expect("the names differ");
        assert_eq!(settled.iter().filter(|&&settled| settled).count(), 2000);
        assert!(!settled[2000]);

        // Two tools with one name: no shortcut, the pairs decide.
        branches[7] = call("t3");
        assert!(discriminated(&shapes(&branches)).is_none());
    }

    #[test]
    fn the_shortcut_gives_the_answer_of_every_pair() {
        let cases = [
            vec![call("a"), call("b"), json!({"type": "string"})],
            vec![call("a"), call("b"), json!({"type": "object"})],
            vec![call("a"), call("a"), json!({"type": "string"})],
            vec![
                json!({"type": "object", "properties": {"kind": {"enum": ["x", "y"]}}, "required": ["kind"]}),
                json!({"type": "object", "properties": {"kind": {"enum": ["z"]}}, "required": ["kind"]}),
                json!({"type": "array"}),
                json!({"type": "null"}),
            ],
            vec![
                json!({"type": "object", "properties": {"kind": {"const": "x"}}, "required": ["kind"]}),
                json!({"type": "object", "properties": {"kind": {"const": "x"}}, "required": ["kind"]}),
            ],
            vec![
                json!({"enum": [1, 2]}),
                json!({"enum": [2, 3]}),
                json!({"enum": [4]}),
            ],
        ];
        for branches in cases {
            let shapes = shapes(&branches);
            let every_pair = shapes.iter().enumerate().all(|(index, a)| {
                shapes[index + 1..]
                    .iter()
                    .all(|b| disjoint(a, b) && disjoint(b, a))
            });
            let root = json!({});
            let mut deriver = Deriver::new(&root, Whitespace::Pretty);
            assert_eq!(
                pairwise_disjoint(&mut deriver, &branches, true),
                every_pair,
                "{branches:?}"
            );
        }
    }

    /// A union of models, each with a required field the others do not declare: the grammar
    /// writes each model's own fields only, so no answer it allows matches two branches.
    #[test]
    fn models_told_apart_by_their_required_fields_are_exact() {
        use crate::schema::{gbnf, validate};
        let union = json!({
            "$defs": {
                "Cat": {"type": "object", "properties": {"meows": {"type": "boolean"},
                    "name": {"type": "string"}}, "required": ["meows"]},
                "Dog": {"type": "object", "properties": {"barks": {"type": "boolean"},
                    "name": {"type": "string"}}, "required": ["barks"]}
            },
            "oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]
        });
        let derived = gbnf::derive(&union).unwrap();
        assert!(
            derived
                .notes
                .iter()
                .all(|note| note.keyword.as_deref() != Some("oneOf")),
            "{:?}",
            derived.notes
        );
        let grammar = gbnf::parse(&derived.grammar).unwrap();
        for text in [r#"{"meows":true,"name":"Tom"}"#, r#"{"barks":false}"#] {
            assert!(grammar.recognize(text).is_ok(), "{text}");
            let value: Value = serde_json::from_str(text).unwrap();
            assert!(validate(&union, &value).is_ok(), "{text}");
        }
        // Valid for both, and so for neither: the grammar does not write it.
        assert!(grammar.recognize(r#"{"meows":true,"barks":true}"#).is_err());

        // A branch whose required fields the other declares: not told apart.
        let overlapping = json!({"oneOf": [
            {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}
        ]});
        let notes = &gbnf::derive(&overlapping).unwrap().notes;
        assert!(
            notes
                .iter()
                .any(|note| note.keyword.as_deref() == Some("oneOf")),
            "{notes:?}"
        );
        // Keywords beside the oneOf may declare more: not told apart either.
        let beside = json!({"properties": {"x": {"type": "string"}}, "oneOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]}
        ]});
        let notes = &gbnf::derive(&beside).unwrap().notes;
        assert!(
            notes
                .iter()
                .any(|note| note.keyword.as_deref() == Some("oneOf")),
            "{notes:?}"
        );
    }
}
