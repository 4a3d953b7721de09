//! Byte-level helpers shared by the locator and the parser: character classes, typographic
//! quotes, the markers that end a document early (a closing fence, a chat-template token), and
//! a word-at-a-time search for the bytes that matter inside a string.
//!
//! Everything here works on the UTF-8 bytes of a `&str` and only ever stops on ASCII bytes or
//! on the first byte of a multi-byte character, so every index it returns is a char boundary.

/// JSON whitespace. Unicode spaces are not whitespace in JSON; the parser skips them between
/// tokens as a fix of the `unicode_spaces` rung (see [`unicode_space`]).
pub(super) const fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// The length in bytes of the Unicode space at `at`, or 0 when there is none: U+0085, U+00A0,
/// U+1680, U+2000 to U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 (Unicode's `White_Space`
/// beyond ASCII), and the invisible U+200B (zero-width space), U+2060 (word joiner), U+180E
/// (the Mongolian vowel separator, a space before Unicode 6.3 and still typed as one) and
/// U+FEFF (a byte-order mark pasted inside the text). Models copy them from rich text and CJK input
/// methods; outside a string they can only be spacing.
pub(super) fn unicode_space(bytes: &[u8], at: usize) -> usize {
    match bytes.get(at..).unwrap_or_default() {
        [0xC2, 0x85 | 0xA0, ..] => 2,
        [0xE1, 0x9A, 0x80, ..]
        | [0xE1, 0xA0, 0x8E, ..]
        | [0xE2, 0x80, 0x80..=0x8B | 0xA8 | 0xA9 | 0xAF, ..]
        | [0xE2, 0x81, 0x9F | 0xA0, ..]
        | [0xE3, 0x80, 0x80, ..]
        | [0xEF, 0xBB, 0xBF, ..] => 3,
        _ => 0,
    }
}

/// The first index at or after `at` that is neither JSON whitespace nor a Unicode space: how
/// far a look-ahead skips, so that it sees what the parser will see.
#[inline]
pub(super) fn skip_blank(bytes: &[u8], mut at: usize) -> usize {
    loop {
        at = skip_space(bytes, at);
        match bytes.get(at) {
            Some(byte) if *byte >= 0x80 => match unicode_space(bytes, at) {
                0 => return at,
                length => at += length,
            },
            _ => return at,
        }
    }
}

/// Past whitespace and complete comments (`/* */`, and `//` to the end of its line) from `at`,
/// and whether a comment was among them: what a look-ahead across comments sees next.
pub(super) fn skip_blank_and_comments(bytes: &[u8], mut at: usize) -> (usize, bool) {
    let mut comment = false;
    loop {
        at = skip_blank(bytes, at);
        match bytes.get(at..at + 2) {
            Some(b"/*") => match memchr::memmem::find(&bytes[at + 2..], b"*/") {
                Some(end) => at += 2 + end + 2,
                None => return (at, comment),
            },
            Some(b"//") => match memchr::memchr(b'\n', &bytes[at..]) {
                Some(end) => at += end + 1,
                None => return (at, comment),
            },
            _ => return (at, comment),
        }
        comment = true;
    }
}

/// First byte of an identifier key or a literal word.
pub(super) const fn is_word_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || matches!(byte, b'_' | b'$')
}

/// Bytes of an identifier key or literal word after the first.
pub(super) const fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'$')
}

/// Bytes of an unquoted key: identifiers, plus the `-` and `.` of `max-tokens` or `a.b`,
/// plus leading digits (Python dicts with integer keys).
pub(super) const fn is_key_byte(byte: u8) -> bool {
    is_word_byte(byte) || matches!(byte, b'-' | b'.')
}

/// Bytes of a bare one-word value (`{"status": ok}`, `{"path": ./src/main.rs}`): anything but
/// whitespace, JSON punctuation, quotes and control characters. Non-ASCII bytes are allowed, so
/// `Zürich` is one word.
pub(super) const fn is_bare_byte(byte: u8) -> bool {
    !is_space(byte)
        && byte >= 0x20
        && !matches!(
            byte,
            b',' | b':' | b'{' | b'}' | b'[' | b']' | b'"' | b'\'' | b'`' | b'<'
        )
}

/// The literal words a value may be spelled as, in any dialect the parser understands.
pub(super) const LITERALS: [&str; 9] = [
    "true",
    "false",
    "null",
    "True",
    "False",
    "None",
    "NaN",
    "Infinity",
    "undefined",
];

/// Whether `word` is a proper prefix of a literal: a document that ends there was cut inside a
/// literal.
pub(super) fn is_literal_prefix(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    LITERALS
        .iter()
        .chain(&["nan", "inf", "infinity"])
        .any(|literal| {
            literal.len() > word.len() && (literal.starts_with(word) || literal.starts_with(&lower))
        })
}

/// The word (identifier bytes) starting at `at`.
pub(super) fn word_at(bytes: &[u8], at: usize) -> &[u8] {
    let mut end = at;
    while end < bytes.len() && is_word_byte(bytes[end]) {
        end += 1;
    }
    &bytes[at..end]
}

/// The first index at or after `at` that is not JSON whitespace.
pub(super) fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && is_space(bytes[at]) {
        at += 1;
    }
    at
}

/// Which typographic quote starts at `at`, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Smart {
    /// `“` or `”`.
    Double,
    /// `‘` or `’`.
    Single,
}

/// Every typographic quote is three bytes: `E2 80 98..=9D`.
pub(super) const SMART_LEN: usize = 3;

/// The typographic quote at `at`: U+2018/U+2019 (single) or U+201C/U+201D (double).
pub(super) fn smart_quote(bytes: &[u8], at: usize) -> Option<Smart> {
    if at + 2 >= bytes.len() || bytes[at] != 0xE2 || bytes[at + 1] != 0x80 {
        return None;
    }
    match bytes[at + 2] {
        0x98 | 0x99 => Some(Smart::Single),
        0x9C | 0x9D => Some(Smart::Double),
        _ => None,
    }
}

/// Whether a run of three or more backticks or tildes starts at `at`: a code fence, which ends
/// whatever document is open (the model closed its block).
pub(super) fn is_fence(bytes: &[u8], at: usize) -> bool {
    let byte = bytes[at];
    (byte == b'`' || byte == b'~')
        && at + 2 < bytes.len()
        && bytes[at + 1] == byte
        && bytes[at + 2] == byte
}

/// Whether a chat-template token starts at `at`: `<|im_end|>`, `<|eot_id|>`, `<|endoftext|>`
/// (any `<|word|>`), `</s>`, `<eos>`, `<end_of_turn>`, or DeepSeek's full-width `<｜...｜>`.
/// The model's turn ended there, so it ends the document like a closing fence.
pub(super) fn is_chat_token(bytes: &[u8], at: usize) -> bool {
    let rest = &bytes[at..];
    if rest.starts_with(b"</s>") || rest.starts_with(b"<eos>") || rest.starts_with(b"<end_of_turn>")
    {
        return true;
    }
    // "<｜" is '<' followed by U+FF5C.
    if rest.starts_with("<\u{ff5c}".as_bytes()) {
        return true;
    }
    if !rest.starts_with(b"<|") {
        return false;
    }
    let name = &rest[2..];
    let length = name
        .iter()
        .take(40)
        .take_while(|byte| byte.is_ascii_alphanumeric() || **byte == b'_')
        .count();
    length > 0 && name[length..].starts_with(b"|>")
}

/// Whether the document ends at `at`: a fence or a chat-template token.
pub(super) fn is_end_marker(bytes: &[u8], at: usize) -> bool {
    match bytes[at] {
        b'`' | b'~' => is_fence(bytes, at),
        b'<' => is_chat_token(bytes, at),
        _ => false,
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// A mask with the high bit set in (at least) the lowest byte of `word` that is zero; exact
/// for the lowest such byte, which is all a search needs.
const fn zero_bytes(word: u64) -> u64 {
    word.wrapping_sub(ONES) & !word & HIGHS
}

/// The eight bytes at `at`, the first lowest.
#[inline]
fn word_at_offset(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"))
}

/// The first index at or after `at` holding `quote` (a punctuation mark, never a letter), a
/// backslash or a control character, or `bytes.len()`. Eight bytes at a time: strings are most
/// of a document's bytes.
#[inline]
pub(super) fn find_in_string(bytes: &[u8], mut at: usize, quote: u8) -> usize {
    let quotes = ONES * quote as u64;
    let backslashes = ONES * b'\\' as u64;
    let special = |word: u64| {
        zero_bytes(word ^ quotes)
            | zero_bytes(word ^ backslashes)
            | (word.wrapping_sub(ONES * 0x20) & !word & HIGHS)
    };
    while at + 8 <= bytes.len() {
        let mask = special(word_at_offset(bytes, at));
        if mask != 0 {
            return at + (mask.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    if at < bytes.len() && bytes.len() >= 8 {
        // The last few bytes, in the word that ends with them. The bytes of it before `at` were
        // read already (one of them may be the special byte a caller just passed): they are
        // read as letters, no quote, so that no mark comes from them and none runs up from a
        // borrow of theirs.
        const LETTERS: u64 = ONES * b'a' as u64;
        let last = bytes.len() - 8;
        let read = (1u64 << (8 * (at - last))) - 1;
        let mask = special((word_at_offset(bytes, last) & !read) | (LETTERS & read));
        return match mask {
            0 => bytes.len(),
            _ => last + (mask.trailing_zeros() / 8) as usize,
        };
    }
    while at < bytes.len() {
        let byte = bytes[at];
        if byte == quote || byte == b'\\' || byte < 0x20 {
            return at;
        }
        at += 1;
    }
    bytes.len()
}

/// Like [`find_in_string`] for a string opened by a typographic quote: stops on a backslash, a
/// control character or the first byte of any three-byte `E2` character (which may close it).
pub(super) fn find_in_smart_string(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() {
        let byte = bytes[at];
        if byte == 0xE2 || byte == b'\\' || byte < 0x20 {
            return at;
        }
        at += 1;
    }
    bytes.len()
}

/// Whether `bytes` is mostly not text: at least 8 characters, and at least a quarter of all,
/// are control bytes other than whitespace, DEL, or U+FFFD (what invalid UTF-8 became). Random
/// bytes are about half that; an answer a model wrote, even with a raw control character or an
/// invalid byte in a string, is nowhere near. Counted in passes the compiler vectorizes.
pub(super) fn mostly_binary(bytes: &[u8]) -> bool {
    let characters = bytes.iter().filter(|byte| **byte & 0xC0 != 0x80).count();
    let control = bytes
        .iter()
        .filter(|byte| {
            (**byte < 0x20 && !matches!(**byte, b'\t' | b'\n' | b'\r')) || **byte == 0x7F
        })
        .count();
    let replaced = memchr::memmem::find_iter(bytes, "\u{fffd}".as_bytes()).count();
    let bad = control + replaced;
    bad >= 8 && bad * 4 >= characters
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_string_search_finds_the_first_special_byte_at_every_offset() {
        for length in 0..40 {
            for special in 0..length {
                for byte in [b'"', b'\\', b'\n', 0u8, 0x1f] {
                    let mut text = vec![b'a'; length];
                    text[special] = byte;
                    if special + 1 < length {
                        text[special + 1] = b'"';
                    }
                    assert_eq!(find_in_string(&text, 0, b'"'), special, "{text:?}");
                }
            }
            let plain = vec![b'x'; length];
            assert_eq!(find_in_string(&plain, 0, b'"'), length);
        }
        // The last bytes of a long text, after a special byte just passed: nothing before `at`
        // counts, nor marks a byte after it.
        for length in 8..24 {
            for special in 0..length {
                for (first, second) in [(b'"', b'#'), (b'\\', b']'), (0x01, b' '), (b'\n', b'"')] {
                    let mut text = vec![b'a'; length];
                    text[special] = first;
                    let next = (special + 1 < length).then(|| {
                        text[special + 1] = second;
                        special + 1
                    });
                    let expected = match next {
                        Some(next) if matches!(second, b'"' | b'\\') || second < 0x20 => next,
                        _ => length,
                    };
                    assert_eq!(
                        find_in_string(&text, special + 1, b'"'),
                        expected,
                        "{text:?}"
                    );
                }
            }
        }
        let text = "héllo ‘x’ \"".as_bytes();
        assert_eq!(find_in_string(text, 0, b'"'), text.len() - 1);
        assert_eq!(find_in_string(b"a'b\"", 0, b'\''), 1);
        assert_eq!(find_in_string(b"\x7f\x20~", 0, b'"'), 3);
    }

    #[test]
    fn markers_and_quotes_are_recognised() {
        assert!(is_chat_token(b"<|im_end|>", 0));
        assert!(is_chat_token(b"x</s>", 1));
        assert!(is_chat_token(
            "<\u{ff5c}end\u{2581}of\u{2581}sentence\u{ff5c}>".as_bytes(),
            0
        ));
        assert!(!is_chat_token(b"<|not a token", 0));
        assert!(!is_chat_token(b"<b>", 0));
        assert!(is_fence(b"```", 0));
        assert!(is_fence(b"~~~~", 0));
        assert!(!is_fence(b"``", 0));
        assert_eq!(smart_quote("“".as_bytes(), 0), Some(Smart::Double));
        assert_eq!(smart_quote("’".as_bytes(), 0), Some(Smart::Single));
        assert_eq!(smart_quote("…".as_bytes(), 0), None);
        assert!(is_literal_prefix("tr"));
        assert!(is_literal_prefix("Non"));
        assert!(!is_literal_prefix("true"));
        assert!(!is_literal_prefix("yes"));
    }

    #[test]
    fn unicode_spaces_are_recognised_and_skipped() {
        for space in [
            '\u{85}', '\u{a0}', '\u{1680}', '\u{2000}', '\u{2003}', '\u{200a}', '\u{200b}',
            '\u{2028}', '\u{2029}', '\u{202f}', '\u{205f}', '\u{2060}', '\u{3000}', '\u{feff}',
            '\u{180e}',
        ] {
            let text = format!("x{space}");
            assert_eq!(
                unicode_space(text.as_bytes(), 1),
                space.len_utf8(),
                "{space:?}"
            );
        }
        for other in ['é', '“', '’', '…', '\u{200c}', '\u{2061}', '中'] {
            let text = format!("x{other}");
            assert_eq!(unicode_space(text.as_bytes(), 1), 0, "{other:?}");
        }
        assert_eq!(unicode_space("\u{a0}".as_bytes(), 1), 0);
        let text = " \u{a0}\n\u{3000}\u{200b}\t:".as_bytes();
        assert_eq!(skip_blank(text, 0), text.len() - 1);
        assert_eq!(skip_blank(b"  ", 0), 2);
        assert_eq!(skip_blank("\u{e9}".as_bytes(), 0), 0);
    }
}
