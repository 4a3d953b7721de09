//! The server-sent events of a `stream: true` answer, read one event at a time
//! ([`EventReader`]), and the chunks assembled into the same [`ChatResponse`] a whole answer
//! gives ([`Assembler`]): the content and the reasoning as they grow, tool calls joined by their
//! index, the finish reason, and the usage of the last chunk that has one. No I/O of its own: the
//! exchange that reads them is [`super::stream`].
//!
//! Events are read line by line with a bound on the line ([`MAX_LINE`]), so a server that never
//! sends a line break cannot make the reader buffer without end. `data: [DONE]` ends the stream;
//! `: comments` (keep-alives) and fields other than `data` and `error` are skipped; an `error`
//! field (llama.cpp) or a `data` payload with an `error` member (vLLM, OpenAI) is the server
//! failing mid-answer.

use std::io::{self, BufRead};

use serde_json::Value;

use super::chat::{ChatResponse, REASONING_FIELDS, ToolCall, Usage, parse_usage};

/// The longest line of an event stream that is read; a longer one is an error.
pub const MAX_LINE: usize = 4 * 1024 * 1024;

/// One event of the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A `data` payload (several `data` lines of one event joined with `\n`).
    Data(String),
    /// The server reported an error in the stream.
    Error(String),
    /// `data: [DONE]`, or the end of the body.
    Done,
}

/// Reads the events of a server-sent event stream.
pub struct EventReader<R> {
    reader: R,
    line: Vec<u8>,
    /// Whether the body ended.
    ended: bool,
    /// Whether a `data` line was read.
    saw_data: bool,
}

impl<R: BufRead> EventReader<R> {
    /// A reader of the event stream in `reader`.
    pub fn new(reader: R) -> EventReader<R> {
        EventReader {
            reader,
            line: Vec::new(),
            ended: false,
            saw_data: false,
        }
    }

    /// Whether a `data` line has been read (`[DONE]` is one). A body that ends without one
    /// was no event stream at all, whatever its type said.
    pub fn saw_data(&self) -> bool {
        self.saw_data
    }

    /// The next event; [`Event::Done`] at `[DONE]` and at the end of the body.
    pub fn next_event(&mut self) -> io::Result<Event> {
        let mut data: Option<String> = None;
        loop {
            if self.ended {
                return Ok(data.map_or(Event::Done, classify));
            }
            if !self.read_line()? {
                self.ended = true;
                continue;
            }
            let line = String::from_utf8_lossy(&self.line);
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                match data.take() {
                    Some(payload) => return Ok(classify(payload)),
                    None => continue,
                }
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
                None => (line, ""),
            };
            match field {
                "data" => {
                    self.saw_data = true;
                    match &mut data {
                        Some(payload) => {
                            payload.push('\n');
                            payload.push_str(value);
                        }
                        None => data = Some(value.to_owned()),
                    }
                }
                "error" => return Ok(Event::Error(value.to_owned())),
                _ => {}
            }
        }
    }

    /// Reads one line (with its line break) into `self.line`; false at the end of the body.
    fn read_line(&mut self) -> io::Result<bool> {
        self.line.clear();
        loop {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                return Ok(!self.line.is_empty());
            }
            let (used, complete) = match memchr::memchr(b'\n', available) {
                Some(at) => (at + 1, true),
                None => (available.len(), false),
            };
            if self.line.len() + used > MAX_LINE {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a line of the event stream is longer than {MAX_LINE} bytes"),
                ));
            }
            self.line.extend_from_slice(&available[..used]);
            self.reader.consume(used);
            if complete {
                return Ok(true);
            }
        }
    }
}

fn classify(payload: String) -> Event {
    if payload.trim() == "[DONE]" {
        Event::Done
    } else {
        Event::Data(payload)
    }
}

/// A tool call whose parts arrive over several chunks.
#[derive(Clone, Debug, Default)]
struct PartialCall {
    index: u64,
    id: Option<String>,
    name: String,
    arguments: String,
}

/// Joins the chunks of a streamed answer (the first choice).
#[derive(Clone, Debug, Default)]
pub struct Assembler {
    content: String,
    reasoning: String,
    saw_content: bool,
    calls: Vec<PartialCall>,
    finish_reason: Option<String>,
    usage: Usage,
    model: Option<String>,
    /// The first chunk, while no chunk has had a `choices` member: what an error quotes when
    /// none ever does.
    first_without_choices: Option<String>,
    saw_choices: bool,
    /// Chunks that carried content or reasoning text: one token each on the engines that
    /// stream token by token.
    pub text_chunks: u64,
}

/// What one chunk added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Added {
    /// Bytes of content added.
    pub content: usize,
    /// Bytes of reasoning added.
    pub reasoning: usize,
}

impl Assembler {
    /// An assembler that has seen nothing.
    pub fn new() -> Assembler {
        Assembler::default()
    }

    /// The content so far.
    pub fn content(&self) -> &str {
        &self.content
    }

    /// The reasoning so far (`reasoning_content`, `reasoning` or `thinking` deltas).
    pub fn reasoning(&self) -> &str {
        &self.reasoning
    }

    /// Adds one chunk (a `chat.completion.chunk` object). A chunk that carries an `error`
    /// member is the server failing mid-answer: its message is the error.
    pub fn add(&mut self, chunk: &Value) -> Result<Added, String> {
        if let Some(error) = chunk.get("error") {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            return Err(message);
        }
        if let Some(model) = chunk.get("model").and_then(Value::as_str) {
            self.model.get_or_insert_with(|| model.to_owned());
        }
        if let Some(usage) = chunk.get("usage").filter(|usage| usage.is_object()) {
            self.usage = parse_usage(usage);
        }
        let mut added = Added::default();
        if chunk.get("choices").is_some() {
            self.saw_choices = true;
            self.first_without_choices = None;
        } else if !self.saw_choices && self.first_without_choices.is_none() {
            self.first_without_choices = Some(chunk.to_string());
        }
        let Some(choice) = chunk.get("choices").and_then(|choices| choices.get(0)) else {
            return Ok(added);
        };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
        }
        let Some(delta) = choice.get("delta") else {
            return Ok(added);
        };
        match delta.get("content") {
            Some(Value::String(text)) => {
                self.saw_content = true;
                self.content.push_str(text);
                added.content = text.len();
            }
            Some(Value::Array(parts)) => {
                self.saw_content = true;
                for text in parts
                    .iter()
                    .filter_map(|part| part.get("text").and_then(Value::as_str))
                {
                    self.content.push_str(text);
                    added.content += text.len();
                }
            }
            _ => {}
        }
        if let Some(text) = REASONING_FIELDS
            .iter()
            .find_map(|field| delta.get(*field).and_then(Value::as_str))
        {
            self.reasoning.push_str(text);
            added.reasoning += text.len();
        }
        if added.content + added.reasoning > 0 {
            self.text_chunks += 1;
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                self.add_call(position as u64, call);
            }
        }
        Ok(added)
    }

    fn add_call(&mut self, position: u64, call: &Value) {
        let index = call
            .get("index")
            .and_then(Value::as_u64)
            .unwrap_or(position);
        let slot = match self.calls.iter().position(|known| known.index == index) {
            Some(slot) => slot,
            None => {
                self.calls.push(PartialCall {
                    index,
                    ..PartialCall::default()
                });
                self.calls.len() - 1
            }
        };
        let partial = &mut self.calls[slot];
        if let Some(id) = call.get("id").and_then(Value::as_str) {
            partial.id = Some(id.to_owned());
        }
        if let Some(function) = call.get("function") {
            if let Some(name) = function.get("name").and_then(Value::as_str) {
                partial.name.push_str(name);
            }
            match function.get("arguments") {
                Some(Value::String(text)) => partial.arguments.push_str(text),
                Some(Value::Null) | None => {}
                Some(other) => partial.arguments.push_str(&other.to_string()),
            }
        }
    }

    /// Why the chunks so far are no chat completion: there were some, and none had a
    /// `choices` member (the usage chunk has an empty one). Worded as for a whole answer.
    pub fn not_a_completion(&self) -> Option<String> {
        self.first_without_choices.as_ref().map(|chunk| {
            format!(
                "the answer is not a chat completion (no chunk of its stream has choices): {chunk}"
            )
        })
    }

    /// The answer the chunks make.
    pub fn finish(self) -> ChatResponse {
        let mut calls = self.calls;
        calls.sort_by_key(|call| call.index);
        ChatResponse {
            content: (self.saw_content || calls.is_empty()).then_some(self.content),
            reasoning: (!self.reasoning.is_empty()).then_some(self.reasoning),
            finish_reason: self.finish_reason,
            usage: self.usage,
            tool_calls: calls
                .into_iter()
                .filter(|call| !call.name.is_empty())
                .map(|call| ToolCall {
                    id: call.id,
                    name: call.name,
                    arguments: call.arguments,
                })
                .collect(),
            model: self.model,
        }
    }
}

#[cfg(test)]
mod tests {
    //! Unit tests of the event reader and the chunk assembler; the exchange that reads them is
    //! tested against the emulator (`backends::tests`) and the real server (`tests/e2e`).

    use std::io::Cursor;

    use serde_json::json;

    use super::*;

    fn events(text: &str) -> Vec<Event> {
        let mut reader = EventReader::new(Cursor::new(text.as_bytes().to_vec()));
        let mut all = Vec::new();
        loop {
            let event = reader.next_event().unwrap();
            let done = event == Event::Done;
            all.push(event);
            if done {
                return all;
            }
        }
    }

    #[test]
    fn events_are_split_on_blank_lines_with_comments_and_other_fields_skipped() {
        let text = ": keep-alive\n\ndata: {\"a\":1}\n\nevent: message\nid: 7\ndata: {\"b\":\r\ndata: 2}\r\n\r\ndata:[DONE]\n\ndata: {\"late\":1}\n\n";
        assert_eq!(
            events(text),
            [
                Event::Data("{\"a\":1}".to_owned()),
                Event::Data("{\"b\":\n2}".to_owned()),
                Event::Done
            ]
        );
    }

    #[test]
    fn an_error_field_and_a_body_that_ends_without_done() {
        assert_eq!(
            events("data: {\"x\":1}\n\nerror: {\"message\":\"boom\"}\n\n"),
            [
                Event::Data("{\"x\":1}".to_owned()),
                Event::Error("{\"message\":\"boom\"}".to_owned()),
                Event::Done,
            ]
        );
        assert_eq!(
            events("data: {\"x\":1}"),
            [Event::Data("{\"x\":1}".to_owned()), Event::Done]
        );
        assert_eq!(events(""), [Event::Done]);
        // `[DONE]` is the end also when the body stops before the blank line after it.
        assert_eq!(
            events("data: {\"x\":1}\n\ndata: [DONE]"),
            [Event::Data("{\"x\":1}".to_owned()), Event::Done]
        );
    }

    #[test]
    fn a_body_without_a_data_line_is_told_from_a_stream_that_ended() {
        let mut page = EventReader::new(Cursor::new(b"<html>\nhello: world\n\n".to_vec()));
        assert_eq!(page.next_event().unwrap(), Event::Done);
        assert!(!page.saw_data());
        let mut stream = EventReader::new(Cursor::new(b": ping\n\ndata: [DONE]\n\n".to_vec()));
        assert_eq!(stream.next_event().unwrap(), Event::Done);
        assert!(stream.saw_data());
    }

    #[test]
    fn a_line_without_end_is_refused_past_the_bound() {
        let long = format!("data: {}", "x".repeat(MAX_LINE + 10));
        let mut reader = EventReader::new(Cursor::new(long.into_bytes()));
        let error = reader.next_event().unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::InvalidData);
        assert!(error.to_string().contains("longer than"), "{error}");
    }

    fn chunk(delta: Value, finish: Option<&str>) -> Value {
        json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    }

    #[test]
    fn content_reasoning_tool_calls_finish_and_usage_are_assembled() {
        let mut assembler = Assembler::new();
        assembler
            .add(&chunk(json!({"role": "assistant", "content": null}), None))
            .unwrap();
        let added = assembler
            .add(&chunk(json!({"reasoning_content": "hm"}), None))
            .unwrap();
        assert_eq!(
            added,
            Added {
                content: 0,
                reasoning: 2
            }
        );
        assembler
            .add(&chunk(json!({"content": "{\"a\""}), None))
            .unwrap();
        assembler
            .add(&chunk(json!({"content": ": 1}"}), None))
            .unwrap();
        assembler
        .add(&chunk(
            json!({"tool_calls": [{"index": 1, "id": "call_b", "function": {"name": "se", "arguments": "{\"q\""}}]}),
            None,
        ))
        .unwrap();
        assembler
        .add(&chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_a", "function": {"name": "read", "arguments": ""}}]}),
            None,
        ))
        .unwrap();
        assembler
        .add(&chunk(
            json!({"tool_calls": [{"index": 1, "function": {"name": "arch", "arguments": ": \"x\"}"}}]}),
            None,
        ))
        .unwrap();
        assembler
            .add(&chunk(json!({}), Some("tool_calls")))
            .unwrap();
        assembler
        .add(&json!({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9}}))
        .unwrap();
        assert_eq!(assembler.text_chunks, 3);
        let response = assembler.finish();
        assert_eq!(response.content.as_deref(), Some("{\"a\": 1}"));
        assert_eq!(response.reasoning.as_deref(), Some("hm"));
        assert_eq!(response.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(response.model.as_deref(), Some("m"));
        assert_eq!(response.usage.completion_tokens, Some(4));
        let calls: Vec<(&str, &str, &str)> = response
            .tool_calls
            .iter()
            .map(|call| {
                (
                    call.id.as_deref().unwrap(),
                    call.name.as_str(),
                    call.arguments.as_str(),
                )
            })
            .collect();
        assert_eq!(
            calls,
            [
                ("call_a", "read", ""),
                ("call_b", "search", "{\"q\": \"x\"}")
            ]
        );
    }

    #[test]
    fn a_chunk_with_an_error_member_is_the_servers_failure() {
        let mut assembler = Assembler::new();
        let error = assembler
            .add(&json!({"error": {"message": "out of memory", "code": 500}}))
            .unwrap_err();
        assert_eq!(error, "out of memory");
    }

    #[test]
    fn chunks_that_never_have_choices_are_no_chat_completion() {
        let mut assembler = Assembler::new();
        assert_eq!(assembler.not_a_completion(), None);
        assembler.add(&json!({"foo": 1})).unwrap();
        assembler.add(&json!({"bar": 2})).unwrap();
        assert_eq!(
            assembler.not_a_completion().as_deref(),
            Some(
                r#"the answer is not a chat completion (no chunk of its stream has choices): {"foo":1}"#
            )
        );
        // The usage chunk has no choice, but the member: a completion that wrote nothing.
        assembler.add(&json!({"choices": [], "usage": {}})).unwrap();
        assert_eq!(assembler.not_a_completion(), None);
    }

    #[test]
    fn a_tool_call_only_answer_has_no_content() {
        let mut assembler = Assembler::new();
        assembler
        .add(&chunk(
            json!({"tool_calls": [{"index": 0, "function": {"name": "read", "arguments": "{}"}}]}),
            Some("tool_calls"),
        ))
        .unwrap();
        assert_eq!(assembler.finish().content, None);
    }

    #[test]
    fn reasoning_under_any_of_its_names_is_kept_once() {
        // vLLM sends the same delta under both of its names; Ollama calls it `thinking`.
        let mut assembler = Assembler::new();
        assembler
            .add(&chunk(
                json!({"reasoning_content": "let me ", "reasoning": "let me "}),
                None,
            ))
            .unwrap();
        assembler
            .add(&chunk(json!({"thinking": "see"}), None))
            .unwrap();
        assembler
            .add(&chunk(json!({"content": "{}"}), Some("stop")))
            .unwrap();
        let response = assembler.finish();
        assert_eq!(response.reasoning.as_deref(), Some("let me see"));
        assert_eq!(response.content.as_deref(), Some("{}"));
    }
}
