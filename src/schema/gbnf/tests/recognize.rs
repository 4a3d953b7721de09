//! The recognizer: repetitions, classes, ambiguity, mismatch reports, and large input.

use crate::schema::gbnf::{Mismatch, parse};

fn mismatch(grammar: &str, input: &str) -> Mismatch {
    parse(grammar)
        .unwrap()
        .recognize(input)
        .expect_err("expected a mismatch")
}

#[test]
fn repetitions_count_exactly() {
    let grammar = parse("root ::= \"a\"{2,4} \"b\"{3} \"c\"{1,} \"d\"?").unwrap();
    for good in ["aabbbc", "aaaabbbcccd", "aaabbbcd"] {
        grammar.recognize(good).unwrap();
    }
    for bad in [
        "abbbc",
        "aaaaabbbc",
        "aabbc",
        "aabbbbc",
        "aabbb",
        "aabbbcdd",
    ] {
        assert!(grammar.recognize(bad).is_err(), "{bad}");
    }
}

#[test]
fn classes_negation_ranges_and_any() {
    let grammar = parse("root ::= [^a-c\\n] [x-z0] . [\\u00e0-\\u00ff]").unwrap();
    grammar.recognize("dx😀é").unwrap();
    grammar.recognize("Z0\nà").unwrap();
    assert!(grammar.recognize("ax.é").is_err());
    assert!(grammar.recognize("\nx.é").is_err());
    assert!(grammar.recognize("dx.e").is_err());
}

#[test]
fn nullable_and_ambiguous_grammars() {
    let grammar = parse(concat!(
        "root ::= a b a\n",
        "a ::= \"x\"* | \"\"\n",
        "b ::= (\"\" | \"y\")* \"z\"\n",
    ))
    .unwrap();
    for good in ["z", "xz", "zx", "xxyyzxx", "yz"] {
        grammar.recognize(good).unwrap();
    }
    assert!(grammar.recognize("xx").is_err());
    // Highly ambiguous: every split of the input.
    let grammar = parse("root ::= s\ns ::= s2 | \"a\"\ns2 ::= \"a\" s | \"a\" s s").unwrap();
    grammar.recognize(&"a".repeat(60)).unwrap();
}

#[test]
fn a_mismatch_says_where_and_what_was_expected() {
    let grammar = "root ::= \"{\" ws \"\\\"a\\\"\" ws \":\" ws [0-9]+ ws \"}\"\nws ::= [ \\n]?";
    let found = mismatch(grammar, "{\n\"a\": 12x}");
    assert_eq!((found.offset, found.line, found.column), (9, 2, 8));
    assert_eq!(found.found, Some('x'));
    assert_eq!(found.expected, ["[ \\n]", "[0-9]", "\"}\""]);
    assert_eq!(
        found.to_string(),
        r#"line 2, column 8: unexpected "x"; expected [ \n], [0-9] or "}""#
    );

    // Ending early.
    let found = mismatch(grammar, "{\"a\":");
    assert_eq!(
        (found.offset, found.line, found.column, found.found),
        (5, 1, 6, None)
    );
    assert_eq!(found.expected, ["[ \\n]", "[0-9]"]);
    assert!(found.to_string().contains("unexpected end of input"));

    // Going on after the end.
    let found = mismatch("root ::= \"ab\"", "abc");
    assert_eq!((found.offset, found.found), (2, Some('c')));
    assert_eq!(found.expected, ["end of input"]);
}

#[test]
fn offsets_are_bytes_and_columns_are_characters() {
    let found = mismatch("root ::= [^x]*", "éé😀x");
    assert_eq!((found.offset, found.column), (8, 4));
}

#[test]
fn long_and_deep_inputs_are_fine() {
    // A long string under a bounded repetition, and deep nesting through recursion: no
    // stack overflow, and time close to linear.
    let grammar = parse("root ::= \"\\\"\" [a-z]{0,1999} \"\\\"\"").unwrap();
    grammar
        .recognize(&format!("\"{}\"", "q".repeat(1999)))
        .unwrap();
    assert!(
        grammar
            .recognize(&format!("\"{}\"", "q".repeat(2000)))
            .is_err()
    );

    let grammar = parse("root ::= value\nvalue ::= \"[\" value? \"]\"").unwrap();
    let depth = 20_000;
    let text = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
    grammar.recognize(&text).unwrap();
    let found = grammar.recognize(&text[..text.len() - 1]).unwrap_err();
    assert_eq!(found.offset, text.len() - 1);

    let grammar = parse("root ::= [a-z]*").unwrap();
    grammar.recognize(&"z".repeat(1_000_000)).unwrap();
}
