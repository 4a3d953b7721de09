//! Walking a JSON Schema and building its grammar: dispatch on `$ref`, `allOf`, `anyOf` /
//! `oneOf`, `enum` / `const` and `type`; the per-type rules live in [`super::types`], the
//! combination of subschemas in [`super::merge`], `enum` / `const` in [`super::literals`], and
//! the check that `oneOf` branches cannot overlap in [`super::overlap`].

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::GbnfError;
use super::builder::Builder;
use super::expr::Expr;
use super::shared::{RESERVED, Shared, Whitespace};
use super::{literals, merge, overlap};
use crate::schema::distinct::Distinct;
use crate::schema::pointer::ref_pointer;
use crate::schema::walk::without;
use crate::schema::{Problem, json_kind, pointer_push, resolve_ref, unescape_token};

/// How deep `allOf`, `$ref` siblings and merged branches may inline one another before the
/// walk gives up on a part of the schema.
const MAX_INLINE_DEPTH: u32 = 32;

/// Steps (a schema walked or two merged) a derivation may take per object or array in the
/// schema, and beyond that many in all. `allOf` branches that each inline `$ref`s holding more
/// `allOf`s multiply one another: one public schema (JSONSchemaBench `Github_ultra/o69206`, 424
/// objects and arrays) took more than a million steps and five minutes. The 400 schemas of the
/// benchmark's sample take at most 2.2 steps per object or array (bench/README.md).
const STEPS_PER_NODE: u64 = 20;
const MIN_STEPS: u64 = 20_000;

/// Keywords that describe a schema without constraining its instances.
pub(crate) const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "$dynamicAnchor",
    "$vocabulary",
    "$defs",
    "definitions",
    "readOnly",
    "writeOnly",
    "deprecated",
    "contentMediaType",
    "contentEncoding",
];

/// Keywords the walk turns into grammar (exactly, or with a note of its own).
const HANDLED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "patternProperties",
    "items",
    "prefixItems",
    "additionalItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "enum",
    "const",
    "anyOf",
    "oneOf",
    "allOf",
    "$ref",
    "dependencies",
    "dependentRequired",
];

/// Keywords no grammar expresses; each is reported where it occurs.
const INEXPRESSIBLE: &[(&str, &str)] = &[
    (
        "format",
        "formats are not translated into the grammar; checked when the output is validated",
    ),
    (
        "not",
        "a negated schema cannot be expressed in a grammar; the grammar ignores it and validation checks it",
    ),
    (
        "if",
        "conditional schemas cannot be expressed in a grammar; the grammar ignores them and validation checks them",
    ),
    (
        "then",
        "conditional schemas cannot be expressed in a grammar; the grammar ignores them and validation checks them",
    ),
    (
        "else",
        "conditional schemas cannot be expressed in a grammar; the grammar ignores them and validation checks them",
    ),
    (
        "contains",
        "the grammar does not require a matching item; validation checks it",
    ),
    (
        "minContains",
        "the grammar does not count matching items; validation checks it",
    ),
    (
        "maxContains",
        "the grammar does not count matching items; validation checks it",
    ),
    (
        "dependentSchemas",
        "dependencies between properties are not expressed by the grammar; validation checks them",
    ),
    (
        "unevaluatedProperties",
        "unevaluatedProperties is not expressed by the grammar; validation checks it",
    ),
    (
        "unevaluatedItems",
        "unevaluatedItems is not expressed by the grammar; validation checks it",
    ),
    (
        "contentSchema",
        "contentSchema is not expressed by the grammar",
    ),
];

/// A pattern's rule and whether the lengths beside it fall short or long of it, or why the
/// pattern has no rule, by the pattern, minLength and maxLength.
pub(crate) type PatternRules =
    HashMap<(String, u64, Option<u64>), Result<(Expr, bool, bool), String>>;

/// How the pointer a merged schema is walked under begins. A JSON pointer is empty or begins
/// with `/`, so such a pointer never names a place in the user's schema by mistake.
const MERGED: char = '#';

/// The state of one derivation.
pub(crate) struct Deriver<'schema> {
    pub root: &'schema Value,
    pub builder: Builder,
    pub shared: Shared,
    /// What the grammar approximates, each note once, in the order found.
    pub notes: Distinct<Problem>,
    /// Rules made for `$ref` targets, by the target's JSON pointer.
    refs: HashMap<String, usize>,
    /// The rules formats share (a date, a host name), by name, made on first use.
    pub format_rules: HashMap<&'static str, Expr>,
    /// Each pattern's rule (or why it has none), by the pattern and the length bounds beside
    /// it: a schema that repeats a pattern gets one rule for it.
    pub pattern_rules: PatternRules,
    /// The rule of the positive multiples of each step (or `None`: too many states), made on
    /// first use.
    pub multiple_rules: HashMap<u64, Option<Expr>>,
    /// Whether keywords beside `$ref` apply (drafts 2019-09 and later) or are ignored.
    ref_siblings_apply: bool,
    /// The first schema error found; the walk goes on but the derivation fails.
    pub error: Option<GbnfError>,
    /// Steps left before the derivation gives up (see [`STEPS_PER_NODE`]).
    steps_left: u64,
    /// The steps it started with.
    step_limit: u64,
    /// Where the parts of merged schemas come from: each merged schema is walked under a
    /// pointer of its own ([`MERGED`] and a number), and a path below it maps to the place in
    /// the user's schema its keyword was taken from (see [`Deriver::locate`]). A note then
    /// names that place, and the same keyword merged into many branches is one note.
    origins: HashMap<String, String>,
    /// Merged schemas made so far, which numbers the next one's pointer.
    merges: usize,
}

impl<'schema> Deriver<'schema> {
    pub fn new(root: &'schema Value, whitespace: Whitespace) -> Deriver<'schema> {
        let draft = root
            .get("$schema")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let step_limit = nodes(root).saturating_mul(STEPS_PER_NODE).max(MIN_STEPS);
        Deriver {
            root,
            builder: Builder::new(),
            shared: Shared::new(whitespace),
            notes: Distinct::new(),
            refs: HashMap::new(),
            format_rules: HashMap::new(),
            pattern_rules: HashMap::new(),
            multiple_rules: HashMap::new(),
            ref_siblings_apply: draft.contains("2019-09") || draft.contains("2020-12"),
            error: None,
            steps_left: step_limit,
            step_limit,
            origins: HashMap::new(),
            merges: 0,
        }
    }

    /// Takes one step at `pointer`; `false` once the steps are spent (the derivation then
    /// fails as too complex, and the walk stops where it is).
    pub fn step(&mut self, pointer: &str) -> bool {
        if self.steps_left == 0 {
            return false;
        }
        self.steps_left -= 1;
        if self.steps_left == 0 && self.error.is_none() {
            self.error = Some(GbnfError::TooComplex {
                pointer: self.locate(pointer),
                steps: self.step_limit,
            });
        }
        self.steps_left > 0
    }

    /// A new pointer to walk a merged schema under; `whole` is the place that stands for the
    /// merged schema as a whole (where a note about none of its keywords goes).
    pub fn merged_pointer(&mut self, whole: &str) -> String {
        self.merges += 1;
        let pointer = format!("{MERGED}{}", self.merges);
        self.origins.insert(pointer.clone(), whole.to_owned());
        pointer
    }

    /// Records that `path` (below a pointer from [`Self::merged_pointer`]) was taken from
    /// `origin`. The origin is kept as it is, not located yet: it may lie inside a part of an
    /// earlier merged schema (an `allOf` of two properties) whose own parts are recorded
    /// below it.
    pub fn set_origin(&mut self, path: String, origin: String) {
        self.origins.insert(path, origin);
    }

    /// The place in the user's schema that `path` stands for: itself, unless it lies below a
    /// merged schema's pointer; then the origin of its longest recorded prefix, followed by
    /// the rest of the path, located in turn. Origins only name earlier merged schemas, so
    /// this ends.
    pub fn locate(&self, path: &str) -> String {
        let mut path = path.to_owned();
        while path.starts_with(MERGED) {
            let mut end = path.len();
            let origin = loop {
                if let Some(origin) = self.origins.get(&path[..end]) {
                    break origin;
                }
                match path[..end].rfind('/') {
                    Some(slash) => end = slash,
                    None => return path,
                }
            };
            path = format!("{origin}{}", &path[end..]);
        }
        path
    }

    /// Whether `dependentRequired` applies: the validator knows it from draft 2019-09 on (the
    /// drafts where keywords beside `$ref` apply too), and ignores it in draft-07.
    pub fn dependent_required_applies(&self) -> bool {
        self.ref_siblings_apply
    }

    /// Builds `root ::= ws <value> ws`.
    pub fn run(&mut self) {
        // A schema that refers to itself as a whole needs its value in a rule of its own.
        let value = if refers_to_root(self.root) {
            let index = self.builder.declare("document", RESERVED);
            self.refs.insert(String::new(), index);
            let body = self.value(self.root, "", "document", 0);
            self.builder.define(index, body);
            Expr::Ref(index)
        } else {
            self.value(self.root, "", "root", 0)
        };
        let ws = self.rule("ws");
        self.builder.define(0, Expr::seq([ws.clone(), value, ws]));
    }

    /// A shared rule.
    pub fn rule(&mut self, name: &'static str) -> Expr {
        self.shared.rule(&mut self.builder, name)
    }

    /// Records a note, at the place in the user's schema its keyword was taken from.
    pub fn note(&mut self, pointer: &str, keyword: Option<&str>, reason: impl Into<String>) {
        let (pointer, keyword) = match keyword {
            Some(keyword) if pointer.starts_with(MERGED) => {
                // The keyword's own origin; merged `enum`s can come from a `const`.
                let located = self.locate(&pointer_push(pointer, keyword));
                match located.rsplit_once('/') {
                    Some((place, token)) => {
                        (place.to_owned(), Some(unescape_token(token).into_owned()))
                    }
                    None => (self.locate(pointer), Some(keyword.to_owned())),
                }
            }
            _ => (self.locate(pointer), keyword.map(str::to_owned)),
        };
        let problem = Problem {
            pointer,
            keyword,
            reason: reason.into(),
        };
        self.notes.insert(problem);
    }

    /// Records that the schema at `pointer` accepts no value, and returns `Never`.
    pub fn never(&mut self, pointer: &str, keyword: Option<&str>, reason: &str) -> Expr {
        // A merged schema's note lands on one of its parts, which may accept values on its
        // own: the note must not say that part is empty.
        let reason = if pointer.starts_with(MERGED) {
            format!(
                "{reason}: combined with the schemas merged with it here, no value satisfies this schema, so the grammar leaves it out"
            )
        } else {
            format!("{reason}: no value satisfies this schema, so the grammar leaves it out")
        };
        self.note(pointer, keyword, reason);
        Expr::Never
    }

    /// Records a schema error (the derivation will fail) and returns `Never`.
    pub fn invalid(&mut self, pointer: &str, reason: impl Into<String>) -> Expr {
        if self.error.is_none() {
            self.error = Some(GbnfError::InvalidSchema {
                pointer: self.locate(pointer),
                reason: reason.into(),
            });
        }
        Expr::Never
    }

    /// Moves `expr` into a rule named after `hint` unless it is already short.
    pub fn named(&mut self, expr: Expr, hint: &str) -> Expr {
        match expr {
            Expr::Never | Expr::Empty | Expr::Literal(_) | Expr::Class(_) | Expr::Ref(_) => expr,
            expr => {
                let index = self.builder.declare(hint, RESERVED);
                self.builder.define(index, expr);
                Expr::Ref(index)
            }
        }
    }

    /// The grammar of the values `schema` accepts (without surrounding whitespace).
    pub fn value(&mut self, schema: &Value, pointer: &str, hint: &str, depth: u32) -> Expr {
        match schema {
            Value::Bool(true) => self.rule("value"),
            Value::Bool(false) => self.never(pointer, None, "the schema is `false`"),
            Value::Object(map) => self.schema_map(map, pointer, hint, depth),
            other => self.invalid(
                pointer,
                format!(
                    "a schema must be an object or a boolean, not {}",
                    json_kind(other)
                ),
            ),
        }
    }

    fn schema_map(
        &mut self,
        map: &Map<String, Value>,
        pointer: &str,
        hint: &str,
        depth: u32,
    ) -> Expr {
        if !self.step(pointer) {
            return Expr::Never;
        }
        if depth > MAX_INLINE_DEPTH {
            self.note(
                pointer,
                None,
                "allOf, $ref siblings or combined branches nest too deeply here; the grammar allows any value",
            );
            return self.rule("value");
        }
        if let Some(reference) = map.get("$ref") {
            return self.reference_with_siblings(map, reference, pointer, hint, depth);
        }
        if let Some(all_of) = map.get("allOf") {
            let Some(branches) = all_of.as_array() else {
                return self.invalid(&pointer_push(pointer, "allOf"), "allOf must be an array");
            };
            let mut merged = without(map, &["allOf"]);
            let mut merged_at = pointer.to_owned();
            for (index, branch) in branches.iter().enumerate() {
                let branch_pointer =
                    pointer_push(&pointer_push(pointer, "allOf"), &index.to_string());
                let sides = merge::Sides {
                    base_at: &merged_at,
                    extra_at: &branch_pointer,
                    whole_at: pointer,
                };
                match merge::merge(self, &merged, branch, &sides, depth) {
                    Some((next, next_at)) => (merged, merged_at) = (next, next_at),
                    None => return Expr::Never,
                }
            }
            return self.schema_map(&merged, &merged_at, hint, depth + 1);
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(branches) = map.get(keyword) {
                return self.alternatives(map, keyword, branches, pointer, hint, depth);
            }
        }
        self.audit(map, pointer);
        if map.contains_key("enum") || map.contains_key("const") {
            return literals::literals(self, map, pointer);
        }
        super::types::typed(self, map, pointer, hint, depth)
    }

    /// `$ref`, and the keywords beside it: ignored before draft 2019-09, applied after.
    fn reference_with_siblings(
        &mut self,
        map: &Map<String, Value>,
        reference: &Value,
        pointer: &str,
        hint: &str,
        depth: u32,
    ) -> Expr {
        let Some(reference) = reference.as_str() else {
            return self.invalid(&pointer_push(pointer, "$ref"), "$ref must be a string");
        };
        let constraining: Vec<&String> = map
            .keys()
            .filter(|key| *key != "$ref" && !ANNOTATIONS.contains(&key.as_str()))
            .collect();
        if constraining.is_empty() {
            return self.reference(reference, pointer);
        }
        if !self.ref_siblings_apply {
            self.note(
                pointer,
                Some("$ref"),
                "keywords beside $ref are ignored in draft-07 (the draft this schema is read in), so the grammar ignores them too",
            );
            return self.reference(reference, pointer);
        }
        let Some((target, target_pointer)) = self.target(reference, pointer) else {
            return self.rule("value");
        };
        let target_pointer = target_pointer.into_owned();
        let rest = without(map, &["$ref"]);
        let sides = merge::Sides {
            base_at: pointer,
            extra_at: &target_pointer,
            whole_at: pointer,
        };
        match merge::merge(self, &rest, target, &sides, depth) {
            Some((merged, merged_at)) => self.schema_map(&merged, &merged_at, hint, depth + 1),
            None => Expr::Never,
        }
    }

    /// The schema a local `$ref` points at, and its decoded JSON pointer, or `None` (with a
    /// note or an error).
    pub fn target<'r>(
        &mut self,
        reference: &'r str,
        pointer: &str,
    ) -> Option<(&'schema Value, Cow<'r, str>)> {
        let here = pointer_push(pointer, "$ref");
        let Some(target_pointer) = ref_pointer(reference) else {
            self.note(
                &here,
                Some("$ref"),
                "only references inside the schema (`#/...`) are followed; the grammar allows any value here",
            );
            return None;
        };
        if !target_pointer.is_empty() && !target_pointer.starts_with('/') {
            self.note(
                &here,
                Some("$ref"),
                "anchors are not followed; the grammar allows any value here",
            );
            return None;
        }
        match self.root.pointer(&target_pointer) {
            Some(target) => Some((target, target_pointer)),
            None => {
                self.invalid(
                    &here,
                    format!("$ref `{reference}` does not point into the schema"),
                );
                None
            }
        }
    }

    /// The schema a local `$ref` points at, without notes or errors.
    pub fn lookup(&self, reference: &str) -> Option<&'schema Value> {
        resolve_ref(self.root, reference)
    }

    /// A rule for the target of `reference`, made once per target (so recursion works).
    fn reference(&mut self, reference: &str, pointer: &str) -> Expr {
        let Some((target, target_pointer)) = self.target(reference, pointer) else {
            return if self.error.is_some() {
                Expr::Never
            } else {
                self.rule("value")
            };
        };
        if let Some(&index) = self.refs.get(target_pointer.as_ref()) {
            return Expr::Ref(index);
        }
        let target_pointer = target_pointer.into_owned();
        let hint = target_pointer
            .rsplit('/')
            .next()
            .filter(|token| !token.is_empty())
            .map_or_else(
                || "document".to_owned(),
                |token| unescape_token(token).into_owned(),
            );
        let index = self.builder.declare(&hint, RESERVED);
        self.refs.insert(target_pointer.clone(), index);
        let body = self.value(target, &target_pointer, &hint, 0);
        self.builder.define(index, body);
        Expr::Ref(index)
    }

    /// `anyOf` / `oneOf`: an alternation of the branches, each combined with the keywords
    /// beside it.
    fn alternatives(
        &mut self,
        map: &Map<String, Value>,
        keyword: &str,
        branches: &Value,
        pointer: &str,
        hint: &str,
        depth: u32,
    ) -> Expr {
        let here = pointer_push(pointer, keyword);
        let Some(branches) = branches.as_array() else {
            return self.invalid(&here, format!("{keyword} must be an array"));
        };
        let rest = without(map, &[keyword]);
        let combine = rest.keys().any(|key| !ANNOTATIONS.contains(&key.as_str()));
        let mut nonempty: Vec<Value> = Vec::new();
        if keyword == "oneOf" && !overlap::pairwise_disjoint(self, branches, !combine) {
            let apart = if combine {
                None
            } else {
                overlap::arrays_apart(self, branches)
            };
            match apart {
                // Arrays whose items no two branches share overlap only on `[]`: when two
                // branches accept it, it matches several and so none, and every branch
                // needs an item.
                Some(arrays) => {
                    if arrays.iter().filter(|(_, fewest)| *fewest == 0).count() >= 2 {
                        nonempty = arrays
                            .into_iter()
                            .map(|(mut map, _)| {
                                map.insert("minItems".to_owned(), Value::from(1));
                                Value::Object(map)
                            })
                            .collect();
                    }
                }
                None => self.note(
                    pointer,
                    Some("oneOf"),
                    "oneOf is derived as anyOf: a value that matches several branches passes the grammar and fails validation",
                ),
            }
        }
        let branches = if nonempty.is_empty() {
            branches
        } else {
            &nonempty
        };
        let mut alternatives = Vec::with_capacity(branches.len());
        for (index, branch) in branches.iter().enumerate() {
            let branch_pointer = pointer_push(&here, &index.to_string());
            let branch_hint = format!("{hint}-{index}");
            let expr = if combine {
                let sides = merge::Sides {
                    base_at: pointer,
                    extra_at: &branch_pointer,
                    whole_at: &branch_pointer,
                };
                match merge::merge(self, &rest, branch, &sides, depth) {
                    Some((merged, merged_at)) => {
                        self.schema_map(&merged, &merged_at, &branch_hint, depth + 1)
                    }
                    None => Expr::Never,
                }
            } else {
                self.value(branch, &branch_pointer, &branch_hint, depth)
            };
            alternatives.push(expr);
        }
        let expr = Expr::alt(alternatives);
        if expr == Expr::Never && !branches.is_empty() {
            return self.never(pointer, Some(keyword), "no branch accepts a value");
        }
        if branches.is_empty() {
            return self.invalid(&here, format!("{keyword} must not be empty"));
        }
        expr
    }

    /// Notes for the keywords of `map` that the grammar does not express.
    fn audit(&mut self, map: &Map<String, Value>, pointer: &str) {
        for key in map.keys() {
            let key = key.as_str();
            if key == "format"
                && let Some((_, note)) = super::formats::generated(map)
            {
                if let Some(reason) = note {
                    self.note(pointer, Some(key), reason);
                }
            } else if let Some((_, reason)) = INEXPRESSIBLE.iter().find(|(known, _)| *known == key)
            {
                self.note(pointer, Some(key), *reason);
            } else if !HANDLED.contains(&key) && !ANNOTATIONS.contains(&key) {
                self.note(
                    pointer,
                    Some(key),
                    "not a keyword the grammar knows; ignored (validation applies it if the validator knows it)",
                );
            }
        }
    }
}

/// Whether any `$ref` in the schema points at the whole schema (`#`).
fn refers_to_root(schema: &Value) -> bool {
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(map) => {
                if map.get("$ref").and_then(Value::as_str) == Some("#") {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
}

/// The objects and arrays in `schema`, counted without recursion.
fn nodes(schema: &Value) -> u64 {
    let mut count = 0;
    let mut pending = vec![schema];
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(map) => {
                count += 1;
                pending.extend(map.values());
            }
            Value::Array(items) => {
                count += 1;
                pending.extend(items);
            }
            _ => {}
        }
    }
    count
}
