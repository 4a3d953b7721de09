//! The capabilities cache: `capabilities.json` in the config directory, one entry per
//! (provider, endpoint, model), so a probe is paid once, not per process.
//!
//! Every write is a read-modify-write under the advisory lock on `capabilities.json.lock`
//! ([`FileLock`]), and replaces the file atomically ([`write_json_atomic`]), so concurrent
//! processes neither corrupt the file nor lose each other's entries. Readers need no lock: a rename
//! is atomic. No secret is ever in an entry: there is no field for one, and body excerpts were
//! masked by the transport. Uses `config`, `files`, `schema`.
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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::config::Provider;
use crate::files::{FileError, FileLock, read_regular, write_json_atomic};
use crate::schema::Mechanism;

use super::capabilities::{Capabilities, FormOutcome, GuidedField, WireForm};
use super::errors::excerpt;
use super::fingerprint::Fingerprint;
use super::time::{format_rfc3339, now_rfc3339, parse_rfc3339};

/// The cache file's name in the config directory.
pub const CACHE_FILE_NAME: &str = "capabilities.json";

/// The format version written in the file. A file with a higher one is kept as it is.
pub const FORMAT_VERSION: u32 = 1;

/// What identifies an entry.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CacheKey {
    /// The provider.
    pub provider: Provider,
    /// The normalised endpoint, as displayed.
    pub endpoint: String,
    /// The model id; empty when none is configured.
    pub model: String,
}

/// A request-time demotion: a wire form the server refused, and when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Demotion {
    /// The wire form that was demoted.
    pub form: WireForm,
    /// The HTTP status that said no (absent when the failure had none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// When, RFC 3339 UTC.
    pub at: String,
    /// A short excerpt of the server's answer.
    pub body: String,
}

impl Demotion {
    /// A demotion of `form` now, with the status and an excerpt of `body`.
    pub fn now(form: WireForm, status: Option<u16>, body: &str) -> Demotion {
        Demotion {
            form,
            status,
            at: now_rfc3339(),
            body: excerpt(body),
        }
    }
}

/// How long a failed probe is remembered across processes: runs within it do not probe again
/// (each would pay the probe's deadline against a server that hangs or is still loading) and
/// use prompt-only JSON. Short, because a server is usually started soon after; `doctor` and
/// `probe --refresh` probe afresh.
pub const FAILED_PROBE_LIFETIME: Duration = Duration::from_secs(60);

/// A probe that got no answer: no connection, no answer in time, or a server still loading
/// (503) at its deadline. Kept in an entry no successful probe stands behind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedProbe {
    /// When, RFC 3339 UTC.
    pub at: String,
    /// Why the plain request failed.
    pub error: String,
    /// The status the server answered, when it answered (a 503 while loading).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Whether the connection was refused (nobody listens).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
}

impl FailedProbe {
    /// A failure recorded now.
    pub fn now(error: &str, status: Option<u16>, refused: bool) -> FailedProbe {
        FailedProbe {
            at: now_rfc3339(),
            error: excerpt(error),
            status,
            refused,
        }
    }

    /// Until when it stands (RFC 3339 UTC); `None` when `at` does not parse.
    pub fn until(&self) -> Option<String> {
        parse_rfc3339(&self.at).map(|at| format_rfc3339(at + FAILED_PROBE_LIFETIME))
    }

    /// Whether it still stands: recorded less than [`FAILED_PROBE_LIFETIME`] ago (a time in
    /// the future, from a clock set back, does not count as fresh beyond the lifetime either).
    pub fn is_fresh(&self) -> bool {
        let Some(at) = parse_rfc3339(&self.at) else {
            return false;
        };
        let now = SystemTime::now();
        match now.duration_since(at) {
            Ok(age) => age < FAILED_PROBE_LIFETIME,
            Err(ahead) => ahead.duration() < FAILED_PROBE_LIFETIME,
        }
    }
}

/// The calls through one (provider, endpoint, model) whose every attempt failed and whose last
/// answer's text was given back as plain text instead (`text_fallback`, seed 004's backstop):
/// how often, and the last time and why. It tells which model leans on the backstop; nothing
/// reads it to decide a call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TextFallbacks {
    /// How many calls fell back to text.
    pub count: u64,
    /// When the last one did, RFC 3339 UTC.
    pub last_at: String,
    /// The failure class of its last answer (`prose`, `truncated`, ...).
    pub last_class: String,
}

/// Everything known about one (provider, endpoint, model).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheEntry {
    /// The provider.
    pub provider: Provider,
    /// The normalised endpoint.
    pub endpoint: String,
    /// The model id; empty when none is configured.
    pub model: String,
    /// The selected mechanism (after demotions).
    pub mechanism: Mechanism,
    /// Whether json_schema requests carry `strict: true`.
    pub strict: bool,
    /// Which field guided decoding uses.
    pub guided_field: GuidedField,
    /// Whether a successful probe stands behind the entry.
    pub probed: bool,
    /// When the probe ran, RFC 3339 UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probed_at: Option<String>,
    /// Each wire form's probe outcome.
    #[serde(default)]
    pub outcomes: BTreeMap<WireForm, FormOutcome>,
    /// The server's fingerprint at probe time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<Fingerprint>,
    /// Request-time demotions, oldest first.
    #[serde(default)]
    pub demotions: Vec<Demotion>,
    /// Per wire form, how many answers in a row did not parse although the form claims to
    /// enforce (see [`CacheEntry::count_enforcement`]); forms at zero are left out.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub enforcement_failures: BTreeMap<WireForm, u32>,
    /// Sampling fields the server refused by name (a proxy that checks fields): not sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused_fields: Vec<String>,
    /// Whether the server refused to stream: answers are asked for whole.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refuses_streaming: bool,
    /// The last probe, when it got no answer and no successful probe stands behind the entry
    /// (see [`FAILED_PROBE_LIFETIME`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_probe: Option<FailedProbe>,
    /// The calls that fell back to the last answer's text (see [`TextFallbacks`]); absent until
    /// one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_fallbacks: Option<TextFallbacks>,
}

impl CacheEntry {
    /// The entry's key.
    pub fn key(&self) -> CacheKey {
        CacheKey {
            provider: self.provider,
            endpoint: self.endpoint.clone(),
            model: self.model.clone(),
        }
    }

    /// An entry for `key` holding `capabilities`.
    pub fn new(
        key: &CacheKey,
        capabilities: &Capabilities,
        probed_at: Option<String>,
        fingerprint: Option<Fingerprint>,
        demotions: Vec<Demotion>,
    ) -> CacheEntry {
        CacheEntry {
            provider: key.provider,
            endpoint: key.endpoint.clone(),
            model: key.model.clone(),
            mechanism: capabilities.mechanism,
            strict: capabilities.strict,
            guided_field: capabilities.guided_field,
            probed: capabilities.probed,
            probed_at,
            outcomes: capabilities.outcomes.clone(),
            fingerprint,
            demotions,
            enforcement_failures: BTreeMap::new(),
            refused_fields: Vec::new(),
            refuses_streaming: false,
            failed_probe: None,
            text_fallbacks: None,
        }
    }

    /// The demoted wire forms.
    pub fn demoted_forms(&self) -> Vec<WireForm> {
        self.demotions
            .iter()
            .map(|demotion| demotion.form)
            .collect()
    }

    /// The entry's capabilities.
    pub fn capabilities(&self) -> Capabilities {
        Capabilities {
            mechanism: self.mechanism,
            strict: self.strict,
            guided_field: self.guided_field,
            probed: self.probed,
            outcomes: self.outcomes.clone(),
        }
    }

    /// Counts one answer under `form` (a server that accepts a form does not always enforce
    /// it): `failed`
    /// (the answer did not parse although the form claims to enforce) adds one to the form's
    /// failures in a row; a parsed answer resets them. The failure that reaches `threshold`
    /// marks the form not enforced (its outcome keeps `answer`) and demotes it exactly like a
    /// rejection; the demotion is returned. Returns the count after this answer.
    pub fn count_enforcement(
        &mut self,
        form: WireForm,
        failed: bool,
        answer: &str,
        threshold: u32,
    ) -> (u32, Option<Demotion>) {
        if !failed {
            self.enforcement_failures.remove(&form);
            return (0, None);
        }
        let count = self.enforcement_failures.entry(form).or_insert(0);
        *count += 1;
        let count = *count;
        if count < threshold || self.demoted_forms().contains(&form) {
            return (count, None);
        }
        self.enforcement_failures.remove(&form);
        let answer = super::errors::excerpt_chars(answer, 80);
        self.outcomes.insert(
            form,
            FormOutcome::NotEnforced {
                answer: answer.clone(),
            },
        );
        let demotion = Demotion::now(
            form,
            None,
            &format!("accepted but not enforced: {count} answers in a row did not parse: {answer}"),
        );
        self.demote(demotion.clone());
        (count, Some(demotion))
    }

    /// Records `demotion` and selects again without the demoted forms.
    pub fn demote(&mut self, demotion: Demotion) {
        self.demotions.push(demotion);
        let selected =
            Capabilities::select(self.outcomes.clone(), &self.demoted_forms(), self.probed);
        self.mechanism = selected.mechanism;
        self.strict = selected.strict;
        self.guided_field = selected.guided_field;
    }
}

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
#[path = "cache_tests.rs"]
mod tests;
