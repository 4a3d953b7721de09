//! String formats the grammar generates: `date`, `time`, `date-time`, `uuid`, `ipv4`, `ipv6`,
//! `hostname`, `email`, `uri` and `uri-reference`.
//!
//! Each format's grammar is what the validator slmcode asserts with (the `jsonschema` crate's
//! `format` checks) accepts, never more; where it is less, the note names what is left out.
//! `date`, `time`, `date-time`, `uuid`, `ipv4` and `ipv6` are exact: every day of every month,
//! 29 February in the leap years of the Gregorian calendar (a regular set over four-digit
//! years), fractions of any length, lowercase `t` and `z`. No character needs a JSON escape.
//!
//! Drafts before 2019-09 do not define `uuid`; the validator checks it under every draft
//! (`crate::schema::validate`), so the grammar is exact there too.
//!
//! A format beside a `pattern` the grammar follows is not generated (the note says the format is
//! checked at validation). Beside `minLength` / `maxLength` the format is generated and the
//! lengths are left to validation, with a note (as beside a pattern).

use serde_json::{Map, Value};

use super::derive::Deriver;
use super::expr::{CharClass, Expr};

/// The formats generated, with the note each leaves (none where the grammar is exact).
const FORMATS: &[(&str, Option<&str>)] = &[
    ("date", None),
    (
        "time",
        Some(
            "the grammar leaves out leap seconds written with an offset that has minutes (23:59:60 UTC is generated with Z or a whole-hour offset); validation checks the format",
        ),
    ),
    (
        "date-time",
        Some(
            "the grammar leaves out leap seconds written with an offset that has minutes (23:59:60 UTC is generated with Z or a whole-hour offset); validation checks the format",
        ),
    ),
    ("uuid", None),
    ("ipv4", None),
    ("ipv6", None),
    (
        "hostname",
        Some(
            "the grammar generates host names of one to four labels (the fourth up to 61 characters) and leaves out punycode labels (`xn--`); validation checks the format",
        ),
    ),
    (
        "email",
        Some(
            "the grammar generates dot-atom addresses with up to 32 characters besides the dots before the @ and a host name after it, and leaves out quoted local parts and address literals; validation checks the format",
        ),
    ),
    (
        "uri",
        Some("the grammar leaves out IP-literal hosts in brackets; validation checks the format"),
    ),
    (
        "uri-reference",
        Some("the grammar leaves out IP-literal hosts in brackets; validation checks the format"),
    ),
];

/// The format of `map` when the grammar generates it, with the note to leave.
pub(crate) fn generated(map: &Map<String, Value>) -> Option<(&'static str, Option<&'static str>)> {
    let typed_string = match map.get("type") {
        Some(Value::String(name)) => name == "string",
        Some(Value::Array(names)) => names.iter().any(|name| name == "string"),
        _ => false,
    };
    if !typed_string {
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
        "date" => date(deriver),
        "time" => time(deriver),
        "date-time" => {
            let date = date(deriver);
            let time = time(deriver);
            Expr::seq([date, class(&[('T', 'T'), ('t', 't')]), time])
        }
        "uuid" => {
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
        "ipv4" => ipv4(deriver),
        "ipv6" => ipv6(deriver),
        "hostname" => hostname(deriver),
        "email" => {
            let atext = class(&[
                ('a', 'z'),
                ('A', 'Z'),
                ('0', '9'),
                ('!', '!'),
                ('#', '\''),
                ('*', '+'),
                ('-', '-'),
                ('/', '/'),
                ('=', '='),
                ('?', '?'),
                ('^', '`'),
                ('{', '~'),
            ]);
            let local = Expr::seq([
                atext.clone(),
                Expr::repeat(
                    Expr::seq([Expr::optional(Expr::lit(".")), atext]),
                    0,
                    Some(31),
                ),
            ]);
            let local = deriver.named(local, "email-local");
            let host = hostname(deriver);
            Expr::seq([local, Expr::lit("@"), host])
        }
        "uri" => uri(deriver),
        "uri-reference" => {
            let absolute = uri(deriver);
            let relative = relative_reference(deriver);
            Expr::alt([absolute, relative])
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

fn hex() -> Expr {
    class(&[('0', '9'), ('a', 'f'), ('A', 'F')])
}

fn two(first: &[(char, char)], second: &[(char, char)]) -> Expr {
    Expr::seq([class(first), class(second)])
}

/// A shared rule of this module, defined the first time a grammar asks for it.
fn rule(
    deriver: &mut Deriver<'_>,
    name: &'static str,
    body: impl FnOnce(&mut Deriver<'_>) -> Expr,
) -> Expr {
    if let Some(expr) = deriver.format_rules.get(name) {
        return expr.clone();
    }
    let body = body(deriver);
    let expr = deriver.named(body, name);
    deriver.format_rules.insert(name, expr.clone());
    expr
}

/// YYYY-MM-DD: every day of every month, 29 February in leap years only.
fn date(deriver: &mut Deriver<'_>) -> Expr {
    rule(deriver, "date", |_| {
        // Days 01 to 28, which every month has.
        let common = Expr::alt([
            two(&[('0', '0')], &[('1', '9')]),
            two(&[('1', '1')], &[('0', '9')]),
            two(&[('2', '2')], &[('0', '8')]),
        ]);
        let long_months = Expr::alt([
            two(
                &[('0', '0')],
                &[('1', '1'), ('3', '3'), ('5', '5'), ('7', '8')],
            ),
            two(&[('1', '1')], &[('0', '0'), ('2', '2')]),
        ]);
        let short_months = Expr::alt([
            two(&[('0', '0')], &[('4', '4'), ('6', '6'), ('9', '9')]),
            Expr::lit("11"),
        ]);
        let month_day = Expr::alt([
            Expr::seq([
                long_months,
                Expr::lit("-"),
                Expr::alt([
                    common.clone(),
                    Expr::lit("29"),
                    two(&[('3', '3')], &[('0', '1')]),
                ]),
            ]),
            Expr::seq([
                short_months,
                Expr::lit("-"),
                Expr::alt([common.clone(), Expr::lit("29"), Expr::lit("30")]),
            ]),
            Expr::seq([Expr::lit("02-"), common]),
        ]);
        // Divisible by 4 and not by 100, or by 400: the last two digits a non-zero multiple of
        // 4, or `00` after two digits that are a multiple of 4.
        let multiple_of_four = Expr::alt([
            two(
                &[('0', '0'), ('2', '2'), ('4', '4'), ('6', '6'), ('8', '8')],
                &[('0', '0'), ('4', '4'), ('8', '8')],
            ),
            two(
                &[('1', '1'), ('3', '3'), ('5', '5'), ('7', '7'), ('9', '9')],
                &[('2', '2'), ('6', '6')],
            ),
        ]);
        let leap_year = Expr::alt([
            Expr::seq([
                digit(),
                digit(),
                Expr::alt([
                    two(
                        &[('0', '0'), ('2', '2'), ('4', '4'), ('6', '6'), ('8', '8')],
                        &[('4', '4'), ('8', '8')],
                    ),
                    two(
                        &[('2', '2'), ('4', '4'), ('6', '6'), ('8', '8')],
                        &[('0', '0')],
                    ),
                    two(
                        &[('1', '1'), ('3', '3'), ('5', '5'), ('7', '7'), ('9', '9')],
                        &[('2', '2'), ('6', '6')],
                    ),
                ]),
            ]),
            Expr::seq([multiple_of_four, Expr::lit("00")]),
        ]);
        Expr::alt([
            Expr::seq([Expr::repeat(digit(), 4, Some(4)), Expr::lit("-"), month_day]),
            Expr::seq([leap_year, Expr::lit("-02-29")]),
        ])
    })
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

/// HH:MM:SS, an optional fraction, and `Z` or an offset; a leap second only where it falls at
/// 23:59:60 UTC, written with `Z` or a whole-hour offset.
fn time(deriver: &mut Deriver<'_>) -> Expr {
    rule(deriver, "time", |_| {
        let fraction = Expr::optional(Expr::seq([Expr::lit("."), Expr::repeat(digit(), 1, None)]));
        let zulu = class(&[('Z', 'Z'), ('z', 'z')]);
        let offset = Expr::alt([
            zulu.clone(),
            Expr::seq([
                class(&[('+', '+'), ('-', '-')]),
                hour(),
                Expr::lit(":"),
                sixty(),
            ]),
        ]);
        let mut leap = vec![Expr::seq([Expr::lit("23:59:60"), fraction.clone(), zulu])];
        // Local time = 23:59 UTC + offset: with `+HH:00` the local hour is 23 + HH, with
        // `-HH:00` it is 23 - HH (mod 24).
        for offset_hour in 0..24u32 {
            for (sign, local) in [
                ('+', (23 + offset_hour) % 24),
                ('-', (23 + 24 - offset_hour) % 24),
            ] {
                leap.push(Expr::seq([
                    Expr::lit(format!("{local:02}:59:60")),
                    fraction.clone(),
                    Expr::lit(format!("{sign}{offset_hour:02}:00")),
                ]));
            }
        }
        Expr::alt([
            Expr::seq([
                hour(),
                Expr::lit(":"),
                sixty(),
                Expr::lit(":"),
                sixty(),
                fraction,
                offset,
            ]),
            Expr::alt(leap),
        ])
    })
}

/// An IPv4 address: four decimal octets 0 to 255 without leading zeros.
fn ipv4(deriver: &mut Deriver<'_>) -> Expr {
    rule(deriver, "ipv4", |deriver| {
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
    })
}

/// An IPv6 address as Rust's `Ipv6Addr` reads it: eight groups of one to four hex digits, or
/// fewer around one `::` that stands for at least one group, the last two groups possibly an
/// IPv4 address.
fn ipv6(deriver: &mut Deriver<'_>) -> Expr {
    rule(deriver, "ipv6", |deriver| {
        let group = deriver.named(Expr::repeat(hex(), 1, Some(4)), "ipv6-group");
        let v4 = ipv4(deriver);
        // `count` groups, each followed by `:`.
        let groups_colon = |count: u64| {
            Expr::repeat(
                Expr::seq([group.clone(), Expr::lit(":")]),
                count,
                Some(count),
            )
        };
        // Up to `limit` groups after `::` (an IPv4 address counts two).
        let tail = |limit: u64| {
            if limit == 0 {
                return Expr::Empty;
            }
            let plain = Expr::optional(Expr::seq([
                group.clone(),
                Expr::repeat(
                    Expr::seq([Expr::lit(":"), group.clone()]),
                    0,
                    Some(limit - 1),
                ),
            ]));
            if limit >= 2 {
                Expr::alt([
                    plain,
                    Expr::seq([
                        Expr::repeat(
                            Expr::seq([group.clone(), Expr::lit(":")]),
                            0,
                            Some(limit - 2),
                        ),
                        v4.clone(),
                    ]),
                ])
            } else {
                plain
            }
        };
        let mut forms = vec![
            Expr::seq([groups_colon(7), group.clone()]),
            Expr::seq([groups_colon(6), v4.clone()]),
        ];
        for head in 0..=7u64 {
            let head_groups = if head == 0 {
                Expr::Empty
            } else {
                Expr::seq([
                    group.clone(),
                    Expr::repeat(
                        Expr::seq([Expr::lit(":"), group.clone()]),
                        head - 1,
                        Some(head - 1),
                    ),
                ])
            };
            forms.push(Expr::seq([head_groups, Expr::lit("::"), tail(7 - head)]));
        }
        Expr::alt(forms)
    })
}

/// A host name label: letters, digits and hyphens, 1 to `max` characters, no hyphen at
/// either end, and not `--` in the third and fourth places (which marks a punycode label).
fn label(max: u64) -> Expr {
    let alnum = || class(&[('a', 'z'), ('A', 'Z'), ('0', '9')]);
    let ldh = || class(&[('a', 'z'), ('A', 'Z'), ('0', '9'), ('-', '-')]);
    Expr::alt([
        Expr::seq([
            alnum(),
            Expr::optional(Expr::seq([Expr::optional(ldh()), alnum()])),
        ]),
        Expr::seq([alnum(), ldh(), ldh(), alnum()]),
        Expr::seq([
            alnum(),
            ldh(),
            Expr::alt([
                Expr::seq([alnum(), ldh()]),
                Expr::seq([Expr::lit("-"), alnum()]),
            ]),
            Expr::repeat(ldh(), 0, Some(max - 5)),
            alnum(),
        ]),
    ])
}

/// One to four labels, the fourth up to 61 characters, so the name stays within 253.
fn hostname(deriver: &mut Deriver<'_>) -> Expr {
    rule(deriver, "hostname", |deriver| {
        let label = deriver.named(label(63), "hostname-label");
        let last = deriver.named(self::label(61), "hostname-last-label");
        Expr::seq([
            label.clone(),
            Expr::repeat(Expr::seq([Expr::lit("."), label]), 0, Some(2)),
            Expr::optional(Expr::seq([Expr::lit("."), last])),
        ])
    })
}

/// Characters of a URI's host (`reg-name`): unreserved and sub-delims.
const REG_NAME: &[(char, char)] = &[
    ('a', 'z'),
    ('A', 'Z'),
    ('0', '9'),
    ('-', '.'),
    ('_', '_'),
    ('~', '~'),
    ('!', '!'),
    ('$', '$'),
    ('&', ','),
    (';', ';'),
    ('=', '='),
];

/// One character of a URI part: one of `extra` beside the host characters, or `%` and two
/// hex digits.
fn uri_char(extra: &[(char, char)]) -> Expr {
    let mut ranges = REG_NAME.to_vec();
    ranges.extend_from_slice(extra);
    Expr::alt([
        Expr::Class(CharClass::of(&ranges)),
        Expr::seq([Expr::lit("%"), hex(), hex()]),
    ])
}

/// The parts every URI form shares: the authority after `//` with its path, a path without
/// an authority, and the query and fragment.
fn uri_parts(deriver: &mut Deriver<'_>) -> (Expr, Expr, Expr) {
    let path_char = rule(deriver, "uri-path-char", |_| {
        uri_char(&[(':', ':'), ('@', '@'), ('/', '/')])
    });
    let authority = rule(deriver, "uri-authority", |_| {
        let userinfo = Expr::seq([
            Expr::repeat(uri_char(&[(':', ':')]), 0, None),
            Expr::lit("@"),
        ]);
        Expr::seq([
            Expr::optional(userinfo),
            Expr::repeat(uri_char(&[]), 0, None),
            Expr::optional(Expr::seq([Expr::lit(":"), Expr::repeat(digit(), 0, None)])),
        ])
    });
    let after_authority = Expr::seq([
        Expr::lit("//"),
        authority,
        Expr::optional(Expr::seq([
            Expr::lit("/"),
            Expr::repeat(path_char.clone(), 0, None),
        ])),
    ]);
    let tail = rule(deriver, "uri-tail", |_| {
        let query_char = uri_char(&[(':', ':'), ('@', '@'), ('/', '/'), ('?', '?')]);
        Expr::seq([
            Expr::optional(Expr::seq([
                Expr::lit("?"),
                Expr::repeat(query_char.clone(), 0, None),
            ])),
            Expr::optional(Expr::seq([
                Expr::lit("#"),
                Expr::repeat(query_char, 0, None),
            ])),
        ])
    });
    (after_authority, path_char, tail)
}

/// An absolute URI: a scheme, `:`, an authority and path or a path alone, a query and a
/// fragment.
fn uri(deriver: &mut Deriver<'_>) -> Expr {
    rule(deriver, "uri", |deriver| {
        let (after_authority, path_char, tail) = uri_parts(deriver);
        let segment_char = uri_char(&[(':', ':'), ('@', '@')]);
        let scheme = Expr::seq([
            class(&[('a', 'z'), ('A', 'Z')]),
            Expr::repeat(
                class(&[('a', 'z'), ('A', 'Z'), ('0', '9'), ('+', '+'), ('-', '.')]),
                0,
                None,
            ),
        ]);
        // A path that does not start with `//`.
        let path = Expr::optional(Expr::alt([
            Expr::seq([
                Expr::lit("/"),
                Expr::optional(Expr::seq([
                    segment_char.clone(),
                    Expr::repeat(path_char.clone(), 0, None),
                ])),
            ]),
            Expr::seq([segment_char, Expr::repeat(path_char, 0, None)]),
        ]));
        Expr::seq([
            scheme,
            Expr::lit(":"),
            Expr::alt([after_authority, path]),
            tail,
        ])
    })
}

/// A relative reference: an authority and path, or a path whose first segment holds no `:`
/// and that does not start with `//`; then a query and a fragment.
fn relative_reference(deriver: &mut Deriver<'_>) -> Expr {
    let (after_authority, path_char, tail) = uri_parts(deriver);
    let first_segment_char = uri_char(&[('@', '@')]);
    let segment_char = uri_char(&[(':', ':'), ('@', '@')]);
    let path = Expr::optional(Expr::alt([
        Expr::seq([
            Expr::lit("/"),
            Expr::optional(Expr::seq([
                segment_char,
                Expr::repeat(path_char.clone(), 0, None),
            ])),
        ]),
        Expr::seq([
            Expr::repeat(first_segment_char, 1, None),
            Expr::optional(Expr::seq([
                Expr::lit("/"),
                Expr::repeat(path_char, 0, None),
            ])),
        ]),
    ]));
    Expr::seq([Expr::alt([after_authority, path]), tail])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::schema::{gbnf, validate};

    /// Each format's grammar (derived through the public entry point) against the validator:
    /// on every sample the recognizer and the validator agree, except on the samples listed as
    /// left out (valid, not generated, and named in the note).
    #[test]
    fn generated_formats_agree_with_the_validator() {
        type Case = (
            &'static str,
            &'static [&'static str],
            &'static [&'static str],
        );
        let cases: &[Case] = &[
            (
                "date",
                &[
                    "2026-11-28",
                    "0001-01-01",
                    "9999-12-31",
                    "2024-02-29",
                    "2000-02-29",
                    "0000-02-29",
                    "1900-02-29",
                    "2023-02-29",
                    "2026-04-30",
                    "2026-04-31",
                    "2026-01-31",
                    "2026-02-30",
                    "2026-13-01",
                    "2026-00-10",
                    "2026-1-01",
                    "26-01-01",
                    "2026-12-32",
                    "1996-02-29",
                    "2100-02-29",
                    "2400-02-29",
                    "1600-02-29",
                    "1700-02-29",
                    "0004-02-29",
                    "0100-02-29",
                    "2026-06-00",
                ],
                &[],
            ),
            (
                "time",
                &[
                    "23:59:59Z",
                    "00:00:00.123456789123+14:00",
                    "12:30:00-05:30",
                    "24:00:00Z",
                    "12:60:00Z",
                    "12:00:00",
                    "12:00Z",
                    "08:00:00z",
                    "23:59:60Z",
                    "23:59:60.5z",
                    "22:59:60Z",
                    "18:59:60-05:00",
                    "00:59:60+01:00",
                    "23:59:60+01:00",
                    "12:00:00.Z",
                    "12:00:00+24:00",
                    "12:00:00+05:60",
                ],
                &["18:29:60-05:30"],
            ),
            (
                "date-time",
                &[
                    "2026-11-27T12:00:00Z",
                    "1999-12-31t23:59:59.5+01:00",
                    "2026-11-30 12:00:00Z",
                    "2026-11-30T12:00:00",
                    "2024-02-29T00:00:00Z",
                    "2025-02-29T00:00:00Z",
                ],
                &[],
            ),
            (
                "uuid",
                &[
                    "123e4567-e89b-12d3-a456-426614174000",
                    "123E4567-E89B-12D3-A456-426614174000",
                    "123e4567e89b12d3a456426614174000",
                    "123e4567-e89b-12d3-a456-42661417400",
                    "123e4567-e89b-12d3-a456-42661417400g",
                    "{123e4567-e89b-12d3-a456-426614174000}",
                    "urn:uuid:123e4567-e89b-12d3-a456-426614174000",
                    "123e4567-e89b12d3-a456-426614174000",
                ],
                &[],
            ),
            (
                "ipv4",
                &[
                    "0.0.0.0",
                    "255.255.255.255",
                    "192.168.1.10",
                    "256.0.0.1",
                    "01.2.3.4",
                    "1.2.3",
                ],
                &[],
            ),
            (
                "ipv6",
                &[
                    "::",
                    "::1",
                    "1::",
                    "1:2:3:4:5:6:7:8",
                    "1:2:3:4:5:6:7::",
                    "::2:3:4:5:6:7:8",
                    "fe80::1:2",
                    "FFFF::abcd",
                    "::ffff:192.0.2.1",
                    "1:2:3:4:5:6:1.2.3.4",
                    "1::2:3:4:5:6:7",
                    "1:2:3:4:5:6:7:8:9",
                    "1::2::3",
                    "12345::",
                    ":1:2:3:4:5:6:7",
                    "1:2:3:4:5:6:7:1.2.3.4",
                    "::1.2.3.04",
                    "1:2:3:4:5:6:7:8::",
                    "0000:0:00::",
                    "1:2:3:4:5::1.2.3.4",
                    "1:2:3:4:5:6::1.2.3.4",
                    "g::",
                ],
                &[],
            ),
            (
                "hostname",
                &[
                    "example",
                    "a.b.c.d",
                    "x0y1z2",
                    "EXAMPLE.com",
                    "a-b.c",
                    "ab--cd",
                    "-bad",
                    "bad-",
                    "a..b",
                    "a_b",
                    "a.",
                    "a1-2b.c3",
                    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
                ],
                &["xn--nxasmq6b", "a.b.c.d.e"],
            ),
            (
                "email",
                &[
                    "dev@example.com",
                    "a.b.c@x1.y2.z3.museum",
                    "0@0.io",
                    "dev@localhost",
                    "o'brien+tag@Example.org",
                    "x!#$%&*/=?^_`{|}~-@host",
                    "dev@",
                    "@example.com",
                    "dev example@x.com",
                    "a..b@x.com",
                    ".a@x.com",
                    "a.@x.com",
                    "a@-x.com",
                ],
                &["\"quoted\"@example.com", "dev@[192.0.2.1]"],
            ),
            (
                "uri",
                &[
                    "https://example.com",
                    "http://a.b/c/d.e/f_g~h-i/",
                    "https://x/",
                    "ftp://x",
                    "mailto:dev@example.com",
                    "urn:isbn:0451450523",
                    "https://user:pw@h:8080/p?q=1#f",
                    "http://h/%7Euser",
                    "example.com",
                    "https://",
                    "https://exa mple.com",
                    "http://h/%zz",
                    "http://h:80a/",
                    "1http://x",
                    "http://a@b@c/",
                    "s:",
                    "tel:+1-201-555-0123",
                ],
                &["http://[::1]/"],
            ),
            (
                "uri-reference",
                &[
                    "https://example.com",
                    "/a/b?c#d",
                    "a/b",
                    "",
                    "#frag",
                    "?q",
                    "//host/p",
                    "a:b",
                    "./x:y",
                    "x:y",
                    "a b",
                    "%zz",
                    "/%41",
                ],
                &["//[::1]/"],
            ),
        ];
        for (format, samples, left_out) in cases {
            // Draft 2020-12, where the validator knows every one of these formats (draft-07,
            // slmcode's default, has no `uuid`).
            let schema = json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "string", "format": format});
            let derived = gbnf::derive(&schema).unwrap();
            let grammar = gbnf::parse(&derived.grammar).unwrap();
            for text in *samples {
                let quoted = serde_json::to_string(text).unwrap();
                let recognized = grammar.recognize(&quoted).is_ok();
                let valid = validate(&schema, &json!(text)).is_ok();
                assert_eq!(
                    recognized, valid,
                    "{format}: {text}: the grammar says {recognized}, the validator {valid}"
                );
            }
            for text in *left_out {
                let quoted = serde_json::to_string(text).unwrap();
                assert!(grammar.recognize(&quoted).is_err(), "{format}: {text}");
                assert!(validate(&schema, &json!(text)).is_ok(), "{format}: {text}");
            }
            assert_eq!(
                derived.notes.is_empty(),
                left_out.is_empty() && !["time", "date-time"].contains(format),
                "{format}: {:?}",
                derived.notes
            );
        }
    }

    /// JSONSchemaBench Github_easy o9780 (`email`, maxLength 1024) and JSON Schema Store's
    /// sourcery (`uri`, minLength 1, maxLength 65536): the format is generated, the lengths
    /// left to validation with a note.
    #[test]
    fn lengths_beside_a_format_keep_the_format() {
        for (format, good, bad) in [
            ("date", "2024-02-29", "2024-02-30x"),
            ("email", "a.b@example.com", "U a]"),
            ("uri", "https://example.com/a", "U a]"),
        ] {
            let schema =
                json!({"type": "string", "format": format, "minLength": 1, "maxLength": 1024});
            let derived = gbnf::derive(&schema).unwrap();
            assert!(
                derived
                    .notes
                    .iter()
                    .any(|note| note.keyword.as_deref() == Some("maxLength")
                        && note.reason.contains("follows the format")),
                "{format}: {:?}",
                derived.notes
            );
            let grammar = gbnf::parse(&derived.grammar).unwrap();
            let quoted = |text: &str| serde_json::to_string(text).unwrap();
            assert!(grammar.recognize(&quoted(good)).is_ok(), "{format}: {good}");
            assert!(grammar.recognize(&quoted(bad)).is_err(), "{format}: {bad}");
        }
    }
}
