//! Unit tests of merging subschemas and of the check that `oneOf` branches cannot overlap.

use serde_json::{Value, json};

use super::*;
use crate::schema::gbnf::shared::Whitespace;

fn shapes(branches: &[Value]) -> Vec<Shape> {
    let root = json!({});
    let mut deriver = Deriver::new(&root, Whitespace::Pretty);
    branches
        .iter()
        .map(|branch| shape(&mut deriver, branch))
        .collect()
}

fn call(name: &str) -> Value {
    json!({
        "type": "object",
        "properties": {"name": {"const": name}, "arguments": {"type": "object"}},
        "required": ["name", "arguments"]
    })
}

#[test]
fn branches_told_apart_by_a_discriminator_are_not_compared_in_pairs() {
    // A tool set's oneOf: a `name` const per tool, then the plain answer.
    let mut branches: Vec<Value> = (0..2000).map(|index| call(&format!("t{index}"))).collect();
    branches.push(json!({
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"]
    }));
    let settled = discriminated(&shapes(&branches)).expect("the names differ");
    assert_eq!(settled.iter().filter(|&&settled| settled).count(), 2000);
    assert!(!settled[2000]);

    // Two tools with one name: no shortcut, the pairs decide.
    branches[7] = call("t3");
    assert!(discriminated(&shapes(&branches)).is_none());
}

#[test]
fn the_shortcut_gives_the_answer_of_every_pair() {
    let cases = [
        vec![call("a"), call("b"), json!({"type": "string"})],
        vec![call("a"), call("b"), json!({"type": "object"})],
        vec![call("a"), call("a"), json!({"type": "string"})],
        vec![
            json!({"type": "object", "properties": {"kind": {"enum": ["x", "y"]}}, "required": ["kind"]}),
            json!({"type": "object", "properties": {"kind": {"enum": ["z"]}}, "required": ["kind"]}),
            json!({"type": "array"}),
            json!({"type": "null"}),
        ],
        vec![
            json!({"type": "object", "properties": {"kind": {"const": "x"}}, "required": ["kind"]}),
            json!({"type": "object", "properties": {"kind": {"const": "x"}}, "required": ["kind"]}),
        ],
        vec![
            json!({"enum": [1, 2]}),
            json!({"enum": [2, 3]}),
            json!({"enum": [4]}),
        ],
    ];
    for branches in cases {
        let shapes = shapes(&branches);
        let every_pair = shapes.iter().enumerate().all(|(index, a)| {
            shapes[index + 1..]
                .iter()
                .all(|b| disjoint(a, b) && disjoint(b, a))
        });
        let root = json!({});
        let mut deriver = Deriver::new(&root, Whitespace::Pretty);
        assert_eq!(
            pairwise_disjoint(&mut deriver, &branches),
            every_pair,
            "{branches:?}"
        );
    }
}
