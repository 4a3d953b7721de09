//! Containers: opening, attaching a complete value to its container, and closing, with the
//! closers that are missing or mismatched supplied (`close_braces`) and tuples closed by `)`.
//! These are methods of the tolerant parser in `parse.rs`, which decides when each is called.

use serde_json::Value;

use super::parse::{Expect, Frame, MAX_DEPTH, Parser, Stop};
use super::rung::Rung;
use super::scan::skip_blank;

impl Parser<'_> {
    #[inline]
    pub(super) fn open_array(&mut self) -> Result<(), Stop> {
        let start = self.items.len();
        self.open(Frame::Array { start })
    }

    #[inline]
    pub(super) fn open_object(&mut self) -> Result<(), Stop> {
        let start = self.members.len();
        self.open(Frame::Object {
            start,
            pending: None,
        })
    }

    #[inline]
    fn open(&mut self, frame: Frame) -> Result<(), Stop> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(Stop::TooDeep(self.pos));
        }
        match frame {
            Frame::Array { .. } => self.open_arrays += 1,
            Frame::Object { .. } => self.open_objects += 1,
        }
        self.stack.push(frame);
        self.max_depth = self.max_depth.max(self.stack.len());
        self.pos += 1;
        Ok(())
    }

    /// Pops the innermost container and returns it as a value.
    #[inline]
    pub(super) fn pop(&mut self) -> Value {
        if self.tuples.last() == Some(&self.stack.len()) {
            self.tuples.pop();
        }
        match self.stack.pop() {
            Some(Frame::Array { start }) => {
                self.open_arrays -= 1;
                Value::Array(self.items.split_off(start))
            }
            Some(Frame::Object { start, .. }) => {
                self.open_objects -= 1;
                // Inserted one by one, as they came: a key written twice keeps its first place
                // and its last value, as it did when the map grew member by member.
                Value::Object(self.members.drain(start..).collect())
            }
            None => unreachable!("pop is only called with an open container"),
        }
    }

    /// Puts a complete value into its container; when it is the top-level value, keeps it in
    /// `finished` and says so. (Returning the value itself through every token's `Result` would
    /// copy a large `Value` around per token.)
    #[inline]
    pub(super) fn attach(&mut self, value: Value, expect: &mut Expect) -> bool {
        *expect = Expect::Next;
        match self.stack.last_mut() {
            None => {
                self.finished = Some(value);
                true
            }
            Some(Frame::Array { .. }) => {
                self.items.push(value);
                false
            }
            Some(Frame::Object { pending, .. }) => {
                let key = pending.take().unwrap_or_default();
                self.members.push((key, value));
                false
            }
        }
    }

    /// Handles `closer` (`]` or `}`) at `self.pos`. A closer that matches an outer container
    /// closes the inner ones first (their closers were missing); a closer that matches no open
    /// container closes the innermost one anyway (the wrong bracket was typed).
    pub(super) fn close(&mut self, closer: u8, expect: &mut Expect) -> Result<bool, Stop> {
        if closer == b')' || (closer == b']' && self.in_tuple()) {
            if closer == b']' {
                // `(1, 2]`: the tuple's closer is mismatched.
                self.fix(Rung::CloseBraces, self.pos)?;
            }
            // `(1)` is not a tuple but a parenthesized value, as Python reads it: `(1,)` is.
            let grouped =
                closer == b')' && self.bytes[..self.pos].trim_ascii_end().last() != Some(&b',');
            self.pos += 1;
            let value = match self.pop() {
                Value::Array(mut items) if grouped && items.len() == 1 => {
                    items.pop().unwrap_or_default()
                }
                value => value,
            };
            return Ok(self.attach(value, expect));
        }
        let wants_array = closer == b']';
        loop {
            if self.in_array() == wants_array {
                if !wants_array && self.stack.len() == 1 && self.continues_after(self.pos + 1) {
                    // `{"a": 1}, "b": 2}`: the object was closed early and goes on.
                    self.fix(Rung::CloseBraces, self.pos)?;
                    self.pos += 1;
                    *expect = Expect::Next;
                    return Ok(false);
                }
                self.pos += 1;
                let value = self.pop();
                return Ok(self.attach(value, expect));
            }
            self.fix(Rung::CloseBraces, self.pos)?;
            let outer_matches = if wants_array {
                self.open_arrays > 0
            } else {
                self.open_objects > 0
            };
            if !outer_matches {
                self.pos += 1;
                if self.bytes.get(skip_blank(self.bytes, self.pos)) == Some(&b',') {
                    // `[{"a": 1}}, {"a": 2}]`: a closer too many, and the list goes on.
                    *expect = Expect::Next;
                    return Ok(false);
                }
                let value = self.pop();
                return Ok(self.attach(value, expect));
            }
            let value = self.pop();
            // The matching container is further out, so this is never the top level.
            self.attach(value, expect);
        }
    }

    /// Whether the innermost container is an object that is an element of an array.
    pub(super) fn object_in_array(&self) -> bool {
        matches!(
            self.stack.as_slice(),
            [.., Frame::Array { .. }, Frame::Object { .. }]
        )
    }

    /// At a `{` where the innermost object, an element of an array, wants a key or its closer
    /// (`[{"i": 1 {"i": 2}]`, `[{"i": 1, {"i": 2}]`, `[{{]`): the object lost its `}`, which is
    /// supplied, and the `{` opens the next element. An object cannot hold a bare `{`, so the
    /// only reading that keeps every character is a list of objects. `comma_missing` says whether the
    /// `,` between the two elements is missing too.
    pub(super) fn close_element_early(
        &mut self,
        comma_missing: bool,
        expect: &mut Expect,
    ) -> Result<(), Stop> {
        self.fix(Rung::CloseBraces, self.pos)?;
        if comma_missing {
            self.fix(Rung::MissingCommas, self.pos)?;
        }
        if let Some(Frame::Object { pending, .. }) = self.stack.last_mut() {
            *pending = None;
        }
        let value = self.pop();
        self.attach(value, expect);
        *expect = Expect::Value;
        Ok(())
    }

    /// After the closer of the top-level object, at `at`: whether `,` and another member follow,
    /// and the text ends with a `}` that can close them. Without that `}`, what follows is more
    /// likely prose that quotes a key, and the object ends where it was closed.
    fn continues_after(&self, at: usize) -> bool {
        let bytes = self.bytes;
        let comma = skip_blank(bytes, at);
        bytes.get(comma) == Some(&b',')
            && bytes.trim_ascii_end().last() == Some(&b'}')
            && self.member_at(skip_blank(bytes, comma + 1))
    }

    /// At the end of the text after a complete value: supplies every missing closer.
    pub(super) fn close_all(&mut self) -> Result<(), Stop> {
        self.fix(Rung::CloseBraces, self.pos)?;
        let mut expect = Expect::Next;
        loop {
            let value = self.pop();
            if self.attach(value, &mut expect) {
                return Ok(());
            }
        }
    }
}
