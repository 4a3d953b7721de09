//! Scalars outside strings: numbers (read the way `serde_json` reads them, with their source
//! text kept when it would not print back the same), literal words in every dialect the ladder
//! understands (`true`, `True`, `NaN`, `undefined`, ...), and bare one-word values after a key.

use serde_json::{Number, Value};

use super::fullwidth::is_twin;
use super::parse::{Cut, Frame, Parser, Role, Stop};
use super::rung::Rung;
use super::scan::{self, is_literal_prefix, is_word_start, smart_quote};
use crate::schema::push_token;

impl Parser<'_> {
    /// A string, number or literal starting with `byte` at `self.pos`.
    pub(super) fn scalar(&mut self, byte: u8) -> Result<Value, Stop> {
        let role = self.role();
        match byte {
            b'"' => {
                let first = self.string(None, role)?;
                self.concatenation(first, role)
            }
            b'\'' => {
                self.fix(Rung::Quotes, self.pos)?;
                let first = self.string(None, role)?;
                self.concatenation(first, role)
            }
            0xE2 if smart_quote(self.bytes, self.pos).is_some() => {
                let smart = smart_quote(self.bytes, self.pos);
                self.fix(Rung::SmartQuotes, self.pos)?;
                let first = self.string(smart, role)?;
                self.concatenation(first, role)
            }
            b'-' if self
                .bytes
                .get(self.pos + 1)
                .is_some_and(|next| next.is_ascii_alphabetic()) =>
            {
                let word = scan::word_at(self.bytes, self.pos + 1);
                let end = self.pos + 1 + word.len();
                let prefix = word.len() < 8 && b"infinity".starts_with(&word.to_ascii_lowercase());
                if end == self.bytes.len() && prefix {
                    Err(Stop::Cut(Cut::InLiteral, self.pos))
                } else if word.eq_ignore_ascii_case(b"infinity")
                    || word.eq_ignore_ascii_case(b"inf")
                {
                    self.fix(Rung::NonFinite, self.pos)?;
                    self.pos = end;
                    Ok(Value::Null)
                } else {
                    Err(self.broken(self.pos, "a value"))
                }
            }
            b'-' | b'0'..=b'9' => self.number(),
            b'.' if self.bytes.get(self.pos + 1).is_some_and(u8::is_ascii_digit) => {
                self.leading_point()
            }
            _ if is_word_start(byte) => self.word(role),
            // Not `.5` or `+1`: a number in a spelling JSON lacks is not a word.
            _ if role == Role::ObjectValue
                && scan::is_bare_byte(byte)
                && byte != b'+'
                && !is_twin(self.bytes, self.pos)
                && !(byte == b'.'
                    && self.bytes.get(self.pos + 1).is_some_and(u8::is_ascii_digit)) =>
            {
                self.bare_word()
            }
            _ => Err(self.broken(self.pos, "a value")),
        }
    }

    /// A string followed by `+ "more"`, as code concatenates them, comments around the `+`
    /// too: one string. A `+` at the end of the text is cut off; before anything but a quote it
    /// is malformed.
    fn concatenation(&mut self, mut joined: String, role: Role) -> Result<Value, Stop> {
        let bytes = self.bytes;
        loop {
            let mut plus = scan::skip_blank(bytes, self.pos);
            let mut comment_before = false;
            if bytes.get(plus) == Some(&b'/') {
                (plus, comment_before) = scan::skip_blank_and_comments(bytes, plus);
            }
            if bytes.get(plus) != Some(&b'+') {
                return Ok(Value::String(joined));
            }
            let (next, comment_after) = scan::skip_blank_and_comments(bytes, plus + 1);
            if comment_before || comment_after {
                self.fix(Rung::Comments, plus)?;
            }
            match bytes.get(next) {
                None => return Err(Stop::Cut(Cut::AfterPlus, plus)),
                Some(b'"') => {}
                Some(b'\'') => self.fix(Rung::Quotes, next)?,
                Some(_) => return Err(self.broken(next, "a string after '+'")),
            }
            self.fix(Rung::Concatenation, plus)?;
            self.pos = next;
            joined.push_str(&self.string(None, role)?);
        }
    }

    fn word(&mut self, role: Role) -> Result<Value, Stop> {
        let start = self.pos;
        let word = scan::word_at(self.bytes, start);
        let end = start + word.len();
        let cut_inside = end == self.bytes.len() && is_literal_prefix(&self.text[start..end]);
        let (value, rung) = match literal(word).filter(|_| !cut_inside) {
            Some(found) => found,
            None => {
                let word = &self.text[start..end];
                if end == self.bytes.len() && is_literal_prefix(word) {
                    return Err(Stop::Cut(Cut::InLiteral, start));
                }
                if !self.takes_bare_word(role) {
                    return Err(self.broken(start, "a value"));
                }
                return self.bare_word();
            }
        };
        if let Some(rung) = rung {
            self.fix(rung, start)?;
        }
        self.pos = end;
        Ok(value)
    }

    /// Whether a bare word may stand here: after a key, or as an element of an array (`[a, b]`,
    /// `[https://x.com/]`), but not of a tuple, whose `)` a word would swallow. (Bare values
    /// that start with punctuation, `./src` or `...`, only after a key.)
    #[inline]
    fn takes_bare_word(&self, role: Role) -> bool {
        role == Role::ObjectValue || !self.in_tuple()
    }

    /// A bare one-word value after a key (`{"status": ok}`), taken as a string. A URL
    /// (`https://host:8080/a//b`) is one word: its `://`, port colon and slashes are not
    /// separators or comments.
    fn bare_word(&mut self) -> Result<Value, Stop> {
        let bytes = self.bytes;
        let start = self.pos;
        let mut end = start;
        let mut url = false;
        while end < bytes.len() {
            let byte = bytes[end];
            if byte == b':' {
                let scheme = end > start && bytes[start..end].iter().all(u8::is_ascii_alphabetic);
                if !url && scheme && b"//".starts_with(&bytes[end + 1..]) {
                    // `https:` or `https:/` at the very end: cut inside the URL.
                    return Err(Stop::Cut(Cut::InLiteral, start));
                }
                if !url && scheme && bytes[end + 1..].starts_with(b"//") {
                    url = true;
                    end += 3;
                    continue;
                }
                if url && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
                    end += 1;
                    continue;
                }
                // A time of day in a timestamp (`2024-10-18T18:35:22Z`).
                if end > start
                    && bytes[end - 1].is_ascii_digit()
                    && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)
                    && bytes[start].is_ascii_digit()
                {
                    end += 1;
                    continue;
                }
            }
            if matches!(byte, b' ' | b'\t')
                && let Some(word) = self.next_word(end)
            {
                end = word;
                continue;
            }
            if !scan::is_bare_byte(byte)
                || (!url && byte == b'/' && matches!(bytes.get(end + 1), Some(b'/' | b'*')))
                || (byte >= 0x80 && scan::unicode_space(bytes, end) > 0)
                || is_twin(bytes, end)
            {
                break;
            }
            end += 1;
        }
        if end == bytes.len() {
            return Err(Stop::Cut(Cut::InLiteral, start));
        }
        self.fix(Rung::Unquoted, start)?;
        // `{"a": foo", "b": 1}`, `[a", b"]`: a value that lost its opening quote ends at the
        // closing one, before a separator or closer (a bare value holds no quote).
        let closed = bytes[end] == b'"' && separator_after(bytes, end + 1);
        self.pos = end + usize::from(closed);
        Ok(Value::String(self.text[start..end].to_owned()))
    }

    /// After a bare word and the spaces at `at`: where the next word of the same value starts
    /// (`{greeting: hello world}`), if one does on this line. A quote, a separator, a comment
    /// or the next key (`ok b: 1`) ends the value instead.
    fn next_word(&self, at: usize) -> Option<usize> {
        let bytes = self.bytes;
        let mut next = at;
        while next < bytes.len() && matches!(bytes[next], b' ' | b'\t') {
            next += 1;
        }
        let byte = *bytes.get(next)?;
        let starts_word = scan::is_bare_byte(byte)
            && byte != b'#'
            && !(byte == b'/' && matches!(bytes.get(next + 1), Some(b'/' | b'*')))
            && !(byte >= 0x80 && scan::unicode_space(bytes, next) > 0)
            && !is_twin(bytes, next)
            && !scan::is_end_marker(bytes, next)
            && !self.starts_key(next);
        starts_word.then_some(next)
    }

    fn number(&mut self) -> Result<Value, Stop> {
        let bytes = self.bytes;
        let start = self.pos;
        let negative = bytes[start] == b'-';
        let mut end = start + usize::from(negative);
        let digits = |from: usize| {
            let mut to = from;
            while to < bytes.len() && bytes[to].is_ascii_digit() {
                to += 1;
            }
            to
        };
        match bytes.get(end) {
            None => return Err(Stop::Cut(Cut::InNumber, start)),
            Some(b'0') => end += 1,
            Some(b'1'..=b'9') => end = digits(end),
            Some(_) => return self.incomplete(start, end, None, "a digit"),
        }
        let integer_end = end;
        if bytes.get(end) == Some(&b'.') {
            let fraction = digits(end + 1);
            if fraction == end + 1 {
                return self.incomplete(start, fraction, Some(end), "a digit after '.'");
            }
            end = fraction;
        }
        if matches!(bytes.get(end), Some(b'e' | b'E')) {
            let mut exponent = end + 1;
            if matches!(bytes.get(exponent), Some(b'+' | b'-')) {
                exponent += 1;
            }
            let after = digits(exponent);
            if after == exponent {
                return self.incomplete(start, after, Some(end), "a digit in the exponent");
            }
            end = after;
        }
        // Only whitespace after the number, to the end of the text, is no evidence that it is
        // complete: a cut-off answer saved to a file or piped by `echo` ends with a newline.
        match bytes.get(end) {
            None => return Err(Stop::Cut(Cut::InNumber, start)),
            Some(_) if scan::skip_blank(bytes, end) == bytes.len() && !self.ends_at_marker => {
                return Err(Stop::Cut(Cut::InNumber, start));
            }
            // After a key, a token that starts like a number and goes on (`0.0.1`, `0789`,
            // `12px`, a UUID) is a bare value, kept as its text: nothing is guessed.
            Some(&byte)
                if (scan::is_word_byte(byte)
                    || byte == b'.'
                    || byte == b'-'
                    || (byte == b'/' && bytes.get(end + 1).is_some_and(u8::is_ascii_digit)))
                    && self.role() == Role::ObjectValue =>
            {
                self.pos = start;
                return self.bare_word();
            }
            Some(&byte) if scan::is_word_byte(byte) || byte == b'.' => {
                return Err(self.broken(end, "a number"));
            }
            // `{"a": 12345", "b": 1}`: like `foo"` (see `bare_word`), a value that lost its
            // opening quote, so the string it was written as. Only before a `,`: a quote before
            // a closer may close a string the whole document sits in (`"the list [1, 2"] more"`).
            Some(b'"') if bytes.get(scan::skip_blank(bytes, end + 1)) == Some(&b',') => {
                self.fix(Rung::Unquoted, start)?;
                self.pos = end + 1;
                return Ok(Value::String(self.text[start..end].to_owned()));
            }
            Some(_) => {}
        }
        self.pos = end;
        let text = &self.text[start..end];
        let number = if integer_end == end {
            integer(text, negative)
        } else {
            text.parse::<f64>().ok().and_then(Number::from_f64)
        };
        let Some(number) = number else {
            // Too large for a double: it has no JSON value but null.
            self.fix(Rung::NonFinite, start)?;
            return Ok(Value::Null);
        };
        if (integer_end != end || number.is_f64()) && self.number_budget > 0 {
            self.remember_number_text(&number, text);
        }
        Ok(Value::Number(number))
    }

    /// `.25`: a number written without its leading zero (`numbers`), read as `0.25`. Like any
    /// number it may go on at the very end of the text.
    fn leading_point(&mut self) -> Result<Value, Stop> {
        let bytes = self.bytes;
        let start = self.pos;
        let mut end = start + 1;
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            end += 1;
        }
        if scan::skip_blank(bytes, end) == bytes.len() && !self.ends_at_marker {
            return Err(Stop::Cut(Cut::InNumber, start));
        }
        if bytes
            .get(end)
            .is_some_and(|byte| scan::is_word_byte(*byte) || *byte == b'.')
        {
            return Err(self.broken(end, "a number"));
        }
        self.fix(Rung::Numbers, start)?;
        self.pos = end;
        let value = format!("0{}", &self.text[start..end]).parse::<f64>().ok();
        Ok(value
            .and_then(Number::from_f64)
            .map_or(Value::Null, Value::Number))
    }

    /// A number whose digits stop early (`1.`, `1e`, `1e+`, a lone `-`) where more were needed,
    /// at `missing`. Before a separator or closer the model left it incomplete: the number up to
    /// `written` (its digits before the `.` or `e`) is the value, `null` when it has none. At
    /// the end of the text it may go on (truncated); before anything else it is malformed.
    fn incomplete(
        &mut self,
        start: usize,
        missing: usize,
        written: Option<usize>,
        expected: &'static str,
    ) -> Result<Value, Stop> {
        let bytes = self.bytes;
        let after = scan::skip_blank(bytes, missing);
        match bytes.get(after) {
            None => return Err(Stop::Cut(Cut::InNumber, start)),
            Some(b',' | b'}' | b']' | b')') => {}
            // `57eeeeb1-...` (a UUID), `1.x`: after a key, a bare value kept as its text.
            Some(_)
                if after == missing
                    && self.role() == Role::ObjectValue
                    && bytes[missing].is_ascii_alphanumeric() =>
            {
                self.pos = start;
                return self.bare_word();
            }
            Some(_) => return Err(self.broken(missing, expected)),
        }
        self.fix(Rung::Numbers, start)?;
        self.pos = missing;
        Ok(written
            .and_then(|end| self.text[start..end].parse::<f64>().ok())
            .and_then(Number::from_f64)
            .map_or(Value::Null, Value::Number))
    }

    fn remember_number_text(&mut self, number: &Number, text: &str) {
        if number.to_string() == text {
            return;
        }
        let mut pointer = String::new();
        for (depth, frame) in self.stack.iter().enumerate() {
            match frame {
                Frame::Array { start } => {
                    let index = self.frame_end(depth) - start;
                    push_token(&mut pointer, &index.to_string());
                }
                Frame::Object { pending, .. } => {
                    push_token(&mut pointer, pending.as_deref().unwrap_or_default())
                }
            }
        }
        self.number_budget = self
            .number_budget
            .saturating_sub(pointer.len() + text.len());
        if self.number_budget > 0 {
            self.numbers.push((pointer, text.to_owned()));
        }
    }
}

/// A literal word in any dialect the ladder reads, with the rung that fixes it: JSON's own
/// (none); Python's `True`/`False`/`None` and `true`/`false`/`null` in any other case
/// (`TRUE`, `Null`: `python_bools`); `NaN`, `Infinity`, `inf`, `undefined` in any case
/// (`non_finite`, null). `none` in lower case is not a literal: it may well be the word.
pub(super) fn literal(word: &[u8]) -> Option<(Value, Option<Rung>)> {
    let found = match word {
        b"true" => (Value::Bool(true), None),
        b"false" => (Value::Bool(false), None),
        b"null" => (Value::Null, None),
        b"None" => (Value::Null, Some(Rung::PythonBools)),
        b"undefined" => (Value::Null, Some(Rung::NonFinite)),
        _ if word.eq_ignore_ascii_case(b"true") => (Value::Bool(true), Some(Rung::PythonBools)),
        _ if word.eq_ignore_ascii_case(b"false") => (Value::Bool(false), Some(Rung::PythonBools)),
        _ if word.eq_ignore_ascii_case(b"null") => (Value::Null, Some(Rung::PythonBools)),
        _ if [&b"nan"[..], b"inf", b"infinity"]
            .iter()
            .any(|name| word.eq_ignore_ascii_case(name)) =>
        {
            (Value::Null, Some(Rung::NonFinite))
        }
        _ => return None,
    };
    Some(found)
}

/// An integer the way `serde_json` reads it: `u64` when it fits, `i64` when negative and it
/// fits, otherwise a double (`-0` is the double `-0.0`).
fn integer(text: &str, negative: bool) -> Option<Number> {
    let digits = if negative { &text[1..] } else { text };
    match digits.parse::<u64>() {
        Ok(magnitude) if !negative => Some(Number::from(magnitude)),
        Ok(magnitude) => {
            let negated = (magnitude as i64).wrapping_neg();
            if negated >= 0 {
                Number::from_f64(-(magnitude as f64))
            } else {
                Some(Number::from(negated))
            }
        }
        Err(_) => text.parse::<f64>().ok().and_then(Number::from_f64),
    }
}

/// Whether the end of the text, or a `,` or closer, comes next after `at`, across whitespace.
fn separator_after(bytes: &[u8], at: usize) -> bool {
    matches!(
        bytes.get(scan::skip_blank(bytes, at)),
        None | Some(b',' | b'}' | b']')
    )
}
