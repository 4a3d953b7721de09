//! Markdown code fences, scanned once for every reader of an answer: the repair ladder (rung
//! `fence`, and the further fenced values `several` counts) and the extraction of tool calls
//! written as text.
//!
//! A fence is a run of three or more backticks or tildes; shorter runs are inline code. Runs are
//! paired in order, and a block closes only on a run of its own marker (tildes inside a
//! backtick block are content), so the closing fence of a Python block is not taken for the
//! opening of a JSON one. A block's content may start on the opening line, after a language
//! tag, or on the next. A closing run inside the document (in one of its strings) is content,
//! so a reader looks for the block's closing run only from where its document ends.

use super::scan::skip_blank;

/// A fenced block whose content starts with `{` or `[`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fence {
    /// Where the fence's opening run of backticks or tildes starts.
    pub(crate) opening: usize,
    /// The byte of the `{` or `[` that starts the content.
    pub(crate) content: usize,
}

/// Finds the first fenced block at or after `from` (any language tag or none, on its own line
/// or inline) whose content starts with `{` or `[`.
pub(crate) fn json_block(bytes: &[u8], from: usize) -> Option<Fence> {
    let mut at = from;
    let mut open: Option<u8> = None;
    while let Some(run) = run(bytes, at) {
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

/// The run that closes the block opened at `opening`, searching from `from` in the block: the
/// first run of its marker (a run of the other marker is content).
pub(crate) fn closing(bytes: &[u8], opening: usize, from: usize) -> Option<Run> {
    let marker = bytes[opening];
    let mut at = from;
    while let Some(run) = run(bytes, at) {
        if run.marker == marker {
            return Some(run);
        }
        at = run.end;
    }
    None
}

/// A run of three or more backticks or tildes, which opens or closes a fence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    /// Its first byte.
    pub(crate) start: usize,
    /// Just past its last byte.
    pub(crate) end: usize,
    /// The byte it repeats: a backtick or a tilde.
    marker: u8,
}

/// The first run at or after `from`; shorter runs are inline code and are passed over.
fn run(bytes: &[u8], from: usize) -> Option<Run> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_are_paired_and_need_json_content() {
        let text = "```python\nx = 1\n```\n{\"a\": 1}";
        assert_eq!(json_block(text.as_bytes(), 0), None);
        let text = "see ```json {\"a\": 1}``` ok";
        assert_eq!(
            json_block(text.as_bytes(), 0).map(|found| found.content),
            Some(12)
        );
        let text = "~~~\n[1]\n~~~";
        assert_eq!(
            json_block(text.as_bytes(), 0).map(|found| found.content),
            Some(4)
        );
        assert_eq!(json_block(b"``not a fence`` {", 0), None);
    }

    #[test]
    fn a_block_closes_on_its_own_marker_only() {
        let text = "```json\n{\"a\": 1}\n~~~\n````\n";
        let fence = json_block(text.as_bytes(), 0).unwrap();
        let run = closing(text.as_bytes(), fence.opening, fence.content).unwrap();
        assert_eq!(&text[run.start..run.end], "````");
        assert_eq!(closing(b"~~~\n[1]\n```", 0, 4), None);
    }
}
