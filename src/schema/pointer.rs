//! JSON Pointers (RFC 6901) and local `$ref`s: how a token is escaped into a pointer, how a
//! `$ref`'s URI fragment is decoded back into one (`%XX` escapes first, then `~1` and `~0`),
//! and how a reference is followed inside the schema it sits in.
//!
//! Every place that follows a `$ref` or writes a pointer goes through here, so a definition
//! whose name needs escaping (`#/$defs/a%20b`, `#/$defs/a~1b`) resolves the same way for
//! coercion, the missing-member list, the grammar and tool embedding.

use std::borrow::Cow;

use percent_encoding::percent_decode_str;
use serde_json::Value;

/// How many `$ref`s in a row are followed before a reference counts as unresolvable: a
/// schema may chain references, and a chain that loops must still end.
pub const REF_HOPS: usize = 32;

/// Appends one token to a JSON pointer, escaping `~` and `/` as RFC 6901 requires.
pub fn pointer_push(pointer: &str, token: &str) -> String {
    let mut out = String::with_capacity(pointer.len() + token.len() + 1);
    out.push_str(pointer);
    push_token(&mut out, token);
    out
}

/// Appends `/` and one escaped token to `pointer` in place.
pub(crate) fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    if !token.contains(['~', '/']) {
        pointer.push_str(token);
        return;
    }
    for ch in token.chars() {
        match ch {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            _ => pointer.push(ch),
        }
    }
}

/// One pointer token read back: `~1` is `/`, then `~0` is `~` (in that order, so `~01` is
/// `~1`).
pub(crate) fn unescape_token(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

/// The JSON pointer a local `$ref` names: the fragment after `#` with its `%XX` escapes
/// decoded. `None` for a reference that is not local (no leading `#`). A `%` that is not
/// followed by two hex digits stays as written; escapes that do not decode to UTF-8 leave the
/// fragment as written.
pub(crate) fn ref_pointer(reference: &str) -> Option<Cow<'_, str>> {
    let fragment = reference.strip_prefix('#')?;
    Some(decode_fragment(fragment))
}

/// A URI fragment with its `%XX` escapes decoded (the fragment as written when they do not
/// decode to UTF-8).
pub(crate) fn decode_fragment(fragment: &str) -> Cow<'_, str> {
    percent_decode_str(fragment)
        .decode_utf8()
        .unwrap_or(Cow::Borrowed(fragment))
}

/// The schema a local `$ref` points at inside `root`, one hop; `None` when the reference is
/// not local, names an anchor, or points at nothing.
pub(crate) fn resolve_ref<'s>(root: &'s Value, reference: &str) -> Option<&'s Value> {
    root.pointer(&ref_pointer(reference)?)
}

/// `schema` after following its local `$ref`s (at most [`REF_HOPS`] in a row): the first
/// schema on the way that is not an object with a string `$ref`. `None` when a reference does
/// not resolve or the chain is longer than the limit (a loop).
pub(crate) fn follow_refs<'s>(root: &'s Value, mut schema: &'s Value) -> Option<&'s Value> {
    for _ in 0..REF_HOPS {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(reference) => schema = resolve_ref(root, reference)?,
            None => return Some(schema),
        }
    }
    None
}

/// A pointer as a message shows it: the root pointer is the empty string, which reads badly.
pub fn display_pointer(pointer: &str) -> &str {
    if pointer.is_empty() {
        "(root)"
    } else {
        pointer
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn tokens_are_escaped_and_read_back() {
        assert_eq!(pointer_push("", "properties"), "/properties");
        assert_eq!(pointer_push("/properties", "a/b~c"), "/properties/a~1b~0c");
        let mut pointer = String::from("/x");
        push_token(&mut pointer, "~1");
        assert_eq!(pointer, "/x/~01");
        assert_eq!(unescape_token("~01"), "~1");
        assert_eq!(unescape_token("a~1b~0c"), "a/b~c");
        assert!(matches!(unescape_token("plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn fragments_are_percent_decoded() {
        assert_eq!(ref_pointer("#/$defs/a%20b").unwrap(), "/$defs/a b");
        assert_eq!(ref_pointer("#/$defs/caf%C3%A9").unwrap(), "/$defs/café");
        assert_eq!(ref_pointer("#").unwrap(), "");
        // Not an escape, and an escape that is not UTF-8: both stay as written.
        assert_eq!(ref_pointer("#/$defs/100%").unwrap(), "/$defs/100%");
        assert_eq!(ref_pointer("#/$defs/%zz").unwrap(), "/$defs/%zz");
        assert_eq!(ref_pointer("#/$defs/%FF").unwrap(), "/$defs/%FF");
        assert_eq!(ref_pointer("other.json#/a"), None);
    }

    #[test]
    fn references_resolve_with_escapes_and_hops() {
        let root = json!({
            "$defs": {
                "a b": {"type": "integer"},
                "c/d": {"$ref": "#/$defs/a%20b"},
                "loop": {"$ref": "#/$defs/loop"}
            }
        });
        assert_eq!(
            resolve_ref(&root, "#/$defs/a%20b"),
            Some(&json!({"type": "integer"}))
        );
        assert_eq!(
            resolve_ref(&root, "#/$defs/a b"),
            Some(&json!({"type": "integer"}))
        );
        assert_eq!(resolve_ref(&root, "#/$defs/missing"), None);
        assert_eq!(resolve_ref(&root, "#anchor"), None);
        assert_eq!(resolve_ref(&root, "#"), Some(&root));
        let chained = json!({"$ref": "#/$defs/c~1d"});
        assert_eq!(
            follow_refs(&root, &chained),
            Some(&json!({"type": "integer"}))
        );
        assert_eq!(follow_refs(&root, &json!({"$ref": "#/$defs/loop"})), None);
        assert_eq!(follow_refs(&root, &json!(true)), Some(&json!(true)));
    }

    #[test]
    fn the_root_pointer_is_named() {
        assert_eq!(display_pointer(""), "(root)");
        assert_eq!(display_pointer("/a"), "/a");
    }
}
