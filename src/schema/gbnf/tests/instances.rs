//! Test support: valid instances of a schema, generated deterministically, and their texts.
//!
//! The generator walks a schema (the contract subset, plus `const`, `anyOf`/`oneOf`, type
//! arrays, local `$ref`, numbers, booleans, null and untyped values) and builds an instance
//! tree that remembers, at every node, what the schema allowed there, so that
//! [`super::exactness`] can make near misses (one item too many, one below the minimum, ...).
//! Choices cycle per schema position (every enum value in turn, array lengths at both bounds,
//! optional properties in several patterns) so a few dozen instances cover the edges, and the
//! generator records which edges it produced.

use std::collections::{BTreeSet, HashMap};

use serde_json::{Map, Number, Value, json};

use crate::schema::gbnf::types::integer_bounds;
use crate::schema::pointer::ref_pointer;
use crate::schema::pointer_push;

/// A small deterministic generator (SplitMix64).
pub(crate) struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..bound` (`bound` > 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// An instance, with what the schema allowed at each node.
#[derive(Clone, Debug)]
pub(crate) enum Node {
    Object {
        members: Vec<(String, Node)>,
        /// Required property names.
        required: Vec<String>,
        /// Whether the schema declares properties (the grammar then closes the object).
        declared: bool,
    },
    Array {
        items: Vec<Node>,
        min: u64,
        max: Option<u64>,
    },
    Str {
        value: String,
        min: u64,
        max: Option<u64>,
    },
    Int {
        value: i128,
        low: Option<i128>,
        high: Option<i128>,
    },
    /// A value written exactly as serde_json writes it: enum and const values, numbers,
    /// booleans, null, and untyped values.
    Literal { value: Value, enumerated: bool },
}

impl Node {
    pub fn to_value(&self) -> Value {
        match self {
            Node::Object { members, .. } => Value::Object(
                members
                    .iter()
                    .map(|(key, node)| (key.clone(), node.to_value()))
                    .collect(),
            ),
            Node::Array { items, .. } => Value::Array(items.iter().map(Node::to_value).collect()),
            Node::Str { value, .. } => Value::String(value.clone()),
            Node::Int { value, .. } => integer_value(*value),
            Node::Literal { value, .. } => value.clone(),
        }
    }
}

pub(crate) fn integer_value(value: i128) -> Value {
    if let Ok(small) = i64::try_from(value) {
        Value::Number(small.into())
    } else if let Ok(big) = u64::try_from(value) {
        Value::Number(big.into())
    } else {
        // Out of JSON-number range for serde_json; the generator never goes there.
        Value::Number(Number::from_f64(value as f64).expect("finite"))
    }
}

/// Characters strings are made of: plain, quotes and backslashes, control characters,
/// DEL, non-ASCII, astral, and the line separators JSON leaves unescaped.
const POOL: &[char] = &[
    'a',
    'b',
    'Z',
    '0',
    '9',
    ' ',
    '-',
    '_',
    '"',
    '\\',
    '/',
    '\n',
    '\t',
    '\r',
    '\u{1}',
    '\u{1f}',
    '\u{7f}',
    'é',
    'ß',
    '中',
    '\u{2028}',
    '\u{ffff}',
    '😀',
    '𝄞',
    '\u{10ffff}',
];

/// Produces valid instances of one schema.
pub(crate) struct Generator<'s> {
    root: &'s Value,
    pub rng: Rng,
    /// Per schema position, how many times a choice was made there.
    counters: HashMap<String, u64>,
    /// The edges produced: (schema pointer, what).
    pub events: BTreeSet<(String, String)>,
    /// Below this depth the generator makes the smallest choices, so recursion ends.
    shallow: u32,
    /// Characters the current instance may still spend on long strings and arrays; when it
    /// runs out, the generator makes the smallest choices (without using up a turn).
    budget: u64,
}

/// The longest array the generator fills to its maximum (longer ones get shorter lengths).
pub(crate) const MAX_AFFORDABLE_ITEMS: u64 = 100;

/// Characters one instance may spend (maximal arrays of maximal strings would make
/// megabyte documents).
const BUDGET: u64 = 6000;

impl<'s> Generator<'s> {
    pub fn new(root: &'s Value, seed: u64) -> Generator<'s> {
        Generator {
            root,
            rng: Rng::new(seed),
            counters: HashMap::new(),
            events: BTreeSet::new(),
            shallow: 6,
            budget: BUDGET,
        }
    }

    /// The next choice at `pointer` among `count` options, cycling.
    fn cycle(&mut self, pointer: &str, what: &str, count: u64) -> u64 {
        let counter = self
            .counters
            .entry(format!("{pointer}#{what}"))
            .or_insert(0);
        let choice = *counter % count.max(1);
        *counter += 1;
        choice
    }

    fn event(&mut self, pointer: &str, what: impl Into<String>) {
        self.events.insert((pointer.to_owned(), what.into()));
    }

    /// One instance of the whole schema.
    pub fn instance(&mut self) -> Node {
        self.budget = BUDGET;
        self.node(self.root, "", 0)
    }

    fn node(&mut self, schema: &Value, pointer: &str, depth: u32) -> Node {
        match schema {
            Value::Object(map) => self.map(map, pointer, depth),
            _ => self.any(depth),
        }
    }

    fn map(&mut self, map: &Map<String, Value>, pointer: &str, depth: u32) -> Node {
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            let target_pointer = ref_pointer(reference).expect("fixtures use local refs");
            let target = self
                .root
                .pointer(&target_pointer)
                .expect("fixtures' refs resolve");
            return self.node(target, &target_pointer, depth);
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(branches) = map.get(keyword).and_then(Value::as_array) {
                let choice = self.cycle(pointer, keyword, branches.len() as u64) as usize;
                let branch_pointer =
                    pointer_push(&pointer_push(pointer, keyword), &choice.to_string());
                self.event(pointer, format!("{keyword} {choice}"));
                let rest: Map<String, Value> = map
                    .iter()
                    .filter(|(key, _)| *key != keyword)
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect();
                let branch = &branches[choice];
                if rest
                    .keys()
                    .all(|key| ["title", "description"].contains(&key.as_str()))
                {
                    return self.node(branch, &branch_pointer, depth);
                }
                // Siblings and branch together; the fixtures keep them disjoint.
                let mut merged = rest;
                for (key, value) in branch.as_object().into_iter().flatten() {
                    merged.entry(key.clone()).or_insert_with(|| value.clone());
                }
                return self.node(&Value::Object(merged), &branch_pointer, depth);
            }
        }
        if let Some(values) = map.get("enum").and_then(Value::as_array) {
            let choice = self.cycle(pointer, "enum", values.len() as u64) as usize;
            let value = values[choice].clone();
            self.event(pointer, format!("enum {value}"));
            return Node::Literal {
                value,
                enumerated: true,
            };
        }
        if let Some(value) = map.get("const") {
            return Node::Literal {
                value: value.clone(),
                enumerated: true,
            };
        }
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(name)) => vec![name.as_str()],
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let name = if types.is_empty() {
            if map.contains_key("properties") || map.contains_key("required") {
                "object"
            } else if map.contains_key("items") {
                "array"
            } else {
                return self.any(depth);
            }
        } else {
            let choice = self.cycle(pointer, "type", types.len() as u64) as usize;
            types[choice]
        };
        match name {
            "object" => self.object(map, pointer, depth),
            "array" => self.array(map, pointer, depth),
            "string" => self.string(map, pointer),
            "integer" => self.integer(map, pointer),
            "number" => {
                let numbers = [
                    json!(0),
                    json!(-0.5),
                    json!(1250.0),
                    json!(3),
                    json!(-7),
                    json!(0.001),
                    json!(1e99),
                ];
                let choice = self.cycle(pointer, "number", numbers.len() as u64) as usize;
                Node::Literal {
                    value: numbers[choice].clone(),
                    enumerated: false,
                }
            }
            "boolean" => {
                let value = self.cycle(pointer, "boolean", 2) == 0;
                Node::Literal {
                    value: Value::Bool(value),
                    enumerated: false,
                }
            }
            _ => Node::Literal {
                value: Value::Null,
                enumerated: false,
            },
        }
    }

    fn object(&mut self, map: &Map<String, Value>, pointer: &str, depth: u32) -> Node {
        let empty = Map::new();
        let properties = map
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<String> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(|name| name.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        if properties.is_empty() && required.is_empty() {
            return self.free_form(map, pointer, depth);
        }
        // Optional properties: all, none, alternating, the other half, or at random.
        let pattern = self.cycle(pointer, "optional", 5);
        let mut members = Vec::new();
        let mut optional_index = 0;
        for (name, schema) in properties {
            let property_pointer = pointer_push(&pointer_push(pointer, "properties"), name);
            let is_required = required.contains(name);
            if !is_required {
                let present = depth < self.shallow
                    && match pattern {
                        0 => true,
                        1 => false,
                        2 => optional_index % 2 == 0,
                        3 => optional_index % 2 == 1,
                        _ => self.rng.chance(50),
                    };
                optional_index += 1;
                self.event(
                    &property_pointer,
                    if present { "present" } else { "absent" },
                );
                if !present {
                    continue;
                }
            }
            let node = self.node(schema, &property_pointer, depth + 1);
            members.push((name.clone(), node));
        }
        for name in &required {
            if !properties.contains_key(name) {
                let node = self.any(depth + 1);
                members.push((name.clone(), node));
            }
        }
        Node::Object {
            members,
            required,
            declared: true,
        }
    }

    fn free_form(&mut self, map: &Map<String, Value>, pointer: &str, depth: u32) -> Node {
        let closed = map.get("additionalProperties") == Some(&Value::Bool(false));
        let count = if depth >= self.shallow || closed {
            0
        } else {
            self.cycle(pointer, "members", 4)
        };
        let keys = ["k", "key with \"quotes\"", "é", "😀", "a/b"];
        let mut members = Vec::new();
        for index in 0..count as usize {
            let node = match map.get("additionalProperties") {
                Some(schema @ Value::Object(_)) => self.node(
                    schema,
                    &pointer_push(pointer, "additionalProperties"),
                    depth + 1,
                ),
                _ => self.any(depth + 1),
            };
            members.push((keys[index % keys.len()].to_owned(), node));
        }
        Node::Object {
            members,
            required: Vec::new(),
            declared: false,
        }
    }

    fn array(&mut self, map: &Map<String, Value>, pointer: &str, depth: u32) -> Node {
        let min = map.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let max = map.get("maxItems").and_then(Value::as_u64);
        // Lengths: the minimum, the maximum (when it is affordable), one past the minimum,
        // and something in between.
        let affordable = max.filter(|max| *max <= MAX_AFFORDABLE_ITEMS);
        let count = if depth >= self.shallow || self.budget < 200 {
            min
        } else {
            let choice = self.cycle(pointer, "length", 4);
            match (choice, affordable) {
                (0, _) => min,
                (1, Some(max)) => max,
                (2, _) => (min + 1).min(max.unwrap_or(u64::MAX)),
                _ => {
                    let top = max.unwrap_or(min + 4).min(min + 4);
                    min + self.rng.below(top - min + 1)
                }
            }
        };
        if count == min {
            self.event(pointer, "minimum length");
        }
        if Some(count) == max {
            self.event(pointer, "maximum length");
        }
        let items_pointer = pointer_push(pointer, "items");
        let items = (0..count)
            .map(|_| match map.get("items") {
                Some(schema) => self.node(schema, &items_pointer, depth + 1),
                None => self.any(depth + 1),
            })
            .collect();
        Node::Array { items, min, max }
    }

    fn string(&mut self, map: &Map<String, Value>, pointer: &str) -> Node {
        let min = map.get("minLength").and_then(Value::as_u64).unwrap_or(0);
        let max = map.get("maxLength").and_then(Value::as_u64);
        let longest = max.unwrap_or(min + 30).max(min + 30);
        let length = if longest > self.budget {
            min
        } else {
            match (self.cycle(pointer, "length", 5), max) {
                (0, _) => min,
                (1, Some(max)) if max <= 5000 => max,
                (2, _) => (min + 1).min(max.unwrap_or(u64::MAX)),
                _ => {
                    let top = max.unwrap_or(min + 30).min(min + 30);
                    min + self.rng.below(top - min + 1)
                }
            }
        };
        self.budget = self.budget.saturating_sub(length);
        if length == min {
            self.event(pointer, "minimum length");
        }
        if Some(length) == max {
            self.event(pointer, "maximum length");
        }
        let mut value = String::new();
        for _ in 0..length {
            let ch = POOL[self.rng.below(POOL.len() as u64) as usize];
            value.push(ch);
        }
        Node::Str { value, min, max }
    }

    fn integer(&mut self, map: &Map<String, Value>, pointer: &str) -> Node {
        let (low, high) = integer_bounds(map).expect("fixture bounds are numbers");
        let low_edge = low.unwrap_or(i64::MIN as i128);
        let high_edge = high.unwrap_or(i64::MAX as i128);
        let candidates = [
            low_edge,
            high_edge,
            low_edge.saturating_add(1).min(high_edge),
            high_edge.saturating_sub(1).max(low_edge),
            0i128.clamp(low_edge, high_edge),
            low_edge + (self.rng.next() as i128).rem_euclid(high_edge - low_edge + 1),
            (-1i128).clamp(low_edge, high_edge),
            10i128.clamp(low_edge, high_edge),
        ];
        let choice = self.cycle(pointer, "integer", candidates.len() as u64) as usize;
        let value = candidates[choice];
        if Some(value) == low {
            self.event(pointer, "minimum");
        }
        if Some(value) == high {
            self.event(pointer, "maximum");
        }
        Node::Int { value, low, high }
    }

    /// Some JSON value (for `true`, `{}` and untyped schemas).
    fn any(&mut self, depth: u32) -> Node {
        let kind = if depth >= self.shallow {
            self.rng.below(4)
        } else {
            self.rng.below(6)
        };
        let value = match kind {
            0 => Value::Null,
            1 => Value::Bool(self.rng.chance(50)),
            2 => {
                [json!(-12), json!(0.5), json!(7), json!(1e-7)][self.rng.below(4) as usize].clone()
            }
            3 => json!(["", "text", "q\"\\/", "é😀\n"][self.rng.below(4) as usize]),
            4 => {
                let items = (0..self.rng.below(3))
                    .map(|_| self.any(depth + 1).to_value())
                    .collect();
                Value::Array(items)
            }
            _ => {
                let members = (0..self.rng.below(3))
                    .map(|index| (format!("m{index}"), self.any(depth + 1).to_value()))
                    .collect();
                Value::Object(members)
            }
        };
        Node::Literal {
            value,
            enumerated: false,
        }
    }
}
