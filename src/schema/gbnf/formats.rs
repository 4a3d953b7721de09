//! String formats the grammar can generate: `date`, `time`, `date-time`, `uuid`, `email`,
//! `hostname`, `ipv4`, `uri` and `uri-reference`.
//!
//! A format's grammar is a subset of the strings the validator accepts for it (the `jsonschema`
//! crate's `format` checks, which slmcode asserts), never a superset: whatever a constrained
//! model writes under it passes validation. Where the subset is visibly narrower (days up to 28,
//! plain `http(s)` URIs with short labels), the note says so. The characters are all ASCII
//! letters, digits and `-.:/@_~+`, so none needs a JSON escape.
//!
//! A format beside `minLength` / `maxLength` is not generated (the lengths are, and the note
//! says the format is checked at validation), and every other format keeps its note.

use serde_json::{Map, Value};

use super::derive::Deriver;
use super::expr::{CharClass, Expr};

/// The formats generated, with the note each leaves: what the grammar's subset leaves out.
const FORMATS: &[(&str, &str)] = &[
    (
        "date",
        "the grammar generates dates YYYY-MM-DD with days 01 to 28 (valid in every month); validation checks the format",
    ),
    (
        "time",
        "the grammar generates times HH:MM:SS with optional fraction and a Z or ±HH:MM offset, without leap seconds; validation checks the format",
    ),
    (
        "date-time",
        "the grammar generates RFC 3339 date-times with days 01 to 28 and no leap seconds; validation checks the format",
    ),
    (
        "uuid",
        "the grammar generates hyphenated hexadecimal UUIDs; validation checks the format",
    ),
    (
        "email",
        "the grammar generates plain addresses (lowercase dot-atoms at a lowercase domain); validation checks the format",
    ),
    (
        "hostname",
        "the grammar generates lowercase host names of up to four labels; validation checks the format",
    ),
    (
        "ipv4",
        "the grammar generates dotted-quad IPv4 addresses; validation checks the format",
    ),
    (
        "uri",
        "the grammar generates http(s) URIs with a host and a simple path; validation checks the format",
    ),
    (
        "uri-reference",
        "the grammar generates http(s) URIs with a host and a simple path; validation checks the format",
    ),
];

/// The format of `map` when the grammar generates it, with the note to leave.
pub(crate) fn generated(map: &Map<String, Value>) -> Option<(&'static str, &'static str)> {
    let typed_string = match map.get("type") {
        Some(Value::String(name)) => name == "string",
        Some(Value::Array(names)) => names.iter().any(|name| name == "string"),
        _ => false,
    };
    if !typed_string || map.contains_key("minLength") || map.contains_key("maxLength") {
        return None;
    }
    // A pattern the grammar follows takes the format's place.
    if map
        .get("pattern")
        .and_then(Value::as_str)
        .is_some_and(super::pattern::translates)
    {
        return None;
    }
    let format = map.get("format")?.as_str()?;
    FORMATS.iter().find(|(name, _)| *name == format).copied()
}

/// The grammar of a string in `format` (one of [`FORMATS`]), quotes included.
pub(crate) fn string(deriver: &mut Deriver<'_>, format: &str) -> Expr {
    let body = match format {
        "date" => date(),
        "time" => time(),
        "date-time" => Expr::seq([date(), Expr::lit("T"), time()]),
        "uuid" => {
            let hex = || class(&[('0', '9'), ('a', 'f')]);
            let group = |count| Expr::repeat(hex(), count, Some(count));
            Expr::seq([
                group(8),
                Expr::lit("-"),
                group(4),
                Expr::lit("-"),
                group(4),
                Expr::lit("-"),
                group(4),
                Expr::lit("-"),
                group(12),
            ])
        }
        "email" => Expr::seq([dotted(word(16), 0, 2), Expr::lit("@"), domain()]),
        "hostname" => dotted(word(16), 0, 3),
        "ipv4" => {
            let octet = Expr::alt([
                Expr::seq([Expr::lit("25"), class(&[('0', '5')])]),
                Expr::seq([Expr::lit("2"), class(&[('0', '4')]), digit()]),
                Expr::seq([Expr::lit("1"), digit(), digit()]),
                Expr::seq([class(&[('1', '9')]), digit()]),
                digit(),
            ]);
            let octet = deriver.named(octet, "ipv4-octet");
            Expr::seq([
                octet.clone(),
                Expr::lit("."),
                octet.clone(),
                Expr::lit("."),
                octet.clone(),
                Expr::lit("."),
                octet,
            ])
        }
        "uri" | "uri-reference" => {
            let segment = Expr::repeat(
                class(&[
                    ('a', 'z'),
                    ('A', 'Z'),
                    ('0', '9'),
                    ('-', '.'),
                    ('_', '_'),
                    ('~', '~'),
                ]),
                0,
                Some(16),
            );
            Expr::seq([
                Expr::lit("http"),
                Expr::optional(Expr::lit("s")),
                Expr::lit("://"),
                dotted(word(16), 0, 3),
                Expr::repeat(Expr::seq([Expr::lit("/"), segment]), 0, Some(8)),
            ])
        }
        other => unreachable!("format {other} is not generated"),
    };
    let body = deriver.named(body, &format!("format-{format}"));
    Expr::seq([Expr::lit("\""), body, Expr::lit("\"")])
}

fn class(ranges: &[(char, char)]) -> Expr {
    Expr::Class(CharClass::of(ranges))
}

fn digit() -> Expr {
    class(&[('0', '9')])
}

fn two(first: &[(char, char)], second: &[(char, char)]) -> Expr {
    Expr::seq([class(first), class(second)])
}

/// YYYY-MM-DD, days 01 to 28.
fn date() -> Expr {
    Expr::seq([
        Expr::repeat(digit(), 4, Some(4)),
        Expr::lit("-"),
        Expr::alt([
            two(&[('0', '0')], &[('1', '9')]),
            two(&[('1', '1')], &[('0', '2')]),
        ]),
        Expr::lit("-"),
        Expr::alt([
            two(&[('0', '0')], &[('1', '9')]),
            two(&[('1', '1')], &[('0', '9')]),
            two(&[('2', '2')], &[('0', '8')]),
        ]),
    ])
}

/// Hours 00 to 23.
fn hour() -> Expr {
    Expr::alt([
        two(&[('0', '1')], &[('0', '9')]),
        two(&[('2', '2')], &[('0', '3')]),
    ])
}

/// Minutes or seconds 00 to 59.
fn sixty() -> Expr {
    two(&[('0', '5')], &[('0', '9')])
}

/// HH:MM:SS, an optional fraction, and `Z` or an offset.
fn time() -> Expr {
    Expr::seq([
        hour(),
        Expr::lit(":"),
        sixty(),
        Expr::lit(":"),
        sixty(),
        Expr::optional(Expr::seq([
            Expr::lit("."),
            Expr::repeat(digit(), 1, Some(9)),
        ])),
        Expr::alt([
            Expr::lit("Z"),
            Expr::seq([
                class(&[('+', '+'), ('-', '-')]),
                hour(),
                Expr::lit(":"),
                sixty(),
            ]),
        ]),
    ])
}

/// A lowercase letter-or-digit word of 1 to `max` characters (a host label, a local part).
fn word(max: u64) -> Expr {
    Expr::repeat(class(&[('a', 'z'), ('0', '9')]), 1, Some(max))
}

/// `part` then `min` to `max` more, each after a dot.
fn dotted(part: Expr, min: u64, max: u64) -> Expr {
    Expr::seq([
        part.clone(),
        Expr::repeat(Expr::seq([Expr::lit("."), part]), min, Some(max)),
    ])
}

/// A mail domain: one to three labels and a letters-only top-level label.
fn domain() -> Expr {
    Expr::seq([
        Expr::repeat(Expr::seq([word(16), Expr::lit(".")]), 1, Some(3)),
        Expr::repeat(class(&[('a', 'z')]), 2, Some(8)),
    ])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::schema::{gbnf, validate};

    /// Each format's grammar (derived through the public entry point) against the validator:
    /// every accepted sample is valid, and the invalid ones are refused.
    #[test]
    fn generated_formats_are_subsets_of_the_validators() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                "date",
                &["2026-11-28", "0001-01-01", "9999-12-28", "2024-02-28"],
                &[
                    "2026-13-01",
                    "2026-00-10",
                    "2026-1-01",
                    "26-01-01",
                    "2026-02-30",
                ],
            ),
            (
                "time",
                &["23:59:59Z", "00:00:00.123456789+14:00", "12:30:00-05:30"],
                &["24:00:00Z", "12:60:00Z", "12:00:00", "12:00Z"],
            ),
            (
                "date-time",
                &["2026-11-27T12:00:00Z", "1999-12-28T23:59:59.5+01:00"],
                &["2026-11-30 12:00:00Z", "2026-11-30T12:00:00"],
            ),
            (
                "uuid",
                &["123e4567-e89b-12d3-a456-426614174000"],
                &[
                    "123e4567e89b12d3a456426614174000",
                    "123e4567-e89b-12d3-a456-42661417400",
                ],
            ),
            (
                "email",
                &["dev@example.com", "a.b.c@x1.y2.z3.museum", "0@0.io"],
                &["dev@", "@example.com", "dev example@x.com", "dev@localhost"],
            ),
            (
                "hostname",
                &["example", "a.b.c.d", "x0y1z2"],
                &["-bad", "a..b", "a_b"],
            ),
            (
                "ipv4",
                &["0.0.0.0", "255.255.255.255", "192.168.1.10"],
                &["256.0.0.1", "01.2.3.4", "1.2.3"],
            ),
            (
                "uri",
                &[
                    "https://example.com",
                    "http://a.b/c/d.e/f_g~h-i/",
                    "https://x/",
                ],
                &["example.com", "https://", "https://exa mple.com", "ftp://x"],
            ),
        ];
        for (format, valid, invalid) in cases {
            let schema = json!({"type": "string", "format": format});
            let derived = gbnf::derive(&schema).unwrap();
            let grammar = gbnf::parse(&derived.grammar).unwrap();
            assert!(
                derived
                    .notes
                    .iter()
                    .all(|note| note.reason.contains("generates")),
                "{format}: {:?}",
                derived.notes
            );
            for text in *valid {
                let quoted = serde_json::to_string(text).unwrap();
                grammar
                    .recognize(&quoted)
                    .unwrap_or_else(|error| panic!("{format}: {text}: {error}"));
                validate(&schema, &json!(text)).unwrap_or_else(|error| {
                    panic!("{format}: the validator refuses {text}: {error}")
                });
            }
            for text in *invalid {
                let quoted = serde_json::to_string(text).unwrap();
                assert!(grammar.recognize(&quoted).is_err(), "{format}: {text}");
            }
        }
    }

    #[test]
    fn lengths_beside_a_format_keep_the_plain_string() {
        let schema = json!({"type": "string", "format": "date", "maxLength": 10});
        let derived = gbnf::derive(&schema).unwrap();
        assert!(
            derived
                .notes
                .iter()
                .any(|note| note.reason.contains("formats are not translated")),
            "{:?}",
            derived.notes
        );
    }
}
