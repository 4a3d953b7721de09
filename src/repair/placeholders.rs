//! Placeholders and missing separators inside a document: an ellipsis standing for more
//! elements or members (`[1, 2, ...]`), and a missing `:` between a quoted key and its value on
//! its line (`"b" 2`). These are methods of the tolerant parser in `parse.rs`, whose structure
//! decides when they are tried.

use super::parse::{Cut, Expect, Parser, Stop};
use super::rung::Rung;
use super::scan::{SMART_LEN, is_key_byte, skip_space, smart_quote};

impl Parser<'_> {
    /// Whether a value plainly starts at `self.pos`, right after the key's closing quote or after
    /// spaces (no line break) that follow it: then only the `:` between them is missing.
    pub(super) fn value_on_the_key_line(&self) -> bool {
        let bytes = self.bytes;
        let mut before = self.pos;
        while before > 0 && matches!(bytes[before - 1], b' ' | b'\t') {
            before -= 1;
        }
        let quoted = before > 0
            && (matches!(bytes[before - 1], b'"' | b'\'')
                || (before >= SMART_LEN && smart_quote(bytes, before - SMART_LEN).is_some()));
        // An unquoted key is read without its `:` only before a quoted value (`{a 'b'}`).
        let bare = before > 0
            && before < self.pos
            && is_key_byte(bytes[before - 1])
            && (matches!(bytes[self.pos], b'"' | b'\'') || smart_quote(bytes, self.pos).is_some());
        (quoted && self.starts_value(self.pos)) || bare
    }

    /// An ellipsis (`...` or `…`) standing for more elements or members (`[1, 2, ...]`,
    /// `{"a": 1, ...}`) is dropped with the comma after it, like an empty element: nothing is
    /// invented. Before the closer the parser expects what it does after an opener (`first`),
    /// so the comma before the ellipsis is not a trailing comma.
    pub(super) fn ellipsis(&mut self, expect: &mut Expect, first: Expect) -> Result<bool, Stop> {
        let Some(length) = ellipsis(self.bytes, self.pos) else {
            return Err(self.broken(self.pos, "a value"));
        };
        if length == 0 {
            return Err(Stop::Cut(Cut::InLiteral, self.pos));
        }
        self.fix(Rung::EmptyElements, self.pos)?;
        self.pos += length;
        let next = skip_space(self.bytes, self.pos);
        match self.bytes.get(next) {
            Some(b',') => self.pos = next + 1,
            Some(b']' | b'}') => *expect = first,
            Some(b'/') if matches!(self.bytes.get(next + 1), Some(b'/' | b'*')) => *expect = first,
            None => {}
            Some(_) => return Err(self.broken(next, "',' or a closing bracket")),
        }
        Ok(false)
    }
}

/// The length of the ellipsis (`...` or `…`) at `at`; `Some(0)` when the text ends inside one.
pub(super) fn ellipsis(bytes: &[u8], at: usize) -> Option<usize> {
    let rest = &bytes[at..];
    if rest.starts_with(b"...") && rest.get(3) != Some(&b'.') || rest.starts_with("…".as_bytes())
    {
        Some(3)
    } else if rest.len() < 3 && b"...".starts_with(rest) {
        Some(0)
    } else {
        None
    }
}
