//! The rules every derived grammar shares: bounded whitespace, JSON strings, numbers and any
//! JSON value. Each is declared under a fixed name the first time a grammar needs it; the
//! names are reserved, so a property called `ws` gets a rule called `ws-2`.

use super::builder::Builder;
use super::expr::{CharClass, Expr};
use super::numbers::{integer_range, json_number};

/// Rule names that only the shared rules may take.
pub(crate) const RESERVED: &[&str] = &[
    "root", "ws", "char", "escape", "hex", "string", "number", "integer", "boolean", "null",
    "value", "object", "member", "array",
];

/// The most spaces or tabs that may follow a newline between two tokens: enough for
/// pretty-printed JSON sixteen levels deep with two-space indentation, or eight with four.
pub const MAX_INDENT: u64 = 32;

/// The whitespace a derived grammar allows between two tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Whitespace {
    /// At most one of: nothing, one space or tab, or one line break followed by up to
    /// [`MAX_INDENT`] spaces or tabs: pretty-printed JSON, and no more.
    #[default]
    Pretty,
    /// None at all: the compact text serde_json writes. A real small model under it writes
    /// fewer tokens and loops less (bench/README.md, "Defaults").
    Compact,
}

impl Whitespace {
    /// The name used in settings and flags.
    pub const fn as_str(self) -> &'static str {
        match self {
            Whitespace::Pretty => "pretty",
            Whitespace::Compact => "compact",
        }
    }
}

impl std::str::FromStr for Whitespace {
    type Err = ();

    fn from_str(text: &str) -> Result<Whitespace, ()> {
        match text.trim().to_ascii_lowercase().as_str() {
            "pretty" => Ok(Whitespace::Pretty),
            "compact" => Ok(Whitespace::Compact),
            _ => Err(()),
        }
    }
}

/// The shared rules a grammar has declared so far, by name.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    declared: Vec<(&'static str, usize)>,
    /// What `ws` allows.
    pub whitespace: Whitespace,
}

impl Shared {
    /// No rules declared yet; `ws` allows `whitespace`.
    pub fn new(whitespace: Whitespace) -> Shared {
        Shared {
            declared: Vec::new(),
            whitespace,
        }
    }

    /// A reference to the shared rule `name`, declaring and defining it (and what it uses)
    /// on first use.
    pub fn rule(&mut self, builder: &mut Builder, name: &'static str) -> Expr {
        if let Some(&(_, index)) = self.declared.iter().find(|(known, _)| *known == name) {
            return Expr::Ref(index);
        }
        let index = builder.declare_shared(name);
        self.declared.push((name, index));
        let body = self.body(builder, name);
        builder.define(index, body);
        Expr::Ref(index)
    }

    fn body(&mut self, builder: &mut Builder, name: &'static str) -> Expr {
        match name {
            "ws" if self.whitespace == Whitespace::Compact => Expr::Empty,
            // Between two tokens: nothing, one space or tab, or one line break and an
            // indentation. A model cannot spend more than that on whitespace in one place.
            "ws" => Expr::alt([
                Expr::Empty,
                Expr::Class(CharClass::of(&[(' ', ' '), ('\t', '\t')])),
                Expr::seq([
                    Expr::optional(Expr::lit("\r")),
                    Expr::lit("\n"),
                    Expr::repeat(
                        Expr::Class(CharClass::of(&[(' ', ' '), ('\t', '\t')])),
                        0,
                        Some(MAX_INDENT),
                    ),
                ]),
            ]),
            "hex" => Expr::Class(CharClass::of(&[('0', '9'), ('a', 'f'), ('A', 'F')])),
            // One character of a JSON string, as one code point of the decoded string: a
            // surrogate pair written as two `\u` escapes is one character, and a lone
            // surrogate escape (which serde_json refuses) is not in the language.
            "char" => {
                let escape = self.rule(builder, "escape");
                Expr::alt([
                    Expr::Class(CharClass::not(&[
                        ('"', '"'),
                        ('\\', '\\'),
                        ('\0', '\u{1f}'),
                    ])),
                    Expr::seq([Expr::lit("\\"), escape]),
                ])
            }
            "escape" => {
                let hex = self.rule(builder, "hex");
                let hex_n = |count| Expr::repeat(hex.clone(), count, Some(count));
                let class = |ranges: &[(char, char)]| Expr::Class(CharClass::of(ranges));
                Expr::alt([
                    class(&[
                        ('"', '"'),
                        ('\\', '\\'),
                        ('/', '/'),
                        ('b', 'b'),
                        ('f', 'f'),
                        ('n', 'n'),
                        ('r', 'r'),
                        ('t', 't'),
                    ]),
                    Expr::seq([
                        Expr::lit("u"),
                        Expr::alt([
                            // Not a surrogate: first digit other than D, or D then 0-7.
                            Expr::seq([
                                class(&[
                                    ('0', '9'),
                                    ('a', 'c'),
                                    ('A', 'C'),
                                    ('e', 'f'),
                                    ('E', 'F'),
                                ]),
                                hex_n(3),
                            ]),
                            Expr::seq([
                                class(&[('d', 'd'), ('D', 'D')]),
                                class(&[('0', '7')]),
                                hex_n(2),
                            ]),
                            // A high surrogate, then its low surrogate.
                            Expr::seq([
                                class(&[('d', 'd'), ('D', 'D')]),
                                class(&[('8', '9'), ('a', 'b'), ('A', 'B')]),
                                hex_n(2),
                                Expr::lit("\\u"),
                                class(&[('d', 'd'), ('D', 'D')]),
                                class(&[('c', 'f'), ('C', 'F')]),
                                hex_n(2),
                            ]),
                        ]),
                    ]),
                ])
            }
            "string" => {
                let char = self.rule(builder, "char");
                Expr::seq([
                    Expr::lit("\""),
                    Expr::repeat(char, 0, None),
                    Expr::lit("\""),
                ])
            }
            "number" => json_number(),
            "integer" => integer_range(None, None),
            "boolean" => Expr::alt([Expr::lit("true"), Expr::lit("false")]),
            "null" => Expr::lit("null"),
            "value" => {
                let object = self.rule(builder, "object");
                let array = self.rule(builder, "array");
                let string = self.rule(builder, "string");
                let number = self.rule(builder, "number");
                let boolean = self.rule(builder, "boolean");
                let null = self.rule(builder, "null");
                Expr::alt([object, array, string, number, boolean, null])
            }
            "object" => {
                let member = self.rule(builder, "member");
                self.list(builder, "{", "}", member, 0, None)
            }
            "member" => {
                let string = self.rule(builder, "string");
                let ws = self.rule(builder, "ws");
                let value = self.rule(builder, "value");
                Expr::seq([string, ws.clone(), Expr::lit(":"), ws, value])
            }
            "array" => {
                let value = self.rule(builder, "value");
                self.list(builder, "[", "]", value, 0, None)
            }
            other => unreachable!("no shared rule {other}"),
        }
    }

    /// `open item (ws "," ws item)* close` with between `min` and `max` items and whitespace
    /// after `open`, around each comma and before `close`.
    pub fn list(
        &mut self,
        builder: &mut Builder,
        open: &str,
        close: &str,
        item: Expr,
        min: u64,
        max: Option<u64>,
    ) -> Expr {
        let ws = self.rule(builder, "ws");
        if max.is_some_and(|max| max < min) {
            return Expr::Never;
        }
        let next = Expr::seq([ws.clone(), Expr::lit(","), ws.clone(), item.clone()]);
        let more = Expr::repeat(
            next,
            min.saturating_sub(1),
            max.map(|max| max.saturating_sub(1)),
        );
        let items = Expr::seq([item, more, ws.clone()]);
        let items = if min == 0 {
            if max == Some(0) {
                Expr::Empty
            } else {
                Expr::optional(items)
            }
        } else {
            items
        };
        Expr::seq([Expr::lit(open), ws, items, Expr::lit(close)])
    }
}
