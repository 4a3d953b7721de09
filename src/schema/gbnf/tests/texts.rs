//! Test support: writing generated instances as text (compact, pretty, and loose: random
//! whitespace inside the grammar's bound and random but valid string escapes), and the
//! near misses made on the text or on the instance tree.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::instances::{Node, Rng};
use crate::schema::gbnf::MAX_INDENT;

/// How an instance is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    /// serde_json's compact form.
    Compact,
    /// Two-space indentation, a space after colons, a final newline.
    Pretty,
    /// Whitespace and escapes chosen at random, inside what the grammar allows.
    Loose,
}

pub(crate) fn write(node: &Node, style: Style, rng: &mut Rng) -> String {
    let mut out = String::new();
    if style == Style::Loose {
        out.push_str(&loose_space(rng));
    }
    write_node(node, style, 0, rng, &mut out);
    match style {
        Style::Compact => {}
        Style::Pretty => out.push('\n'),
        Style::Loose => out.push_str(&loose_space(rng)),
    }
    out
}

/// One whitespace run the grammar allows between tokens.
fn loose_space(rng: &mut Rng) -> String {
    match rng.below(20) {
        0..=7 => String::new(),
        8..=11 => " ".to_owned(),
        12 => "\t".to_owned(),
        13 => "\n".to_owned(),
        14 => format!("\r\n{}", "\t".repeat(rng.below(4) as usize)),
        15 => format!("\n{}", " ".repeat(MAX_INDENT as usize)),
        _ => format!("\n{}", " ".repeat(rng.below(MAX_INDENT + 1) as usize)),
    }
}

/// The whitespace between two tokens in the given style; `pretty` is the pretty form.
fn space(style: Style, pretty: &str, rng: &mut Rng) -> String {
    match style {
        Style::Compact => String::new(),
        Style::Pretty => pretty.to_owned(),
        Style::Loose => loose_space(rng),
    }
}

fn indent(depth: usize) -> String {
    format!("\n{}", "  ".repeat(depth))
}

fn write_node(node: &Node, style: Style, depth: usize, rng: &mut Rng, out: &mut String) {
    match node {
        Node::Object {
            members, declared, ..
        } => {
            // Declared property names are written as serde_json writes them; the keys of
            // free-form objects are strings like any other.
            let key_style = if *declared { Style::Compact } else { style };
            let entries: Vec<(String, &Node)> = members
                .iter()
                .map(|(key, node)| (write_string(key, key_style, rng), node))
                .collect();
            write_container(
                ('{', '}'),
                &entries,
                style,
                depth,
                rng,
                out,
                |(key, node), style, depth, rng, out| {
                    out.push_str(key);
                    out.push_str(&space(style, "", rng));
                    out.push(':');
                    out.push_str(&space(style, " ", rng));
                    write_node(node, style, depth, rng, out);
                },
            );
        }
        Node::Array { items, .. } => {
            let entries: Vec<&Node> = items.iter().collect();
            write_container(
                ('[', ']'),
                &entries,
                style,
                depth,
                rng,
                out,
                |node, style, depth, rng, out| write_node(node, style, depth, rng, out),
            );
        }
        Node::Str { value, .. } => out.push_str(&write_string(value, style, rng)),
        Node::Int { value, .. } => {
            let _ = write!(out, "{value}");
        }
        Node::Literal { value, .. } => {
            out.push_str(&serde_json::to_string(value).expect("serializes"));
        }
    }
}

fn write_container<T>(
    (open, close): (char, char),
    entries: &[T],
    style: Style,
    depth: usize,
    rng: &mut Rng,
    out: &mut String,
    write_entry: impl Fn(&T, Style, usize, &mut Rng, &mut String),
) {
    out.push(open);
    if entries.is_empty() {
        if style == Style::Loose {
            out.push_str(&loose_space(rng));
        }
        out.push(close);
        return;
    }
    out.push_str(&space(style, &indent(depth + 1), rng));
    for (index, entry) in entries.iter().enumerate() {
        if index > 0 {
            out.push_str(&space(style, "", rng));
            out.push(',');
            out.push_str(&space(style, &indent(depth + 1), rng));
        }
        write_entry(entry, style, depth + 1, rng, out);
    }
    out.push_str(&space(style, &indent(depth), rng));
    out.push(close);
}

/// A JSON string: serde_json's form, or (loose) with escapes chosen at random.
fn write_string(value: &str, style: Style, rng: &mut Rng) -> String {
    if style != Style::Loose {
        return serde_json::to_string(value).expect("serializes");
    }
    let mut out = String::from('"');
    let hex = |code: u32, upper: bool| {
        if upper {
            format!("\\u{code:04X}")
        } else {
            format!("\\u{code:04x}")
        }
    };
    for ch in value.chars() {
        let code = ch as u32;
        let upper = rng.chance(50);
        let escape_anyway = rng.chance(20);
        match ch {
            '"' => out.push_str(if escape_anyway { "\\u0022" } else { "\\\"" }),
            '\\' => out.push_str(if escape_anyway { "\\u005C" } else { "\\\\" }),
            '/' if escape_anyway => out.push_str("\\/"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str(if escape_anyway { "\\u000a" } else { "\\n" }),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            _ if code < 0x20 => out.push_str(&hex(code, upper)),
            _ if escape_anyway && code > 0xFFFF => {
                let offset = code - 0x10000;
                out.push_str(&hex(0xD800 + (offset >> 10), upper));
                out.push_str(&hex(0xDC00 + (offset & 0x3FF), !upper));
            }
            _ if escape_anyway => out.push_str(&hex(code, upper)),
            _ => out.push(ch),
        }
    }
    out.push('"');
    out
}

/// Byte offsets of characters outside strings, with the character.
fn structure(text: &str) -> Vec<(usize, char)> {
    let mut out = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for (offset, ch) in text.char_indices() {
        if in_string {
            if escaped {
                escaped = false;
            } else if ch == '\\' {
                escaped = true;
            } else if ch == '"' {
                in_string = false;
            }
        } else if ch == '"' {
            in_string = true;
        } else {
            out.push((offset, ch));
        }
    }
    out
}

/// A comma before a closing bracket that follows a value: `[1,]`, `{"a":1,}`.
pub(crate) fn trailing_comma(text: &str) -> Option<String> {
    let outside = structure(text);
    let offset = outside
        .iter()
        .enumerate()
        .find_map(|(index, &(offset, ch))| {
            let previous = text[..offset].trim_end().chars().last()?;
            (index > 0 && matches!(ch, '}' | ']') && !matches!(previous, '{' | '['))
                .then_some(offset)
        })?;
    Some(format!("{},{}", &text[..offset], &text[offset..]))
}

/// A leading zero in front of an integer: `07`, `-012`.
pub(crate) fn leading_zero(text: &str) -> Option<String> {
    let outside = structure(text);
    let offset = outside
        .iter()
        .enumerate()
        .find_map(|(index, &(offset, ch))| {
            // Not inside a number, and not an exponent (where leading zeros are allowed).
            let starts_number =
                index == 0 || !matches!(outside[index - 1].1, '0'..='9' | '.' | 'e' | 'E' | '+');
            (ch.is_ascii_digit() && starts_number).then_some(offset)
        })?;
    Some(format!("{}0{}", &text[..offset], &text[offset..]))
}

/// Whitespace runs past the grammar's bound, at the first place whitespace is allowed.
pub(crate) fn excess_whitespace(text: &str) -> Vec<String> {
    let offset = structure(text)
        .first()
        .filter(|(_, ch)| matches!(ch, '{' | '['))
        .map_or(0, |(offset, _)| offset + 1);
    let runs = [
        " ".repeat(40),
        format!("\n{}", " ".repeat(MAX_INDENT as usize + 1)),
        "\n\n".to_owned(),
        "  ".to_owned(),
    ];
    runs.iter()
        .map(|run| format!("{}{run}{}", &text[..offset], &text[offset..]))
        .collect()
}

/// A kind of near miss.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Miss {
    MissingRequired,
    ExtraProperty,
    DuplicateProperty,
    OutOfOrder,
    BelowMinimum,
    AboveMaximum,
    TooManyItems,
    TooFewItems,
    TooLong,
    TooShort,
    WrongEnumValue,
    WrongType,
    TrailingComma,
    LeadingZero,
    ExcessWhitespace,
}

/// Near misses of an instance tree: each is the whole tree with one change. At most two of
/// each kind, at places chosen at random, so large instances stay affordable.
pub(crate) fn misses(root: &Node, rng: &mut Rng) -> Vec<(Miss, Node)> {
    let mut paths: Vec<Vec<usize>> = Vec::new();
    collect_paths(root, &mut Vec::new(), &mut paths);
    let mut candidates: BTreeMap<Miss, Vec<(usize, Node)>> = BTreeMap::new();
    for (index, path) in paths.iter().enumerate() {
        for (miss, replacement) in changes(at(root, path)) {
            candidates
                .entry(miss)
                .or_default()
                .push((index, replacement));
        }
    }
    let mut out = Vec::new();
    for (miss, mut options) in candidates {
        for _ in 0..2 {
            if options.is_empty() {
                break;
            }
            let (index, replacement) =
                options.swap_remove(rng.below(options.len() as u64) as usize);
            out.push((miss, replace(root, &paths[index], replacement)));
        }
    }
    out
}

/// The near misses of one node, as replacements for it.
fn changes(node: &Node) -> Vec<(Miss, Node)> {
    let mut changes: Vec<(Miss, Node)> = Vec::new();
    match node {
        Node::Object {
            members,
            required,
            declared,
        } => {
            for (position, _) in members
                .iter()
                .enumerate()
                .filter(|(_, (key, _))| required.contains(key))
            {
                let mut members = members.clone();
                members.remove(position);
                changes.push((Miss::MissingRequired, object(members, required, *declared)));
            }
            if *declared {
                let mut extra = members.clone();
                extra.push(("zz_extra".to_owned(), literal(json!(1))));
                changes.push((Miss::ExtraProperty, object(extra, required, true)));
                if let Some(first) = members.first() {
                    let mut repeated = members.clone();
                    repeated.push(first.clone());
                    changes.push((Miss::DuplicateProperty, object(repeated, required, true)));
                }
                if members.len() >= 2 {
                    let mut swapped = members.clone();
                    swapped.swap(0, members.len() - 1);
                    changes.push((Miss::OutOfOrder, object(swapped, required, true)));
                }
            }
            changes.push((Miss::WrongType, literal(json!([]))));
        }
        Node::Array { items, min, max } => {
            if Some(items.len() as u64) == *max {
                let mut longer = items.clone();
                longer.push(items.last().cloned().unwrap_or(literal(Value::Null)));
                changes.push((Miss::TooManyItems, array(longer, *min, *max)));
            }
            if *min > 0 && items.len() as u64 == *min {
                let mut shorter = items.clone();
                shorter.pop();
                changes.push((Miss::TooFewItems, array(shorter, *min, *max)));
            }
            changes.push((Miss::WrongType, literal(json!({}))));
        }
        Node::Str { value, min, max } => {
            let length = value.chars().count() as u64;
            if Some(length) == *max {
                changes.push((Miss::TooLong, string(format!("{value}x"), *min, *max)));
            }
            if *min > 0 && length == *min {
                let mut shorter = value.clone();
                shorter.pop();
                changes.push((Miss::TooShort, string(shorter, *min, *max)));
            }
            changes.push((Miss::WrongType, literal(json!(1))));
        }
        Node::Int { low, high, .. } => {
            if let Some(low) = low.filter(|low| *low > i64::MIN as i128) {
                changes.push((Miss::BelowMinimum, literal(json!(low - 1))));
            }
            if let Some(high) = high.filter(|high| *high < i64::MAX as i128) {
                changes.push((Miss::AboveMaximum, literal(json!(high + 1))));
            }
            changes.push((Miss::WrongType, literal(json!("1"))));
        }
        Node::Literal {
            enumerated: true, ..
        } => {
            changes.push((Miss::WrongEnumValue, literal(json!("not-a-listed-value"))));
        }
        Node::Literal { .. } => {}
    }
    changes
}

fn object(members: Vec<(String, Node)>, required: &[String], declared: bool) -> Node {
    Node::Object {
        members,
        required: required.to_vec(),
        declared,
    }
}

fn array(items: Vec<Node>, min: u64, max: Option<u64>) -> Node {
    Node::Array { items, min, max }
}

fn string(value: String, min: u64, max: Option<u64>) -> Node {
    Node::Str { value, min, max }
}

fn literal(value: Value) -> Node {
    Node::Literal {
        value,
        enumerated: false,
    }
}

fn children(node: &Node) -> Vec<&Node> {
    match node {
        Node::Object { members, .. } => members.iter().map(|(_, node)| node).collect(),
        Node::Array { items, .. } => items.iter().collect(),
        _ => Vec::new(),
    }
}

fn collect_paths(node: &Node, path: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
    out.push(path.clone());
    for (index, child) in children(node).into_iter().enumerate() {
        path.push(index);
        collect_paths(child, path, out);
        path.pop();
    }
}

fn at<'n>(node: &'n Node, path: &[usize]) -> &'n Node {
    path.iter().fold(node, |node, &index| children(node)[index])
}

fn replace(root: &Node, path: &[usize], replacement: Node) -> Node {
    let Some((&first, rest)) = path.split_first() else {
        return replacement;
    };
    let mut copy = root.clone();
    match &mut copy {
        Node::Object { members, .. } => {
            members[first].1 = replace(&members[first].1, rest, replacement);
        }
        Node::Array { items, .. } => items[first] = replace(&items[first], rest, replacement),
        _ => unreachable!("paths only go through containers"),
    }
    copy
}
