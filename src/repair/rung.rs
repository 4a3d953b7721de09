//! The rungs of the repair ladder, in their fixed order, and a small set type over them.
//!
//! The order is part of the interface: a report names the first rung after which the document
//! parsed (and validated), and because every rung builds on the ones before it, that is the
//! highest rung, in this order, that had to change something. `Rung as u8` is the position.

use std::fmt;

use serde::Serialize;

/// One stage of the repair ladder. The declaration order is the ladder's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Rung {
    /// The text was valid JSON as it stood (a leading byte-order mark is ignored).
    None,
    /// A reasoning block (`<think>...</think>` and the like) before the answer was removed.
    Think,
    /// The document was taken out of a markdown code fence (```` ``` ```` or `~~~`).
    Fence,
    /// The document was carved out of surrounding prose, or text after it was dropped (further
    /// top-level values too: the report counts them), or several top-level values were
    /// collected into the array a schema asks for.
    Extract,
    /// A comma before `}` or `]` was removed.
    TrailingComma,
    /// Single-quoted strings and keys became double-quoted (apostrophes inside survive).
    Quotes,
    /// `//`, `/* */` and `#` comments outside strings were removed (a line comment on the last
    /// line of an open document ends before the first closer in it).
    Comments,
    /// Unicode spaces between tokens (no-break, em, ideographic, zero-width, U+180E, a
    /// byte-order mark inside the text) were skipped like JSON whitespace; inside a string they are content.
    UnicodeSpaces,
    /// Identifier keys (`{name: 1}`) and bare values (`{"a": ok}`, `[red, green]`, and after a
    /// key number-like tokens such as `0.0.1`, `0789` or a UUID, kept as their text) were quoted;
    /// a key or value that lost only its opening quote (`{name": "Ada"}`, `{"n": 12345", ...}`)
    /// got it back.
    Unquoted,
    /// Typographic quotes used as string delimiters became `"`; so did backticks (closed by a
    /// backtick or `´`) in an answer that is one bracketed value.
    SmartQuotes,
    /// Fullwidth punctuation used as syntax (`｛` `｝` `［` `］` `：` `，` `＂`, as CJK input
    /// methods type them) became its ASCII twin; inside a string it is content.
    Fullwidth,
    /// `NaN`, `Infinity`, `-Infinity`, `inf`, `undefined` (in any case) and out-of-range
    /// numbers became `null`.
    NonFinite,
    /// A number left incomplete before a separator or closer was completed: `1.` is `1.0`,
    /// `1e` and `1e+` are the number without the exponent, a lone `-` is `null`.
    Numbers,
    /// A missing `,` between two members or two elements (`["x" "y" "z"]`), or a missing `:`
    /// between a key and its value on the same line (`{"a" 1}`, `{a 'b'}`), was inserted.
    MissingCommas,
    /// String concatenation written as code (`"a" + "b"`, comments around the `+` too) became
    /// the one string (`"ab"`).
    Concatenation,
    /// An empty element or member (`[1,,2]`, `{,"a":1}`, a key with no value: `{"a": }`), or an
    /// ellipsis placeholder for more
    /// (`[1, 2, ...]`, `{"a": 1, …}`), was dropped.
    EmptyElements,
    /// A `"` inside a string that is plainly content (`"He said "hi" to me"`) was escaped.
    InnerQuotes,
    /// Unknown escapes kept their backslash, lone surrogates became U+FFFD, `\'` became `'`,
    /// and a whole document written with escaped quotes (`{\"a\": 1}`) was unescaped.
    Escapes,
    /// Python's `True`, `False` and `None`, and `true`, `false`, `null` in any other case
    /// (`TRUE`, `Null`), outside strings became `true`, `false`, `null`.
    PythonBools,
    /// A parenthesized tuple inside a document (`{"point": (1, 2)}`) became an array; a type
    /// name wrapping a string or number (`ObjectId("1")`, `NumberLong(2)`) was dropped.
    Tuples,
    /// Raw control characters (newline, tab, ...) inside strings were escaped; inside a key, a
    /// line break and the indentation after it were removed (`{"na` newline `me": 1}` is
    /// `name`): a key is a name, and the model broke the line.
    ControlChars,
    /// A string's missing closing quote was supplied: the text ends inside the string, but
    /// with exactly the closers the open containers need (`{"a": "b}`), so the model forgot the
    /// quote; it was not cut off. Or a value's quote closes the next key (`{"a": "b, "c": 1}`),
    /// so the value ended before the `,` in front of that key.
    CloseQuote,
    /// Missing `}` or `]` were supplied after a complete final value (at the end of the text,
    /// before a closing fence or chat token, or before prose on a later line), a mismatched
    /// closer was matched to its opener, a closer too many before a `,` was dropped, or an
    /// object closed early was continued (`{"a": 1}, "b": 2}`), or an object in an array that
    /// lost its `}` before the next element's `{` was closed (`[{"i": 1 {"i": 2}]`).
    CloseBraces,
    /// Schema-driven coercion turned a parsed value into one that validates.
    Coerce,
}

impl Rung {
    /// Every rung, in ladder order.
    pub const ALL: [Rung; 24] = [
        Rung::None,
        Rung::Think,
        Rung::Fence,
        Rung::Extract,
        Rung::TrailingComma,
        Rung::Quotes,
        Rung::Comments,
        Rung::UnicodeSpaces,
        Rung::Unquoted,
        Rung::SmartQuotes,
        Rung::Fullwidth,
        Rung::NonFinite,
        Rung::Numbers,
        Rung::MissingCommas,
        Rung::Concatenation,
        Rung::EmptyElements,
        Rung::InnerQuotes,
        Rung::Escapes,
        Rung::PythonBools,
        Rung::Tuples,
        Rung::ControlChars,
        Rung::CloseQuote,
        Rung::CloseBraces,
        Rung::Coerce,
    ];

    /// The rung's stable name, as in reports, stats and the README.
    pub const fn as_str(self) -> &'static str {
        match self {
            Rung::None => "none",
            Rung::Think => "think",
            Rung::Fence => "fence",
            Rung::Extract => "extract",
            Rung::TrailingComma => "trailing_comma",
            Rung::Quotes => "quotes",
            Rung::Comments => "comments",
            Rung::UnicodeSpaces => "unicode_spaces",
            Rung::Unquoted => "unquoted",
            Rung::SmartQuotes => "smart_quotes",
            Rung::Fullwidth => "fullwidth",
            Rung::NonFinite => "non_finite",
            Rung::Numbers => "numbers",
            Rung::MissingCommas => "missing_commas",
            Rung::Concatenation => "concatenation",
            Rung::EmptyElements => "empty_elements",
            Rung::InnerQuotes => "inner_quotes",
            Rung::Escapes => "escapes",
            Rung::PythonBools => "python_bools",
            Rung::Tuples => "tuples",
            Rung::ControlChars => "control_chars",
            Rung::CloseQuote => "close_quote",
            Rung::CloseBraces => "close_braces",
            Rung::Coerce => "coerce",
        }
    }

    /// The rung with this name, if any.
    pub fn from_name(name: &str) -> Option<Rung> {
        Rung::ALL.into_iter().find(|rung| rung.as_str() == name)
    }

    const fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

impl fmt::Display for Rung {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A set of rungs: which rungs changed something, or which rungs a caller allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RungSet(u32);

impl RungSet {
    /// No rung at all.
    pub const EMPTY: RungSet = RungSet(0);
    /// Every rung of the ladder.
    pub const ALL: RungSet = RungSet((1 << Rung::ALL.len()) - 1);

    /// Every rung up to and including `last`, in ladder order: the ladder stopped at `last`.
    pub fn through(last: Rung) -> RungSet {
        RungSet((last.bit() << 1) - 1)
    }

    /// The set holding exactly these rungs.
    pub fn of(rungs: &[Rung]) -> RungSet {
        rungs
            .iter()
            .fold(RungSet::EMPTY, |set, rung| set.with(*rung))
    }

    /// This set with `rung` added.
    #[must_use]
    pub const fn with(self, rung: Rung) -> RungSet {
        RungSet(self.0 | rung.bit())
    }

    /// This set without `rung`.
    #[must_use]
    pub const fn without(self, rung: Rung) -> RungSet {
        RungSet(self.0 & !rung.bit())
    }

    /// Every rung in either set.
    #[must_use]
    pub const fn union(self, other: RungSet) -> RungSet {
        RungSet(self.0 | other.0)
    }

    /// Whether `rung` is in the set.
    pub const fn contains(self, rung: Rung) -> bool {
        self.0 & rung.bit() != 0
    }

    /// Adds `rung` to the set.
    pub fn insert(&mut self, rung: Rung) {
        self.0 |= rung.bit();
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The highest rung in ladder order, if any.
    pub fn last(self) -> Option<Rung> {
        (self.0 != 0).then(|| Rung::ALL[(31 - self.0.leading_zeros()) as usize])
    }

    /// The rungs in ladder order.
    pub fn to_vec(self) -> Vec<Rung> {
        Rung::ALL
            .into_iter()
            .filter(|rung| self.contains(*rung))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_follow_the_ladder_order() {
        for (position, rung) in Rung::ALL.into_iter().enumerate() {
            assert_eq!(rung as usize, position);
            assert_eq!(Rung::from_name(rung.as_str()), Some(rung));
        }
        let names: Vec<&str> = Rung::ALL.iter().map(|rung| rung.as_str()).collect();
        let seed_order = [
            "none",
            "think",
            "fence",
            "extract",
            "trailing_comma",
            "quotes",
            "python_bools",
            "control_chars",
            "close_braces",
            "coerce",
        ];
        let positions: Vec<usize> = seed_order
            .iter()
            .map(|name| names.iter().position(|found| found == name).unwrap())
            .collect();
        assert!(positions.windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(Rung::from_name("nope"), None);
    }

    #[test]
    fn sets_know_their_last_rung_and_their_order() {
        let set = RungSet::of(&[Rung::CloseBraces, Rung::Fence, Rung::Quotes]);
        assert_eq!(set.last(), Some(Rung::CloseBraces));
        assert_eq!(
            set.to_vec(),
            vec![Rung::Fence, Rung::Quotes, Rung::CloseBraces]
        );
        assert_eq!(RungSet::EMPTY.last(), None);
        assert!(RungSet::through(Rung::Extract).contains(Rung::Fence));
        assert!(!RungSet::through(Rung::Extract).contains(Rung::TrailingComma));
        assert_eq!(RungSet::ALL.last(), Some(Rung::Coerce));
        assert!(!set.without(Rung::Fence).contains(Rung::Fence));
    }
}
