//! Negotiation under faults: a refused connection fails fast, a server that is
//! loading is waited for, and a failed probe is neither sticky in a process nor paid again by
//! every process. Against the engine emulator and a port nobody listens on; time bounds are
//! generous (they catch a probe that waits for its whole deadline, not a slow machine), and
//! the assertions are on attempts, requests received and what was cached.

use std::collections::BTreeMap;
use std::time::Duration;

use super::emulator::{Emulator, Profile, RefusingPort};
use super::{options, target_at};
use crate::backends::*;
use crate::call::{CallContext, CallFailure, StructuredRequest, structured_call};
use crate::config::{Provider, Settings};
use crate::schema::Mechanism;

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
    let outcomes: BTreeMap<WireForm, FormOutcome> =
        [(WireForm::JsonSchemaStrict, FormOutcome::Supported)]
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
    let failure = structured_call(&request, &context).unwrap_err();
    let CallFailure::Endpoint { error, meta } = failure else {
        panic!("not an endpoint failure: {failure:?}");
    };
    assert!(error.refused, "{error:?}");
    // The grace's attempts with the field, and no request without it: nobody listens.
    assert_eq!(meta.requests, 1 + retry::REFUSED_RETRIES, "{meta:?}");
    assert!(meta.demotions.is_empty());
    assert!(cache.get(&target.key()).0.unwrap().demotions.is_empty());
}

#[test]
fn the_probe_and_the_call_after_it_share_one_grace() {
    let dead = RefusingPort::new();
    let endpoint = format!("http://127.0.0.1:{}/v1", dead.port());
    let settings = Settings {
        provider: Provider::LlamaCpp,
        endpoint: Some(endpoint),
        ..Settings::default()
    };
    // What `generate` does against a dead port: a probe (its grace spent on refusals), then
    // the call, whose first refusal continues the same streak: no second grace.
    let context = CallContext::negotiate(
        &settings,
        &Negotiator::new(),
        &options(None, Duration::from_secs(20)),
    )
    .unwrap();
    let probed = context.negotiation.report.as_ref().unwrap();
    assert!(probed.baseline_failure.as_ref().unwrap().refused);
    let request = StructuredRequest::contract("scope_judge").user("In scope?");
    let CallFailure::Endpoint { error, meta } = structured_call(&request, &context).unwrap_err()
    else {
        panic!("not an endpoint failure");
    };
    assert!(error.refused);
    assert_eq!(meta.requests, 1, "{meta:?}");
}

#[test]
fn a_server_that_loads_past_the_probe_deadline_is_remembered_across_processes() {
    let emulator = Emulator::start(Profile::loading_llama_server());
    let target = target_at(Provider::LlamaCpp, &emulator.base_url());
    let directory = tempfile::tempdir().unwrap();
    let cache = CapabilityCache::in_dir(directory.path());
    let options = options(Some(cache.clone()), Duration::from_secs(2));

    let first = Negotiator::new().negotiate(&target, &options);
    assert!(first.probe_failed());
    assert_eq!(first.source, CapabilitySource::Probe);
    assert_eq!(first.capabilities.mechanism, Mechanism::PromptOnly);
    let sent = emulator.chat_count();
    // The server answered 503 until the deadline: every form was tried more than once.
    assert!(sent > 5, "{sent}");
    let entry = cache.get(&target.key()).0.expect("the failure is cached");
    assert!(!entry.probed);
    let failed = entry.failed_probe.expect("a failed probe");
    assert_eq!(failed.status, Some(503));
    assert!(failed.is_fresh());

    // Another process within the lifetime: no probe, the same floor, and why.
    let second = Negotiator::new().negotiate(&target, &options);
    assert_eq!(emulator.chat_count(), sent);
    assert_eq!(second.source, CapabilitySource::Cache);
    assert!(second.probe_failed());
    assert_eq!(second.capabilities.mechanism, Mechanism::PromptOnly);
    assert!(
        second.reason().contains("not probed again until"),
        "{}",
        second.reason()
    );

    // The server finished loading; a refresh probes afresh, and its success replaces the
    // failure.
    emulator.set_profile(Profile::llama_server());
    let refreshed = Negotiator::new().negotiate(
        &target,
        &NegotiateOptions {
            refresh: true,
            ..options.clone()
        },
    );
    assert!(refreshed.capabilities.probed);
    assert_eq!(refreshed.capabilities.mechanism, Mechanism::JsonSchema);
    let entry = cache.get(&target.key()).0.unwrap();
    assert!(entry.probed && entry.failed_probe.is_none(), "{entry:?}");
}

#[test]
fn a_long_lived_process_probes_again_after_a_failed_probe_and_climbs_back_up() {
    let emulator = Emulator::start(Profile::loading_llama_server());
    let target = target_at(Provider::LlamaCpp, &emulator.base_url());
    let directory = tempfile::tempdir().unwrap();
    let options = options(
        Some(CapabilityCache::in_dir(directory.path())),
        Duration::from_secs(1),
    );
    let negotiator = Negotiator::new().with_failure_backoff(Duration::from_millis(300));

    let loading = negotiator.negotiate(&target, &options);
    assert!(loading.probe_failed());
    let sent = emulator.chat_count();

    // Within the backoff the failed result is kept: nothing is sent.
    emulator.set_profile(Profile::llama_server());
    let kept = negotiator.negotiate(&target, &options);
    assert!(kept.probe_failed());
    assert_eq!(emulator.chat_count(), sent);

    // After it, the next caller probes again (the failure this process cached does not stand
    // in for it) and the process climbs back up to json_schema, for good.
    std::thread::sleep(Duration::from_millis(400));
    let recovered = negotiator.negotiate(&target, &options);
    assert!(recovered.capabilities.probed, "{recovered:?}");
    assert_eq!(recovered.source, CapabilitySource::Probe);
    assert_eq!(recovered.capabilities.mechanism, Mechanism::JsonSchema);
    let after = emulator.chat_count();
    assert!(after > sent);
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(
        negotiator
            .negotiate(&target, &options)
            .capabilities
            .mechanism,
        Mechanism::JsonSchema
    );
    assert_eq!(emulator.chat_count(), after, "a success is memoised");
}

#[test]
fn a_failed_probe_is_forgotten_after_its_lifetime() {
    let stale = FailedProbe {
        at: "2026-01-01T00:00:00Z".to_owned(),
        error: "transient error: connection refused".to_owned(),
        status: None,
        refused: true,
    };
    assert!(!stale.is_fresh());
    assert_eq!(stale.until().as_deref(), Some("2026-01-01T00:01:00Z"));
    let fresh = FailedProbe::now("no answer", None, false);
    assert!(fresh.is_fresh());
    let garbled = FailedProbe {
        at: "yesterday".to_owned(),
        ..fresh
    };
    assert!(!garbled.is_fresh());
}

/// A llama-server whose json_schema answers wait behind the other requests past the probe's
/// 2 s deadline, as on a busy server that serves one request at a time (the grammar answers in
/// time), with a cache in a directory of its own.
fn busy_server() -> (Emulator, Target, tempfile::TempDir, NegotiateOptions) {
    let emulator = Emulator::start(Profile::llama_server());
    emulator.delay_json_schema(Some(Duration::from_secs(5)));
    let target = target_at(Provider::LlamaCpp, &emulator.base_url());
    let directory = tempfile::tempdir().unwrap();
    let options = options(
        Some(CapabilityCache::in_dir(directory.path())),
        Duration::from_secs(2),
    );
    (emulator, target, directory, options)
}

#[test]
fn a_probe_that_missed_stronger_forms_on_a_busy_server_stands_only_for_a_while() {
    let (emulator, target, directory, options) = busy_server();
    let busy = Negotiator::new().negotiate(&target, &options);
    assert_eq!(busy.capabilities.mechanism, Mechanism::GbnfGrammar);
    let incomplete = busy.incomplete_probe.clone().expect("an incomplete probe");
    assert_eq!(
        incomplete.unanswered,
        [WireForm::JsonSchemaStrict, WireForm::JsonSchema]
    );
    assert!(
        busy.warnings
            .iter()
            .any(|warning| warning.contains("no answer in time for json_schema")),
        "{:?}",
        busy.warnings
    );
    assert!(
        busy.reason().contains("probed again after"),
        "{}",
        busy.reason()
    );
    let cache = CapabilityCache::in_dir(directory.path());
    let mut entry = cache.get(&target.key()).0.unwrap();
    assert_eq!(entry.incomplete_probe, Some(incomplete));

    // Another process within the lifetime uses it without probing.
    emulator.delay_json_schema(None);
    let sent = emulator.chat_count();
    let cached = Negotiator::new().negotiate(&target, &options);
    assert_eq!(cached.source, CapabilitySource::Cache);
    assert_eq!(cached.capabilities.mechanism, Mechanism::GbnfGrammar);
    assert_eq!(emulator.chat_count(), sent);

    // After it, the next process probes again and finds json_schema, for good.
    entry.incomplete_probe.as_mut().unwrap().at = "2026-01-01T00:00:00Z".to_owned();
    cache.store(entry).unwrap();
    let recovered = Negotiator::new().negotiate(&target, &options);
    assert_eq!(recovered.source, CapabilitySource::Probe);
    assert_eq!(recovered.capabilities.mechanism, Mechanism::JsonSchema);
    assert!(recovered.incomplete_probe.is_none());
    let entry = cache.get(&target.key()).0.unwrap();
    assert!(entry.incomplete_probe.is_none(), "{entry:?}");
}

#[test]
fn a_long_lived_process_probes_again_after_an_incomplete_probe() {
    let (emulator, target, _directory, options) = busy_server();
    let negotiator = Negotiator::new().with_incomplete_lifetime(Duration::from_millis(300));
    let busy = negotiator.negotiate(&target, &options);
    assert_eq!(busy.capabilities.mechanism, Mechanism::GbnfGrammar);
    emulator.delay_json_schema(None);
    let sent = emulator.chat_count();
    // Within the lifetime the result is kept; after it, this process probes again although
    // the cache's entry is younger than its own lifetime.
    let kept = negotiator.negotiate(&target, &options);
    assert_eq!(kept.capabilities.mechanism, Mechanism::GbnfGrammar);
    assert_eq!(emulator.chat_count(), sent);
    std::thread::sleep(Duration::from_millis(400));
    let recovered = negotiator.negotiate(&target, &options);
    assert_eq!(recovered.capabilities.mechanism, Mechanism::JsonSchema);
    assert!(emulator.chat_count() > sent);
}
