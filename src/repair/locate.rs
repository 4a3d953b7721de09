//! Finding the document in a model's answer: past a reasoning block (`think`), inside the first
//! code fence that holds JSON (`fence`), or at the first `{` or `[` that really opens a value
//! (`extract`).
//!
//! "Really opens a value" is decided by looking a few bytes ahead: `{` must be followed by `}`
//! or by a key and `:`; `[` by `]` or by the start of a value. Prose such as `{the config}` or
//! `[button]` is skipped. A `{` or `[` followed by an escaped quote opens a document written
//! with escaped quotes (`{\"a\": 1}`, see `escaped.rs`). Every look-ahead is bounded (a key is
//! looked into for at most [`KEY_LOOKAHEAD`] bytes, nested openers at most 16 deep), so a search
//! over the whole text stays linear.

use super::rung::Rung;
use super::scan::{is_key_byte, is_space, is_word_start, skip_blank, smart_quote, word_at};

/// The reasoning tags thinking models wrap their thoughts in (`<think>...</think>`).
pub const REASONING_TAGS: [&str; 4] = ["think", "thinking", "reasoning", "thought"];

/// What a reasoning block at the start of the answer means for the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reasoning {
    /// No reasoning block.
    Absent,
    /// A reasoning block ends just before this byte: the answer starts here.
    Removed(usize),
    /// A reasoning block opens at this byte and never closes: the model was cut off while
    /// thinking.
    Unclosed(usize),
    /// A closing tag with no opening one starts at `tag` and ends just before `end`. It closes
    /// a block the chat template opened, unless it sits inside the document (in one of its
    /// strings): the caller decides, since that takes a parse.
    Orphan { tag: usize, end: usize },
}

/// Finds a reasoning block before the answer: `<think>...</think>` (or `thinking`,
/// `reasoning`, `thought`) at the start, or a closing `</think>` with no opening tag (chat
/// templates that open the block in the prompt). Braces inside the block are not the answer.
pub(crate) fn reasoning(text: &str) -> Reasoning {
    let start = text.len() - text.trim_start().len();
    let rest = &text[start..];
    for tag in REASONING_TAGS {
        let opening = format!("<{tag}>");
        if rest.starts_with(&opening) {
            let closing = format!("</{tag}>");
            return match rest[opening.len()..].find(&closing) {
                Some(offset) => Reasoning::Removed(start + opening.len() + offset + closing.len()),
                None => Reasoning::Unclosed(start),
            };
        }
    }
    // memmem, not `str::match_indices`: this runs over every malformed answer, and the
    // standard two-way search is slow for a two-byte needle.
    for offset in memchr::memmem::find_iter(text.as_bytes(), b"</") {
        let after = &text[offset + 2..];
        for tag in REASONING_TAGS {
            if after.starts_with(tag) && after[tag.len()..].starts_with('>') {
                return Reasoning::Orphan {
                    tag: offset,
                    end: offset + 2 + tag.len() + 1,
                };
            }
        }
    }
    Reasoning::Absent
}

/// The text inside the reasoning block `text` opens with (trimmed; `None` when there is none,
/// or nothing in it), and whether the block never closes: the answer ended inside it. A
/// closing tag with no opening one is not such a block: what precedes it may be the prompt's.
pub(crate) fn leading_reasoning(text: &str) -> Option<(&str, bool)> {
    let (block, unfinished) = match reasoning(text) {
        Reasoning::Removed(end) => {
            let block = &text[..end];
            (&block[..block.rfind("</")?], false)
        }
        Reasoning::Unclosed(start) => (&text[start..], true),
        Reasoning::Absent | Reasoning::Orphan { .. } => return None,
    };
    // Past the opening tag, which holds no `>` before its own.
    let inside = block.split_once('>')?.1.trim();
    (!inside.is_empty()).then_some((inside, unfinished))
}

/// The first code fence whose content starts with `{` or `[`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Fence {
    /// Where the fence's opening run of backticks or tildes starts.
    pub(super) opening: usize,
    /// The byte of the `{` or `[` that starts the content.
    pub(super) content: usize,
}

/// Finds the first fence (three or more backticks or tildes, any language tag or none, on its
/// own line or inline) whose content starts with `{` or `[`. Fences are paired in order, so the
/// closing fence of a Python block is not taken for the opening of a JSON one.
pub(super) fn fence(bytes: &[u8], from: usize) -> Option<Fence> {
    let mut at = from;
    let mut open: Option<u8> = None;
    while let Some(run) = fence_run(bytes, at) {
        at = run.end;
        match open {
            Some(opened) => {
                if opened == run.marker {
                    open = None;
                }
            }
            None => {
                let mut tag_end = run.end;
                while tag_end < bytes.len() && is_tag_byte(bytes[tag_end]) {
                    tag_end += 1;
                }
                let content = skip_blank(bytes, tag_end);
                if matches!(bytes.get(content), Some(b'{' | b'[')) {
                    return Some(Fence {
                        opening: run.start,
                        content,
                    });
                }
                open = Some(run.marker);
            }
        }
    }
    None
}

/// Where the fence that closes the block opened at `opening` ends, searching from `from` in
/// the block: the first run of its marker (a run of the other marker is content).
pub(super) fn fence_close_end(bytes: &[u8], opening: usize, from: usize) -> Option<usize> {
    let marker = bytes[opening];
    let mut at = from;
    while let Some(run) = fence_run(bytes, at) {
        if run.marker == marker {
            return Some(run.end);
        }
        at = run.end;
    }
    None
}

/// A run of three or more backticks or tildes, which opens or closes a fence.
struct Run {
    start: usize,
    end: usize,
    marker: u8,
}

/// The first run at or after `from`; shorter runs are inline code and are passed over.
fn fence_run(bytes: &[u8], from: usize) -> Option<Run> {
    let mut at = from;
    while let Some(offset) = memchr::memchr2(b'`', b'~', &bytes[at..]) {
        let start = at + offset;
        let marker = bytes[start];
        let mut end = start;
        while end < bytes.len() && bytes[end] == marker {
            end += 1;
        }
        if end - start >= 3 {
            return Some(Run { start, end, marker });
        }
        at = end;
    }
    None
}

fn is_tag_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'-' | b'+' | b'.' | b'#')
}

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
                after == bytes.len() || bytes[after] == b':'
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
    fn reasoning_blocks_are_found() {
        assert_eq!(reasoning("{\"a\": 1}"), Reasoning::Absent);
        let text = "<think>maybe {\"x\": 1}?</think>\n{\"a\": 1}";
        let Reasoning::Removed(at) = reasoning(text) else {
            panic!()
        };
        assert_eq!(&text[at..], "\n{\"a\": 1}");
        let text = "so {\"x\"} then</thinking>{\"a\": 1}";
        assert_eq!(
            reasoning(text),
            Reasoning::Orphan {
                tag: text.len() - 19,
                end: text.len() - 8
            }
        );
        assert_eq!(reasoning("  <think> still going {"), Reasoning::Unclosed(2));
    }

    #[test]
    fn the_reasoning_inside_a_leading_block_and_whether_it_closed() {
        assert_eq!(
            leading_reasoning("  <think>\nThe plan:"),
            Some(("The plan:", true))
        );
        assert_eq!(leading_reasoning("<thought>x"), Some(("x", true)));
        assert_eq!(leading_reasoning("<think>x</think>{}"), Some(("x", false)));
        assert_eq!(leading_reasoning("{\"a\": \"<think>\"}"), None);
        assert_eq!(
            leading_reasoning("<think>\n  why  \n</think>{}"),
            Some(("why", false))
        );
        assert_eq!(leading_reasoning("<reasoning>cut"), Some(("cut", true)));
        assert_eq!(leading_reasoning("<think></think>{}"), None);
        assert_eq!(leading_reasoning("{}"), None);
        assert_eq!(leading_reasoning("the prompt's</think>{}"), None);
    }

    #[test]
    fn fences_are_paired_and_need_json_content() {
        let text = "```python\nx = 1\n```\n{\"a\": 1}";
        assert_eq!(fence(text.as_bytes(), 0), None);
        let text = "see ```json {\"a\": 1}``` ok";
        assert_eq!(
            fence(text.as_bytes(), 0).map(|found| found.content),
            Some(12)
        );
        let text = "~~~\n[1]\n~~~";
        assert_eq!(
            fence(text.as_bytes(), 0).map(|found| found.content),
            Some(4)
        );
        assert_eq!(fence(b"``not a fence`` {", 0), None);
    }

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
    }
}
