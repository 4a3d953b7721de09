//! Combining subschemas (`allOf`, a branch with the keywords beside it, `$ref` siblings),
//! `enum` / `const` literals, and the check that `oneOf` branches cannot overlap.
//!
//! Merging is an intersection where the result is again a plain schema: types intersect,
//! enums intersect, lower bounds take the larger, upper bounds the smaller, `required` is the
//! union, a property in both sides becomes `allOf` of the two, and closed objects keep only
//! the properties every closed side declares. Anything else that differs between the sides
//! keeps the first side's value, with a note.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::{Map, Value, json};

use super::derive::{ANNOTATIONS, Deriver};
use super::expr::Expr;
use crate::schema::distinct::{DistinctValues, equality_hash};
use crate::schema::pointer_push;
use crate::schema::walk::without;

const LOWER_BOUNDS: &[&str] = &[
    "minLength",
    "minItems",
    "minProperties",
    "minimum",
    "exclusiveMinimum",
];
const UPPER_BOUNDS: &[&str] = &[
    "maxLength",
    "maxItems",
    "maxProperties",
    "maximum",
    "exclusiveMaximum",
];

/// Most branch combinations an `anyOf` beside an `anyOf` expands to.
const MAX_COMBINATIONS: usize = 64;

/// `base` combined with the subschema `extra`; `None` (with a note) when `extra` accepts
/// nothing.
pub(crate) fn merge(
    deriver: &mut Deriver<'_>,
    base: &Map<String, Value>,
    extra: &Value,
    pointer: &str,
    depth: u32,
) -> Option<Map<String, Value>> {
    let extra = match extra {
        Value::Bool(true) => return Some(base.clone()),
        Value::Bool(false) => {
            deriver.never(pointer, None, "the schema is `false`");
            return None;
        }
        Value::Object(extra) => extra,
        _ => {
            deriver.invalid(pointer, "a schema must be an object or a boolean");
            return None;
        }
    };
    if depth > 32 {
        deriver.note(
            pointer,
            None,
            "schemas combine too deeply here; the grammar ignores this part and validation checks it",
        );
        return Some(base.clone());
    }
    if let Some(reference) = extra.get("$ref").and_then(Value::as_str) {
        let target = deriver.resolve(reference, pointer)?;
        let merged = merge(deriver, base, target, pointer, depth + 1)?;
        let rest = without(extra, &["$ref"]);
        if rest.keys().all(|key| ANNOTATIONS.contains(&key.as_str())) {
            return Some(merged);
        }
        return merge(deriver, &merged, &Value::Object(rest), pointer, depth + 1);
    }
    let mut out = base.clone();
    for (key, theirs) in extra {
        let Some(ours) = base.get(key) else {
            out.insert(key.clone(), theirs.clone());
            continue;
        };
        if ours == theirs {
            continue;
        }
        let key = key.as_str();
        match key {
            "required" => {
                let mut names: Vec<Value> = ours.as_array().cloned().unwrap_or_default();
                let mut seen = DistinctValues::new();
                for name in ours.as_array().into_iter().flatten() {
                    seen.insert(name);
                }
                for name in theirs.as_array().into_iter().flatten() {
                    if seen.insert(name) {
                        names.push(name.clone());
                    }
                }
                out.insert(key.to_owned(), Value::Array(names));
            }
            "type" => {
                out.insert(key.to_owned(), intersect_types(ours, theirs));
            }
            "properties" | "items" | "additionalProperties" => {} // below, with closing
            "enum" | "const" => {} // below
            "anyOf" | "oneOf" => {
                let left = ours.as_array().cloned().unwrap_or_default();
                let right = theirs.as_array().cloned().unwrap_or_default();
                if left.len() * right.len() > MAX_COMBINATIONS {
                    deriver.note(
                        pointer,
                        Some(key),
                        "too many combinations of branches; the grammar uses the first set only and validation checks the rest",
                    );
                } else {
                    let pairs: Vec<Value> = left
                        .iter()
                        .flat_map(|a| right.iter().map(move |b| json!({"allOf": [a, b]})))
                        .collect();
                    out.insert(key.to_owned(), Value::Array(pairs));
                }
            }
            _ if LOWER_BOUNDS.contains(&key) || UPPER_BOUNDS.contains(&key) => {
                if let (Some(a), Some(b)) = (ours.as_f64(), theirs.as_f64()) {
                    let lower = LOWER_BOUNDS.contains(&key);
                    let pick_theirs = if lower { b > a } else { b < a };
                    if pick_theirs {
                        out.insert(key.to_owned(), theirs.clone());
                    }
                }
            }
            _ if ANNOTATIONS.contains(&key) => {}
            _ => deriver.note(
                pointer,
                Some(key),
                "two different values for this keyword cannot be combined; the grammar uses the first and validation checks both",
            ),
        }
    }
    merge_literals(base, extra, &mut out);
    merge_objects(base, extra, &mut out);
    Some(out)
}

/// `enum` and `const` of both sides as one `enum` (or the one `const`).
fn merge_literals(
    base: &Map<String, Value>,
    extra: &Map<String, Value>,
    out: &mut Map<String, Value>,
) {
    let allowed = |map: &Map<String, Value>| -> Option<Vec<Value>> {
        let mut values: Option<Vec<Value>> = map.get("enum").and_then(Value::as_array).cloned();
        if let Some(constant) = map.get("const") {
            values = Some(match values {
                Some(values) if !values.contains(constant) => Vec::new(),
                _ => vec![constant.clone()],
            });
        }
        values
    };
    let combined = match (allowed(base), allowed(extra)) {
        (Some(ours), Some(theirs)) => {
            let mut allowed_there = DistinctValues::new();
            for value in &theirs {
                allowed_there.insert(value);
            }
            ours.into_iter()
                .filter(|value| allowed_there.contains(value))
                .collect()
        }
        (Some(values), None) | (None, Some(values)) => values,
        (None, None) => return,
    };
    out.remove("const");
    out.insert("enum".to_owned(), Value::Array(combined));
}

/// `properties`, `items` and `additionalProperties` of both sides.
fn merge_objects(
    base: &Map<String, Value>,
    extra: &Map<String, Value>,
    out: &mut Map<String, Value>,
) {
    let both = |a: &Value, b: &Value| {
        if a == b {
            a.clone()
        } else {
            json!({"allOf": [a, b]})
        }
    };
    if let (Some(a), Some(b)) = (base.get("items"), extra.get("items"))
        && a.is_object() | a.is_boolean()
        && b.is_object() | b.is_boolean()
    {
        out.insert("items".to_owned(), both(a, b));
    }
    let empty = Map::new();
    let ours = base
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let theirs = extra
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let closed =
        |map: &Map<String, Value>| map.get("additionalProperties") == Some(&Value::Bool(false));
    let mut properties = Map::new();
    for (name, schema) in ours.iter().chain(theirs.iter()) {
        if properties.contains_key(name) {
            continue;
        }
        // A side that is closed forbids every name it does not declare.
        let forbidden = (closed(base) && !ours.contains_key(name))
            || (closed(extra) && !theirs.contains_key(name));
        if forbidden {
            continue;
        }
        let combined = match (ours.get(name), theirs.get(name)) {
            (Some(a), Some(b)) => both(a, b),
            _ => schema.clone(),
        };
        properties.insert(name.clone(), combined);
    }
    if !properties.is_empty() || out.contains_key("properties") {
        out.insert("properties".to_owned(), Value::Object(properties));
    }
    match (
        base.get("additionalProperties"),
        extra.get("additionalProperties"),
    ) {
        (Some(Value::Bool(false)), _) | (_, Some(Value::Bool(false))) => {
            out.insert("additionalProperties".to_owned(), Value::Bool(false));
        }
        (Some(a), Some(b)) => {
            out.insert("additionalProperties".to_owned(), both(a, b));
        }
        _ => {}
    }
}

fn type_names(value: &Value) -> Vec<String> {
    match value {
        Value::String(name) => vec![name.clone()],
        Value::Array(names) => names
            .iter()
            .filter_map(|name| name.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

fn intersect_types(ours: &Value, theirs: &Value) -> Value {
    let theirs = type_names(theirs);
    let mut out: Vec<Value> = Vec::new();
    for name in type_names(ours) {
        let kept = if theirs.contains(&name) {
            Some(name)
        } else if name == "number" && theirs.iter().any(|other| other == "integer")
            || name == "integer" && theirs.iter().any(|other| other == "number")
        {
            Some("integer".to_owned())
        } else {
            None
        };
        if let Some(kept) = kept.map(Value::String)
            && !out.contains(&kept)
        {
            out.push(kept);
        }
    }
    if out.len() == 1 {
        out.pop().expect("one type")
    } else {
        Value::Array(out)
    }
}

/// `enum` / `const` as an alternation of their values, each written as serde_json writes it
/// (compact), keeping only the values the rest of the schema accepts.
pub(crate) fn literals(deriver: &mut Deriver<'_>, map: &Map<String, Value>, pointer: &str) -> Expr {
    let mut values: Vec<Value> = match map.get("enum") {
        Some(Value::Array(values)) => values.clone(),
        Some(_) => return deriver.invalid(&pointer_push(pointer, "enum"), "enum must be an array"),
        None => Vec::new(),
    };
    if let Some(constant) = map.get("const") {
        if map.contains_key("enum") {
            values.retain(|value| value == constant);
        } else {
            values = vec![constant.clone()];
        }
    }
    // The other keywords, as a schema of their own, decide which values can occur. Usually
    // that is only `type`, checked directly; otherwise a schema without references compiles
    // on its own, and with references the type check must do.
    let only_type = map.keys().all(|key| {
        matches!(
            key.as_str(),
            "type" | "enum" | "const" | "title" | "description" | "default" | "examples"
        ) || ANNOTATIONS.contains(&key.as_str())
    });
    let checker = if only_type {
        None
    } else {
        let rest = Value::Object(without(
            map,
            &[
                "enum",
                "const",
                "title",
                "description",
                "default",
                "examples",
            ],
        ));
        (!mentions_ref(&rest))
            .then(|| crate::schema::validator(&rest).ok())
            .flatten()
    };
    let mut alternatives = Vec::new();
    for value in values {
        let fits = match &checker {
            Some(checker) => checker.is_valid(&value),
            None => type_fits(map, &value),
        };
        if fits {
            let text = serde_json::to_string(&value).expect("a JSON value serializes");
            alternatives.push(Expr::lit(text));
        } else {
            deriver.note(
                pointer,
                Some(if map.contains_key("enum") { "enum" } else { "const" }),
                format!(
                    "the value {} never satisfies the rest of this schema, so the grammar leaves it out",
                    serde_json::to_string(&value).expect("a JSON value serializes")
                ),
            );
        }
    }
    match Expr::alt(alternatives) {
        Expr::Never => deriver.never(
            pointer,
            Some("enum"),
            "no allowed value satisfies the rest of the schema",
        ),
        expr => expr,
    }
}

fn mentions_ref(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.contains_key("$ref") || map.values().any(mentions_ref),
        Value::Array(items) => items.iter().any(mentions_ref),
        _ => false,
    }
}

/// The JSON types a value has, `integer` included for integral numbers.
fn value_types(value: &Value) -> &'static [&'static str] {
    match value {
        Value::Null => &["null"],
        Value::Bool(_) => &["boolean"],
        Value::Number(number) => {
            let integral = number.is_i64()
                || number.is_u64()
                || number.as_f64().is_some_and(|float| float.fract() == 0.0);
            if integral {
                &["number", "integer"]
            } else {
                &["number"]
            }
        }
        Value::String(_) => &["string"],
        Value::Array(_) => &["array"],
        Value::Object(_) => &["object"],
    }
}

fn type_fits(map: &Map<String, Value>, value: &Value) -> bool {
    match map.get("type") {
        None => true,
        Some(types) => {
            let allowed = type_names(types);
            value_types(value)
                .iter()
                .any(|name| allowed.iter().any(|allowed| allowed == name))
        }
    }
}

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
#[path = "merge_tests.rs"]
mod tests;
