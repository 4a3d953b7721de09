//! The `coerce` rung: schema-driven coercions that change a value's spelling, never its
//! meaning, applied only where the value does not already fit its part of the schema.
//!
//! The complete list (each [`Coercion`] is reported with its JSON pointer):
//! - `"true"`/`"false"` (any case, trimmed) to a boolean where a boolean is required;
//! - a numeric string to an integer or number where one is required (`"3.0"` is the integer
//!   3; `"3.5"` for an integer stays a violation: nothing is rounded);
//! - a string, number or boolean to a one-element array where an array is required (a string
//!   is never split; `null` is not wrapped, it means "nothing");
//! - a one-element array to its element where a scalar is required;
//! - a number or boolean to a string where a string is required (a number keeps the text it
//!   was written with, so `1.10` becomes `"1.10"`);
//! - a string holding a JSON array or object to that value where one is required;
//! - `"null"` to `null` where null is allowed and a string is not;
//! - a string that matches exactly one enum member case-insensitively (trimmed) to that
//!   member's own spelling;
//! - `anyOf`/`oneOf`: the first branch the value coerces into; `allOf`: each part; local
//!   `$ref`s (`#`, `#/definitions/..`, `#/$defs/..`) are followed.
//!
//! Nothing is invented: no clamping, no cutting to a length, no default for a missing property,
//! nothing dropped. Those stay violations for the validator to report. The walk goes at most
//! [`COERCE_DEPTH`] levels into the value, recursing once per level of schema and value.

use serde::Serialize;
use serde_json::{Map, Number, Value};

use super::write::{depth_beyond, to_compact_bounded};
use crate::schema::{follow_refs, push_token};

/// How deep into a value coercion looks. Schemas that deep are recursive ones; a value
/// nested further than this is validated as it stands.
pub const COERCE_DEPTH: usize = 128;

/// How long the `from`/`to` quotes in a [`Coercion`] may grow.
const QUOTE_LIMIT: usize = 80;

/// One change the `coerce` rung made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Coercion {
    /// JSON pointer of the changed value in the result (`""` for the root).
    pub pointer: String,
    /// Which coercion it was.
    pub kind: CoercionKind,
    /// The value before, as compact JSON (cut to about 80 bytes).
    pub from: String,
    /// The value after, as compact JSON (cut to about 80 bytes).
    pub to: String,
}

/// The kinds of coercion, the complete list: `"true"`/`"false"` to a boolean, a numeric string
/// to an integer (only when integral: `"3.0"` yes, `"3.5"` never) or a number, `"null"` to null
/// (where a string is not allowed), a number (keeping its source text) or a boolean to a string,
/// a string holding a JSON array or object to that value, a scalar (not null) to a one-element
/// array, a one-element array to its element, and a unique case-insensitive enum match to the
/// enum's spelling. Nothing is clamped, cut, filled in or dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CoercionKind {
    /// `"true"` / `"false"` to a boolean.
    StringToBoolean,
    /// A numeric string to an integer.
    StringToInteger,
    /// A numeric string to a number.
    StringToNumber,
    /// `"null"` to null.
    StringToNull,
    /// A number to a string (with the number's source text).
    NumberToString,
    /// A boolean to a string.
    BooleanToString,
    /// A string holding a JSON array or object, parsed.
    ParsedString,
    /// A scalar to a one-element array.
    WrappedInArray,
    /// A one-element array to its element.
    UnwrappedArray,
    /// A case-insensitive enum match to the enum's own spelling.
    EnumSpelling,
}

impl CoercionKind {
    /// The kind's stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            CoercionKind::StringToBoolean => "string_to_boolean",
            CoercionKind::StringToInteger => "string_to_integer",
            CoercionKind::StringToNumber => "string_to_number",
            CoercionKind::StringToNull => "string_to_null",
            CoercionKind::NumberToString => "number_to_string",
            CoercionKind::BooleanToString => "boolean_to_string",
            CoercionKind::ParsedString => "parsed_string",
            CoercionKind::WrappedInArray => "wrapped_in_array",
            CoercionKind::UnwrappedArray => "unwrapped_array",
            CoercionKind::EnumSpelling => "enum_spelling",
        }
    }
}

/// Where a number's source text can be looked up by JSON pointer.
pub(super) trait NumberTexts {
    /// The text the number at `pointer` was written with, when it differs from how `number`
    /// prints (and still reads as `number`).
    fn text(&mut self, pointer: &str, number: &Number) -> Option<String>;
}

pub(super) struct Coercer<'s, 'n> {
    root: &'s Value,
    numbers: &'n mut dyn NumberTexts,
    pub(super) coercions: Vec<Coercion>,
}

impl<'s, 'n> Coercer<'s, 'n> {
    pub(super) fn new(root: &'s Value, numbers: &'n mut dyn NumberTexts) -> Coercer<'s, 'n> {
        Coercer {
            root,
            numbers,
            coercions: Vec::new(),
        }
    }

    /// Coerces `value` (at `pointer`) towards `schema`.
    pub(super) fn coerce(&mut self, value: &mut Value, schema: &'s Value, pointer: &mut String) {
        self.walk(value, schema, pointer, 0);
    }

    fn walk(&mut self, value: &mut Value, schema: &'s Value, pointer: &mut String, depth: usize) {
        if depth > COERCE_DEPTH {
            return;
        }
        let Some(schema) = resolve(self.root, schema) else {
            return;
        };
        if let Some(Value::Array(parts)) = schema.get("allOf") {
            for part in parts {
                self.walk(value, part, pointer, depth + 1);
            }
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = schema.get(keyword) {
                self.first_branch(value, branches, pointer, depth);
            }
        }
        self.node(value, schema, pointer);
        let length = pointer.len();
        match value {
            Value::Object(members) => {
                for (key, member) in members.iter_mut() {
                    let Some(member_schema) = member_schema(schema, key) else {
                        continue;
                    };
                    push_token(pointer, key);
                    self.walk(member, member_schema, pointer, depth + 1);
                    pointer.truncate(length);
                }
            }
            Value::Array(items) => {
                for (index, item) in items.iter_mut().enumerate() {
                    let Some(item_schema) = item_schema(schema, index) else {
                        continue;
                    };
                    push_token(pointer, &index.to_string());
                    self.walk(item, item_schema, pointer, depth + 1);
                    pointer.truncate(length);
                }
            }
            _ => {}
        }
    }

    /// `anyOf`/`oneOf`: nothing to do when a branch already fits; otherwise the first branch
    /// the value coerces into wins.
    fn first_branch(
        &mut self,
        value: &mut Value,
        branches: &'s [Value],
        pointer: &mut String,
        depth: usize,
    ) {
        if branches
            .iter()
            .any(|branch| conforms(self.root, value, branch, 0))
        {
            return;
        }
        if depth_beyond(value, COERCE_DEPTH) > COERCE_DEPTH {
            return;
        }
        for branch in branches {
            let mut trial = value.clone();
            let recorded = self.coercions.len();
            self.walk(&mut trial, branch, pointer, depth + 1);
            if self.coercions.len() > recorded && conforms(self.root, &trial, branch, 0) {
                *value = trial;
                return;
            }
            self.coercions.truncate(recorded);
        }
    }

    /// The coercions of one node, when its own type or enum does not fit.
    fn node(&mut self, value: &mut Value, schema: &Map<String, Value>, pointer: &str) {
        let types = Types::of(schema);
        if !types.allows(value) {
            self.convert(value, types, pointer);
        }
        if let (Some(Value::Array(members)), Value::String(text)) = (schema.get("enum"), &*value)
            && !members.contains(value)
        {
            let wanted = text.trim().to_lowercase();
            let mut matches = members.iter().filter(|member| {
                member
                    .as_str()
                    .is_some_and(|spelling| spelling.trim().to_lowercase() == wanted)
            });
            if let (Some(only), None) = (matches.next(), matches.next()) {
                let only = only.clone();
                self.record(pointer, CoercionKind::EnumSpelling, value, &only);
                *value = only;
            }
        }
    }

    fn convert(&mut self, value: &mut Value, types: Types, pointer: &str) {
        let converted = match &*value {
            Value::String(text) => string_to(text, types),
            Value::Number(number) if types.string => {
                let text = self
                    .numbers
                    .text(pointer, number)
                    .unwrap_or_else(|| number.to_string());
                Some((Value::String(text), CoercionKind::NumberToString))
            }
            Value::Bool(flag) if types.string => Some((
                Value::String(flag.to_string()),
                CoercionKind::BooleanToString,
            )),
            Value::Array(items) if items.len() == 1 && !types.array && types.any_scalar() => {
                let from = to_compact_bounded(value, QUOTE_LIMIT);
                let Value::Array(mut items) = std::mem::take(value) else {
                    unreachable!("matched an array above");
                };
                let element = items.pop().expect("one element");
                self.coercions.push(Coercion {
                    pointer: pointer.to_owned(),
                    kind: CoercionKind::UnwrappedArray,
                    from,
                    to: to_compact_bounded(&element, QUOTE_LIMIT),
                });
                *value = element;
                if !types.allows(value) {
                    self.convert(value, types, pointer);
                }
                return;
            }
            _ => None,
        };
        if let Some((new, kind)) = converted {
            self.record(pointer, kind, value, &new);
            *value = new;
            return;
        }
        if types.array && matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_)) {
            let element = std::mem::take(value);
            let new = Value::Array(vec![element]);
            self.record(pointer, CoercionKind::WrappedInArray, &new[0], &new);
            *value = new;
        }
    }

    fn record(&mut self, pointer: &str, kind: CoercionKind, from: &Value, to: &Value) {
        self.coercions.push(Coercion {
            pointer: pointer.to_owned(),
            kind,
            from: to_compact_bounded(from, QUOTE_LIMIT),
            to: to_compact_bounded(to, QUOTE_LIMIT),
        });
    }
}

/// What a string turns into under `types`, if anything.
fn string_to(text: &str, types: Types) -> Option<(Value, CoercionKind)> {
    let trimmed = text.trim();
    if types.boolean {
        if trimmed.eq_ignore_ascii_case("true") {
            return Some((Value::Bool(true), CoercionKind::StringToBoolean));
        }
        if trimmed.eq_ignore_ascii_case("false") {
            return Some((Value::Bool(false), CoercionKind::StringToBoolean));
        }
    }
    if types.integer
        && let Some(number) = integral(trimmed)
    {
        return Some((Value::Number(number), CoercionKind::StringToInteger));
    }
    if types.number
        && let Some(number) = numeric(trimmed)
    {
        return Some((Value::Number(number), CoercionKind::StringToNumber));
    }
    if types.null && trimmed.eq_ignore_ascii_case("null") {
        return Some((Value::Null, CoercionKind::StringToNull));
    }
    let embedded =
        (types.object && trimmed.starts_with('{')) || (types.array && trimmed.starts_with('['));
    if embedded && let Ok(parsed) = serde_json::from_str::<Value>(trimmed) {
        let fits = (types.object && parsed.is_object()) || (types.array && parsed.is_array());
        if fits {
            return Some((parsed, CoercionKind::ParsedString));
        }
    }
    None
}

/// Whether `text` is a JSON number, by the JSON grammar.
fn is_json_number(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut at = usize::from(bytes.first() == Some(&b'-'));
    let digits = |from: usize| {
        let mut to = from;
        while to < bytes.len() && bytes[to].is_ascii_digit() {
            to += 1;
        }
        to
    };
    match bytes.get(at) {
        Some(b'0') => at += 1,
        Some(b'1'..=b'9') => at = digits(at),
        _ => return false,
    }
    if bytes.get(at) == Some(&b'.') {
        let end = digits(at + 1);
        if end == at + 1 {
            return false;
        }
        at = end;
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        let end = digits(at);
        if end == at {
            return false;
        }
        at = end;
    }
    at == bytes.len()
}

/// The number a numeric string spells: an integer when written as one, else a double.
fn numeric(text: &str) -> Option<Number> {
    if !is_json_number(text) {
        return None;
    }
    if !text.contains(['.', 'e', 'E']) {
        if let Ok(integer) = text.parse::<u64>() {
            return Some(Number::from(integer));
        }
        if let Ok(integer) = text.parse::<i64>() {
            return Some(Number::from(integer));
        }
    }
    text.parse::<f64>().ok().and_then(Number::from_f64)
}

/// The integer a numeric string spells, when it is integral (`"3"`, `"3.0"`, `"1e3"`) and fits
/// 64 bits; never rounded.
fn integral(text: &str) -> Option<Number> {
    let number = numeric(text)?;
    if number.is_i64() || number.is_u64() {
        return Some(number);
    }
    let double = number.as_f64()?;
    let exact = double.fract() == 0.0 && double.abs() < 9.0e15;
    if !exact {
        return None;
    }
    // Only integral texts whose double is exact: `"3.0000000000000001"` is not integral.
    let integer = double as i64;
    let significant = text.trim_start_matches('-');
    let plain_decimal = !significant.contains(['e', 'E']);
    if plain_decimal {
        let fraction = significant.split('.').nth(1).unwrap_or("");
        if fraction.bytes().any(|digit| digit != b'0') {
            return None;
        }
    }
    Some(Number::from(integer))
}

/// The `type` keyword, as flags.
#[derive(Clone, Copy, Debug, Default)]
struct Types {
    any: bool,
    string: bool,
    integer: bool,
    number: bool,
    boolean: bool,
    null: bool,
    array: bool,
    object: bool,
}

impl Types {
    fn of(schema: &Map<String, Value>) -> Types {
        let mut types = Types::default();
        let mut set = |name: &str| match name {
            "string" => types.string = true,
            "integer" => types.integer = true,
            "number" => types.number = true,
            "boolean" => types.boolean = true,
            "null" => types.null = true,
            "array" => types.array = true,
            "object" => types.object = true,
            _ => {}
        };
        match schema.get("type") {
            Some(Value::String(name)) => set(name),
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).for_each(set),
            _ => types.any = true,
        }
        types
    }

    fn any_scalar(self) -> bool {
        self.string || self.integer || self.number || self.boolean || self.null
    }

    fn allows(self, value: &Value) -> bool {
        self.any
            || match value {
                Value::Null => self.null,
                Value::Bool(_) => self.boolean,
                Value::Number(number) => self.number || (self.integer && is_integer(number)),
                Value::String(_) => self.string,
                Value::Array(_) => self.array,
                Value::Object(_) => self.object,
            }
    }
}

fn is_integer(number: &Number) -> bool {
    number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|x| x.fract() == 0.0)
}

/// The schema object `schema` stands for, after following local `$ref`s; `None` for `true`,
/// `false`, a reference that does not resolve, or anything else that gives no guidance.
fn resolve<'s>(root: &'s Value, schema: &'s Value) -> Option<&'s Map<String, Value>> {
    follow_refs(root, schema)?.as_object()
}

fn member_schema<'s>(schema: &'s Map<String, Value>, key: &str) -> Option<&'s Value> {
    schema
        .get("properties")
        .and_then(|properties| properties.get(key))
        .or_else(|| {
            schema
                .get("additionalProperties")
                .filter(|extra| extra.is_object())
        })
}

fn item_schema(schema: &Map<String, Value>, index: usize) -> Option<&Value> {
    if let Some(Value::Array(prefix)) = schema.get("prefixItems") {
        return prefix.get(index).or_else(|| schema.get("items"));
    }
    match schema.get("items") {
        Some(Value::Array(tuple)) => tuple.get(index).or_else(|| {
            schema
                .get("additionalItems")
                .filter(|extra| extra.is_object())
        }),
        Some(items) => Some(items),
        None => None,
    }
}

/// Whether `value` fits `schema` as far as the keywords that coercion cares about go (type,
/// enum, const, the combinators, required and the shape of children). Looks at most
/// [`COERCE_DEPTH`] levels deep and assumes the rest fits.
pub(super) fn conforms(root: &Value, value: &Value, schema: &Value, depth: usize) -> bool {
    if depth > COERCE_DEPTH {
        return true;
    }
    if let Value::Bool(accepts) = schema {
        return *accepts;
    }
    let Some(schema) = resolve(root, schema) else {
        return true;
    };
    if !Types::of(schema).allows(value) {
        return false;
    }
    if let Some(Value::Array(members)) = schema.get("enum")
        && !members.contains(value)
    {
        return false;
    }
    if schema
        .get("const")
        .is_some_and(|expected| expected != value)
    {
        return false;
    }
    let fits = |sub: &Value| conforms(root, value, sub, depth + 1);
    if let Some(Value::Array(parts)) = schema.get("allOf")
        && !parts.iter().all(fits)
    {
        return false;
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(keyword)
            && !branches.iter().any(fits)
        {
            return false;
        }
    }
    match value {
        Value::Object(members) => {
            if let Some(Value::Array(required)) = schema.get("required")
                && !required
                    .iter()
                    .filter_map(Value::as_str)
                    .all(|name| members.contains_key(name))
            {
                return false;
            }
            let properties = schema.get("properties").and_then(Value::as_object);
            members.iter().all(|(key, member)| {
                match properties.and_then(|properties| properties.get(key)) {
                    Some(sub) => conforms(root, member, sub, depth + 1),
                    None => match schema.get("additionalProperties") {
                        Some(extra) => conforms(root, member, extra, depth + 1),
                        None => true,
                    },
                }
            })
        }
        Value::Array(items) => items.iter().enumerate().all(|(index, item)| {
            item_schema(schema, index).is_none_or(|sub| conforms(root, item, sub, depth + 1))
        }),
        _ => true,
    }
}
