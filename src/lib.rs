//! slmcode makes small and local language models return structured output a program can trust.
//!
//! The library is the core: it never prints and never exits. The `slmcode` binary is a thin
//! command-line layer over it (see `src/cli/`).
//!
//! # Architecture
//!
//! One crate, in layers that import only downward: [`schema`] (contracts, validation, grammar
//! derivation, projection) → [`repair`](mod@repair) (the repair ladder) → [`tools`] (tool sets as one
//! constraint, calls read out of text) → [`config`] (settings and where each came from) →
//! [`backends`] (talking to an endpoint: presets, transport, retries, probing, the capabilities
//! cache, negotiation) → [`call`] (the structured call path) → [`serve`] (the proxy). The
//! binary (`src/cli/`) prints and exits; the library does neither.
//!
//! A structured call ([`structured_call`]) is six named steps over one state, each a function
//! in `call`: **plan** the request (schema, instructions, stops, budgets), **start** the walk
//! down the mechanism chain, **ask** for one answer (sent and watched as it streams; a rejected
//! form walks down the chain), **read** it (recorded, cut where the watcher ended it, counted
//! toward the form's enforcement, judged once by the repair ladder against the original
//! schema), decide the **next request** (a re-ask matched to the failure class, within the
//! deadline), and **finish** (the value with its meta, or the failure with its evidence).
//!
//! Where each mechanism lives: finding the answer in a model's text (reasoning blocks, code
//! fences, the first real opener) in `repair::{reasoning, fence, locate}`, used by repair, tool
//! extraction and the probe alike; loop detection in `repair::repetition`; a schema's GBNF in
//! `schema::gbnf` (the oneOf overlap check in `schema::gbnf::overlap`); the wire forms and what
//! each engine takes in `backends::presets`; the probe in `backends::probe`, what it probes in
//! `backends::target`, the capabilities cache in `backends::cache` and the negotiation policy
//! and its process memo in `backends::negotiate`; the chain and its walk in `call::{chain,
//! walk}`; the re-ask table in `call::reask`; tool turns in `call::turn`.
//!
//! The items a harness needs are re-exported here: [`structured_call`] with
//! [`StructuredRequest`], [`CallContext`], [`StructuredOutcome`], [`CallFailure`] and
//! [`CallMeta`]; [`repair()`] with [`RepairOptions`], [`Repaired`], [`RepairFailure`],
//! [`FailureClass`] and [`Rung`]; [`validate()`] and [`contract()`]; [`Settings`] and
//! [`Environment`]; [`ToolSet`] and [`ToolChoice`].
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
//! [`structured_call`] is the whole path `slmcode generate` runs:
//! negotiate the strongest constraint the endpoint supports, ask, repair, validate, re-ask.
//! Settings come from an [`Environment`] the harness builds (or
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
//! - **re-ask**: a request for a new answer after a failed one, chosen by the failure class
//!   from one table ([`ReaskAction`](call::ReaskAction)); never "evolve" or "retry". A
//!   **retry** is the same request again after a transport failure (`transport_retries`);
//!   `meta.retry_count` counts re-asks (the JSON name is older than the word).
//! - **walk**: a call's way down its mechanism chain, form by form; one HTTP request and its
//!   answer is an **exchange**. The **call plan** is what a call makes of its request before
//!   the walk (never "plan", which is a contract).
//! - **relay**: `slmcode serve` sending a request that needs nothing from the call path
//!   upstream unchanged ([`Relayed`](backends::Relayed)).
//! - **stream ending**: how an answer's stream ended, on its own or cut and why
//!   ([`StreamEnding`](backends::StreamEnding)).
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
//! - [`repair`](mod@repair): the repair ladder (string-aware tolerant parsing, truncation detection, partial
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
//! - [`call`]: the structured call path every structured request takes: the call plan, the
//!   mechanism chain and the walk down it, the watcher, the read of an answer, the re-asks and
//!   tool turns. Depends on `backends` and everything below it.
//! - [`serve`]: an OpenAI-compatible proxy that puts the structured call path in front of an
//!   endpoint for any client of the chat API.

// Where tests live. A file's unit tests sit at its bottom, in `#[cfg(test)] mod tests { .. }`,
// however long that makes the file. Tests that exercise a whole module through its public
// functions (end-to-end paths through the module, against the engine emulator) live in
// `<module>/tests.rs` or `<module>/tests/`, with the helpers they share; a suite that is a unit
// of its own (a corpus, a property suite, a check over the whole source tree) has a file named
// for it. Tests of the binary run it for real, from `tests/cli/`; tests against real engines are
// in `tests/e2e/`.

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

pub use call::{
    CallContext, CallFailure, CallMeta, StructuredOutcome, StructuredRequest, structured_call,
};
pub use config::{Environment, Settings};
pub use repair::{FailureClass, RepairFailure, RepairOptions, Repaired, Rung, repair};
pub use schema::{contract, validate};
pub use tools::{ToolChoice, ToolSet};

#[cfg(test)]
mod naming_tests;
