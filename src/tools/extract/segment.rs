//! Finding where calls might be in a model's text, before anything is parsed.
//!
//! In order of preference (the first kind found is the only kind used, so the JSON inside a
//! `<tool_call>` block is not also read as bare JSON):
//! 1. tag blocks: `<tool_call>...</tool_call>` (Hermes, Qwen; also `tool_calls`,
//!    `function_call`, `tool_use`), `<function=NAME>...</function>` (Llama 3.1's custom format,
//!    and Qwen3-Coder's `<parameter=...>` form inside `<tool_call>`), and Mistral's
//!    `[TOOL_CALLS]NAME[ARGS]{...}`; a block that never closes runs to the end of the text;
//! 2. markdown code fences whose content starts with `{` or `[`, found as the repair ladder finds
//!    them ([`crate::repair::fence`]), each up to the closing fence after its document;
//! 3. bare JSON: each top-level `{` or `[` that really opens a value (a key or `}` after `{`,
//!    an object after `[`), up to its matching closer or the end of the text.
//!
//! Nothing here repairs JSON: a span goes to the repair ladder as it is. The bracket matching
//! only has to find where one document ends and the next prose begins; it follows double-quoted
//! strings (with escapes), and single-quoted ones where a value or key can start, because small
//! models write both.

use crate::repair::fence;

/// Where a candidate came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Origin {
    /// A `<tool_call>`-style block.
    ToolCallTag,
    /// `<function=NAME>` or `[TOOL_CALLS]NAME[ARGS]`: the name is outside the JSON.
    FunctionTag,
    /// A markdown code fence.
    Fence,
    /// JSON in the text itself.
    Bare,
}

/// One place a call might be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Segment<'text> {
    /// Where it came from.
    pub origin: Origin,
    /// The tool name given outside the JSON (`<function=NAME>`), if any.
    pub name: Option<&'text str>,
    /// What is in it.
    pub body: Body<'text>,
    /// Whether it runs to the end of the text (so `finish_reason: length` applies to it).
    pub at_end: bool,
    /// Whether other text surrounds it (bare JSON carved out of prose).
    pub surrounded: bool,
}

/// The content of a segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Body<'text> {
    /// Text for the repair ladder: a whole call, or (with a name) the arguments.
    Json(&'text str),
    /// `<parameter=KEY>VALUE</parameter>` pairs (Qwen3-Coder), values as written.
    Parameters(Vec<(&'text str, &'text str)>),
}

/// Tags whose content is one call.
const CALL_TAGS: [&str; 5] = [
    "tool_call",
    "tool_calls",
    "function_call",
    "tool_use",
    "toolcall",
];

/// The segments of `text`, in text order.
pub(super) fn segments(text: &str) -> Vec<Segment<'_>> {
    let spans = bare_spans(text, 0);
    // A tag or a fence inside a JSON string (a `<tool_call>` in a file's content) is content.
    let inside = InsideJson(&spans);
    let tagged = tag_blocks(text, &inside);
    if !tagged.is_empty() {
        return tagged;
    }
    let mistral = mistral_calls(text, &inside);
    if !mistral.is_empty() {
        return mistral;
    }
    let fenced = fences(text, &inside);
    if !fenced.is_empty() {
        return fenced;
    }
    spans
        .into_iter()
        .map(|(start, end, closed)| Segment {
            origin: Origin::Bare,
            name: None,
            body: Body::Json(&text[start..end]),
            at_end: !closed || text[end..].trim().is_empty(),
            surrounded: !text[..start].trim().is_empty() || !text[end..].trim().is_empty(),
        })
        .collect()
}

/// The bare JSON spans of a text, to tell markers in the text from markers in a string.
struct InsideJson<'spans>(&'spans [(usize, usize, bool)]);

impl InsideJson<'_> {
    /// Whether byte `at` lies inside a span (not at its first byte).
    fn contains(&self, at: usize) -> bool {
        self.span_end(at).is_some()
    }

    /// Where the span that byte `at` lies inside (not at its first byte) ends.
    fn span_end(&self, at: usize) -> Option<usize> {
        self.0
            .iter()
            .find(|&&(start, end, _)| start < at && at < end)
            .map(|&(_, end, _)| end)
    }
}

/// `<tool_call>` blocks, and `<function=...>` blocks outside them.
fn tag_blocks<'text>(text: &'text str, inside: &InsideJson<'_>) -> Vec<Segment<'text>> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = text[at..].find('<') {
        let start = at + offset;
        if inside.contains(start) {
            at = start + 1;
            continue;
        }
        let rest = &text[start + 1..];
        if let Some(tag) = CALL_TAGS.iter().find(|tag| starts_with_tag(rest, tag)) {
            let content_start = start + 1 + tag.len() + 1;
            let closing = format!("</{tag}>");
            let opening = format!("<{tag}>");
            let (content_end, next, closed) = block_end(text, content_start, &closing, &opening);
            let content = &text[content_start..content_end];
            let at_end = text[if closed { next } else { content_end }..]
                .trim()
                .is_empty();
            let inner = function_blocks(content, at_end);
            if inner.is_empty() {
                found.push(Segment {
                    origin: Origin::ToolCallTag,
                    name: None,
                    body: Body::Json(content),
                    at_end,
                    surrounded: false,
                });
            } else {
                found.extend(inner);
            }
            at = next;
        } else if rest.starts_with("function=") {
            let blocks = function_blocks(&text[start..], true);
            let Some(first) = blocks.into_iter().next() else {
                at = start + 1;
                continue;
            };
            let consumed = function_block_length(&text[start..]);
            let at_end = text[start + consumed..].trim().is_empty();
            found.push(Segment { at_end, ..first });
            at = start + consumed;
        } else {
            at = start + 1;
        }
    }
    found
}

fn starts_with_tag(rest: &str, tag: &str) -> bool {
    // Bytes, not a `str` slice: the text after `<` may be any UTF-8 (DeepSeek's `<｜...｜>`).
    let bytes = rest.as_bytes();
    bytes.len() > tag.len()
        && bytes[..tag.len()].eq_ignore_ascii_case(tag.as_bytes())
        && bytes[tag.len()] == b'>'
}

/// The end of a block's content, where scanning goes on, and whether it was closed: at the
/// closing tag, else before the next opening tag, else at the end.
fn block_end(text: &str, from: usize, closing: &str, opening: &str) -> (usize, usize, bool) {
    let lower_find = |needle: &str| find_ignore_case(&text[from..], needle).map(|at| from + at);
    match (lower_find(closing), lower_find(opening)) {
        (Some(close), Some(open)) if open < close => (open, open, false),
        (Some(close), _) => (close, close + closing.len(), true),
        (None, Some(open)) => (open, open, false),
        (None, None) => (text.len(), text.len(), false),
    }
}

fn find_ignore_case(haystack: &str, needle: &str) -> Option<usize> {
    let bytes = haystack.as_bytes();
    let pattern = needle.as_bytes();
    if pattern.len() > bytes.len() {
        return None;
    }
    (0..=bytes.len() - pattern.len())
        .find(|&start| bytes[start..start + pattern.len()].eq_ignore_ascii_case(pattern))
}

/// Every `<function=NAME>...</function>` in `content`.
fn function_blocks(content: &str, content_at_end: bool) -> Vec<Segment<'_>> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = content[at..].find("<function=") {
        let start = at + offset;
        let name_start = start + "<function=".len();
        let Some(name_length) = content[name_start..].find('>') else {
            break;
        };
        let name = content[name_start..name_start + name_length].trim();
        let body_start = name_start + name_length + 1;
        let (body_end, next, closed) = block_end(content, body_start, "</function>", "<function=");
        let body = &content[body_start..body_end];
        let at_end = content_at_end
            && content[if closed { next } else { body_end }..]
                .trim()
                .is_empty();
        let trimmed = body.trim_start();
        let body = if trimmed.starts_with('{') || !body.contains("<parameter=") {
            Body::Json(body)
        } else {
            Body::Parameters(parameters(body))
        };
        found.push(Segment {
            origin: Origin::FunctionTag,
            name: Some(name),
            body,
            at_end,
            surrounded: false,
        });
        at = next.max(start + 1);
    }
    found
}

/// How many bytes the first `<function=...>` block of `text` (which starts with it) takes.
fn function_block_length(text: &str) -> usize {
    let body_start = text.find('>').map_or(text.len(), |at| at + 1);
    let (_, next, _) = block_end(text, body_start, "</function>", "<function=");
    next
}

/// `<parameter=KEY>VALUE</parameter>` pairs; one line break after the opening tag and one
/// before the closing tag belong to the template, not the value.
fn parameters(body: &str) -> Vec<(&str, &str)> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = body[at..].find("<parameter=") {
        let key_start = at + offset + "<parameter=".len();
        let Some(key_length) = body[key_start..].find('>') else {
            break;
        };
        let key = body[key_start..key_start + key_length].trim();
        let value_start = key_start + key_length + 1;
        let (value_end, next, _) = block_end(body, value_start, "</parameter>", "<parameter=");
        let mut value = &body[value_start..value_end];
        value = value
            .strip_prefix("\r\n")
            .or_else(|| value.strip_prefix('\n'))
            .unwrap_or(value);
        value = value
            .strip_suffix("\r\n")
            .or_else(|| value.strip_suffix('\n'))
            .unwrap_or(value);
        found.push((key, value));
        at = next.max(key_start);
    }
    found
}

/// Mistral's `[TOOL_CALLS]NAME[ARGS]{...}` (the older `[TOOL_CALLS] [{...}]` is bare JSON).
fn mistral_calls<'text>(text: &'text str, inside: &InsideJson<'_>) -> Vec<Segment<'text>> {
    const MARKER: &str = "[TOOL_CALLS]";
    const ARGUMENTS: &str = "[ARGS]";
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = text[at..].find(MARKER) {
        if inside.contains(at + offset) {
            at += offset + 1;
            continue;
        }
        let name_start = at + offset + MARKER.len();
        let next_marker = text[name_start..]
            .find(MARKER)
            .map_or(text.len(), |at| name_start + at);
        let Some(arguments_at) = text[name_start..next_marker].find(ARGUMENTS) else {
            at = name_start;
            continue;
        };
        let name = text[name_start..name_start + arguments_at].trim();
        let body_start = name_start + arguments_at + ARGUMENTS.len();
        found.push(Segment {
            origin: Origin::FunctionTag,
            name: Some(name),
            body: Body::Json(&text[body_start..next_marker]),
            at_end: next_marker == text.len(),
            surrounded: false,
        });
        at = next_marker;
    }
    found
}

/// Code fences whose content starts with `{` or `[`, found by the repair ladder's scanner, each
/// up to its closing fence (or the end). The closing fence is looked for after the document
/// (up to the bracket that closes it): a fence inside one of its strings is content. A document
/// that never closes is cut off, so its block ends at the first closing fence after its start.
fn fences<'text>(text: &'text str, inside: &InsideJson<'_>) -> Vec<Segment<'text>> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(block) = fence::json_block(bytes, at) {
        if let Some(end) = inside.span_end(block.opening) {
            // A fence in a string of bare JSON: the rest of that document is content too.
            at = end;
            continue;
        }
        let document_end =
            matching_close(bytes, block.content).map_or(block.content, |close| close + 1);
        let (content_end, next, closed) = match fence::closing(bytes, block.opening, document_end) {
            Some(run) => (run.start, run.end, true),
            None => (text.len(), text.len(), false),
        };
        found.push(Segment {
            origin: Origin::Fence,
            name: None,
            body: Body::Json(&text[block.content..content_end]),
            at_end: text[if closed { next } else { content_end }..]
                .trim()
                .is_empty(),
            surrounded: false,
        });
        at = next;
    }
    found
}

/// Bare JSON spans from `from`: (start, end, closed).
pub(super) fn bare_spans(text: &str, from: usize) -> Vec<(usize, usize, bool)> {
    let bytes = text.as_bytes();
    let mut spans = Vec::new();
    let mut at = from;
    while at < bytes.len() {
        let Some(offset) = bytes[at..]
            .iter()
            .position(|&byte| byte == b'{' || byte == b'[')
        else {
            break;
        };
        let start = at + offset;
        if !opens_value(bytes, start) {
            at = start + 1;
            continue;
        }
        match matching_close(bytes, start) {
            Some(close) => {
                spans.push((start, close + 1, true));
                at = close + 1;
            }
            None => {
                spans.push((start, bytes.len(), false));
                break;
            }
        }
    }
    spans
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && bytes[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

/// Whether the `{` or `[` at `at` starts JSON rather than prose (`{name}`, `[1]`, `[x]`).
fn opens_value(bytes: &[u8], at: usize) -> bool {
    let next = skip_space(bytes, at + 1);
    let Some(&first) = bytes.get(next) else {
        // An opener at the very end: a call cut off at its first byte.
        return bytes[at] == b'{';
    };
    if bytes[at] == b'[' {
        return first == b'{';
    }
    // A typographic quote (“ or ‘, U+201C / U+2018) opens a key as well.
    if bytes[next..].starts_with("\u{201c}".as_bytes())
        || bytes[next..].starts_with("\u{2018}".as_bytes())
    {
        return true;
    }
    match first {
        b'"' | b'\'' | b'}' => true,
        byte if byte.is_ascii_alphabetic() || byte == b'_' => {
            let mut end = next;
            while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
                end += 1;
            }
            bytes.get(skip_space(bytes, end)) == Some(&b':')
        }
        _ => false,
    }
}

/// The index of the bracket that closes the one at `start`, or `None` when the text ends first.
fn matching_close(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut at = start;
    // The last byte outside a string that was not whitespace: decides whether `'` opens one.
    let mut previous = b' ';
    while at < bytes.len() {
        let byte = bytes[at];
        match byte {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            b'"' => at = string_end(bytes, at, b'"')?,
            b'\'' if matches!(previous, b'{' | b'[' | b',' | b':') => {
                at = string_end(bytes, at, b'\'')?;
            }
            _ => {}
        }
        if !bytes[at].is_ascii_whitespace() {
            previous = bytes[at];
        }
        at += 1;
    }
    None
}

/// The index of the quote that ends the string opened at `start`.
fn string_end(bytes: &[u8], start: usize, quote: u8) -> Option<usize> {
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            byte if byte == quote => return Some(at),
            _ => at += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json_bodies(text: &str) -> Vec<(Origin, Option<&str>, &str, bool)> {
        segments(text)
            .into_iter()
            .map(|segment| match segment.body {
                Body::Json(body) => (segment.origin, segment.name, body, segment.at_end),
                Body::Parameters(_) => panic!("parameters in {text:?}"),
            })
            .collect()
    }

    #[test]
    fn tag_blocks_closed_unclosed_and_repeated() {
        let text =
            "ok\n<tool_call>\n{\"a\":1}\n</tool_call>\n<TOOL_CALL>{\"b\":2}<tool_call>{\"c\":";
        assert_eq!(
            json_bodies(text),
            [
                (Origin::ToolCallTag, None, "\n{\"a\":1}\n", false),
                (Origin::ToolCallTag, None, "{\"b\":2}", false),
                (Origin::ToolCallTag, None, "{\"c\":", true),
            ]
        );
    }

    #[test]
    fn function_tags_with_json_or_parameters() {
        assert_eq!(
            json_bodies("<function=read_file>{\"path\": \"a\"}</function>"),
            [(
                Origin::FunctionTag,
                Some("read_file"),
                "{\"path\": \"a\"}",
                true
            )]
        );
        let text = "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\nline 1\nline 2\n</parameter>\n</function>\n</tool_call>";
        let found = segments(text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, Some("write_file"));
        assert_eq!(
            found[0].body,
            Body::Parameters(vec![("path", "a.txt"), ("content", "line 1\nline 2")])
        );
    }

    #[test]
    fn a_tag_of_multibyte_characters_is_not_a_call_tag() {
        let text = "<｜tool▁calls▁begin｜>hi <ñ> <tool_call>{\"a\": 1}</tool_call>";
        assert_eq!(
            json_bodies(text),
            [(Origin::ToolCallTag, None, "{\"a\": 1}", true)]
        );
    }

    #[test]
    fn mistral_markers() {
        assert_eq!(
            json_bodies("[TOOL_CALLS]search[ARGS]{\"q\": 1}[TOOL_CALLS]read[ARGS]{}"),
            [
                (Origin::FunctionTag, Some("search"), "{\"q\": 1}", false),
                (Origin::FunctionTag, Some("read"), "{}", true),
            ]
        );
    }

    #[test]
    fn fences_with_json_only() {
        let text = "```python\nprint({'a': 1})\n```\nthen\n```json\n{\"x\": 1}\n```\nbye";
        assert_eq!(
            json_bodies(text),
            [(Origin::Fence, None, "{\"x\": 1}\n", false)]
        );
    }

    #[test]
    fn a_fence_inside_a_fenced_string_does_not_close_the_block() {
        let text = "```json\n{\"md\": \"```sh\\nls\\n```\"}\n```\nok";
        assert_eq!(
            json_bodies(text),
            [(
                Origin::Fence,
                None,
                "{\"md\": \"```sh\\nls\\n```\"}\n",
                false
            )]
        );
        // A document that never closes runs to the first closing fence, as it did.
        let text = "```json\n{\"a\": [1\n```\n";
        assert_eq!(
            json_bodies(text),
            [(Origin::Fence, None, "{\"a\": [1\n", true)]
        );
    }

    #[test]
    fn bare_spans_skip_prose_braces_and_follow_strings() {
        let text = r#"Use {name} and [1]. {"a": "}{", 'b': 'x]'} then [{"c": 1}] and {"d": "#;
        let spans: Vec<&str> = bare_spans(text, 0)
            .into_iter()
            .map(|(start, end, _)| &text[start..end])
            .collect();
        assert_eq!(
            spans,
            [r#"{"a": "}{", 'b': 'x]'}"#, r#"[{"c": 1}]"#, r#"{"d": "#]
        );
        assert_eq!(bare_spans("{name: 1}", 0), [(0, 9, true)]);
    }
}
