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
}

impl<R: BufRead> EventReader<R> {
    /// A reader of the event stream in `reader`.
    pub fn new(reader: R) -> EventReader<R> {
        EventReader {
            reader,
            line: Vec::new(),
            ended: false,
        }
    }

    /// The next event; [`Event::Done`] at `[DONE]` and at the end of the body.
    pub fn next_event(&mut self) -> io::Result<Event> {
        let mut data: Option<String> = None;
        loop {
            if self.ended {
                return Ok(data.map_or(Event::Done, Event::Data));
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
                "data" => match &mut data {
                    Some(payload) => {
                        payload.push('\n');
                        payload.push_str(value);
                    }
                    None => data = Some(value.to_owned()),
                },
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
#[path = "events_tests.rs"]
mod tests;
