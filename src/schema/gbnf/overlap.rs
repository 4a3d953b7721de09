//! The check that the branches of a `oneOf` cannot overlap, as far as a cheap look at their
//! types, literal values and required discriminator properties tells. Where it cannot tell,
//! the grammar derives the `oneOf` as an `anyOf`, with a note.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::{Map, Value};

use super::derive::Deriver;
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
}

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
        (None, None) => None,
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
    Shape {
        types,
        values,
        discriminators,
    }
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

/// Whether no value can match two of the branches, as far as types, literal values and
/// required discriminator properties show.
pub(crate) fn pairwise_disjoint(deriver: &mut Deriver<'_>, branches: &[Value]) -> bool {
    let shapes: Vec<Shape> = branches
        .iter()
        .map(|branch| shape(deriver, branch))
        .collect();
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
            .all(|other| disjoint(a, &shapes[other]))
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
                pairwise_disjoint(&mut deriver, &branches),
                every_pair,
                "{branches:?}"
            );
        }
    }
}
