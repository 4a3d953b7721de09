//! Fuzzes tool-call extraction with arbitrary bytes (read the way the CLI reads them: invalid
//! UTF-8 replaced) against the shipped tool set (`examples/tools.json`). Beyond "no panic, no
//! overflow, no hang": every call that comes out names a tool of the set and has arguments
//! that satisfy that tool's schema; serial extraction keeps at most one call; a call found
//! with serial tools is the first of the calls found without; and the two disagree on success
//! only when serial extraction dropped the later call that failed the other.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use slmcode::repair::{drop_deep, equal_deep};
use slmcode::schema::validate;
use slmcode::tools::{ExtractOptions, ToolSet, extract};

fn tools() -> &'static ToolSet {
    static TOOLS: OnceLock<ToolSet> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let text = include_str!("../../examples/tools.json");
        let value = serde_json::from_str(text).expect("the shipped tools are JSON");
        ToolSet::from_value(&value).expect("the shipped tools are a tool set")
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let tools = tools();
    let all = extract(
        &text,
        tools,
        &ExtractOptions::default().serial(false),
    );
    let serial = extract(&text, tools, &ExtractOptions::default());
    if let Ok(extraction) = &all {
        for call in &extraction.calls {
            let tool = tools.get(&call.name).expect("a call names a tool of the set");
            assert!(
                validate(&tool.parameters, &call.arguments).is_ok(),
                "{}: {}",
                call.name,
                call.arguments
            );
        }
    }
    match (&serial, &all) {
        (Ok(first), Ok(every)) => {
            assert!(first.calls.len() <= 1);
            let (Some(kept), Some(head)) = (first.calls.first(), every.calls.first()) else {
                panic!("one extraction found a call and the other none");
            };
            assert_eq!(kept.name, head.name);
            assert!(equal_deep(&kept.arguments, &head.arguments));
        }
        (Err(_), Err(_)) => {}
        // Serial tools drop every call after the first unread: one that fails (an unknown
        // tool, bad arguments) fails only the extraction that keeps it.
        (Ok(first), Err(_)) if !first.dropped.is_empty() => {}
        (serial, all) => panic!("serial {serial:?} but all {all:?}"),
    }
    for extraction in [serial, all].into_iter().flatten() {
        for call in extraction.calls {
            drop_deep(call.arguments);
        }
    }
});
