//! Putting one tool's argument schema inside the combined tool-call schema without breaking
//! its local references.
//!
//! A tool's `$ref: "#/$defs/Range"` means "Range in this tool's schema". Inside the combined
//! schema `#` is the combined root, so references are rewritten:
//! - when every local reference names a definition at the tool's root (`#/$defs/X...` or
//!   `#/definitions/X...`, the form nearly every generator writes), the definitions move to the
//!   combined root as `$defs/<tool>__X`, and the argument schema stays inline in its branch.
//!   This is the form every engine's JSON Schema support follows;
//! - otherwise (a reference to the tool's root, `#`, or into its properties), the whole tool
//!   schema moves to `$defs/<tool>` and the branch's `arguments` is `{"$ref": "#/$defs/<tool>"}`,
//!   with every reference prefixed to match.
//!
//! `<tool>` is the tool's name with anything outside `[A-Za-z0-9_-]` replaced by `_` (and a
//! number added if two names then collide), so the new references need no escaping.
//!
//! A root `$id` would make references resolve against itself rather than the combined schema,
//! so it is removed (and noted); a root `$schema` is removed here and decided once for the
//! combined schema by the caller.

use std::collections::HashSet;

use serde_json::Value;

use crate::schema::walk::{for_each_schema_mut, references, without};
use crate::schema::{Problem, decode_fragment, pointer_push, unescape_token};

/// One tool's schema, ready to go into the combined schema.
pub(crate) struct Embedded {
    /// What goes under the branch's `properties/arguments`.
    pub arguments: Value,
    /// Definitions to add to the combined root's `$defs`, by key.
    pub definitions: Vec<(String, Value)>,
    /// Where parts of the tool's schema now live: (pointer in the combined schema, pointer in
    /// the tool's own schema), for mapping notes back.
    pub origins: Vec<(String, String)>,
    /// What embedding changed that the caller should hear about.
    pub notes: Vec<Problem>,
}

/// Embeds `parameters` (the tool's schema) for a branch whose arguments live at
/// `arguments_pointer`; `key` is the tool's sanitised, unique key.
pub(crate) fn embed(parameters: &Value, key: &str, arguments_pointer: &str) -> Embedded {
    let mut schema = parameters.clone();
    let mut notes = Vec::new();
    if let Value::Object(map) = &mut schema {
        map.remove("$schema");
        if let Some(identifier) = map.remove("$id") {
            notes.push(Problem {
                pointer: String::new(),
                keyword: Some("$id".to_owned()),
                reason: format!(
                    "the schema's identifier {identifier} is removed in the combined schema, so its local references resolve against the tool's own schema as written"
                ),
            });
        }
    }
    let local: Vec<String> = references(&schema)
        .into_iter()
        .filter(|reference| reference.starts_with('#'))
        .collect();
    if let Some(hoisted) = hoist(&schema, &local, key, arguments_pointer) {
        return Embedded { notes, ..hoisted };
    }
    let prefix = format!("#/$defs/{key}");
    rewrite(&mut schema, &|reference| {
        reference
            .strip_prefix('#')
            .map(|fragment| format!("{prefix}{fragment}"))
    });
    Embedded {
        arguments: serde_json::json!({"$ref": prefix}),
        definitions: vec![(key.to_owned(), schema)],
        origins: vec![(pointer_push("/$defs", key), String::new())],
        notes,
    }
}

/// The inline form, when every local reference names a root definition; `None` otherwise.
fn hoist(schema: &Value, local: &[String], key: &str, arguments_pointer: &str) -> Option<Embedded> {
    let Value::Object(root) = schema else {
        return None;
    };
    let mut definitions: Vec<(String, String, Value)> = Vec::new();
    for container in ["$defs", "definitions"] {
        if let Some(Value::Object(members)) = root.get(container) {
            for (name, member) in members {
                definitions.push((container.to_owned(), name.clone(), member.clone()));
            }
        }
    }
    let defined: HashSet<(&str, &str)> = definitions
        .iter()
        .map(|(container, name, _)| (container.as_str(), name.as_str()))
        .collect();
    for reference in local {
        let (container, name, _) = split_definition_reference(reference)?;
        if !defined.contains(&(container, name.as_str())) {
            return None;
        }
    }
    // The same name in `$defs` and `definitions` would collide once both are in `$defs`.
    let mut names: Vec<&str> = definitions
        .iter()
        .map(|(_, name, _)| name.as_str())
        .collect();
    names.sort_unstable();
    if names.windows(2).any(|pair| pair[0] == pair[1]) {
        return None;
    }
    let rewrite_one = |reference: &str| -> Option<String> {
        let (_, _, encoded_and_rest) = split_definition_reference(reference)?;
        Some(format!("#/$defs/{key}__{encoded_and_rest}"))
    };
    let mut arguments = Value::Object(without(root, &["$defs", "definitions"]));
    rewrite(&mut arguments, &rewrite_one);
    let mut origins = vec![(arguments_pointer.to_owned(), String::new())];
    let mut moved = Vec::with_capacity(definitions.len());
    for (container, name, mut member) in definitions {
        rewrite(&mut member, &rewrite_one);
        let new_key = format!("{key}__{name}");
        origins.push((
            pointer_push("/$defs", &new_key),
            pointer_push(&pointer_push("", &container), &name),
        ));
        moved.push((new_key, member));
    }
    Some(Embedded {
        arguments,
        definitions: moved,
        origins,
        notes: Vec::new(),
    })
}

/// For `#/$defs/X/rest` (or `#/definitions/...`): the container, X decoded, and `X/rest` as
/// written (still encoded).
fn split_definition_reference(reference: &str) -> Option<(&str, String, &str)> {
    let fragment = reference.strip_prefix('#')?;
    for container in ["$defs", "definitions"] {
        let Some(tail) = fragment
            .strip_prefix('/')
            .and_then(|rest| rest.strip_prefix(container))
            .and_then(|rest| rest.strip_prefix('/'))
        else {
            continue;
        };
        let encoded = tail.split('/').next().unwrap_or_default();
        if encoded.is_empty() {
            return None;
        }
        return Some((container, decode_token(encoded), tail));
    }
    None
}

/// Decodes one JSON pointer token written in a URI fragment: `%XX` escapes, then `~1` and `~0`.
fn decode_token(encoded: &str) -> String {
    unescape_token(&decode_fragment(encoded)).into_owned()
}

fn rewrite(schema: &mut Value, change: &dyn Fn(&str) -> Option<String>) {
    for_each_schema_mut(schema, &mut |map| {
        if let Some(Value::String(reference)) = map.get_mut("$ref")
            && let Some(changed) = change(reference)
        {
            *reference = changed;
        }
    });
}

/// A key for `name` that needs no escaping in a reference: `[A-Za-z0-9_-]` only.
pub(crate) fn sanitised_key(name: &str) -> String {
    let key: String = name
        .chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '_' || ch == '-' {
                ch
            } else {
                '_'
            }
        })
        .collect();
    if key.is_empty() {
        "tool".to_owned()
    } else {
        key
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn root_definitions_are_hoisted_and_references_follow() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "range": {"$ref": "#/$defs/Range"},
                "old": {"$ref": "#/definitions/Old/properties/x"}
            },
            "$defs": {"Range": {"type": "object", "properties": {"start": {"$ref": "#/$defs/Line"}}}, "Line": {"type": "integer"}},
            "definitions": {"Old": {"properties": {"x": {"type": "string"}}}}
        });
        let embedded = embed(&schema, "edit", "/oneOf/0/properties/arguments");
        assert_eq!(
            embedded.arguments,
            json!({"type": "object", "properties": {
                "range": {"$ref": "#/$defs/edit__Range"},
                "old": {"$ref": "#/$defs/edit__Old/properties/x"}
            }})
        );
        let keys: Vec<&str> = embedded
            .definitions
            .iter()
            .map(|(key, _)| key.as_str())
            .collect();
        assert_eq!(keys, ["edit__Range", "edit__Line", "edit__Old"]);
        assert_eq!(
            embedded.definitions[0].1["properties"]["start"]["$ref"],
            "#/$defs/edit__Line"
        );
        assert!(
            embedded
                .origins
                .contains(&("/$defs/edit__Old".into(), "/definitions/Old".into()))
        );
        assert!(embedded.notes.is_empty());
    }

    #[test]
    fn a_reference_to_the_root_moves_the_whole_schema() {
        let schema = json!({
            "$id": "https://example.com/tree",
            "type": "object",
            "properties": {"children": {"type": "array", "items": {"$ref": "#"}}, "leaf": {"$ref": "#/$defs/Leaf"}},
            "$defs": {"Leaf": {"type": "string"}}
        });
        let embedded = embed(&schema, "tree", "/oneOf/1/properties/arguments");
        assert_eq!(embedded.arguments, json!({"$ref": "#/$defs/tree"}));
        let (key, moved) = &embedded.definitions[0];
        assert_eq!(key, "tree");
        assert_eq!(
            moved["properties"]["children"]["items"]["$ref"],
            "#/$defs/tree"
        );
        assert_eq!(
            moved["properties"]["leaf"]["$ref"],
            "#/$defs/tree/$defs/Leaf"
        );
        assert!(moved.get("$id").is_none());
        assert_eq!(embedded.notes[0].keyword.as_deref(), Some("$id"));
        assert_eq!(
            embedded.origins,
            [("/$defs/tree".to_owned(), String::new())]
        );
    }

    #[test]
    fn encoded_definition_names_survive() {
        let schema = json!({
            "properties": {"a": {"$ref": "#/$defs/a~1b%20c"}},
            "$defs": {"a/b c": {"type": "string"}}
        });
        let embedded = embed(&schema, "t", "/properties/arguments");
        assert_eq!(
            embedded.arguments["properties"]["a"]["$ref"],
            "#/$defs/t__a~1b%20c"
        );
        assert_eq!(embedded.definitions[0].0, "t__a/b c");
    }

    #[test]
    fn keys_need_no_escaping() {
        assert_eq!(sanitised_key("mcp.fs/read file"), "mcp_fs_read_file");
        assert_eq!(sanitised_key("read-file_2"), "read-file_2");
    }
}
