//! The grammar under construction: named rules with unique GBNF names, the analyses that
//! remove rules deriving no string and find left recursion, and the final text.
//!
//! Construction is purely structural; [`Builder::finish`] legalises repetitions for llama.cpp
//! ([`super::legalize`]) and renders the text with `root` first.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::expr::{Expr, render_top};
use foldhash::fast::FixedState as FastBuild;

/// A named rule; `body` is `None` until defined.
#[derive(Debug)]
pub(super) struct Rule {
    pub(super) name: String,
    pub(super) body: Option<Expr>,
    /// A shared rule (whitespace, strings, ...): written after the schema's own rules.
    shared: bool,
}

/// Rules by index, with unique names.
#[derive(Debug, Default)]
pub(crate) struct Builder {
    pub(super) rules: Vec<Rule>,
    names: HashMap<String, usize, FastBuild>,
    /// For a sanitized hint whose plain name is taken: the largest `k` such that `hint-2`
    /// through `hint-k` are all taken too (1 when `hint-2` is free), so that the search for a
    /// free name starts after them. Names are never released, so this only grows; without it,
    /// `n` hints that sanitize alike (non-ASCII property names all become `rule`) cost `n²`.
    suffixes: HashMap<String, u64, FastBuild>,
    /// Candidate names looked up by [`Builder::declare`], for the test that keeps it linear.
    #[cfg(test)]
    pub(super) probes: u64,
    /// Chunk rules already made, by operand.
    pub(super) chunks: HashMap<Expr, usize, FastBuild>,
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
        if self.is_free(&base, reserved) {
            return self.declare_exact(&base);
        }
        // `base-2`, `base-3`, ...: the first free one, starting after those known to be taken.
        let known = self.suffixes.get(&base).copied().unwrap_or(1);
        let mut counter = known;
        let candidate = loop {
            counter += 1;
            let candidate = format!("{base}-{counter}");
            if self.is_free(&candidate, reserved) {
                break candidate;
            }
        };
        let index = self.declare_exact(&candidate);
        let mut taken = known;
        while self.names.contains_key(&format!("{base}-{}", taken + 1)) {
            taken += 1;
        }
        self.suffixes.insert(base, taken);
        index
    }

    fn is_free(&mut self, candidate: &str, reserved: &[&str]) -> bool {
        #[cfg(test)]
        {
            self.probes += 1;
        }
        !self.names.contains_key(candidate) && !reserved.contains(&candidate)
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
        let mut pass = 0;
        loop {
            let mut changed = false;
            for index in pass_order(pass, count) {
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
            pass += 1;
        }
        let mut empty = Vec::new();
        if productive.iter().all(|&productive| productive) {
            return empty;
        }
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
        let count = self.rules.len();
        let mut nullable = vec![false; count];
        let mut pass = 0;
        loop {
            let mut changed = false;
            for index in pass_order(pass, count) {
                if !nullable[index]
                    && let Some(body) = &self.rules[index].body
                    && is_nullable(body, &nullable)
                {
                    nullable[index] = true;
                    changed = true;
                }
            }
            if !changed {
                return nullable;
            }
            pass += 1;
        }
    }

    /// Legalises every rule for llama.cpp and renders the grammar: `root` first, then the
    /// schema's rules in the order a reader meets them (depth first from `root`), then the
    /// shared rules. Rules `root` cannot reach are left out.
    pub fn finish(mut self) -> String {
        let mut index = 0;
        // Legalising can add rules (chunks, hoisted groups); they are legalised in turn.
        while index < self.rules.len() {
            if let Some(mut body) = self.rules[index].body.take() {
                let hint = std::mem::take(&mut self.rules[index].name);
                self.legalize(&mut body, &hint);
                self.rules[index].name = hint;
                self.rules[index].body = Some(body);
            }
            index += 1;
        }
        let order = self.reading_order();
        let names: Vec<&str> = self.rules.iter().map(|rule| rule.name.as_str()).collect();
        let mut text = String::new();
        for index in order {
            let rule = &self.rules[index];
            let body = rule.body.as_ref().unwrap_or(&Expr::Never);
            let _ = write!(text, "{} ::= ", rule.name);
            render_top(body, &names, &mut text);
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
}

/// The rule indices in the order of fixpoint pass `pass`: forwards, then backwards, and so on.
/// A rule mostly calls rules declared just before it (an object's members and the chain of its
/// optional tails) or just after it (`$ref` targets, declared where first met); alternating
/// settles a long chain of either kind in a pass or two, where one direction alone would take
/// a pass per link. The least fixpoint does not depend on the order.
fn pass_order(pass: usize, count: usize) -> impl Iterator<Item = usize> {
    (0..count).map(move |step| {
        if pass.is_multiple_of(2) {
            step
        } else {
            count - 1 - step
        }
    })
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn names_that_sanitize_alike_are_found_in_linear_time() {
        // Property names in a script other than Latin all become `rule` (their values) and
        // `kv` (their members): the n-th such name must not try the n - 1 taken ones first,
        // which made 3,000 of them cost about nine million look-ups.
        let count = 3000;
        let mut properties = serde_json::Map::new();
        for index in 0..count {
            let name = char::from_u32(0x4E00 + index).expect("a CJK ideograph");
            properties.insert(
                name.to_string(),
                serde_json::json!({"type": "string", "minLength": 1}),
            );
        }
        let schema = serde_json::json!({"type": "object", "properties": properties});
        let mut deriver =
            super::super::derive::Deriver::new(&schema, super::super::shared::Whitespace::Pretty);
        deriver.run();
        let builder = &deriver.builder;
        let count = count as u64;
        // Two look-ups for each value rule and each member rule, one for each tail rule.
        assert!(
            builder.probes <= 6 * count,
            "{} name look-ups for {count} properties",
            builder.probes
        );
        let names: Vec<&str> = builder
            .rules
            .iter()
            .map(|rule| rule.name.as_str())
            .collect();
        assert!(names.contains(&"rule") && names.contains(&"rule-3000"));
        assert!(names.contains(&"kv") && names.contains(&"kv-3000"));

        // A reserved name is skipped every time without starting the count again.
        let mut builder = Builder::new();
        for _ in 0..count {
            builder.declare("ws", &["ws"]);
        }
        assert_eq!(builder.name(builder.rules.len() - 1), "ws-3001");
        assert!(builder.probes <= 3 * count, "{} look-ups", builder.probes);
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
