//! The structured call path against the engine emulator (a real HTTP server on 127.0.0.1, one
//! per test). Every test asserts on what the server received (the recorded request bodies) as
//! well as on what the call returned, and where the call learns something, on what was
//! written to `capabilities.json`. Retry waits are recorded, never slept.

pub(super) use crate::backends::tests::emulator;

mod chain;
mod enforcement;
mod errors;
mod reask;
mod stream;
mod thinking;
mod tools;
mod tools_reask;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use emulator::{Emulator, Profile};

use super::*;
use crate::backends::cache::{CacheEntry, CapabilityCache};
use crate::backends::capabilities::{Capabilities, FormOutcome, WireForm};
use crate::backends::negotiate::{NegotiateOptions, Negotiator};
use crate::backends::normalize_endpoint;
use crate::backends::target::Target;
use crate::call::reask::{MIN_REASK_TOKENS, REASK_TEMPERATURE};
use crate::config::{Provider, Settings, StructuredDecoding};
use crate::repair::Rung;

/// One emulated engine, a scratch config directory, and the settings pointing at both.
struct World {
    emulator: Emulator,
    dir: tempfile::TempDir,
    settings: Settings,
    waits: Arc<Mutex<Vec<Duration>>>,
}

impl World {
    fn new(profile: Profile, provider: Provider) -> World {
        let emulator = Emulator::start(profile);
        let settings = Settings {
            provider,
            endpoint: Some(emulator.base_url()),
            max_tokens: 512,
            timeout_s: 10,
            // One re-ask, so that each test's answers are counted out exactly.
            reask: 1,
            ..Settings::default()
        };
        World {
            emulator,
            dir: tempfile::tempdir().unwrap(),
            settings,
            waits: Arc::default(),
        }
    }

    fn cache(&self) -> CapabilityCache {
        CapabilityCache::in_dir(self.dir.path())
    }

    fn target(&self) -> Target {
        Target {
            provider: self.settings.provider,
            endpoint: normalize_endpoint(self.settings.provider, &self.emulator.base_url())
                .unwrap()
                .endpoint,
            model: None,
            api_key: None,
            thinking: crate::config::Thinking::Auto,
        }
    }

    /// Writes a probed cache entry in which exactly `supported` forms were enforced, as if a
    /// probe had found them before the server (or what is in front of it) changed.
    fn cached(&self, supported: &[WireForm]) -> &World {
        self.cached_with(supported, None)
    }

    /// [`World::cached`], with the fingerprint of a server that said `server` about itself.
    fn cached_from(&self, supported: &[WireForm], server: &str) -> &World {
        let fingerprint = crate::backends::fingerprint::Fingerprint {
            server: Some(server.to_owned()),
            ..Default::default()
        };
        self.cached_with(supported, Some(fingerprint))
    }

    fn cached_with(
        &self,
        supported: &[WireForm],
        fingerprint: Option<crate::backends::fingerprint::Fingerprint>,
    ) -> &World {
        let outcomes = WireForm::ALL
            .into_iter()
            .map(|form| {
                let outcome = if supported.contains(&form) {
                    FormOutcome::Supported
                } else {
                    FormOutcome::NotEnforced {
                        answer: "Hello".to_owned(),
                    }
                };
                (form, outcome)
            })
            .collect();
        let capabilities = Capabilities::select(outcomes, &[], true);
        let entry = CacheEntry::new(
            &self.target().key(),
            &capabilities,
            Some("2026-01-01T00:00:00Z".to_owned()),
            fingerprint,
            Vec::new(),
        );
        self.cache().store(entry).unwrap();
        self
    }

    /// A context negotiated the way a new process would: a fresh negotiator, the cache in
    /// the scratch directory, probing allowed; stats in the scratch directory; waits recorded.
    fn context(&self) -> CallContext {
        let options = NegotiateOptions {
            structured_decoding: self.settings.structured_decoding,
            refresh: false,
            allow_probe: true,
            check_fingerprint: true,
            probe_timeout: Duration::from_secs(10),
            cache: Some(self.cache()),
        };
        let waits = self.waits.clone();
        CallContext::negotiate(&self.settings, &Negotiator::new(), &options)
            .unwrap()
            .with_stats_file(Some(self.dir.path().join(crate::files::stats::STATS_FILE)))
            .with_jitter_seed(7)
            .with_sleep(move |wait| waits.lock().unwrap().push(wait))
    }

    fn call(&self, request: &StructuredRequest) -> Result<StructuredOutcome, CallFailure> {
        structured_call(request, &self.context())
    }

    fn entry(&self) -> CacheEntry {
        self.cache()
            .get(&self.target().key())
            .0
            .expect("a cache entry")
    }

    fn waits(&self) -> Vec<Duration> {
        self.waits.lock().unwrap().clone()
    }

    fn off(mut self) -> World {
        self.settings.structured_decoding = StructuredDecoding::Off;
        self
    }
}

/// The constrained fields of a body, by name.
fn constrained_fields(body: &Value) -> Vec<&'static str> {
    [
        "response_format",
        "structured_outputs",
        "guided_json",
        "grammar",
        "json_schema",
    ]
    .into_iter()
    .filter(|field| body.get(*field).is_some())
    .collect()
}

/// The wire form a body asked for: `json_schema_strict`, `json_schema`, ..., or `plain`.
fn form_of(body: &Value) -> &'static str {
    let format = &body["response_format"];
    match format["type"].as_str() {
        Some("json_schema") if format["json_schema"]["strict"] == true => "json_schema_strict",
        Some("json_schema") => "json_schema",
        Some("json_object") => "json_object",
        _ if body.get("structured_outputs").is_some() => "structured_outputs",
        _ if body.get("guided_json").is_some() => "guided_json",
        _ if body.get("grammar").is_some() => "grammar",
        _ => "plain",
    }
}

fn forms_sent(emulator: &Emulator) -> Vec<&'static str> {
    emulator.chat_bodies().iter().map(form_of).collect()
}

/// A scope judgement request: the smallest contract, strict-ready.
fn scope_request() -> StructuredRequest {
    StructuredRequest::contract("scope_judge").user("Is adding a README in scope of the task?")
}

/// A fenced, trailing-comma scope judgement, as a small model writes it unconstrained.
const FENCED_SCOPE: &str =
    "Here you go:\n```json\n{\"reason\": \"The task asks for docs.\", \"in_scope\": true,}\n```";

fn value(outcome: &StructuredOutcome) -> &Value {
    outcome.value().expect("a value")
}

fn violation(failure: CallFailure) -> Box<SchemaViolation> {
    match failure {
        CallFailure::SchemaViolation(violation) => violation,
        other => panic!("not a schema violation: {other:?}"),
    }
}
