//! Fullwidth punctuation used as syntax. CJK input methods type `｛` `｝` `［` `］` `：` `，`
//! `＂` for the ASCII ones, and a model trained on such text writes them between tokens. When a
//! text does not repair as written, a second reading replaces each one that stands outside a
//! string with its ASCII twin padded with spaces to the same length, so every offset (and
//! every message's line and column) stays the one of the original; inside a string they are
//! content and stay.

/// Each fullwidth character (three UTF-8 bytes) and its ASCII twin.
const TWINS: [([u8; 3], u8); 7] = [
    ([0xEF, 0xBD, 0x9B], b'{'), // ｛ U+FF5B
    ([0xEF, 0xBD, 0x9D], b'}'), // ｝ U+FF5D
    ([0xEF, 0xBC, 0xBB], b'['), // ［ U+FF3B
    ([0xEF, 0xBC, 0xBD], b']'), // ］ U+FF3D
    ([0xEF, 0xBC, 0x9A], b':'), // ： U+FF1A
    ([0xEF, 0xBC, 0x8C], b','), // ， U+FF0C
    ([0xEF, 0xBC, 0x82], b'"'), // ＂ U+FF02
];

/// Whether a fullwidth twin starts at `at`: it ends a bare word, so that the text reads as
/// broken and gets its fullwidth reading.
pub(super) fn is_twin(bytes: &[u8], at: usize) -> bool {
    bytes[at] == 0xEF && twin(bytes, at).is_some()
}

fn twin(bytes: &[u8], at: usize) -> Option<u8> {
    let found = bytes.get(at..at + 3)?;
    TWINS
        .iter()
        .find(|(wide, _)| wide == found)
        .map(|(_, ascii)| *ascii)
}

/// The text with its fullwidth punctuation outside strings made ASCII, and the offset of the
/// first one; `None` when there is none outside strings. Strings are told apart the simple
/// way: `"` (or `＂`, or `“` up to `”`) opens one and the same kind closes it, `\` escapes.
pub(super) fn ascii_twin(text: &str) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    // Every fullwidth twin starts with 0xEF: a text without one is left alone at no cost.
    memchr::memchr(0xEF, bytes)?;
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut first = None;
    let mut closer: Option<&[u8]> = None;
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
            Some(close) if bytes[at..].starts_with(close) => {
                if close == "＂".as_bytes() {
                    out.extend_from_slice(b"\"  ");
                    first.get_or_insert(at);
                } else {
                    out.extend_from_slice(close);
                }
                at += close.len();
                closer = None;
                continue;
            }
            Some(_) => {}
            None if byte == b'"' => closer = Some(b"\""),
            // A single quote opens a string only where a key or value starts, so that an
            // apostrophe in a bare word does not.
            None if byte == b'\'' && after_opener_or_separator(&out) => closer = Some(b"'"),
            None if bytes[at..].starts_with("“".as_bytes()) => {
                closer = Some("”".as_bytes());
                out.extend_from_slice(&bytes[at..at + 3]);
                at += 3;
                continue;
            }
            None => {
                if let Some(ascii) = twin(bytes, at) {
                    first.get_or_insert(at);
                    if ascii == b'"' {
                        out.extend_from_slice(b"  \"");
                        closer = Some("＂".as_bytes());
                    } else {
                        out.extend_from_slice(&[ascii, b' ', b' ']);
                    }
                    at += 3;
                    continue;
                }
            }
        }
        out.push(byte);
        at += 1;
    }
    let first = first?;
    // Only whole characters were replaced, by ASCII: the bytes are still UTF-8.
    String::from_utf8(out).ok().map(|text| (text, first))
}

/// Whether the last non-blank byte written so far opens or separates (`{` `[` `(` `,` `:`).
pub(super) fn after_opener_or_separator(out: &[u8]) -> bool {
    out.iter()
        .rev()
        .find(|byte| !byte.is_ascii_whitespace())
        .is_some_and(|byte| matches!(byte, b'{' | b'[' | b'(' | b',' | b':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_punctuation_outside_strings_is_replaced_and_offsets_stay() {
        let text = "｛\"a\"：\"x，y\"，\"b\"：［1，2］｝";
        let (ascii, first) = ascii_twin(text).unwrap();
        assert_eq!(ascii.len(), text.len());
        assert_eq!(first, 0);
        let value: serde_json::Value = serde_json::from_str(&ascii).unwrap();
        assert_eq!(value, serde_json::json!({"a": "x，y", "b": [1, 2]}));
        assert_eq!(ascii_twin("{\"a\": \"x，y\"}"), None);
        assert_eq!(ascii_twin("{\"a\": 1}"), None);
        let (single, _) = ascii_twin("{'a'：'x，y'}").unwrap();
        assert_eq!(single, "{'a':  'x，y'}");
        let cut = crate::repair::repair("这是结果：{\"a\": 1", &Default::default()).unwrap_err();
        assert_eq!(cut.class, crate::repair::FailureClass::Truncated);
        assert!(cut.rungs_changed.is_empty());
        let (quoted, _) = ascii_twin("{＂a＂: 1}").unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&quoted).unwrap(),
            serde_json::json!({"a": 1})
        );
    }
}
