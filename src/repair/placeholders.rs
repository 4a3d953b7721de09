//! Placeholders and missing separators inside a document: an ellipsis standing for more
//! elements or members (`[1, 2, ...]`), and a missing `:` between a quoted key and its value on
//! its line (`"b" 2`). These are methods of the tolerant parser in `parse.rs`, whose structure
//! decides when they are tried.

use super::parse::{Cut, Expect, Parser, Stop};
use super::rung::Rung;
use super::scan::skip_space;

impl Parser<'_> {
    /// Whether a value plainly starts at `self.pos`, after spaces (no line break) that follow
    /// the key: then only the `:` between them is missing.
    pub(super) fn value_on_the_key_line(&self) -> bool {
        let bytes = self.bytes;
        let mut before = self.pos;
        while before > 0 && matches!(bytes[before - 1], b' ' | b'\t') {
            before -= 1;
        }
        before < self.pos
            && matches!(bytes[before - 1], b'"' | b'\'')
            && self.starts_value(self.pos)
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
