//! The tolerant parser: one pass over the text from the first `{` or `[` of the document to the
//! end of its top-level value, building a `serde_json::Value` with an explicit stack (no
//! recursion, so depth costs heap, never thread stack).
//!
//! Every deviation from strict JSON it accepts is a fix that belongs to one rung, and goes
//! through [`Parser::fix`], which records the rung. The parser's decisions never depend on
//! which rungs the caller allowed: a fix of a rung that is not allowed is remembered, the parse
//! goes on exactly as it would with every rung, and a document that would have parsed fails at
//! the end naming that rung. So the rungs it records are exactly the rungs the text needed, and
//! the first ladder prefix that holds them all is the first after which the document parses.
//!
//! Strings (quotes, escapes, which quote closes) live in `string.rs`, numbers and words in
//! `scalar.rs` (the look-aheads that decide what a quote or a missing comma means live with the
//! strings), opening and closing containers in `containers.rs`; this file holds the structure:
//! what is expected next, keys, separators, trivia.
//!
//! Where the text ends (or a closing fence or chat-template token ends it) decides between a
//! truncated document and one that only lacks its closers: see [`Cut`] and `Expect::Next`.

use serde_json::{Map, Value};

use super::placeholders::ellipsis;
use super::rung::{Rung, RungSet};
use super::scan::{
    self, is_end_marker, is_key_byte, skip_blank, skip_space, smart_quote, unicode_space,
};
use super::write::drop_deep;

/// How deep the parser nests before it gives up with "nested too deep". Ten times what any
/// real document needs, and small enough that the value still fits comfortably in memory.
pub const MAX_DEPTH: usize = 100_000;

/// Where a document stops when it was cut off: each is reported as truncated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cut {
    InString,
    InKey,
    InNumber,
    InLiteral,
    InComment,
    AfterColon,
    AfterComma,
    AfterOpenBrace,
    AfterOpenBracket,
    AfterKey,
    AfterPlus,
}

impl Cut {
    pub(super) fn describe(self) -> &'static str {
        match self {
            Cut::InString => "inside a string",
            Cut::InKey => "inside a key",
            Cut::InNumber => "inside a number",
            Cut::InLiteral => "inside a literal",
            Cut::InComment => "inside a comment",
            Cut::AfterColon => "after a ':'",
            Cut::AfterComma => "after a ','",
            Cut::AfterOpenBrace => "right after an opening '{'",
            Cut::AfterOpenBracket => "right after an opening '['",
            Cut::AfterKey => "after a key",
            Cut::AfterPlus => "after a '+' joining strings",
        }
    }
}

/// Why the parser could not go on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// The text ended (or a fence or chat token ended it) where the document cannot end.
    Cut(Cut, usize),
    /// Something that no rung repairs, at this byte offset; `expected` says what would have
    /// fit there.
    Broken { at: usize, expected: &'static str },
    /// Nesting deeper than [`MAX_DEPTH`].
    TooDeep(usize),
    /// The text needs this rung, which the caller did not allow.
    Needs(Rung, usize),
}

/// Which part of a container a string is: it decides what may follow a closing quote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    Key,
    ObjectValue,
    ArrayValue,
}

/// What the parser expects next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Expect {
    /// A value: at the top, after a `:`, or after a `,` in an array.
    Value,
    /// Right after `[`: a value or `]`.
    FirstValue,
    /// Right after `{`: a key or `}`.
    FirstKey,
    /// After a `,` in an object.
    Key,
    /// After a key.
    Colon,
    /// After a complete value inside a container: `,` or a closer.
    Next,
}

/// An open container. Its values so far are not in the frame but at the end of the parser's
/// `items` (an array's) or `members` (an object's), from `start` to where the next open
/// container of the same kind starts: one buffer for every open container, so a container
/// is built once, at its closer, at its final size (an object's table never grows and
/// rehashes on the way).
pub(super) enum Frame {
    Array {
        start: usize,
    },
    Object {
        start: usize,
        /// The key of the member whose value comes next.
        pending: Option<String>,
    },
}

/// What the scan found after whitespace and comments.
enum At {
    Byte(u8),
    /// The text ends here.
    End,
    /// A closing fence or a chat-template token: the model ended the document here.
    Marker,
}

/// The source texts of numbers whose value would not print the way they were written
/// (`1.50`, `1e3`, `-0`), by JSON pointer, so a number coerced to a string keeps its text.
pub(super) type NumberTexts = Vec<(String, String)>;

/// How many bytes of pointers and texts [`NumberTexts`] may hold; past it, numbers coerced to
/// strings print the way `serde_json` prints them.
const NUMBER_TEXT_BUDGET: usize = 1 << 20;

/// Nesting past which values are dropped with [`drop_deep`] instead of recursively.
pub(super) const SHALLOW: usize = 256;

pub(super) struct Parser<'a> {
    pub(super) text: &'a str,
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    allowed: RungSet,
    pub(super) changed: RungSet,
    pub(super) stack: Vec<Frame>,
    /// The elements of the open arrays, outermost first (see [`Frame`]).
    pub(super) items: Vec<Value>,
    /// The members of the open objects, outermost first (see [`Frame`]).
    pub(super) members: Vec<(String, Value)>,
    pub(super) open_arrays: usize,
    pub(super) open_objects: usize,
    /// The depths (stack lengths) at which the open arrays written as tuples (`(1, 2)`) sit.
    pub(super) tuples: Vec<usize>,
    pub(super) max_depth: usize,
    pub(super) numbers: NumberTexts,
    pub(super) number_budget: usize,
    /// The first fix of a rung the caller did not allow, and where it was.
    pub(super) needs: Option<(Rung, usize)>,
    /// The top-level value, once it is complete.
    pub(super) finished: Option<Value>,
    /// The text was cut where prose starts, so its end is a marker, like a closing fence: a
    /// number before it is complete (see `prose.rs`).
    pub(super) ends_at_marker: bool,
    /// The first line of prose seen right after a complete value that could also be read as the
    /// next member or element (`Note: ...`, `None of these ...`).
    pub(super) prose_at: Option<usize>,
    /// When a string was cut off: the line of prose after the first quote in it that would
    /// have closed it before prose.
    pub(super) string_prose: Option<usize>,
}

impl Drop for Parser<'_> {
    fn drop(&mut self) {
        if self.max_depth > SHALLOW {
            drop_deep(Value::Array(std::mem::take(&mut self.items)));
            for (_, member) in self.members.drain(..) {
                drop_deep(member);
            }
        }
    }
}

impl<'a> Parser<'a> {
    /// A parser over `text` that starts at byte `start`, which holds `{` or `[`.
    pub(super) fn new(text: &'a str, start: usize, allowed: RungSet) -> Parser<'a> {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: start,
            allowed,
            changed: RungSet::EMPTY,
            stack: Vec::new(),
            items: Vec::new(),
            members: Vec::new(),
            open_arrays: 0,
            open_objects: 0,
            tuples: Vec::new(),
            max_depth: 0,
            numbers: Vec::new(),
            number_budget: NUMBER_TEXT_BUDGET,
            needs: None,
            finished: None,
            ends_at_marker: false,
            prose_at: None,
            string_prose: None,
        }
    }

    /// Records a fix of `rung`'s kind. A rung the caller did not allow does not stop the
    /// parser here: it goes on exactly as it would with every rung, so that it fails, or is cut
    /// off, in the same place, and only a document that would have parsed fails at the end
    /// with [`Stop::Needs`] naming the first such rung.
    #[inline]
    pub(super) fn fix(&mut self, rung: Rung, at: usize) -> Result<(), Stop> {
        if !self.allowed.contains(rung) && self.needs.is_none() {
            self.needs = Some((rung, at));
        }
        self.changed.insert(rung);
        Ok(())
    }

    pub(super) fn broken(&self, at: usize, expected: &'static str) -> Stop {
        Stop::Broken { at, expected }
    }

    /// The members of the top-level object that were complete when the parser stopped.
    pub(super) fn take_partial(&mut self) -> Option<Map<String, Value>> {
        match self.stack.first()? {
            Frame::Object { start, .. } => {
                let end = self.frame_end(0);
                Some(self.members.drain(*start..end).collect())
            }
            Frame::Array { .. } => None,
        }
    }

    /// Where the values of the open container at `depth` end in its buffer: where the next open
    /// container of the same kind starts, or the buffer's end.
    pub(super) fn frame_end(&self, depth: usize) -> usize {
        let array = matches!(self.stack[depth], Frame::Array { .. });
        self.stack[depth + 1..]
            .iter()
            .find_map(|frame| match frame {
                Frame::Array { start } if array => Some(*start),
                Frame::Object { start, .. } if !array => Some(*start),
                _ => None,
            })
            .unwrap_or(if array {
                self.items.len()
            } else {
                self.members.len()
            })
    }

    /// Parses the top-level value; on success `self.pos` is just past it.
    pub(super) fn parse(&mut self) -> Result<Value, Stop> {
        let mut expect = Expect::Value;
        loop {
            let at = self.skip_trivia()?;
            let done = match expect {
                Expect::Value | Expect::FirstValue => self.on_value(at, &mut expect)?,
                Expect::FirstKey | Expect::Key => self.on_key(at, &mut expect)?,
                Expect::Colon => match at {
                    At::Byte(b':') => {
                        self.pos += 1;
                        expect = Expect::Value;
                        false
                    }
                    At::Byte(_) if self.value_on_the_key_line() => {
                        // `"b" 2`: the `:` is missing between a key and its value.
                        self.fix(Rung::MissingCommas, self.pos)?;
                        expect = Expect::Value;
                        false
                    }
                    At::Byte(_) => return Err(self.broken(self.pos, "':' after the key")),
                    At::End | At::Marker => return Err(Stop::Cut(Cut::AfterKey, self.pos)),
                },
                Expect::Next => self.on_next(at, &mut expect)?,
            };
            if done {
                let value = self
                    .finished
                    .take()
                    .expect("a finished parse holds its value");
                return match self.needs {
                    None => Ok(value),
                    Some((rung, at)) => {
                        if self.max_depth > SHALLOW {
                            drop_deep(value);
                        }
                        Err(Stop::Needs(rung, at))
                    }
                };
            }
        }
    }

    #[inline]
    pub(super) fn in_array(&self) -> bool {
        matches!(self.stack.last(), Some(Frame::Array { .. }))
    }

    /// Whether the innermost container is an array written as a tuple.
    #[inline]
    pub(super) fn in_tuple(&self) -> bool {
        self.tuples.last() == Some(&self.stack.len())
    }

    #[inline]
    pub(super) fn role(&self) -> Role {
        if self.in_array() {
            Role::ArrayValue
        } else {
            Role::ObjectValue
        }
    }

    fn on_value(&mut self, at: At, expect: &mut Expect) -> Result<bool, Stop> {
        let byte = match at {
            At::Byte(byte) => byte,
            At::End | At::Marker => {
                let cut = match (*expect, self.stack.last()) {
                    (Expect::FirstValue, _) => Cut::AfterOpenBracket,
                    (_, Some(Frame::Object { .. })) => Cut::AfterColon,
                    _ => Cut::AfterComma,
                };
                return Err(Stop::Cut(cut, self.pos));
            }
        };
        match byte {
            b'{' => {
                self.open_object()?;
                *expect = Expect::FirstKey;
                Ok(false)
            }
            b'[' => {
                self.open_array()?;
                *expect = Expect::FirstValue;
                Ok(false)
            }
            b',' if self.in_array() => {
                self.fix(Rung::EmptyElements, self.pos)?;
                self.pos += 1;
                Ok(false)
            }
            b'.' | 0xE2 if self.in_array() && ellipsis(self.bytes, self.pos).is_some() => {
                self.ellipsis(expect, Expect::FirstValue)
            }
            b'(' if !self.stack.is_empty() => {
                // A tuple, as Python writes one: an array.
                self.fix(Rung::Tuples, self.pos)?;
                self.open_array()?;
                self.tuples.push(self.stack.len());
                *expect = Expect::FirstValue;
                Ok(false)
            }
            b']' | b'}' if self.in_array() => {
                if *expect == Expect::Value {
                    self.fix(Rung::TrailingComma, self.pos)?;
                }
                self.close(byte, expect)
            }
            b')' if self.in_tuple() => {
                if *expect == Expect::Value {
                    self.fix(Rung::TrailingComma, self.pos)?;
                }
                self.close(byte, expect)
            }
            b',' | b'}' if *expect == Expect::Value && !self.stack.is_empty() => {
                // A key with no value (`{"a": , "b": 1}`, `{"a": }`): the member is dropped
                // like an empty one; nothing is invented for it.
                self.fix(Rung::EmptyElements, self.pos)?;
                if let Some(Frame::Object { pending, .. }) = self.stack.last_mut() {
                    *pending = None;
                }
                if byte == b',' {
                    self.pos += 1;
                    *expect = Expect::Key;
                } else {
                    *expect = Expect::FirstKey;
                }
                Ok(false)
            }
            _ if self.stack.is_empty() => Err(self.broken(self.pos, "'{' or '['")),
            b'A'..=b'Z' if let Some(paren) = self.type_name(self.pos) => {
                // `ObjectId("1")`, `NumberLong(2)`: a type name, as MongoDB's shell prints
                // values, before the parenthesized value it wraps.
                self.fix(Rung::Tuples, self.pos)?;
                self.pos = paren;
                self.open_array()?;
                self.tuples.push(self.stack.len());
                *expect = Expect::FirstValue;
                Ok(false)
            }
            _ => {
                let value = self.scalar(byte)?;
                Ok(self.attach(value, expect))
            }
        }
    }

    fn on_key(&mut self, at: At, expect: &mut Expect) -> Result<bool, Stop> {
        let byte = match at {
            At::Byte(byte) => byte,
            At::End | At::Marker => {
                let cut = if *expect == Expect::FirstKey {
                    Cut::AfterOpenBrace
                } else {
                    Cut::AfterComma
                };
                return Err(Stop::Cut(cut, self.pos));
            }
        };
        let key = match byte {
            b'}' | b']' => {
                if *expect == Expect::Key {
                    self.fix(Rung::TrailingComma, self.pos)?;
                }
                return self.close(byte, expect);
            }
            b',' => {
                self.fix(Rung::EmptyElements, self.pos)?;
                self.pos += 1;
                return Ok(false);
            }
            b'.' | 0xE2 if ellipsis(self.bytes, self.pos).is_some() => {
                return self.ellipsis(expect, Expect::FirstKey);
            }
            // `[{{]`, `[{"i": 1, {"i": 2}]`; but `[{{"a": 1}}]`, a doubled brace around
            // members, is not two objects.
            b'{' if self.object_in_array()
                && (*expect == Expect::Key
                    || !self.member_at(skip_blank(self.bytes, self.pos + 1))) =>
            {
                self.close_element_early(*expect == Expect::FirstKey, expect)?;
                return Ok(false);
            }
            b'"' => self.string(None, Role::Key)?,
            b'\'' => {
                self.fix(Rung::Quotes, self.pos)?;
                self.string(None, Role::Key)?
            }
            0xE2 => match smart_quote(self.bytes, self.pos) {
                Some(smart) => {
                    self.fix(Rung::SmartQuotes, self.pos)?;
                    self.string(Some(smart), Role::Key)?
                }
                None => return Err(self.broken(self.pos, "a key")),
            },
            _ if is_key_byte(byte) => self.unquoted_key()?,
            _ => return Err(self.broken(self.pos, "a key")),
        };
        if let Some(Frame::Object { pending, .. }) = self.stack.last_mut() {
            *pending = Some(key);
        }
        *expect = Expect::Colon;
        Ok(false)
    }

    fn on_next(&mut self, at: At, expect: &mut Expect) -> Result<bool, Stop> {
        let byte = match at {
            At::Byte(byte) => byte,
            // A complete final value: the closers are all that is missing.
            At::End | At::Marker => return self.close_all().map(|()| true),
        };
        match byte {
            b',' => {
                self.pos += 1;
                *expect = if self.in_array() {
                    Expect::Value
                } else {
                    Expect::Key
                };
                Ok(false)
            }
            b']' | b'}' => self.close(byte, expect),
            b')' if self.in_tuple() => self.close(byte, expect),
            b'{' if self.object_in_array() => {
                self.close_element_early(true, expect)?;
                Ok(false)
            }
            // `"the list [1, 2"] more"`: a quote right before a closer closes a string the
            // document is inside of, so this is no document.
            b'"' if matches!(self.bytes.get(self.pos + 1), Some(b']' | b'}')) => {
                Err(self.broken(self.pos, "',' or a closing bracket"))
            }
            _ => {
                let value_follows = if self.in_array() {
                    self.starts_value(self.pos) || self.word_element(self.pos)
                } else {
                    self.starts_key(self.pos)
                };
                if self.prose_line(self.pos) {
                    if !value_follows {
                        // The model forgot the closers and went on talking.
                        return self.close_all().map(|()| true);
                    }
                    self.prose_at.get_or_insert(self.pos);
                }
                if !value_follows {
                    return Err(self.broken(self.pos, "',' or a closing bracket"));
                }
                self.fix(Rung::MissingCommas, self.pos)?;
                *expect = if self.in_array() {
                    Expect::Value
                } else {
                    Expect::Key
                };
                Ok(false)
            }
        }
    }

    /// Where the `(` is when a type name starts at `at` (`ObjectId("1")`, `NumberInt(3)`): a
    /// capitalized word that is no literal, right before `(` and a string or number.
    fn type_name(&self, at: usize) -> Option<usize> {
        let bytes = self.bytes;
        let word = scan::word_at(bytes, at);
        let paren = at + word.len();
        if bytes.get(paren) != Some(&b'(') {
            return None;
        }
        let inside = *bytes.get(skip_blank(bytes, paren + 1))?;
        (matches!(inside, b'"' | b'\'' | b'-' | b'0'..=b'9')
            && super::scalar::literal(word).is_none())
        .then_some(paren)
    }

    fn unquoted_key(&mut self) -> Result<String, Stop> {
        let bytes = self.bytes;
        let start = self.pos;
        let mut end = start;
        while end < bytes.len() && is_key_byte(bytes[end]) {
            end += 1;
        }
        if end == bytes.len() {
            return Err(Stop::Cut(Cut::InKey, start));
        }
        let after = skip_blank(bytes, end);
        if after == bytes.len() {
            return Err(Stop::Cut(Cut::AfterKey, start));
        }
        // `{a": 1}`: a key that lost its opening quote ends at the closing one.
        let closed = bytes[end] == b'"' && bytes.get(skip_blank(bytes, end + 1)) == Some(&b':');
        // `{a 'b'}`: a quoted value on the key's line, the `:` between them missing.
        let mut line = end;
        while matches!(bytes.get(line), Some(b' ' | b'\t')) {
            line += 1;
        }
        let quoted_value = line > end
            && (matches!(bytes[line], b'"' | b'\'') || smart_quote(bytes, line).is_some());
        if quoted_value {
            self.fix(Rung::Unquoted, start)?;
            self.pos = end;
            return Ok(self.text[start..end].to_owned());
        }
        if bytes[after] != b':' && !closed {
            return Err(self.broken(start, "a key"));
        }
        self.fix(Rung::Unquoted, start)?;
        self.pos = end + usize::from(closed);
        Ok(self.text[start..end].to_owned())
    }

    /// Skips whitespace (Unicode spaces included) and comments; says what comes next.
    #[inline]
    fn skip_trivia(&mut self) -> Result<At, Stop> {
        let bytes = self.bytes;
        loop {
            self.pos = skip_space(bytes, self.pos);
            let Some(&byte) = bytes.get(self.pos) else {
                return Ok(At::End);
            };
            match byte {
                b'/' => match bytes.get(self.pos + 1) {
                    Some(b'/') => {
                        self.fix(Rung::Comments, self.pos)?;
                        self.skip_line();
                    }
                    Some(b'*') => {
                        self.fix(Rung::Comments, self.pos)?;
                        let body = self.pos + 2;
                        match memchr::memmem::find(&bytes[body..], b"*/") {
                            Some(end) => self.pos = body + end + 2,
                            None => return Err(Stop::Cut(Cut::InComment, self.pos)),
                        }
                    }
                    None => return Err(Stop::Cut(Cut::InComment, self.pos)),
                    Some(_) => return Ok(At::Byte(byte)),
                },
                b'#' => {
                    self.fix(Rung::Comments, self.pos)?;
                    self.skip_line();
                }
                b'`' | b'~' | b'<' if is_end_marker(bytes, self.pos) => return Ok(At::Marker),
                0x80.. => match unicode_space(bytes, self.pos) {
                    0 => return Ok(At::Byte(byte)),
                    length => {
                        self.fix(Rung::UnicodeSpaces, self.pos)?;
                        self.pos += length;
                    }
                },
                _ => return Ok(At::Byte(byte)),
            }
        }
    }

    /// Past a line comment. One that runs to the end of the text inside an open document ends
    /// before the first closer in it (`{"a": {"b": 1 # note }, "c": 2}`): a document written on
    /// one line cannot have meant its own closers as part of the comment.
    fn skip_line(&mut self) {
        let rest = &self.bytes[self.pos..];
        self.pos = match memchr::memchr(b'\n', rest) {
            Some(offset) => self.pos + offset + 1,
            None if !self.stack.is_empty() => match memchr::memchr2(b'}', b']', rest) {
                Some(offset) => self.pos + offset,
                None => self.bytes.len(),
            },
            None => self.bytes.len(),
        };
    }
}
