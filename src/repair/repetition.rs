//! Degenerate loops in a model's answer: [`RepetitionDetector`] finds them in text as it grows
//! (one streamed chunk at a time), [`find_repetition`] in a whole answer; both give the same
//! [`Repetition`] for the same text.
//!
//! Small models under a constraint fall into greedy loops and run until the token budget is
//! spent. The loop takes five forms, and each is caught by one rule:
//! - one item, phrase or whole object repeated (`"a.yaml", "a.yaml", ...`, the same finding
//!   again and again, the same key/value pair), byte for byte except for counters: every run of
//!   digits inside a string (a key or a value) and every number that is an object member's
//!   value reads as one digit, so `"step-1", "step-2", ...` and `{"id": 2, ...}, {"id": 3, ...}`
//!   loop too: the tail of the text is periodic. A number that is an array's item stays as it
//!   is: a long array of distinct numbers is data, not a loop.
//!   For every byte, the detector follows one candidate period and counts how far back the text
//!   repeats at that distance; when the run breaks, the most recent earlier occurrence of the
//!   last [`GRAM`] bytes (a rolling hash into a fixed table) proposes the next candidate. A loop
//!   is a periodic tail of at least [`MIN_SPAN`] bytes holding at least [`MIN_REPEATS`] whole
//!   periods;
//! - a list whose items are alike but for a counter or a few words (the same title and files,
//!   a description with one clause changed): compared item by item on their words
//!   ([`items`](self::items));
//! - optional whitespace forever: [`WHITESPACE_RUN`] whitespace bytes in a row;
//! - the digits of one number forever (`3.14159...` never ending): a number outside a string
//!   with more than [`NUMBER_DIGITS`] digits, which no double can hold anyway, or more than
//!   [`STRING_DIGITS`] digits in a row inside a string;
//! - the same pair again is the first rule with a period that spans the pair.
//!
//! Each byte costs a constant amount of work (a hash update, one table read and write, one
//! comparison; [`GRAM`] comparisons when a candidate is proposed; a word pushed to each tracked
//! array that holds it), so feeding a whole answer is linear in its length; the memory is one
//! fixed table, a folded copy of the text and the words of the items being compared.
//! The thresholds were chosen from data: no valid document of the repair corpora or the contract
//! examples reaches them, and the loops two real small models wrote (`tests/fixtures/loops/`)
//! are caught early.

mod items;

use serde::Serialize;

/// The shortest periodic tail, in bytes, that counts as a loop.
pub const MIN_SPAN: usize = 256;

/// The fewest whole periods a periodic tail must hold to count as a loop.
pub const MIN_REPEATS: usize = 4;

/// Whitespace bytes in a row that count as a whitespace loop.
pub const WHITESPACE_RUN: usize = 128;

/// Digits in one number (outside strings) that count as a loop inside a number literal.
pub const NUMBER_DIGITS: usize = 32;

/// Digits in a row inside a string that count as a loop (`"Memory: 3333...`): more than a
/// 256-bit number has in decimal, twice over.
pub const STRING_DIGITS: usize = 160;

/// How many bytes a period candidate is proposed from.
const GRAM: usize = 12;

/// Table size of the rolling-hash index of earlier grams (a power of two).
const TABLE_BITS: u32 = 12;

/// The repeated unit quoted in a report, at most this many characters.
const UNIT_CHARS: usize = 80;

/// The multiplier of the rolling hash.
const BASE: u64 = 0x0100_0000_01b3;

/// Which form a loop takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoopKind {
    /// An item, a phrase or a whole value repeated.
    RepeatedText,
    /// The same key/value pair (or object member sequence) repeated.
    RepeatedMember,
    /// Whitespace without end.
    Whitespace,
    /// A number whose digits do not end.
    NumberDigits,
    /// The items of a list, alike but for a counter or a few words.
    SimilarItems,
    /// The items of a list alternating between two, each alike the one two before it but for
    /// a counter or a few words.
    AlternatingItems,
}

impl LoopKind {
    /// The kind's stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            LoopKind::RepeatedText => "repeated_text",
            LoopKind::RepeatedMember => "repeated_member",
            LoopKind::Whitespace => "whitespace",
            LoopKind::NumberDigits => "number_digits",
            LoopKind::SimilarItems => "similar_items",
            LoopKind::AlternatingItems => "alternating_items",
        }
    }
}

/// A degenerate loop found in an answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Repetition {
    /// Which form it takes.
    pub kind: LoopKind,
    /// Byte offset where the repeated run starts.
    pub start: usize,
    /// Byte offset (exclusive) where it was recognised.
    pub end: usize,
    /// Length of the repeated unit in bytes (1 for whitespace and digits; similar and
    /// alternating items: their mean length).
    pub period: usize,
    /// How many whole units (or items) the run holds when it was recognised.
    pub repeats: usize,
    /// The repeated unit (at most 80 characters; whitespace and digits: the run's start;
    /// similar items: the first item's start).
    pub unit: String,
}

impl std::fmt::Display for Repetition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            LoopKind::Whitespace => write!(
                f,
                "{} whitespace characters in a row from byte {}",
                self.end - self.start,
                self.start
            ),
            LoopKind::NumberDigits => write!(
                f,
                "a number that does not end ({} digits) from byte {}",
                self.end - self.start,
                self.start
            ),
            LoopKind::SimilarItems => write!(
                f,
                "{} items in a row alike but for a counter or a few words, from byte {}: {:?}",
                self.repeats, self.start, self.unit
            ),
            LoopKind::AlternatingItems => write!(
                f,
                "{} items in a row alternating between two, alike but for a counter or a few \
                 words, from byte {}: {:?}",
                self.repeats, self.start, self.unit
            ),
            LoopKind::RepeatedText | LoopKind::RepeatedMember => write!(
                f,
                "{:?} repeated {} times from byte {}",
                self.unit, self.repeats, self.start
            ),
        }
    }
}

/// Finds a loop in a whole answer (see the module docs): the same result as feeding the text
/// to a [`RepetitionDetector`] in any chunks.
pub fn find_repetition(text: &str) -> Option<Repetition> {
    let mut detector = RepetitionDetector::new();
    detector.feed(text).cloned()
}

/// Watches a growing text for a loop. Feed it the whole text so far each time (it reads only
/// what it has not seen); once a loop is found it is kept and reported on every later feed.
#[derive(Clone, Debug)]
pub struct RepetitionDetector {
    /// Bytes already read.
    seen: usize,
    /// The text read so far with every counter as one `0`: what the periodic rule reads.
    normalized: Vec<u8>,
    /// Reads counters as one digit, and knows whether a byte is inside a string.
    fold: Fold,
    /// The similar-items rule.
    items: items::Items,
    /// Position + 1 of the last gram with each hash bucket (0: none).
    table: Box<[usize]>,
    /// Rolling hash of the last [`GRAM`] bytes.
    hash: u64,
    /// `BASE^GRAM`, to take the oldest byte out of the hash.
    outgoing: u64,
    /// The candidate period followed now (0: none).
    period: usize,
    /// How many trailing bytes equal the byte one period before them.
    run: usize,
    /// Whitespace bytes in a row.
    whitespace: usize,
    /// Digits of the number being read (outside strings), and where it started.
    digits: usize,
    number_start: usize,
    found: Option<Repetition>,
}

impl Default for RepetitionDetector {
    fn default() -> RepetitionDetector {
        RepetitionDetector::new()
    }
}

impl RepetitionDetector {
    /// A detector that has seen nothing.
    pub fn new() -> RepetitionDetector {
        let outgoing = (0..GRAM).fold(1_u64, |power, _| power.wrapping_mul(BASE));
        RepetitionDetector {
            seen: 0,
            normalized: Vec::new(),
            fold: Fold::default(),
            items: items::Items::default(),
            table: vec![0; 1 << TABLE_BITS].into_boxed_slice(),
            hash: 0,
            outgoing,
            period: 0,
            run: 0,
            whitespace: 0,
            digits: 0,
            number_start: 0,
            found: None,
        }
    }

    /// The loop found so far, if any.
    pub fn found(&self) -> Option<&Repetition> {
        self.found.as_ref()
    }

    /// Reads what `text` holds beyond what was fed before (`text` must start with it) and
    /// returns the loop, once there is one.
    pub fn feed(&mut self, text: &str) -> Option<&Repetition> {
        let bytes = text.as_bytes();
        while self.found.is_none() && self.seen < bytes.len() {
            let at = self.seen;
            self.seen += 1;
            self.step(bytes, at);
        }
        self.found.as_ref()
    }

    fn step(&mut self, bytes: &[u8], at: usize) {
        let byte = bytes[at];
        let in_string = self.fold.in_string();
        let folded = self.fold.next(bytes, at);
        self.lexical(bytes, at, byte, in_string);
        if self.found.is_some() {
            return;
        }
        self.items.step(byte, at);
        if let Some(run) = self.items.found() {
            self.found = Some(Repetition {
                kind: if run.period == 1 {
                    LoopKind::SimilarItems
                } else {
                    LoopKind::AlternatingItems
                },
                start: run.start,
                end: run.end,
                period: (run.end - run.start) / run.items,
                repeats: run.items,
                unit: excerpt(&bytes[run.start..run.end]),
            });
            return;
        }
        let Some(byte) = folded else {
            return;
        };
        self.normalized.push(byte);
        let at = self.normalized.len() - 1;
        let text = &self.normalized;
        self.hash = self
            .hash
            .wrapping_mul(BASE)
            .wrapping_add(u64::from(byte) + 1);
        if at >= GRAM {
            let oldest = u64::from(text[at - GRAM]) + 1;
            self.hash = self.hash.wrapping_sub(oldest.wrapping_mul(self.outgoing));
        }
        if self.period > 0 && text[at] == text[at - self.period] {
            self.run += 1;
        } else {
            self.period = 0;
            self.run = 0;
        }
        if at + 1 >= GRAM {
            let bucket =
                (self.hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - TABLE_BITS)) as usize;
            let earlier = self.table[bucket];
            self.table[bucket] = at + 1;
            if self.period == 0 && earlier > 0 {
                let previous_end = earlier - 1;
                let distance = at - previous_end;
                let start = at + 1 - GRAM;
                if start >= distance && text[start..=at] == text[start - distance..=previous_end] {
                    self.period = distance;
                    self.run = GRAM;
                }
            }
        }
        if self.period > 0 {
            let span = self.run + self.period;
            if span >= MIN_SPAN
                && span >= MIN_REPEATS * self.period
                && !closes_only(&text[at + 1 - self.period..=at])
            {
                let start = at + 1 - span;
                self.found = Some(periodic(
                    bytes,
                    &self.normalized,
                    start,
                    at + 1,
                    self.period,
                ));
            }
        }
    }

    /// Whitespace runs and number digits; `in_string`: whether the byte is inside a string.
    fn lexical(&mut self, bytes: &[u8], at: usize, byte: u8, in_string: bool) {
        if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
            self.whitespace += 1;
            if self.whitespace >= WHITESPACE_RUN {
                let start = at + 1 - self.whitespace;
                self.found = Some(Repetition {
                    kind: LoopKind::Whitespace,
                    start,
                    end: at + 1,
                    period: 1,
                    repeats: self.whitespace,
                    unit: excerpt(&bytes[start..at + 1]),
                });
                return;
            }
        } else {
            self.whitespace = 0;
        }
        // Inside a string only a run of digits counts (a counter is folded into one digit
        // there, so the periodic rule cannot see digits without end).
        let limit = if in_string {
            STRING_DIGITS
        } else {
            NUMBER_DIGITS
        };
        match byte {
            b'"' if !in_string => self.digits = 0,
            b'0'..=b'9' => {
                if self.digits == 0 {
                    self.number_start = at;
                }
                self.digits += 1;
                if self.digits > limit {
                    self.found = Some(Repetition {
                        kind: LoopKind::NumberDigits,
                        start: self.number_start,
                        end: at + 1,
                        period: 1,
                        repeats: self.digits,
                        unit: excerpt(&bytes[self.number_start..at + 1]),
                    });
                }
            }
            _ if in_string => self.digits = 0,
            // Inside a number literal: its sign, point and exponent do not end it.
            b'.' | b'e' | b'E' | b'+' | b'-' if self.digits > 0 => {}
            _ => self.digits = 0,
        }
    }
}

/// The report of a periodic stretch `start..end` of the normalized text, with the smallest
/// period that generates it (the candidate may be a multiple of it), in offsets of the original
/// text.
fn periodic(
    original: &[u8],
    normalized: &[u8],
    start: usize,
    end: usize,
    period: usize,
) -> Repetition {
    let mut start = start;
    // The run may start inside a multi-byte character; a period later it starts again.
    while start < end && normalized[start] & 0xC0 == 0x80 {
        start += 1;
    }
    let unit = &normalized[start..start + period];
    let period = smallest_period(unit);
    let offsets = original_offsets(original, &[start, start + period, end]);
    let (start, unit_end, end) = (offsets[0], offsets[1], offsets[2]);
    let unit = &original[start..unit_end];
    let text = String::from_utf8_lossy(unit);
    let kind = if unit.iter().all(u8::is_ascii_whitespace) {
        LoopKind::Whitespace
    } else if text.contains("\":") || text.contains("\" :") {
        LoopKind::RepeatedMember
    } else {
        LoopKind::RepeatedText
    };
    Repetition {
        kind,
        start,
        end,
        period: unit.len(),
        repeats: (end - start) / unit.len().max(1),
        unit: excerpt(&readable_rotation(unit)),
    }
}

/// The offsets in `original` of the given offsets (ascending) of its normalized form, where
/// each counter is one byte ([`Fold`]).
fn original_offsets(original: &[u8], normalized: &[usize]) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(normalized.len());
    let mut wanted = normalized.iter().copied().peekable();
    let mut fold = Fold::default();
    let mut count = 0;
    for at in 0..original.len() {
        if fold.next(original, at).is_none() {
            continue;
        }
        while wanted.next_if(|offset| *offset == count).is_some() {
            offsets.push(at);
        }
        count += 1;
    }
    while wanted.next().is_some() {
        offsets.push(original.len());
    }
    offsets
}

/// Whether a repeated unit only closes containers (`}}}}`, `],\n]`): a deep document ending,
/// which stops by itself, not a loop.
fn closes_only(unit: &[u8]) -> bool {
    unit.iter()
        .all(|byte| matches!(byte, b'}' | b']' | b',' | b' ' | b'\t' | b'\n' | b'\r'))
        && unit.iter().any(|byte| matches!(byte, b'}' | b']'))
}

/// Whether the byte at `at` is a digit that continues a run of digits.
fn continues_digits(bytes: &[u8], at: usize) -> bool {
    bytes[at].is_ascii_digit() && at > 0 && bytes[at - 1].is_ascii_digit()
}

/// What the periodic rule reads of a text, one byte at a time: every run of digits inside a
/// string, and of a number that is an object member's value, as one `0` (a counter reads the
/// same in every item); every other byte as it is.
#[derive(Clone, Copy, Debug, Default)]
struct Fold {
    strings: Strings,
    /// The last byte outside strings that is neither whitespace nor part of a number.
    last: u8,
}

impl Fold {
    /// Whether the next byte is inside a string.
    fn in_string(self) -> bool {
        self.strings.inside()
    }

    /// The byte the periodic rule reads for `bytes[at]`, or `None` when it continues a counter
    /// already read as one digit.
    fn next(&mut self, bytes: &[u8], at: usize) -> Option<u8> {
        let byte = bytes[at];
        let in_string = self.strings.inside();
        self.strings.step(byte);
        if !in_string
            && !byte.is_ascii_whitespace()
            && !matches!(byte, b'0'..=b'9' | b'.' | b'-' | b'+' | b'e' | b'E')
        {
            self.last = byte;
        }
        let counter = in_string || self.last == b':';
        if counter && byte.is_ascii_digit() {
            return (!continues_digits(bytes, at)).then_some(b'0');
        }
        Some(byte)
    }
}

/// Whether a byte is inside a JSON string, one byte at a time.
#[derive(Clone, Copy, Debug, Default)]
struct Strings {
    inside: bool,
    escaped: bool,
}

impl Strings {
    /// Whether the last byte stepped over left the text inside a string (an opening quote
    /// leaves it inside, a closing one outside).
    fn inside(self) -> bool {
        self.inside
    }

    fn step(&mut self, byte: u8) {
        if !self.inside {
            self.inside = byte == b'"';
            return;
        }
        match (self.escaped, byte) {
            (true, _) => self.escaped = false,
            (false, b'\\') => self.escaped = true,
            (false, b'"') => self.inside = false,
            _ => {}
        }
    }
}

/// The unit turned to start where a reader expects a repeated item to start: at its first
/// `{`, else at its first `"` (the text is periodic, so any rotation is the same loop).
fn readable_rotation(unit: &[u8]) -> Vec<u8> {
    let at = unit
        .iter()
        .position(|byte| *byte == b'{')
        .or_else(|| unit.iter().position(|byte| *byte == b'"'))
        .unwrap_or(0);
    let mut rotated = unit[at..].to_vec();
    rotated.extend_from_slice(&unit[..at]);
    rotated
}

/// The smallest `p` such that `unit` is `unit[..p]` repeated (`unit.len()` when none is
/// smaller), from the prefix function.
fn smallest_period(unit: &[u8]) -> usize {
    let mut border = vec![0_usize; unit.len()];
    let mut length = 0;
    for index in 1..unit.len() {
        while length > 0 && unit[index] != unit[length] {
            length = border[length - 1];
        }
        if unit[index] == unit[length] {
            length += 1;
        }
        border[index] = length;
    }
    let candidate = unit.len() - border.last().copied().unwrap_or(0);
    if candidate < unit.len() && unit.len().is_multiple_of(candidate) {
        candidate
    } else {
        unit.len()
    }
}

/// At most [`UNIT_CHARS`] characters of `bytes`, cut on a character boundary.
fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.chars().take(UNIT_CHARS).collect()
}

#[cfg(test)]
mod tests;
