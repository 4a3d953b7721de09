//! A whole document written with escaped quotes and no outer quotes, as models write it after
//! seeing JSON inside a JSON string: `{\"a\": \"b\", \"n\": 1}`, often with `\n` for its line
//! breaks, sometimes escaped twice (`{\\"a\\": 1}`). Read as written, its structure is
//! unreadable (a key cannot start with a backslash); unescaped once, it is JSON.
//!
//! The reading is taken only where nothing else fits: when the opener that starts the document
//! is followed by an escaped quote (after spaces and escaped line breaks) and that quoted text
//! ends with the same escape and `:` (an object's first key) or `,`/`]` (an array's first
//! string), or by an opener that is itself escaped that way. A `{` followed by a real quote is
//! read as written, so `{"s": "{\"a\": 1}"}` keeps its string and its escapes. The fix belongs
//! to the `escapes` rung; whatever else the unescaped document needs is attributed as usual.

use super::parse::Stop;
use super::scan::skip_blank;

/// How far the first key or string of an escaped document is looked into.
const LOOKAHEAD: usize = 256;

/// How many times a document is unescaped at most (`\"`, `\\\"`, ...).
const MAX_LEVELS: usize = 4;

/// Whether the `{` or `[` at `at` opens a document written with escaped quotes.
pub(super) fn opens(bytes: &[u8], at: usize) -> bool {
    opens_within(bytes, at, 16)
}

fn opens_within(bytes: &[u8], at: usize, budget: u32) -> bool {
    let next = skip_escaped_space(bytes, at + 1);
    match bytes.get(next) {
        Some(b'{' | b'[') => budget > 0 && opens_within(bytes, next, budget - 1),
        Some(b'\\') => {
            let run = backslashes(bytes, next);
            bytes.get(next + run) == Some(&b'"')
                && quoted_then(bytes, next + run + 1, run, bytes[at] == b'{')
        }
        _ => false,
    }
}

/// After an opening quote escaped by `run` backslashes: whether the same escape closes it on
/// the same line and is followed by `:` (`key`) or by `,` or `]`. A text that ends inside a
/// key (a document cut off there) counts as a yes; inside an array's first string it does not,
/// since `[\"` also starts prose such as a pattern `[\"']`.
fn quoted_then(bytes: &[u8], start: usize, run: usize, key: bool) -> bool {
    let end = bytes.len().min(start + LOOKAHEAD);
    let mut at = start;
    while at < end {
        match bytes[at] {
            b'\n' => return false,
            b'"' => {
                let escapes = bytes[start..at]
                    .iter()
                    .rev()
                    .take_while(|byte| **byte == b'\\')
                    .count();
                if escapes < run {
                    // A quote escaped less than the document's own: not this reading.
                    return false;
                }
                if escapes == run {
                    let after = skip_escaped_space(bytes, at + 1);
                    return match bytes.get(after) {
                        None => true,
                        Some(b':') => key,
                        Some(b',' | b']') => !key,
                        Some(_) => false,
                    };
                }
            }
            _ => {}
        }
        at += 1;
    }
    key && at >= bytes.len()
}

/// Skips whitespace and escaped whitespace (`\n`, `\t`, `\r` behind any number of
/// backslashes).
fn skip_escaped_space(bytes: &[u8], mut at: usize) -> usize {
    loop {
        at = skip_blank(bytes, at);
        if bytes.get(at) != Some(&b'\\') {
            return at;
        }
        let run = backslashes(bytes, at);
        if !matches!(bytes.get(at + run), Some(b'n' | b't' | b'r')) {
            return at;
        }
        at += run + 1;
    }
}

fn backslashes(bytes: &[u8], at: usize) -> usize {
    bytes[at..]
        .iter()
        .take_while(|byte| **byte == b'\\')
        .count()
}

/// The text from an escaped document's opener to the end, unescaped as often as it takes for
/// the opener to read as JSON, and how to find an offset of it in the original text.
pub(super) struct Unescaped {
    pub(super) text: String,
    /// Per level, outermost first: `(offset in the unescaped text, offset in the text it was
    /// unescaped from)` after every escape, in increasing order.
    levels: Vec<Vec<(usize, usize)>>,
}

impl Unescaped {
    /// Unescapes `text` from `start`, which [`opens`] an escaped document.
    pub(super) fn new(text: &str, start: usize) -> Unescaped {
        let (mut current, marks) = unescape_once(text, start);
        let mut levels = vec![marks];
        while levels.len() < MAX_LEVELS && opens(current.as_bytes(), 0) {
            let (next, marks) = unescape_once(&current, 0);
            current = next;
            levels.push(marks);
        }
        Unescaped {
            text: current,
            levels,
        }
    }

    /// The offset in the original text of offset `at` of the unescaped one.
    pub(super) fn original(&self, mut at: usize) -> usize {
        for marks in self.levels.iter().rev() {
            let index = marks.partition_point(|(unescaped, _)| *unescaped <= at);
            let (unescaped, source) = marks[index - 1];
            at = source + (at - unescaped);
        }
        at
    }

    /// `stop` with its offset moved to the original text.
    pub(super) fn original_stop(&self, stop: Stop) -> Stop {
        match stop {
            Stop::Cut(cut, at) => Stop::Cut(cut, self.original(at)),
            Stop::Broken { at, expected } => Stop::Broken {
                at: self.original(at),
                expected,
            },
            Stop::TooDeep(at) => Stop::TooDeep(self.original(at)),
            Stop::Needs(rung, at) => Stop::Needs(rung, self.original(at)),
        }
    }
}

/// One level of JSON string unescaping of `text[start..]`: `\"` `\\` `\/` `\b` `\f` `\n` `\r`
/// `\t` and `\uXXXX` become what they stand for; anything else (an unknown escape, a surrogate
/// escape, which the parser pairs or replaces itself, a raw quote) is kept as it is.
fn unescape_once(text: &str, start: usize) -> (String, Vec<(usize, usize)>) {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() - start);
    let mut marks = vec![(0, start)];
    let mut chunk = start;
    let mut at = start;
    while let Some(offset) = memchr::memchr(b'\\', &bytes[at..]) {
        at += offset;
        let plain = match bytes.get(at + 1) {
            Some(b'"') => Some('"'),
            Some(b'\\') => Some('\\'),
            Some(b'/') => Some('/'),
            Some(b'b') => Some('\u{8}'),
            Some(b'f') => Some('\u{c}'),
            Some(b'n') => Some('\n'),
            Some(b'r') => Some('\r'),
            Some(b't') => Some('\t'),
            Some(b'u') => text
                .get(at + 2..at + 6)
                .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                .and_then(char::from_u32),
            _ => None,
        };
        let Some(plain) = plain else {
            at += 1;
            continue;
        };
        out.push_str(&text[chunk..at]);
        out.push(plain);
        at += if bytes[at + 1] == b'u' { 6 } else { 2 };
        chunk = at;
        marks.push((out.len(), at));
    }
    out.push_str(&text[chunk..]);
    (out, marks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_openers_are_recognised() {
        for text in [
            r#"{\"a\": 1}"#,
            r#"{ \"a\" : 1}"#,
            r#"{\n  \"a\": 1\n}"#,
            r#"[{\"a\": 1}]"#,
            r#"[\"a\", \"b\"]"#,
            r#"[\"only\"]"#,
            r#"{\\"a\\": 1}"#,
            r#"{\\\"a\\\": 1}"#,
            r#"{\"cut"#,
            r#"{\"a \\\"quoted\\\" key\": 1}"#,
        ] {
            assert!(opens(text.as_bytes(), 0), "{text}");
        }
        for text in [
            r#"{"a": 1}"#,
            r#"{\"a": 1}"#,
            r#"[\"'] is a pattern"#,
            r#"{\"a\" is a key}"#,
            r#"{\d+}"#,
            "{\\\"a\nb\\\": 1}",
            r#"[\"a\": 1]"#,
        ] {
            assert!(!opens(text.as_bytes(), 0), "{text}");
        }
    }

    #[test]
    fn unescaping_keeps_what_it_cannot_read_and_maps_offsets_back() {
        let text = r#"x {\"a\": \"\\d\u00e9\ud83d\", \"b\": \"\q\"}"#;
        let unescaped = Unescaped::new(text, 2);
        assert_eq!(unescaped.text, r#"{"a": "\dé\ud83d", "b": "\q"}"#);
        let b = unescaped.text.find("\"b\"").unwrap();
        assert_eq!(
            &text[unescaped.original(b)..unescaped.original(b) + 3],
            r#"\"b"#
        );
        assert_eq!(unescaped.original(0), 2);
        let twice = Unescaped::new(r#"{\\\"a\\\": [\\\"x\\\"]}"#, 0);
        assert_eq!(twice.text, r#"{"a": ["x"]}"#);
        assert_eq!(twice.original(twice.text.len()), 24);
        assert_eq!(twice.original(twice.text.find('[').unwrap()), 12);
        assert_eq!(Unescaped::new(r#"[\"a\\"#, 0).text, r#"["a\"#);
    }
}
