//! `pattern`: the ECMA-262 regular expressions JSON Schema uses, compiled into grammar over the
//! text between a JSON string's quotes.
//!
//! The grammar agrees with the validator slmcode asserts with (the `jsonschema` crate), which
//! reads a pattern with ECMA-262 meanings: `\d` is `[0-9]`, `\w` is `[A-Za-z0-9_]`, `\s` is
//! ECMA-262 white space and line terminators, `.` is anything but a line terminator, and a
//! pattern is not anchored: without `^` (or `$`) anything may come before (or after) a match.
//! The decoded string is what matches; in the JSON text each character is written as itself,
//! except `"`, `\` and control characters, which are escaped as JSON requires (`\/` is allowed
//! too). Optional `\u` escapes of other characters are not generated.
//!
//! What a grammar cannot say exactly is refused with the reason, and the caller keeps the note:
//! backreferences, lookaround, word boundaries, Unicode property classes, inline flags, anchors
//! anywhere but at the ends of a top-level alternative, and repetitions that would expand past
//! [`MAX_EXPANDED`] items in llama.cpp's grammar engine (which copies a repeated item once per
//! count).

use super::expr::{CharClass, Expr};

/// The most items a pattern's grammar may expand to once its counted repetitions are copied
/// out (`[a-z]{1,64}` counts 64), unless the pattern's text is longer; beyond it the pattern is
/// left to validation.
pub(crate) const MAX_EXPANDED: u64 = 10_000;

/// How deeply groups may nest in a pattern the grammar translates.
const MAX_NESTING: u32 = 64;

const MAX_CHAR: u32 = 0x10_FFFF;

/// A parsed pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Node {
    /// One character of the set (sorted, disjoint, non-adjacent inclusive ranges).
    Set(Vec<(u32, u32)>),
    Seq(Vec<Node>),
    Alt(Vec<Node>),
    Repeat(Box<Node>, u32, Option<u32>),
    Start,
    End,
    /// `(?!...)` of fixed characters (one set per character): no match starts here with them.
    NotAhead(Vec<Vec<(u32, u32)>>),
}

/// A pattern compiled to grammar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Translated {
    /// The text between the quotes.
    pub body: Expr,
    /// The fewest characters a matching string has.
    pub min_length: u64,
    /// The most, when bounded.
    pub max_length: Option<u64>,
}

/// The grammar of the strings `pattern` matches (between the quotes), or why there is none.
pub(crate) fn translate(pattern: &str, char: &Expr) -> Result<Translated, String> {
    translate_bounded(pattern, char, 0, None)
}

/// Whether the grammar translates `pattern`.
pub(crate) fn translates(pattern: &str) -> bool {
    translate(pattern, &Expr::Empty).is_ok()
}

/// [`translate`], with the decoded length held between `min` and `max` where the pattern's
/// shape lets the grammar count it exactly (a top-level alternative anchored at both ends
/// whose body is one repeated set). Whether the lengths hold exactly is for the caller to
/// check against the result's length range.
pub(crate) fn translate_bounded(
    pattern: &str,
    char: &Expr,
    min: u64,
    max: Option<u64>,
) -> Result<Translated, String> {
    let node = Parser::new(pattern).parse()?;
    let mut branches = Vec::new();
    top_branches(node, &mut branches)?;
    let mut alternatives = Vec::new();
    let mut min_length = u64::MAX;
    let mut max_length = Some(0u64);
    let mut expanded = 0u64;
    for (start, body, end) in branches {
        let body = if start && end {
            clamp_lengths(body, min, max)
        } else {
            body
        };
        let (body, end) = leading_lookahead(start, body, end, min, max);
        if contains_lookahead(&body) {
            return Err(
                "the pattern has a lookahead other than `(?!...)` of fixed characters right after a leading ^, which a grammar cannot express".to_owned(),
            );
        }
        if contains_anchor(&body) {
            return Err(
                "the pattern has an anchor (^ or $) away from the ends of a top-level alternative, which the grammar does not translate".to_owned(),
            );
        }
        expanded = expanded.saturating_add(size(&body));
        let (low, high) = lengths(&body);
        let high = if start && end { high } else { None };
        min_length = min_length.min(low);
        max_length = match (max_length, high) {
            (Some(a), Some(b)) => Some(a.max(b)),
            _ => None,
        };
        let any = || Expr::repeat(char.clone(), 0, None);
        alternatives.push(Expr::seq([
            if start { Expr::Empty } else { any() },
            compile(&body),
            if end { Expr::Empty } else { any() },
        ]));
    }
    // The pattern's own text is linear in any case; only copies made by counts are bounded.
    if expanded > MAX_EXPANDED.max(4 * pattern.len() as u64) {
        return Err(format!(
            "the pattern's repetitions expand to more than {MAX_EXPANDED} items, too large for a grammar"
        ));
    }
    Ok(Translated {
        body: Expr::alt(alternatives),
        min_length: if min_length == u64::MAX {
            0
        } else {
            min_length
        },
        max_length,
    })
}

/// Whether `pattern` matches every string: a top-level alternative that may match nothing and
/// is not anchored at both ends matches the empty text at the start or at the end of any
/// string. `false` for a pattern that does not parse.
pub(crate) fn matches_every_string(pattern: &str) -> bool {
    let Ok(node) = Parser::new(pattern).parse() else {
        return false;
    };
    let mut branches = Vec::new();
    if top_branches(node, &mut branches).is_err() {
        return false;
    }
    branches.iter().any(|(start, body, end)| {
        let both_ends = *start && *end;
        !both_ends && !contains_anchor(body) && lengths(body).0 == 0
    })
}

/// Splits the pattern into its top-level alternatives, each with whether it starts with `^`
/// and ends with `$`.
fn top_branches(node: Node, out: &mut Vec<(bool, Node, bool)>) -> Result<(), String> {
    match node {
        Node::Alt(items) => {
            for item in items {
                top_branches(item, out)?;
            }
        }
        Node::Seq(mut items) => {
            let mut start = false;
            let mut end = false;
            while items.first() == Some(&Node::Start) {
                items.remove(0);
                start = true;
            }
            while items.last() == Some(&Node::End) {
                items.pop();
                end = true;
            }
            // `(^...$)`: one group around the whole alternative.
            if !start && !end && items.len() == 1 && contains_anchor(&items[0]) {
                return top_branches(items.pop().expect("one item"), out);
            }
            out.push((start, Node::Seq(items), end));
        }
        Node::Start => out.push((true, Node::Seq(Vec::new()), false)),
        Node::End => out.push((false, Node::Seq(Vec::new()), true)),
        other => out.push((false, other, false)),
    }
    Ok(())
}

/// The most characters a `(?!...)` may hold.
const MAX_LOOKAHEAD: usize = 8;

/// A top-level alternative `^(?!L)R` made `R` without the strings that start with `L` (then
/// anchored at the end, the free tail made part of it). Anything else is returned as it is.
fn leading_lookahead(
    start: bool,
    body: Node,
    end: bool,
    min: u64,
    max: Option<u64>,
) -> (Node, bool) {
    let Node::Seq(mut items) = body else {
        return (body, end);
    };
    if !start || !matches!(items.first(), Some(Node::NotAhead(_))) {
        return (Node::Seq(items), end);
    }
    let Node::NotAhead(ahead) = items.remove(0) else {
        unreachable!("checked above")
    };
    let mut rest = Node::Seq(items);
    if end {
        rest = clamp_lengths(rest, min, max);
    } else {
        rest = Node::Seq(vec![
            rest,
            Node::Repeat(Box::new(Node::Set(negate(&[]))), 0, None),
        ]);
    }
    if contains_anchor(&rest) {
        // Refused by the caller with the reason.
        return (rest, true);
    }
    let mut budget = MAX_LOOKAHEAD_STEPS;
    match not_starting_with(&rest, &ahead, &mut budget) {
        Some(body) => (body, true),
        // Too many ways to start: the lookahead stays, and the caller refuses it.
        None => (Node::Seq(vec![Node::NotAhead(ahead), rest]), true),
    }
}

/// How many first steps the lookahead's rewriting may take in all (each may copy the rest of
/// the pattern once).
const MAX_LOOKAHEAD_STEPS: u64 = 256;

/// The strings of `node` that do not start with a string of `ahead` (one set per character);
/// `None` when that takes more than `budget` steps.
fn not_starting_with(node: &Node, ahead: &[Vec<(u32, u32)>], budget: &mut u64) -> Option<Node> {
    let Some((first, later)) = ahead.split_first() else {
        // Every string starts with the empty one.
        return Some(Node::Alt(Vec::new()));
    };
    let mut alternatives = Vec::new();
    if lengths(node).0 == 0 {
        alternatives.push(Node::Seq(Vec::new()));
    }
    let steps = first_steps(node);
    *budget = budget.checked_sub(steps.len() as u64)?;
    for (set, continuation) in steps {
        let outside = subtract(&set, first);
        if !outside.is_empty() {
            alternatives.push(Node::Seq(vec![Node::Set(outside), continuation.clone()]));
        }
        let inside = subtract(&set, &complement(first));
        if !inside.is_empty() {
            alternatives.push(Node::Seq(vec![
                Node::Set(inside),
                not_starting_with(&continuation, later, budget)?,
            ]));
        }
    }
    Some(Node::Alt(alternatives))
}

/// The first characters `node` can match, each set with what may follow it.
fn first_steps(node: &Node) -> Vec<(Vec<(u32, u32)>, Node)> {
    match node {
        Node::Set(ranges) => vec![(ranges.clone(), Node::Seq(Vec::new()))],
        Node::Seq(items) => {
            let mut out = Vec::new();
            for (index, item) in items.iter().enumerate() {
                for (set, continuation) in first_steps(item) {
                    let mut rest = vec![continuation];
                    rest.extend(items[index + 1..].iter().cloned());
                    out.push((set, Node::Seq(rest)));
                }
                if lengths(item).0 > 0 {
                    break;
                }
            }
            out
        }
        Node::Alt(items) => items.iter().flat_map(first_steps).collect(),
        Node::Repeat(inner, min, max) => {
            if *max == Some(0) {
                return Vec::new();
            }
            let again = Node::Repeat(inner.clone(), min.saturating_sub(1), max.map(|max| max - 1));
            first_steps(inner)
                .into_iter()
                .map(|(set, continuation)| (set, Node::Seq(vec![continuation, again.clone()])))
                .collect()
        }
        Node::Start | Node::End | Node::NotAhead(_) => Vec::new(),
    }
}

fn contains_lookahead(node: &Node) -> bool {
    match node {
        Node::NotAhead(_) => true,
        Node::Set(_) | Node::Start | Node::End => false,
        Node::Seq(items) | Node::Alt(items) => items.iter().any(contains_lookahead),
        Node::Repeat(inner, _, _) => contains_lookahead(inner),
    }
}

fn contains_anchor(node: &Node) -> bool {
    match node {
        Node::Start | Node::End | Node::NotAhead(_) => true,
        Node::Set(_) => false,
        Node::Seq(items) | Node::Alt(items) => items.iter().any(contains_anchor),
        Node::Repeat(inner, _, _) => contains_anchor(inner),
    }
}

/// An anchored body that is one repeated set, with the repetition narrowed to `[min, max]`.
fn clamp_lengths(body: Node, min: u64, max: Option<u64>) -> Node {
    let Node::Seq(items) = &body else {
        return body;
    };
    let [Node::Repeat(inner, low, high)] = items.as_slice() else {
        return body;
    };
    if !matches!(**inner, Node::Set(_)) {
        return body;
    }
    let low = u64::from(*low).max(min);
    let high = match (high.map(u64::from), max) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let Ok(low) = u32::try_from(low) else {
        return Node::Alt(Vec::new());
    };
    let high = high.map(|high| u32::try_from(high).unwrap_or(u32::MAX));
    Node::Seq(vec![Node::Repeat(inner.clone(), low, high)])
}

/// How many items the grammar engine holds once repetitions are copied out.
fn size(node: &Node) -> u64 {
    match node {
        Node::Set(_) | Node::Start | Node::End | Node::NotAhead(_) => 1,
        Node::Seq(items) | Node::Alt(items) => items
            .iter()
            .fold(1u64, |total, item| total.saturating_add(size(item))),
        Node::Repeat(inner, min, max) => {
            let copies = u64::from(max.unwrap_or(*min).max(*min).max(1)) + 1;
            size(inner).saturating_mul(copies)
        }
    }
}

/// The fewest and most characters `node` matches.
fn lengths(node: &Node) -> (u64, Option<u64>) {
    match node {
        Node::Set(_) => (1, Some(1)),
        Node::Start | Node::End | Node::NotAhead(_) => (0, Some(0)),
        Node::Seq(items) => items.iter().fold((0, Some(0)), |(low, high), item| {
            let (item_low, item_high) = lengths(item);
            (
                low.saturating_add(item_low),
                high.zip(item_high).map(|(a, b)| a.saturating_add(b)),
            )
        }),
        Node::Alt(items) => {
            if items.is_empty() {
                return (0, Some(0));
            }
            items.iter().fold((u64::MAX, Some(0)), |(low, high), item| {
                let (item_low, item_high) = lengths(item);
                (
                    low.min(item_low),
                    high.zip(item_high).map(|(a, b)| a.max(b)),
                )
            })
        }
        Node::Repeat(inner, min, max) => {
            let (low, high) = lengths(inner);
            let high = match (high, max) {
                (Some(0), _) => Some(0),
                (Some(high), Some(max)) => Some(high.saturating_mul(u64::from(*max))),
                _ => None,
            };
            (low.saturating_mul(u64::from(*min)), high)
        }
    }
}

/// The grammar of `node` (anchors already removed).
fn compile(node: &Node) -> Expr {
    match node {
        Node::Set(ranges) => set_text(ranges),
        Node::Seq(items) => Expr::seq(items.iter().map(compile)),
        Node::Alt(items) => Expr::alt(items.iter().map(compile)),
        Node::Repeat(inner, min, max) => {
            Expr::repeat(compile(inner), u64::from(*min), max.map(u64::from))
        }
        Node::Start | Node::End | Node::NotAhead(_) => Expr::Never,
    }
}

/// One character of the set as it is written inside a JSON string: itself where JSON allows,
/// escaped where it must be.
fn set_text(ranges: &[(u32, u32)]) -> Expr {
    let plain = subtract(
        ranges,
        &[
            (0, 0x1F),
            ('"' as u32, '"' as u32),
            ('\\' as u32, '\\' as u32),
        ],
    );
    let mut alternatives = Vec::new();
    if !plain.is_empty() {
        alternatives.push(Expr::Class(class_of(&plain)));
    }
    let has = |code: u32| {
        ranges
            .iter()
            .any(|&(low, high)| low <= code && code <= high)
    };
    if has('"' as u32) {
        alternatives.push(Expr::lit("\\\""));
    }
    if has('\\' as u32) {
        alternatives.push(Expr::lit("\\\\"));
    }
    if has('/' as u32) {
        alternatives.push(Expr::lit("\\/"));
    }
    for (code, short) in [(8, 'b'), (0xC, 'f'), (0xA, 'n'), (0xD, 'r'), (9, 't')] {
        if has(code) {
            alternatives.push(Expr::lit(format!("\\{short}")));
        }
    }
    // Every control character also as `\u00XX`, hex digits in either case.
    for high in 0..2u32 {
        let lows: Vec<u32> = (0..16).filter(|low| has(high * 16 + low)).collect();
        if lows.is_empty() {
            continue;
        }
        let mut digits: Vec<(char, char)> = Vec::new();
        for low in lows {
            let upper = char::from_digit(low, 16).expect("a hex digit");
            digits.push((upper, upper));
            let capital = upper.to_ascii_uppercase();
            if capital != upper {
                digits.push((capital, capital));
            }
        }
        alternatives.push(Expr::seq([
            Expr::lit(format!("\\u00{high}")),
            Expr::Class(CharClass::of(&digits)),
        ]));
    }
    Expr::alt(alternatives)
}

/// A GBNF class for the ranges, negated where that is shorter.
fn class_of(ranges: &[(u32, u32)]) -> CharClass {
    let to_chars = |ranges: &[(u32, u32)]| -> Vec<(char, char)> {
        ranges
            .iter()
            .filter_map(|&(low, high)| Some((char_at_or_after(low)?, char_at_or_before(high)?)))
            .filter(|(low, high)| low <= high)
            .collect()
    };
    let complement = complement(ranges);
    if complement.len() < ranges.len() {
        CharClass::not(&to_chars(&complement))
    } else {
        CharClass::of(&to_chars(ranges))
    }
}

fn char_at_or_after(code: u32) -> Option<char> {
    char::from_u32(code).or_else(|| char::from_u32(0xE000).filter(|_| code < 0xE000))
}

fn char_at_or_before(code: u32) -> Option<char> {
    char::from_u32(code).or_else(|| char::from_u32(0xD7FF).filter(|_| code > 0xD7FF))
}

/// Sorts and merges ranges; the surrogate block (no character is in it) joins its neighbours.
fn normalize(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    ranges.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (low, high) in ranges {
        if let Some(last) = out.last_mut() {
            let next = if last.1 == 0xD7FF { 0xE000 } else { last.1 + 1 };
            if low <= next {
                last.1 = last.1.max(high);
                continue;
            }
        }
        out.push((low, high));
    }
    out
}

fn complement(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut next = 0u32;
    for &(low, high) in ranges {
        if low > next {
            out.push((next, low - 1));
        }
        next = high.saturating_add(1);
    }
    if next <= MAX_CHAR {
        out.push((next, MAX_CHAR));
    }
    // Without the surrogate block, which holds no character.
    subtract_raw(&out, &[(0xD800, 0xDFFF)])
}

fn subtract(ranges: &[(u32, u32)], remove: &[(u32, u32)]) -> Vec<(u32, u32)> {
    normalize(subtract_raw(ranges, remove))
}

fn subtract_raw(ranges: &[(u32, u32)], remove: &[(u32, u32)]) -> Vec<(u32, u32)> {
    let mut out = ranges.to_vec();
    for &(cut_low, cut_high) in remove {
        let mut next = Vec::with_capacity(out.len() + 1);
        for (low, high) in out {
            if high < cut_low || low > cut_high {
                next.push((low, high));
                continue;
            }
            if low < cut_low {
                next.push((low, cut_low - 1));
            }
            if high > cut_high {
                next.push((cut_high + 1, high));
            }
        }
        out = next;
    }
    out
}

/// `\d`, `\w`, `\s` as the validator reads them.
const DIGIT: &[(u32, u32)] = &[(0x30, 0x39)];
const WORD: &[(u32, u32)] = &[(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)];
const SPACE: &[(u32, u32)] = &[
    (0x09, 0x0D),
    (0x20, 0x20),
    (0xA0, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x205F),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
];
/// What `.` matches: anything but a line terminator.
const LINE_TERMINATORS: &[(u32, u32)] = &[(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)];

fn negate(ranges: &[(u32, u32)]) -> Vec<(u32, u32)> {
    normalize(complement(&normalize(ranges.to_vec())))
}

const UNCOUNTED_BRACE: &str = "the pattern has a `{` that is not a repetition count, which the validator reads differently from ECMA-262";

/// A recursive-descent reader of the pattern.
struct Parser {
    chars: Vec<char>,
    at: usize,
    depth: u32,
}

impl Parser {
    fn new(pattern: &str) -> Parser {
        Parser {
            chars: pattern.chars().collect(),
            at: 0,
            depth: 0,
        }
    }

    fn parse(mut self) -> Result<Node, String> {
        let node = self.alternation()?;
        if self.at < self.chars.len() {
            return Err("the pattern has an unmatched `)`".to_owned());
        }
        Ok(node)
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn eat(&mut self, ch: char) -> bool {
        if self.peek() == Some(ch) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn alternation(&mut self) -> Result<Node, String> {
        let mut branches = vec![self.sequence()?];
        while self.eat('|') {
            branches.push(self.sequence()?);
        }
        Ok(if branches.len() == 1 {
            branches.pop().expect("one branch")
        } else {
            Node::Alt(branches)
        })
    }

    fn sequence(&mut self) -> Result<Node, String> {
        let mut items = Vec::new();
        while let Some(ch) = self.peek() {
            if ch == '|' || ch == ')' {
                break;
            }
            let atom = self.atom()?;
            let atom = self.quantified(atom)?;
            items.push(atom);
        }
        Ok(Node::Seq(items))
    }

    fn quantified(&mut self, atom: Node) -> Result<Node, String> {
        let (min, max) = match self.peek() {
            Some('{') => self.braces()?,
            Some(operator @ ('?' | '*' | '+')) => {
                self.at += 1;
                match operator {
                    '?' => (0, Some(1)),
                    '*' => (0, None),
                    _ => (1, None),
                }
            }
            _ => return Ok(atom),
        };
        if matches!(atom, Node::Start | Node::End | Node::NotAhead(_)) {
            return Err("the pattern repeats an anchor".to_owned());
        }
        // A lazy repetition matches the same strings.
        self.eat('?');
        if matches!(self.peek(), Some('?' | '*' | '+' | '{')) {
            return Err("the pattern repeats a repetition, which the validator refuses".to_owned());
        }
        Ok(Node::Repeat(Box::new(atom), min, max))
    }

    /// `{m}`, `{m,}` or `{m,n}` at the cursor, consumed.
    fn braces(&mut self) -> Result<(u32, Option<u32>), String> {
        self.at += 1;
        let min = self.number();
        let bounds = match (min, self.peek()) {
            (Some(min), Some('}')) => Some((min, Some(min))),
            (Some(min), Some(',')) => {
                self.at += 1;
                let max = self.number();
                (self.peek() == Some('}')).then_some((min, max))
            }
            _ => None,
        };
        let Some((min, max)) = bounds else {
            return Err(UNCOUNTED_BRACE.to_owned());
        };
        self.at += 1;
        if max.is_some_and(|max| max < min) {
            return Err(
                "the pattern has a repetition whose maximum is below its minimum".to_owned(),
            );
        }
        Ok((min, max))
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.at;
        while self.peek().is_some_and(|ch| ch.is_ascii_digit()) {
            self.at += 1;
        }
        if self.at == start {
            return None;
        }
        let digits: String = self.chars[start..self.at].iter().collect();
        // A count past u32 is far past the size bound.
        Some(digits.parse().unwrap_or(u32::MAX))
    }

    fn atom(&mut self) -> Result<Node, String> {
        let ch = self.peek().expect("the caller checked");
        self.at += 1;
        match ch {
            '^' => Ok(Node::Start),
            '$' => Ok(Node::End),
            '.' => Ok(Node::Set(negate(LINE_TERMINATORS))),
            '(' => self.group(),
            '[' => self.class(),
            '\\' => match self.escape(false)? {
                Escaped::Char(code) => Ok(Node::Set(vec![(code, code)])),
                Escaped::Set(ranges) => Ok(Node::Set(ranges)),
            },
            '?' | '*' | '+' => {
                Err("the pattern has a repetition with nothing to repeat".to_owned())
            }
            '{' => Err(UNCOUNTED_BRACE.to_owned()),
            other => Ok(Node::Set(vec![(other as u32, other as u32)])),
        }
    }

    fn group(&mut self) -> Result<Node, String> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(format!(
                "the pattern nests groups more than {MAX_NESTING} deep"
            ));
        }
        if self.eat('?') {
            match self.peek() {
                Some(':') => self.at += 1,
                Some('!') => {
                    self.at += 1;
                    return self.negative_lookahead();
                }
                Some('=') => {
                    return Err(
                        "the pattern has a lookahead, which a grammar cannot express".to_owned(),
                    );
                }
                Some('<') if matches!(self.chars.get(self.at + 1), Some('=' | '!')) => {
                    return Err(
                        "the pattern has a lookbehind, which a grammar cannot express".to_owned(),
                    );
                }
                Some('<') => self.group_name('>')?,
                _ => {
                    return Err(
                        "the pattern has inline flags or a group kind ECMA-262 does not have"
                            .to_owned(),
                    );
                }
            }
        }
        let inner = self.alternation()?;
        if !self.eat(')') {
            return Err("the pattern has an unclosed `(`".to_owned());
        }
        self.depth -= 1;
        Ok(inner)
    }

    /// `(?!...)` after its `!`: kept when it holds fixed characters only (where it may stand is
    /// for the translation to check).
    fn negative_lookahead(&mut self) -> Result<Node, String> {
        let inner = self.alternation()?;
        if !self.eat(')') {
            return Err("the pattern has an unclosed `(`".to_owned());
        }
        self.depth -= 1;
        let items = match inner {
            Node::Seq(items) => items,
            other => vec![other],
        };
        let sets: Option<Vec<Vec<(u32, u32)>>> = items
            .into_iter()
            .map(|item| match item {
                Node::Set(ranges) => Some(ranges),
                _ => None,
            })
            .collect();
        match sets {
            Some(sets) if !sets.is_empty() && sets.len() <= MAX_LOOKAHEAD => {
                Ok(Node::NotAhead(sets))
            }
            _ => Err(
                "the pattern has a lookahead that is not of fixed characters, which the grammar does not translate".to_owned(),
            ),
        }
    }

    fn group_name(&mut self, close: char) -> Result<(), String> {
        self.at += 1;
        while let Some(ch) = self.peek() {
            self.at += 1;
            if ch == close {
                return Ok(());
            }
            if !(ch.is_alphanumeric() || ch == '_') {
                break;
            }
        }
        Err("the pattern has a malformed group name".to_owned())
    }

    /// `[...]` after its `[`.
    fn class(&mut self) -> Result<Node, String> {
        let negated = self.eat('^');
        if self.peek() == Some(']') {
            return Err(
                "the pattern has a class that starts with `]`, which the validator reads differently from ECMA-262".to_owned(),
            );
        }
        let mut ranges: Vec<(u32, u32)> = Vec::new();
        loop {
            let Some(ch) = self.peek() else {
                return Err("the pattern has an unclosed `[`".to_owned());
            };
            self.at += 1;
            if ch == ']' {
                break;
            }
            let low = self.class_atom(ch)?;
            let is_range = self.peek() == Some('-')
                && self.chars.get(self.at + 1).is_some_and(|next| *next != ']');
            match low {
                Escaped::Set(set) => {
                    if is_range {
                        return Err("the pattern has a class range that starts at a class escape such as \\d, which the validator reads differently from ECMA-262".to_owned());
                    }
                    ranges.extend(set);
                }
                Escaped::Char(low) if is_range => {
                    self.at += 1;
                    let next = self.peek().expect("checked above");
                    self.at += 1;
                    let Escaped::Char(high) = self.class_atom(next)? else {
                        return Err("the pattern has a class range that ends at a class escape such as \\d, which the validator reads differently from ECMA-262".to_owned());
                    };
                    if high < low {
                        return Err("the pattern has a class range out of order".to_owned());
                    }
                    ranges.push((low, high));
                }
                Escaped::Char(code) => ranges.push((code, code)),
            }
        }
        let ranges = normalize(ranges);
        Ok(Node::Set(if negated { negate(&ranges) } else { ranges }))
    }

    fn class_atom(&mut self, ch: char) -> Result<Escaped, String> {
        if ch == '\\' {
            self.escape(true)
        } else {
            Ok(Escaped::Char(ch as u32))
        }
    }

    /// The escape after a `\` (inside a class when `in_class`).
    fn escape(&mut self, in_class: bool) -> Result<Escaped, String> {
        let Some(ch) = self.peek() else {
            return Err("the pattern ends with a lone `\\`".to_owned());
        };
        self.at += 1;
        let set = |ranges: &[(u32, u32)]| Ok(Escaped::Set(ranges.to_vec()));
        match ch {
            'd' => set(DIGIT),
            'w' => set(WORD),
            's' => set(SPACE),
            'D' => Ok(Escaped::Set(negate(DIGIT))),
            'W' => Ok(Escaped::Set(negate(WORD))),
            'S' => Ok(Escaped::Set(negate(SPACE))),
            't' => Ok(Escaped::Char(9)),
            'n' => Ok(Escaped::Char(0xA)),
            'v' => Ok(Escaped::Char(0xB)),
            'f' => Ok(Escaped::Char(0xC)),
            'r' => Ok(Escaped::Char(0xD)),
            'b' if in_class => Err("the pattern has \\b inside a class, which the validator reads differently from ECMA-262".to_owned()),
            'b' | 'B' => Err("the pattern has a word boundary (\\b or \\B), which a grammar cannot express".to_owned()),
            '1'..='9' | 'k' => Err("the pattern has a backreference, which a grammar cannot express".to_owned()),
            'p' | 'P' => Err("the pattern has a Unicode property class (\\p or \\P), which the grammar does not translate".to_owned()),
            'c' => match self.peek() {
                Some(letter) if letter.is_ascii_alphabetic() => {
                    self.at += 1;
                    Ok(Escaped::Char(letter as u32 % 32))
                }
                _ => Err("the pattern has a \\c escape without a letter".to_owned()),
            },
            'x' => self.hex(2).map(Escaped::Char),
            'u' if self.peek() == Some('{') => {
                self.at += 1;
                let start = self.at;
                while self.peek().is_some_and(|ch| ch.is_ascii_hexdigit()) {
                    self.at += 1;
                }
                let digits: String = self.chars[start..self.at].iter().collect();
                if !self.eat('}') || digits.is_empty() || digits.len() > 6 {
                    return Err("the pattern has a malformed \\u{...} escape".to_owned());
                }
                code_point(u32::from_str_radix(&digits, 16).unwrap_or(u32::MAX))
            }
            'u' => code_point(self.hex(4)?),
            ch if ch.is_ascii_alphanumeric() => Err(format!(
                "the pattern has the escape \\{ch}, which the grammar does not translate"
            )),
            ch => Ok(Escaped::Char(ch as u32)),
        }
    }

    fn hex(&mut self, count: usize) -> Result<u32, String> {
        let digits: String = self.chars.iter().skip(self.at).take(count).collect();
        if digits.len() != count || !digits.chars().all(|ch| ch.is_ascii_hexdigit()) {
            return Err("the pattern has a malformed hexadecimal escape".to_owned());
        }
        self.at += count;
        Ok(u32::from_str_radix(&digits, 16).expect("hex digits"))
    }
}

fn code_point(code: u32) -> Result<Escaped, String> {
    if char::from_u32(code).is_none() {
        return Err("the pattern escapes a surrogate or a number past the last character, which the validator refuses".to_owned());
    }
    Ok(Escaped::Char(code))
}

/// What an escape stands for.
enum Escaped {
    Char(u32),
    Set(Vec<(u32, u32)>),
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::schema::{gbnf, validate};

    /// The grammar of `{"type": "string", "pattern": pattern}` and the validator agree on every
    /// string: the recognizer accepts its JSON text exactly when the validator accepts it.
    fn agree(pattern: &str, strings: &[&str]) {
        let schema = json!({"type": "string", "pattern": pattern});
        let derived = gbnf::derive(&schema).unwrap();
        assert!(
            derived.notes.is_empty(),
            "{pattern}: {:?}\n{}",
            derived.notes,
            derived.grammar
        );
        let grammar = gbnf::parse(&derived.grammar).unwrap();
        let mut matched = 0;
        for text in strings {
            let valid = validate(&schema, &json!(text)).is_ok();
            let quoted = serde_json::to_string(text).unwrap();
            let recognized = grammar.recognize(&quoted).is_ok();
            assert_eq!(
                recognized, valid,
                "{pattern}: {quoted}: the grammar says {recognized}, the validator {valid}\n{}",
                derived.grammar
            );
            matched += usize::from(valid);
        }
        // Each list holds both matches and misses.
        assert!(matched > 0 && matched < strings.len(), "{pattern}");
    }

    #[test]
    fn the_grammar_and_the_validator_agree_on_each_string() {
        let cases: &[(&str, &[&str])] = &[
            (
                r"^[A-Z]{2,4}-\d{1,5}$",
                &[
                    "AB-1",
                    "ABCD-12345",
                    "A-1",
                    "ABCDE-1",
                    "AB-123456",
                    "ab-1",
                    "AB1",
                    "AB-",
                    "XY-0 ",
                ],
            ),
            (r"abc", &["abc", "xxabcxx", "ab", "a\"bc", "\nabc\n", "ABC"]),
            (r"^abc", &["abc", "abcdef", "xabc", ""]),
            (r"abc$", &["abc", "xyzabc", "abcx", "ab"]),
            (r"^$", &["", " ", "a"]),
            (
                r"^(foo|bar)+$",
                &["foo", "foobar", "barbarfoo", "", "fo", "foob"],
            ),
            (
                r"^(?:a|bc)*d?$",
                &["", "a", "bcad", "abcbcd", "b", "dd", "ad"],
            ),
            (
                r"^(?<year>\d{4})-(?<month>\d\d)$",
                &["2024-01", "2024-1", "20241-01"],
            ),
            (
                r"^[^a-z]*$",
                &["", "ABC", "1-2", "aB", "\"\\", "\u{1F600}", "\n\t"],
            ),
            (r"^\w+$", &["abc_09", "é", "a b", "", "Z"]),
            (r"^\W$", &["-", "a", "_", "é", "\u{0}"]),
            (
                r"^\s*\S+\s*$",
                &[" x ", "\u{a0}x\u{3000}", "x y", "", "\t\n"],
            ),
            (r"^.+$", &["a", "\n", "a\rb", "\u{2028}", "\"\\/"]),
            (r"^[\d.]+$", &["1.2", "..", "1a", ""]),
            (
                r"^[-+]?\d+(\.\d+)?([eE][-+]?\d+)?$",
                &["1", "-1.5e10", "+0.0", "1.", ".5", "1e"],
            ),
            (r#"^["\\/]+$"#, &["\"", "\\", "/", "\"\\/", "a"]),
            (r"^\u0041\x42\cA$", &["AB\u{1}", "AB", "ab\u{1}"]),
            (r"^[\u00e0-\u00ff]{2}$", &["àÿ", "àa", "à"]),
            (r"^\$\{[a-z]+\}$", &["${abc}", "${}", "$abc"]),
            (r"^[\]\[]+$", &["[]", "][", "a"]),
            (
                r"^a{3}b{2,}c{0,1}$",
                &["aaabb", "aaabbbbc", "aabb", "aaab", "aaabbcc"],
            ),
            (r"^a+?b*?$", &["a", "ab", "aabb", "b"]),
            (
                r"^[\x00-\x1f]+$",
                &["\u{0}\u{1f}\n\t\u{8}\u{c}\r", "a", " "],
            ),
            (r"x|^y$", &["x", "axb", "y", "ay", ""]),
            (r"^(a|)$", &["", "a", "aa"]),
            (r"(^a$)", &["a", "ba"]),
            (r"^[a-c-e]$", &["a", "-", "e", "d"]),
            (r"^\.\*\+\?\(\)\|$", &[".*+?()|", "a"]),
            (r"^[😀-😂]$", &["😀", "😁", "😃"]),
            // A leading negative lookahead of fixed characters (JSON Schema Store's
            // browser.i18n keys), anchored at the end or not.
            (
                r"^(?!@@)[@a-zA-Z0-9_-]+$",
                &["@@", "@@x", "@", "@x", "x@@", "a", "", "U a]", "-@"],
            ),
            (r"^(?!ab)", &["", "a", "ab", "abc", "ba", "aab"]),
            (
                r"^(?![0-9]x)\w{1,3}$",
                &["1", "1x", "1xy", "x1", "11x", "a", "abcd"],
            ),
            (r"^(?!a)(a|b)*$", &["", "a", "ab", "b", "ba", "c"]),
        ];
        for (pattern, strings) in cases {
            agree(pattern, strings);
        }
    }

    /// Control characters, quotes and backslashes matched by a pattern are written escaped,
    /// in every form JSON allows for them.
    #[test]
    fn characters_that_json_escapes_are_escaped() {
        let schema = json!({"type": "string", "pattern": r#"^[\n"\\/]$"#});
        let grammar = gbnf::parse(&gbnf::derive(&schema).unwrap().grammar).unwrap();
        for text in [
            r#""\n""#,
            r#""\u000a""#,
            r#""\u000A""#,
            r#""\"""#,
            r#""\\""#,
            r#""/""#,
            r#""\/""#,
        ] {
            assert!(grammar.recognize(text).is_ok(), "{text}");
        }
        for text in ["\"\n\"", r#"""""#, r#""\""#, r#""\t""#] {
            assert!(grammar.recognize(text).is_err(), "{text}");
        }
    }

    #[test]
    fn lengths_are_exact_where_the_pattern_is_one_repeated_set() {
        let schema =
            json!({"type": "string", "pattern": "^[a-z]+$", "minLength": 2, "maxLength": 4});
        let derived = gbnf::derive(&schema).unwrap();
        assert!(derived.notes.is_empty(), "{:?}", derived.notes);
        let grammar = gbnf::parse(&derived.grammar).unwrap();
        for (text, valid) in [("a", false), ("ab", true), ("abcd", true), ("abcde", false)] {
            let quoted = serde_json::to_string(text).unwrap();
            assert_eq!(grammar.recognize(&quoted).is_ok(), valid, "{text}");
            assert_eq!(validate(&schema, &json!(text)).is_ok(), valid, "{text}");
        }
        // Lengths inside what the pattern allows anyway: exact too.
        let schema = json!({"type": "string", "pattern": r"^\d{3}$", "maxLength": 3});
        assert!(gbnf::derive(&schema).unwrap().notes.is_empty());
        // Lengths the pattern's shape cannot count: the pattern wins, with a note.
        let schema = json!({"type": "string", "pattern": "^a+b$", "maxLength": 3});
        let notes = &gbnf::derive(&schema).unwrap().notes;
        assert!(
            notes
                .iter()
                .any(|note| note.keyword.as_deref() == Some("maxLength")),
            "{notes:?}"
        );
    }

    /// What a grammar cannot say exactly keeps a note naming it, and the plain string grammar.
    #[test]
    fn what_cannot_be_translated_is_reported() {
        let cases = [
            (r"^(a)\1$", "backreference"),
            (r"^(?=a)\w$", "lookahead"),
            (r"^a(?!b)\w$", "lookahead"),
            (r"^(?!a+)\w$", "lookahead"),
            (r"(?!a)\w$", "lookahead"),
            (r"^(?!aaaaaaaa)(a?a?a?a?a?a?a?a?a?a?)+$", "lookahead"),
            (r"^(?<!a)b$", "lookbehind"),
            (r"\bword\b", "word boundary"),
            (r"^\p{L}+$", "Unicode property"),
            (r"(?i)^abc$", "inline flags"),
            (r"a^b", "anchor"),
            (r"^a{1,100}{2}$", "repeats a repetition"),
            (r"^x{2,1}$", "below its minimum"),
            (r"^a{,3}$", "not a repetition count"),
            (r"^([a-z]{100}){200}$", "expand to more than"),
            (r"^(a", "unclosed"),
            (r"^(?P<name>a)$", "group kind"),
        ];
        for (pattern, reason) in cases {
            let schema = json!({"type": "string", "pattern": pattern});
            let derived = gbnf::derive(&schema).unwrap();
            let note = derived
                .notes
                .iter()
                .find(|note| note.keyword.as_deref() == Some("pattern"))
                .unwrap_or_else(|| panic!("{pattern}: no note: {:?}", derived.notes));
            assert!(note.reason.contains(reason), "{pattern}: {}", note.reason);
            assert!(
                gbnf::parse(&derived.grammar)
                    .unwrap()
                    .recognize("\"zz\"")
                    .is_ok()
            );
        }
    }

    /// Hostile patterns end in a note, not a crash, and a long one is read in one pass.
    #[test]
    fn hostile_patterns_are_refused_or_read_linearly() {
        let deep = "(".repeat(100_000);
        let note = super::translate(&deep, &super::Expr::Empty).unwrap_err();
        assert!(note.contains("nests groups"), "{note}");
        let words: Vec<String> = (0..5_000).map(|index| format!("w{index}")).collect();
        let long = format!("^({})$", words.join("|"));
        let translated = super::translate(&long, &super::Expr::Empty).unwrap();
        assert_eq!(translated.min_length, 2);
        assert_eq!(translated.max_length, Some(5));
    }

    #[test]
    fn a_pattern_goes_before_a_format_and_implies_a_string() {
        let schema = json!({"type": "string", "format": "date", "pattern": "^x$"});
        let derived = gbnf::derive(&schema).unwrap();
        let grammar = gbnf::parse(&derived.grammar).unwrap();
        assert!(grammar.recognize("\"x\"").is_ok());
        assert!(
            derived
                .notes
                .iter()
                .any(|note| note.keyword.as_deref() == Some("format"))
        );
        let derived = gbnf::derive(&json!({"pattern": "^x$"})).unwrap();
        let grammar = gbnf::parse(&derived.grammar).unwrap();
        assert!(grammar.recognize("\"x\"").is_ok());
        assert!(grammar.recognize("\"y\"").is_err());
        assert!(grammar.recognize("1").is_err());
        let value: Value = json!({"type": "string", "pattern": 5});
        assert!(gbnf::derive(&value).is_err());
    }
}
