//! Combining subschemas (`allOf`, a branch with the keywords beside it, `$ref` siblings) into
//! one plain schema.
//!
//! Merging is an intersection where the result is again a plain schema: types intersect,
//! enums intersect, lower bounds take the larger, upper bounds the smaller, `required` is the
//! union, a property in both sides becomes `allOf` of the two, and closed objects keep only
//! the properties every closed side declares. `patternProperties` are the union of both
//! sides' patterns (a pattern in both takes `allOf` of its two schemas); a key that matches a
//! pattern of one side only then escapes the other side's `additionalProperties`, which is
//! noted. Anything else that differs between the sides keeps the first side's value, with a
//! note.
//!
//! The result is walked under a pointer of its own, with each of its parts recorded as taken
//! from one side or the other ([`Deriver::locate`]): a note about a keyword names the place in
//! the user's schema where the keyword is, however many branches it was merged into.

use serde_json::{Map, Value, json};

use super::derive::{ANNOTATIONS, Deriver};
use super::pattern::matches_every_string;
use super::types::type_names;
use crate::schema::distinct::DistinctValues;
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

/// Where the two sides of a merge are, as pointers a note can be located from (a place in the
/// user's schema, or a merged schema's own pointer): `base_at` for the keywords of `base`,
/// `extra_at` for those of `extra`, `whole_at` for the merged schema as a whole.
pub(crate) struct Sides<'a> {
    pub base_at: &'a str,
    pub extra_at: &'a str,
    pub whole_at: &'a str,
}

/// Which side a part of a merged schema was taken from, and its path below that side.
enum Source {
    Base(String),
    Extra(String),
}

/// The parts of a merged schema (paths below it, each `/`-led) and where each was taken from.
type Origins = Vec<(String, Source)>;

/// `base` combined with the subschema `extra`, and the pointer to walk the result under (its
/// parts located where they come from); `None` (with a note) when `extra` accepts nothing.
pub(crate) fn merge(
    deriver: &mut Deriver<'_>,
    base: &Map<String, Value>,
    extra: &Value,
    sides: &Sides<'_>,
    depth: u32,
) -> Option<(Map<String, Value>, String)> {
    let pointer = sides.extra_at;
    if !deriver.step(pointer) {
        return None;
    }
    let extra = match extra {
        Value::Bool(true) => return Some(placed(deriver, base.clone(), Vec::new(), sides)),
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
        return Some(placed(deriver, base.clone(), Vec::new(), sides));
    }
    if let Some(reference) = extra.get("$ref").and_then(Value::as_str) {
        let (target, target_pointer) = deriver.target(reference, pointer)?;
        let target_pointer = target_pointer.into_owned();
        let to_target = Sides {
            extra_at: &target_pointer,
            ..*sides
        };
        let (merged, merged_at) = merge(deriver, base, target, &to_target, depth + 1)?;
        let rest = without(extra, &["$ref"]);
        if rest.keys().all(|key| ANNOTATIONS.contains(&key.as_str())) {
            return Some((merged, merged_at));
        }
        let to_rest = Sides {
            base_at: &merged_at,
            ..*sides
        };
        return merge(deriver, &merged, &Value::Object(rest), &to_rest, depth + 1);
    }
    let mut out = base.clone();
    let mut origins: Origins = Vec::new();
    let key_path = |key: &str| pointer_push("", key);
    for (key, theirs) in extra {
        let Some(ours) = base.get(key) else {
            out.insert(key.clone(), theirs.clone());
            origins.push((key_path(key), Source::Extra(key_path(key))));
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
            "properties" | "items" | "additionalProperties" | "patternProperties" => {} // below, with closing
            // A pattern that matches every string constrains nothing beside another.
            "pattern" if ours.as_str().is_some_and(matches_every_string) => {
                out.insert(key.to_owned(), theirs.clone());
                origins.push((key_path(key), Source::Extra(key_path(key))));
            }
            "pattern" if theirs.as_str().is_some_and(matches_every_string) => {}
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
                    let mut pairs: Vec<Value> = Vec::with_capacity(left.len() * right.len());
                    for (i, a) in left.iter().enumerate() {
                        for (j, b) in right.iter().enumerate() {
                            let pair = pointer_push(&key_path(key), &pairs.len().to_string());
                            let (mine, other) = (
                                pointer_push(&key_path(key), &i.to_string()),
                                pointer_push(&key_path(key), &j.to_string()),
                            );
                            origins.push((pair.clone(), Source::Base(mine.clone())));
                            origins.push((format!("{pair}/allOf/0"), Source::Base(mine)));
                            origins.push((format!("{pair}/allOf/1"), Source::Extra(other)));
                            pairs.push(json!({"allOf": [a, b]}));
                        }
                    }
                    out.insert(key.to_owned(), Value::Array(pairs));
                }
            }
            _ if LOWER_BOUNDS.contains(&key) || UPPER_BOUNDS.contains(&key) => {
                if let (Some(a), Some(b)) = (ours.as_f64(), theirs.as_f64()) {
                    let lower = LOWER_BOUNDS.contains(&key);
                    let pick_theirs = if lower { b > a } else { b < a };
                    if pick_theirs {
                        out.insert(key.to_owned(), theirs.clone());
                        origins.push((key_path(key), Source::Extra(key_path(key))));
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
    if patterns_escape_additional(base, extra) || patterns_escape_additional(extra, base) {
        deriver.note(
            pointer,
            Some("patternProperties"),
            "a key that matches a pattern of one combined schema only gets that pattern's schema, not the other schema's additionalProperties; validation checks it",
        );
    }
    merge_literals(base, extra, &mut out, &mut origins);
    merge_objects(base, extra, &mut out, &mut origins);
    Some(placed(deriver, out, origins, sides))
}

/// `merged` with a pointer of its own, under which each part is located where it comes from:
/// where `origins` says, and every other keyword in `base` (those taken from `extra` are all
/// in `origins`).
fn placed(
    deriver: &mut Deriver<'_>,
    merged: Map<String, Value>,
    origins: Origins,
    sides: &Sides<'_>,
) -> (Map<String, Value>, String) {
    let at = deriver.merged_pointer(sides.whole_at);
    for key in merged.keys() {
        let path = pointer_push("", key);
        deriver.set_origin(format!("{at}{path}"), format!("{}{path}", sides.base_at));
    }
    for (path, from) in origins {
        let origin = match from {
            Source::Base(below) => format!("{}{below}", sides.base_at),
            Source::Extra(below) => format!("{}{below}", sides.extra_at),
        };
        deriver.set_origin(format!("{at}{path}"), origin);
    }
    (merged, at)
}

/// Whether a key that a pattern of `from` matches can be one `other` leaves to its
/// `additionalProperties` (a pattern `other` does not have), where that constrains something.
fn patterns_escape_additional(from: &Map<String, Value>, other: &Map<String, Value>) -> bool {
    let constrains = other
        .get("additionalProperties")
        .is_some_and(|additional| additional != &Value::Bool(true));
    let patterns = |map: &Map<String, Value>| {
        map.get("patternProperties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
    };
    let theirs = patterns(other);
    constrains
        && patterns(from)
            .keys()
            .any(|pattern| !theirs.contains_key(pattern))
}

/// `enum` and `const` of both sides as one `enum` (or the one `const`), located at the
/// keyword whose values it keeps.
fn merge_literals(
    base: &Map<String, Value>,
    extra: &Map<String, Value>,
    out: &mut Map<String, Value>,
    origins: &mut Origins,
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
    let keyword = |map: &Map<String, Value>| {
        if map.contains_key("const") {
            "/const"
        } else {
            "/enum"
        }
    };
    let (combined, from) = match (allowed(base), allowed(extra)) {
        (Some(ours), Some(theirs)) => {
            let mut allowed_there = DistinctValues::new();
            for value in &theirs {
                allowed_there.insert(value);
            }
            let kept = ours
                .into_iter()
                .filter(|value| allowed_there.contains(value))
                .collect();
            (kept, Source::Base(keyword(base).to_owned()))
        }
        (Some(values), None) => (values, Source::Base(keyword(base).to_owned())),
        (None, Some(values)) => (values, Source::Extra(keyword(extra).to_owned())),
        (None, None) => return,
    };
    out.remove("const");
    out.insert("enum".to_owned(), Value::Array(combined));
    origins.push(("/enum".to_owned(), from));
}

/// `properties`, `patternProperties`, `items` and `additionalProperties` of both sides.
fn merge_objects(
    base: &Map<String, Value>,
    extra: &Map<String, Value>,
    out: &mut Map<String, Value>,
    origins: &mut Origins,
) {
    // A part both sides have, as `allOf` of the two unless they are equal; its origins.
    let both = |path: String, a: &Value, b: &Value, origins: &mut Origins| {
        origins.push((path.clone(), Source::Base(path.clone())));
        if a == b {
            return a.clone();
        }
        origins.push((format!("{path}/allOf/0"), Source::Base(path.clone())));
        origins.push((format!("{path}/allOf/1"), Source::Extra(path)));
        json!({"allOf": [a, b]})
    };
    if let (Some(a), Some(b)) = (base.get("items"), extra.get("items"))
        && a.is_object() | a.is_boolean()
        && b.is_object() | b.is_boolean()
    {
        let items = both("/items".to_owned(), a, b, origins);
        out.insert("items".to_owned(), items);
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
        let path = pointer_push("/properties", name);
        let combined = match (ours.get(name), theirs.get(name)) {
            (Some(a), Some(b)) => both(path, a, b, origins),
            (Some(_), None) => {
                origins.push((path.clone(), Source::Base(path)));
                schema.clone()
            }
            _ => {
                origins.push((path.clone(), Source::Extra(path)));
                schema.clone()
            }
        };
        properties.insert(name.clone(), combined);
    }
    if !properties.is_empty() || out.contains_key("properties") {
        out.insert("properties".to_owned(), Value::Object(properties));
    }
    if let (Some(Value::Object(ours)), Some(Value::Object(theirs))) = (
        base.get("patternProperties"),
        extra.get("patternProperties"),
    ) {
        let mut patterns = ours.clone();
        for (pattern, schema) in theirs {
            let path = pointer_push("/patternProperties", pattern);
            let combined = match ours.get(pattern) {
                Some(our) => both(path, our, schema, origins),
                None => {
                    origins.push((path.clone(), Source::Extra(path)));
                    schema.clone()
                }
            };
            patterns.insert(pattern.clone(), combined);
        }
        out.insert("patternProperties".to_owned(), Value::Object(patterns));
    }
    let path = "/additionalProperties".to_owned();
    match (
        base.get("additionalProperties"),
        extra.get("additionalProperties"),
    ) {
        (Some(Value::Bool(false)), _) => {
            out.insert("additionalProperties".to_owned(), Value::Bool(false));
        }
        (_, Some(Value::Bool(false))) => {
            out.insert("additionalProperties".to_owned(), Value::Bool(false));
            origins.push((path.clone(), Source::Extra(path)));
        }
        (Some(a), Some(b)) => {
            let additional = both(path, a, b, origins);
            out.insert("additionalProperties".to_owned(), additional);
        }
        _ => {}
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
