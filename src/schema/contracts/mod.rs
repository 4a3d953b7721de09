//! The contract registry: the 16 output contracts slmcode ships, embedded in the binary.
//!
//! A contract is an output name, not an agent id: several agents may emit the same contract.
//! Each one is a hand-written draft-07 JSON Schema (`<name>.schema.json`, inside the contract
//! subset of [`subset_problems`](super::subset_problems)) and a prompt (`<name>.prompt.md`)
//! that describes every field of the schema in a fixed format, one line per field:
//!
//! ```text
//! - `steps[].depends_on` (array of integer, required, at most 50 items, each 1 to 999): meaning
//! ```
//!
//! The tests in this module hold the files to that: the prompt's field paths are exactly the
//! schema's property paths, the parenthesis states the schema's type, requiredness, bounds and
//! enum values, every schema stays inside the subset, and the [`Contract::strict`] mark equals
//! [`strict_problems`](super::strict_problems) finding nothing. Shipped examples
//! (`examples/contracts/<name>.json`) validate against their contracts.
//!
//! Field order inside a schema is deliberate: a grammar emits properties in schema order, so
//! where a verdict follows from reasoning (`review`, `scope_judge`, `orchestrator`), the
//! reasoning comes first.

use std::fmt;
use std::sync::OnceLock;

use serde_json::Value;

use super::{Validator, Violations};

/// One output contract: a name, its JSON Schema and its prompt.
///
/// The schema is parsed and compiled on first use and kept for the life of the process, so
/// validating against a contract costs only the walk over the value.
pub struct Contract {
    /// The contract's name, as a role spec or `--schema` names it (`plan`, `scope_judge`).
    pub name: &'static str,
    /// Whether the schema meets OpenAI's strict rules, so it can be sent with `strict: true`.
    /// A test checks the mark against [`strict_problems`](super::strict_problems).
    pub strict: bool,
    schema_text: &'static str,
    prompt_text: &'static str,
    brief_prompt: OnceLock<String>,
    schema: OnceLock<Value>,
    validator: OnceLock<Validator>,
}

impl fmt::Debug for Contract {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Contract")
            .field("name", &self.name)
            .field("strict", &self.strict)
            .finish_non_exhaustive()
    }
}

impl Contract {
    /// The schema, parsed once.
    ///
    /// # Panics
    /// Never for the shipped files: every one is parsed by this module's tests.
    pub fn schema(&'static self) -> &'static Value {
        self.schema.get_or_init(|| {
            serde_json::from_str(self.schema_text).unwrap_or_else(|error| {
                panic!("embedded schema {}.schema.json: {error}", self.name)
            })
        })
    }

    /// The prompt that tells a model what each field of the schema means.
    pub fn prompt(&'static self) -> &'static str {
        self.prompt_text
    }

    /// The prompt without what a constraint that enforces the schema already guarantees: the
    /// sentence asking for JSON only, and each field line's parenthesis (type, requiredness,
    /// bounds, enum values) but for an array's bound on its items. Each field keeps its meaning,
    /// and every other line stays as written: a grammar guarantees the shape, not what the
    /// values should say, nor where a list should end before its bound.
    pub fn brief_prompt(&'static self) -> &'static str {
        self.brief_prompt.get_or_init(|| brief(self.prompt_text))
    }

    /// The schema's `title`, a short human name such as "Plan" or "Test report".
    pub fn title(&'static self) -> &'static str {
        self.schema()
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or(self.name)
    }

    /// The schema's `description`: what the contract is for.
    pub fn description(&'static self) -> &'static str {
        self.schema()
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The compiled schema, compiled once.
    ///
    /// # Panics
    /// Never for the shipped files: every one is compiled by this module's tests.
    pub fn validator(&'static self) -> &'static Validator {
        self.validator.get_or_init(|| {
            Validator::compile(self.schema()).unwrap_or_else(|error| {
                panic!("embedded schema {}.schema.json: {error}", self.name)
            })
        })
    }

    /// `Ok` when `value` satisfies the contract; otherwise every violation with its pointer.
    pub fn validate(&'static self, value: &Value) -> Result<(), Violations> {
        self.validator().validate(value)
    }
}

macro_rules! contract {
    ($name:literal, strict: $strict:literal) => {
        Contract {
            name: $name,
            strict: $strict,
            schema_text: include_str!(concat!($name, ".schema.json")),
            prompt_text: include_str!(concat!($name, ".prompt.md")),
            brief_prompt: OnceLock::new(),
            schema: OnceLock::new(),
            validator: OnceLock::new(),
        }
    };
}

/// The sentence every contract's prompt carries. It also holds the word JSON, which OpenAI
/// requires in a message before it accepts `json_object`.
pub const JSON_ONLY: &str =
    "Answer with one JSON object only: no prose before or after it, no markdown code fence.";

/// `prompt` as [`Contract::brief_prompt`] says: the [`JSON_ONLY`] line dropped, each field line
/// `` - `path` (spec): meaning `` written `` - `path`: meaning ``, runs of blank lines folded.
fn brief(prompt: &str) -> String {
    let mut brief = String::with_capacity(prompt.len());
    let mut blank = false;
    for line in prompt.trim_end().lines() {
        if line == JSON_ONLY {
            continue;
        }
        if line.trim().is_empty() {
            blank = !brief.is_empty();
            continue;
        }
        if blank {
            brief.push('\n');
            blank = false;
        }
        match field_line(line) {
            Some((path, spec, meaning)) => {
                brief.push_str("- `");
                brief.push_str(path);
                brief.push('`');
                if let Some(bound) = item_bound(spec) {
                    brief.push_str(" (");
                    brief.push_str(bound);
                    brief.push(')');
                }
                brief.push_str(": ");
                brief.push_str(meaning);
            }
            None => brief.push_str(line),
        }
        brief.push('\n');
    }
    brief.truncate(brief.trim_end().len());
    brief
}

/// The path, the spec and the meaning of a field line `` - `path` (spec): meaning ``.
fn field_line(line: &str) -> Option<(&str, &str, &str)> {
    let (path, rest) = line.strip_prefix("- `")?.split_once("` (")?;
    let (spec, meaning) = rest.split_once("): ")?;
    Some((path, spec, meaning))
}

/// An array's bound on its items (`at most 30 items`, `1 to 10 items`) from a field's spec. A
/// grammar enforces it too, but a small model that is not told where a list ends writes items
/// until the bound cuts it off, often one item again and again (bench/README.md, "A brief
/// prompt under an exact constraint").
fn item_bound(spec: &str) -> Option<&str> {
    spec.split(", ").find(|part| part.ends_with(" items"))
}

/// The registry, in the documented order.
static CONTRACTS: [Contract; 16] = [
    contract!("plan", strict: true),
    contract!("tasks", strict: true),
    contract!("review", strict: false),
    contract!("tester", strict: true),
    contract!("clarify", strict: true),
    contract!("escalate", strict: true),
    contract!("composition", strict: true),
    contract!("scope_judge", strict: true),
    contract!("worker", strict: true),
    contract!("explore", strict: true),
    contract!("docs", strict: true),
    contract!("architect", strict: true),
    contract!("coordinator", strict: true),
    contract!("orchestrator", strict: false),
    contract!("placeholder", strict: true),
    contract!("lessons", strict: true),
];

/// Every contract, in the order `plan tasks review tester clarify escalate composition
/// scope_judge worker explore docs architect coordinator orchestrator placeholder lessons`.
pub fn contracts() -> &'static [Contract] {
    &CONTRACTS
}

/// The contract called `name` (exactly: `Plan` and `go-worker` are not contract names).
pub fn contract(name: &str) -> Result<&'static Contract, UnknownContract> {
    CONTRACTS
        .iter()
        .find(|contract| contract.name == name)
        .ok_or_else(|| UnknownContract {
            name: name.to_owned(),
            suggestion: nearest(name),
        })
}

/// A name that is not a contract's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct UnknownContract {
    /// The name that was asked for.
    pub name: String,
    /// The contract the name is probably a typo of, when one is close enough.
    pub suggestion: Option<&'static str>,
}

impl UnknownContract {
    /// The valid names, in registry order.
    pub fn valid_names() -> impl Iterator<Item = &'static str> {
        CONTRACTS.iter().map(|contract| contract.name)
    }
}

impl fmt::Display for UnknownContract {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown contract `{}`", self.name)?;
        if let Some(suggestion) = self.suggestion {
            f.write_str(&crate::text::did_you_mean(suggestion))?;
        }
        let names: Vec<&str> = UnknownContract::valid_names().collect();
        write!(f, "; the contracts are: {}", names.join(", "))
    }
}

/// The contract name `name` most likely stands for: the same name in another case or with
/// `-` for `_`, a language-specialised id (`go-worker`), an unambiguous prefix, or a name at
/// most two edits away (a transposition counting as one).
fn nearest(name: &str) -> Option<&'static str> {
    let folded = name.to_lowercase().replace('-', "_");
    let names = || UnknownContract::valid_names();
    if let Some(found) = names().find(|candidate| *candidate == folded) {
        return Some(found);
    }
    if let Some(found) = names().find(|candidate| folded.ends_with(&format!("_{candidate}"))) {
        return Some(found);
    }
    let mut prefixed =
        names().filter(|candidate| folded.len() >= 3 && candidate.starts_with(&folded));
    if let (Some(found), None) = (prefixed.next(), prefixed.next()) {
        return Some(found);
    }
    crate::text::nearest(&folded, names(), |candidate| 2.min(candidate.len() / 2))
}

#[cfg(test)]
mod tests;
