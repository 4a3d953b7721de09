//! Backends: talking to an endpoint and knowing what it can do.
//!
//! This layer owns the provider presets and priors ([`presets`]), request building and transport
//! over `ureq` ([`transport`], streamed answers in [`stream`]), error classes and the retry policy
//! ([`errors`], [`retry`]), whether anything listens at an endpoint ([`reachability`]), which
//! server is running ([`fingerprint`]), probing ([`probe`](mod@probe)) and what it found ([`capabilities`]),
//! and the capabilities cache ([`cache`]), tied together by [`negotiate`]; and the structured
//! call path ([`call`]) that every structured request takes. Endpoints are normalised by
//! [`crate::config::endpoint`] (re-exported here). It uses `config` (settings, secrets, the
//! config directory), `schema` (mechanisms, constraints, validation), `repair` and `tools` (the
//! answer's ladder and tool sets), `agents` (roles) and `files` (the cache and the repair
//! statistics on disk); it returns data and never prints.

pub mod cache;
pub mod call;
pub mod capabilities;
pub mod errors;
pub mod fingerprint;
pub mod forward;
pub mod negotiate;
pub mod presets;
pub mod probe;
pub mod reachability;
pub mod retry;
pub mod stream;
mod time;
pub mod transport;

#[cfg(test)]
mod faults_tests;
#[cfg(test)]
mod tests;

pub use crate::config::endpoint::{
    Endpoint, EndpointError, NormalizedEndpoint, normalize_endpoint,
};
pub use cache::{
    CacheEntry, CacheKey, CapabilityCache, Demotion, FAILED_PROBE_LIFETIME, FailedProbe,
};
pub use call::{
    Answer, CallContext, CallFailure, CallMeta, OutputSchema, SchemaViolation, StructuredOutcome,
    StructuredRequest, structured_call,
};
pub use capabilities::{Capabilities, GuidedField, Outcome, WireForm};
pub use errors::{CallError, ErrorClass, Failure, TlsFailure, classify};
pub use fingerprint::Fingerprint;
pub use negotiate::{NegotiateOptions, Negotiation, Negotiator, Source, TargetError};
pub use presets::{AuthHeader, Preset, Prior, preset};
pub use probe::{ProbeReport, Target, probe};
pub use reachability::Reachability;
pub use retry::{Jitter, RetryPolicy};
pub use stream::{Flow, Progress, StreamEnd, StreamLimits, Streamed, Timing};
pub use transport::{ChatMessage, ChatRequest, ChatResponse, Client};
