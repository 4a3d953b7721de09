//! `slmcode schema gbnf` and `slmcode schema match`.

use serde_json::{Value, json};
use slmcode::schema::{contracts, gbnf};

use crate::util::{Slm, repo_root};

#[test]
fn gbnf_prints_the_grammar_of_every_contract() {
    let slm = Slm::new();
    for contract in contracts() {
        let expected = gbnf::derive(contract.schema()).unwrap();
        let run = slm.run(["schema", "gbnf", contract.name], "");
        run.code(0);
        assert_eq!(run.stdout, expected.grammar, "{}", contract.name);
        assert!(
            run.stdout.starts_with("root ::= ws \"{\" ws "),
            "{}",
            contract.name
        );
        assert_eq!(
            run.stderr, "",
            "{}: a contract's grammar is exact",
            contract.name
        );

        let run = slm.run(["schema", "gbnf", "--json", contract.name], "");
        run.code(0);
        assert_eq!(
            run.json(),
            json!({
                "schema": contract.name,
                "grammar": expected.grammar,
                "exact": true,
                "notes": []
            })
        );
    }
}

const APPROXIMATED: &str = r#"{
    "type": "object",
    "properties": {
        "code": {"type": "string", "pattern": "^(?=[A-Z])\\w{3}$"},
        "ratio": {"type": "number", "maximum": 0.75}
    },
    "required": ["code"],
    "additionalProperties": false
}"#;

#[test]
fn gbnf_of_a_file_warns_about_what_the_grammar_cannot_express() {
    let slm = Slm::new();
    let schema = slm.file("schema.json", APPROXIMATED);
    let run = slm.run(["schema", "gbnf", "--file", schema.to_str().unwrap()], "");
    run.code(0);
    assert!(
        run.stdout
            .starts_with("root ::= ws \"{\" ws code-kv (ws \",\" ws ratio-kv)? ws \"}\" ws\n"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stderr,
        format!(
            "warning: /properties/code: `pattern`: the pattern has a lookahead, which a grammar cannot express; validation checks the pattern\n\
             warning: /properties/ratio: `maximum`: the bound 0.75 is not an integer: the grammar bounds the number at 1 and validation checks the exact bound\n\
             the grammar is not exact for {} in 2 places; validation still checks the whole schema\n",
            schema.display()
        )
    );
    // -q keeps stderr quiet; the grammar is the same.
    let quiet = slm.run(
        ["-q", "schema", "gbnf", "--file", schema.to_str().unwrap()],
        "",
    );
    quiet.code(0);
    assert_eq!(
        (quiet.stdout.as_str(), quiet.stderr.as_str()),
        (run.stdout.as_str(), "")
    );

    let run = slm.run(
        [
            "schema",
            "gbnf",
            "--json",
            "--file",
            schema.to_str().unwrap(),
        ],
        "",
    );
    run.code(0);
    let report = run.json();
    assert_eq!(report["exact"], false);
    assert_eq!(
        report["notes"],
        json!([
            {"pointer": "/properties/code", "keyword": "pattern", "reason": "the pattern has a lookahead, which a grammar cannot express; validation checks the pattern"},
            {"pointer": "/properties/ratio", "keyword": "maximum", "reason": "the bound 0.75 is not an integer: the grammar bounds the number at 1 and validation checks the exact bound"}
        ])
    );
    assert_eq!(report["grammar"], Value::String(quiet.stdout));
}

#[test]
fn gbnf_errors() {
    let slm = Slm::new();
    let run = slm.run(["schema", "gbnf", "plna"], "");
    run.code(2);
    assert!(
        run.stderr
            .starts_with("error: unknown contract `plna` (did you mean `plan`?)"),
        "{}",
        run.stderr
    );

    let run = slm.run(["schema", "gbnf"], "");
    run.code(2);
    assert_eq!(
        run.stderr,
        "error: give a contract name (such as `plan`) or --file with a JSON Schema\nhint: `slmcode schema list` shows every contract\n"
    );
    slm.run(["schema", "gbnf", "plan", "--file", "x.json"], "")
        .code(2);

    let run = slm.run(["schema", "gbnf", "--file", "missing.json"], "");
    run.code(1);
    assert!(
        run.stderr
            .starts_with("error: cannot read schema file missing.json\n"),
        "{}",
        run.stderr
    );

    let empty = slm.file(
        "empty.json",
        r#"{"type": "integer", "minimum": 3, "maximum": 2}"#,
    );
    let run = slm.run(["schema", "gbnf", "--file", empty.to_str().unwrap()], "");
    run.code(1);
    assert_eq!(
        run.stderr,
        format!(
            "error: {} has no grammar\n  caused by: no value satisfies the schema: (root): `minimum`: no integer lies between the bounds: no value satisfies this schema, so the grammar leaves it out\n\
             hint: a schema that no value satisfies cannot constrain anything; check its bounds and `required`\n",
            empty.display()
        )
    );
    let invalid = slm.file("invalid.json", r#"{"type": "text"}"#);
    let run = slm.run(
        [
            "--json",
            "schema",
            "gbnf",
            "--file",
            invalid.to_str().unwrap(),
        ],
        "",
    );
    run.code(1);
    let error = &run.json()["error"];
    assert_eq!(
        error["message"],
        format!("{} has no grammar", invalid.display())
    );
    assert_eq!(
        error["causes"],
        serde_json::json!(["invalid schema at /type: unknown type `text`"])
    );
}

#[test]
fn a_schema_whose_combinators_multiply_fails_at_once_with_where() {
    // Thirty levels whose two members each inline the next level through allOf: 2^30 schemas
    // to walk, refused at the derivation's step limit instead.
    let mut definitions = serde_json::Map::new();
    for level in 0..30 {
        let next =
            serde_json::json!({"allOf": [{"$ref": format!("#/definitions/d{}", level + 1)}]});
        definitions.insert(
            format!("d{level}"),
            serde_json::json!({"type": "object", "properties": {"a": next.clone(), "b": next}}),
        );
    }
    definitions.insert("d30".to_owned(), serde_json::json!({"type": "string"}));
    let schema = serde_json::json!({"definitions": definitions, "$ref": "#/definitions/d0"});
    let slm = Slm::new();
    let file = slm.file("doubling.json", schema.to_string());
    let run = slm.run(
        ["--json", "schema", "gbnf", "--file", file.to_str().unwrap()],
        "",
    );
    run.code(1);
    let error = &run.json()["error"];
    let cause = error["causes"][0].as_str().unwrap();
    let place = cause
        .strip_prefix(
            "the schema is too complex to derive a grammar from: its allOf, anyOf and $ref \
             multiply one another past 20000 steps, the limit for a schema of its size, at ",
        )
        .unwrap_or_else(|| panic!("{cause}"));
    // Where the steps ran out, as a place in the schema (deep in the chain of levels).
    assert!(place.starts_with("/definitions/d"), "{cause}");
    assert!(schema.pointer(place).is_some(), "{cause}");
    assert!(
        error["hint"]
            .as_str()
            .unwrap()
            .contains("--mechanism json_schema"),
        "{error}"
    );
    // `schema check` lists it as the schema's grammar problem.
    let check = slm.run(["--json", "schema", "check", file.to_str().unwrap()], "");
    assert!(check.stdout.contains("too complex"), "{}", check.stdout);
}

#[test]
fn every_shipped_example_matches_its_contract() {
    let slm = Slm::new();
    for contract in contracts() {
        let example = repo_root().join(format!("examples/contracts/{}.json", contract.name));
        let run = slm.run(
            ["schema", "match", contract.name, example.to_str().unwrap()],
            "",
        );
        run.code(0);
        assert_eq!(run.stdout, "matches\n", "{}", contract.name);
        // The same document, compact, on stdin.
        let value: Value = serde_json::from_slice(&std::fs::read(&example).unwrap()).unwrap();
        let compact = serde_json::to_string(&value).unwrap();
        slm.run(["schema", "match", contract.name, "-"], &compact)
            .code(0);
    }
}

#[test]
fn a_mismatch_says_where_with_a_caret() {
    let slm = Slm::new();
    let document = "{\"reason\": \"fine\",\n  \"in_scope\": maybe}\n";
    let run = slm.run(["schema", "match", "scope_judge"], document);
    run.code(5);
    assert_eq!(
        run.stdout,
        "<stdin>:2:15: unexpected \"m\"; expected \"f\" or \"t\"\n    \"in_scope\": maybe}\n                ^\n"
    );
    assert_eq!(
        run.stderr,
        "<stdin> is not in the language of the grammar for scope_judge\n"
    );

    let run = slm.run(["--json", "schema", "match", "scope_judge"], document);
    run.code(5);
    assert_eq!(
        run.json(),
        json!({
            "matches": false,
            "schema": "scope_judge",
            "mismatch": {"offset": 33, "line": 2, "column": 15, "found": "m", "expected": ["\"f\"", "\"t\""]}
        })
    );

    // Valid JSON that is not canonical: properties out of schema order.
    let run = slm.run(
        ["schema", "match", "scope_judge"],
        r#"{"in_scope": true, "reason": "x"}"#,
    );
    run.code(5);
    assert_eq!(
        run.stdout.lines().next().unwrap(),
        r#"<stdin>:1:3: unexpected "i"; expected "r""#
    );

    // Too much whitespace.
    let run = slm.run(
        ["schema", "match", "scope_judge"],
        "{  \"reason\": \"x\", \"in_scope\": true}",
    );
    run.code(5);
    assert!(
        run.stdout
            .starts_with("<stdin>:1:3: unexpected \" \"; expected \"\\\"\"\n"),
        "{}",
        run.stdout
    );

    // A document that stops early.
    let run = slm.run(
        ["--json", "schema", "match", "scope_judge"],
        r#"{"reason": "x", "in_scope": tr"#,
    );
    run.code(5);
    let mismatch = &run.json()["mismatch"];
    assert_eq!(mismatch["found"], Value::Null);
    assert_eq!(mismatch["expected"], json!(["\"u\""]));
    assert_eq!(mismatch["offset"], 30);
}

#[test]
fn match_with_a_schema_file_and_a_long_line() {
    let slm = Slm::new();
    let schema = slm.file(
        "list.json",
        r#"{"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 9}, "maxItems": 100}"#,
    );
    let good = slm.file("good.json", "[1, 2, 3]\n");
    let run = slm.run(
        [
            "schema",
            "match",
            "--file",
            schema.to_str().unwrap(),
            good.to_str().unwrap(),
        ],
        "",
    );
    run.code(0);
    assert_eq!(run.stdout, "matches\n");

    let items: Vec<String> = (0..60).map(|index| (index % 10).to_string()).collect();
    let long = format!("[{},10]", items.join(","));
    let bad = slm.file("bad.json", &long);
    let run = slm.run(
        [
            "schema",
            "match",
            "--file",
            schema.to_str().unwrap(),
            bad.to_str().unwrap(),
        ],
        "",
    );
    run.code(5);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            r#"{}:1:123: unexpected "0"; expected "\n", "\r", [ \t], "," or "]""#,
            bad.display()
        )
    );
    assert_eq!(lines[1], format!("  ...{}", &long[82..]));
    assert_eq!(lines[2], format!("  {}^", " ".repeat(43)));

    // stdin with --file: the only operand is the input.
    let run = slm.run(
        ["schema", "match", "--file", schema.to_str().unwrap()],
        "[7]",
    );
    run.code(0);
    slm.run(
        [
            "schema",
            "match",
            "--file",
            schema.to_str().unwrap(),
            "plan",
            "x.json",
        ],
        "",
    )
    .code(2);
}

#[test]
fn input_that_is_not_utf8_stops_at_the_bad_byte() {
    let slm = Slm::new();
    let run = slm.run(
        ["--json", "schema", "match", "scope_judge"],
        b"{\"reason\": \"a\xff\"}".as_slice(),
    );
    run.code(5);
    let mismatch = &run.json()["mismatch"];
    assert_eq!(
        (mismatch["offset"].clone(), mismatch["column"].clone()),
        (json!(13), json!(14))
    );
    let run = slm.run(
        ["schema", "match", "scope_judge"],
        b"{\"reason\": \"a\xff\"}".as_slice(),
    );
    run.code(5);
    assert!(
        run.stdout
            .starts_with(r#"<stdin>:1:14: invalid UTF-8; expected "\"", "\\" or [^\"\\\x00-\x1F]"#),
        "{}",
        run.stdout
    );
}

#[test]
fn a_schema_the_validator_cannot_load_has_no_grammar_and_no_match() {
    let slm = Slm::new();
    // ECMA-262 reads `}}` as two literal braces, the validator's regex engine refuses it; a
    // multipleOf of 0 is no schema at all. Both derived a grammar before.
    for (name, schema, pointer) in [
        (
            "pattern.json",
            r#"{"type": "object", "properties": {"a": {"type": "string", "pattern": ".*\\{\\{.+}}.*"}}}"#,
            "/properties/a/pattern",
        ),
        (
            "multiple.json",
            r#"{"type": "number", "multipleOf": 0}"#,
            "/multipleOf",
        ),
    ] {
        let file = slm.file(name, schema);
        let document = slm.file("document.json", r#"{"a": "x {{y}} z"}"#);
        let path = file.to_str().unwrap();
        let gbnf = slm.run(["--json", "schema", "gbnf", "--file", path], "");
        gbnf.code(1);
        let error = &gbnf.json()["error"];
        assert_eq!(error["message"], format!("{path} has no grammar"));
        let cause = error["causes"][0].as_str().unwrap();
        assert!(
            cause.starts_with(&format!("invalid schema at {pointer}: ")),
            "{cause}"
        );
        assert!(
            error["hint"]
                .as_str()
                .unwrap()
                .starts_with("validation cannot load the schema"),
            "{error}"
        );
        let matched = slm.run(
            [
                "schema",
                "match",
                "--file",
                path,
                document.to_str().unwrap(),
            ],
            "",
        );
        matched.code(1);
        assert!(
            matched.stderr.contains("has no grammar"),
            "{}",
            matched.stderr
        );
    }
}
