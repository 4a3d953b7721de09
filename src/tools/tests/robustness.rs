//! No text may panic extraction: texts stitched from the pieces calls are made of (tags, fences,
//! template tokens with multi-byte characters, brackets, quotes, Python calls, tool names),
//! cut anywhere.

use proptest::prelude::*;

use super::fixture;
use crate::tools::{ExtractOptions, extract};

const PIECES: [&str; 28] = [
    "<tool_call>",
    "</tool_call>",
    "<function=read_file>",
    "</function>",
    "<parameter=path>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "```json\n",
    "```tool_code\n",
    "```",
    "<｜tool▁call▁begin｜>",
    "<|tool_call_begin|>",
    "functions.read_file:0",
    "Action: search\nAction Input: ",
    "read_file(",
    "path='a.txt'",
    "content=\"\"\"",
    ")",
    "{\"name\": \"read_file\", \"arguments\": ",
    "{\"path\": \"é\"}",
    "{'query': 'x', ",
    "}",
    "[",
    "]",
    "\\",
    "ñ<",
    "True, None,",
    "<think>",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            (0..PIECES.len()).prop_map(|index| PIECES[index].to_owned()),
            "[a-z\"'{}()\\[\\],:= ñé▁｜\n]{0,6}",
        ],
        0..24,
    )
    .prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn extraction_never_panics(text in text(), serial in any::<bool>(), length in any::<bool>()) {
        let tools = fixture("coding_agent.json");
        let options = ExtractOptions { serial, finish_reason_length: length };
        let _ = extract(&text, &tools, &options);
        // Every prefix too: a model's text can stop anywhere.
        for (cut, _) in text.char_indices().step_by(3) {
            let _ = extract(&text[..cut], &tools, &options);
        }
    }
}
