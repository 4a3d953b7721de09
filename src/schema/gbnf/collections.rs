//! Arrays and objects.
//!
//! Optional properties stay exact without an exponential grammar: the members of an object
//! are an alternation over which property comes first (any optional one before the first
//! required one, or that required one); after the first, every later property is
//! `(ws "," ws key-value)`, optional or not as the schema says. That is linear in the number
//! of alternatives times properties, admits every subset of the optional properties in
//! schema order, and never a leading or doubled comma.
//!
//! Property dependencies (`dependencies` with a list of names, `dependentRequired`) keep that
//! shape: for each set of the optional properties that have dependencies, one member list in
//! which exactly those are written (required) together with what they need, and the others
//! left out (a set where a left-out property is needed is not a list). The lists are disjoint
//! (they differ in which of those properties appear) and together hold exactly the objects that
//! meet every dependency; their number can double with each such property, so past
//! [`MOST_DEPENDENCY_LISTS`] the dependencies are noted instead.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::derive::Deriver;
use super::expr::Expr;
use super::types::count;
use crate::schema::{json_kind, pointer_push};

/// Above this many expression items, the tails of an object's member list become rules of
/// their own instead of being written out for every alternative.
const INLINE_TAIL_LIMIT: usize = 24;

/// An array: a list of `items`, or a tuple of `prefixItems` / array-form `items` followed by
/// the rest, with `minItems` / `maxItems`.
pub(crate) fn array(
    deriver: &mut Deriver<'_>,
    map: &Map<String, Value>,
    pointer: &str,
    hint: &str,
    depth: u32,
) -> Expr {
    let min = count(deriver, map, "minItems", pointer).unwrap_or(0);
    let max = count(deriver, map, "maxItems", pointer);
    if max.is_some_and(|max| max < min) {
        return deriver.never(pointer, Some("maxItems"), "maxItems is below minItems");
    }
    if map.get("uniqueItems") == Some(&Value::Bool(true)) && max.is_none_or(|max| max > 1) {
        deriver.note(
            pointer,
            Some("uniqueItems"),
            "the grammar cannot forbid repeated items; validation checks it",
        );
    }
    // Draft 2020-12 `prefixItems` + `items`, or draft-07 array `items` + `additionalItems`.
    let (prefix, prefix_keyword, rest, rest_keyword) =
        match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(prefix)), rest) => (Some(prefix), "prefixItems", rest, "items"),
            (None, Some(Value::Array(prefix))) => (
                Some(prefix),
                "items",
                map.get("additionalItems"),
                "additionalItems",
            ),
            (Some(other), _) => {
                return deriver.invalid(
                    &pointer_push(pointer, "prefixItems"),
                    format!("prefixItems must be an array, not {}", json_kind(other)),
                );
            }
            (None, items) => (None, "", items, "items"),
        };
    let rest = match rest {
        None => Some(deriver.rule("value")),
        Some(schema) => {
            let expr = deriver.value(
                schema,
                &pointer_push(pointer, rest_keyword),
                &format!("{hint}-item"),
                depth,
            );
            if expr == Expr::Never {
                None
            } else {
                Some(deriver.named(expr, &format!("{hint}-item")))
            }
        }
    };
    let Some(prefix) = prefix else {
        let item = rest.unwrap_or(Expr::Never);
        return deriver
            .shared
            .list(&mut deriver.builder, "[", "]", item, min, max);
    };
    let prefix: Vec<Expr> = prefix
        .iter()
        .enumerate()
        .map(|(index, schema)| {
            let item_hint = format!("{hint}-{index}");
            let expr = deriver.value(
                schema,
                &pointer_push(&pointer_push(pointer, prefix_keyword), &index.to_string()),
                &item_hint,
                depth,
            );
            deriver.named(expr, &item_hint)
        })
        .collect();
    tuple(deriver, &prefix, rest, min, max)
}

/// `[` p0 `,` p1 ... then rest items `]`, with the total count in `[min, max]`.
fn tuple(
    deriver: &mut Deriver<'_>,
    prefix: &[Expr],
    rest: Option<Expr>,
    min: u64,
    max: Option<u64>,
) -> Expr {
    let ws = deriver.rule("ws");
    let separator = || Expr::seq([ws.clone(), Expr::lit(","), ws.clone()]);
    let length = prefix.len() as u64;
    // The items from position `length` on: rest items, each after a separator.
    let mut tail = match max {
        Some(max) if max <= length => Expr::Empty,
        _ => match &rest {
            None => Expr::Empty,
            Some(item) => Expr::repeat(
                Expr::seq([separator(), item.clone()]),
                min.saturating_sub(length),
                max.map(|max| max - length),
            ),
        },
    };
    // Then prefix positions from the back; position i exists only if i < max.
    for position in (1..prefix.len()).rev() {
        if max.is_some_and(|max| position as u64 >= max) {
            continue;
        }
        let here = Expr::seq([separator(), prefix[position].clone(), tail]);
        tail = if (position as u64) < min {
            here
        } else {
            Expr::optional(here)
        };
    }
    // The first item has no separator in front of it.
    let first = match prefix.first() {
        Some(first) if max != Some(0) => first.clone(),
        _ => {
            // An empty prefix is a plain list of the rest.
            let item = rest.unwrap_or(Expr::Never);
            return deriver
                .shared
                .list(&mut deriver.builder, "[", "]", item, min, max);
        }
    };
    let items = Expr::seq([first, tail, ws.clone()]);
    let items = if min == 0 {
        Expr::optional(items)
    } else {
        items
    };
    Expr::seq([Expr::lit("["), ws, items, Expr::lit("]")])
}

/// Most member lists an object's property dependencies expand to (see the module docs).
const MOST_DEPENDENCY_LISTS: usize = 16;

/// Most optional properties with dependencies whose combinations are tried (each set of them
/// is one candidate list; most are ruled out when they need one another).
const MOST_DEPENDENCY_TRIGGERS: usize = 10;

/// The note for dependencies the grammar leaves to validation.
const DEPENDENCIES_NOTED: &str =
    "dependencies between properties are not expressed by the grammar; validation checks them";

/// One property as the grammar sees it.
#[derive(Clone)]
struct Member {
    name: String,
    /// The `"key" ws ":" ws value` rule, or `Never` when no value is allowed.
    key_value: Expr,
    required: bool,
}

/// An object: declared properties in schema order, or a free-form map.
pub(crate) fn object(
    deriver: &mut Deriver<'_>,
    map: &Map<String, Value>,
    pointer: &str,
    hint: &str,
    depth: u32,
) -> Expr {
    let empty = Map::new();
    let properties = match map.get("properties") {
        None => &empty,
        Some(Value::Object(properties)) => properties,
        Some(other) => {
            return deriver.invalid(
                &pointer_push(pointer, "properties"),
                format!("properties must be an object, not {}", json_kind(other)),
            );
        }
    };
    let required: Vec<String> = match map.get("required") {
        None => Vec::new(),
        Some(Value::Array(names)) if names.iter().all(Value::is_string) => names
            .iter()
            .filter_map(|name| name.as_str().map(str::to_owned))
            .collect(),
        Some(_) => {
            return deriver.invalid(
                &pointer_push(pointer, "required"),
                "required must be an array of strings",
            );
        }
    };
    let additional = map.get("additionalProperties");
    if properties.is_empty() && required.is_empty() {
        // `"properties": {}` written out (and nothing said of others) declares no members: a
        // tool without arguments, as MCP servers and OpenAI's examples write it. Like any
        // other declared list, it is all the grammar generates.
        if map.contains_key("properties") && additional.is_none() {
            deriver.note(
                pointer,
                Some("additionalProperties"),
                "additionalProperties is not false: the grammar generates only the declared properties (none here), never others",
            );
            return free_form(
                deriver,
                map,
                Some(&Value::Bool(false)),
                pointer,
                hint,
                depth,
            );
        }
        for keyword in ["dependencies", "dependentRequired"] {
            if map.contains_key(keyword) {
                deriver.note(pointer, Some(keyword), DEPENDENCIES_NOTED);
            }
        }
        return free_form(deriver, map, additional, pointer, hint, depth);
    }
    let patterns = map
        .get("patternProperties")
        .and_then(Value::as_object)
        .filter(|patterns| !patterns.is_empty());
    // A required name that only a pattern declares makes the patterns part of the object's
    // declaration: their members are written around the listed ones, as in an object without
    // `properties`, and not left out.
    let declared_by_patterns = patterns.is_some_and(|patterns| {
        required.iter().any(|name| {
            !properties.contains_key(name)
                && patterns
                    .keys()
                    .any(|pattern| pattern_matches(pattern, name))
        })
    });
    let around = match patterns {
        Some(patterns) if declared_by_patterns => {
            around_members(deriver, map, patterns, pointer, hint, depth)
        }
        _ => None,
    };
    if map.contains_key("patternProperties") {
        deriver.note(
            pointer,
            Some("patternProperties"),
            if declared_by_patterns {
                "members matched by a pattern are written around the listed properties and may repeat one of their keys; validation checks them"
            } else if properties.is_empty() {
                "properties matched by a pattern are not generated beside the required ones; validation checks them"
            } else {
                "properties matched by a pattern are not generated beside declared properties; validation checks them"
            },
        );
    }
    if let Some(names) = map.get("propertyNames") {
        let refused: Vec<&String> = properties
            .keys()
            .chain(required.iter())
            .filter(|name| crate::schema::validate(names, &Value::String((*name).clone())).is_err())
            .collect();
        if let Some(name) = refused.first() {
            deriver.note(
                pointer,
                Some("propertyNames"),
                format!("the declared property `{name}` does not satisfy propertyNames; the grammar writes it and validation refuses it"),
            );
        }
    }
    let closed = additional == Some(&Value::Bool(false));
    if !closed && !declared_by_patterns {
        deriver.note(
            pointer,
            Some("additionalProperties"),
            "additionalProperties is not false: the grammar generates only the declared properties, never others",
        );
    } else if !closed
        && !patterns.is_some_and(|patterns| {
            patterns
                .keys()
                .any(|pattern| super::pattern::matches_every_string(pattern))
        })
    {
        deriver.note(
            pointer,
            Some("additionalProperties"),
            "additionalProperties is not false: the grammar generates only the listed properties and keys that match patternProperties, never others",
        );
    }
    let minimum = count(deriver, map, "minProperties", pointer);
    let maximum = count(deriver, map, "maxProperties", pointer);
    if minimum.is_some_and(|minimum| minimum > required.len() as u64)
        || maximum.is_some_and(|maximum| maximum < properties.len() as u64 || around.is_some())
    {
        deriver.note(
            pointer,
            Some(if minimum.is_some() {
                "minProperties"
            } else {
                "maxProperties"
            }),
            "the grammar does not count optional properties; validation checks the count",
        );
    }
    let ws = deriver.rule("ws");
    let mut members: Vec<Member> = Vec::new();
    let required_names: HashSet<&str> = required.iter().map(String::as_str).collect();
    let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
    for name in &required {
        if !properties.contains_key(name) {
            names.push(name);
        }
    }
    for name in names {
        let is_required = required_names.contains(name);
        let value_hint = if hint == "root" {
            name.to_owned()
        } else {
            format!("{hint}-{name}")
        };
        let value = match properties.get(name) {
            Some(schema) => deriver.value(
                schema,
                &pointer_push(&pointer_push(pointer, "properties"), name),
                &value_hint,
                depth,
            ),
            None => undeclared_value(deriver, map, name, pointer, &value_hint, depth),
        };
        if value == Expr::Never {
            if is_required {
                return deriver.never(
                    pointer,
                    Some("required"),
                    &format!("required property `{name}` accepts no value"),
                );
            }
            continue;
        }
        let value = deriver.named(value, &value_hint);
        let key = serde_json::to_string(name).expect("a string serializes");
        let key_value = Expr::seq([
            Expr::lit(key),
            ws.clone(),
            Expr::lit(":"),
            ws.clone(),
            value,
            around
                .as_ref()
                .map_or(Expr::Empty, |(_, more)| more.clone()),
        ]);
        let key_value = deriver.named(key_value, &format!("{value_hint}-kv"));
        members.push(Member {
            name: name.to_owned(),
            key_value,
            required: is_required,
        });
    }
    // A member matched by a pattern can also come first, before any listed one.
    let leading = around.map(|(member, more)| Expr::seq([member, more]));
    let needs = property_dependencies(deriver, map, pointer, &members);
    let body = match dependency_lists(&members, &needs) {
        Some(lists) => {
            let bodies: Vec<Expr> = lists
                .iter()
                .enumerate()
                .map(|(index, list)| {
                    let list_hint = if lists.len() == 1 {
                        hint.to_owned()
                    } else {
                        format!("{hint}-with-{index}")
                    };
                    member_list(deriver, list, leading.as_ref(), &ws, &list_hint)
                })
                .collect();
            Expr::alt(bodies)
        }
        None => {
            for keyword in ["dependencies", "dependentRequired"] {
                if map.contains_key(keyword) {
                    deriver.note(
                        pointer,
                        Some(keyword),
                        format!(
                            "more than {MOST_DEPENDENCY_LISTS} combinations of the properties with dependencies: the grammar does not express them; validation checks them"
                        ),
                    );
                }
            }
            member_list(deriver, &members, leading.as_ref(), &ws, hint)
        }
    };
    Expr::seq([Expr::lit("{"), ws, body, Expr::lit("}")])
}

/// The value of a required property the schema does not declare: as in validation, the
/// schemas of every pattern in `patternProperties` that matches its name, or
/// additionalProperties when none does.
fn undeclared_value(
    deriver: &mut Deriver<'_>,
    map: &Map<String, Value>,
    name: &str,
    pointer: &str,
    hint: &str,
    depth: u32,
) -> Expr {
    let here = pointer_push(pointer, "patternProperties");
    let matched: Vec<(&Value, String)> = map
        .get("patternProperties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter(|(pattern, _)| pattern_matches(pattern, name))
        .map(|(pattern, schema)| (schema, pointer_push(&here, pattern)))
        .collect();
    match matched.as_slice() {
        [] => match map.get("additionalProperties") {
            None => deriver.rule("value"),
            Some(schema) => deriver.value(
                schema,
                &pointer_push(pointer, "additionalProperties"),
                hint,
                depth,
            ),
        },
        [(schema, at)] => deriver.value(schema, at, hint, depth),
        [(_, first), ..] => {
            let mut merged = Map::new();
            let mut merged_at = first.clone();
            for (schema, at) in &matched {
                let sides = super::merge::Sides {
                    base_at: &merged_at,
                    extra_at: at,
                    whole_at: first,
                };
                match super::merge::merge(deriver, &merged, schema, &sides, depth) {
                    Some((next, next_at)) => (merged, merged_at) = (next, next_at),
                    None => return Expr::Never,
                }
            }
            deriver.value(&Value::Object(merged), &merged_at, hint, depth + 1)
        }
    }
}

/// Whether `name` matches `pattern` as validation reads patterns. A pattern the validator
/// cannot compile matches nothing: validation refuses the whole schema anyway.
fn pattern_matches(pattern: &str, name: &str) -> bool {
    crate::schema::validate(
        &serde_json::json!({ "pattern": pattern }),
        &Value::String(name.to_owned()),
    )
    .is_ok()
}

/// The property-list dependencies of an object (`dependencies` entries that are lists of names,
/// and `dependentRequired`) between its members: each member's name with the members it needs.
/// What the grammar does not hold this way is noted: schema dependencies, and names the
/// grammar does not write.
fn property_dependencies(
    deriver: &mut Deriver<'_>,
    map: &Map<String, Value>,
    pointer: &str,
    members: &[Member],
) -> Vec<(String, Vec<String>)> {
    let is_member = |name: &str| members.iter().any(|member| member.name == name);
    let mut needs: Vec<(String, Vec<String>)> = Vec::new();
    for keyword in ["dependencies", "dependentRequired"] {
        let Some(entries) = map.get(keyword) else {
            continue;
        };
        if keyword == "dependentRequired" && !deriver.dependent_required_applies() {
            deriver.note(
                pointer,
                Some(keyword),
                "dependentRequired is not a draft-07 keyword (the draft this schema is read in): the validator ignores it, so the grammar does too",
            );
            continue;
        }
        let Some(entries) = entries.as_object() else {
            deriver.note(pointer, Some(keyword), DEPENDENCIES_NOTED);
            continue;
        };
        for (name, needed) in entries {
            let entry_pointer = pointer_push(&pointer_push(pointer, keyword), name);
            let names: Option<Vec<&str>> = needed
                .as_array()
                .and_then(|names| names.iter().map(Value::as_str).collect());
            let Some(names) = names else {
                deriver.note(
                    &entry_pointer,
                    None,
                    "a schema dependency is not expressed by the grammar; validation checks it",
                );
                continue;
            };
            // The grammar never writes a property that is not a member: nothing depends on it.
            if !is_member(name) || names.is_empty() {
                continue;
            }
            if let Some(missing) = names.iter().find(|needed| !is_member(needed)) {
                deriver.note(
                    &entry_pointer,
                    None,
                    format!(
                        "`{name}` needs `{missing}`, which the grammar does not write; validation checks the dependency"
                    ),
                );
                continue;
            }
            needs.push((name.clone(), names.into_iter().map(str::to_owned).collect()));
        }
    }
    needs
}

/// The member lists that together hold exactly the objects meeting `needs` (see the module
/// docs): one list without dependencies; `None` when there would be more than
/// [`MOST_DEPENDENCY_LISTS`].
fn dependency_lists(
    members: &[Member],
    needs: &[(String, Vec<String>)],
) -> Option<Vec<Vec<Member>>> {
    // Every name a set of present names brings in, the set included.
    let closure = |present: &mut HashSet<String>| loop {
        let before = present.len();
        for (name, needed) in needs {
            if present.contains(name) {
                present.extend(needed.iter().cloned());
            }
        }
        if present.len() == before {
            break;
        }
    };
    let mut always: HashSet<String> = members
        .iter()
        .filter(|member| member.required)
        .map(|member| member.name.clone())
        .collect();
    closure(&mut always);
    let mut triggers: Vec<&str> = Vec::new();
    for (name, _) in needs {
        if !always.contains(name) && !triggers.contains(&name.as_str()) {
            triggers.push(name);
        }
    }
    if triggers.len() > MOST_DEPENDENCY_TRIGGERS {
        return None;
    }
    let mut lists = Vec::new();
    for subset in 0..1usize << triggers.len() {
        let written: Vec<&str> = (0..triggers.len())
            .filter(|bit| subset & (1 << bit) != 0)
            .map(|bit| triggers[bit])
            .collect();
        let mut present = always.clone();
        present.extend(written.iter().map(|name| (*name).to_owned()));
        closure(&mut present);
        let left_out: Vec<&str> = triggers
            .iter()
            .copied()
            .filter(|name| !written.contains(name))
            .collect();
        // A left-out property that another one needs: that set is another list's.
        if left_out.iter().any(|name| present.contains(*name)) {
            continue;
        }
        if lists.len() == MOST_DEPENDENCY_LISTS {
            return None;
        }
        lists.push(
            members
                .iter()
                .filter(|member| !left_out.contains(&member.name.as_str()))
                .map(|member| Member {
                    required: present.contains(&member.name),
                    ..member.clone()
                })
                .collect(),
        );
    }
    Some(lists)
}

/// The members between the braces, including the whitespace before `}`; `leading`, when
/// given, is what may come first instead of a listed member (members matched by a pattern).
fn member_list(
    deriver: &mut Deriver<'_>,
    members: &[Member],
    leading: Option<&Expr>,
    ws: &Expr,
    hint: &str,
) -> Expr {
    let later = |member: &Member| {
        let item = Expr::seq([
            ws.clone(),
            Expr::lit(","),
            ws.clone(),
            member.key_value.clone(),
        ]);
        if member.required {
            item
        } else {
            Expr::optional(item)
        }
    };
    // Which members can come first: optional ones up to the first required one.
    let first_candidates = members
        .iter()
        .position(|member| member.required)
        .map_or(members.len(), |index| index + 1);
    let all_optional = members.iter().all(|member| !member.required);
    let inline_size = first_candidates * members.len();
    // tails[i]: the members after position i, each behind a separator; every member: all.
    let (tails, every): (Vec<Expr>, Expr) = if inline_size <= INLINE_TAIL_LIMIT {
        (
            (0..members.len())
                .map(|index| Expr::seq(members[index + 1..].iter().map(later)))
                .collect(),
            Expr::seq(members.iter().map(later)),
        )
    } else {
        // One rule per tail, each calling the next: linear in the number of properties.
        let mut tails = vec![Expr::Empty; members.len()];
        let mut next = Expr::Empty;
        for index in (0..members.len()).rev() {
            tails[index] = next.clone();
            let body = Expr::seq([later(&members[index]), next]);
            next = deriver.named(body, &format!("{hint}-rest-{index}"));
        }
        (tails, next)
    };
    let mut alternatives: Vec<Expr> = (0..first_candidates)
        .map(|index| {
            Expr::seq([
                members[index].key_value.clone(),
                tails[index].clone(),
                ws.clone(),
            ])
        })
        .collect();
    if let Some(leading) = leading {
        alternatives.push(Expr::seq([leading.clone(), every, ws.clone()]));
    }
    if all_optional {
        alternatives.push(Expr::Empty);
    }
    Expr::alt(alternatives)
}

/// An object without declared properties: any keys, each value matching
/// `additionalProperties` (any value when absent), between minProperties and maxProperties
/// members.
fn free_form(
    deriver: &mut Deriver<'_>,
    map: &Map<String, Value>,
    additional: Option<&Value>,
    pointer: &str,
    hint: &str,
    depth: u32,
) -> Expr {
    let min = count(deriver, map, "minProperties", pointer).unwrap_or(0);
    let max = count(deriver, map, "maxProperties", pointer);
    if min > 1 {
        deriver.note(
            pointer,
            Some("minProperties"),
            "the grammar counts members, so a repeated key counts twice; validation counts distinct keys",
        );
    }
    // Keys written under patternProperties: the grammar writes those only, as it writes only
    // the declared properties of an object that declares some. Exact when additionalProperties
    // is false or a pattern matches every key (which leaves none to additionalProperties).
    // Beside propertyNames and other keys allowed, the keys propertyNames describes are
    // written instead, with additionalProperties' values.
    let closed = additional == Some(&Value::Bool(false));
    let patterned = map
        .get("patternProperties")
        .and_then(Value::as_object)
        .filter(|patterns| !patterns.is_empty() && (closed || !map.contains_key("propertyNames")));
    if let Some(patterns) = patterned
        && additional != Some(&Value::Bool(false))
        && !patterns
            .keys()
            .any(|pattern| super::pattern::matches_every_string(pattern))
    {
        deriver.note(
            pointer,
            Some("additionalProperties"),
            "additionalProperties is not false: the grammar generates only keys that match patternProperties, never others",
        );
    }
    let keys_limited = map.contains_key("propertyNames") || map.contains_key("patternProperties");
    let value = match additional {
        // No members at all: `{}` with whitespace inside.
        Some(Value::Bool(false)) => Expr::Never,
        _ if patterned.is_some() => Expr::Never,
        None | Some(Value::Bool(true)) if min == 0 && max.is_none() && !keys_limited => {
            return deriver.rule("object");
        }
        _ => additional_value(deriver, additional, pointer, hint, depth),
    };
    let key = match map.get("propertyNames") {
        None => deriver.rule("string"),
        Some(names) => {
            let names = key_schema(names);
            let expr = deriver.value(
                &names,
                &pointer_push(pointer, "propertyNames"),
                &format!("{hint}-key"),
                depth,
            );
            deriver.named(expr, &format!("{hint}-key"))
        }
    };
    let ws = deriver.rule("ws");
    let mut members = Vec::new();
    if value != Expr::Never {
        members.push(Expr::seq([
            key.clone(),
            ws.clone(),
            Expr::lit(":"),
            ws.clone(),
            value,
        ]));
    }
    match map.get("patternProperties") {
        Some(Value::Object(patterns)) if patterned.is_none() && !patterns.is_empty() => {
            deriver.note(
                pointer,
                Some("patternProperties"),
                "properties matched by a pattern are not generated beside propertyNames; validation checks them",
            );
        }
        Some(Value::Object(_)) | None => {}
        Some(other) => {
            return deriver.invalid(
                &pointer_push(pointer, "patternProperties"),
                format!(
                    "patternProperties must be an object, not {}",
                    json_kind(other)
                ),
            );
        }
    }
    if let Some(patterns) = patterned {
        members.extend(pattern_members(
            deriver, map, patterns, pointer, hint, depth,
        ));
        // When every pattern's schema accepts nothing, the members left are those whose keys
        // no pattern matches, which a grammar cannot single out. With members needed, any key
        // under additionalProperties is closer to the schema than no object at all.
        if Expr::alt(members.clone()) == Expr::Never
            && min > 0
            && additional != Some(&Value::Bool(false))
        {
            deriver.note(
                pointer,
                Some("patternProperties"),
                "no key a pattern matches accepts a value, and the grammar cannot leave those keys out: it writes any key, and validation checks them",
            );
            let value = additional_value(deriver, additional, pointer, hint, depth);
            members.push(Expr::seq([key, ws.clone(), Expr::lit(":"), ws, value]));
        }
    }
    let member = match Expr::alt(members) {
        Expr::Never => Expr::Never,
        member => deriver.named(member, &format!("{hint}-member")),
    };
    let no_member = member == Expr::Never;
    let list = deriver
        .shared
        .list(&mut deriver.builder, "{", "}", member, min, max);
    if list == Expr::Never || (min > 0 && no_member) {
        return deriver.never(
            pointer,
            Some("minProperties"),
            "no object has that many members",
        );
    }
    list
}

/// The value of a member under `additionalProperties` (any value when it is absent).
fn additional_value(
    deriver: &mut Deriver<'_>,
    additional: Option<&Value>,
    pointer: &str,
    hint: &str,
    depth: u32,
) -> Expr {
    match additional {
        None | Some(Value::Bool(true)) => deriver.rule("value"),
        Some(schema) => {
            let value_hint = format!("{hint}-value");
            let expr = deriver.value(
                schema,
                &pointer_push(pointer, "additionalProperties"),
                &value_hint,
                depth,
            );
            deriver.named(expr, &value_hint)
        }
    }
}

/// The members `patternProperties` describe: for each pattern, a key that matches it (and
/// `propertyNames`, when given) and a value of its schema.
fn pattern_members(
    deriver: &mut Deriver<'_>,
    map: &Map<String, Value>,
    patterns: &Map<String, Value>,
    pointer: &str,
    hint: &str,
    depth: u32,
) -> Vec<Expr> {
    if patterns.len() > 1 {
        deriver.note(
            pointer,
            Some("patternProperties"),
            "a key that matches several patterns must satisfy each one's schema; the grammar checks the schema of the pattern it was written under, and validation checks the rest",
        );
    }
    let ws = deriver.rule("ws");
    let names = map.get("propertyNames").map(key_schema);
    let names_pointer = pointer_push(pointer, "propertyNames");
    let here = pointer_push(pointer, "patternProperties");
    let mut members = Vec::new();
    for (index, (pattern, schema)) in patterns.iter().enumerate() {
        let at = pointer_push(&here, pattern);
        let mut key = Map::new();
        key.insert("type".to_owned(), Value::from("string"));
        key.insert("pattern".to_owned(), Value::from(pattern.as_str()));
        let mut key_at = at.clone();
        if let Some(names) = &names {
            let sides = super::merge::Sides {
                base_at: &at,
                extra_at: &names_pointer,
                whole_at: &at,
            };
            match super::merge::merge(deriver, &key, names, &sides, depth) {
                Some((merged, merged_at)) => (key, key_at) = (merged, merged_at),
                None => continue,
            }
        }
        let key = deriver.value(
            &Value::Object(key),
            &key_at,
            &format!("{hint}-key-{index}"),
            depth,
        );
        let value = deriver.value(schema, &at, &format!("{hint}-value-{index}"), depth);
        let value = deriver.named(value, &format!("{hint}-value-{index}"));
        members.push(Expr::seq([
            key,
            ws.clone(),
            Expr::lit(":"),
            ws.clone(),
            value,
        ]));
    }
    members
}

/// The members `patternProperties` describe, as one rule, and the rule of any number of them
/// after a listed member, each behind a separator; `None` when no such member has a value.
fn around_members(
    deriver: &mut Deriver<'_>,
    map: &Map<String, Value>,
    patterns: &Map<String, Value>,
    pointer: &str,
    hint: &str,
    depth: u32,
) -> Option<(Expr, Expr)> {
    let members = pattern_members(deriver, map, patterns, pointer, hint, depth);
    let member = match Expr::alt(members) {
        Expr::Never => return None,
        member => deriver.named(member, &format!("{hint}-member")),
    };
    let ws = deriver.rule("ws");
    let more = Expr::repeat(
        Expr::seq([ws.clone(), Expr::lit(","), ws, member.clone()]),
        0,
        None,
    );
    Some((member.clone(), deriver.named(more, &format!("{hint}-more"))))
}

/// The schema of a property name: `propertyNames` limited to strings (keys are strings).
fn key_schema(names: &Value) -> Value {
    let Value::Object(map) = names else {
        return names.clone();
    };
    let mut map = map.clone();
    let allows_strings = match map.get("type") {
        None => true,
        Some(types) => super::types::type_names(types)
            .iter()
            .any(|name| name == "string"),
    };
    if !allows_strings {
        return Value::Bool(false);
    }
    map.insert("type".to_owned(), Value::String("string".to_owned()));
    Value::Object(map)
}
