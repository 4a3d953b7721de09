//! `enum` and `const` in a grammar: the values a schema lists, and which of them the rest of
//! the schema lets through (the type, or the other keywords compiled as a schema of their own).

use serde_json::{Map, Value};

use super::derive::{ANNOTATIONS, Deriver};
use super::expr::Expr;
use super::types::{type_names, value_types};
use crate::schema::pointer_push;
use crate::schema::walk::without;

/// `enum` / `const` as an alternation of their values, each written as serde_json writes it
/// (compact), keeping only the values the rest of the schema accepts.
pub(crate) fn literals(deriver: &mut Deriver<'_>, map: &Map<String, Value>, pointer: &str) -> Expr {
    let mut values: Vec<Value> = match map.get("enum") {
        Some(Value::Array(values)) => values.clone(),
        Some(_) => return deriver.invalid(&pointer_push(pointer, "enum"), "enum must be an array"),
        None => Vec::new(),
    };
    if let Some(constant) = map.get("const") {
        if map.contains_key("enum") {
            values.retain(|value| value == constant);
        } else {
            values = vec![constant.clone()];
        }
    }
    // The other keywords, as a schema of their own, decide which values can occur. Usually
    // that is only `type`, checked directly; otherwise a schema without references compiles
    // on its own, and with references the type check must do.
    let only_type = map.keys().all(|key| {
        matches!(
            key.as_str(),
            "type" | "enum" | "const" | "title" | "description" | "default" | "examples"
        ) || ANNOTATIONS.contains(&key.as_str())
    });
    let checker = if only_type {
        None
    } else {
        let rest = Value::Object(without(
            map,
            &[
                "enum",
                "const",
                "title",
                "description",
                "default",
                "examples",
            ],
        ));
        (!mentions_ref(&rest))
            .then(|| crate::schema::validator(&rest).ok())
            .flatten()
    };
    let mut alternatives = Vec::new();
    for value in values {
        let fits = match &checker {
            Some(checker) => checker.is_valid(&value),
            None => type_fits(map, &value),
        };
        if fits {
            let text = serde_json::to_string(&value).expect("a JSON value serializes");
            alternatives.push(Expr::lit(text));
        } else {
            deriver.note(
                pointer,
                Some(if map.contains_key("enum") { "enum" } else { "const" }),
                format!(
                    "the value {} never satisfies the rest of this schema, so the grammar leaves it out",
                    serde_json::to_string(&value).expect("a JSON value serializes")
                ),
            );
        }
    }
    match Expr::alt(alternatives) {
        Expr::Never => deriver.never(
            pointer,
            Some("enum"),
            "no allowed value satisfies the rest of the schema",
        ),
        expr => expr,
    }
}

fn mentions_ref(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.contains_key("$ref") || map.values().any(mentions_ref),
        Value::Array(items) => items.iter().any(mentions_ref),
        _ => false,
    }
}

fn type_fits(map: &Map<String, Value>, value: &Value) -> bool {
    match map.get("type") {
        None => true,
        Some(types) => {
            let allowed = type_names(types);
            value_types(value)
                .iter()
                .any(|name| allowed.iter().any(|allowed| allowed == name))
        }
    }
}
