//! Fuzzes what a server sends back: arbitrary bytes as a whole chat-completions body
//! (`parse_chat_response` of whatever JSON they hold) and as an event stream (the event reader
//! and the chunk assembler, as `Client::chat_stream` uses them). Beyond "no panic, no overflow,
//! no hang": the text assembled from a stream never has more characters than the stream has
//! bytes.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use slmcode::backends::fuzzing::{Assembler, Event, EventReader, parse_chat_response};

fuzz_target!(|data: &[u8]| {
    if let Ok(body) = serde_json::from_slice::<serde_json::Value>(data) {
        let _ = parse_chat_response(&body);
    }
    let mut events = EventReader::new(Cursor::new(data));
    let mut assembler = Assembler::new();
    loop {
        match events.next_event() {
            Ok(Event::Data(payload)) => {
                if let Ok(chunk) = serde_json::from_str::<serde_json::Value>(&payload) {
                    let _ = assembler.add(&chunk);
                }
            }
            Ok(Event::Error(_)) => {}
            Ok(Event::Done) | Err(_) => break,
        }
    }
    // In characters: a byte that is not UTF-8 is read as one U+FFFD, three bytes long.
    let assembled = assembler.content().chars().count() + assembler.reasoning().chars().count();
    assert!(assembled <= data.len(), "{assembled} characters out of {} bytes", data.len());
    let response = assembler.finish();
    let _ = response.tool_calls.len();
});
