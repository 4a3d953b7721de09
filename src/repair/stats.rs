//! Repair statistics: how often each rung fired and how each repair ended, so `status` can
//! show which failure mode a model actually has.
//!
//! The library counts ([`Stats::record`], [`Stats::merge`]); [`Stats::load`] and
//! [`Stats::save`] read and write the small JSON file the CLI keeps next to the config
//! ([`STATS_FILE`]). Saving is atomic ([`write_atomic`]: a reader never sees half a file).
//! [`Stats::add_to_file`] does the read-add-write under the advisory lock beside the file
//! ([`FileLock`]), so processes counting at the same moment all add up (a plain load and save
//! would let the last rename win). Callers treat every error here as a warning: statistics are
//! never a reason to fail. Uses `files` for the I/O.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::files::{FileError, FileLock, read_regular, write_atomic};

use super::outcome::{RepairFailure, Repaired};

/// The file name of the statistics in the config directory.
pub const STATS_FILE: &str = "repair-stats.json";

/// Counts of repairs, persisted as JSON:
/// `{"version":1,"total":N,"outcomes":{"repaired":N,"truncated":N,...},
/// "rungs":{"none":N,"fence":N,...},"changed":{"fence":N,...}}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// The file format's version; 1.
    #[serde(default = "format_version")]
    pub version: u32,
    /// How many repairs were recorded.
    #[serde(default)]
    pub total: u64,
    /// Per outcome: `repaired` (including valid-as-is) or a failure class name.
    #[serde(default)]
    pub outcomes: BTreeMap<String, u64>,
    /// Per reported rung, for the repairs that succeeded.
    #[serde(default)]
    pub rungs: BTreeMap<String, u64>,
    /// Per rung, how often it changed something (successes and failures alike).
    #[serde(default)]
    pub changed: BTreeMap<String, u64>,
    /// Structured calls by how they ended ([`CallEnding`]): valid as the first answer came,
    /// fixed by repair, fixed by a re-ask, or failed. Only the call path records these; absent
    /// from the file until it does.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub calls: BTreeMap<String, u64>,
}

/// How one structured call got its answer, for [`Stats::record_call`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallEnding {
    /// The first answer was valid as it came.
    AsIs,
    /// The first answer needed the repair ladder.
    Repaired,
    /// A re-ask gave the answer (whatever the repair it needed).
    Reasked,
    /// No valid answer.
    Failed,
}

impl CallEnding {
    /// The counter's name: `as_is`, `repaired`, `reasked`, `failed`.
    pub const fn as_str(self) -> &'static str {
        match self {
            CallEnding::AsIs => "as_is",
            CallEnding::Repaired => "repaired",
            CallEnding::Reasked => "reasked",
            CallEnding::Failed => "failed",
        }
    }
}

fn format_version() -> u32 {
    1
}

/// Adds `count` to the counter `name`, stopping at `u64::MAX`.
fn bump(counters: &mut BTreeMap<String, u64>, name: &str, count: u64) {
    let counter = counters.entry(name.to_owned()).or_default();
    *counter = counter.saturating_add(count);
}

/// How long [`Stats::add_to_file`] waits for another process's lock before it gives up.
pub const LOCK_WAIT: Duration = Duration::from_millis(500);

/// Why statistics could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StatsError {
    /// The file exists but could not be read (or is not a regular file).
    #[error("cannot read {path}")]
    Read {
        /// The stats file.
        path: PathBuf,
        /// What the system said, or what is there instead of a regular file.
        #[source]
        source: FileError,
    },
    /// The file is not a stats document (it will be replaced on the next save).
    #[error("{path} is not a repair stats file")]
    Corrupt {
        /// The stats file.
        path: PathBuf,
        /// What the JSON parser said.
        #[source]
        source: serde_json::Error,
    },
    /// Another process held the lock for longer than [`LOCK_WAIT`].
    #[error("{path} is locked by another process")]
    Busy {
        /// The lock file.
        path: PathBuf,
    },
    /// The file (or its directory, its lock, or the temporary file) could not be written.
    #[error("cannot write {path}")]
    Write {
        /// The stats file, or its lock.
        path: PathBuf,
        /// What the system said, or what is there instead of a regular file.
        #[source]
        source: FileError,
    },
}

impl Stats {
    /// Empty counts.
    pub fn new() -> Stats {
        Stats {
            version: format_version(),
            ..Stats::default()
        }
    }

    /// Counts one repair's result. Counters stop at `u64::MAX` rather than wrap.
    pub fn record(&mut self, result: &Result<Repaired, RepairFailure>) {
        self.total = self.total.saturating_add(1);
        let (outcome, changed) = match result {
            Ok(repaired) => {
                bump(&mut self.rungs, repaired.rung.as_str(), 1);
                ("repaired", &repaired.rungs_changed)
            }
            Err(failure) => (failure.class.as_str(), &failure.rungs_changed),
        };
        bump(&mut self.outcomes, outcome, 1);
        for rung in changed {
            bump(&mut self.changed, rung.as_str(), 1);
        }
    }

    /// Counts how one structured call ended.
    pub fn record_call(&mut self, ending: CallEnding) {
        bump(&mut self.calls, ending.as_str(), 1);
    }

    /// Adds `other`'s counts to these (saturating, like [`Stats::record`]).
    pub fn merge(&mut self, other: &Stats) {
        self.total = self.total.saturating_add(other.total);
        for (mine, theirs) in [
            (&mut self.outcomes, &other.outcomes),
            (&mut self.rungs, &other.rungs),
            (&mut self.changed, &other.changed),
            (&mut self.calls, &other.calls),
        ] {
            for (name, count) in theirs {
                bump(mine, name, *count);
            }
        }
    }

    /// Reads the stats at `path`; a missing file is empty stats.
    pub fn load(path: &Path) -> Result<Stats, StatsError> {
        let bytes = match read_regular(path) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(Stats::new()),
            Err(source) => {
                return Err(StatsError::Read {
                    path: path.to_owned(),
                    source,
                });
            }
        };
        serde_json::from_slice(&bytes).map_err(|source| StatsError::Corrupt {
            path: path.to_owned(),
            source,
        })
    }

    /// Adds these counts to the stats file at `path`, under the advisory lock on `<path>.lock`
    /// held from the read to the rename, so concurrent processes never lose each other's
    /// counts. A lock another process holds for longer than [`LOCK_WAIT`] is
    /// [`StatsError::Busy`]: counting is not worth a hang. A file that is not a stats document
    /// is replaced; the error that said so comes back as `Ok(Some(..))`.
    pub fn add_to_file(&self, path: &Path) -> Result<Option<StatsError>, StatsError> {
        let lock_path = FileLock::path_for(path);
        let lock = FileLock::acquire_within(path, LOCK_WAIT)
            .map_err(|source| StatsError::Write {
                path: lock_path.clone(),
                source,
            })?
            .ok_or(StatsError::Busy { path: lock_path })?;
        let (mut total, replaced) = match Stats::load(path) {
            Ok(total) => (total, None),
            Err(error @ StatsError::Corrupt { .. }) => (Stats::new(), Some(error)),
            Err(error) => return Err(error),
        };
        total.merge(self);
        total.save(path)?;
        drop(lock);
        Ok(replaced)
    }

    /// Writes the stats to `path` atomically (a temporary file in the same directory, then a
    /// rename), creating the directory if needed.
    pub fn save(&self, path: &Path) -> Result<(), StatsError> {
        let mut text = serde_json::to_vec_pretty(self).expect("stats always serialise");
        text.push(b'\n');
        write_atomic(path, &text, false).map_err(|source| StatsError::Write {
            path: path.to_owned(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::{RepairOptions, repair};

    #[test]
    fn counts_rungs_outcomes_and_changes() {
        let mut stats = Stats::new();
        let options = RepairOptions::new();
        stats.record(&repair("{\"a\": 1}", &options));
        stats.record(&repair("```json\n{'a': 1,}\n```", &options));
        stats.record(&repair("{\"a\": [1, 2", &options));
        stats.record(&repair("no json here", &options));
        assert_eq!(stats.total, 4);
        assert_eq!(stats.outcomes["repaired"], 2);
        assert_eq!(stats.outcomes["truncated"], 1);
        assert_eq!(stats.outcomes["prose"], 1);
        assert_eq!(stats.rungs["none"], 1);
        assert_eq!(stats.rungs["quotes"], 1);
        assert_eq!(stats.changed["fence"], 1);
        assert_eq!(stats.changed["trailing_comma"], 1);

        let mut merged = Stats::new();
        merged.merge(&stats);
        merged.merge(&stats);
        assert_eq!(merged.total, 8);
        assert_eq!(merged.outcomes["repaired"], 4);
    }

    #[test]
    fn concurrent_additions_all_count() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join(STATS_FILE);
        let mut one = Stats::new();
        one.record(&repair("{\"a\": 1}", &RepairOptions::new()));
        // Every addition either counts or, when the lock stayed taken for longer than
        // LOCK_WAIT, says so: none is lost without a word.
        let counted = std::sync::atomic::AtomicU64::new(0);
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for _ in 0..10 {
                        match one.add_to_file(&path) {
                            Ok(None) => {
                                counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            }
                            Err(StatsError::Busy { .. }) => {}
                            other => panic!("{other:?}"),
                        }
                    }
                });
            }
        });
        let counted = counted.into_inner();
        assert!(counted > 0);
        let total = Stats::load(&path).unwrap();
        assert_eq!(total.total, counted);
        assert_eq!(total.rungs["none"], counted);
        // A corrupt file is replaced, and the caller is told.
        std::fs::write(&path, "not json").unwrap();
        let replaced = one.add_to_file(&path).unwrap();
        assert!(matches!(replaced, Some(StatsError::Corrupt { .. })));
        assert_eq!(Stats::load(&path).unwrap().total, 1);
    }

    #[test]
    fn saves_atomically_and_loads_back() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("nested").join(STATS_FILE);
        assert_eq!(Stats::load(&path).unwrap(), Stats::new());
        let mut stats = Stats::new();
        stats.record(&repair("[1,]", &RepairOptions::new()));
        stats.save(&path).unwrap();
        assert_eq!(Stats::load(&path).unwrap(), stats);
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from(STATS_FILE)]);

        std::fs::write(&path, "not json").unwrap();
        assert!(matches!(
            Stats::load(&path),
            Err(StatsError::Corrupt { .. })
        ));
    }

    #[test]
    fn an_unwritable_place_is_an_error_not_a_panic() {
        let directory = tempfile::tempdir().unwrap();
        let blocker = directory.path().join("file");
        std::fs::write(&blocker, "").unwrap();
        let error = Stats::new().save(&blocker.join(STATS_FILE)).unwrap_err();
        assert!(matches!(error, StatsError::Write { .. }), "{error:?}");
    }
}
