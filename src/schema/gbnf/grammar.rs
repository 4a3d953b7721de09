//! A parsed GBNF grammar: rules of alternatives of sequences of elements, and the analyses
//! the parser and recognizer share (which rules derive the empty string, which rule is
//! left-recursive).

use super::recognize::Compiled;

/// A set of code points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Class {
    /// Matches what is outside the ranges.
    pub negated: bool,
    /// Inclusive code point ranges; empty and negated for `.`.
    pub ranges: Vec<(u32, u32)>,
}

impl Class {
    /// Whether `code` is in the set.
    pub fn matches(&self, code: u32) -> bool {
        let inside = self
            .ranges
            .iter()
            .any(|&(low, high)| low <= code && code <= high);
        inside != self.negated
    }
}

/// One element of a sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Element {
    /// A code point set (a literal is a sequence of one-point sets).
    Class(Class),
    /// A reference to the rule with this index.
    Ref(usize),
    /// A parenthesised alternation.
    Group(Vec<Vec<Element>>),
    /// An element repeated between `min` and `max` times.
    Repeat(Box<Element>, u64, Option<u64>),
}

/// A parsed rule.
#[derive(Clone, Debug)]
pub(crate) struct Rule {
    pub name: String,
    pub alternatives: Vec<Vec<Element>>,
}

/// A parsed GBNF grammar, ready to recognize input with [`Grammar::recognize`].
#[derive(Debug)]
pub struct Grammar {
    pub(crate) rules: Vec<Rule>,
    pub(crate) compiled: Compiled,
}

impl Grammar {
    /// The rule names, in the order they were first mentioned.
    pub fn rule_names(&self) -> impl Iterator<Item = &str> {
        self.rules.iter().map(|rule| rule.name.as_str())
    }
}

fn element_nullable(element: &Element, nullable: &[bool]) -> bool {
    match element {
        Element::Class(_) => false,
        Element::Ref(index) => nullable[*index],
        Element::Group(alternatives) => alternatives.iter().any(|sequence| {
            sequence
                .iter()
                .all(|element| element_nullable(element, nullable))
        }),
        Element::Repeat(inner, min, _) => *min == 0 || element_nullable(inner, nullable),
    }
}

/// Which rules derive the empty string.
pub(crate) fn nullable_rules(rules: &[Rule]) -> Vec<bool> {
    let mut nullable = vec![false; rules.len()];
    loop {
        let mut changed = false;
        for (index, rule) in rules.iter().enumerate() {
            if !nullable[index]
                && rule.alternatives.iter().any(|sequence| {
                    sequence
                        .iter()
                        .all(|element| element_nullable(element, &nullable))
                })
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

fn first_refs(sequence: &[Element], nullable: &[bool], out: &mut Vec<usize>) {
    for element in sequence {
        match element {
            Element::Class(_) => {}
            Element::Ref(index) => out.push(*index),
            Element::Group(alternatives) => alternatives
                .iter()
                .for_each(|inner| first_refs(inner, nullable, out)),
            Element::Repeat(inner, _, max) => {
                if *max != Some(0) {
                    first_refs(std::slice::from_ref(inner.as_ref()), nullable, out);
                }
            }
        }
        if !element_nullable(element, nullable) {
            break;
        }
    }
}

/// A rule that can reach itself before reading a character, if any.
pub(crate) fn left_recursive(rules: &[Rule]) -> Option<String> {
    let nullable = nullable_rules(rules);
    let edges: Vec<Vec<usize>> = rules
        .iter()
        .map(|rule| {
            let mut out = Vec::new();
            for sequence in &rule.alternatives {
                first_refs(sequence, &nullable, &mut out);
            }
            out
        })
        .collect();
    let mut state = vec![0u8; rules.len()];
    for start in 0..rules.len() {
        if state[start] != 0 {
            continue;
        }
        state[start] = 1;
        let mut stack = vec![(start, 0usize)];
        while let Some((node, next)) = stack.pop() {
            if let Some(&target) = edges[node].get(next) {
                stack.push((node, next + 1));
                match state[target] {
                    0 => {
                        state[target] = 1;
                        stack.push((target, 0));
                    }
                    1 => return Some(rules[target].name.clone()),
                    _ => {}
                }
            } else {
                state[node] = 2;
            }
        }
    }
    None
}
