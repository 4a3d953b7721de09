//! Backticks used as string quotes (`` {`a`: `b`} ``), closed by a backtick or by the acute
//! accent `´` that some keyboards put next to it (`` `a´ ``). When a text does not repair as
//! written, a second reading replaces each such quote that stands where a key or value starts,
//! and its closer, with `"` padded with spaces outside the string to the same length, so every
//! offset stays the one of the original. Inside a string they are content; a fence (three
//! backticks) is never a quote.

use super::fullwidth::after_opener_or_separator;

/// The acute accent, U+00B4.
const ACUTE: &[u8] = "\u{b4}".as_bytes();

/// The text with its backtick-quoted strings outside strings made `"`-quoted, and the offset of
/// the first; `None` when there is none. Strings are told apart the simple way: `"` or `'` opens
/// one and the same quote closes it, `\` escapes.
pub(super) fn ascii_quotes(text: &str) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    memchr::memchr(b'`', bytes)?;
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut first = None;
    let mut closer: Option<u8> = None;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        match closer {
            Some(_) if byte == b'\\' => {
                let end = (at + 2).min(bytes.len());
                out.extend_from_slice(&bytes[at..end]);
                at = end;
                continue;
            }
            Some(b'`') if byte == b'`' => {
                out.push(b'"');
                closer = None;
            }
            Some(b'`') if bytes[at..].starts_with(ACUTE) => {
                out.extend_from_slice(b"\" ");
                at += ACUTE.len();
                closer = None;
                continue;
            }
            Some(close) if byte == close => {
                out.push(byte);
                closer = None;
            }
            Some(_) => out.push(byte),
            None if byte == b'"' => {
                out.push(byte);
                closer = Some(b'"');
            }
            None if byte == b'\'' && after_opener_or_separator(&out) => {
                out.push(byte);
                closer = Some(b'\'');
            }
            None if byte == b'`'
                && bytes.get(at + 1) != Some(&b'`')
                && after_opener_or_separator(&out) =>
            {
                first.get_or_insert(at);
                out.push(b'"');
                closer = Some(b'`');
            }
            None => out.push(byte),
        }
        at += 1;
    }
    let first = first?;
    // Only ASCII and whole characters were replaced, by ASCII: the bytes are still UTF-8.
    String::from_utf8(out).ok().map(|text| (text, first))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backtick_quotes_become_double_quotes_and_offsets_stay() {
        let text = "{`a\u{b4}: `b`, \"c\": \"`x`\"}";
        let (ascii, first) = ascii_quotes(text).unwrap();
        assert_eq!(ascii.len(), text.len());
        assert_eq!(first, 1);
        assert_eq!(ascii, "{\"a\" : \"b\", \"c\": \"`x`\"}");
        assert_eq!(ascii_quotes("{\"a\": \"`x`\"}"), None);
        assert_eq!(ascii_quotes("{\"a\": 1}"), None);
        assert_eq!(ascii_quotes("Use `x` {\"a\": ```json}"), None);
    }
}
