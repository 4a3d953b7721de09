//! Recognition: is a text in a grammar's language, and if not, where does it leave it.
//!
//! An Earley recognizer over code points. Rules and groups are ordinary nonterminals;
//! repetitions are nonterminals of their own whose items carry a count (capped at the minimum
//! when there is no maximum), so `x{0,1000}` or `x*` costs one item per position instead of
//! a chain of a thousand rules, and long strings and arrays stay linear. Nullable
//! nonterminals are handled the Aycock–Horspool way (a prediction of a nullable symbol also
//! steps over it). Everything is iterative: no recursion on the input, so deep or long input
//! cannot overflow the stack. Time is cubic in the worst case (an ambiguous grammar) and
//! close to linear for the unambiguous grammars [`derive`](super::derive()) produces; memory is
//! the items that wait for a nonterminal, per position.

use std::collections::HashSet;
use std::fmt;

use serde::Serialize;

use super::grammar::{Class, Element, Grammar, Rule, nullable_rules};
use foldhash::fast::FixedState as FastBuild;

/// A grammar symbol: a terminal set (index into the terminals) or a nonterminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Symbol {
    Terminal(u32),
    Node(u32),
}

#[derive(Debug)]
enum Node {
    Alternatives(Vec<Vec<Symbol>>),
    Repeat {
        inner: Symbol,
        min: u32,
        max: Option<u32>,
    },
}

/// The recognizer's tables for one grammar.
#[derive(Debug)]
pub(crate) struct Compiled {
    nodes: Vec<Node>,
    terminals: Vec<Class>,
    nullable: Vec<bool>,
    root: u32,
}

impl Compiled {
    pub(crate) fn new(rules: &[Rule], root: usize) -> Compiled {
        let mut compiled = Compiled {
            nodes: Vec::with_capacity(rules.len()),
            terminals: Vec::new(),
            nullable: Vec::new(),
            root: root as u32,
        };
        // Rule i is node i; groups and repetitions are appended after them.
        for _ in rules {
            compiled.nodes.push(Node::Alternatives(Vec::new()));
        }
        for (index, rule) in rules.iter().enumerate() {
            let alternatives = rule
                .alternatives
                .iter()
                .map(|sequence| compiled.sequence(sequence))
                .collect();
            compiled.nodes[index] = Node::Alternatives(alternatives);
        }
        compiled.nullable = compiled.nullable_nodes();
        // Rule nullability as the parser computes it must agree.
        debug_assert_eq!(
            nullable_rules(rules),
            compiled.nullable[..rules.len()].to_vec()
        );
        compiled
    }

    fn sequence(&mut self, sequence: &[Element]) -> Vec<Symbol> {
        sequence
            .iter()
            .map(|element| self.symbol(element))
            .collect()
    }

    fn symbol(&mut self, element: &Element) -> Symbol {
        match element {
            Element::Class(class) => {
                let index = match self.terminals.iter().position(|known| known == class) {
                    Some(index) => index,
                    None => {
                        self.terminals.push(class.clone());
                        self.terminals.len() - 1
                    }
                };
                Symbol::Terminal(index as u32)
            }
            Element::Ref(index) => Symbol::Node(*index as u32),
            Element::Group(alternatives) => {
                let compiled = alternatives
                    .iter()
                    .map(|sequence| self.sequence(sequence))
                    .collect();
                self.nodes.push(Node::Alternatives(compiled));
                Symbol::Node((self.nodes.len() - 1) as u32)
            }
            Element::Repeat(inner, min, max) => {
                let inner = self.symbol(inner);
                // The parser caps counts at 2000, so they fit.
                self.nodes.push(Node::Repeat {
                    inner,
                    min: *min as u32,
                    max: max.map(|max| max as u32),
                });
                Symbol::Node((self.nodes.len() - 1) as u32)
            }
        }
    }

    fn nullable_nodes(&self) -> Vec<bool> {
        let mut nullable = vec![false; self.nodes.len()];
        let symbol_nullable = |symbol: &Symbol, nullable: &[bool]| match symbol {
            Symbol::Terminal(_) => false,
            Symbol::Node(node) => nullable[*node as usize],
        };
        loop {
            let mut changed = false;
            for (index, node) in self.nodes.iter().enumerate() {
                if nullable[index] {
                    continue;
                }
                let now = match node {
                    Node::Alternatives(alternatives) => alternatives.iter().any(|sequence| {
                        sequence
                            .iter()
                            .all(|symbol| symbol_nullable(symbol, &nullable))
                    }),
                    Node::Repeat { inner, min, .. } => {
                        *min == 0 || symbol_nullable(inner, &nullable)
                    }
                };
                if now {
                    nullable[index] = true;
                    changed = true;
                }
            }
            if !changed {
                return nullable;
            }
        }
    }
}

/// An Earley item. For an alternatives node: alternative and dot. For a repetition node:
/// `alternative` is the count so far and `dot` is unused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Item {
    node: u32,
    alternative: u32,
    dot: u32,
    origin: u32,
}

type ItemSet = HashSet<Item, FastBuild>;

/// Up to this many items, a set is searched directly instead of hashed.
const LINEAR_SET: usize = 24;

/// Where a text leaves a grammar's language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// Byte offset of the first character that cannot continue the text (the text's length
    /// when it ends too early).
    pub offset: usize,
    /// 1-based line of that position.
    pub line: usize,
    /// 1-based column of that position, in characters.
    pub column: usize,
    /// The character found there; `None` at the end of the text.
    pub found: Option<char>,
    /// What the grammar would have accepted there, in GBNF notation (`"}"`, `[0-9]`), and
    /// `end of input` when the text could have ended there.
    pub expected: Vec<String>,
}

impl Mismatch {
    /// What went wrong, without the position: `unexpected "x"; expected "," or "}"`.
    pub fn reason(&self) -> String {
        let mut out = match self.found {
            Some(found) => {
                let mut quoted = String::new();
                super::expr::render_literal(&found.to_string(), &mut quoted);
                format!("unexpected {quoted}")
            }
            None => "unexpected end of input".to_owned(),
        };
        if !self.expected.is_empty() {
            out.push_str("; expected ");
            const SHOWN: usize = 12;
            for (index, expected) in self.expected.iter().take(SHOWN).enumerate() {
                if index > 0 {
                    out.push_str(if index + 1 == self.expected.len() {
                        " or "
                    } else {
                        ", "
                    });
                }
                out.push_str(expected);
            }
            if self.expected.len() > SHOWN {
                out.push_str(&format!(" (and {} more)", self.expected.len() - SHOWN));
            }
        }
        out
    }
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line,
            self.column,
            self.reason()
        )
    }
}

impl std::error::Error for Mismatch {}

impl Grammar {
    /// `Ok` when the whole of `input` is in the grammar's language (from `root`); otherwise
    /// where and why it leaves it.
    pub fn recognize(&self, input: &str) -> Result<(), Mismatch> {
        Run::new(&self.compiled).recognize(input)
    }
}

struct Run<'g> {
    grammar: &'g Compiled,
    /// The items waiting for a node to complete, as (node, item), position after position:
    /// a position's entries are all added while its set is processed, so they are
    /// contiguous, from `waiting_start[position]` to the next position's start.
    waiting: Vec<(u32, Item)>,
    waiting_start: Vec<usize>,
    /// The next set, filled while scanning (kept to reuse its allocation).
    next: Vec<Item>,
    /// The items of the set being processed.
    current: Vec<Item>,
    seen: ItemSet,
    /// Items of the current set that expect a terminal next: (terminal, item).
    scans: Vec<(u32, Item)>,
    accepted: bool,
}

impl<'g> Run<'g> {
    fn new(grammar: &'g Compiled) -> Run<'g> {
        Run {
            grammar,
            waiting: Vec::new(),
            waiting_start: Vec::new(),
            next: Vec::new(),
            current: Vec::new(),
            seen: ItemSet::default(),
            scans: Vec::new(),
            accepted: false,
        }
    }

    fn recognize(mut self, input: &str) -> Result<(), Mismatch> {
        self.waiting_start.push(0);
        self.predict(self.grammar.root, 0);
        let mut chars = input.char_indices().peekable();
        let mut position: u32 = 0;
        loop {
            self.close(position);
            let Some((offset, found)) = chars.next() else {
                if self.accepted {
                    return Ok(());
                }
                return Err(self.mismatch(input, input.len(), None));
            };
            // Scan into the next set.
            let mut next = std::mem::take(&mut self.next);
            next.clear();
            for &(terminal, item) in &self.scans {
                if self.grammar.terminals[terminal as usize].matches(found as u32) {
                    let advanced = self.advance(item);
                    if !next.contains(&advanced) {
                        next.push(advanced);
                    }
                }
            }
            if next.is_empty() {
                return Err(self.mismatch(input, offset, Some(found)));
            }
            position += 1;
            self.waiting_start.push(self.waiting.len());
            self.seen.clear();
            if next.len() > LINEAR_SET {
                self.seen.extend(next.iter().copied());
            }
            self.next = std::mem::replace(&mut self.current, next);
            self.scans.clear();
            self.accepted = false;
        }
    }

    /// Adds an item to the current set unless it is there already. Small sets (the usual
    /// case) are searched directly; a set that grows past [`LINEAR_SET`] items gets a hash set.
    fn add(&mut self, item: Item) {
        if self.current.len() < LINEAR_SET {
            if !self.current.contains(&item) {
                self.current.push(item);
            }
            return;
        }
        if self.seen.is_empty() {
            self.seen.extend(self.current.iter().copied());
        }
        if self.seen.insert(item) {
            self.current.push(item);
        }
    }

    fn predict(&mut self, node: u32, position: u32) {
        match &self.grammar.nodes[node as usize] {
            Node::Alternatives(alternatives) => {
                for alternative in 0..alternatives.len() {
                    self.add(Item {
                        node,
                        alternative: alternative as u32,
                        dot: 0,
                        origin: position,
                    });
                }
            }
            Node::Repeat { .. } => self.add(Item {
                node,
                alternative: 0,
                dot: 0,
                origin: position,
            }),
        }
    }

    fn advance(&self, item: Item) -> Item {
        match &self.grammar.nodes[item.node as usize] {
            Node::Alternatives(_) => Item {
                dot: item.dot + 1,
                ..item
            },
            Node::Repeat { min, max, .. } => {
                let count = item.alternative + 1;
                // Without a maximum, every count past the minimum behaves the same.
                let count = if max.is_none() {
                    count.min(*min)
                } else {
                    count
                };
                Item {
                    alternative: count,
                    ..item
                }
            }
        }
    }

    /// Predicts and completes until the current set (at `position`) is closed.
    fn close(&mut self, position: u32) {
        let mut index = 0;
        while index < self.current.len() {
            let item = self.current[index];
            index += 1;
            let (next, complete) = match &self.grammar.nodes[item.node as usize] {
                Node::Alternatives(alternatives) => {
                    let sequence = &alternatives[item.alternative as usize];
                    match sequence.get(item.dot as usize) {
                        Some(symbol) => (Some(*symbol), false),
                        None => (None, true),
                    }
                }
                Node::Repeat { inner, min, max } => {
                    let more = max.is_none_or(|max| item.alternative < max);
                    (more.then_some(*inner), item.alternative >= *min)
                }
            };
            match next {
                Some(Symbol::Terminal(terminal)) => self.scans.push((terminal, item)),
                Some(Symbol::Node(node)) => {
                    self.waiting.push((node, item));
                    self.predict(node, position);
                    if self.grammar.nullable[node as usize] {
                        let advanced = self.advance(item);
                        self.add(advanced);
                    }
                }
                None => {}
            }
            if complete {
                self.complete(item);
            }
        }
    }

    fn complete(&mut self, item: Item) {
        if item.node == self.grammar.root && item.origin == 0 {
            self.accepted = true;
        }
        let origin = item.origin as usize;
        let mut index = self.waiting_start[origin];
        // Entries appended for the current position during this loop (when origin is the
        // current position) belong to nullable nodes, whose prediction already stepped over
        // them.
        let end = self
            .waiting_start
            .get(origin + 1)
            .copied()
            .unwrap_or(self.waiting.len());
        while index < end {
            let (node, waiter) = self.waiting[index];
            index += 1;
            if node == item.node {
                let advanced = self.advance(waiter);
                self.add(advanced);
            }
        }
    }

    fn mismatch(&self, input: &str, offset: usize, found: Option<char>) -> Mismatch {
        let (line, column) = crate::text::line_column(input, offset);
        let mut terminals: Vec<u32> = self.scans.iter().map(|(terminal, _)| *terminal).collect();
        terminals.sort_unstable();
        terminals.dedup();
        let mut classes: Vec<&Class> = terminals
            .iter()
            .map(|terminal| &self.grammar.terminals[*terminal as usize])
            .collect();
        classes.sort_by_key(|class| {
            (
                class.negated,
                class.ranges.first().map_or(0, |range| range.0),
            )
        });
        let mut expected: Vec<String> = classes.into_iter().map(describe).collect();
        expected.dedup();
        if self.accepted {
            expected.push("end of input".to_owned());
        }
        Mismatch {
            offset,
            line,
            column,
            found,
            expected,
        }
    }
}

/// A terminal in GBNF notation: `"x"` for one character, `[...]` for a class, `.` for any.
fn describe(class: &Class) -> String {
    let mut out = String::new();
    if class.negated && class.ranges.is_empty() {
        return "any character".to_owned();
    }
    if !class.negated && class.ranges.len() == 1 && class.ranges[0].0 == class.ranges[0].1 {
        let code = class.ranges[0].0;
        match char::from_u32(code) {
            Some(ch) => super::expr::render_literal(&ch.to_string(), &mut out),
            None => out = format!("U+{code:04X}"),
        }
        return out;
    }
    out.push('[');
    if class.negated {
        out.push('^');
    }
    for &(low, high) in &class.ranges {
        push_code(low, &mut out);
        if high != low {
            out.push('-');
            push_code(high, &mut out);
        }
    }
    out.push(']');
    out
}

fn push_code(code: u32, out: &mut String) {
    match char::from_u32(code) {
        Some(ch @ ('\\' | ']' | '[' | '"' | '^' | '-')) => {
            out.push('\\');
            if matches!(ch, '^' | '-') {
                out.push_str(&format!("x{:02X}", ch as u32));
            } else {
                out.push(ch);
            }
        }
        Some('\n') => out.push_str("\\n"),
        Some('\r') => out.push_str("\\r"),
        Some('\t') => out.push_str("\\t"),
        Some(ch) if (' '..='~').contains(&ch) => out.push(ch),
        _ if code < 0x80 => out.push_str(&format!("\\x{code:02X}")),
        _ if code <= 0xFFFF => out.push_str(&format!("\\u{code:04X}")),
        _ => out.push_str(&format!("\\U{code:08X}")),
    }
}
