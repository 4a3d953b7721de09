//! A forgotten closer followed by prose: `["a", "b"`, a blank line, `These are the files I
//! found.` The final value is complete, so the document only lacks its closers
//! (`close_braces`), and the prose after it is dropped (`extract`), exactly as if a closing
//! fence stood where the prose starts. A number at the very end, a cut-off string, or text
//! cut after a `,` or `:` stays truncated: only a complete final value is closed up.
//!
//! Prose is recognised on a later line only (`{"a": 1 xyz}` stays malformed), by how it starts
//! (a letter, a non-ASCII character that is no quote or space, or a Markdown bullet, numbered
//! item, quote or emphasis). Two cases need a second parse that ends where the prose starts:
//!
//! - the prose's first word also reads as JSON (`Note: ...` as an unquoted key, `None of
//!   them ...` as Python's `None`), so the parse only breaks further on;
//! - the final value is a string whose closing quote was not taken as one, because what follows
//!   it is not JSON (`"b"` + prose): the string runs to the end of the text, cut off.
//!
//! Neither can happen in any prefix of a valid document (a complete value there is followed by
//! `,` or a closer, and a string holds no raw quote or line break), so a cut-off valid document
//! is never closed up by this.

use serde_json::Value;

use super::parse::{Cut, Parser, Stop};
use super::rung::RungSet;
use super::scan::{SMART_LEN, Smart, is_space, skip_blank, smart_quote, unicode_space};

/// Parses the document that starts at `start`, once more ending where prose starts when the
/// first parse shows that a complete value was followed by prose (see the module header). The
/// second parser reads the text only up to the prose, so its `text` is shorter than `text`.
pub(super) fn parse_document(
    text: &str,
    start: usize,
    allowed: RungSet,
) -> (Parser<'_>, Result<Value, Stop>) {
    let mut parser = Parser::new(text, start, allowed);
    let result = parser.parse();
    let end = match result {
        Err(Stop::Broken { at, .. }) => parser.prose_at.filter(|prose| *prose <= at),
        Err(Stop::Cut(Cut::InString, _)) => parser.string_prose,
        // A bare value that runs to the end as a sentence does (`Note: I checked every file.`)
        // was prose; one that does not (`lastName: Smith`) may go on.
        Err(Stop::Cut(Cut::InLiteral, at)) if ends_a_sentence(&text[at..]) => {
            parser.prose_at.filter(|prose| *prose <= at)
        }
        _ => None,
    };
    let Some(end) = end else {
        return (parser, result);
    };
    drop(parser);
    let mut again = Parser::new(&text[..end], start, allowed);
    again.ends_at_marker = true;
    let result = again.parse();
    (again, result)
}

/// Whether `value` (a bare value cut at the end of the text) is words that end as a sentence.
fn ends_a_sentence(value: &str) -> bool {
    let value = value.trim_end();
    value.contains(' ') && value.ends_with(['.', '!', '?'])
}

impl Parser<'_> {
    /// Whether prose starts at `at` on a later line than the token before it.
    pub(super) fn prose_line(&self, at: usize) -> bool {
        let bytes = self.bytes;
        let mut before = at;
        let mut line_break = false;
        while before > 0 && is_space(bytes[before - 1]) {
            before -= 1;
            line_break |= bytes[before] == b'\n';
        }
        line_break && starts_prose(bytes, at)
    }

    /// For a string opened at `open` (by a typographic quote when `smart`) that runs to the end
    /// of the text: where prose starts after the first quote in it that a line break and prose
    /// follow. Every quote in such a string was taken for content, so that quote is where the
    /// string ends if prose, not more of the string, comes after it. Runs once, on a cut.
    #[cold]
    #[inline(never)]
    pub(super) fn prose_in_cut_string(&self, open: usize, smart: Option<Smart>) -> Option<usize> {
        let bytes = self.bytes;
        let quote = bytes[open];
        let mut at = open + if smart.is_some() { SMART_LEN } else { 1 };
        while at < bytes.len() {
            let length = match smart {
                _ if bytes[at] == b'\\' => {
                    at += 2;
                    continue;
                }
                None if bytes[at] == quote => 1,
                Some(kind) if smart_quote(bytes, at) == Some(kind) => SMART_LEN,
                _ => {
                    at += 1;
                    continue;
                }
            };
            let after = at + length;
            let next = skip_blank(bytes, after);
            if bytes[after..next].contains(&b'\n') && starts_prose(bytes, next) {
                return Some(next);
            }
            at = after;
        }
        None
    }
}

/// Whether the text at `at` starts like a sentence or a Markdown line, not like JSON.
fn starts_prose(bytes: &[u8], at: usize) -> bool {
    let Some(&byte) = bytes.get(at) else {
        return false;
    };
    let next = bytes.get(at + 1).copied();
    match byte {
        _ if byte.is_ascii_alphabetic() => true,
        b'*' => matches!(next, Some(b' ' | b'*')),
        b'-' | b'>' => next == Some(b' '),
        b'0'..=b'9' => {
            // A numbered list: `1. `, `2) `.
            let digits = bytes[at..]
                .iter()
                .take_while(|byte| byte.is_ascii_digit())
                .count();
            matches!(bytes.get(at + digits), Some(b'.' | b')'))
                && bytes.get(at + digits + 1) == Some(&b' ')
        }
        0x80.. => smart_quote(bytes, at).is_none() && unicode_space(bytes, at) == 0,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_starts_with_a_word_or_a_markdown_mark() {
        for text in [
            "These",
            "a",
            "**Note**",
            "* item",
            "- item",
            "> quote",
            "这是",
            "✅",
            "1. First",
            "12) twelfth",
        ] {
            assert!(starts_prose(text.as_bytes(), 0), "{text}");
        }
        for text in [
            "\"a\"", "1", "-1", "{", "[", "“a”", "\u{a0}", "*x", "", "_a", "1.5", "2,", "3.",
        ] {
            assert!(!starts_prose(text.as_bytes(), 0), "{text}");
        }
    }
}
