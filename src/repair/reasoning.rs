//! The reasoning block a thinking model writes before its answer (`<think>...</think>` and its
//! kin), found once for every reader of an answer: the repair ladder (rung `think`), the
//! extraction of tool calls written as text, the probe and the call path's enforcement check,
//! and the reasoning a call reports beside its value.
//!
//! A block counts when it opens the answer (after whitespace) and ends at the first closing tag
//! of its own name; braces inside it are not the answer. A closing tag with no opening one
//! closes a block the chat template opened in the prompt, unless it sits inside the document
//! (in one of its strings: `{"html": "</think>"}`), which takes a parse to tell.

use super::locate;

/// The reasoning tags thinking models wrap their thoughts in (`<think>...</think>`).
pub const REASONING_TAGS: [&str; 4] = ["think", "thinking", "reasoning", "thought"];

/// The closing tag of each of [`REASONING_TAGS`], in the same order: for a reader that must
/// match a tag in a stream before it has the whole answer (the call path's watcher).
pub(crate) const CLOSING_TAGS: [&str; 4] =
    ["</think>", "</thinking>", "</reasoning>", "</thought>"];

/// What a reasoning block at the start of the answer means for the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reasoning {
    /// No reasoning block.
    Absent,
    /// A reasoning block opens the text and ends just before this byte: the answer starts here.
    Removed(usize),
    /// A reasoning block opens at `at` with `<tag>` and never closes: the model was cut off
    /// while thinking.
    Unclosed { at: usize, tag: &'static str },
    /// A closing tag with no opening one, outside the document, ends just before this byte: it
    /// closes a block the chat template opened, and the answer starts here.
    Orphan(usize),
}

/// Finds the reasoning block before the answer in `text`: `<think>...</think>` (or
/// `thinking`, `reasoning`, `thought`) at the start, or a closing tag with no opening one that
/// lies outside the document.
pub(crate) fn reasoning(text: &str) -> Reasoning {
    let start = text.len() - text.trim_start().len();
    let rest = &text[start..];
    for tag in REASONING_TAGS {
        let opening = format!("<{tag}>");
        if rest.starts_with(&opening) {
            let closing = format!("</{tag}>");
            return match rest[opening.len()..].find(&closing) {
                Some(offset) => Reasoning::Removed(start + opening.len() + offset + closing.len()),
                None => Reasoning::Unclosed { at: start, tag },
            };
        }
    }
    match orphan(text) {
        Some((tag, end)) if !inside_document(text, tag) => Reasoning::Orphan(end),
        _ => Reasoning::Absent,
    }
}

/// The first closing tag in `text`: where it starts and where it ends.
fn orphan(text: &str) -> Option<(usize, usize)> {
    // memmem, not `str::match_indices`: this runs over every malformed answer, and the
    // standard two-way search is slow for a two-byte needle.
    for offset in memchr::memmem::find_iter(text.as_bytes(), b"</") {
        let after = &text[offset + 2..];
        for tag in REASONING_TAGS {
            if after.starts_with(tag) && after[tag.len()..].starts_with('>') {
                return Some((offset, offset + 2 + tag.len() + 1));
            }
        }
    }
    None
}

/// Whether the tag at `tag` lies inside the first document of `text` (`{"html": "</think>"}`):
/// then it is content.
fn inside_document(text: &str, tag: usize) -> bool {
    locate::candidate(text.as_bytes(), 0)
        .is_some_and(|first| first < tag && super::spans_past(text, first, tag))
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
        Reasoning::Unclosed { at, .. } => (&text[at..], true),
        Reasoning::Absent | Reasoning::Orphan(_) => return None,
    };
    // Past the opening tag, which holds no `>` before its own.
    let inside = block.split_once('>')?.1.trim();
    (!inside.is_empty()).then_some((inside, unfinished))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_closing_tag_closes_its_reasoning_tag() {
        for (tag, closing) in REASONING_TAGS.iter().zip(CLOSING_TAGS) {
            assert_eq!(format!("</{tag}>"), closing);
        }
    }

    #[test]
    fn reasoning_blocks_are_found() {
        assert_eq!(reasoning("{\"a\": 1}"), Reasoning::Absent);
        let text = "<think>maybe {\"x\": 1}?</think>\n{\"a\": 1}";
        let Reasoning::Removed(at) = reasoning(text) else {
            panic!()
        };
        assert_eq!(&text[at..], "\n{\"a\": 1}");
        let text = "so {\"x\"} then</thinking>{\"a\": 1}";
        assert_eq!(reasoning(text), Reasoning::Orphan(text.len() - 8));
        assert_eq!(
            reasoning("  <think> still going {"),
            Reasoning::Unclosed {
                at: 2,
                tag: "think"
            }
        );
        assert_eq!(
            reasoning("<reasoning>cut"),
            Reasoning::Unclosed {
                at: 0,
                tag: "reasoning"
            }
        );
    }

    #[test]
    fn a_block_ends_at_its_first_closing_tag() {
        let text = "<think>a</think>{\"note\": \"ends with </think>\"}";
        assert_eq!(reasoning(text), Reasoning::Removed(16));
    }

    #[test]
    fn a_closing_tag_inside_the_document_is_content() {
        assert_eq!(reasoning("{\"html\": \"</think>\"}"), Reasoning::Absent);
        assert_eq!(reasoning("Here: {'a': 'x</thought>y'}"), Reasoning::Absent);
        let text = "I'd say {\"a\": 0}.</think>{\"a\": \"</think>\"}";
        assert_eq!(reasoning(text), Reasoning::Orphan(25));
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
}
