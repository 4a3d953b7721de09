//! The grammar under construction: expressions, named rules, the pass that keeps every
//! repetition inside llama.cpp's limits, and rendering to GBNF text.
//!
//! Construction is purely structural; [`Builder::finish`] then removes rules that derive no
//! string, legalises repetitions and renders the text with `root` first.
//!
//! llama.cpp limits this module respects (`src/llama-grammar.cpp`, `parse_sequence`): a
//! repetition count above `MAX_REPETITION_THRESHOLD` (2000) is refused, and so is a repetition
//! whose operand, counted in rules the parser generates for it, times the count reaches 2000.
//! Counts above [`CHUNK`] are therefore split into repetitions of a rule that matches
//! [`CHUNK`] copies, and a group whose rule count times its repetition would come near the
//! limit is moved into a rule of its own (a rule reference counts as one).

use std::collections::HashMap;
use std::fmt::Write as _;

/// The largest count a single `{m,n}` is given; larger counts are built from chunks.
pub(crate) const CHUNK: u64 = 1000;

/// llama.cpp refuses a repetition when (rules in its operand) × (count) reaches 2000; this
/// keeps a margin below that.
const RULE_BUDGET: u64 = 1000;

/// One set of characters, as a GBNF character class.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct CharClass {
    /// `[^...]` when true.
    pub negated: bool,
    /// Inclusive ranges.
    pub ranges: Vec<(char, char)>,
}

impl CharClass {
    /// A class of the given inclusive ranges.
    pub fn of(ranges: &[(char, char)]) -> CharClass {
        CharClass {
            negated: false,
            ranges: ranges.to_vec(),
        }
    }

    /// A class of everything outside the given ranges.
    pub fn not(ranges: &[(char, char)]) -> CharClass {
        CharClass {
            negated: true,
            ranges: ranges.to_vec(),
        }
    }
}

/// A grammar expression over code points.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Expr {
    /// Matches nothing at all (the empty language).
    Never,
    /// Matches the empty string.
    Empty,
    /// Matches exactly this text.
    Literal(String),
    /// Matches one character of the class.
    Class(CharClass),
    /// Matches what the rule with this index matches.
    Ref(usize),
    /// Each in turn.
    Seq(Vec<Expr>),
    /// Any one of them.
    Alt(Vec<Expr>),
    /// The operand between `min` and `max` times (`None`: no upper bound).
    Repeat(Box<Expr>, u64, Option<u64>),
}

impl Expr {
    /// Exactly this text.
    pub fn lit(text: impl Into<String>) -> Expr {
        let text = text.into();
        if text.is_empty() {
            Expr::Empty
        } else {
            Expr::Literal(text)
        }
    }

    /// The concatenation; `Never` anywhere makes the whole `Never`.
    pub fn seq(items: impl IntoIterator<Item = Expr>) -> Expr {
        let mut out: Vec<Expr> = Vec::new();
        for item in items {
            match item {
                Expr::Never => return Expr::Never,
                Expr::Empty => {}
                Expr::Seq(inner) => out.extend(inner),
                Expr::Literal(text) => match out.last_mut() {
                    // Adjacent literals read better as one.
                    Some(Expr::Literal(previous)) => previous.push_str(&text),
                    _ => out.push(Expr::Literal(text)),
                },
                other => out.push(other),
            }
        }
        match out.len() {
            0 => Expr::Empty,
            1 => out.pop().expect("one item"),
            _ => Expr::Seq(out),
        }
    }

    /// The alternation; `Never` alternatives disappear, an empty alternative makes the rest
    /// optional, and duplicates are dropped.
    pub fn alt(items: impl IntoIterator<Item = Expr>) -> Expr {
        let mut out: Vec<Expr> = Vec::new();
        let mut nullable = false;
        for item in items {
            match item {
                Expr::Never => {}
                Expr::Empty => nullable = true,
                Expr::Alt(inner) => {
                    for expr in inner {
                        if !out.contains(&expr) {
                            out.push(expr);
                        }
                    }
                }
                other => {
                    if !out.contains(&other) {
                        out.push(other);
                    }
                }
            }
        }
        let body = match out.len() {
            0 => {
                return if nullable { Expr::Empty } else { Expr::Never };
            }
            1 => out.pop().expect("one item"),
            _ => Expr::Alt(out),
        };
        if nullable { Expr::optional(body) } else { body }
    }

    /// Between `min` and `max` repetitions of `inner`.
    pub fn repeat(inner: Expr, min: u64, max: Option<u64>) -> Expr {
        if max.is_some_and(|max| max < min) {
            return Expr::Never;
        }
        match inner {
            Expr::Never if min == 0 => Expr::Empty,
            Expr::Never => Expr::Never,
            Expr::Empty => Expr::Empty,
            _ if max == Some(0) => Expr::Empty,
            inner if min == 1 && max == Some(1) => inner,
            inner => Expr::Repeat(Box::new(inner), min, max),
        }
    }

    /// Zero or one `inner`.
    pub fn optional(inner: Expr) -> Expr {
        Expr::repeat(inner, 0, Some(1))
    }

    /// Whether this renders without parentheses as the operand of a repetition.
    fn is_atom(&self) -> bool {
        matches!(
            self,
            Expr::Literal(_) | Expr::Class(_) | Expr::Ref(_) | Expr::Empty
        )
    }
}

/// A named rule; `body` is `None` until defined.
#[derive(Debug)]
struct Rule {
    name: String,
    body: Option<Expr>,
    /// A shared rule (whitespace, strings, ...): written after the schema's own rules.
    shared: bool,
}

/// Rules by index, with unique names.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    rules: Vec<Rule>,
    names: HashMap<String, usize>,
    /// Chunk rules already made, by (operand, chunk size).
    chunks: HashMap<Expr, usize>,
}

impl Builder {
    /// A new builder whose rule 0 is `root`.
    pub fn new() -> Builder {
        let mut builder = Builder::default();
        builder.declare_exact("root");
        builder
    }

    /// Declares a rule named exactly `name` (which must be free) and returns its index.
    pub fn declare_exact(&mut self, name: &str) -> usize {
        assert!(!self.names.contains_key(name), "rule {name} declared twice");
        let index = self.rules.len();
        self.rules.push(Rule {
            name: name.to_owned(),
            body: None,
            shared: false,
        });
        self.names.insert(name.to_owned(), index);
        index
    }

    /// Declares a shared rule named exactly `name`; shared rules are written last.
    pub fn declare_shared(&mut self, name: &str) -> usize {
        let index = self.declare_exact(name);
        self.rules[index].shared = true;
        index
    }

    /// Declares a rule named after `hint` (made a valid, unused GBNF name) and returns its
    /// index. `reserved` names are never handed out, so shared rules keep their names.
    pub fn declare(&mut self, hint: &str, reserved: &[&str]) -> usize {
        let base = sanitize(hint);
        let mut candidate = base.clone();
        let mut counter = 1;
        while self.names.contains_key(&candidate) || reserved.contains(&candidate.as_str()) {
            counter += 1;
            candidate = format!("{base}-{counter}");
        }
        self.declare_exact(&candidate)
    }

    /// Gives rule `index` its body.
    pub fn define(&mut self, index: usize, body: Expr) {
        self.rules[index].body = Some(body);
    }

    /// The name of rule `index`.
    #[cfg(test)]
    pub fn name(&self, index: usize) -> &str {
        &self.rules[index].name
    }

    /// Whether rule 0 (`root`) derives at least one string, after [`Builder::prune`].
    pub fn root_is_productive(&self) -> bool {
        !matches!(self.rules[0].body, Some(Expr::Never) | None)
    }

    /// Replaces references to rules that derive no string by `Never` and simplifies, until
    /// nothing changes. Returns the names of the rules found empty.
    pub fn prune(&mut self) -> Vec<String> {
        let count = self.rules.len();
        // Least fixpoint of "derives some string".
        let mut productive = vec![false; count];
        loop {
            let mut changed = false;
            for index in 0..count {
                if !productive[index]
                    && let Some(body) = &self.rules[index].body
                    && derives_something(body, &productive)
                {
                    productive[index] = true;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let mut empty = Vec::new();
        for index in 0..count {
            if !productive[index] {
                empty.push(self.rules[index].name.clone());
                self.rules[index].body = Some(Expr::Never);
            } else if let Some(body) = self.rules[index].body.take() {
                self.rules[index].body = Some(without_unproductive(body, &productive));
            }
        }
        empty
    }

    /// A rule that calls itself before consuming a character, if any: llama.cpp refuses such
    /// grammars. Call after [`Builder::prune`].
    pub fn left_recursive_rule(&self) -> Option<String> {
        let count = self.rules.len();
        let nullable = self.nullable_rules();
        // Edges: rule -> rules it can call at its first position.
        let edges: Vec<Vec<usize>> = (0..count)
            .map(|index| {
                let mut out = Vec::new();
                if let Some(body) = &self.rules[index].body {
                    first_calls(body, &nullable, &mut out);
                }
                out
            })
            .collect();
        // Iterative depth-first search for a cycle.
        let mut state = vec![0u8; count]; // 0 new, 1 on stack, 2 done
        for start in 0..count {
            if state[start] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            state[start] = 1;
            while let Some((node, next)) = stack.pop() {
                if next < edges[node].len() {
                    stack.push((node, next + 1));
                    let target = edges[node][next];
                    match state[target] {
                        0 => {
                            state[target] = 1;
                            stack.push((target, 0));
                        }
                        1 => return Some(self.rules[target].name.clone()),
                        _ => {}
                    }
                } else {
                    state[node] = 2;
                }
            }
        }
        None
    }

    fn nullable_rules(&self) -> Vec<bool> {
        let mut nullable = vec![false; self.rules.len()];
        loop {
            let mut changed = false;
            for (index, rule) in self.rules.iter().enumerate() {
                if !nullable[index]
                    && let Some(body) = &rule.body
                    && is_nullable(body, &nullable)
                {
                    nullable[index] = true;
                    changed = true;
                }
            }
            if !changed {
                return nullable;
            }
        }
    }

    /// Legalises every rule for llama.cpp and renders the grammar: `root` first, then the
    /// schema's rules in the order a reader meets them (depth first from `root`), then the
    /// shared rules. Rules `root` cannot reach are left out.
    pub fn finish(mut self) -> String {
        let mut index = 0;
        // Legalising can add rules (chunks, hoisted groups); they are legalised in turn.
        while index < self.rules.len() {
            if let Some(body) = self.rules[index].body.take() {
                let hint = self.rules[index].name.clone();
                let legal = self.legalize(body, &hint);
                self.rules[index].body = Some(legal);
            }
            index += 1;
        }
        let order = self.reading_order();
        let mut text = String::new();
        for index in order {
            let rule = &self.rules[index];
            let body = rule.body.as_ref().unwrap_or(&Expr::Never);
            let _ = write!(text, "{} ::= ", rule.name);
            render_top(body, &self.rules, &mut text);
            text.push('\n');
        }
        text
    }

    /// Depth-first preorder from `root` over rule references, shared rules last.
    fn reading_order(&self) -> Vec<usize> {
        let mut seen = vec![false; self.rules.len()];
        let mut order = Vec::new();
        let mut stack = vec![0usize];
        seen[0] = true;
        while let Some(index) = stack.pop() {
            order.push(index);
            let mut refs = Vec::new();
            if let Some(body) = &self.rules[index].body {
                collect_refs(body, &mut refs);
            }
            // Reversed, so the first reference is visited first.
            for &target in refs.iter().rev() {
                if !seen[target] {
                    seen[target] = true;
                    stack.push(target);
                }
            }
        }
        let (mut own, shared): (Vec<usize>, Vec<usize>) = order
            .into_iter()
            .partition(|&index| !self.rules[index].shared);
        let mut shared = shared;
        shared.sort_unstable();
        own.extend(shared);
        own
    }

    /// Rewrites `expr` so that every repetition stays inside llama.cpp's limits.
    fn legalize(&mut self, expr: Expr, hint: &str) -> Expr {
        match expr {
            Expr::Seq(items) => Expr::Seq(
                items
                    .into_iter()
                    .map(|item| self.legalize(item, hint))
                    .collect(),
            ),
            Expr::Alt(items) => Expr::Alt(
                items
                    .into_iter()
                    .map(|item| self.legalize(item, hint))
                    .collect(),
            ),
            Expr::Repeat(inner, min, max) => {
                let inner = self.legalize(*inner, hint);
                self.legal_repeat(inner, min, max, hint)
            }
            other => other,
        }
    }

    fn legal_repeat(&mut self, inner: Expr, min: u64, max: Option<u64>, hint: &str) -> Expr {
        let big = min > CHUNK || max.is_some_and(|max| max > CHUNK);
        let total = match max {
            Some(max) if max > 0 => max,
            _ => min.max(1),
        };
        let operand_rules = if inner.is_atom() {
            1
        } else {
            1 + generated_rules(&inner)
        };
        let inner =
            if (big && !inner.is_atom()) || operand_rules.saturating_mul(total) >= RULE_BUDGET {
                self.hoist(inner, hint)
            } else {
                inner
            };
        if !big {
            return Expr::Repeat(Box::new(inner), min, max);
        }
        // inner is an atom here.
        let exact = self.exactly(&inner, min, hint);
        let rest = match max {
            None => Expr::Repeat(Box::new(inner), 0, None),
            Some(max) => self.up_to(&inner, max - min, hint),
        };
        Expr::seq([exact, rest])
    }

    /// Exactly `count` copies of the atom `atom`.
    fn exactly(&mut self, atom: &Expr, count: u64, hint: &str) -> Expr {
        if count <= CHUNK {
            return Expr::repeat(atom.clone(), count, Some(count));
        }
        let chunk = self.chunk_rule(atom, hint);
        let whole = self.exactly(&Expr::Ref(chunk), count / CHUNK, hint);
        Expr::seq([
            whole,
            Expr::repeat(atom.clone(), count % CHUNK, Some(count % CHUNK)),
        ])
    }

    /// Between zero and `count` copies of the atom `atom`, as a rule reference when chunked.
    fn up_to(&mut self, atom: &Expr, count: u64, hint: &str) -> Expr {
        if count <= CHUNK {
            return Expr::repeat(atom.clone(), 0, Some(count));
        }
        // A length below q·CHUNK is (a < q whole chunks, then fewer than CHUNK); a length from
        // q·CHUNK to count is (q chunks, then at most the remainder). The two are disjoint.
        let chunk = self.chunk_rule(atom, hint);
        let quotient = count / CHUNK;
        let remainder = count % CHUNK;
        let below = Expr::seq([
            self.up_to(&Expr::Ref(chunk), quotient - 1, hint),
            Expr::repeat(atom.clone(), 0, Some(CHUNK - 1)),
        ]);
        let above = Expr::seq([
            self.exactly(&Expr::Ref(chunk), quotient, hint),
            Expr::repeat(atom.clone(), 0, Some(remainder)),
        ]);
        let body = Expr::alt([below, above]);
        let body = self.legalize(body, hint);
        let index = self.declare(&format!("{hint}-upto-{count}"), &[]);
        self.define(index, body);
        Expr::Ref(index)
    }

    /// The rule matching exactly [`CHUNK`] copies of `atom`.
    fn chunk_rule(&mut self, atom: &Expr, hint: &str) -> usize {
        if let Some(&index) = self.chunks.get(atom) {
            return index;
        }
        let base = match atom {
            Expr::Ref(index) => self.rules[*index].name.clone(),
            _ => hint.to_owned(),
        };
        let index = self.declare(&format!("{base}-x{CHUNK}"), &[]);
        self.define(
            index,
            Expr::Repeat(Box::new(atom.clone()), CHUNK, Some(CHUNK)),
        );
        self.chunks.insert(atom.clone(), index);
        index
    }

    /// Moves `expr` into a rule of its own and returns a reference to it.
    fn hoist(&mut self, expr: Expr, hint: &str) -> Expr {
        if expr.is_atom() {
            return expr;
        }
        let index = self.declare(&format!("{hint}-part"), &[]);
        self.define(index, expr);
        Expr::Ref(index)
    }
}

/// How many rules llama.cpp's parser creates (or may create, for a first mention of a rule
/// name) for `expr` written inside a group.
fn generated_rules(expr: &Expr) -> u64 {
    match expr {
        Expr::Never | Expr::Empty | Expr::Literal(_) | Expr::Class(_) => 0,
        Expr::Ref(_) => 1,
        Expr::Seq(items) => items.iter().map(nested_rules).sum(),
        Expr::Alt(items) => items.iter().map(generated_rules).sum(),
        Expr::Repeat(inner, min, max) => {
            let optional = match max {
                None => 1,
                Some(max) => max - min,
            };
            nested_rules(inner) + optional
        }
    }
}

/// Like [`generated_rules`], for an expression that appears as one element of a sequence:
/// an alternation there is a parenthesised group, which is a rule of its own.
fn nested_rules(expr: &Expr) -> u64 {
    match expr {
        Expr::Alt(_) | Expr::Seq(_) => 1 + generated_rules(expr),
        other => generated_rules(other),
    }
}

fn derives_something(expr: &Expr, productive: &[bool]) -> bool {
    match expr {
        Expr::Never => false,
        Expr::Empty | Expr::Literal(_) | Expr::Class(_) => true,
        Expr::Ref(index) => productive[*index],
        Expr::Seq(items) => items.iter().all(|item| derives_something(item, productive)),
        Expr::Alt(items) => items.iter().any(|item| derives_something(item, productive)),
        Expr::Repeat(inner, min, _) => *min == 0 || derives_something(inner, productive),
    }
}

fn without_unproductive(expr: Expr, productive: &[bool]) -> Expr {
    match expr {
        Expr::Ref(index) if !productive[index] => Expr::Never,
        Expr::Seq(items) => Expr::seq(
            items
                .into_iter()
                .map(|item| without_unproductive(item, productive)),
        ),
        Expr::Alt(items) => Expr::alt(
            items
                .into_iter()
                .map(|item| without_unproductive(item, productive)),
        ),
        Expr::Repeat(inner, min, max) => {
            Expr::repeat(without_unproductive(*inner, productive), min, max)
        }
        other => other,
    }
}

fn is_nullable(expr: &Expr, nullable: &[bool]) -> bool {
    match expr {
        Expr::Never | Expr::Literal(_) | Expr::Class(_) => false,
        Expr::Empty => true,
        Expr::Ref(index) => nullable[*index],
        Expr::Seq(items) => items.iter().all(|item| is_nullable(item, nullable)),
        Expr::Alt(items) => items.iter().any(|item| is_nullable(item, nullable)),
        Expr::Repeat(inner, min, _) => *min == 0 || is_nullable(inner, nullable),
    }
}

/// The rules `expr` can call before it consumes a character.
fn first_calls(expr: &Expr, nullable: &[bool], out: &mut Vec<usize>) {
    match expr {
        Expr::Ref(index) => out.push(*index),
        Expr::Seq(items) => {
            for item in items {
                first_calls(item, nullable, out);
                if !is_nullable(item, nullable) {
                    break;
                }
            }
        }
        Expr::Alt(items) => items
            .iter()
            .for_each(|item| first_calls(item, nullable, out)),
        Expr::Repeat(inner, _, max) if *max != Some(0) => first_calls(inner, nullable, out),
        _ => {}
    }
}

fn collect_refs(expr: &Expr, out: &mut Vec<usize>) {
    match expr {
        Expr::Ref(index) => out.push(*index),
        Expr::Seq(items) | Expr::Alt(items) => {
            items.iter().for_each(|item| collect_refs(item, out))
        }
        Expr::Repeat(inner, _, _) => collect_refs(inner, out),
        _ => {}
    }
}

/// Makes `hint` a GBNF rule name: letters, digits and dashes, never empty.
fn sanitize(hint: &str) -> String {
    let mut out = String::with_capacity(hint.len());
    for ch in hint.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    if out.is_empty() {
        out.push_str("rule");
    }
    out
}

/// Renders a rule body: a top-level alternation needs no parentheses.
fn render_top(expr: &Expr, rules: &[Rule], out: &mut String) {
    match expr {
        Expr::Alt(items) => {
            for (position, item) in items.iter().enumerate() {
                if position > 0 {
                    out.push_str(" | ");
                }
                render_sequence_item(item, rules, out, true);
            }
        }
        other => render_sequence_item(other, rules, out, true),
    }
}

/// Renders `expr` where it stands as one element of a sequence (or, `top`, as a whole
/// alternative, where a sequence needs no parentheses).
fn render_sequence_item(expr: &Expr, rules: &[Rule], out: &mut String, top: bool) {
    match expr {
        // A rule that can match nothing: a character class no character is in. Only reached
        // for a grammar whose root is productive but that keeps an empty rule around, which
        // pruning prevents; kept valid GBNF regardless.
        Expr::Never => out.push_str("[^\\x00-\\U0010FFFF]"),
        Expr::Empty => out.push_str("\"\""),
        Expr::Literal(text) => render_literal(text, out),
        Expr::Class(class) => render_class(class, out),
        Expr::Ref(index) => out.push_str(&rules[*index].name),
        Expr::Seq(items) => {
            if !top {
                out.push('(');
            }
            for (position, item) in items.iter().enumerate() {
                if position > 0 {
                    out.push(' ');
                }
                render_sequence_item(item, rules, out, false);
            }
            if !top {
                out.push(')');
            }
        }
        Expr::Alt(_) => {
            out.push('(');
            render_top(expr, rules, out);
            out.push(')');
        }
        Expr::Repeat(inner, min, max) => {
            if inner.is_atom() {
                render_sequence_item(inner, rules, out, false);
            } else {
                out.push('(');
                render_top(inner, rules, out);
                out.push(')');
            }
            match (min, max) {
                (0, Some(1)) => out.push('?'),
                (0, None) => out.push('*'),
                (1, None) => out.push('+'),
                (min, None) => {
                    let _ = write!(out, "{{{min},}}");
                }
                (min, Some(max)) if min == max => {
                    let _ = write!(out, "{{{min}}}");
                }
                (min, Some(max)) => {
                    let _ = write!(out, "{{{min},{max}}}");
                }
            }
        }
    }
}

/// A GBNF string literal; everything outside printable ASCII is escaped, so the grammar text
/// is plain ASCII.
pub(crate) fn render_literal(text: &str, out: &mut String) {
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            _ => push_char(ch, out),
        }
    }
    out.push('"');
}

fn render_class(class: &CharClass, out: &mut String) {
    out.push('[');
    if class.negated {
        out.push('^');
    }
    for &(low, high) in &class.ranges {
        push_class_char(low, out);
        if high != low {
            out.push('-');
            push_class_char(high, out);
        }
    }
    out.push(']');
}

fn push_class_char(ch: char, out: &mut String) {
    match ch {
        '\\' => out.push_str("\\\\"),
        ']' => out.push_str("\\]"),
        '[' => out.push_str("\\["),
        '"' => out.push_str("\\\""),
        '^' | '-' => {
            let _ = write!(out, "\\x{:02X}", ch as u32);
        }
        _ => push_char(ch, out),
    }
}

fn push_char(ch: char, out: &mut String) {
    match ch {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        ' '..='~' => out.push(ch),
        _ if (ch as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02X}", ch as u32);
        }
        _ if (ch as u32) <= 0xFFFF => {
            let _ = write!(out, "\\u{:04X}", ch as u32);
        }
        _ => {
            let _ = write!(out, "\\U{:08X}", ch as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smart_constructors_simplify() {
        assert_eq!(Expr::seq([Expr::lit("a"), Expr::Never]), Expr::Never);
        assert_eq!(
            Expr::seq([Expr::lit("a"), Expr::Empty, Expr::lit("b")]),
            Expr::lit("ab")
        );
        assert_eq!(Expr::alt([Expr::Never, Expr::lit("a")]), Expr::lit("a"));
        assert_eq!(
            Expr::alt([Expr::Empty, Expr::lit("a")]),
            Expr::Repeat(Box::new(Expr::lit("a")), 0, Some(1))
        );
        assert_eq!(Expr::repeat(Expr::Never, 0, Some(3)), Expr::Empty);
        assert_eq!(Expr::repeat(Expr::lit("a"), 2, Some(1)), Expr::Never);
    }

    #[test]
    fn names_are_sanitized_and_unique() {
        let mut builder = Builder::new();
        let first = builder.declare("my_field", &[]);
        let second = builder.declare("my field", &[]);
        let third = builder.declare("ws", &["ws"]);
        let fourth = builder.declare("€", &[]);
        assert_eq!(builder.name(first), "my-field");
        assert_eq!(builder.name(second), "my-field-2");
        assert_eq!(builder.name(third), "ws-2");
        assert_eq!(builder.name(fourth), "rule");
    }

    #[test]
    fn big_repetitions_are_chunked() {
        let mut builder = Builder::new();
        let item = builder.declare("item", &[]);
        builder.define(item, Expr::lit("x"));
        builder.define(0, Expr::repeat(Expr::Ref(item), 0, Some(2500)));
        let text = builder.finish();
        assert_eq!(
            text,
            "root ::= root-upto-2500\n\
             root-upto-2500 ::= item-x1000? item{0,999} | item-x1000{2} item{0,500}\n\
             item-x1000 ::= item{1000}\n\
             item ::= \"x\"\n"
        );
    }

    #[test]
    fn heavy_groups_are_hoisted() {
        let mut builder = Builder::new();
        let item = builder.declare("item", &[]);
        builder.define(item, Expr::lit("x"));
        let group = Expr::seq([Expr::lit(","), Expr::Ref(item)]);
        builder.define(0, Expr::repeat(group, 0, Some(999)));
        let text = builder.finish();
        assert_eq!(
            text,
            "root ::= root-part{0,999}\nroot-part ::= \",\" item\nitem ::= \"x\"\n"
        );
    }

    #[test]
    fn literals_and_classes_are_escaped() {
        let mut out = String::new();
        render_literal("a\"\\\n\u{1}é😀", &mut out);
        assert_eq!(out, r#""a\"\\\n\x01\u00E9\U0001F600""#);
        let mut out = String::new();
        render_class(
            &CharClass::not(&[('"', '"'), ('\\', '\\'), ('\0', '\u{1f}')]),
            &mut out,
        );
        assert_eq!(out, r#"[^\"\\\x00-\x1F]"#);
        let mut out = String::new();
        render_class(
            &CharClass::of(&[('-', '-'), ('^', '^'), (']', ']')]),
            &mut out,
        );
        assert_eq!(out, r"[\x2D\x5E\]]");
    }

    #[test]
    fn pruning_and_left_recursion() {
        let mut builder = Builder::new();
        let dead = builder.declare("dead", &[]);
        builder.define(dead, Expr::seq([Expr::lit("a"), Expr::Ref(dead)]));
        builder.define(0, Expr::alt([Expr::Ref(dead), Expr::lit("b")]));
        assert_eq!(builder.prune(), vec!["dead".to_owned()]);
        assert!(builder.root_is_productive());
        assert_eq!(builder.left_recursive_rule(), None);
        assert_eq!(builder.finish(), "root ::= \"b\"\n");

        let mut builder = Builder::new();
        let list = builder.declare("list", &[]);
        builder.define(
            list,
            Expr::alt([Expr::seq([Expr::Ref(list), Expr::lit("a")]), Expr::lit("a")]),
        );
        builder.define(0, Expr::Ref(list));
        builder.prune();
        assert_eq!(builder.left_recursive_rule(), Some("list".to_owned()));
    }
}
