//! The similar-items rule: a list whose items are the same but for a counter or a few words.
//!
//! A small model that loops inside an array rarely repeats an item byte for byte: it counts
//! (`"id": 3`, `"id": 4`), or it changes one clause of a description and keeps the title and
//! the files. The periodic rule needs an exact period; this one compares whole items. It reads
//! the text's JSON structure (strings, nesting, keys), and for every array it tracks (the
//! outermost [`MAX_TRACKED`] containers) it keeps the pairs of words in a row of the item
//! being read and of the two items before it. Words are runs of letters and digits inside
//! strings that are not keys, and numbers outside strings; every run of digits reads as one
//! word, so a counter is the same word in every item. Pairs, not single words: a template whose
//! slots hold other words (`"Wire the X through layer N"`) shares few pairs, while a loop that
//! changed a clause shares all the others. When an item ends, it is compared with the one
//! before and with the one two before (a model that alternates between two items): the share
//! of the longer item's pairs that the other has too. [`MIN_ITEMS`] - 1 items in a row, each
//! similar to the item one (or each to the item two) before it by at least [`SIMILARITY`] and
//! holding at least [`MIN_WORDS`] pairs, over at least [`super::MIN_SPAN`] bytes, are a loop.
//! The thresholds come from the loops two real models wrote (`tests/fixtures/loops-collected/`:
//! their alike items share 0.77 to 1.0 of their pairs) and from their plain answers, which stay
//! below.
//!
//! Items of a few words (file names, short strings) are left to the periodic rule: two file
//! names differ in one word of two, which says nothing. Each word costs one push per tracked
//! array that holds it and each item a sort of its words, so a text is read in time linear in
//! its length (times the tracked depth) and an item keeps at most [`MAX_WORDS`] words.

/// The fewest items in a row that make a loop of items alike the one before (a loop of period
/// 2 needs one more: the same number of items that repeat an earlier one).
pub const MIN_ITEMS: usize = 4;

/// The fewest pairs of words an item must hold to be compared.
pub const MIN_WORDS: usize = 8;

/// How alike two items must be, in per mille: the pairs of words they share (as a multiset)
/// over the pairs of the longer one.
pub const SIMILARITY: usize = 750;

/// Containers tracked from the outermost; deeper ones are counted, not compared.
const MAX_TRACKED: usize = 16;

/// Pairs of words kept of one item; an item with more is not compared.
const MAX_WORDS: usize = 4096;

/// A loop of similar items, found when its last item ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SimilarRun {
    /// Byte offset where the first item of the run starts.
    pub start: usize,
    /// Byte offset (exclusive) of the end of the comma or bracket that ended the run's last
    /// item: a text cut there shows the item ended, so the run is found again in it.
    pub end: usize,
    /// Items in the run.
    pub items: usize,
    /// Each item is alike the one this many before it: 1, or 2 when they alternate.
    pub period: usize,
}

/// A run of alike items long enough to be a loop, before its span is judged.
#[derive(Clone, Copy, Debug)]
struct Run {
    items: usize,
    start: usize,
    period: usize,
}

/// One open container.
#[derive(Clone, Debug)]
struct Level {
    /// An array's item tracking; `None` for an object.
    array: Option<Box<ArrayItems>>,
    /// In an object: whether the next string is a key.
    expect_key: bool,
}

/// The longest period, in items, that a run of similar items may have: each item alike the
/// one before it (1), or the one two before it, as when a model alternates between two items
/// (`retry ...`, `broker ...`, `retry ...`, `broker ...`; tests/fixtures/loops-collected/
/// qwen-architect-pairs.txt), which no item-to-item comparison sees.
const PERIODS: usize = 2;

/// The items of one open array.
#[derive(Clone, Debug, Default)]
struct ArrayItems {
    /// Where the current item starts (`None` before its first byte).
    start: Option<usize>,
    /// The current item's pairs of words (hashes), unsorted; `None` once it holds too many.
    words: Option<Vec<u32>>,
    /// The last [`PERIODS`] items, the latest first: their pairs of words, sorted (empty when
    /// the item was not comparable), and where each starts.
    earlier: [(Vec<u32>, usize); PERIODS],
    /// For each period p (index p - 1): the items in a row, ending with the previous one, that
    /// are each alike the item p before them.
    alike: [usize; PERIODS],
    /// For each period: where the run's first item starts (the one the first alike item
    /// repeats).
    run_start: [usize; PERIODS],
}

/// Reads a text's structure one byte at a time and compares the items of its arrays.
#[derive(Clone, Debug, Default)]
pub struct Items {
    levels: Vec<Level>,
    /// Open containers beyond the tracked ones.
    untracked: usize,
    /// Inside a string, and whether it is a key; the byte before was a backslash.
    in_string: bool,
    in_key: bool,
    escaped: bool,
    /// The hash of the word being read, and its length so far (0: none).
    word: u32,
    word_len: usize,
    /// Whether the word being read is a run of digits (read as one digit).
    word_digits: bool,
    /// The hash of the word read before it.
    previous_word: u32,
    /// The run of similar items found, if any.
    found: Option<SimilarRun>,
}

impl Items {
    /// The run found so far.
    pub fn found(&self) -> Option<&SimilarRun> {
        self.found.as_ref()
    }

    /// Reads the byte at `at`.
    pub fn step(&mut self, byte: u8, at: usize) {
        if self.in_string {
            self.string_byte(byte);
            return;
        }
        let is_word = byte.is_ascii_alphanumeric();
        if !is_word || (self.word_digits != byte.is_ascii_digit() && self.word_len > 0) {
            self.end_word();
        }
        match byte {
            b'"' => {
                self.begin_value(at);
                self.in_string = true;
                self.in_key = self.tracked_top().is_some_and(|level| level.expect_key);
            }
            b'{' | b'[' => {
                self.begin_value(at);
                if self.untracked > 0 || self.levels.len() >= MAX_TRACKED {
                    self.untracked += 1;
                } else {
                    self.levels.push(Level {
                        array: (byte == b'[').then(Box::default),
                        expect_key: byte == b'{',
                    });
                }
            }
            b'}' | b']' => {
                if self.untracked > 0 {
                    self.untracked -= 1;
                } else if let Some(Level {
                    array: Some(mut items),
                    ..
                }) = self.levels.pop()
                {
                    items.end();
                    self.judge_run(items.run(), at);
                }
            }
            b',' if self.untracked == 0 => match self.levels.last_mut() {
                Some(Level {
                    array: Some(items), ..
                }) => {
                    items.end();
                    let run = items.run();
                    self.judge_run(run, at);
                }
                Some(level) => level.expect_key = true,
                None => {}
            },
            b':' => {
                if self.untracked == 0
                    && let Some(level) = self.levels.last_mut()
                {
                    level.expect_key = false;
                }
            }
            _ if is_word => {
                self.begin_value(at);
                self.add_to_word(byte);
            }
            _ => {}
        }
    }

    fn string_byte(&mut self, byte: u8) {
        if self.escaped {
            self.escaped = false;
            // The letter of an escape (`\n`) is not a word.
            return;
        }
        match byte {
            b'\\' => {
                self.end_word();
                self.escaped = true;
            }
            b'"' => {
                self.end_word();
                self.in_string = false;
                self.in_key = false;
            }
            _ if byte.is_ascii_alphanumeric() => {
                if self.word_len > 0 && self.word_digits != byte.is_ascii_digit() {
                    self.end_word();
                }
                self.add_to_word(byte);
            }
            _ => self.end_word(),
        }
    }

    fn add_to_word(&mut self, byte: u8) {
        let digit = byte.is_ascii_digit();
        if self.word_len == 0 {
            self.word_digits = digit;
            self.word = 0x811C_9DC5;
        }
        self.word_len += 1;
        if digit && self.word_len > 1 {
            // Every run of digits is one word: a counter reads the same in every item.
            return;
        }
        let byte = if digit {
            b'0'
        } else {
            byte.to_ascii_lowercase()
        };
        self.word = (self.word ^ u32::from(byte)).wrapping_mul(0x0100_0193);
    }

    /// Ends the word being read and adds the pair it closes to every tracked item that holds it.
    fn end_word(&mut self) {
        if self.word_len == 0 {
            return;
        }
        self.word_len = 0;
        if self.in_string && self.in_key {
            return;
        }
        // Items are compared on pairs of words in a row: a template whose slots hold other
        // words (`"Wire the X through layer N"`) shares few pairs, a loop that changed a
        // clause shares all the others.
        let pair = (self.previous_word.rotate_left(16) ^ self.word).wrapping_mul(0x9E37_79B1);
        self.previous_word = self.word;
        for level in &mut self.levels {
            if let Some(items) = &mut level.array
                && let Some(words) = &mut items.words
            {
                if words.len() >= MAX_WORDS {
                    items.words = None;
                } else {
                    words.push(pair);
                }
            }
        }
    }

    /// A value begins at `at`: the first byte of the innermost array's item, if it has none.
    fn begin_value(&mut self, at: usize) {
        if self.untracked > 0 {
            return;
        }
        if let Some(level) = self.levels.last_mut()
            && let Some(items) = &mut level.array
            && items.start.is_none()
        {
            items.start = Some(at);
            items.words = Some(Vec::new());
        }
    }

    fn tracked_top(&self) -> Option<&Level> {
        if self.untracked > 0 {
            None
        } else {
            self.levels.last()
        }
    }

    /// After an item ended at `at`, closing `run`: a run long enough is a loop.
    fn judge_run(&mut self, run: Option<Run>, at: usize) {
        if let Some(run) = run
            && self.found.is_none()
            && at - run.start >= super::MIN_SPAN
        {
            self.found = Some(SimilarRun {
                start: run.start,
                end: at + 1,
                items: run.items,
                period: run.period,
            });
        }
    }
}

impl ArrayItems {
    /// The current item ends (if there was one: not in `[]`): for each period, it extends the
    /// run of items alike the one that many before, or ends it.
    fn end(&mut self) {
        let Some(start) = self.start.take() else {
            return;
        };
        let mut words = self.words.take().unwrap_or_default();
        words.sort_unstable();
        let comparable = words.len() >= MIN_WORDS;
        for (period, (earlier, earlier_start)) in self.earlier.iter().enumerate() {
            if comparable && earlier.len() >= MIN_WORDS && similar(earlier, &words) {
                if self.alike[period] == 0 {
                    self.run_start[period] = *earlier_start;
                }
                self.alike[period] += 1;
            } else {
                self.alike[period] = 0;
            }
        }
        self.earlier.rotate_right(1);
        self.earlier[0] = (if comparable { words } else { Vec::new() }, start);
    }

    /// The run of alike items that counts as a loop, if any. The same evidence for every
    /// period: [`MIN_ITEMS`] - 1 items in a row, each alike the item a period before it (four
    /// items for period 1, five for period 2).
    fn run(&self) -> Option<Run> {
        (0..PERIODS)
            .find(|&index| self.alike[index] + 1 >= MIN_ITEMS)
            .map(|index| Run {
                items: self.alike[index] + index + 1,
                start: self.run_start[index],
                period: index + 1,
            })
    }
}

/// Whether two items' sorted pairs of words are alike: the pairs they share (each as often as
/// both hold it) are at least [`SIMILARITY`] per mille of the longer list.
fn similar(left: &[u32], right: &[u32]) -> bool {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while i < left.len() && j < right.len() {
        match left[i].cmp(&right[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    shared * 1000 >= SIMILARITY * left.len().max(right.len())
}
