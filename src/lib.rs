//! slmcode makes small and local language models return structured output a program can trust.
//!
//! The library is the core: it never prints and never exits. The `slmcode` binary is a thin
//! command-line layer over it (see `src/cli/`).
//!
//! # Three entry points
//!
//! [`repair`](repair::repair) turns a model's unconstrained answer into a value that passes the
//! schema, on a fixed ladder of repairs whose rung is reported, or says why it cannot:
//!
//! ```
//! use slmcode::repair::{RepairOptions, Rung, repair};
//! use serde_json::json;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": {"steps": {"type": "array", "items": {"type": "string"}}},
//!     "required": ["steps"]
//! });
//! let answer = "Sure! Here is the plan:\n```json\n{\"steps\": [\"read\", \"write\",]}\n```";
//! let repaired = repair(answer, &RepairOptions::new().schema(&schema)?)?;
//! assert_eq!(repaired.value, json!({"steps": ["read", "write"]}));
//! assert_ne!(repaired.rung, Rung::None); // it took a repair, and says which
//!
//! let failure = repair("I cannot help with that.", &RepairOptions::new().schema(&schema)?)
//!     .unwrap_err();
//! println!("{}: {}", failure.class.as_str(), failure);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`validate`](schema::validate()) checks a value against a schema (any draft the validator
//! knows) and names every violation by its JSON pointer; [`schema::contract`] gives the
//! shipped contracts' schemas:
//!
//! ```
//! use slmcode::schema::{ValidateError, validate};
//! use serde_json::json;
//!
//! let schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
//! assert!(validate(&schema, &json!({"n": 3})).is_ok());
//! let Err(ValidateError::Violations(violations)) = validate(&schema, &json!({"n": "three"}))
//! else {
//!     panic!("a string is not an integer");
//! };
//! assert_eq!(violations.0[0].pointer, "/n");
//! ```
//!
//! [`structured_call`](call::structured_call) is the whole path `slmcode generate` runs:
//! negotiate the strongest constraint the endpoint supports, ask, repair, validate, re-ask.
//! Settings come from an [`Environment`](config::Environment) the harness builds (or
//! `Environment::from_process()`), so nothing is read from the process unless it says so:
//!
//! ```
//! use slmcode::call::{CallContext, CallFailure, StructuredRequest, structured_call};
//! use slmcode::config::{Environment, Overrides, resolve};
//!
//! let dir = tempfile::tempdir()?;
//! let environment = Environment::from_pairs([
//!     ("SLMCODE_CONFIG_DIR", dir.path().to_str().unwrap()),
//!     ("SLMCODE_PROVIDER", "llamacpp"),
//!     // Nothing listens here: the call fails, and says how.
//!     ("SLMCODE_ENDPOINT", "http://127.0.0.1:1"),
//! ]);
//! let settings = resolve(&environment, &Overrides::new())?.settings;
//! let context = CallContext::from_settings(&settings)?;
//! let request = StructuredRequest::contract("plan").user("Add a --timeout flag");
//! let result = structured_call(&request, &context);
//! match &result {
//!     // The value passed the contract's schema; the meta says how it was obtained.
//!     Ok(outcome) => println!("{:?} by {:?}", outcome.value(), outcome.meta.mechanism),
//!     // The endpoint failed, after the retries its class allows.
//!     Err(CallFailure::Endpoint { error, .. }) => println!("endpoint: {}", error.class),
//!     // Every answer failed validation: the errors, the raw text, what was complete.
//!     Err(CallFailure::SchemaViolation(violation)) => println!("{violation}"),
//!     Err(failure) => println!("{failure}"),
//! }
//! assert!(matches!(result, Err(CallFailure::Endpoint { .. })));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Words
//!
//! Each word below means one thing everywhere: in the types, the docs, `--help` and `--json`.
//!
//! - **contract**: a named output shape slmcode ships (`plan`, `scope_judge`): a JSON Schema and
//!   the prompt that asks for it ([`schema::Contract`]). `--schema CONTRACT` names one.
//! - **role**: an agent of a harness (`planner`, `go-worker`): its stop sequences, its tools, and
//!   the contract it emits when none is named ([`agents::RoleSpec`]). `--role ID` names one.
//! - **mechanism**: one of the five ways of asking for structured output, strongest first:
//!   `json_schema`, `guided_json`, `gbnf_grammar`, `json_object`, `prompt_only`
//!   ([`schema::Mechanism`]).
//! - **engine**: the server software requests are shaped for: the `provider` setting, or under
//!   `openai-compatible` the engine the server's fingerprint names (llama.cpp, Ollama)
//!   ([`backends::Engine`]). Its preset decides the wire quirks and the order of the mechanism
//!   chain; the provider setting decides what is probed and the cache key.
//! - **wire form**: one concrete request field that carries a mechanism (json_schema with or
//!   without `strict`, vLLM's `structured_outputs` or `guided_json`, `grammar`, `json_object`);
//!   each is probed, cached and demoted on its own ([`backends::WireForm`]). A form's
//!   **outcome** is what probing it found ([`backends::FormOutcome`]).
//! - **constraint**: what one request carries for its mechanism after projection: a schema or a
//!   grammar ([`schema::Constraint`]).
//! - **mechanism chain**: the wire forms one call may try, in order, prompt-only last; a call
//!   walks down it when a form is rejected or found not enforced. Stepping down is a
//!   **demotion**, remembered in the capabilities cache. What decided the chain is its
//!   [`ChainSource`](call::ChainSource).
//! - **repair ladder**: the fixed sequence of repairs applied to an unconstrained answer; each
//!   step is a **rung** ([`repair::Rung`]). "Ladder" and "rung" mean the repair ladder only.
//! - **failure class**: why an answer gave no value (`prose`, `truncated`, `wrong_shape`, ...),
//!   which decides the **re-ask** sent next ([`repair::FailureClass`]).
//! - **source**: where something came from, always named with the thing: a setting's
//!   [`SettingSource`](config::SettingSource) (flag, environment, file, default), the
//!   capabilities' [`CapabilitySource`](backends::CapabilitySource) (probe, cache, prior), an
//!   engine's [`EngineSource`](backends::EngineSource) (setting, fingerprint), a reasoning
//!   text's [`ReasoningSource`](call::ReasoningSource). A setting's parsed
//!   value is a [`SettingValue`](config::SettingValue); a bare `Value` is always
//!   `serde_json::Value`.
//!
//! Layers, from the bottom up:
//! - [`schema`]: the contract registry, validation with JSON-pointer paths, the supported
//!   schema subset and its linter, GBNF derivation and recognition, per-mechanism projection.
//!   It depends on nothing else in the crate but two private helpers every layer shares: `text`
//!   (line and column of an offset, "did you mean") and `memo` (the process-wide memo of
//!   compiled validators, grammars and tool sets).
//! - [`agents`]: role specs and `normalize_decoding` (contract, JSON-only, serial tools, stop
//!   sequences per role; language-specialised ids fold to their generic role).
//! - [`repair`]: the repair ladder (string-aware tolerant parsing, truncation detection, partial
//!   recovery, schema-driven coercion) and its statistics (pure counting: `repair` and
//!   `schema` do no I/O). Depends on `schema`.
//! - [`tools`]: a request's tools compiled into one constraint (JSON Schema `oneOf` and its
//!   GBNF, content-addressed), the `tool_choice` policy, and extraction of tool calls written
//!   as text. Depends on `schema` and `repair`.
//! - [`files`]: every file slmcode keeps (the config file, the capabilities cache, the repair
//!   statistics) is read, written (atomically) and edited (under a lock beside the file) here,
//!   and only regular files are touched. Depends on `repair` for the statistics' type.
//! - [`config`]: settings, with their provenance (flags > environment > file > defaults).
//! - [`backends`]: provider presets, transport, error classes and retry, probing, and the
//!   capabilities cache: which constraint mechanism an endpoint really supports.
//! - [`serve`]: an OpenAI-compatible proxy that puts the structured call path in front of an
//!   endpoint for any client of the chat API.

// Where tests live. A file's unit tests sit at its bottom, in `#[cfg(test)] mod tests { .. }`;
// when that would take the file past about 600 lines, they move to `<file>_tests.rs` beside it,
// declared `#[cfg(test)] #[path = "<file>_tests.rs"] mod tests;`. Tests that exercise a whole
// module through its public functions (corpora, end-to-end paths through the module) live in
// `<module>/tests.rs` or `<module>/tests/`. Tests of the binary run it for real, from
// `tests/cli/`; tests against real engines are in `tests/e2e/`.

#![deny(clippy::print_stdout, clippy::print_stderr)]
#![warn(missing_docs)]

pub mod agents;
pub mod backends;
pub mod call;
pub mod config;
pub mod files;
pub mod repair;
pub mod schema;
pub mod serve;
pub mod tools;

mod memo;
mod text;

#[cfg(test)]
mod naming_tests;
