//! A parser for llama.cpp's GBNF, with positions in its errors.
//!
//! The syntax follows llama.cpp's `src/llama-grammar.cpp` (`parse_space`, `parse_name`,
//! `parse_char`, `parse_sequence`, `parse_rule`) and `grammars/README.md`: rules
//! `name ::= alternatives`, names of letters, digits and `-`; literals `"..."`; character
//! classes `[...]` / `[^...]` with ranges; `.` for any character; grouping; `*`, `+`, `?`,
//! `{m}`, `{m,}`, `{m,n}`; escapes `\xHH`, `\uHHHH`, `\UHHHHHHHH`, `\t`, `\r`, `\n`, `\\`,
//! `\"`, `\[`, `\]`; `#` comments. A rule ends at a newline, except inside parentheses and
//! after `|`.
//!
//! It refuses what llama.cpp refuses (an undefined rule, no `root`, a repetition past
//! llama.cpp's limit of 2000, left recursion), so a grammar that parses here loads there.
//! It is stricter in three places, each an error rather than a surprise: a rule defined
//! twice (llama.cpp keeps the last), an empty character class (llama.cpp reads it as
//! nothing at all), and token references `<...>`, which need a model's vocabulary.

use std::collections::HashMap;

use super::grammar::{Class, Element, Grammar, Rule, left_recursive};
use super::recognize::Compiled;

/// llama.cpp's `MAX_REPETITION_THRESHOLD`.
const REPETITION_LIMIT: u64 = 2000;

/// How deeply parentheses may nest.
const MAX_NESTING: usize = 256;

/// Why a grammar text is not valid GBNF, and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct GbnfParseError {
    /// Byte offset into the grammar text.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong there.
    pub message: String,
}

/// Parses GBNF text.
pub fn parse(text: &str) -> Result<Grammar, GbnfParseError> {
    let mut parser = Parser {
        text,
        position: 0,
        names: HashMap::new(),
        rules: Vec::new(),
        first_use: Vec::new(),
        symbols: 0,
        nesting: 0,
    };
    parser.grammar()?;
    let mut rules = Vec::with_capacity(parser.rules.len());
    for (index, rule) in parser.rules.into_iter().enumerate() {
        match rule {
            Some(rule) => rules.push(rule),
            None => {
                let name = parser
                    .names
                    .iter()
                    .find(|(_, id)| **id == index)
                    .map(|(name, _)| name.clone())
                    .unwrap_or_default();
                return Err(error_at(
                    text,
                    parser.first_use[index],
                    format!("undefined rule `{name}`"),
                ));
            }
        }
    }
    let Some(&root) = parser.names.get("root") else {
        return Err(error_at(
            text,
            text.len(),
            "the grammar has no `root` rule".into(),
        ));
    };
    if let Some(name) = left_recursive(&rules) {
        let offset = text.find(&format!("{name} ::=")).unwrap_or(0);
        return Err(error_at(
            text,
            offset,
            format!(
                "rule `{name}` is left-recursive (it can reach itself before reading a character), which llama.cpp refuses"
            ),
        ));
    }
    let compiled = Compiled::new(&rules, root);
    Ok(Grammar { rules, compiled })
}

fn error_at(text: &str, offset: usize, message: String) -> GbnfParseError {
    let offset = offset.min(text.len());
    let (line, column) = crate::text::line_column(text, offset);
    GbnfParseError {
        offset,
        line,
        column,
        message,
    }
}

struct Parser<'t> {
    text: &'t str,
    position: usize,
    names: HashMap<String, usize>,
    rules: Vec<Option<Rule>>,
    /// Where each rule was first mentioned, for "undefined rule".
    first_use: Vec<usize>,
    /// Symbols llama.cpp would have created so far (names, groups, repetition rules), for its
    /// repetition limit.
    symbols: u64,
    nesting: usize,
}

type Parsed<T> = Result<T, GbnfParseError>;

impl Parser<'_> {
    fn fail<T>(&self, message: impl Into<String>) -> Parsed<T> {
        Err(error_at(self.text, self.position, message.into()))
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.position).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.text.as_bytes().get(self.position + ahead).copied()
    }

    fn grammar(&mut self) -> Parsed<()> {
        self.space(true);
        while self.peek().is_some() {
            self.rule()?;
        }
        Ok(())
    }

    /// Skips blanks and comments; newlines too when `newlines`.
    fn space(&mut self, newlines: bool) {
        while let Some(byte) = self.peek() {
            match byte {
                b' ' | b'\t' => self.position += 1,
                b'\r' | b'\n' if newlines => self.position += 1,
                b'#' => {
                    while let Some(byte) = self.peek() {
                        if byte == b'\r' || byte == b'\n' {
                            break;
                        }
                        self.position += 1;
                    }
                }
                _ => break,
            }
        }
    }

    fn name(&mut self) -> Parsed<&str> {
        let start = self.position;
        while self
            .peek()
            .is_some_and(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
        {
            self.position += 1;
        }
        if self.position == start {
            return self.fail("expected a rule name");
        }
        Ok(&self.text[start..self.position])
    }

    /// The index for `name`, creating it on first mention.
    fn symbol(&mut self, name: &str, at: usize) -> usize {
        if let Some(&index) = self.names.get(name) {
            return index;
        }
        let index = self.rules.len();
        self.names.insert(name.to_owned(), index);
        self.rules.push(None);
        self.first_use.push(at);
        self.symbols += 1;
        index
    }

    fn rule(&mut self) -> Parsed<()> {
        let start = self.position;
        let name = self.name()?.to_owned();
        let index = self.symbol(&name, start);
        if self.rules[index].is_some() {
            self.position = start;
            return self.fail(format!("rule `{name}` is defined twice"));
        }
        self.space(false);
        if !self.text[self.position..].starts_with("::=") {
            return self.fail("expected `::=`");
        }
        self.position += 3;
        self.space(true);
        let alternatives = self.alternatives(false)?;
        match self.peek() {
            Some(b'\r') => {
                self.position += 1;
                if self.peek() == Some(b'\n') {
                    self.position += 1;
                }
            }
            Some(b'\n') => self.position += 1,
            None => {}
            Some(_) => return self.fail("expected a newline or the end of the grammar"),
        }
        self.space(true);
        self.rules[index] = Some(Rule { name, alternatives });
        Ok(())
    }

    fn alternatives(&mut self, nested: bool) -> Parsed<Vec<Vec<Element>>> {
        let mut alternatives = vec![self.sequence(nested)?];
        while self.peek() == Some(b'|') {
            self.position += 1;
            self.space(true);
            alternatives.push(self.sequence(nested)?);
        }
        Ok(alternatives)
    }

    fn sequence(&mut self, nested: bool) -> Parsed<Vec<Element>> {
        let mut sequence: Vec<Element> = Vec::new();
        // Rules llama.cpp generated for the last element, for its repetition limit.
        let mut previous_rules: u64 = 1;
        // Literals push one element per character; a quantifier applies to all of them.
        let mut last_start = 0;
        while let Some(byte) = self.peek() {
            let element_start = self.position;
            match byte {
                b'"' => {
                    self.position += 1;
                    last_start = sequence.len();
                    loop {
                        match self.peek() {
                            None => return self.fail("unexpected end of the grammar in a literal"),
                            Some(b'"') => break,
                            Some(_) => {
                                let code = self.char()?;
                                sequence.push(Element::Class(Class {
                                    negated: false,
                                    ranges: vec![(code, code)],
                                }));
                            }
                        }
                    }
                    self.position += 1;
                    previous_rules = 1;
                }
                b'[' => {
                    self.position += 1;
                    let negated = self.peek() == Some(b'^');
                    if negated {
                        self.position += 1;
                    }
                    let mut ranges = Vec::new();
                    loop {
                        match self.peek() {
                            None => {
                                return self
                                    .fail("unexpected end of the grammar in a character class");
                            }
                            Some(b']') => break,
                            Some(_) => {
                                let low = self.char()?;
                                let high =
                                    if self.peek() == Some(b'-') && self.peek_at(1) != Some(b']') {
                                        self.position += 1;
                                        if self.peek().is_none() {
                                            return self.fail(
                                            "unexpected end of the grammar in a character class",
                                        );
                                        }
                                        self.char()?
                                    } else {
                                        low
                                    };
                                ranges.push((low, high));
                            }
                        }
                    }
                    if ranges.is_empty() {
                        self.position = element_start;
                        return self.fail("empty character class");
                    }
                    self.position += 1;
                    last_start = sequence.len();
                    sequence.push(Element::Class(Class { negated, ranges }));
                    previous_rules = 1;
                }
                b'<' | b'!' => {
                    return self.fail("token references (`<...>`) need a model vocabulary and are not supported here");
                }
                b'.' => {
                    self.position += 1;
                    last_start = sequence.len();
                    sequence.push(Element::Class(Class {
                        negated: true,
                        ranges: Vec::new(),
                    }));
                    previous_rules = 1;
                }
                b'(' => {
                    self.position += 1;
                    self.nesting += 1;
                    if self.nesting > MAX_NESTING {
                        return self.fail("parentheses nest too deeply");
                    }
                    let before = self.symbols;
                    self.symbols += 1;
                    self.space(true);
                    let group = self.alternatives(true)?;
                    if self.peek() != Some(b')') {
                        return self.fail("expected `)`");
                    }
                    self.position += 1;
                    self.nesting -= 1;
                    previous_rules = (self.symbols - before).max(1);
                    last_start = sequence.len();
                    sequence.push(Element::Group(group));
                }
                b'*' | b'+' | b'?' | b'{' => {
                    let (min, max) = self.quantifier(nested)?;
                    if last_start >= sequence.len() {
                        self.position = element_start;
                        return self
                            .fail("expected something before a repetition (`*`, `+`, `?` or `{`)");
                    }
                    self.check_limits(min, max, previous_rules, element_start)?;
                    let total = match max {
                        Some(max) if max > 0 => max,
                        _ => min.max(1),
                    };
                    previous_rules = previous_rules.saturating_mul(total);
                    self.symbols += max.map_or(1, |max| max - min);
                    let operand: Vec<Element> = sequence.drain(last_start..).collect();
                    let operand = if operand.len() == 1 {
                        operand.into_iter().next().expect("one element")
                    } else {
                        Element::Group(vec![operand])
                    };
                    sequence.push(Element::Repeat(Box::new(operand), min, max));
                    last_start = sequence.len() - 1;
                    self.space(nested);
                    continue;
                }
                byte if byte.is_ascii_alphanumeric() || byte == b'-' => {
                    let name = self.name()?.to_owned();
                    let index = self.symbol(&name, element_start);
                    last_start = sequence.len();
                    sequence.push(Element::Ref(index));
                    previous_rules = 1;
                }
                _ => break,
            }
            self.space(nested);
        }
        Ok(sequence)
    }

    /// Reads `*`, `+`, `?` or `{m}`, `{m,}`, `{m,n}`.
    fn quantifier(&mut self, nested: bool) -> Parsed<(u64, Option<u64>)> {
        let byte = self.peek().expect("a quantifier");
        self.position += 1;
        let (min, max) = match byte {
            b'*' => (0, None),
            b'+' => (1, None),
            b'?' => (0, Some(1)),
            _ => {
                self.space(nested);
                let min = self.integer()?;
                self.space(nested);
                let max = match self.peek() {
                    Some(b'}') => Some(min),
                    Some(b',') => {
                        self.position += 1;
                        self.space(nested);
                        let max = if self.peek().is_some_and(|byte| byte.is_ascii_digit()) {
                            Some(self.integer()?)
                        } else {
                            None
                        };
                        self.space(nested);
                        if self.peek() != Some(b'}') {
                            return self.fail("expected `}`");
                        }
                        max
                    }
                    _ => return self.fail("expected `,` or `}`"),
                };
                self.position += 1;
                (min, max)
            }
        };
        Ok((min, max))
    }

    fn integer(&mut self) -> Parsed<u64> {
        let start = self.position;
        while self.peek().is_some_and(|byte| byte.is_ascii_digit()) {
            self.position += 1;
        }
        if start == self.position {
            return self.fail("expected an integer");
        }
        self.text[start..self.position].parse().or_else(|_| {
            self.position = start;
            self.fail("integer too large")
        })
    }

    /// llama.cpp's limits on repetitions (`parse_sequence`, `MAX_REPETITION_THRESHOLD`).
    fn check_limits(
        &mut self,
        min: u64,
        max: Option<u64>,
        previous_rules: u64,
        at: usize,
    ) -> Parsed<()> {
        let fail = |parser: &mut Self, message: String| {
            parser.position = at;
            parser.fail(message)
        };
        if max.is_some_and(|max| max < min) {
            return fail(
                self,
                format!(
                    "repetition maximum {} is below its minimum {min}",
                    max.unwrap_or(0)
                ),
            );
        }
        if min > REPETITION_LIMIT || max.is_some_and(|max| max > REPETITION_LIMIT) {
            return fail(
                self,
                format!("more than {REPETITION_LIMIT} repetitions, which llama.cpp refuses"),
            );
        }
        let total = match max {
            Some(max) if max > 0 => max,
            _ => min.max(1),
        };
        if previous_rules.saturating_mul(total) >= REPETITION_LIMIT {
            return fail(
                self,
                format!(
                    "this repetition expands to {previous_rules} rules times {total}, past llama.cpp's limit of {REPETITION_LIMIT}; move the repeated part into a rule of its own"
                ),
            );
        }
        Ok(())
    }

    /// One character of a literal or class, with escapes.
    fn char(&mut self) -> Parsed<u32> {
        let rest = &self.text[self.position..];
        let mut chars = rest.chars();
        let first = chars.next().expect("not at the end");
        if first != '\\' {
            self.position += first.len_utf8();
            return Ok(first as u32);
        }
        let Some(kind) = chars.next() else {
            return self.fail("unexpected end of the grammar after `\\`");
        };
        let simple = match kind {
            't' => Some('\t' as u32),
            'r' => Some('\r' as u32),
            'n' => Some('\n' as u32),
            '\\' | '"' | '[' | ']' => Some(kind as u32),
            _ => None,
        };
        if let Some(code) = simple {
            self.position += 2;
            return Ok(code);
        }
        let digits = match kind {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            _ => return self.fail(format!("unknown escape `\\{kind}`")),
        };
        let hex = rest.get(2..2 + digits).unwrap_or("");
        if hex.len() != digits || !hex.bytes().all(|byte| byte.is_ascii_hexdigit()) {
            return self.fail(format!(
                "expected {digits} hexadecimal digits after `\\{kind}`"
            ));
        }
        self.position += 2 + digits;
        Ok(u32::from_str_radix(hex, 16).expect("hex digits"))
    }
}
