//! Small text helpers every layer uses: where a byte offset is for a person (line and
//! column), and the "did you mean" of a misspelt name. Depends on nothing else in the crate.

/// 1-based line and column (the column in characters) of byte offset `offset` in `text`. An
/// offset past the end is the end; one inside a character is the start of that character.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text.as_bytes()[..end];
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |newline| newline + 1);
    let column = text[line_start..end].chars().count() + 1;
    (line, column)
}

/// The name among `candidates` that `name` is probably a typo of: the fewest edits (an
/// adjacent transposition counting as one), at most `allowed(candidate)`; the first on a tie.
pub(crate) fn nearest<'c>(
    name: &str,
    candidates: impl IntoIterator<Item = &'c str>,
    allowed: impl Fn(&str) -> usize,
) -> Option<&'c str> {
    candidates
        .into_iter()
        .map(|candidate| (strsim::osa_distance(name, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= allowed(candidate))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate)
}

/// The words that follow an unknown name when a near one exists: ` (did you mean `x`?)`.
pub(crate) fn did_you_mean(suggestion: &str) -> String {
    format!(" (did you mean `{suggestion}`?)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_lines_and_character_columns() {
        assert_eq!(line_column("", 0), (1, 1));
        assert_eq!(line_column("ab\ncd", 4), (2, 2));
        assert_eq!(line_column("ab\n", 3), (2, 1));
        assert_eq!(line_column("é\néx", 5), (2, 2));
        // Inside a character, and past the end.
        assert_eq!(line_column("aé", 2), (1, 2));
        assert_eq!(line_column("a\nb", 99), (2, 2));
        assert_eq!(line_column("é\nx", 1), (1, 1));
        assert_eq!(line_column("ab", 99), (1, 3));
    }

    #[test]
    fn the_nearest_name_counts_a_transposition_once() {
        let names = ["plan", "review", "max_tokens"];
        assert_eq!(nearest("plna", names, |_| 2), Some("plan"));
        assert_eq!(nearest("reveiw", names, |_| 1), Some("review"));
        assert_eq!(nearest("max_token", names, |_| 2), Some("max_tokens"));
        assert_eq!(nearest("zzzzzz", names, |_| 2), None);
        assert_eq!(
            nearest("plna", names, |candidate| candidate.len() / 8),
            None
        );
        assert_eq!(did_you_mean("plan"), " (did you mean `plan`?)");
    }
}
