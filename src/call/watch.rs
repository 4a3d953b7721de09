//! [`Watcher`]: judges an answer's text as it arrives and says when the rest is not worth
//! waiting for. Two verdicts end a stream early:
//! - [`Verdict::Done`]: the first complete top-level JSON value has closed (it repairs, or at
//!   least parses, against the call's schema) and what follows it is not part of it: prose, a
//!   closing fence, another value, or whitespace without end. Under a mechanism that does not
//!   enforce the schema this is the essay after the object; under one that does, only padding
//!   can follow. The value is kept, the rest is never generated.
//! - [`Verdict::Repetition`]: a degenerate loop ([`RepetitionDetector`]) inside the answer, before
//!   any value closed.
//!
//! - [`Verdict::Stop`]: one of the call's stop sequences appeared after the reasoning. The stop
//!   sequences are applied here, not by the server, because every engine applies its `stop`
//!   to the reasoning as well: a thinking model's `\n## ` heading inside `<think>` would end
//!   the answer before it began.
//!
//! Every byte is read once: a string-aware nesting count finds where the first value closes,
//! the loop detector reads the same bytes, and a candidate value is checked only when it
//! closes. A leading reasoning block (the tags the `think` rung knows) is skipped: braces in it
//! are not the answer. The same watcher judges a whole answer that was not streamed.

use memchr::memmem;

use crate::backends::stream::StreamEnding;
use crate::repair::{
    self, CLOSING_TAGS, REASONING_TAGS, RepairOptions, Repetition, RepetitionDetector,
};

/// Why the rest of an answer is not worth waiting for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A complete value ends just before byte `end`, and what follows is not part of it.
    Done {
        /// Where the value ends (exclusive).
        end: usize,
    },
    /// The answer loops.
    Repetition(Repetition),
    /// A stop sequence begins at byte `end`, after any reasoning: the answer ends there, as
    /// it would have on a server that applied the stop.
    Stop {
        /// Where the stop sequence begins.
        end: usize,
    },
}

impl Verdict {
    /// The stream ending this verdict cuts an answer with.
    pub fn ending(&self) -> StreamEnding {
        match self {
            Verdict::Done { .. } => StreamEnding::Done,
            Verdict::Repetition(_) => StreamEnding::Repetition,
            Verdict::Stop { .. } => StreamEnding::Stop,
        }
    }
}

/// Where the watcher is in the answer.
#[derive(Clone, Debug, PartialEq, Eq)]
enum State {
    /// Before anything but whitespace.
    Start,
    /// Inside a leading reasoning block that closes with `closing`; searched from `from`.
    Reasoning { closing: &'static str, from: usize },
    /// Looking for the `{` or `[` that opens a value.
    Searching,
    /// Inside a candidate value that opened at `start`.
    Value {
        start: usize,
        depth: usize,
        in_string: bool,
        escaped: bool,
    },
    /// A value closed just before `end`; waiting for the next byte that is not whitespace.
    Closed { end: usize },
    /// What followed the value may continue it: no early end but a loop.
    Open,
}

/// Judges one answer's text as it grows (see the module docs).
pub struct Watcher<'a> {
    options: &'a RepairOptions<'a>,
    detector: RepetitionDetector,
    state: State,
    /// Bytes read by the value scanner.
    seen: usize,
    verdict: Option<Verdict>,
    /// Whether only a loop (or a stop sequence) ends the answer, never a closed value.
    loops_only: bool,
    /// The stop sequences applied after the reasoning.
    stops: &'a [String],
    /// Where the answer begins, once any leading reasoning block has closed.
    answer_start: Option<usize>,
    /// Where the next search for a stop sequence begins.
    stop_from: usize,
}

impl<'a> Watcher<'a> {
    /// A watcher that checks candidate values with `options` (the call's schema).
    pub fn new(options: &'a RepairOptions<'a>) -> Watcher<'a> {
        Watcher {
            options,
            detector: RepetitionDetector::new(),
            state: State::Start,
            seen: 0,
            verdict: None,
            loops_only: false,
            stops: &[],
            answer_start: None,
            stop_from: 0,
        }
    }

    /// A watcher that ends an answer only on a loop (or a stop sequence), never after a value
    /// (a tool turn's text may hold a call in a tag that closes after it, or several calls).
    pub fn loops_only(options: &'a RepairOptions<'a>) -> Watcher<'a> {
        Watcher {
            loops_only: true,
            ..Watcher::new(options)
        }
    }

    /// The same watcher, ending the answer where one of `stops` begins after the reasoning.
    pub fn with_stops(mut self, stops: &'a [String]) -> Watcher<'a> {
        self.stops = stops;
        self
    }

    /// The verdict so far.
    pub fn verdict(&self) -> Option<&Verdict> {
        self.verdict.as_ref()
    }

    /// Reads what `text` holds beyond what was fed before (`text` must start with it) and
    /// returns the verdict, once there is one.
    pub fn feed(&mut self, text: &str) -> Option<&Verdict> {
        if self.verdict.is_some() {
            return self.verdict.as_ref();
        }
        self.scan(text);
        self.find_stop(text);
        if self.verdict.is_none()
            && let Some(repetition) = self.detector.feed(text)
        {
            self.verdict = Some(match self.state {
                // Padding or a loop after a complete value: the value stands. (A whole answer
                // is scanned at once: a loop recognised before the value closed is still the
                // loop a stream would have been cut at.)
                State::Closed { end } if repetition.end > end => Verdict::Done { end },
                _ => Verdict::Repetition(repetition.clone()),
            });
        }
        self.verdict.as_ref()
    }

    /// Looks for the first stop sequence after the reasoning; one that begins before the end
    /// of the verdict found so far replaces it (the server would have stopped there first).
    fn find_stop(&mut self, text: &str) {
        let Some(start) = self.answer_start else {
            return;
        };
        if self.stops.is_empty() {
            return;
        }
        let from = self.stop_from.max(start);
        let bytes = text.as_bytes();
        let found = self
            .stops
            .iter()
            .filter(|stop| !stop.is_empty())
            .filter_map(|stop| memmem::find(&bytes[from..], stop.as_bytes()))
            .min()
            .map(|offset| from + offset);
        let longest = self.stops.iter().map(String::len).max().unwrap_or(1);
        self.stop_from = bytes
            .len()
            .saturating_sub(longest.saturating_sub(1))
            .max(from);
        let Some(end) = found else {
            return;
        };
        let earlier = match &self.verdict {
            None => true,
            Some(Verdict::Done { end: done }) => end < *done,
            Some(Verdict::Repetition(repetition)) => end < repetition.end,
            Some(Verdict::Stop { .. }) => false,
        };
        if earlier {
            self.verdict = Some(Verdict::Stop { end });
        }
    }

    /// Where the answer begins: at `at`, after a reasoning block or none.
    fn answer_begins(&mut self, at: usize) {
        self.answer_start = Some(at);
        self.state = if self.loops_only {
            State::Open
        } else {
            State::Searching
        };
    }

    fn scan(&mut self, text: &str) {
        let bytes = text.as_bytes();
        while self.verdict.is_none() && self.seen < bytes.len() {
            let at = self.seen;
            let byte = bytes[at];
            match &mut self.state {
                State::Start => {
                    if byte.is_ascii_whitespace() {
                        self.seen += 1;
                        continue;
                    }
                    match opening_tag(&text[at..]) {
                        Tag::Opens(tag, length) => {
                            self.state = State::Reasoning {
                                closing: tag,
                                from: at + length,
                            };
                        }
                        // Wait for the bytes that decide it.
                        Tag::Undecided => return,
                        Tag::No => self.answer_begins(at),
                    }
                    continue;
                }
                State::Reasoning { closing, from } => {
                    let closing: &str = closing;
                    match memmem::find(&bytes[*from..], closing.as_bytes()) {
                        Some(offset) => {
                            self.seen = *from + offset + closing.len();
                            self.answer_begins(self.seen);
                        }
                        None => {
                            // The closing tag may be split across chunks.
                            *from = bytes.len().saturating_sub(closing.len()).max(*from);
                            self.seen = bytes.len();
                        }
                    }
                    continue;
                }
                State::Searching => {
                    if byte == b'{' || byte == b'[' {
                        self.state = State::Value {
                            start: at,
                            depth: 1,
                            in_string: false,
                            escaped: false,
                        };
                    }
                }
                State::Value {
                    start,
                    depth,
                    in_string,
                    escaped,
                } => {
                    if *in_string {
                        match (*escaped, byte) {
                            (true, _) => *escaped = false,
                            (false, b'\\') => *escaped = true,
                            (false, b'"') => *in_string = false,
                            _ => {}
                        }
                    } else {
                        match byte {
                            b'"' => *in_string = true,
                            b'{' | b'[' => *depth += 1,
                            b'}' | b']' => {
                                *depth -= 1;
                                if *depth == 0 {
                                    let candidate = &text[*start..=at];
                                    self.state = if self.is_value(candidate) {
                                        State::Closed { end: at + 1 }
                                    } else {
                                        State::Searching
                                    };
                                }
                            }
                            _ => {}
                        }
                    }
                }
                State::Closed { end } => {
                    if !byte.is_ascii_whitespace() {
                        if matches!(byte, b',' | b':' | b'}' | b']' | b'"') {
                            self.state = State::Open;
                        } else {
                            self.verdict = Some(Verdict::Done { end: *end });
                        }
                    }
                }
                // Nothing ends the answer early here but a loop or a stop sequence.
                State::Open => {
                    self.seen = bytes.len();
                    return;
                }
            }
            self.seen += 1;
        }
    }

    /// Whether a closed candidate is a value worth stopping for: one that parses as it is, or
    /// that the repair ladder makes valid against the schema.
    fn is_value(&self, candidate: &str) -> bool {
        serde_json::from_str::<serde::de::IgnoredAny>(candidate).is_ok()
            || repair::repair(candidate, self.options).is_ok()
    }
}

/// What the start of the answer says about a reasoning block.
enum Tag {
    /// It opens one that closes with this tag; the opening tag is this long.
    Opens(&'static str, usize),
    /// Too few bytes to tell.
    Undecided,
    /// It does not.
    No,
}

fn opening_tag(text: &str) -> Tag {
    if !text.starts_with('<') {
        return Tag::No;
    }
    let mut undecided = false;
    for (tag, closing) in REASONING_TAGS.iter().zip(CLOSING_TAGS) {
        let opening_length = tag.len() + 2;
        if text.len() >= opening_length {
            if text.starts_with('<')
                && text[1..].starts_with(tag)
                && text.as_bytes()[opening_length - 1] == b'>'
            {
                return Tag::Opens(closing, opening_length);
            }
        } else if format!("<{tag}>").starts_with(text) {
            undecided = true;
        }
    }
    if undecided { Tag::Undecided } else { Tag::No }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn verdict_in_chunks(text: &str, options: &RepairOptions<'_>, chunk: usize) -> Option<Verdict> {
        stopped_in_chunks(text, options, chunk, &[])
    }

    fn stopped_in_chunks(
        text: &str,
        options: &RepairOptions<'_>,
        chunk: usize,
        stops: &[String],
    ) -> Option<Verdict> {
        let mut watcher = Watcher::new(options).with_stops(stops);
        let mut end = 0;
        while end < text.len() {
            end = (end + chunk).min(text.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            if let Some(verdict) = watcher.feed(&text[..end]) {
                return Some(verdict.clone());
            }
        }
        None
    }

    fn verdict(text: &str) -> Option<Verdict> {
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}},
            "required": ["a"]});
        let options = RepairOptions::new().schema(&schema).unwrap();
        let whole = verdict_in_chunks(text, &options, text.len().max(1));
        for chunk in [1, 2, 5] {
            assert_eq!(
                verdict_in_chunks(text, &options, chunk),
                whole,
                "{text:?} in chunks of {chunk}"
            );
        }
        whole
    }

    fn stopped(text: &str) -> Option<Verdict> {
        let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}},
            "required": ["a"]});
        let options = RepairOptions::new().schema(&schema).unwrap();
        let stops: Vec<String> = crate::agents::JSON_STOP
            .iter()
            .map(|stop| (*stop).to_owned())
            .collect();
        let whole = stopped_in_chunks(text, &options, text.len().max(1), &stops);
        for chunk in [1, 2, 5] {
            assert_eq!(
                stopped_in_chunks(text, &options, chunk, &stops),
                whole,
                "{text:?} in chunks of {chunk}"
            );
        }
        whole
    }

    #[test]
    fn stop_sequences_apply_after_the_reasoning_never_inside_it() {
        let thinking = "<think>\nThe plan:\n## Step one\nNote: a is 1.\n</think>\n{\"a\": 1}";
        assert_eq!(
            stopped(thinking),
            None,
            "stops inside the block are not applied"
        );
        let essay = format!("{thinking}\n## Why\nBecause.");
        let end = thinking.len();
        assert_eq!(stopped(&essay), Some(Verdict::Done { end }));
        let prose_first = "<think>ok</think>\nNote: the object follows\n{\"a\": 1}";
        let at = prose_first.find("\nNote:").unwrap();
        assert_eq!(stopped(prose_first), Some(Verdict::Stop { end: at }));
        // Cut inside the reasoning: nothing yet, whatever headings it holds.
        assert_eq!(stopped("<think>\n## CallPlan\nNote: more"), None);
        // Without reasoning, a stop before any value ends the answer where it begins.
        assert_eq!(
            stopped("Sure.\n## Answer\n{\"a\": 1}"),
            Some(Verdict::Stop { end: 5 })
        );
    }

    #[test]
    fn a_tool_turn_applies_stops_after_the_reasoning_too() {
        let options = RepairOptions::new();
        let stops = vec!["\nNote:".to_owned()];
        let text = "<think>\nNote: which tool?</think><tool_call>{}</tool_call>\nNote: done";
        let mut watcher = Watcher::loops_only(&options).with_stops(&stops);
        assert_eq!(
            watcher.feed(text),
            Some(&Verdict::Stop {
                end: text.rfind("\nNote:").unwrap()
            })
        );
    }

    #[test]
    fn a_tool_turns_watcher_ends_an_answer_only_on_a_loop() {
        let options = RepairOptions::new();
        let mut watcher = Watcher::loops_only(&options);
        let call = "<tool_call>{\"name\": \"read\", \"arguments\": {}}</tool_call>\nDone.";
        assert_eq!(
            watcher.feed(call),
            None,
            "a value followed by a tag goes on"
        );
        let looped = format!("{call} {}", "again and again ".repeat(40));
        assert!(matches!(
            Watcher::loops_only(&options).feed(&looped),
            Some(Verdict::Repetition(_))
        ));
    }

    #[test]
    fn an_essay_after_the_value_is_not_waited_for() {
        let text = "{\"a\": 1}\n\nThis object has one member, `a`, which";
        assert_eq!(verdict(text), Some(Verdict::Done { end: 8 }));
        let fenced = "Sure:\n```json\n{\"a\": 1}\n```\nAnything else?";
        let end = fenced.find("}\n").unwrap() + 1;
        assert_eq!(verdict(fenced), Some(Verdict::Done { end }));
        let repaired = "{'a': 1,}\nDone.";
        assert_eq!(verdict(repaired), Some(Verdict::Done { end: 9 }));
        assert_eq!(verdict("[1, 2] and [3]"), Some(Verdict::Done { end: 6 }));
    }

    #[test]
    fn nothing_ends_early_before_a_value_closes_or_when_what_follows_may_continue_it() {
        assert_eq!(verdict("{\"a\": 1"), None);
        assert_eq!(verdict("{\"a\": 1}   \n"), None, "whitespace only, so far");
        assert_eq!(verdict("{\"a\": 1}, {\"a\": 2}"), None);
        assert_eq!(verdict("{\"a\": \"}\"} x"), Some(Verdict::Done { end: 10 }));
        assert_eq!(
            verdict("{\"a\": \"\\\"}\"} x"),
            Some(Verdict::Done { end: 12 })
        );
    }

    #[test]
    fn prose_braces_are_not_a_value() {
        let text = "Use {the config} like this: {\"a\": 1}\nThat is all.";
        let end = text.rfind('}').unwrap() + 1;
        assert_eq!(verdict(text), Some(Verdict::Done { end }));
    }

    #[test]
    fn braces_in_a_reasoning_block_are_not_the_answer() {
        let text = "<think>maybe {\"a\": 0} works</think>\n{\"a\": 1}\nok";
        let end = text.rfind('}').unwrap() + 1;
        assert_eq!(verdict(text), Some(Verdict::Done { end }));
        assert_eq!(verdict("<think>{\"a\": 0} and more"), None);
        assert_eq!(
            verdict("<b>{\"a\": 1}</b>"),
            Some(Verdict::Done { end: 11 })
        );
    }

    #[test]
    fn a_loop_inside_the_value_is_repetition_and_padding_after_it_is_done() {
        let text = format!("{{\"a\": 1, \"b\": [{}", "\"x.yaml\", ".repeat(40));
        assert!(matches!(verdict(&text), Some(Verdict::Repetition(_))));
        let padded = format!("{{\"a\": 1}}{}", " ".repeat(200));
        assert_eq!(verdict(&padded), Some(Verdict::Done { end: 8 }));
    }
}
