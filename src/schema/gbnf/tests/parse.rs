//! The GBNF parser: the whole llama.cpp syntax, and errors at exact positions.

use crate::schema::gbnf::{GbnfParseError, parse};

fn error(text: &str) -> GbnfParseError {
    match parse(text) {
        Ok(_) => panic!("expected an error for {text:?}"),
        Err(error) => error,
    }
}

/// (line, column, message) of the error for `text`.
fn at(text: &str) -> (usize, usize, String) {
    let error = error(text);
    (error.line, error.column, error.message)
}

#[test]
fn the_whole_syntax_parses() {
    let grammar = parse(concat!(
        "# a comment before the first rule\n",
        "root ::= greeting (\" \" name)? punctuation* tail+ digits{2} more{1,} some{0,3} # trailing\n",
        "greeting ::= \"hello\" | \"hi\"\n",
        "name ::= [A-Z] [a-z\\x2D]{1,20}\n",
        "punctuation ::= [!?.]\n",
        "tail ::= [^\\n\\t\\\\\\]]\n",
        "digits ::= [0-9]\n",
        "more ::= \"\\u00e9\" | \"\\U0001F600\" | \"\\x41\" | \"\\\"\" | \"\\[\\]\"\n",
        "some ::= . | (\n",
        "    \"a\"   # comments inside groups\n",
        "  | \"b\"\n",
        "  )\n",
        "empty ::= \"\"\n",
        "alternatives-continue ::= \"x\" |\n",
        "    \"y\"\r\n",
    ))
    .unwrap();
    let names: Vec<&str> = grammar.rule_names().collect();
    assert_eq!(
        names,
        [
            "root",
            "greeting",
            "name",
            "punctuation",
            "tail",
            "digits",
            "more",
            "some",
            "empty",
            "alternatives-continue"
        ]
    );
    grammar.recognize("hello Ann!x42é").unwrap();
    grammar.recognize("hi?.xy42😀A\"[]ab").unwrap();
}

#[test]
fn syntax_errors_have_exact_positions() {
    let cases: &[(&str, (usize, usize, &str))] = &[
        ("root = \"a\"", (1, 6, "expected `::=`")),
        ("root ::= \"a\"\n::= \"b\"", (2, 1, "expected a rule name")),
        (
            "root ::= \"abc",
            (1, 14, "unexpected end of the grammar in a literal"),
        ),
        (
            "root ::= [a-",
            (1, 13, "unexpected end of the grammar in a character class"),
        ),
        ("root ::= []", (1, 10, "empty character class")),
        ("root ::= \"\\q\"", (1, 11, "unknown escape `\\q`")),
        (
            "root ::= \"\\x4\"",
            (1, 11, "expected 2 hexadecimal digits after `\\x`"),
        ),
        ("root ::= (\"a\"", (1, 14, "expected `)`")),
        ("root ::= \"a\"{2,", (1, 16, "expected `}`")),
        ("root ::= \"a\"{x}", (1, 14, "expected an integer")),
        (
            "root ::= \"a\" )",
            (1, 14, "expected a newline or the end of the grammar"),
        ),
        (
            "root ::= *",
            (
                1,
                10,
                "expected something before a repetition (`*`, `+`, `?` or `{`)",
            ),
        ),
        (
            "root ::= \"a\"{3,2}",
            (1, 13, "repetition maximum 2 is below its minimum 3"),
        ),
        (
            "root ::= <think>",
            (
                1,
                10,
                "token references (`<...>`) need a model vocabulary and are not supported here",
            ),
        ),
        (
            "root ::= \"a\"\nroot ::= \"b\"",
            (2, 1, "rule `root` is defined twice"),
        ),
        ("root ::= \"a\" other\n", (1, 14, "undefined rule `other`")),
        ("start ::= \"a\"", (1, 14, "the grammar has no `root` rule")),
        (
            "root ::= \"x\" é ::= \"a\"",
            (1, 14, "expected a newline or the end of the grammar"),
        ),
    ];
    for (text, (line, column, message)) in cases {
        assert_eq!(
            at(text),
            (*line, *column, (*message).to_owned()),
            "{text:?}"
        );
    }
}

#[test]
fn columns_count_characters_not_bytes() {
    let (line, column, _) = at("root ::= \"é\" \"ü\" [");
    assert_eq!((line, column), (1, 19));
}

#[test]
fn llama_cpp_limits_are_enforced() {
    assert_eq!(
        at("root ::= \"a\"{2001}").2,
        "more than 2000 repetitions, which llama.cpp refuses"
    );
    // One rule repeated 1999 times is the most llama.cpp takes.
    parse("root ::= x{0,1999}\nx ::= \"a\"").unwrap();
    assert!(
        at("root ::= x{0,2000}\nx ::= \"a\"")
            .2
            .contains("past llama.cpp's limit of 2000")
    );
    // A group counts the rules llama.cpp makes for it: here one for the group, one for the
    // first mention of `x`, 1000 for the inner repetition.
    parse("root ::= (x{0,1000} \"b\")?\nx ::= \"a\"").unwrap();
    let (_, column, message) = at("root ::= (x{0,1000} \"b\"){0,2}\nx ::= \"a\"");
    assert_eq!(column, 25);
    assert!(message.contains("1002 rules times 2"), "{message}");
    // Repeated repetitions multiply.
    assert!(at("root ::= \"a\"{50}{50}").2.contains("50 rules times 50"));
}

#[test]
fn left_recursion_is_refused() {
    let (line, column, message) = at("root ::= list\nlist ::= list \"a\" | \"a\"");
    assert_eq!((line, column), (2, 1));
    assert!(
        message.starts_with("rule `list` is left-recursive"),
        "{message}"
    );
    // Through a nullable prefix too.
    assert!(
        at("root ::= maybe root \"x\" | \"y\"\nmaybe ::= \"m\"?")
            .2
            .contains("`root` is left-recursive")
    );
    // Right recursion is fine.
    parse("root ::= \"a\" root | \"\"").unwrap();
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let text = format!("root ::= {}\"a\"{}", "(".repeat(300), ")".repeat(300));
    assert_eq!(at(&text).2, "parentheses nest too deeply");
    let text = format!("root ::= {}\"a\"{}", "(".repeat(200), ")".repeat(200));
    parse(&text).unwrap().recognize("a").unwrap();
}
