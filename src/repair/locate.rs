//! Finding the document in a model's answer once a reasoning block (`reasoning.rs`) and a code
//! fence (`fence.rs`) are ruled out: at the first `{` or `[` that really opens a value
//! (`extract`), and what separates it from the rest of the answer.
//!
//! "Really opens a value" is decided by looking a few bytes ahead: `{` must be followed by `}`
//! or by a key and `:`; `[` by `]` or by the start of a value. Prose such as `{the config}` or
//! `[button]` is skipped. A `{` or `[` followed by an escaped quote opens a document written
//! with escaped quotes (`{\"a\": 1}`, see `escaped.rs`). Every look-ahead is bounded (a key is
//! looked into for at most [`KEY_LOOKAHEAD`] bytes, nested openers at most 16 deep), so a search
//! over the whole text stays linear.

use super::rung::Rung;
use super::scan::{is_key_byte, is_space, is_word_start, skip_blank, smart_quote, word_at};

/// The first `{` or `[` at or after `from` that really opens a value.
pub(super) fn candidate(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while at < bytes.len() {
        let offset = memchr::memchr2(b'{', b'[', &bytes[at..])?;
        let found = at + offset;
        if opens_value(bytes, found, 16) || super::escaped::opens(bytes, found) {
            return Some(found);
        }
        at = found + 1;
    }
    None
}

/// Whether the `{` or `[` at `at` opens a value. `budget` bounds how many nested `[`/`{` are
/// looked into; when it runs out the opener is taken.
fn opens_value(bytes: &[u8], at: usize, budget: u32) -> bool {
    // Empty elements (`[,1]`, `{, "a": 1}`) do not stop an opener from opening.
    let mut next = skip_blank(bytes, at + 1);
    while bytes.get(next) == Some(&b',') {
        next = skip_blank(bytes, next + 1);
    }
    if bytes.get(next) == Some(&b'/') && matches!(bytes.get(next + 1), Some(b'/' | b'*')) {
        // A comment right after the opener: only JSON-with-comments looks like that.
        return true;
    }
    let Some(&byte) = bytes.get(next) else {
        // The text ends right after the opener: a document cut off there.
        return true;
    };
    if byte == b'.' || byte == 0xE2 {
        // An ellipsis for what the document holds (`[...]`, `{...}`).
        if super::placeholders::ellipsis(bytes, next).is_some_and(|length| length > 0) {
            return true;
        }
    }
    if bytes[at] == b'{' {
        return match byte {
            b'}' => true,
            b'"' | b'\'' => key_then_colon(bytes, next + 1, byte, 1),
            0xE2 => smart_quote(bytes, next).is_some() && key_then_colon(bytes, next + 3, 0xE2, 3),
            _ if is_key_byte(byte) => {
                let mut end = next;
                while end < bytes.len() && is_key_byte(bytes[end]) {
                    end += 1;
                }
                let after = skip_blank(bytes, end);
                // `{a": 1}`: the key lost its opening quote.
                let closed = bytes.get(end) == Some(&b'"')
                    && bytes.get(skip_blank(bytes, end + 1)) == Some(&b':');
                after == bytes.len() || bytes[after] == b':' || closed
            }
            _ => false,
        };
    }
    match byte {
        b']' | b'"' | b'\'' | b'0'..=b'9' => true,
        b'-' => bytes
            .get(next + 1)
            .is_none_or(|after| after.is_ascii_digit() || matches!(after, b'I' | b'i')),
        b'{' | b'[' | b'(' => budget == 0 || opens_value(bytes, next, budget - 1),
        0xE2 => smart_quote(bytes, next).is_some(),
        _ if is_word_start(byte) => {
            let word = word_at(bytes, next);
            let cut_inside = next + word.len() == bytes.len()
                && std::str::from_utf8(word).is_ok_and(super::scan::is_literal_prefix);
            cut_inside || super::scalar::literal(word).is_some()
        }
        _ => false,
    }
}

/// After an opening quote: a quote of the same kind followed by `:` within the next
/// [`KEY_LOOKAHEAD`] bytes (a key may hold a stray quote, as in `{"key "with" quotes": 1}`,
/// or a raw line break, as in `{"line one` newline `line two": 1}`, but not both: past a line
/// break, the first quote must end the key, or prose such as `{" is the opener` would open a
/// document). `quote` is the ASCII quote byte, or `0xE2` for a typographic one (closed by any
/// typographic quote).
fn key_then_colon(bytes: &[u8], start: usize, quote: u8, quote_len: usize) -> bool {
    let end = bytes.len().min(start + KEY_LOOKAHEAD);
    let mut at = start;
    let mut closed = false;
    let mut broken_line = false;
    while at < end {
        match bytes[at] {
            b'\\' => at += 2,
            b'\n' if closed => return false,
            b'\n' => {
                broken_line = true;
                at += 1;
            }
            byte if byte == quote && (quote != 0xE2 || smart_quote(bytes, at).is_some()) => {
                let after = skip_blank(bytes, at + quote_len);
                if after == bytes.len() || bytes[after] == b':' {
                    return true;
                }
                if broken_line {
                    return false;
                }
                closed = true;
                at += quote_len;
            }
            _ => at += 1,
        }
    }
    // The text ends inside the key (a document cut off there), or the key is longer than the
    // look-ahead: either way, take the opener.
    (at >= bytes.len() && !closed) || at >= start + KEY_LOOKAHEAD
}

/// How far a key is looked into when deciding whether a `{` opens an object.
const KEY_LOOKAHEAD: usize = 256;

/// What separates the document from the start or the end of the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Gap {
    /// Nothing, or JSON whitespace.
    Blank,
    /// Whitespace with Unicode spaces in it (rung `unicode_spaces`).
    UnicodeSpaces,
    /// Anything else: prose (rung `extract`).
    Text,
}

/// What lies in `bytes[from..to]`.
pub(super) fn gap(bytes: &[u8], from: usize, to: usize) -> Gap {
    let between = &bytes[from..to];
    if between.iter().all(|byte| is_space(*byte)) {
        Gap::Blank
    } else if skip_blank(bytes, from) >= to {
        Gap::UnicodeSpaces
    } else {
        Gap::Text
    }
}

impl Gap {
    /// The rung that fixes the gaps before and after a document, if any: `extract` drops text
    /// and whatever spaces come with it.
    pub(super) fn rung(before: Gap, after: Gap) -> Option<Rung> {
        match (before, after) {
            (Gap::Text, _) | (_, Gap::Text) => Some(Rung::Extract),
            (Gap::UnicodeSpaces, _) | (_, Gap::UnicodeSpaces) => Some(Rung::UnicodeSpaces),
            (Gap::Blank, Gap::Blank) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_real_openers_are_candidates() {
        fn find(text: &str) -> Option<&str> {
            candidate(text.as_bytes(), 0).map(|at| &text[at..])
        }
        assert_eq!(
            find("set {the config} to [button] then {\"a\": 1}"),
            Some("{\"a\": 1}")
        );
        assert_eq!(find("[x] [ 1, 2 ]"), Some("[ 1, 2 ]"));
        assert_eq!(find("a {b: 1}"), Some("{b: 1}"));
        assert_eq!(find("[[button]] {}"), Some("{}"));
        assert_eq!(find("list: [true, false]"), Some("[true, false]"));
        assert_eq!(find("cut: {\"ke"), Some("{\"ke"));
        assert_eq!(find("nothing here"), None);
        assert_eq!(find("{“a”: 1}"), Some("{“a”: 1}"));
        assert_eq!(find("{'it is' no}"), None);
        assert_eq!(find("{\"line\nbreak\": 1}"), Some("{\"line\nbreak\": 1}"));
        assert_eq!(find("use {\" to open\nand \"key\": 1"), None);
        // A key that lost its opening quote still opens an object.
        assert_eq!(find("so {name\": \"Ada\"}"), Some("{name\": \"Ada\"}"));
        // Without the `:` or a value the look-ahead knows, an opener inside prose is skipped
        // (an answer that is only such a bracket is read whole by the ladder instead).
        assert_eq!(find("see {\"a\" 1} and [a, b]"), None);
    }
}
