//! The grammar for each JSON type a schema allows: strings with length bounds, integers with
//! digit rules, numbers, arrays (lists and tuples with item bounds) and objects (declared
//! properties in schema order, or free-form maps).
//!
//! Objects that declare properties are closed: the grammar generates exactly the declared
//! properties, in schema order, required ones always and optional ones in any subset, and
//! nothing else, even where the schema would accept more (`additionalProperties` absent, `true`
//! or a schema). A note says so. A model asked for a shape should produce that shape; the
//! value still goes through validation against the original schema.

use serde_json::{Map, Value};

use super::derive::Deriver;
use super::expr::Expr;
use crate::schema::{json_kind, pointer_push};

const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "integer", "string",
];

/// The alternation of the grammars of every type `map` allows.
pub(crate) fn typed(
    deriver: &mut Deriver<'_>,
    map: &Map<String, Value>,
    pointer: &str,
    hint: &str,
    depth: u32,
) -> Expr {
    let mut types: Vec<&str> = match map.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => {
            let mut out = Vec::new();
            for name in names {
                match name.as_str() {
                    Some(name) => out.push(name),
                    None => {
                        return deriver
                            .invalid(&pointer_push(pointer, "type"), "type names must be strings");
                    }
                }
            }
            if out.is_empty() {
                return deriver.never(pointer, Some("type"), "no type is allowed");
            }
            out
        }
        Some(other) => {
            return deriver.invalid(
                &pointer_push(pointer, "type"),
                format!(
                    "type must be a string or an array, not {}",
                    json_kind(other)
                ),
            );
        }
        None => return untyped(deriver, map, pointer, hint, depth),
    };
    if let Some(unknown) = types.iter().find(|name| !TYPES.contains(name)) {
        return deriver.invalid(
            &pointer_push(pointer, "type"),
            format!("unknown type `{unknown}`"),
        );
    }
    // Every integer is a number: with both, the number grammar covers both.
    if types.contains(&"number") {
        types.retain(|name| *name != "integer");
    }
    let alternatives: Vec<Expr> = types
        .iter()
        .map(|name| one_type(deriver, name, map, pointer, hint, depth))
        .collect();
    Expr::alt(alternatives)
}

/// A schema without `type`: the types its keywords imply, or any value.
fn untyped(
    deriver: &mut Deriver<'_>,
    map: &Map<String, Value>,
    pointer: &str,
    hint: &str,
    depth: u32,
) -> Expr {
    let implied: Vec<&str> = [
        (
            "object",
            &[
                "properties",
                "required",
                "additionalProperties",
                "minProperties",
                "maxProperties",
                "propertyNames",
                "patternProperties",
            ][..],
        ),
        (
            "array",
            &[
                "items",
                "prefixItems",
                "additionalItems",
                "minItems",
                "maxItems",
            ][..],
        ),
        ("string", &["minLength", "maxLength", "pattern"][..]),
        (
            "number",
            &[
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
            ][..],
        ),
    ]
    .into_iter()
    .filter(|(_, keywords)| keywords.iter().any(|keyword| map.contains_key(*keyword)))
    .map(|(name, _)| name)
    .collect();
    if implied.is_empty() {
        return deriver.rule("value");
    }
    deriver.note(
        pointer,
        None,
        format!(
            "no `type`: the grammar generates only what the keywords describe ({}), although values of other types also satisfy this schema",
            implied.join(", ")
        ),
    );
    let alternatives: Vec<Expr> = implied
        .iter()
        .map(|name| one_type(deriver, name, map, pointer, hint, depth))
        .collect();
    Expr::alt(alternatives)
}

fn one_type(
    deriver: &mut Deriver<'_>,
    name: &str,
    map: &Map<String, Value>,
    pointer: &str,
    hint: &str,
    depth: u32,
) -> Expr {
    match name {
        "null" => deriver.rule("null"),
        "boolean" => deriver.rule("boolean"),
        "string" => string(deriver, map, pointer),
        "integer" => integer(deriver, map, pointer),
        "number" => number(deriver, map, pointer),
        "array" => super::collections::array(deriver, map, pointer, hint, depth),
        "object" => super::collections::object(deriver, map, pointer, hint, depth),
        _ => unreachable!("type names are checked"),
    }
}

/// A non-negative integer keyword (`minLength`, `maxItems`, ...), if present and valid.
pub(crate) fn count(
    deriver: &mut Deriver<'_>,
    map: &Map<String, Value>,
    keyword: &str,
    pointer: &str,
) -> Option<u64> {
    let value = map.get(keyword)?;
    match value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|number| *number >= 0.0 && number.fract() == 0.0)
            .map(|number| number as u64)
    }) {
        Some(count) => Some(count),
        None => {
            deriver.invalid(
                &pointer_push(pointer, keyword),
                format!("{keyword} must be a non-negative integer"),
            );
            None
        }
    }
}

/// A string: its `pattern`, else its `format`, else between minLength and maxLength JSON
/// string characters, between quotes.
fn string(deriver: &mut Deriver<'_>, map: &Map<String, Value>, pointer: &str) -> Expr {
    let min = count(deriver, map, "minLength", pointer).unwrap_or(0);
    let max = count(deriver, map, "maxLength", pointer);
    if max.is_some_and(|max| max < min) {
        return deriver.never(pointer, Some("maxLength"), "maxLength is below minLength");
    }
    if let Some(pattern) = map.get("pattern") {
        let Some(pattern) = pattern.as_str() else {
            return deriver.invalid(
                &pointer_push(pointer, "pattern"),
                "pattern must be a string",
            );
        };
        let key = (pattern.to_owned(), min, max);
        let found = match deriver.pattern_rules.get(&key) {
            Some(found) => found.clone(),
            None => {
                let char = deriver.rule("char");
                let found =
                    super::pattern::translate_bounded(pattern, &char, min, max).map(|translated| {
                        let short = translated.min_length < min;
                        let long = max.is_some_and(|max| {
                            translated.max_length.is_none_or(|longest| longest > max)
                        });
                        let body = deriver.named(translated.body, "pattern");
                        (body, short, long)
                    });
                deriver.pattern_rules.insert(key, found.clone());
                found
            }
        };
        match found {
            Ok((body, short, long)) => {
                if short || long {
                    deriver.note(
                        pointer,
                        Some(if short { "minLength" } else { "maxLength" }),
                        "the grammar follows the pattern and does not count the length beside it; validation checks minLength and maxLength",
                    );
                }
                return Expr::seq([Expr::lit("\""), body, Expr::lit("\"")]);
            }
            Err(reason) => deriver.note(
                pointer,
                Some("pattern"),
                format!("{reason}; validation checks the pattern"),
            ),
        }
    }
    if let Some((format, _)) = super::formats::generated(map) {
        // As with a pattern, the format's own language is what a model needs held; a length
        // beside it is left to validation (and is rarely what the format leaves open).
        if min > 0 || max.is_some() {
            deriver.note(
                pointer,
                Some(if max.is_some() {
                    "maxLength"
                } else {
                    "minLength"
                }),
                "the grammar follows the format and does not count the length beside it; validation checks minLength and maxLength",
            );
        }
        return super::formats::string(deriver, format);
    }
    if min == 0 && max.is_none() {
        return deriver.rule("string");
    }
    let char = deriver.rule("char");
    Expr::seq([
        Expr::lit("\""),
        Expr::repeat(char, min, max),
        Expr::lit("\""),
    ])
}

/// The inclusive integer bounds a schema sets, from `minimum`, `maximum` and the exclusive
/// forms (numeric, or draft-04 booleans), rounded inwards to integers. `Err` when a bound is
/// not a number.
pub(crate) fn integer_bounds(
    map: &Map<String, Value>,
) -> Result<(Option<i128>, Option<i128>), &'static str> {
    let number = |keyword: &'static str| -> Result<Option<f64>, &'static str> {
        match map.get(keyword) {
            None | Some(Value::Bool(_)) => Ok(None),
            Some(value) => value.as_f64().map(Some).ok_or(keyword),
        }
    };
    let exact = |keyword: &str| -> Option<i128> {
        map.get(keyword).and_then(|value| {
            value
                .as_i64()
                .map(i128::from)
                .or_else(|| value.as_u64().map(i128::from))
        })
    };
    let draft4_exclusive =
        |keyword: &str| map.get(keyword).and_then(Value::as_bool).unwrap_or(false);
    let side = |end: End,
                inclusive: &'static str,
                exclusive: &'static str|
     -> Result<Option<i128>, &'static str> {
        let mut tightest: Option<i128> = None;
        let mut tighten = |candidate: i128| {
            tightest = Some(tightest.map_or(candidate, |bound| end.tighter(bound, candidate)));
        };
        if let Some(value) = number(inclusive)? {
            let bound = exact(inclusive).unwrap_or_else(|| clamp(end.inwards(value)));
            let strict = draft4_exclusive(exclusive) && value.fract() == 0.0;
            tighten(if strict { end.step_in(bound) } else { bound });
        }
        if let Some(value) = number(exclusive)? {
            let bound = exact(exclusive).unwrap_or_else(|| clamp(end.outwards(value)));
            tighten(end.step_in(bound));
        }
        Ok(tightest)
    };
    Ok((
        side(End::Low, "minimum", "exclusiveMinimum")?,
        side(End::High, "maximum", "exclusiveMaximum")?,
    ))
}

/// Which end of an integer range a bound sets.
#[derive(Clone, Copy)]
enum End {
    Low,
    High,
}

impl End {
    /// A bound that is not an integer, rounded into the range.
    fn inwards(self, value: f64) -> f64 {
        match self {
            End::Low => value.ceil(),
            End::High => value.floor(),
        }
    }

    /// An exclusive bound that is not an integer, rounded out of the range (then stepped in).
    fn outwards(self, value: f64) -> f64 {
        match self {
            End::Low => value.floor(),
            End::High => value.ceil(),
        }
    }

    /// The first integer inside an exclusive integer bound.
    fn step_in(self, bound: i128) -> i128 {
        match self {
            End::Low => bound.saturating_add(1),
            End::High => bound.saturating_sub(1),
        }
    }

    /// The tighter of two bounds at this end.
    fn tighter(self, a: i128, b: i128) -> i128 {
        match self {
            End::Low => a.max(b),
            End::High => a.min(b),
        }
    }
}

/// An integral f64 as i128, saturating (bounds beyond i128 are far beyond any integer a
/// model writes).
fn clamp(value: f64) -> i128 {
    if value >= i128::MAX as f64 {
        i128::MAX
    } else if value <= i128::MIN as f64 {
        i128::MIN
    } else {
        value as i128
    }
}

fn integer(deriver: &mut Deriver<'_>, map: &Map<String, Value>, pointer: &str) -> Expr {
    let (low, high) = match integer_bounds(map) {
        Ok(bounds) => bounds,
        Err(keyword) => {
            return deriver.invalid(
                &pointer_push(pointer, keyword),
                format!("{keyword} must be a number"),
            );
        }
    };
    if let Some(step) = map.get("multipleOf").and_then(Value::as_f64)
        && !(step > 0.0 && (1.0 / step).fract() == 0.0)
    {
        let found = match whole_step(step) {
            Some(step) => multiples(deriver, step, low, high),
            None => Err(format!("the step {step} is not a whole number")),
        };
        match found {
            Ok(expr) => return never_if_empty(deriver, expr, pointer),
            Err(reason) => deriver.note(
                pointer,
                Some("multipleOf"),
                format!(
                    "the grammar allows every integer in range, not only multiples ({reason}); validation checks it"
                ),
            ),
        }
    }
    if low.is_none() && high.is_none() {
        return deriver.rule("integer");
    }
    match super::numbers::integer_range(low, high) {
        Expr::Never => deriver.never(
            pointer,
            Some("minimum"),
            "no integer lies between the bounds",
        ),
        expr => expr,
    }
}

fn number(deriver: &mut Deriver<'_>, map: &Map<String, Value>, pointer: &str) -> Expr {
    if let Some(step) = map.get("multipleOf").filter(|value| !value.is_boolean()) {
        // A multiple of a whole step is an integer: the integer bounds are the number's.
        let found = match step.as_f64().and_then(whole_step) {
            Some(step) => match integer_bounds(map) {
                Ok((low, high)) => multiples(deriver, step, low, high),
                Err(keyword) => {
                    return deriver.invalid(
                        &pointer_push(pointer, keyword),
                        format!("{keyword} must be a number"),
                    );
                }
            },
            None => Err("the step is not a whole number".to_owned()),
        };
        match found {
            Ok(expr) => {
                // As the bounded number grammar writes an integral value: also with a
                // fraction of zeros.
                let zeros = Expr::optional(super::numbers::zero_fraction());
                return never_if_empty(deriver, Expr::seq([expr, zeros]), pointer);
            }
            Err(reason) => deriver.note(
                pointer,
                Some("multipleOf"),
                format!(
                    "the grammar allows every number in range, not only multiples ({reason}); validation checks it"
                ),
            ),
        }
    }
    let (low, high) = match number_bounds(map) {
        Ok(bounds) => bounds,
        Err(keyword) => {
            return deriver.invalid(
                &pointer_push(pointer, keyword),
                format!("{keyword} must be a number"),
            );
        }
    };
    for (keyword, rounded) in low
        .iter()
        .chain(high.iter())
        .filter_map(|side| side.rounded.as_ref())
    {
        deriver.note(pointer, Some(keyword), rounded.clone());
    }
    if low.is_none() && high.is_none() {
        return deriver.rule("number");
    }
    let bound = |side: &Option<NumberSide>| side.as_ref().map(|side| side.bound);
    match super::numbers::number_range(bound(&low), bound(&high)) {
        Expr::Never => deriver.never(
            pointer,
            Some("minimum"),
            "no number lies between the bounds",
        ),
        expr => expr,
    }
}

/// Most rules the grammar spends on the multiples of one step: one per state of the
/// divisibility automaton and count of digits still allowed (an integer part has at most
/// [`super::numbers::INTEGER_DIGITS`]), so steps of up to 25 states.
const MOST_DIVISIBILITY_RULES: usize = 512;

/// Most multiples between two bounds the grammar lists one by one.
const MOST_LISTED_MULTIPLES: i128 = 256;

/// A `multipleOf` that is a whole number, as one.
fn whole_step(step: f64) -> Option<u64> {
    (step >= 1.0 && step.fract() == 0.0 && step <= u64::MAX as f64).then_some(step as u64)
}

fn never_if_empty(deriver: &mut Deriver<'_>, expr: Expr, pointer: &str) -> Expr {
    match expr {
        Expr::Never => deriver.never(
            pointer,
            Some("multipleOf"),
            "no multiple lies between the bounds",
        ),
        expr => expr,
    }
}

/// The canonical integers in `[low, high]` (`None`: open on that side) that are multiples of
/// `step`, or why the grammar does not hold exactly them. Between two bounds the few multiples
/// are listed; with a side open, the positive (negative) multiples are the divisibility
/// automaton's language when the bounds cut none of them off.
fn multiples(
    deriver: &mut Deriver<'_>,
    step: u64,
    low: Option<i128>,
    high: Option<i128>,
) -> Result<Expr, String> {
    if step == 1 {
        return Ok(super::numbers::integer_range(low, high));
    }
    let k = i128::from(step);
    let overflow = || "the bounds are too large".to_owned();
    // The first and last multiples inside the bounds.
    let first = match low {
        Some(low) => {
            let past = low.rem_euclid(k);
            Some(if past == 0 {
                low
            } else {
                low.checked_add(k - past).ok_or_else(overflow)?
            })
        }
        None => None,
    };
    let last = high.map(|high| high - high.rem_euclid(k));
    if let (Some(first), Some(last)) = (first, last) {
        if first > last {
            return Ok(Expr::Never);
        }
        let count = (last - first) / k + 1;
        if count > MOST_LISTED_MULTIPLES {
            return Err(format!(
                "{count} multiples of {step} lie between the bounds: too many to list, and the grammar does not cut the divisibility rules at a bound"
            ));
        }
        return Ok(Expr::alt(
            (0..count).map(|index| Expr::lit((first + index * k).to_string())),
        ));
    }
    let cut = || {
        format!(
            "the bounds cut into the multiples of {step}, and the grammar does not cut the divisibility rules at a bound"
        )
    };
    // Every positive multiple, or none of them.
    let positives = match (first, last) {
        (_, Some(last)) if last < k => false,
        (first, None) if first.is_none_or(|first| first <= k) => true,
        _ => return Err(cut()),
    };
    let negatives = match (first, last) {
        (Some(first), _) if first > -k => false,
        (None, last) if last.is_none_or(|last| last >= -k) => true,
        _ => return Err(cut()),
    };
    let zero = first.is_none_or(|first| first <= 0) && last.is_none_or(|last| last >= 0);
    let positive = if positives || negatives {
        positive_multiples(deriver, step).ok_or_else(|| {
            format!("the multiples of {step} need more than {MOST_DIVISIBILITY_RULES} rules")
        })?
    } else {
        Expr::Never
    };
    let mut alternatives = Vec::new();
    if zero {
        alternatives.push(Expr::lit("0"));
    }
    if positives {
        alternatives.push(positive.clone());
    }
    if negatives {
        alternatives.push(Expr::seq([Expr::lit("-"), positive]));
    }
    Ok(Expr::alt(alternatives))
}

/// The positive multiples of `step` without leading zeros and with at most
/// [`super::numbers::INTEGER_DIGITS`] digits: one rule per state of the divisibility automaton
/// and count of digits still allowed, each a digit and the next rule (right-recursive, so the
/// engine's stack does not grow with the digits). `None` when there are too many rules.
fn positive_multiples(deriver: &mut Deriver<'_>, step: u64) -> Option<Expr> {
    if let Some(found) = deriver.multiple_rules.get(&step) {
        return found.clone();
    }
    let digits = super::numbers::INTEGER_DIGITS as usize;
    let made =
        super::numbers::divisibility(step, MOST_DIVISIBILITY_RULES / digits).map(|automaton| {
            let hint = format!("multiple-of-{step}");
            // The digits from `from` on, grouped by the state they lead to, each group a class
            // before that state's rule in `next` (a state without a rule there is left out).
            let moves = |state: usize, from: u8, next: &[Expr]| -> Vec<Expr> {
                let mut targets: Vec<(usize, Vec<u8>)> = Vec::new();
                for digit in from..=9 {
                    let target = automaton.next[state][usize::from(digit)];
                    match targets.iter_mut().find(|(seen, _)| *seen == target) {
                        Some((_, digits)) => digits.push(digit),
                        None => targets.push((target, vec![digit])),
                    }
                }
                targets
                    .into_iter()
                    .filter(|(target, _)| next[*target] != Expr::Never)
                    .map(|(target, digits)| {
                        Expr::seq([super::numbers::digits_class(&digits), next[target].clone()])
                    })
                    .collect()
            };
            // rules[state] with `left` more digits allowed, built from none left upwards.
            let mut rules: Vec<Expr> = vec![Expr::Never; automaton.next.len()];
            for left in 0..digits {
                let below = rules.clone();
                for (state, rule) in rules.iter_mut().enumerate() {
                    let mut body = if left == 0 {
                        Vec::new()
                    } else {
                        moves(state, 0, &below)
                    };
                    if automaton.accepting[state] {
                        body.push(Expr::Empty);
                    }
                    *rule = deriver.named(Expr::alt(body), &hint);
                }
            }
            let first = Expr::alt(moves(automaton.start, 1, &rules));
            deriver.named(first, &format!("positive-multiple-of-{step}"))
        });
    deriver.multiple_rules.insert(step, made.clone());
    made
}

/// Bounds beyond this are left out of the grammar (they bound nothing a model writes).
const LARGEST_NUMBER_BOUND: f64 = 1e18;

/// One side of a number's range as the grammar uses it.
#[derive(Clone, Debug)]
struct NumberSide {
    bound: super::numbers::Bound,
    /// The keyword and the note when the grammar's bound is looser than the schema's.
    rounded: Option<(&'static str, String)>,
}

/// The tightest lower and upper bounds of a number (`minimum`, `maximum`, the exclusive forms,
/// numeric or draft-04 booleans). A bound that is not an integer is rounded outwards (the
/// grammar allows a little more and validation checks the rest); a huge one is dropped. `Err`
/// names a bound that is not a number.
fn number_bounds(
    map: &Map<String, Value>,
) -> Result<(Option<NumberSide>, Option<NumberSide>), &'static str> {
    let number = |keyword: &'static str| -> Result<Option<f64>, &'static str> {
        match map.get(keyword) {
            None | Some(Value::Bool(_)) => Ok(None),
            Some(value) => value.as_f64().map(Some).ok_or(keyword),
        }
    };
    let draft4_exclusive =
        |keyword: &str| map.get(keyword).and_then(Value::as_bool).unwrap_or(false);
    let low = tightest(
        [
            (
                "minimum",
                number("minimum")?,
                draft4_exclusive("exclusiveMinimum"),
            ),
            ("exclusiveMinimum", number("exclusiveMinimum")?, true),
        ],
        f64::floor,
        tighter_low,
    );
    let high = tightest(
        [
            (
                "maximum",
                number("maximum")?,
                draft4_exclusive("exclusiveMaximum"),
            ),
            ("exclusiveMaximum", number("exclusiveMaximum")?, true),
        ],
        f64::ceil,
        tighter_high,
    );
    Ok((low, high))
}

/// The tightest of one side's bounds (`(keyword, value, exclusive)`, the inclusive keyword
/// first), each made a grammar bound by [`side`] with `round`; `tighter(a, b)`: `a` bounds more.
fn tightest(
    sides: [(&'static str, Option<f64>, bool); 2],
    round: fn(f64) -> f64,
    tighter: fn(super::numbers::Bound, super::numbers::Bound) -> bool,
) -> Option<NumberSide> {
    let mut best: Option<NumberSide> = None;
    for (keyword, value, exclusive) in sides {
        let Some(side) = value.and_then(|value| side(keyword, value, exclusive, round)) else {
            continue;
        };
        if best
            .as_ref()
            .is_none_or(|best| tighter(side.bound, best.bound))
        {
            best = Some(side);
        }
    }
    best
}

/// A bound as the grammar uses it: an integer one as it is, another rounded outwards with
/// `round` (and then inclusive), a huge one not at all.
fn side(
    keyword: &'static str,
    value: f64,
    exclusive: bool,
    round: fn(f64) -> f64,
) -> Option<NumberSide> {
    if !value.is_finite() || value.abs() > LARGEST_NUMBER_BOUND {
        return None;
    }
    if value.fract() == 0.0 {
        return Some(NumberSide {
            bound: super::numbers::Bound {
                value: value as i128,
                exclusive,
            },
            rounded: None,
        });
    }
    let rounded = round(value) as i128;
    Some(NumberSide {
        bound: super::numbers::Bound {
            value: rounded,
            exclusive: false,
        },
        rounded: Some((
            keyword,
            format!(
                "the bound {value} is not an integer: the grammar bounds the number at {rounded} and validation checks the exact bound"
            ),
        )),
    })
}

fn tighter_low(candidate: super::numbers::Bound, current: super::numbers::Bound) -> bool {
    candidate.value > current.value
        || (candidate.value == current.value && candidate.exclusive && !current.exclusive)
}

fn tighter_high(candidate: super::numbers::Bound, current: super::numbers::Bound) -> bool {
    candidate.value < current.value
        || (candidate.value == current.value && candidate.exclusive && !current.exclusive)
}

/// The type names a `type` keyword lists (a name or an array of names).
pub(crate) fn type_names(value: &Value) -> Vec<String> {
    match value {
        Value::String(name) => vec![name.clone()],
        Value::Array(names) => names
            .iter()
            .filter_map(|name| name.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// The JSON types a value has, `integer` included for integral numbers.
pub(crate) fn value_types(value: &Value) -> &'static [&'static str] {
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

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::integer_bounds;

    fn bounds(schema: Value) -> Result<(Option<i128>, Option<i128>), &'static str> {
        let map: Map<String, Value> = serde_json::from_value(schema).unwrap();
        integer_bounds(&map)
    }

    #[test]
    fn integer_bounds_round_inwards_and_take_the_tighter_of_each_side() {
        assert_eq!(bounds(json!({})), Ok((None, None)));
        // Inclusive bounds that are not integers round into the range.
        assert_eq!(
            bounds(json!({"minimum": -1.5, "maximum": 2.5})),
            Ok((Some(-1), Some(2)))
        );
        // Exclusive ones step in from the nearest integer outside.
        assert_eq!(
            bounds(json!({"exclusiveMinimum": 2, "exclusiveMaximum": 7.2})),
            Ok((Some(3), Some(7)))
        );
        assert_eq!(
            bounds(json!({"exclusiveMinimum": -0.5, "exclusiveMaximum": 4})),
            Ok((Some(0), Some(3)))
        );
        // Draft-04 booleans make an integer bound exclusive, and not a fractional one (it
        // already rounded inwards past it).
        assert_eq!(
            bounds(json!({"minimum": 1, "exclusiveMinimum": true,
                "maximum": 9.5, "exclusiveMaximum": true})),
            Ok((Some(2), Some(9)))
        );
        // Both forms on one side: the tighter wins.
        assert_eq!(
            bounds(json!({"minimum": 5, "exclusiveMinimum": 6,
                "maximum": 10, "exclusiveMaximum": 8})),
            Ok((Some(7), Some(7)))
        );
        assert_eq!(
            bounds(json!({"minimum": 9, "exclusiveMinimum": 2})),
            Ok((Some(9), None))
        );
        // Huge integers stay exact; a bound that is not a number is named.
        assert_eq!(
            bounds(json!({"maximum": 18446744073709551615u64})),
            Ok((None, Some(18446744073709551615)))
        );
        assert_eq!(bounds(json!({"maximum": "ten"})), Err("maximum"));
        assert_eq!(
            bounds(json!({"minimum": 1, "exclusiveMaximum": []})),
            Err("exclusiveMaximum")
        );
    }
}
