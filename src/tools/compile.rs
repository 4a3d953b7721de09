//! Compiling a tool set and a `tool_choice` into one constraint: the JSON Schema of a call, its
//! GBNF (derived from that schema by [`crate::schema::gbnf::derive`], the one source of
//! truth), and notes on what the grammar could not express, per tool and JSON pointer.
//!
//! A call is `{"name": <tool name>, "arguments": <that tool's arguments>}`. Each tool is one
//! branch `{"type": "object", "properties": {"name": {"const": N}, "arguments": <schema>},
//! "required": ["name", "arguments"], "additionalProperties": false}`, and several branches
//! are a `oneOf`. The `const` on a required `name` makes the branches mutually exclusive, so
//! `oneOf` and `anyOf` accept the same calls and the grammar is exact about which arguments go
//! with which name.
//!
//! The compiled form is built from the canonical form (see [`super::canonical`]): tools sorted
//! by name, schema keys sorted except the order of properties. Equal keys therefore mean equal
//! constraints, byte for byte, which is what lets a fleet share them.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::canonical::{
    canonical_schema, content_address, write_schema, write_string, write_value,
};
use super::embed::{embed, sanitised_key};
use super::{CompileError, CompileOptions, ToolChoice, ToolSet};
use crate::schema::{Problem, gbnf, pointer_push};

/// Version of the compiled form; part of every key, so a change to how tools compile never
/// reuses a constraint compiled the old way.
const FORMAT: &str = "slmcode.tools.v1";

/// What the policy decided for this `tool_choice`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// `none`: the tools are not sent and nothing is constrained.
    NoTools,
    /// Sent without a constraint; a call the model writes as text is extracted afterwards:
    /// `auto` whose call-or-answer union could not be compiled.
    Unconstrained,
    /// The output is constrained to the branches (and the answer shape, when there is one).
    Constrained,
    /// `auto` without an answer shape: one call, or text that does not open with `{`. Only a
    /// grammar says that; under any other mechanism the request goes unconstrained and a call
    /// written as text is extracted.
    CallOrText,
}

impl Policy {
    /// The policy's name in `--json` output.
    pub const fn as_str(self) -> &'static str {
        match self {
            Policy::NoTools => "no_tools",
            Policy::Unconstrained => "unconstrained",
            Policy::Constrained => "constrained",
            Policy::CallOrText => "call_or_text",
        }
    }
}

/// Something about one tool's schema the constraint could not take as written, and what was
/// done instead.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ToolNote {
    /// The tool the note is about; `None` for the combined schema as a whole.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// JSON pointer into that tool's argument schema as written (into the combined schema when
    /// there is no tool).
    pub pointer: String,
    /// The keyword concerned, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keyword: Option<String>,
    /// What could not be expressed and how it was projected.
    pub reason: String,
}

impl std::fmt::Display for ToolNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(tool) = &self.tool {
            write!(f, "{tool}: ")?;
        }
        let problem = Problem {
            pointer: self.pointer.clone(),
            keyword: self.keyword.clone(),
            reason: self.reason.clone(),
        };
        write!(f, "{problem}")
    }
}

/// A compiled tool set: the constraint one turn carries, and what it leaves out.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompiledTools {
    /// The content address of (canonical tools, choice, answer shape): equal keys, equal
    /// constraints.
    pub key: String,
    /// The `tool_choice` it was compiled for.
    pub choice: ToolChoice,
    /// What the policy decided.
    pub policy: Policy,
    /// Why, in one sentence.
    pub reason: String,
    /// The tools a constrained call may name, in the constraint's order (by name).
    pub branches: Vec<String>,
    /// The plain-answer shape that is the alternative to a call, when there is one.
    pub answer: Option<Value>,
    /// The JSON Schema of the output; `None` when nothing is constrained, and under
    /// call-or-text, which no JSON Schema can say.
    pub schema: Option<Value>,
    /// The GBNF derived from `schema`; `None` when nothing is constrained.
    pub grammar: Option<String>,
    /// What the grammar (or the combination) could not express, per tool and pointer.
    pub notes: Vec<ToolNote>,
    /// Where each tool's parts are in `schema`, for mapping later notes (projection) back.
    #[serde(skip)]
    pub(crate) origins: Origins,
}

/// One tool in canonical form.
pub(crate) struct CanonicalTool {
    pub name: String,
    pub parameters: Value,
    pub declared_draft: Option<String>,
}

/// The content address of compiling `tools` for `options`: the SHA-256 of the canonical
/// document `{"answer", "choice", "format", "tools": [{"name", "parameters"}, ...]}` (keys
/// sorted, tools sorted by name), written directly from the tool set.
pub(crate) fn key_of(tools: &ToolSet, options: &CompileOptions) -> String {
    let mut sorted: Vec<&super::Tool> = tools.tools().iter().collect();
    sorted.sort_unstable_by(|a, b| a.name.cmp(&b.name));
    let mut text = Vec::with_capacity(16 * 1024);
    text.extend_from_slice(br#"{"answer":"#);
    match (&options.choice, &options.answer) {
        // The answer shape only means something under `auto`.
        (ToolChoice::Auto, Some(answer)) => write_schema(answer, &mut text),
        _ => text.extend_from_slice(b"null"),
    }
    text.extend_from_slice(br#","choice":"#);
    write_value(&options.choice.canonical(), &mut text);
    text.extend_from_slice(br#","format":"#);
    write_string(FORMAT, &mut text);
    text.extend_from_slice(br#","tools":["#);
    for (index, tool) in sorted.iter().enumerate() {
        if index > 0 {
            text.push(b',');
        }
        text.extend_from_slice(br#"{"name":"#);
        write_string(&tool.name, &mut text);
        text.extend_from_slice(br#","parameters":"#);
        write_schema(&tool.parameters, &mut text);
        text.push(b'}');
    }
    text.push(b']');
    // Present only when compact, so that the keys of the pretty default stay what they were.
    if options.whitespace == gbnf::Whitespace::Compact {
        text.extend_from_slice(br#","whitespace":"compact""#);
    }
    text.push(b'}');
    content_address(&text)
}

/// The tools in canonical form, sorted by name: what a compilation is built from.
pub(crate) fn canonical_tools(tools: &ToolSet) -> Vec<CanonicalTool> {
    let mut canonical: Vec<CanonicalTool> = tools
        .tools()
        .iter()
        .map(|tool| CanonicalTool {
            name: tool.name.clone(),
            parameters: canonical_schema(&tool.parameters),
            declared_draft: tool
                .parameters
                .get("$schema")
                .and_then(Value::as_str)
                .map(str::to_owned),
        })
        .collect();
    canonical.sort_by(|a, b| a.name.cmp(&b.name));
    canonical
}

/// Compiles without the cache.
pub(crate) fn compile_canonical(
    tools: &[CanonicalTool],
    options: &CompileOptions,
    key: String,
) -> Result<CompiledTools, CompileError> {
    let names: Vec<String> = tools.iter().map(|tool| tool.name.clone()).collect();
    let (policy, reason, selected): (Policy, String, Vec<&CanonicalTool>) = match &options.choice {
        ToolChoice::None => (
            Policy::NoTools,
            "tool_choice none: the tools are not sent and the output is not constrained".to_owned(),
            Vec::new(),
        ),
        ToolChoice::Auto if options.answer.is_none() => (
            Policy::CallOrText,
            "tool_choice auto: the output is one tool call or a plain-text answer; a grammar constrains the call and leaves the text free, any other mechanism leaves both free and a call written as text is extracted".to_owned(),
            tools.iter().collect(),
        ),
        ToolChoice::Auto => (
            Policy::Constrained,
            "tool_choice auto with an answer shape: the output is either one tool call or the plain answer".to_owned(),
            tools.iter().collect(),
        ),
        ToolChoice::Required => (
            Policy::Constrained,
            "tool_choice required: the output is one call to any of the tools".to_owned(),
            tools.iter().collect(),
        ),
        ToolChoice::Tool(name) => {
            let Some(tool) = tools.iter().find(|tool| &tool.name == name) else {
                return Err(CompileError::UnknownTool {
                    name: name.clone(),
                    known: names,
                });
            };
            (
                Policy::Constrained,
                format!("tool_choice names {name}: the output is one call to it"),
                vec![tool],
            )
        }
    };
    let answer = match (&options.choice, &options.answer) {
        (ToolChoice::Auto, Some(answer)) => Some(check_answer(answer)?),
        _ => None,
    };
    if policy == Policy::NoTools {
        return Ok(unconstrained(key, options.choice.clone(), policy, reason));
    }
    let constrained = constrain(&selected, answer.as_ref(), policy, options.whitespace);
    match constrained {
        Err(error) if policy == Policy::CallOrText => {
            // Without a grammar for the calls, `auto` loses only the hold on a call's shape:
            // the answer is free either way, and extraction reads a call written as text.
            let reason = format!(
                "tool_choice auto: the calls have no grammar ({error}), so the request goes unconstrained and calls written as text are extracted"
            );
            Ok(unconstrained(
                key,
                options.choice.clone(),
                Policy::Unconstrained,
                reason,
            ))
        }
        Err(error) => Err(error),
        Ok(constrained) => Ok(CompiledTools {
            key,
            choice: options.choice.clone(),
            policy,
            reason,
            branches: selected.iter().map(|tool| tool.name.clone()).collect(),
            answer,
            // No JSON Schema says "a call or text": call-or-text is a grammar only.
            schema: (policy != Policy::CallOrText).then_some(constrained.schema),
            grammar: Some(constrained.grammar),
            notes: constrained.notes,
            origins: constrained.origins,
        }),
    }
}

/// A compilation that constrains nothing.
pub(crate) fn unconstrained(
    key: String,
    choice: ToolChoice,
    policy: Policy,
    reason: String,
) -> CompiledTools {
    CompiledTools {
        key,
        choice,
        policy,
        reason,
        branches: Vec::new(),
        answer: None,
        schema: None,
        grammar: None,
        notes: Vec::new(),
        origins: Origins::default(),
    }
}

/// The schema, grammar and notes of a constraint over `selected` (and `answer`).
struct Constrained {
    schema: Value,
    grammar: String,
    notes: Vec<ToolNote>,
    origins: Origins,
}

fn constrain(
    selected: &[&CanonicalTool],
    answer: Option<&Value>,
    policy: Policy,
    whitespace: gbnf::Whitespace,
) -> Result<Constrained, CompileError> {
    let assembled = assemble(selected, answer);
    let derived = gbnf::derive_with(&assembled.schema, whitespace)
        .map_err(|error| grammar_error(error, &assembled.origins))?;
    // A branch the grammar had to leave out is a tool that can never be called: an error, not
    // a note, since the caller would otherwise offer the model a tool it cannot use.
    let dropped_branches: HashSet<&str> = derived
        .notes
        .iter()
        .filter(|note| note.keyword.as_deref() == Some("required"))
        .map(|note| note.pointer.as_str())
        .collect();
    for (tool, branch_pointer) in selected.iter().zip(&assembled.branch_pointers) {
        if dropped_branches.contains(branch_pointer.as_str()) {
            return Err(unsatisfiable(
                &tool.name,
                &derived.notes,
                &assembled.origins,
            ));
        }
    }
    let mut notes = assembled.notes;
    let mut seen: HashSet<ToolNote> = notes.iter().cloned().collect();
    for note in &derived.notes {
        // The branches are exclusive by construction (a required `name` const per tool, and an
        // answer that requires a member no call has), whatever a cheap overlap check says.
        if note.keyword.as_deref() == Some("oneOf") && note.pointer.is_empty() {
            continue;
        }
        let mapped = map_note(note, &assembled.origins);
        if seen.insert(mapped.clone()) {
            notes.push(mapped);
        }
    }
    let grammar = match policy {
        Policy::CallOrText => with_text_branch(&derived.grammar),
        _ => derived.grammar.clone(),
    };
    Ok(Constrained {
        schema: assembled.schema,
        grammar,
        notes,
        origins: assembled.origins,
    })
}

/// The body of the text rule: one character other than `{` or whitespace, then anything.
const TEXT_RULE: &str = "[^{ \\t\\r\\n] [^\\x00]*";

/// A grammar of text alone, as the text branch of call-or-text: what a re-ask after a repeated
/// call sends, when the answer must come from results the model already has.
pub const TEXT_GRAMMAR: &str = "root ::= [^{ \\t\\r\\n] [^\\x00]*\n";

/// `grammar` (rooted at `root`) as the call branch of a grammar whose other branch is text:
/// anything that opens with a character other than `{` or whitespace, so that a model that
/// starts a JSON object is held to a well-formed call and a model that starts a sentence is
/// free. The text branch needs one character: an empty answer is not one of the choices.
fn with_text_branch(grammar: &str) -> String {
    let call = unused_name(grammar, "tool-call");
    let text = unused_name(grammar, "answer-text");
    let mut combined = String::with_capacity(grammar.len() + 96);
    combined.push_str(&format!(
        "root ::= {call} | {text}\n{text} ::= {TEXT_RULE}\n"
    ));
    combined.push_str(&rename_rule(grammar, "root", &call));
    combined
}

/// `name`, or `name-2`, `name-3`, ...: the first that does not occur in `grammar` at all.
fn unused_name(grammar: &str, name: &str) -> String {
    let mut candidate = name.to_owned();
    let mut counter = 2;
    while grammar.contains(&candidate) {
        candidate = format!("{name}-{counter}");
        counter += 1;
    }
    candidate
}

/// `grammar` with every reference to and definition of the rule `from` renamed `to`; names
/// inside literals, character classes and comments are left as they are.
fn rename_rule(grammar: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(grammar.len() + 64);
    let mut chars = grammar.char_indices().peekable();
    let is_name = |ch: char| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_';
    while let Some((start, ch)) = chars.next() {
        match ch {
            '"' | '[' => {
                let close = if ch == '"' { '"' } else { ']' };
                out.push(ch);
                while let Some((_, inner)) = chars.next() {
                    out.push(inner);
                    if inner == '\\' {
                        if let Some((_, escaped)) = chars.next() {
                            out.push(escaped);
                        }
                    } else if inner == close {
                        break;
                    }
                }
            }
            '#' => {
                out.push(ch);
                for (_, inner) in chars.by_ref() {
                    out.push(inner);
                    if inner == '\n' {
                        break;
                    }
                }
            }
            ch if is_name(ch) => {
                let mut end = start + ch.len_utf8();
                while let Some(&(at, next)) = chars.peek() {
                    if !is_name(next) {
                        break;
                    }
                    end = at + next.len_utf8();
                    chars.next();
                }
                let name = &grammar[start..end];
                out.push_str(if name == from { to } else { name });
            }
            other => out.push(other),
        }
    }
    out
}

/// The default plain-answer shape: `{"answer": "<text>"}`.
pub fn default_answer() -> Value {
    json!({
        "type": "object",
        "properties": {"answer": {"type": "string"}},
        "required": ["answer"],
        "additionalProperties": false
    })
}

/// An answer shape must be an object that no call can satisfy: it must require a member other
/// than `name` and `arguments` (a call never has one, since its branches are closed).
fn check_answer(answer: &Value) -> Result<Value, CompileError> {
    let problem = |reason: &str| CompileError::AnswerShape {
        reason: reason.to_owned(),
    };
    let Value::Object(map) = answer else {
        return Err(problem("the answer shape must be a JSON Schema object"));
    };
    match map.get("type") {
        Some(Value::String(name)) if name == "object" => {}
        _ => return Err(problem("the answer shape must have \"type\": \"object\"")),
    }
    let distinct = map
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|names| {
            names
                .iter()
                .filter_map(Value::as_str)
                .any(|name| name != "name" && name != "arguments")
        });
    if !distinct {
        return Err(problem(
            "the answer shape must require a member other than `name` and `arguments`, so that no tool call can also be read as an answer",
        ));
    }
    crate::schema::validator(answer)
        .map_err(|error| problem(&format!("not a valid JSON Schema: {error}")))?;
    Ok(canonical_schema(answer))
}

/// The combined schema, where each tool's parts ended up, and notes from combining.
struct Assembled {
    schema: Value,
    /// The pointer of each tool's branch, in the order of the tools.
    branch_pointers: Vec<String>,
    origins: Origins,
    notes: Vec<ToolNote>,
}

/// A part of one tool's schema inside the combined schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Origin {
    tool: String,
    combined: String,
    original: String,
}

/// Every tool's parts in the combined schema, indexed by their pointer there, so that a note
/// is traced back to its tool in time proportional to its pointer's depth, not to the number
/// of tools.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Origins {
    list: Vec<Origin>,
    /// Position in `list` by `combined` (the last, for a pointer given twice).
    by_combined: HashMap<String, usize>,
}

impl Origins {
    fn push(&mut self, origin: Origin) {
        self.by_combined
            .insert(origin.combined.clone(), self.list.len());
        self.list.push(origin);
    }

    /// The origin with the longest `combined` pointer that is `pointer` or a parent of it.
    fn innermost(&self, pointer: &str) -> Option<&Origin> {
        let parents = pointer
            .char_indices()
            .rev()
            .filter(|&(_, ch)| ch == '/')
            .map(|(end, _)| &pointer[..end]);
        std::iter::once(pointer)
            .chain(parents)
            .find_map(|candidate| self.by_combined.get(candidate))
            .map(|&position| &self.list[position])
    }
}

fn assemble(tools: &[&CanonicalTool], answer: Option<&Value>) -> Assembled {
    let single = tools.len() == 1 && answer.is_none();
    let mut used_keys: HashSet<String> = HashSet::new();
    let mut branches = Vec::with_capacity(tools.len() + 1);
    let mut definitions = Map::new();
    let mut origins = Origins::default();
    let mut notes = Vec::new();
    let mut branch_pointers = Vec::with_capacity(tools.len());
    let drafts: HashSet<&str> = tools
        .iter()
        .filter_map(|tool| tool.declared_draft.as_deref())
        .collect();
    let common_draft = (drafts.len() == 1).then(|| *drafts.iter().next().expect("one draft"));
    for (index, tool) in tools.iter().enumerate() {
        let branch_pointer = if single {
            String::new()
        } else {
            pointer_push("/oneOf", &index.to_string())
        };
        let arguments_pointer = format!("{branch_pointer}/properties/arguments");
        branch_pointers.push(branch_pointer.clone());
        let mut key = sanitised_key(&tool.name);
        let mut counter = 2;
        while !used_keys.insert(key.clone()) {
            key = format!("{}-{counter}", sanitised_key(&tool.name));
            counter += 1;
        }
        let embedded = embed(&tool.parameters, &key, &arguments_pointer);
        if drafts.len() > 1
            && let Some(draft) = &tool.declared_draft
        {
            notes.push(ToolNote {
                tool: Some(tool.name.clone()),
                pointer: String::new(),
                keyword: Some("$schema".to_owned()),
                reason: format!(
                    "the tools declare different drafts, so this tool's {draft:?} is dropped and its schema is read as draft-07 in the combined schema"
                ),
            });
        }
        notes.extend(embedded.notes.into_iter().map(|problem| ToolNote {
            tool: Some(tool.name.clone()),
            pointer: problem.pointer,
            keyword: problem.keyword,
            reason: problem.reason,
        }));
        for (combined, original) in embedded.origins {
            origins.push(Origin {
                tool: tool.name.clone(),
                combined,
                original,
            });
        }
        for (definition_key, definition) in embedded.definitions {
            definitions.insert(definition_key, definition);
        }
        branches.push(json!({
            "type": "object",
            "properties": {
                "name": {"const": tool.name},
                "arguments": embedded.arguments
            },
            "required": ["name", "arguments"],
            "additionalProperties": false
        }));
    }
    if let Some(answer) = answer {
        branches.push(answer.clone());
    }
    let mut root = if single {
        match branches.pop() {
            Some(Value::Object(map)) => map,
            _ => unreachable!("a branch is an object"),
        }
    } else {
        let mut root = Map::new();
        root.insert("oneOf".to_owned(), Value::Array(branches));
        root
    };
    if !definitions.is_empty() {
        root.insert("$defs".to_owned(), Value::Object(definitions));
    }
    if let Some(draft) = common_draft {
        root.insert("$schema".to_owned(), json!(draft));
    }
    Assembled {
        schema: Value::Object(root),
        branch_pointers,
        origins,
        notes,
    }
}

/// The tool and the pointer in its own schema for a pointer into the combined schema.
fn locate(pointer: &str, origins: &Origins) -> Option<(String, String)> {
    origins.innermost(pointer).map(|origin| {
        (
            origin.tool.clone(),
            format!("{}{}", origin.original, &pointer[origin.combined.len()..]),
        )
    })
}

/// `note` (a pointer into the combined schema) as a note about the tool it concerns.
pub(crate) fn map_note(note: &Problem, origins: &Origins) -> ToolNote {
    match locate(&note.pointer, origins) {
        Some((tool, pointer)) => ToolNote {
            tool: Some(tool),
            pointer,
            keyword: note.keyword.clone(),
            reason: note.reason.clone(),
        },
        None => ToolNote {
            tool: None,
            pointer: note.pointer.clone(),
            keyword: note.keyword.clone(),
            reason: note.reason.clone(),
        },
    }
}

/// The error for a tool no arguments satisfy, naming the innermost place the notes found.
fn unsatisfiable(tool: &str, notes: &[Problem], origins: &Origins) -> CompileError {
    let cause = notes
        .iter()
        .filter(|note| note.reason.contains("no value satisfies"))
        .map(|note| (map_note(note, origins), note))
        .filter(|(mapped, _)| mapped.tool.as_deref() == Some(tool))
        .max_by_key(|(mapped, _)| mapped.pointer.len());
    let (pointer, what) = match cause {
        Some((mapped, note)) => {
            let what = note
                .reason
                .split(": no value satisfies")
                .next()
                .unwrap_or_default()
                .to_owned();
            (mapped.pointer, what)
        }
        None => (String::new(), "the schema accepts nothing".to_owned()),
    };
    CompileError::Grammar {
        tool: Some(tool.to_owned()),
        pointer,
        reason: format!(
            "{what}, so no arguments satisfy the schema and the tool can never be called"
        ),
    }
}

fn grammar_error(error: gbnf::GbnfError, origins: &Origins) -> CompileError {
    let (pointer, reason) = match &error {
        gbnf::GbnfError::InvalidSchema { pointer, reason } => (pointer.clone(), reason.clone()),
        gbnf::GbnfError::Unsatisfiable { notes } => notes
            .iter()
            .find(|note| note.reason.contains("no value satisfies"))
            .map(|note| (note.pointer.clone(), note.reason.clone()))
            .unwrap_or_else(|| (String::new(), error.to_string())),
        gbnf::GbnfError::LeftRecursive { .. } => (String::new(), error.to_string()),
        gbnf::GbnfError::TooComplex { pointer, .. } => (pointer.clone(), error.to_string()),
    };
    match locate(&pointer, origins) {
        Some((tool, pointer)) => CompileError::Grammar {
            tool: Some(tool),
            pointer,
            reason,
        },
        None => CompileError::Grammar {
            tool: None,
            pointer,
            reason,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pointer_goes_to_the_innermost_part_that_holds_it() {
        let mut origins = Origins::default();
        let mut add = |tool: &str, combined: &str, original: &str| {
            origins.push(Origin {
                tool: tool.to_owned(),
                combined: combined.to_owned(),
                original: original.to_owned(),
            })
        };
        add("whole", "", "/whole");
        add("edit", "/oneOf/1/properties/arguments", "");
        add("edit", "/$defs/edit__Range", "/$defs/Range");
        add("read", "/oneOf/10/properties/arguments", "");
        let located = |pointer: &str| locate(pointer, &origins);
        let at = |tool: &str, pointer: &str| Some((tool.to_owned(), pointer.to_owned()));
        assert_eq!(
            located("/oneOf/1/properties/arguments/properties/x"),
            at("edit", "/properties/x")
        );
        assert_eq!(located("/oneOf/1/properties/arguments"), at("edit", ""));
        // `/oneOf/1` is no parent of `/oneOf/10`.
        assert_eq!(located("/oneOf/10/properties/arguments"), at("read", ""));
        assert_eq!(
            located("/$defs/edit__Range/minimum"),
            at("edit", "/$defs/Range/minimum")
        );
        assert_eq!(
            located("/oneOf/1/properties/name"),
            at("whole", "/whole/oneOf/1/properties/name")
        );
        assert_eq!(located(""), at("whole", "/whole"));
        assert_eq!(located("no-slash"), None);
    }
}
