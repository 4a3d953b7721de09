//! Agents: which contract a role emits and how its requests are decoded.
//!
//! [`normalize_decoding`] fills in a role's decoding from its id, so a new role declares only its
//! tools:
//! - a role that uses tools gets serial tools and no JSON-only: a request that carries tools is
//!   never constrained, because the model needs room to write a tool call;
//! - the free-text roles (`context`, `memory`, `describer`) get neither a contract nor JSON-only:
//!   their output is prose, and forcing JSON on them yields worse prose in a wrapper;
//! - every other role with a contract gets JSON-only and the stop sequences [`JSON_STOP`], because
//!   the commonest small-model failure is valid JSON followed by an essay;
//! - a language-specialised id folds to its generic role (`go-worker` -> `worker`,
//!   `rust-reviewer` -> `reviewer` -> the `review` contract).
//!
//! Pure data: no I/O. Depends on [`crate::schema`] for the contract registry.

mod roles;

use serde::Serialize;
use serde_json::Value;

use crate::schema::{self, Contract};

pub use roles::{FREE_TEXT_ROLES, ROLE_ALIASES};

/// Stop sequences for JSON-only roles: each ends the completion where a model starts a markdown
/// section, closes a fence and moves on, or appends a note after its object.
pub const JSON_STOP: [&str; 3] = ["\n## ", "```\n\n", "\nNote:"];

/// What a harness declares about one agent: its id, optionally the contract it emits when the id
/// does not name one, and its tools.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RoleSpec {
    /// The agent's id as the harness knows it (`planner`, `go-worker`, `describer`).
    pub id: String,
    /// The contract the agent emits, when its id does not lead to one.
    pub contract: Option<String>,
    /// The names of the tools the agent may call; empty for a role that only answers.
    pub tools: Vec<String>,
}

impl RoleSpec {
    /// A spec with only an id: no explicit contract, no tools.
    pub fn new(id: impl Into<String>) -> RoleSpec {
        RoleSpec {
            id: id.into(),
            ..RoleSpec::default()
        }
    }

    /// The same spec with these tools.
    pub fn with_tools<I, S>(mut self, tools: I) -> RoleSpec
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.tools = tools.into_iter().map(Into::into).collect();
        self
    }

    /// The same spec, emitting `contract`.
    pub fn with_contract(mut self, contract: impl Into<String>) -> RoleSpec {
        self.contract = Some(contract.into());
        self
    }
}

/// How a role's output is shaped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RoleKind {
    /// Calls tools; requests are sent without a constraint and cut to one tool call per turn.
    ToolUsing,
    /// Writes prose (markdown); no contract.
    FreeText,
    /// Answers with one JSON object that satisfies its contract.
    Json,
    /// Neither a known contract nor tools: an ordinary, unconstrained answer.
    Plain,
}

impl RoleKind {
    /// The name used in `--json` output and tables.
    pub const fn as_str(self) -> &'static str {
        match self {
            RoleKind::ToolUsing => "tool_using",
            RoleKind::FreeText => "free_text",
            RoleKind::Json => "json",
            RoleKind::Plain => "plain",
        }
    }
}

/// The normalised decoding of one role.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Decoding {
    /// The id as declared.
    pub id: String,
    /// The generic role the id folded to (`go-worker` -> `worker`).
    pub generic_id: String,
    /// How the output is shaped.
    pub kind: RoleKind,
    /// The contract the output is validated against, when there is one.
    pub contract: Option<&'static str>,
    /// Whether the request asks for JSON only (and is constrained when the endpoint allows it).
    pub json_only: bool,
    /// Whether an assistant message is cut to its first tool call.
    pub serial_tools: bool,
    /// Stop sequences sent with the request.
    pub stop: Vec<&'static str>,
}

/// An explicit contract name in a [`RoleSpec`] that is not a registered contract.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("role `{role}` names contract `{contract}`, which does not exist: {source}")]
pub struct UnknownRoleContract {
    /// The role's id.
    pub role: String,
    /// The contract it named.
    pub contract: String,
    /// The registry's error, which lists the valid names.
    pub source: schema::UnknownContract,
}

/// Fills in the decoding of `spec` from its id, its explicit contract and its tools.
pub fn normalize_decoding(spec: &RoleSpec) -> Result<Decoding, UnknownRoleContract> {
    let generic_id = fold_id(&spec.id);
    let contract = match &spec.contract {
        Some(name) => Some(
            schema::contract(name).map_err(|source| UnknownRoleContract {
                role: spec.id.clone(),
                contract: name.clone(),
                source,
            })?,
        ),
        None => contract_for_generic(generic_id),
    };
    let free_text = FREE_TEXT_ROLES.contains(&generic_id);
    let kind = if !spec.tools.is_empty() {
        RoleKind::ToolUsing
    } else if free_text {
        RoleKind::FreeText
    } else if contract.is_some() {
        RoleKind::Json
    } else {
        RoleKind::Plain
    };
    let json_only = kind == RoleKind::Json;
    Ok(Decoding {
        id: spec.id.clone(),
        generic_id: generic_id.to_owned(),
        kind,
        // A free-text role has no schema, even when its name happens to match one.
        contract: if free_text {
            None
        } else {
            contract.map(|found| found.name)
        },
        json_only,
        serial_tools: kind == RoleKind::ToolUsing,
        stop: if json_only {
            JSON_STOP.to_vec()
        } else {
            Vec::new()
        },
    })
}

/// The generic role of an id: the id itself when it is known, otherwise the id with leading
/// `-`-separated qualifiers removed until a known role remains (`python-unit-tester` ->
/// `unit-tester` -> `tester`). An id with no known role inside is returned as it is.
pub fn fold_id(id: &str) -> &str {
    let mut candidate = id;
    loop {
        if is_known_role(candidate) {
            return candidate;
        }
        match candidate.split_once('-') {
            Some((_, rest)) if !rest.is_empty() => candidate = rest,
            _ => return id,
        }
    }
}

fn is_known_role(id: &str) -> bool {
    schema::contract(id).is_ok()
        || FREE_TEXT_ROLES.contains(&id)
        || ROLE_ALIASES.iter().any(|(alias, _)| *alias == id)
}

fn contract_for_generic(generic_id: &str) -> Option<&'static Contract> {
    let name = ROLE_ALIASES
        .iter()
        .find(|(alias, _)| *alias == generic_id)
        .map_or(generic_id, |(_, contract)| contract);
    schema::contract(name).ok()
}

/// The ids `slmcode roles` lists by default: every contract, every alias, every free-text role.
pub fn known_role_ids() -> Vec<&'static str> {
    let mut ids: Vec<&'static str> = schema::contracts()
        .iter()
        .map(|contract| contract.name)
        .collect();
    ids.extend(ROLE_ALIASES.iter().map(|(alias, _)| *alias));
    ids.extend(FREE_TEXT_ROLES);
    ids
}

/// Cuts an OpenAI-style assistant message to its first tool call (serial tools): the prompt asks
/// for one call per turn, and this makes it so. Returns how many calls were dropped.
pub fn keep_first_tool_call(message: &mut Value) -> usize {
    let Some(calls) = message.get_mut("tool_calls").and_then(Value::as_array_mut) else {
        return 0;
    };
    let dropped = calls.len().saturating_sub(1);
    calls.truncate(1);
    dropped
}

#[cfg(test)]
mod tests;
