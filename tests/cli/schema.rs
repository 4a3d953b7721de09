use serde_json::{Value, json};
use slmcode::schema::contracts;

use crate::util::Slm;

const NAMES: &str = "plan, tasks, review, tester, clarify, escalate, composition, scope_judge, \
                     worker, explore, docs, architect, coordinator, orchestrator, placeholder, lessons";

fn unknown_role_message(asked: &str, suggestion: Option<&str>) -> String {
    let suggestion = suggestion
        .map(|name| format!(" (did you mean `{name}`?)"))
        .unwrap_or_default();
    format!(
        "error: unknown contract `{asked}`{suggestion}; the contracts are: {NAMES}\n\
         hint: `slmcode schema list` shows every contract\n"
    )
}

#[test]
fn list_shows_every_contract_in_a_table() {
    let run = Slm::new().run(["schema", "list"], "");
    run.code(0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "name          strict  title                 properties  total"
    );
    assert_eq!(
        lines[1],
        "plan          yes     Plan                  2           7"
    );
    assert_eq!(
        lines[3],
        "review        no      Review                3           8"
    );
    // The header and 16 rows.
    assert_eq!(lines.len(), 17, "{}", run.stdout);
    for (line, contract) in lines[1..].iter().zip(contracts()) {
        assert!(
            line.starts_with(&format!("{:<12}  ", contract.name)),
            "{line}"
        );
    }
    assert_eq!(run.stderr, "");
}

#[test]
fn list_json_describes_every_contract() {
    let run = Slm::new().run(["schema", "list", "--json"], "");
    run.code(0);
    let listing = run.json();
    let entries = listing["contracts"].as_array().unwrap();
    assert_eq!(entries.len(), 16);
    for (entry, contract) in entries.iter().zip(contracts()) {
        assert_eq!(entry["name"], contract.name);
        assert_eq!(entry["strict"], contract.strict);
        assert_eq!(entry["title"], contract.title());
        assert_eq!(entry["description"], contract.description());
        let keys: Vec<&str> = entry
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            [
                "name",
                "strict",
                "title",
                "description",
                "top_level_properties",
                "total_properties"
            ]
        );
    }
    assert_eq!(entries[0]["top_level_properties"], 2);
    assert_eq!(entries[0]["total_properties"], 7);
    // architect: summary, components (+3), decisions (+3), risks (+3).
    assert_eq!(entries[11]["name"], "architect");
    assert_eq!(entries[11]["top_level_properties"], 4);
    assert_eq!(entries[11]["total_properties"], 13);
}

#[test]
fn show_prints_each_contract_schema_and_prompt() {
    let slm = Slm::new();
    for contract in contracts() {
        let run = slm.run(["schema", "show", contract.name], "");
        run.code(0);
        assert_eq!(&run.json(), contract.schema(), "{}", contract.name);

        let run = slm.run(["schema", "show", contract.name, "--prompt"], "");
        run.code(0);
        assert_eq!(run.stdout, contract.prompt(), "{}", contract.name);

        let run = slm.run(["schema", "show", contract.name, "--json"], "");
        run.code(0);
        assert_eq!(
            run.json(),
            json!({
                "name": contract.name,
                "title": contract.title(),
                "strict": contract.strict,
                "schema": contract.schema(),
            })
        );

        let run = slm.run(["--json", "schema", "show", "--prompt", contract.name], "");
        run.code(0);
        assert_eq!(
            run.json(),
            json!({
                "name": contract.name,
                "title": contract.title(),
                "strict": contract.strict,
                "prompt": contract.prompt(),
            })
        );

        let run = slm.run(["schema", "show", contract.name, "--prompt", "--brief"], "");
        run.code(0);
        assert_eq!(
            run.stdout,
            format!("{}\n", contract.brief_prompt()),
            "{}",
            contract.name
        );
        let run = slm.run(
            [
                "--json",
                "schema",
                "show",
                "--prompt",
                "--brief",
                contract.name,
            ],
            "",
        );
        run.code(0);
        assert_eq!(run.json()["prompt"], contract.brief_prompt());
    }
    // --brief shortens a prompt; without --prompt it is a usage error.
    let run = slm.run(["schema", "show", "plan", "--brief"], "");
    run.code(2);
    assert!(run.stderr.contains("--prompt"), "{}", run.stderr);
}

#[test]
fn show_rejects_an_unknown_role_as_a_usage_error() {
    let slm = Slm::new();
    for (asked, suggestion) in [
        ("plna", Some("plan")),
        ("scope-judge", Some("scope_judge")),
        ("deploy", None),
    ] {
        let run = slm.run(["schema", "show", asked], "");
        run.code(2);
        assert_eq!(run.stdout, "");
        assert_eq!(run.stderr, unknown_role_message(asked, suggestion));
    }

    let run = slm.run(["schema", "show", "--json", "plna"], "");
    run.code(2);
    let error = &run.json()["error"];
    assert_eq!(error["kind"], "usage");
    assert_eq!(error["exit_code"], 2);
    assert_eq!(
        error["message"],
        format!("unknown contract `plna` (did you mean `plan`?); the contracts are: {NAMES}")
    );
    assert_eq!(error["hint"], "`slmcode schema list` shows every contract");

    slm.run(["schema", "show"], "").code(2);
    slm.run(["schema"], "").code(2);
}

/// Writes `schema` to a file and runs `schema check` on it with `extra` arguments.
fn check(slm: &Slm, schema: &Value, extra: &[&str]) -> crate::util::Run {
    let path = slm.file("schema.json", serde_json::to_vec_pretty(schema).unwrap());
    let mut args = vec!["schema", "check", path.to_str().unwrap()];
    args.extend_from_slice(extra);
    slm.run(args, "")
}

#[test]
fn check_passes_every_strict_contract_and_explains_the_others() {
    let slm = Slm::new();
    for contract in contracts() {
        let run = check(&slm, contract.schema(), &["--json"]);
        let report = run.json();
        let sections: Vec<(&str, bool)> = report["sections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|section| {
                (
                    section["name"].as_str().unwrap(),
                    section["passed"].as_bool().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            sections,
            [
                ("compile", true),
                ("subset", true),
                ("strict", contract.strict),
                ("grammar", true)
            ],
            "{}",
            contract.name
        );
        assert_eq!(report["ok"], contract.strict);
        run.code(if contract.strict { 0 } else { 1 });
        check(&slm, contract.schema(), &["--allow", "strict"]).code(0);
    }

    let run = check(&slm, contracts()[0].schema(), &[]);
    assert_eq!(
        run.stdout,
        "compile (compiles as a JSON Schema): ok\n\
         subset (inside the contract subset): ok\n\
         strict (ready for OpenAI strict mode): ok\n\
         grammar (expressible as an exact GBNF grammar): ok\n"
    );
    assert_eq!(run.stderr, "");

    let review = slmcode::schema::contract("review").unwrap();
    let run = check(&slm, review.schema(), &[]);
    run.code(1);
    assert_eq!(
        run.stdout,
        "compile (compiles as a JSON Schema): ok\n\
         subset (inside the contract subset): ok\n\
         strict (ready for OpenAI strict mode): 2 problems\n  \
         /properties/findings/items: `required`: `line` is not listed: strict mode requires every property (make it nullable to let it be empty)\n  \
         /properties/findings/items: `required`: `suggestion` is not listed: strict mode requires every property (make it nullable to let it be empty)\n\
         grammar (expressible as an exact GBNF grammar): ok\n"
    );
    assert!(
        run.stderr
            .ends_with("schema.json fails the check: strict (`--allow SECTION` reports a section without failing on it)\n"),
        "{}",
        run.stderr
    );
}

fn outside_the_subset() -> Value {
    json!({
        "type": "object",
        "properties": {
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
            "name": {"type": "string"}
        },
        "required": ["tags", "name"],
        "additionalProperties": false
    })
}

#[test]
fn check_lists_every_problem_with_its_pointer() {
    let slm = Slm::new();
    let run = check(&slm, &outside_the_subset(), &[]);
    run.code(1);
    assert_eq!(
        run.stdout,
        "compile (compiles as a JSON Schema): ok\n\
         subset (inside the contract subset): 1 problem\n  \
         /properties/tags: `uniqueItems`: outside the contract subset: items are bounded only by `items`, `minItems` and `maxItems`\n\
         strict (ready for OpenAI strict mode): 1 problem\n  \
         /properties/tags: `uniqueItems`: not among the keywords OpenAI documents for strict mode\n\
         grammar (expressible as an exact GBNF grammar): 1 problem\n  \
         /properties/tags: `uniqueItems`: the grammar cannot forbid repeated items; validation checks it\n"
    );

    let run = check(
        &slm,
        &outside_the_subset(),
        &[
            "--allow", "subset", "--allow", "strict", "--allow", "grammar",
        ],
    );
    run.code(0);
    assert!(
        run.stdout.contains("): 1 problem, allowed\n"),
        "{}",
        run.stdout
    );
    assert_eq!(run.stderr, "");

    // One allowed section is not enough while the other still fails.
    check(&slm, &outside_the_subset(), &["--allow", "subset"]).code(1);

    let run = check(
        &slm,
        &outside_the_subset(),
        &["--json", "--allow", "strict", "--allow", "grammar"],
    );
    run.code(1);
    assert_eq!(
        run.json(),
        json!({
            "file": slm.work_dir().join("schema.json").to_str().unwrap(),
            "ok": false,
            "sections": [
                {"name": "compile", "title": "compiles as a JSON Schema", "allowed": false, "passed": true, "problems": []},
                {"name": "subset", "title": "inside the contract subset", "allowed": false, "passed": false, "problems": [
                    {"pointer": "/properties/tags", "keyword": "uniqueItems", "reason": "outside the contract subset: items are bounded only by `items`, `minItems` and `maxItems`"}
                ]},
                {"name": "strict", "title": "ready for OpenAI strict mode", "allowed": true, "passed": false, "problems": [
                    {"pointer": "/properties/tags", "keyword": "uniqueItems", "reason": "not among the keywords OpenAI documents for strict mode"}
                ]},
                {"name": "grammar", "title": "expressible as an exact GBNF grammar", "allowed": true, "passed": false, "problems": [
                    {"pointer": "/properties/tags", "keyword": "uniqueItems", "reason": "the grammar cannot forbid repeated items; validation checks it"}
                ]}
            ]
        })
    );
}

#[test]
fn check_fails_a_schema_that_does_not_compile_whatever_is_allowed() {
    let slm = Slm::new();
    let broken = json!({"type": "object", "properties": {"a": {"type": "string", "minLength": "x"}}, "required": ["a"], "additionalProperties": false});
    let run = check(
        &slm,
        &broken,
        &[
            "--allow", "subset", "--allow", "strict", "--allow", "grammar",
        ],
    );
    run.code(1);
    assert_eq!(
        run.stdout,
        "compile (compiles as a JSON Schema): 1 problem\n  \
         /properties/a/minLength: \"x\" is not of type \"integer\"\n\
         subset (inside the contract subset): 1 problem, allowed\n  \
         /properties/a: `minLength`: must be a non-negative integer, not \"x\"\n\
         strict (ready for OpenAI strict mode): ok\n\
         grammar (expressible as an exact GBNF grammar): 1 problem, allowed\n  \
         /properties/a/minLength: minLength must be a non-negative integer\n"
    );
    assert!(
        run.stderr
            .ends_with("schema.json fails the check: compile\n"),
        "{}",
        run.stderr
    );

    let run = check(&slm, &broken, &["--allow", "compile"]);
    run.code(2);
    assert!(
        run.stderr
            .starts_with("error: invalid value 'compile' for '--allow <SECTION>'\n  [possible values: subset, strict, grammar]"),
        "{}",
        run.stderr
    );
}

#[test]
fn check_reports_a_missing_or_non_json_file() {
    let slm = Slm::new();
    let run = slm.run(["schema", "check", "nope.json"], "");
    run.code(1);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "error: cannot read schema file nope.json\n  caused by: No such file or directory (os error 2)\n"
    );

    let prose = slm.file("prose.json", "Here is the schema you asked for.");
    let run = slm.run(["schema", "check", prose.to_str().unwrap()], "");
    run.code(1);
    assert_eq!(
        run.stderr,
        format!(
            "error: schema file {} is not valid JSON: expected value at line 1 column 1\n",
            prose.display()
        )
    );

    let run = slm.run(["schema", "check", "--json", "nope.json"], "");
    run.code(1);
    assert_eq!(run.json()["error"]["kind"], "failure");
    assert_eq!(
        run.json()["error"]["causes"],
        json!(["No such file or directory (os error 2)"])
    );
}
