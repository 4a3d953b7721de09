//! The capabilities cache's tests: entries by key, a corrupt file, demotions, enforcement
//! failures, concurrent writers.

use std::fs;

use super::*;

fn key(model: &str) -> CacheKey {
    CacheKey {
        provider: Provider::LlamaCpp,
        endpoint: "http://127.0.0.1:8080/v1".to_owned(),
        model: model.to_owned(),
    }
}

fn supported(forms: &[WireForm]) -> Capabilities {
    Capabilities::select(
        forms
            .iter()
            .map(|form| (*form, FormOutcome::Supported))
            .collect(),
        &[],
        true,
    )
}

#[test]
fn entries_round_trip_and_replace_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CapabilityCache::in_dir(dir.path());
    assert!(cache.get(&key("a")).0.is_none());
    let capabilities = supported(&[WireForm::JsonSchemaStrict]);
    let entry = CacheEntry::new(
        &key("a"),
        &capabilities,
        Some(now_rfc3339()),
        None,
        Vec::new(),
    );
    assert_eq!(cache.store(entry.clone()).unwrap(), None);
    cache
        .store(CacheEntry::new(
            &key("b"),
            &Capabilities::floor(),
            None,
            None,
            Vec::new(),
        ))
        .unwrap();
    assert_eq!(cache.get(&key("a")).0, Some(entry.clone()));
    let mut changed = entry.clone();
    changed.strict = false;
    cache.store(changed.clone()).unwrap();
    assert_eq!(cache.read().entries.len(), 2);
    assert_eq!(cache.get(&key("a")).0, Some(changed));
    assert!(cache.remove(&key("a")).unwrap());
    assert!(!cache.remove(&key("a")).unwrap());
}

#[test]
fn a_corrupt_file_is_reported_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CapabilityCache::in_dir(dir.path());
    fs::write(cache.path(), "{ not json").unwrap();
    let (entry, warning) = cache.get(&key("a"));
    assert!(entry.is_none());
    assert!(warning.unwrap().contains("is corrupt"));
    let warning = cache
        .store(CacheEntry::new(
            &key("a"),
            &Capabilities::floor(),
            None,
            None,
            Vec::new(),
        ))
        .unwrap();
    assert!(warning.unwrap().contains("will be replaced"));
    assert!(cache.read().warning.is_none());
    assert_eq!(cache.read().entries.len(), 1);
}

#[test]
fn a_file_from_a_newer_slmcode_is_kept_and_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CapabilityCache::in_dir(dir.path());
    let newer = "{\"version\": 99, \"entries\": [], \"shards\": [\"a\"]}";
    fs::write(cache.path(), newer).unwrap();
    let (entry, warning) = cache.get(&key("a"));
    assert!(entry.is_none());
    assert_eq!(
        warning.unwrap(),
        format!(
            "capabilities cache {} was written by a newer slmcode (format version 99; this \
             build reads 1): it is kept as it is, and nothing is cached",
            cache.path().display()
        )
    );
    let entry = CacheEntry::new(&key("a"), &Capabilities::floor(), None, None, Vec::new());
    let error = cache.store(entry).unwrap_err();
    assert!(error.to_string().contains("newer slmcode"), "{error}");
    assert!(cache.remove(&key("a")).is_err());
    assert_eq!(fs::read_to_string(cache.path()).unwrap(), newer);
    // Entries this build cannot read at all, under a newer version: the same.
    let unreadable = "{\"version\": 3, \"entries\": [{\"endpoint\": 7}]}";
    fs::write(cache.path(), unreadable).unwrap();
    assert!(cache.get(&key("a")).1.unwrap().contains("format version 3"));
    assert!(cache.remove(&key("a")).is_err());
    assert_eq!(fs::read_to_string(cache.path()).unwrap(), unreadable);
}

#[test]
fn a_file_of_this_version_that_does_not_parse_is_still_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CapabilityCache::in_dir(dir.path());
    for corrupt in [
        "{\"version\": 1, \"entries\": [{\"endpoint\": 7}]}",
        "{\"entries\": []}",
        "[1, 2]",
        "{\"version\": \"99\", \"entries\": []}",
    ] {
        fs::write(cache.path(), corrupt).unwrap();
        let warning = cache.read().warning.unwrap();
        assert!(warning.contains("is corrupt"), "{corrupt}: {warning}");
        assert!(!cache.remove(&key("a")).unwrap());
        assert!(cache.read().warning.is_none(), "{corrupt}");
    }
}

#[test]
fn demotions_are_recorded_and_select_the_next_form() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CapabilityCache::in_dir(dir.path());
    let capabilities = supported(&[
        WireForm::JsonSchemaStrict,
        WireForm::JsonSchema,
        WireForm::Grammar,
    ]);
    cache
        .store(CacheEntry::new(
            &key("a"),
            &capabilities,
            None,
            None,
            Vec::new(),
        ))
        .unwrap();
    let demotion = Demotion::now(
        WireForm::JsonSchemaStrict,
        Some(400),
        "strict is not supported",
    );
    let entry = cache
        .record_demotion(&key("a"), demotion, &capabilities)
        .unwrap();
    assert_eq!(entry.mechanism, Mechanism::JsonSchema);
    assert!(!entry.strict);
    let entry = cache
        .record_demotion(
            &key("a"),
            Demotion::now(WireForm::JsonSchema, Some(422), "no"),
            &capabilities,
        )
        .unwrap();
    assert_eq!(entry.mechanism, Mechanism::GbnfGrammar);
    let stored = cache.get(&key("a")).0.unwrap();
    assert_eq!(stored.demotions.len(), 2);
    assert_eq!(stored.demotions[0].status, Some(400));
    assert_eq!(stored.demotions[0].body, "strict is not supported");
    // With no entry yet, the caller's capabilities are the starting point.
    let fresh = cache
        .record_demotion(
            &key("new"),
            Demotion::now(WireForm::Grammar, None, "500"),
            &supported(&[WireForm::Grammar]),
        )
        .unwrap();
    assert_eq!(fresh.mechanism, Mechanism::PromptOnly);
}

#[test]
fn enforcement_failures_in_a_row_demote_at_the_threshold_and_a_success_resets() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CapabilityCache::in_dir(dir.path());
    let capabilities = supported(&[WireForm::JsonSchemaStrict, WireForm::Grammar]);
    let record = |failed| {
        cache
            .record_enforcement(
                &key("a"),
                WireForm::JsonSchemaStrict,
                failed,
                "Sure! {\"a\": 1,}",
                2,
                &capabilities,
            )
            .unwrap()
    };
    assert_eq!(record(true).0, 1);
    assert_eq!(record(false).0, 0);
    let (count, demotion, _) = record(true);
    assert_eq!((count, demotion), (1, None));
    let stored = cache.get(&key("a")).0.unwrap();
    assert_eq!(stored.enforcement_failures[&WireForm::JsonSchemaStrict], 1);
    let (count, demotion, entry) = record(true);
    assert_eq!(count, 2);
    let demotion = demotion.unwrap();
    assert_eq!(
        (demotion.form, demotion.status),
        (WireForm::JsonSchemaStrict, None)
    );
    assert!(
        demotion
            .body
            .starts_with("accepted but not enforced: 2 answers in a row")
    );
    assert_eq!(entry.mechanism, Mechanism::GbnfGrammar);
    assert_eq!(
        entry.outcomes[&WireForm::JsonSchemaStrict].name(),
        "not_enforced"
    );
    assert!(entry.enforcement_failures.is_empty());
    // An already demoted form is counted but not demoted twice.
    record(true);
    let (_, again, entry) = record(true);
    assert_eq!(again, None);
    assert_eq!(entry.demotions.len(), 1);
}

#[test]
fn concurrent_writers_in_threads_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CapabilityCache::in_dir(dir.path());
    std::thread::scope(|scope| {
        for index in 0..8 {
            let cache = cache.clone();
            scope.spawn(move || {
                for round in 0..5 {
                    let model = format!("m{index}-{round}");
                    cache
                        .store(CacheEntry::new(
                            &key(&model),
                            &Capabilities::floor(),
                            None,
                            None,
                            Vec::new(),
                        ))
                        .unwrap();
                }
            });
        }
    });
    let snapshot = cache.read();
    assert!(snapshot.warning.is_none());
    assert_eq!(snapshot.entries.len(), 40);
}

#[test]
fn a_failed_probe_is_recorded_only_where_no_success_stands() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CapabilityCache::in_dir(dir.path());
    let untested = |reason: &str| {
        let mut floor = Capabilities::floor();
        floor.outcomes = WireForm::ALL
            .into_iter()
            .map(|form| {
                let reason = reason.to_owned();
                (form, FormOutcome::Untested { reason })
            })
            .collect();
        floor
    };
    let refused = FailedProbe::now("connection refused", None, true);
    cache
        .record_failed_probe(&key("a"), refused.clone(), &untested("refused"))
        .unwrap();
    let entry = cache.get(&key("a")).0.unwrap();
    assert!(!entry.probed);
    assert_eq!(entry.failed_probe, Some(refused));
    // A later failure replaces the earlier one, with its own reasons.
    let loading = FailedProbe::now("HTTP 503: Loading model", Some(503), false);
    cache
        .record_failed_probe(&key("a"), loading.clone(), &untested("loading"))
        .unwrap();
    let entry = cache.get(&key("a")).0.unwrap();
    assert_eq!(entry.failed_probe, Some(loading.clone()));
    assert_eq!(
        entry.outcomes[&WireForm::JsonObject],
        FormOutcome::Untested {
            reason: "loading".to_owned()
        }
    );
    // A successful probe's entry is kept as it is: it is what the next run uses.
    let probed = CacheEntry::new(
        &key("b"),
        &supported(&[WireForm::JsonSchemaStrict]),
        Some(now_rfc3339()),
        None,
        Vec::new(),
    );
    cache.store(probed.clone()).unwrap();
    cache
        .record_failed_probe(&key("b"), loading, &untested("loading"))
        .unwrap();
    assert_eq!(cache.get(&key("b")).0, Some(probed));
}

#[test]
fn text_fallbacks_are_counted_per_key_and_keep_the_rest_of_the_entry() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CapabilityCache::in_dir(dir.path());
    let probed = CacheEntry::new(
        &key("a"),
        &supported(&[WireForm::JsonSchemaStrict]),
        Some(now_rfc3339()),
        None,
        Vec::new(),
    );
    cache.store(probed.clone()).unwrap();
    let first = cache
        .record_text_fallback(&key("a"), "prose", &Capabilities::floor())
        .unwrap();
    assert_eq!((first.count, first.last_class.as_str()), (1, "prose"));
    let second = cache
        .record_text_fallback(&key("a"), "truncated", &Capabilities::floor())
        .unwrap();
    assert_eq!((second.count, second.last_class.as_str()), (2, "truncated"));
    assert!(
        parse_rfc3339(&second.last_at).is_some(),
        "{}",
        second.last_at
    );
    let entry = cache.get(&key("a")).0.unwrap();
    assert_eq!(entry.text_fallbacks, Some(second));
    assert_eq!(
        CacheEntry {
            text_fallbacks: None,
            ..entry
        },
        probed,
        "the probe's findings stay as they were"
    );
    // A key with no entry gets one from what the caller was using.
    cache
        .record_text_fallback(&key("b"), "empty", &Capabilities::floor())
        .unwrap();
    let made = cache.get(&key("b")).0.unwrap();
    assert!(!made.probed);
    assert_eq!(made.text_fallbacks.unwrap().count, 1);
    // Written only once there is one: an entry without text fallbacks has no such field.
    let text = fs::read_to_string(cache.path()).unwrap();
    assert_eq!(text.matches("text_fallbacks").count(), 2, "{text}");
    let mut plain = probed;
    plain.model = "c".to_owned();
    cache.store(plain).unwrap();
    let text = fs::read_to_string(cache.path()).unwrap();
    assert_eq!(text.matches("text_fallbacks").count(), 2, "{text}");
}
