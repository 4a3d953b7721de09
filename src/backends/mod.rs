//! Backends: talking to an endpoint and knowing what it can do.
//!
//! This layer owns the provider presets and priors ([`preset`]), the chat wire format
//! ([`ChatRequest`], [`build_body`], [`ChatResponse`]), transport over `ureq` ([`Client`],
//! streamed answers read event by event into [`Streamed`]), error classes and the retry policy
//! ([`ErrorClass`], [`RetryPolicy`]), whether anything listens at an endpoint ([`reachability`]),
//! which server is running ([`Fingerprint`]) and so which engine requests follow ([`Engine`]),
//! probing ([`probe`](fn@probe)) and what it found ([`Capabilities`]), and the capabilities
//! cache ([`CapabilityCache`]), tied together by [`Negotiator`]. The structured call path
//! ([`crate::call`]) is built on it. Endpoints are normalised by
//! [`normalize_endpoint`]. It uses `config` (settings, secrets, the config directory), `schema`
//! (mechanisms, constraints, validation), `repair` and `tools` (the repair ladder and tool
//! sets), `agents` (roles) and `files` (the cache and the repair statistics on disk); it returns
//! data and never prints.

pub(crate) mod cache;
pub(crate) mod capabilities;
pub(crate) mod chat;
pub(crate) mod engine;
pub(crate) mod errors;
pub(crate) mod events;
pub(crate) mod fingerprint;
pub(crate) mod negotiate;
pub(crate) mod presets;
pub(crate) mod probe;
pub mod reachability;
pub(crate) mod relay;
pub(crate) mod retry;
pub(crate) mod stream;
pub(crate) mod target;
mod time;
pub(crate) mod transport;

/// The readers of a server's answer, reachable by the fuzz targets only: cargo-fuzz builds with
/// `--cfg fuzzing`. Not part of the library's API.
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing {
    pub use super::chat::parse_chat_response;
    pub use super::events::{Assembler, Event, EventReader};
}

#[cfg(test)]
pub(crate) mod tests;

pub use crate::config::endpoint::{
    Endpoint, EndpointError, NormalizedEndpoint, normalize_endpoint,
};
pub use cache::{
    CacheEntry, CacheError, CacheKey, CapabilityCache, Demotion, FAILED_PROBE_LIFETIME,
    FailedProbe, INCOMPLETE_PROBE_LIFETIME, IncompleteProbe, Snapshot, TextFallbacks,
};
pub use capabilities::{Capabilities, FormOutcome, GuidedField, WireForm};
pub use chat::{ChatMessage, ChatRequest, ChatResponse, ToolCall, Usage, build_body};
pub use engine::{Engine, EngineSource};
pub use errors::{CallError, ErrorClass, TlsFailure, TransportFailure};
pub use fingerprint::{Fingerprint, RecognisedEngine};
pub use negotiate::{CapabilitySource, NegotiateOptions, Negotiation, Negotiator};
pub use presets::{AuthHeader, FingerprintRoute, Preset, Prior, preset};
pub use probe::{ProbeReport, probe};
pub use relay::Relayed;
pub use retry::RetryPolicy;
pub use stream::{Progress, StreamEnding, StreamLimits, Streamed, Timing};
pub use target::{Target, TargetError};
pub use transport::Client;
