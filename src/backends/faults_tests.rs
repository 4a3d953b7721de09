//! Negotiation under faults (issue 13): a refused connection fails fast. Against the engine emulator and a port nobody listens on; time bounds are
//! generous (they catch a probe that waits for its whole deadline, not a slow machine), and
//! the assertions are on attempts, requests received and what was cached.

use std::collections::BTreeMap;
use std::time::Duration;

use super::tests::emulator::RefusingPort;
use super::*;
use crate::config::{Provider, Settings, StructuredDecoding};

fn target_at(provider: Provider, base_url: &str) -> Target {
    Target {
        provider,
        endpoint: normalize_endpoint(provider, base_url).unwrap().endpoint,
        model: None,
        api_key: None,
    }
}

fn options(cache: Option<CapabilityCache>, probe_timeout: Duration) -> NegotiateOptions {
    NegotiateOptions {
        structured_decoding: StructuredDecoding::Auto,
        refresh: false,
        allow_probe: true,
        check_fingerprint: true,
        probe_timeout,
        cache,
    }
}

#[test]
fn a_refused_port_fails_the_probe_after_the_grace_not_at_the_deadline() {
    // Held dead for the whole test: no parallel test can take the port.
    let dead = RefusingPort::new();
    let target = target_at(
        Provider::LlamaCpp,
        &format!("http://127.0.0.1:{}/v1", dead.port()),
    );
    let report = probe(&target, Duration::from_secs(30));
    assert!(!report.probed && !report.reachable);
    let failure = report
        .baseline_failure
        .as_ref()
        .expect("the plain request failed");
    assert!(failure.refused, "{failure:?}");
    // Tried again only within the grace: a few attempts, not a deadline's worth.
    assert!(
        failure.attempts <= 1 + retry::REFUSED_RETRIES,
        "{failure:?}"
    );
    assert!(report.elapsed_ms < 15_000, "{report:?}");
}

#[test]
fn a_refused_connection_ends_the_call_without_a_plain_resend() {
    let dead = RefusingPort::new();
    let endpoint = format!("http://127.0.0.1:{}/v1", dead.port());
    let directory = tempfile::tempdir().unwrap();
    let cache = CapabilityCache::in_dir(directory.path());
    let target = target_at(Provider::OpenAi, &endpoint);
    let outcomes: BTreeMap<WireForm, Outcome> = [(WireForm::JsonSchemaStrict, Outcome::Supported)]
        .into_iter()
        .collect();
    let capabilities = Capabilities::select(outcomes, &[], true);
    let entry = CacheEntry::new(
        &target.key(),
        &capabilities,
        Some("2026-01-01T00:00:00Z".to_owned()),
        None,
        Vec::new(),
    );
    cache.store(entry).unwrap();
    let settings = Settings {
        provider: Provider::OpenAi,
        endpoint: Some(endpoint),
        ..Settings::default()
    };
    let mut negotiate_options = options(Some(cache.clone()), Duration::from_secs(5));
    negotiate_options.allow_probe = false;
    let context = CallContext::negotiate(&settings, &Negotiator::new(), &negotiate_options)
        .unwrap()
        .with_sleep(|_| {});
    let request = StructuredRequest::contract("scope_judge").user("In scope?");
    let failure = structured_call(&settings, &request, &context).unwrap_err();
    let CallFailure::Endpoint { error, meta } = failure else {
        panic!("not an endpoint failure: {failure:?}");
    };
    assert!(error.refused, "{error:?}");
    // The grace's attempts with the field, and no request without it: nobody listens.
    assert_eq!(meta.requests, 1 + retry::REFUSED_RETRIES, "{meta:?}");
    assert!(meta.demotions.is_empty());
    assert!(cache.get(&target.key()).0.unwrap().demotions.is_empty());
}
