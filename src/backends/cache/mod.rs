//! The capabilities cache: `capabilities.json` in the config directory, one entry per
//! (provider, endpoint, model), so a probe is paid once, not per process.
//!
//! Every write is a read-modify-write under the advisory lock on `capabilities.json.lock`
//! ([`FileLock`]), and replaces the file atomically ([`write_json_atomic`]), so concurrent
//! processes neither corrupt the file nor lose each other's entries. Readers need no lock: a rename
//! is atomic. What an entry holds is in [`entry`]. Uses `config`, `files`, `schema`.
//!
//! A file this build cannot use is reported (a warning, never an error), and what happens to it
//! depends on why:
//! - a file whose `version` is newer than this build's ([`FORMAT_VERSION`]) was written by a
//!   newer slmcode, and its entries may be fine for it: it is kept as it is. Nothing reads
//!   entries from it and nothing writes to it ([`CacheError::Newer`]); the run goes on without
//!   a cache, as if there were none;
//! - any other file that does not parse (not JSON, no version, entries of the wrong shape for
//!   this version) is corrupt: it is read as empty and replaced by the next write;
//! - something other than a regular file at the path is read as empty and never replaced.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::files::{FileError, FileLock, read_regular, write_json_atomic};

use super::capabilities::{Capabilities, WireForm};
use super::time::now_rfc3339;

mod entry;

pub use entry::{
    CacheEntry, CacheKey, Demotion, FAILED_PROBE_LIFETIME, FailedProbe, INCOMPLETE_PROBE_LIFETIME,
    IncompleteProbe, TextFallbacks,
};

/// The cache file's name in the config directory.
pub const CACHE_FILE_NAME: &str = "capabilities.json";

/// The format version written in the file. A file with a higher one is kept as it is.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    version: u32,
    entries: Vec<CacheEntry>,
}

/// The cache could not be written (it can always be read: an unreadable file is a warning).
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// The file, its lock or its directory could not be used.
    #[error("capabilities cache {path}: {action}: {source}")]
    File {
        /// The file or directory involved.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// What the system said, or what is there instead of a regular file.
        #[source]
        source: FileError,
    },
    /// The file was written by a newer slmcode: it is kept as it is, and nothing is written.
    #[error(
        "capabilities cache {path} was written by a newer slmcode (format version {version}; this \
         build reads {FORMAT_VERSION}): it is kept as it is, and nothing is cached"
    )]
    Newer {
        /// The file.
        path: PathBuf,
        /// The version the file says it has.
        version: u64,
    },
}

/// What a read found: the entries, and a warning when the file was unreadable.
#[derive(Debug, Default)]
pub struct Snapshot {
    /// Every entry in the file.
    pub entries: Vec<CacheEntry>,
    /// Set when the file existed but could not be used (see the module's rule for what then
    /// happens to it).
    pub warning: Option<String>,
    /// The format version of a file written by a newer slmcode: it is kept as it is, its
    /// entries are not read, and [`CapabilityCache::update`] refuses to write.
    pub newer_version: Option<u64>,
}

/// Only the version, read first: a newer file's entries may have any shape.
#[derive(Deserialize)]
struct VersionOnly {
    version: u64,
}

/// The cache file at one path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapabilityCache {
    path: PathBuf,
}

impl CapabilityCache {
    /// The cache in `dir` (`dir/capabilities.json`).
    pub fn in_dir(dir: &Path) -> CapabilityCache {
        CapabilityCache {
            path: dir.join(CACHE_FILE_NAME),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads every entry (no lock needed: writes are atomic renames).
    pub fn read(&self) -> Snapshot {
        let bytes = match read_regular(&self.path) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Snapshot::default(),
            Err(error) => {
                return Snapshot {
                    warning: Some(format!(
                        "capabilities cache {} could not be read ({error}); probing as if it were empty",
                        self.path.display()
                    )),
                    ..Snapshot::default()
                };
            }
        };
        if let Ok(VersionOnly { version }) = serde_json::from_slice(&bytes)
            && version > u64::from(FORMAT_VERSION)
        {
            let newer = CacheError::Newer {
                path: self.path.clone(),
                version,
            };
            return Snapshot {
                entries: Vec::new(),
                warning: Some(newer.to_string()),
                newer_version: Some(version),
            };
        }
        match serde_json::from_slice::<CacheFile>(&bytes) {
            Ok(file) => Snapshot {
                entries: file.entries,
                ..Snapshot::default()
            },
            Err(error) => Snapshot {
                warning: Some(format!(
                    "capabilities cache {} is corrupt ({error}); it will be replaced",
                    self.path.display()
                )),
                ..Snapshot::default()
            },
        }
    }

    /// The entry for `key`, and the read's warning.
    pub fn get(&self, key: &CacheKey) -> (Option<CacheEntry>, Option<String>) {
        let snapshot = self.read();
        let entry = snapshot
            .entries
            .into_iter()
            .find(|entry| entry.key() == *key);
        (entry, snapshot.warning)
    }

    /// Reads, lets `edit` change the entries, and writes them back atomically, all under the
    /// lock. Returns what `edit` returned and the read's warning (a corrupt file is replaced).
    /// A file written by a newer slmcode is left as it is: [`CacheError::Newer`], and `edit`
    /// does not run.
    pub fn update<T>(
        &self,
        edit: impl FnOnce(&mut Vec<CacheEntry>) -> T,
    ) -> Result<(T, Option<String>), CacheError> {
        let lock = FileLock::acquire(&self.path).map_err(|source| CacheError::File {
            path: FileLock::path_for(&self.path),
            action: "locking",
            source,
        })?;
        let mut snapshot = self.read();
        if let Some(version) = snapshot.newer_version {
            return Err(CacheError::Newer {
                path: self.path.clone(),
                version,
            });
        }
        let result = edit(&mut snapshot.entries);
        snapshot.entries.sort_by_key(CacheEntry::key);
        let file = CacheFile {
            version: FORMAT_VERSION,
            entries: snapshot.entries,
        };
        write_json_atomic(&self.path, &file).map_err(|source| CacheError::File {
            path: self.path.clone(),
            action: "replacing the cache file",
            source,
        })?;
        drop(lock);
        Ok((result, snapshot.warning))
    }

    /// Inserts or replaces the entry with `entry`'s key.
    pub fn store(&self, entry: CacheEntry) -> Result<Option<String>, CacheError> {
        let key = entry.key();
        self.update(|entries| {
            entries.retain(|existing| existing.key() != key);
            entries.push(entry);
        })
        .map(|((), warning)| warning)
    }

    /// Records a request-time demotion for `key` and returns the updated entry. With no entry
    /// yet, one is made from `current` (what the caller was using).
    pub fn record_demotion(
        &self,
        key: &CacheKey,
        demotion: Demotion,
        current: &Capabilities,
    ) -> Result<CacheEntry, CacheError> {
        self.update(|entries| {
            let entry = entry_for(entries, key, current);
            entry.demote(demotion);
            entry.clone()
        })
        .map(|(entry, _)| entry)
    }

    /// Counts one answer under `form` for `key` (see [`CacheEntry::count_enforcement`]) under
    /// the lock, so concurrent processes add up. With no entry yet, one is made from
    /// `current`. Returns the count after this answer, the demotion when this answer made
    /// one, and the updated entry.
    pub fn record_enforcement(
        &self,
        key: &CacheKey,
        form: WireForm,
        failed: bool,
        answer: &str,
        threshold: u32,
        current: &Capabilities,
    ) -> Result<(u32, Option<Demotion>, CacheEntry), CacheError> {
        self.update(|entries| {
            let entry = entry_for(entries, key, current);
            let (count, demotion) = entry.count_enforcement(form, failed, answer, threshold);
            (count, demotion, entry.clone())
        })
        .map(|(result, _)| result)
    }

    /// Records that the server refused these sampling fields, or streaming, for `key`. With no
    /// entry yet, one is made from `current`.
    pub fn record_refusals(
        &self,
        key: &CacheKey,
        fields: &[String],
        refuses_streaming: bool,
        current: &Capabilities,
    ) -> Result<CacheEntry, CacheError> {
        self.update(|entries| {
            let entry = entry_for(entries, key, current);
            for field in fields {
                if !entry.refused_fields.contains(field) {
                    entry.refused_fields.push(field.clone());
                }
            }
            entry.refuses_streaming |= refuses_streaming;
            entry.clone()
        })
        .map(|(entry, _)| entry)
    }

    /// Records a probe of `key` that got no answer, with `current`'s outcomes (why each form is
    /// untested), unless a successful probe stands behind the entry (that one is kept, and
    /// used). With no entry yet, one is made from `current`.
    pub fn record_failed_probe(
        &self,
        key: &CacheKey,
        failed: FailedProbe,
        current: &Capabilities,
    ) -> Result<Option<String>, CacheError> {
        self.update(|entries| {
            let entry = entry_for(entries, key, current);
            if !entry.probed {
                entry.outcomes = current.outcomes.clone();
                entry.failed_probe = Some(failed);
            }
        })
        .map(|((), warning)| warning)
    }

    /// Counts a call to `key` that fell back to its last answer's text, whose failure class was
    /// `class`, under the lock so concurrent processes add up. With no entry yet, one is made
    /// from `current`. Returns the updated record.
    pub fn record_text_fallback(
        &self,
        key: &CacheKey,
        class: &str,
        current: &Capabilities,
    ) -> Result<TextFallbacks, CacheError> {
        self.update(|entries| {
            let entry = entry_for(entries, key, current);
            let count = entry.text_fallbacks.as_ref().map_or(0, |known| known.count);
            let record = TextFallbacks {
                count: count.saturating_add(1),
                last_at: now_rfc3339(),
                last_class: class.to_owned(),
            };
            entry.text_fallbacks = Some(record.clone());
            record
        })
        .map(|(record, _)| record)
    }

    /// Removes the entry for `key`; returns whether there was one.
    pub fn remove(&self, key: &CacheKey) -> Result<bool, CacheError> {
        self.update(|entries| {
            let before = entries.len();
            entries.retain(|entry| entry.key() != *key);
            before != entries.len()
        })
        .map(|(removed, _)| removed)
    }
}

/// The entry for `key`, made from `current` (not probed, no fingerprint) when there is none.
fn entry_for<'a>(
    entries: &'a mut Vec<CacheEntry>,
    key: &CacheKey,
    current: &Capabilities,
) -> &'a mut CacheEntry {
    match entries.iter().position(|entry| entry.key() == *key) {
        Some(position) => &mut entries[position],
        None => {
            entries.push(CacheEntry::new(key, current, None, None, Vec::new()));
            entries.last_mut().expect("just pushed")
        }
    }
}

#[cfg(test)]
mod tests {
    //! The capabilities cache's tests: entries by key, a corrupt file, demotions, enforcement
    //! failures, concurrent writers.

    use std::fs;

    use super::*;
    use crate::backends::capabilities::FormOutcome;
    use crate::backends::time::parse_rfc3339;
    use crate::config::Provider;
    use crate::schema::Mechanism;

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
                incomplete_probe: None,
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
}
