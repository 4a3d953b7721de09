//! Strings, the part of the parser that must know the most: which quote opened the string and
//! which quote really closes it, escapes, and raw control characters.
//!
//! A string opened by `"`, `'`, `“`/`”` or `‘`/`’` closes at a quote of the same kind only when
//! what follows makes sense after a string (see `Parser::closes_at`); any other such quote is
//! content. That one rule keeps apostrophes inside single-quoted text (`'don't'`), lets a model
//! write `"He said "hi" to me"`, and still closes `"a" "b": 1` where a comma is missing.

use super::parse::{Cut, Frame, Parser, Role, Stop};
use super::rung::Rung;
use super::scan::{self, is_end_marker, is_key_byte, is_word_start, skip_blank};
use super::scan::{SMART_LEN, Smart, find_in_smart_string, find_in_string, smart_quote};

impl Parser<'_> {
    /// The string whose opening quote is at `self.pos` (`smart` when it is a typographic
    /// quote); leaves `self.pos` just past the closing quote.
    pub(super) fn string(&mut self, smart: Option<Smart>, role: Role) -> Result<String, Stop> {
        let bytes = self.bytes;
        let open = self.pos;
        let quote = bytes[open];
        let (mut at, content_rung) = match smart {
            None if quote == b'"' => (open + 1, Rung::InnerQuotes),
            None => (open + 1, Rung::Quotes),
            Some(_) => (open + SMART_LEN, Rung::SmartQuotes),
        };
        let cut = if role == Role::Key {
            Cut::InKey
        } else {
            Cut::InString
        };
        let first = at;
        let mut out = String::new();
        let mut chunk = at;
        // Where the string's content ends when its closing quote is missing (see
        // `Parser::unclosed_quote`); the whole text until the string is known to run to the end.
        let mut limit = bytes.len();
        let before = (self.changed, self.needs);
        // Where raw line breaks were taken out of a key (see `join_breaks`).
        let mut breaks: Vec<usize> = Vec::new();
        loop {
            at = match smart {
                None => find_in_string(&bytes[..limit], at, quote),
                Some(_) => find_in_smart_string(&bytes[..limit], at),
            };
            if at >= limit && limit < bytes.len() {
                self.fix(Rung::CloseQuote, limit)?;
                out.push_str(&self.text[chunk.min(limit)..limit]);
                self.pos = limit;
                return Ok(join_breaks(out, &breaks));
            }
            let Some(&byte) = bytes.get(at) else {
                if role != Role::Key {
                    self.string_prose = self.prose_in_cut_string(open, smart);
                    if self.string_prose.is_none()
                        && let Some(end) = self.unclosed_quote(first)
                    {
                        // Read the string again, up to its content's end: the fixes the first
                        // reading recorded in the closers are not the string's.
                        (self.changed, self.needs) = before;
                        limit = end;
                        at = first;
                        chunk = first;
                        out.clear();
                        breaks.clear();
                        continue;
                    }
                }
                return Err(Stop::Cut(cut, open));
            };
            if byte == b'\\' {
                if out.capacity() == 0 {
                    // Room for the string up to the next quote, which usually ends it: the
                    // string is built in one allocation, not grown escape by escape.
                    let rest = memchr::memchr(quote, &bytes[at..limit]).unwrap_or(limit - at);
                    out.reserve(at - chunk + rest);
                }
                out.push_str(&self.text[chunk..at]);
                at = self.escape(at, quote, &mut out)?;
                chunk = at;
                continue;
            }
            if byte < 0x20 {
                self.fix(Rung::ControlChars, at)?;
                if role == Role::Key && matches!(byte, b'\n' | b'\r') {
                    out.push_str(self.text[chunk..at].trim_end_matches([' ', '\t']));
                    breaks.push(out.len());
                    at = skip_line_break(bytes, at);
                    chunk = at;
                    continue;
                }
                at += 1;
                continue;
            }
            let length = match smart {
                None => 1,
                Some(kind) if smart_quote(bytes, at) == Some(kind) => SMART_LEN,
                Some(_) => {
                    at += 1;
                    continue;
                }
            };
            if self.closes_at(at + length, role) {
                if role == Role::ObjectValue
                    && limit == bytes.len()
                    && self.colon_after(at + length)
                    && let Some(comma) = key_after_comma(&bytes[first..at], quote)
                {
                    // `{"a": "b, "c": "d"}`: a value's quote closes a key, so the value lost its
                    // closing quote before the `,` that comes before that key. Read it again up
                    // to there.
                    (self.changed, self.needs) = before;
                    limit = first + comma;
                    at = first;
                    chunk = first;
                    out.clear();
                    breaks.clear();
                    continue;
                }
                let text = &self.text[chunk..at];
                self.pos = at + length;
                if out.is_empty() && breaks.is_empty() {
                    return Ok(text.to_owned());
                }
                out.push_str(text);
                return Ok(join_breaks(out, &breaks));
            }
            self.fix(content_rung, at)?;
            at += length;
        }
    }

    /// The escape whose backslash is at `at`; appends what it means to `out` and returns where
    /// the string goes on.
    fn escape(&mut self, at: usize, quote: u8, out: &mut String) -> Result<usize, Stop> {
        let bytes = self.bytes;
        let Some(&letter) = bytes.get(at + 1) else {
            return Err(Stop::Cut(Cut::InString, at));
        };
        let plain = match letter {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'\'' => {
                let rung = if quote == b'\'' {
                    Rung::Quotes
                } else {
                    Rung::Escapes
                };
                self.fix(rung, at)?;
                '\''
            }
            b'u' => return self.unicode_escape(at, out),
            _ => {
                // An unknown escape keeps its backslash; what follows is ordinary content.
                self.fix(Rung::Escapes, at)?;
                out.push('\\');
                return Ok(at + 1);
            }
        };
        out.push(plain);
        Ok(at + 2)
    }

    /// `\uXXXX` at `at`, with surrogate pairs joined and lone surrogates replaced by U+FFFD.
    fn unicode_escape(&mut self, at: usize, out: &mut String) -> Result<usize, Stop> {
        let unit = match hex4(self.bytes, at + 2) {
            Hex::Cut => return Err(Stop::Cut(Cut::InString, at)),
            Hex::Invalid => {
                self.fix(Rung::Escapes, at)?;
                out.push('\\');
                return Ok(at + 1);
            }
            Hex::Unit(unit) => unit,
        };
        let after = at + 6;
        if (0xD800..0xDC00).contains(&unit) {
            let rest = &self.bytes[after.min(self.bytes.len())..];
            if rest.is_empty() || rest == b"\\" || rest == b"\\u" {
                return Err(Stop::Cut(Cut::InString, at));
            }
            if rest.starts_with(b"\\u") {
                match hex4(self.bytes, after + 2) {
                    Hex::Cut => return Err(Stop::Cut(Cut::InString, at)),
                    Hex::Unit(low) if (0xDC00..0xE000).contains(&low) => {
                        let code = 0x10000
                            + ((u32::from(unit) - 0xD800) << 10)
                            + (u32::from(low) - 0xDC00);
                        out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        return Ok(after + 6);
                    }
                    Hex::Unit(_) | Hex::Invalid => {}
                }
            }
            self.fix(Rung::Escapes, at)?;
            out.push('\u{fffd}');
            return Ok(after);
        }
        match char::from_u32(u32::from(unit)) {
            Some(character) => out.push(character),
            None => {
                // A low surrogate with no high one before it.
                self.fix(Rung::Escapes, at)?;
                out.push('\u{fffd}');
            }
        }
        Ok(after)
    }
}

enum Hex {
    Unit(u16),
    Invalid,
    /// The text ends inside the four hex digits.
    Cut,
}

fn hex4(bytes: &[u8], at: usize) -> Hex {
    let mut unit: u16 = 0;
    for offset in 0..4 {
        let Some(&byte) = bytes.get(at + offset) else {
            return Hex::Cut;
        };
        let Some(digit) = (byte as char).to_digit(16) else {
            return Hex::Invalid;
        };
        unit = unit * 16 + digit as u16;
    }
    Hex::Unit(unit)
}

impl Parser<'_> {
    /// Whether a closing quote ending just before `after` really closes the string: what
    /// follows must be the end, `,` (followed by something that fits), `:`, `}`, `]`, a
    /// comment, a fence or chat token, or (after whitespace) the next member or element of a
    /// list that lacks its comma. Anything else means the quote was content.
    #[inline]
    pub(super) fn closes_at(&self, after: usize, role: Role) -> bool {
        let bytes = self.bytes;
        let next = skip_blank(bytes, after);
        let Some(&byte) = bytes.get(next) else {
            return true;
        };
        match byte {
            b':' | b'}' | b']' => true,
            b')' => self.in_tuple(),
            b',' => role == Role::Key || self.fits_after_comma(next + 1, role),
            b'/' => matches!(bytes.get(next + 1), Some(b'/' | b'*')),
            // `"v" # note`: a comment, set apart by a space (`"#1"` may be content).
            b'#' => next > after,
            // `"a" + "b"`: concatenation, as code writes it.
            b'+' if role != Role::Key => {
                let (string, _) = scan::skip_blank_and_comments(bytes, next + 1);
                matches!(bytes.get(string), None | Some(b'"' | b'\''))
            }
            b'`' | b'~' | b'<' => is_end_marker(bytes, next),
            // In a key, a quote followed by a word is content (`"key "with" quotes"`); a quote
            // followed by anything else ends the key, and a missing `:` shows up next. So does a
            // quote followed by spaces and a literal or a typographic quote (`{"a" true}`,
            // `{“a” “b”}`): the value, on the key's line.
            _ if role == Role::Key => {
                !(byte.is_ascii_alphabetic() || byte >= 0x80)
                    || (next > after
                        && (smart_quote(bytes, next).is_some()
                            || super::scalar::literal(scan::word_at(bytes, next)).is_some()))
            }
            _ if next > after => self.continues_list(next, role),
            _ => false,
        }
    }

    /// Whether `:` comes next after `after`, across whitespace.
    #[inline]
    fn colon_after(&self, after: usize) -> bool {
        match self.bytes.get(after) {
            Some(b':') => true,
            Some(&byte) if byte >= 0x80 || scan::is_space(byte) => {
                self.bytes.get(skip_blank(self.bytes, after)) == Some(&b':')
            }
            _ => false,
        }
    }

    /// Whether a value plainly starts at `at` (after a value in an array, without a comma).
    pub(super) fn starts_value(&self, at: usize) -> bool {
        let bytes = self.bytes;
        match bytes[at] {
            b'"' | b'\'' | b'{' | b'[' | b'-' | b'0'..=b'9' => true,
            0xE2 => smart_quote(bytes, at).is_some(),
            byte if is_word_start(byte) => {
                super::scalar::literal(scan::word_at(bytes, at)).is_some()
            }
            _ => false,
        }
    }

    /// Whether a key plainly starts at `at` (after a member, without a comma): a quote, or an
    /// identifier followed by `:` (or by the closing quote of a key that lost its opening one,
    /// and `:`).
    pub(super) fn starts_key(&self, at: usize) -> bool {
        let bytes = self.bytes;
        match bytes[at] {
            b'"' | b'\'' => true,
            0xE2 => smart_quote(bytes, at).is_some(),
            byte if is_key_byte(byte) => {
                let mut end = at;
                while end < bytes.len() && is_key_byte(bytes[end]) {
                    end += 1;
                }
                if bytes.get(end) == Some(&b'"') {
                    end += 1;
                }
                let after = skip_blank(bytes, end);
                after < bytes.len() && bytes[after] == b':'
            }
            _ => false,
        }
    }

    /// In an array, after an element and a line break: whether the word at `at` is the next
    /// element, written bare and without its comma (`[` newline `a` newline `b` newline `]`):
    /// the word is followed by `,` or `]`, across whitespace. A word followed by more words is a
    /// sentence: prose after an array that lacks its closer.
    pub(super) fn word_element(&self, at: usize) -> bool {
        let bytes = self.bytes;
        let mut before = at;
        while before > 0 && scan::is_space(bytes[before - 1]) && bytes[before - 1] != b'\n' {
            before -= 1;
        }
        let on_a_new_line = before > 0 && bytes[before - 1] == b'\n';
        if !on_a_new_line || !is_word_start(bytes[at]) || self.in_tuple() {
            return false;
        }
        let mut end = at;
        while end < bytes.len() && scan::is_bare_byte(bytes[end]) {
            end += 1;
        }
        matches!(bytes.get(skip_blank(bytes, end)), Some(b',' | b']'))
    }

    /// Whether a member plainly starts at `at`: a key, quoted on one line or bare, then `:` (or,
    /// after a quoted key, a value on its line).
    pub(super) fn member_at(&self, at: usize) -> bool {
        let bytes = self.bytes;
        match bytes.get(at) {
            Some(&quote @ (b'"' | b'\'')) => {
                same_line_quote(bytes, at + 1, quote).is_some_and(|close| {
                    let mut next = close + 1;
                    while matches!(bytes.get(next), Some(b' ' | b'\t')) {
                        next += 1;
                    }
                    // `"b": 2`, or `"b" "x"` with its `:` missing.
                    bytes.get(next) == Some(&b':')
                        || (next > close + 1 && next < bytes.len() && self.starts_value(next))
                })
            }
            Some(_) => self.starts_key(at),
            None => false,
        }
    }

    fn fits_after_comma(&self, at: usize, role: Role) -> bool {
        let bytes = self.bytes;
        let at = skip_blank(bytes, at);
        let Some(&byte) = bytes.get(at) else {
            return true;
        };
        match byte {
            b',' | b'/' | b'#' => true,
            b'.' | 0xE2
                if super::placeholders::ellipsis(bytes, at).is_some_and(|length| length > 0) =>
            {
                true
            }
            b'}' if role == Role::ObjectValue => true,
            b']' if role == Role::ArrayValue => true,
            _ if is_end_marker(bytes, at) => true,
            _ if role == Role::ObjectValue => self.starts_key(at),
            _ => self.starts_value(at) || bare_element(bytes, at),
        }
    }

    /// After a closing-quote candidate and whitespace: is this the next member (object) or
    /// element (array) of a list that lacks its comma?
    fn continues_list(&self, at: usize, role: Role) -> bool {
        let bytes = self.bytes;
        match (role, bytes[at]) {
            (Role::ObjectValue, b'"' | b'\'') => {
                let quote = bytes[at];
                let Some(close) = same_line_quote(bytes, at + 1, quote) else {
                    return false;
                };
                let after = skip_blank(bytes, close + 1);
                bytes.get(after) == Some(&b':')
            }
            (Role::ObjectValue, byte) if is_key_byte(byte) => self.starts_key(at),
            (Role::ArrayValue, b'"') => {
                // A run of strings that lack their commas (`["x" "y" "z"]`) ends the way a
                // list does; past a few, it is taken for one.
                let mut next = at;
                for _ in 0..STRING_RUN {
                    let Some(close) = same_line_quote(bytes, next + 1, b'"') else {
                        return false;
                    };
                    next = skip_blank(bytes, close + 1);
                    match bytes.get(next) {
                        None | Some(b',' | b']') => return true,
                        Some(b'"') if next > close + 1 => {}
                        Some(_) => return false,
                    }
                }
                true
            }
            (Role::ArrayValue, b'{' | b'[' | b'-' | b'0'..=b'9') => true,
            _ => false,
        }
    }
}

impl Parser<'_> {
    /// For a string whose content starts at `content` and that runs to the end of the text:
    /// where its content ends if the text ends with exactly the closers the open containers
    /// need, innermost first (whitespace between them allowed), and the content before them
    /// opens no bracket it does not close. Then the model forgot the closing quote
    /// (`{"a": "b}`, `["x", "y]`); otherwise the text was cut inside the string
    /// (`{"code": "f() {}` is cut: its `}` closes the `{` in the string).
    #[cold]
    #[inline(never)]
    pub(super) fn unclosed_quote(&self, content: usize) -> Option<usize> {
        let bytes = self.bytes;
        let mut end = bytes.len();
        for (depth, frame) in self.stack.iter().enumerate() {
            while end > content && scan::is_space(bytes[end - 1]) {
                end -= 1;
            }
            let closer = match frame {
                Frame::Array { .. } if self.tuples.contains(&(depth + 1)) => b')',
                Frame::Array { .. } => b']',
                Frame::Object { .. } => b'}',
            };
            if end == content || bytes[end - 1] != closer {
                return None;
            }
            end -= 1;
        }
        while end > content && scan::is_space(bytes[end - 1]) {
            end -= 1;
        }
        let (mut braces, mut brackets) = (0usize, 0usize);
        for &byte in &bytes[content..end] {
            match byte {
                b'{' => braces += 1,
                b'[' => brackets += 1,
                b'}' => braces = braces.saturating_sub(1),
                b']' => brackets = brackets.saturating_sub(1),
                _ => {}
            }
        }
        (braces == 0 && brackets == 0 && !self.stack.is_empty()).then_some(end)
    }
}

/// Past the line break at `at` and the indentation after it.
fn skip_line_break(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && matches!(bytes[at], b'\n' | b'\r') {
        at += 1;
    }
    while at < bytes.len() && matches!(bytes[at], b' ' | b'\t') {
        at += 1;
    }
    at
}

/// A key with raw line breaks taken out at `breaks` (offsets in `key`), as the model broke the
/// line: a one-word key is joined (`na` newline `me` is `name`), a phrase gets one space at each
/// break (`line one` newline `line two`). A key is a name; no schema asks for a line break in
/// one, and an escaped `\n` in a key is kept.
fn join_breaks(mut key: String, breaks: &[usize]) -> String {
    if breaks.is_empty() || !key.contains(' ') {
        return key;
    }
    for &at in breaks.iter().rev() {
        if at > 0 && at < key.len() {
            key.insert(at, ' ');
        }
    }
    key
}

/// In a value's content that runs on into the next key (`b, "c` of `{"a": "b, "c": 1}`):
/// where the `,` before that key's opening `quote` is.
fn key_after_comma(content: &[u8], quote: u8) -> Option<usize> {
    let open = memchr::memrchr(quote, content)?;
    if open > 0 && content[open - 1] == b'\\' {
        return None;
    }
    let mut comma = open;
    while comma > 0 && matches!(content[comma - 1], b' ' | b'\t') {
        comma -= 1;
    }
    (comma > 0 && content[comma - 1] == b',').then_some(comma - 1)
}

/// How many strings without commas between them `continues_list` looks through.
const STRING_RUN: usize = 8;

/// Whether a bare word at `at`, after a comma in an array, is the next element
/// (`["Done", then commit]`): its words run to a comma, closer or line end; words that run into
/// a quote are the rest of a string that holds a quoted word (`["Run "make", then commit"]`).
fn bare_element(bytes: &[u8], at: usize) -> bool {
    if !is_word_start(bytes[at]) {
        return false;
    }
    let end = bytes[at..]
        .iter()
        .position(|byte| matches!(byte, b'"' | b',' | b']' | b'}' | b'\n'))
        .map_or(bytes.len(), |end| at + end);
    bytes.get(end) != Some(&b'"')
}

/// The next unescaped `quote` on the same line, from `at`.
fn same_line_quote(bytes: &[u8], mut at: usize, quote: u8) -> Option<usize> {
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'\n' => return None,
            byte if byte == quote => return Some(at),
            _ => at += 1,
        }
    }
    None
}
