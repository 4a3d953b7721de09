//! Integer bounds as exact digit rules, bounded numbers, and the JSON number syntax.
//!
//! An integer in the grammar is written the way serde_json writes it: an optional `-`, then
//! `0` or a digit string without a leading zero; `-0` is not produced (it is the same value as
//! `0`, and `0` is its canonical form). A range `[low, high]` becomes an alternation of
//! disjoint digit patterns, one group per digit count, so the grammar matches exactly the
//! integers in the range.
//!
//! A number between integer bounds is written in positional notation (no exponent): its
//! integer part is an integer range as above, and the fraction decides the edges (at an
//! inclusive upper bound only zeros may follow the point; at an exclusive lower bound some
//! digit after the point must not be zero), so the grammar matches exactly the numbers in the
//! range. An unbounded number keeps JSON's exponent, with at most two exponent digits: a JSON
//! parser turns `8e555` into an error (the value is out of range for a double), and a model
//! under a grammar that allows it writes it now and then (measured on llama.cpp's server with a
//! random model).
//!
//! Digit counts are bounded too, deliberately: an integer part has at most
//! [`INTEGER_DIGITS`] digits and a fraction at most [`FRACTION_DIGITS`]. A model under a
//! grammar with an open digit loop (measured: a random-weight model on llama.cpp's server)
//! can write digits until its token budget runs out; llama.cpp's own schema converter bounds
//! both parts (at 16 digits each) for the same reason. Twenty integer digits hold every `i64`
//! and `u64`; twenty-two fraction digits hold the shortest round-trip form of every double
//! that serde_json or JavaScript writes positionally (at most 17 significant digits after at
//! most five zeros, from 1e-6 up), and smaller magnitudes take the exponent. A number with
//! more digits is valid under the schema but outside the grammar.

use super::expr::{CharClass, Expr};

/// Most digits of an integer part (see the module docs): `u64::MAX` has twenty.
pub(crate) const INTEGER_DIGITS: u32 = 20;

/// Most digits after a number's point (see the module docs).
pub(crate) const FRACTION_DIGITS: u64 = 22;

/// The largest magnitude an integer part can spell.
const LARGEST_INTEGER_PART: u128 = 10u128.pow(INTEGER_DIGITS) - 1;

/// A fraction: the point and one to [`FRACTION_DIGITS`] digits.
fn any_fraction() -> Expr {
    Expr::seq([
        Expr::lit("."),
        Expr::repeat(any_digit(), 1, Some(FRACTION_DIGITS)),
    ])
}

/// A fraction of zeros only (an integral value written with a point).
pub(crate) fn zero_fraction() -> Expr {
    Expr::seq([
        Expr::lit("."),
        Expr::repeat(Expr::lit("0"), 1, Some(FRACTION_DIGITS)),
    ])
}

/// The digits `0-9` as a class.
fn any_digit() -> Expr {
    Expr::Class(CharClass::of(&[('0', '9')]))
}

fn digit_class(low: u8, high: u8) -> Expr {
    if low == high {
        Expr::lit(char::from(b'0' + low).to_string())
    } else {
        let low = char::from(b'0' + low);
        let high = char::from(b'0' + high);
        Expr::Class(CharClass::of(&[(low, high)]))
    }
}

/// The canonical decimal forms of the integers in `[low, high]` (`None`: unbounded on that
/// side). `Never` when the range is empty.
pub(crate) fn integer_range(low: Option<i128>, high: Option<i128>) -> Expr {
    if let (Some(low), Some(high)) = (low, high)
        && low > high
    {
        return Expr::Never;
    }
    let mut alternatives = Vec::new();
    // Non-negative part: [max(low, 0), high].
    if high.is_none_or(|high| high >= 0) {
        let from = low.map_or(0, |low| low.max(0)) as u128;
        let to = high.map(|high| high as u128);
        alternatives.push(natural_range(from, to));
    }
    // Negative part: -k for k in [max(1, -high), -low].
    if low.is_none_or(|low| low < 0) {
        let from = high.map_or(1, |high| if high < 0 { high.unsigned_abs() } else { 1 });
        let to = low.map(i128::unsigned_abs);
        alternatives.push(Expr::seq([Expr::lit("-"), natural_range(from, to)]));
    }
    Expr::alt(alternatives)
}

/// The canonical decimal forms of the naturals in `[low, high]`.
/// An integer part has at most [`INTEGER_DIGITS`] digits: `high` is cut there, and a range
/// that starts beyond it is empty.
fn natural_range(low: u128, high: Option<u128>) -> Expr {
    let mut alternatives = Vec::new();
    let mut low = low;
    if low > LARGEST_INTEGER_PART {
        return Expr::Never;
    }
    let high = high.map(|high| high.min(LARGEST_INTEGER_PART));
    if low == 0 {
        alternatives.push(Expr::lit("0"));
        if high == Some(0) {
            return Expr::alt(alternatives);
        }
        low = 1;
    }
    let low_digits = digit_count(low);
    match high {
        Some(high) => {
            let high_digits = digit_count(high);
            for digits in low_digits..=high_digits {
                let from = if digits == low_digits {
                    low
                } else {
                    pow10(digits - 1)
                };
                let to = if digits == high_digits {
                    high
                } else {
                    pow10(digits) - 1
                };
                same_length(&decimal(from), &decimal(to), &mut alternatives);
            }
        }
        None => {
            same_length(
                &decimal(low),
                &decimal(pow10(low_digits) - 1),
                &mut alternatives,
            );
            // Every number with more digits, up to the bound.
            if low_digits < INTEGER_DIGITS {
                alternatives.push(Expr::seq([
                    digit_class(1, 9),
                    Expr::repeat(
                        any_digit(),
                        u64::from(low_digits),
                        Some(u64::from(INTEGER_DIGITS - 1)),
                    ),
                ]));
            }
        }
    }
    Expr::alt(alternatives)
}

/// Patterns for the numbers from `low` to `high`, both with the same digit count and no
/// leading zero (the first digit of `low` is not 0), appended to `out`.
fn same_length(low: &[u8], high: &[u8], out: &mut Vec<Expr>) {
    let mut patterns: Vec<Vec<(u8, u8)>> = Vec::new();
    split(low, high, &mut Vec::new(), &mut patterns);
    out.extend(patterns.into_iter().map(pattern_expr));
}

/// Recursively splits `[low, high]` (equal lengths) into patterns of per-digit ranges.
fn split(low: &[u8], high: &[u8], prefix: &mut Vec<(u8, u8)>, out: &mut Vec<Vec<(u8, u8)>>) {
    if low.is_empty() {
        out.push(prefix.clone());
        return;
    }
    let (first_low, first_high) = (low[0], high[0]);
    if first_low == first_high {
        prefix.push((first_low, first_low));
        split(&low[1..], &high[1..], prefix, out);
        prefix.pop();
        return;
    }
    let rest = low.len() - 1;
    let low_rest_is_zeros = low[1..].iter().all(|&digit| digit == 0);
    let high_rest_is_nines = high[1..].iter().all(|&digit| digit == 9);
    // The lower edge: first_low followed by low[1..] up to 99..9, unless it is all of them.
    let middle_from = if low_rest_is_zeros {
        first_low
    } else {
        prefix.push((first_low, first_low));
        split(&low[1..], &vec![9; rest], prefix, out);
        prefix.pop();
        first_low + 1
    };
    let middle_to = if high_rest_is_nines {
        first_high
    } else {
        first_high - 1
    };
    if middle_from <= middle_to {
        let mut pattern = prefix.clone();
        pattern.push((middle_from, middle_to));
        pattern.extend(std::iter::repeat_n((0, 9), rest));
        out.push(pattern);
    }
    if !high_rest_is_nines {
        prefix.push((first_high, first_high));
        split(&vec![0; rest], &high[1..], prefix, out);
        prefix.pop();
    }
}

/// A pattern as an expression, with runs of `[0-9]` written as one repetition.
fn pattern_expr(pattern: Vec<(u8, u8)>) -> Expr {
    let mut items = Vec::new();
    let mut index = 0;
    while index < pattern.len() {
        let (low, high) = pattern[index];
        if (low, high) == (0, 9) {
            let run = pattern[index..]
                .iter()
                .take_while(|&&range| range == (0, 9))
                .count();
            items.push(Expr::repeat(any_digit(), run as u64, Some(run as u64)));
            index += run;
        } else {
            items.push(digit_class(low, high));
            index += 1;
        }
    }
    Expr::seq(items)
}

fn decimal(value: u128) -> Vec<u8> {
    value.to_string().bytes().map(|byte| byte - b'0').collect()
}

fn digit_count(value: u128) -> u32 {
    value.checked_ilog10().unwrap_or(0) + 1
}

fn pow10(exponent: u32) -> u128 {
    10u128.pow(exponent)
}

/// One side of a number range: an integer bound, and whether the bound itself is excluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bound {
    /// The bound's value.
    pub value: i128,
    /// Whether the bound itself is outside the range (`exclusiveMinimum`, `exclusiveMaximum`).
    pub exclusive: bool,
}

/// The numbers `x` with `low <= x <= high` (or `<` on an exclusive side; `None`: unbounded),
/// in positional notation: an optional `-`, an integer part without leading zeros, and an
/// optional fraction. `-0` (with or without a fraction of zeros) is not produced: `0` is. `Never`
/// when no number lies in the range.
pub(crate) fn number_range(low: Option<Bound>, high: Option<Bound>) -> Expr {
    let mut alternatives = Vec::new();
    // Non-negative numbers: the magnitude is the value.
    let positive_upper = match high {
        Some(high) if high.value < 0 || (high.value == 0 && high.exclusive) => None,
        Some(high) => Some(Some((high.value as u128, high.exclusive))),
        None => Some(None),
    };
    if let Some(upper) = positive_upper {
        let (lower, strict) = match low {
            Some(low) if low.value >= 0 => (low.value as u128, low.exclusive),
            _ => (0, false),
        };
        alternatives.push(magnitudes(lower, strict, upper));
    }
    // Negative numbers: `-` and a magnitude above zero; `x >= low` bounds the magnitude above.
    let negative_upper = match low {
        Some(low) if low.value >= 0 => None,
        Some(low) => Some(Some((low.value.unsigned_abs(), low.exclusive))),
        None => Some(None),
    };
    if let Some(upper) = negative_upper {
        let (lower, strict) = match high {
            Some(high) if high.value < 0 => (high.value.unsigned_abs(), high.exclusive),
            _ => (0, true),
        };
        let magnitude = magnitudes(lower, strict, upper);
        if magnitude != Expr::Never {
            alternatives.push(Expr::seq([Expr::lit("-"), magnitude]));
        }
    }
    Expr::alt(alternatives)
}

/// The non-negative numbers `m` with `lower <= m` (`<` when `strict`) and `m <= upper` (`<`
/// when the upper bound is exclusive), positionally.
fn magnitudes(lower: u128, strict: bool, upper: Option<(u128, bool)>) -> Expr {
    let mut alternatives = Vec::new();
    // Integer parts strictly inside the range take any fraction.
    let first = if strict {
        lower.checked_add(1)
    } else {
        Some(lower)
    };
    let last = match upper {
        Some((upper, _)) => upper.checked_sub(1),
        None => Some(u128::MAX),
    };
    if let (Some(first), Some(last)) = (first, last)
        && first <= last
    {
        let high = upper.map(|_| last);
        alternatives.push(Expr::seq([
            natural_range(first, high),
            Expr::optional(any_fraction()),
        ]));
    }
    // Just above an exclusive lower bound: that integer part with a fraction that is not zero.
    if strict && upper.is_none_or(|(upper, _)| upper > lower) {
        // Some digit is not zero: one alternative per count of zeros before the first that is
        // not, so the fraction's length stays bounded.
        let nonzero = (0..FRACTION_DIGITS).map(|zeros| {
            Expr::seq([
                Expr::lit("0".repeat(zeros as usize)),
                digit_class(1, 9),
                Expr::repeat(any_digit(), 0, Some(FRACTION_DIGITS - 1 - zeros)),
            ])
        });
        alternatives.push(Expr::seq([
            natural_range(lower, Some(lower)),
            Expr::lit("."),
            Expr::alt(nonzero),
        ]));
    }
    // An inclusive upper bound itself: that integer part with a fraction of zeros only.
    if let Some((upper, false)) = upper
        && (upper > lower || (upper == lower && !strict))
    {
        alternatives.push(Expr::seq([
            natural_range(upper, Some(upper)),
            Expr::optional(zero_fraction()),
        ]));
    }
    Expr::alt(alternatives)
}

/// The automaton that reads a natural number's decimal digits left to right and ends in an
/// accepting state exactly when the number is a multiple of the step: residues modulo the step,
/// with residues that behave alike merged (multiples of 1000 need four states, not a thousand).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Divisibility {
    /// `next[state][digit]`: the state after reading one more digit.
    pub next: Vec<[usize; 10]>,
    /// Whether the digits read so far spell a multiple.
    pub accepting: Vec<bool>,
    /// The state before any digit (the residue of 0).
    pub start: usize,
}

/// Steps above this are not tried: the residues are built before they are merged.
const LARGEST_STEP: u64 = 10_000;

/// The divisibility automaton of `step` (at least 1), or `None` when it needs more than
/// `most_states` states or the step is too large to try.
pub(crate) fn divisibility(step: u64, most_states: usize) -> Option<Divisibility> {
    if step == 0 || step > LARGEST_STEP {
        return None;
    }
    let residues = step as usize;
    let step_of = |residue: usize, digit: usize| (residue * 10 + digit) % residues;
    // Moore's refinement: residues stay together while they agree on acceptance and on the
    // class every digit leads to.
    let mut class: Vec<usize> = (0..residues)
        .map(|residue| usize::from(residue != 0))
        .collect();
    let mut classes = if residues == 1 { 1 } else { 2 };
    loop {
        let mut ids: std::collections::HashMap<(usize, [usize; 10]), usize> =
            std::collections::HashMap::new();
        let mut refined = Vec::with_capacity(residues);
        for residue in 0..residues {
            let signature = (
                class[residue],
                std::array::from_fn(|digit| class[step_of(residue, digit)]),
            );
            let next_id = ids.len();
            refined.push(*ids.entry(signature).or_insert(next_id));
        }
        let count = ids.len();
        class = refined;
        if count == classes {
            break;
        }
        classes = count;
    }
    if classes > most_states {
        return None;
    }
    let mut next = vec![[0usize; 10]; classes];
    let mut accepting = vec![false; classes];
    for residue in 0..residues {
        let state = class[residue];
        next[state] = std::array::from_fn(|digit| class[step_of(residue, digit)]);
        accepting[state] = residue == 0;
    }
    Some(Divisibility {
        next,
        accepting,
        start: class[0],
    })
}

/// The digits of `digits` as one class (`[0-9]`-style ranges, or one literal digit).
pub(crate) fn digits_class(digits: &[u8]) -> Expr {
    if let [digit] = digits {
        return digit_class(*digit, *digit);
    }
    let mut ranges: Vec<(char, char)> = Vec::new();
    for &digit in digits {
        let ch = char::from(b'0' + digit);
        match ranges.last_mut() {
            Some((_, high)) if (*high as u8) + 1 == ch as u8 => *high = ch,
            _ => ranges.push((ch, ch)),
        }
    }
    Expr::Class(CharClass::of(&ranges))
}

/// Any JSON number as RFC 8259 writes it, except exponents of three or more digits and parts
/// longer than the digit bounds (see the module docs).
pub(crate) fn json_number() -> Expr {
    Expr::seq([
        Expr::optional(Expr::lit("-")),
        Expr::alt([
            Expr::lit("0"),
            Expr::seq([
                digit_class(1, 9),
                Expr::repeat(any_digit(), 0, Some(u64::from(INTEGER_DIGITS - 1))),
            ]),
        ]),
        Expr::optional(any_fraction()),
        Expr::optional(Expr::seq([
            Expr::Class(CharClass::of(&[('e', 'e'), ('E', 'E')])),
            Expr::optional(Expr::Class(CharClass::of(&[('+', '+'), ('-', '-')]))),
            Expr::repeat(any_digit(), 1, Some(2)),
        ])),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::gbnf::builder::Builder;
    use crate::schema::gbnf::parse;

    fn grammar(expr: Expr) -> crate::schema::gbnf::Grammar {
        let mut builder = Builder::new();
        builder.define(0, expr);
        parse(&builder.finish()).unwrap()
    }

    /// Every integer in a window (and its non-canonical spellings) against the range.
    fn check(low: Option<i128>, high: Option<i128>) {
        let grammar = grammar(integer_range(low, high));
        for value in -1100i128..=1100 {
            let inside =
                low.is_none_or(|low| value >= low) && high.is_none_or(|high| value <= high);
            let text = value.to_string();
            assert_eq!(
                grammar.recognize(&text).is_ok(),
                inside,
                "{text} in [{low:?}, {high:?}]"
            );
            // A leading zero is never canonical.
            let padded = if value < 0 {
                format!("-0{}", value.unsigned_abs())
            } else {
                format!("0{value}")
            };
            assert!(grammar.recognize(&padded).is_err(), "{padded}");
        }
        assert!(grammar.recognize("-0").is_err());
        assert!(grammar.recognize("").is_err());
        assert!(grammar.recognize("1.0").is_err());
        assert!(grammar.recognize("+1").is_err());
    }

    #[test]
    fn ranges_are_exact() {
        let edges = [
            None,
            Some(-1000),
            Some(-101),
            Some(-100),
            Some(-99),
            Some(-10),
            Some(-9),
            Some(-1),
            Some(0),
            Some(1),
            Some(7),
            Some(9),
            Some(10),
            Some(19),
            Some(99),
            Some(100),
            Some(150),
            Some(999),
            Some(1000),
            Some(1024),
        ];
        for &low in &edges {
            for &high in &edges {
                if let (Some(low), Some(high)) = (low, high)
                    && low > high
                {
                    continue;
                }
                check(low, high);
            }
        }
    }

    #[test]
    fn empty_ranges_are_never() {
        assert_eq!(integer_range(Some(5), Some(4)), Expr::Never);
    }

    #[test]
    fn huge_bounds_work() {
        let grammar = grammar(integer_range(
            Some(i64::MIN as i128),
            Some(i64::MAX as i128),
        ));
        assert!(grammar.recognize(&i64::MAX.to_string()).is_ok());
        assert!(grammar.recognize(&i64::MIN.to_string()).is_ok());
        assert!(grammar.recognize("9223372036854775808").is_err());
        assert!(grammar.recognize("-9223372036854775809").is_err());
        assert!(grammar.recognize("12345678901234567").is_ok());
    }

    /// Decimal spellings around the edges of every range, against the value check.
    #[test]
    fn number_ranges_are_exact() {
        let fractions = ["", ".0", ".00", ".5", ".05", ".001", ".9", ".999"];
        let mut texts = Vec::new();
        for whole in -12i32..=12 {
            for fraction in fractions {
                let sign = if whole < 0 { "-" } else { "" };
                texts.push(format!("{sign}{}{fraction}", whole.unsigned_abs()));
                if whole == 0 {
                    texts.push(format!("-0{fraction}"));
                }
            }
        }
        let edges: Vec<Option<Bound>> =
            [None]
                .into_iter()
                .chain([-10i128, -1, 0, 1, 7, 10].into_iter().flat_map(|value| {
                    [false, true].map(|exclusive| Some(Bound { value, exclusive }))
                }))
                .collect();
        for &low in &edges {
            for &high in &edges {
                let grammar = grammar(number_range(low, high));
                for text in &texts {
                    let value: f64 = text.parse().unwrap();
                    let inside_low = low.is_none_or(|low| {
                        value > low.value as f64 || (value == low.value as f64 && !low.exclusive)
                    });
                    let inside_high = high.is_none_or(|high| {
                        value < high.value as f64 || (value == high.value as f64 && !high.exclusive)
                    });
                    let negative_zero = text.starts_with('-') && value == 0.0;
                    assert_eq!(
                        grammar.recognize(text).is_ok(),
                        inside_low && inside_high && !negative_zero,
                        "{text} in {low:?}..{high:?}"
                    );
                }
                for bad in ["07", "+1", "1.", ".5", "1e1", "-", ""] {
                    assert!(
                        grammar.recognize(bad).is_err(),
                        "{bad} in {low:?}..{high:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn numbers_follow_json() {
        let grammar = grammar(json_number());
        for good in ["0", "-0", "1", "-12.5", "1e10", "1E+2", "0.001e-3", "10"] {
            assert!(grammar.recognize(good).is_ok(), "{good}");
        }
        for bad in ["01", "1.", ".5", "+1", "1e", "--1", "0x1", ""] {
            assert!(grammar.recognize(bad).is_err(), "{bad}");
        }
        // A JSON parser refuses what a double cannot hold: exponents stop at two digits.
        for good in ["1e99", "-1.5E-99", "8838e83"] {
            assert!(grammar.recognize(good).is_ok(), "{good}");
            assert!(
                serde_json::from_str::<serde_json::Value>(good).is_ok(),
                "{good}"
            );
        }
        for out_of_range in ["8838E834", "68e5568934385", "1e400"] {
            assert!(serde_json::from_str::<serde_json::Value>(out_of_range).is_err());
            assert!(grammar.recognize(out_of_range).is_err(), "{out_of_range}");
        }
    }

    /// The digit bounds: every `u64` and `i64` fits, one digit more does not, in every number
    /// rule (open, bounded on one side, an edge's fraction).
    #[test]
    fn digits_are_bounded() {
        let twenty = "9".repeat(20);
        let twenty_one = format!("1{twenty}");
        let integers = grammar(integer_range(None, None));
        let above_five = grammar(integer_range(Some(5), None));
        let below_five = grammar(integer_range(None, Some(-5)));
        let numbers = grammar(json_number());
        let positive = grammar(number_range(
            Some(Bound {
                value: 0,
                exclusive: true,
            }),
            None,
        ));
        for grammar in [&integers, &above_five, &numbers, &positive] {
            assert!(grammar.recognize(&u64::MAX.to_string()).is_ok());
            assert!(grammar.recognize(&i64::MAX.to_string()).is_ok());
            assert!(grammar.recognize(&twenty).is_ok());
            assert!(grammar.recognize(&twenty_one).is_err());
        }
        for grammar in [&integers, &below_five, &numbers] {
            assert!(grammar.recognize(&i64::MIN.to_string()).is_ok());
            assert!(grammar.recognize(&format!("-{twenty}")).is_ok());
            assert!(grammar.recognize(&format!("-{twenty_one}")).is_err());
        }
        // Twenty-two fraction digits, also at an exclusive edge (zeros first) and on an
        // integral value's zeros.
        let fraction = "1234567890123456789012";
        let zeros = format!("{}1", "0".repeat(21));
        for grammar in [&numbers, &positive] {
            for digits in [fraction, zeros.as_str()] {
                assert!(
                    grammar.recognize(&format!("0.{digits}")).is_ok(),
                    "{digits}"
                );
                assert!(
                    grammar.recognize(&format!("0.{digits}5")).is_err(),
                    "{digits}"
                );
            }
            assert!(grammar.recognize(&format!("{twenty}.{fraction}")).is_ok());
        }
        let at_most_ten = grammar(number_range(
            None,
            Some(Bound {
                value: 10,
                exclusive: false,
            }),
        ));
        assert!(
            at_most_ten
                .recognize(&format!("10.{}", "0".repeat(22)))
                .is_ok()
        );
        assert!(
            at_most_ten
                .recognize(&format!("10.{}", "0".repeat(23)))
                .is_err()
        );
        // What serde_json writes for doubles at the edges of its positional form.
        for value in [
            0.000012345678901234567f64,
            1.2345678901234567e-7,
            1e16,
            1.5e99,
        ] {
            let text = serde_json::to_string(&value).unwrap();
            assert!(numbers.recognize(&text).is_ok(), "{text}");
        }
        // A range that starts beyond twenty digits is empty.
        assert_eq!(integer_range(Some(10i128.pow(20)), None), Expr::Never);
    }

    #[test]
    fn digit_rules_read_well() {
        let mut builder = Builder::new();
        builder.define(0, integer_range(Some(1), Some(100)));
        assert_eq!(builder.finish(), "root ::= [1-9] | [1-9] [0-9] | \"100\"\n");
        let mut builder = Builder::new();
        builder.define(
            0,
            number_range(
                Some(Bound {
                    value: 0,
                    exclusive: true,
                }),
                Some(Bound {
                    value: 60,
                    exclusive: false,
                }),
            ),
        );
        let edge: Vec<String> = (0..22)
            .map(|zeros| {
                let rest = match 21 - zeros {
                    0 => String::new(),
                    1 => " [0-9]?".to_owned(),
                    more => format!(" [0-9]{{0,{more}}}"),
                };
                let zeros = if zeros == 0 {
                    String::new()
                } else {
                    format!("\"{}\" ", "0".repeat(zeros))
                };
                format!("{zeros}[1-9]{rest}")
            })
            .collect();
        assert_eq!(
            builder.finish(),
            format!(
                "root ::= ([1-9] | [1-5] [0-9]) (\".\" [0-9]{{1,22}})? | \"0.\" ({}) | \"60\" (\".\" \"0\"{{1,22}})?\n",
                edge.join(" | ")
            )
        );
        let mut builder = Builder::new();
        builder.define(0, integer_range(Some(-5), None));
        assert_eq!(
            builder.finish(),
            "root ::= \"0\" | [1-9] | [1-9] [0-9]{1,19} | \"-\" [1-5]\n"
        );
    }
}
