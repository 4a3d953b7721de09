//! Scalars outside strings: numbers (read the way `serde_json` reads them, with their source
//! text kept when it would not print back the same), literal words in every dialect the ladder
//! understands (`true`, `True`, `NaN`, `undefined`, ...), and bare one-word values after a key.

use serde_json::{Number, Value};

use super::parse::{Cut, Frame, Parser, Role, Stop};
use super::rung::Rung;
use super::scan::{self, is_literal_prefix, is_word_start, smart_quote};
use crate::schema::push_token;

impl Parser<'_> {
    /// A string, number or literal starting with `byte` at `self.pos`.
    pub(super) fn scalar(&mut self, byte: u8) -> Result<Value, Stop> {
        let role = self.role();
        match byte {
            b'"' => Ok(Value::String(self.string(None, role)?)),
            b'\'' => {
                self.fix(Rung::Quotes, self.pos)?;
                Ok(Value::String(self.string(None, role)?))
            }
            0xE2 if smart_quote(self.bytes, self.pos).is_some() => {
                let smart = smart_quote(self.bytes, self.pos);
                self.fix(Rung::SmartQuotes, self.pos)?;
                Ok(Value::String(self.string(smart, role)?))
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
            _ if is_word_start(byte) => self.word(role),
            // Not `.5` or `+1`: a number in a spelling JSON lacks is not a word.
            _ if role == Role::ObjectValue
                && scan::is_bare_byte(byte)
                && byte != b'+'
                && !(byte == b'.'
                    && self.bytes.get(self.pos + 1).is_some_and(u8::is_ascii_digit)) =>
            {
                self.bare_word()
            }
            _ => Err(self.broken(self.pos, "a value")),
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
                if role != Role::ObjectValue {
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
            }
            if !scan::is_bare_byte(byte)
                || (!url && byte == b'/' && matches!(bytes.get(end + 1), Some(b'/' | b'*')))
                || (byte >= 0x80 && scan::unicode_space(bytes, end) > 0)
            {
                break;
            }
            end += 1;
        }
        if end == bytes.len() {
            return Err(Stop::Cut(Cut::InLiteral, start));
        }
        self.fix(Rung::Unquoted, start)?;
        self.pos = end;
        Ok(Value::String(self.text[start..end].to_owned()))
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
            Some(_) => return Err(self.broken(end, "a digit")),
        }
        let integer_end = end;
        if bytes.get(end) == Some(&b'.') {
            let fraction = digits(end + 1);
            if fraction == bytes.len() && fraction == end + 1 {
                return Err(Stop::Cut(Cut::InNumber, start));
            }
            if fraction == end + 1 {
                return Err(self.broken(fraction, "a digit after '.'"));
            }
            end = fraction;
        }
        if matches!(bytes.get(end), Some(b'e' | b'E')) {
            let mut exponent = end + 1;
            if matches!(bytes.get(exponent), Some(b'+' | b'-')) {
                exponent += 1;
            }
            let after = digits(exponent);
            if after == bytes.len() && after == exponent {
                return Err(Stop::Cut(Cut::InNumber, start));
            }
            if after == exponent {
                return Err(self.broken(after, "a digit in the exponent"));
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
                if (scan::is_word_byte(byte) || byte == b'.' || byte == b'-')
                    && self.role() == Role::ObjectValue =>
            {
                self.pos = start;
                return self.bare_word();
            }
            Some(&byte) if scan::is_word_byte(byte) || byte == b'.' => {
                return Err(self.broken(end, "a number"));
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

    fn remember_number_text(&mut self, number: &Number, text: &str) {
        if number.to_string() == text {
            return;
        }
        let mut pointer = String::new();
        for frame in &self.stack {
            match frame {
                Frame::Array(items) => push_token(&mut pointer, &items.len().to_string()),
                Frame::Object(_, key) => {
                    push_token(&mut pointer, key.as_deref().unwrap_or_default())
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
