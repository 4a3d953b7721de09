//! Grammar expressions over code points, with constructors that simplify as they build
//! (`Never` for the empty language, `Empty` for the empty string), and their rendering as
//! llama.cpp GBNF text.

use std::fmt::Write as _;

use crate::schema::distinct::Distinct;

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
        // An object whose properties are all optional has one alternative per property, and an
        // enum one per value: the duplicate check must not be a linear search.
        let mut distinct: Distinct<Expr> = Distinct::new();
        let mut nullable = false;
        for item in items {
            match item {
                Expr::Never => {}
                Expr::Empty => nullable = true,
                Expr::Alt(inner) => {
                    for expr in inner {
                        distinct.insert(expr);
                    }
                }
                other => {
                    distinct.insert(other);
                }
            }
        }
        let mut out = distinct.into_vec();
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
    pub(crate) fn is_atom(&self) -> bool {
        matches!(
            self,
            Expr::Literal(_) | Expr::Class(_) | Expr::Ref(_) | Expr::Empty
        )
    }
}

/// Renders a rule body: a top-level alternation needs no parentheses.
pub(crate) fn render_top(expr: &Expr, names: &[&str], out: &mut String) {
    match expr {
        Expr::Alt(items) => {
            for (position, item) in items.iter().enumerate() {
                if position > 0 {
                    out.push_str(" | ");
                }
                render_sequence_item(item, names, out, true);
            }
        }
        other => render_sequence_item(other, names, out, true),
    }
}

/// Renders `expr` where it stands as one element of a sequence (or, `top`, as a whole
/// alternative, where a sequence needs no parentheses).
fn render_sequence_item(expr: &Expr, names: &[&str], out: &mut String, top: bool) {
    match expr {
        // A rule that can match nothing: a character class no character is in. Only reached
        // for a grammar whose root is productive but that keeps an empty rule around, which
        // pruning prevents; kept valid GBNF regardless.
        Expr::Never => out.push_str("[^\\x00-\\U0010FFFF]"),
        Expr::Empty => out.push_str("\"\""),
        Expr::Literal(text) => render_literal(text, out),
        Expr::Class(class) => render_class(class, out),
        Expr::Ref(index) => out.push_str(names[*index]),
        Expr::Seq(items) => {
            if !top {
                out.push('(');
            }
            for (position, item) in items.iter().enumerate() {
                if position > 0 {
                    out.push(' ');
                }
                render_sequence_item(item, names, out, false);
            }
            if !top {
                out.push(')');
            }
        }
        Expr::Alt(_) => {
            out.push('(');
            render_top(expr, names, out);
            out.push(')');
        }
        Expr::Repeat(inner, min, max) => {
            if inner.is_atom() {
                render_sequence_item(inner, names, out, false);
            } else {
                out.push('(');
                render_top(inner, names, out);
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
}
