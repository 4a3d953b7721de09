//! The repair statistics' file, `repair-stats.json` in the config directory ([`STATS_FILE`]):
//! [`load`] reads it, [`save`] replaces it atomically (a reader never sees half a file), and
//! [`add`] does the read-add-write under the advisory lock beside the file, so processes
//! counting at the same moment all add up (a plain load and save would let the last rename
//! win). Callers treat every error here as a warning: statistics are never a reason to fail.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{FileError, FileLock, read_regular, write_json_atomic};
use crate::repair::{STATS_FORMAT_VERSION, Stats};

/// The file name of the statistics in the config directory.
pub const STATS_FILE: &str = "repair-stats.json";

/// How long [`add`] waits for another process's lock before it gives up.
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
    /// The file was written by a newer slmcode (its `version` is above
    /// [`STATS_FORMAT_VERSION`]): it is kept as it is, and nothing is added to it.
    #[error(
        "{path} was written by a newer slmcode (format version {version}; this one writes \
         {STATS_FORMAT_VERSION}): it is kept as it is"
    )]
    Newer {
        /// The stats file.
        path: PathBuf,
        /// The file's format version.
        version: u64,
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
    let corrupt = |source| StatsError::Corrupt {
        path: path.to_owned(),
        source,
    };
    // The version is read before the counts: a newer format may not parse as this one, and
    // must not be taken for a corrupt file and replaced.
    let version: FormatVersion = serde_json::from_slice(&bytes).map_err(corrupt)?;
    if let Some(version) = version
        .version
        .filter(|v| *v > u64::from(STATS_FORMAT_VERSION))
    {
        return Err(StatsError::Newer {
            path: path.to_owned(),
            version,
        });
    }
    serde_json::from_slice(&bytes).map_err(corrupt)
}

/// Only the `version` of a stats file.
#[derive(serde::Deserialize)]
struct FormatVersion {
    version: Option<u64>,
}

/// Adds `stats` to the stats file at `path`, under the advisory lock on `<path>.lock` held
/// from the read to the rename, so concurrent processes never lose each other's counts. A lock
/// another process holds for longer than [`LOCK_WAIT`] is [`StatsError::Busy`]: counting is
/// not worth a hang. A file that is not a stats document is replaced; the error that said so
/// comes back as `Ok(Some(..))`.
pub fn add(stats: &Stats, path: &Path) -> Result<Option<StatsError>, StatsError> {
    let lock_path = FileLock::path_for(path);
    let lock = FileLock::acquire_within(path, LOCK_WAIT)
        .map_err(|source| StatsError::Write {
            path: lock_path.clone(),
            source,
        })?
        .ok_or(StatsError::Busy { path: lock_path })?;
    let (mut total, replaced) = match load(path) {
        Ok(total) => (total, None),
        Err(error @ StatsError::Corrupt { .. }) => (Stats::new(), Some(error)),
        Err(error) => return Err(error),
    };
    total.merge(stats);
    save(&total, path)?;
    drop(lock);
    Ok(replaced)
}

/// Writes `stats` to `path` atomically (a temporary file in the same directory, then a
/// rename), creating the directory if needed.
pub fn save(stats: &Stats, path: &Path) -> Result<(), StatsError> {
    write_json_atomic(path, stats).map_err(|source| StatsError::Write {
        path: path.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repair::{RepairOptions, repair};

    #[test]
    fn a_file_from_a_newer_slmcode_is_kept_and_not_added_to() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join(STATS_FILE);
        // A newer format whose counts this build could not even read.
        let newer = r#"{"version": 2, "total": "many", "future": {"x": 1}}"#;
        std::fs::write(&path, newer).unwrap();
        let mut one = Stats::new();
        one.record(&repair("{\"a\": 1}", &RepairOptions::new()));
        let error = add(&one, &path).unwrap_err();
        assert!(
            matches!(error, StatsError::Newer { version: 2, .. }),
            "{error:?}"
        );
        assert!(
            error.to_string().ends_with(
                "was written by a newer slmcode (format version 2; this one writes 1): it is kept as it is"
            ),
            "{error}"
        );
        assert!(matches!(load(&path), Err(StatsError::Newer { .. })));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), newer);
        // This build's own version, or none, is read as before.
        std::fs::write(&path, r#"{"version": 1, "total": 3}"#).unwrap();
        assert_eq!(load(&path).unwrap().total, 3);
        std::fs::write(&path, r#"{"total": 4}"#).unwrap();
        assert_eq!(load(&path).unwrap().total, 4);
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
                        match add(&one, &path) {
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
        let total = load(&path).unwrap();
        assert_eq!(total.total, counted);
        assert_eq!(total.rungs["none"], counted);
        // A corrupt file is replaced, and the caller is told.
        std::fs::write(&path, "not json").unwrap();
        let replaced = add(&one, &path).unwrap();
        assert!(matches!(replaced, Some(StatsError::Corrupt { .. })));
        assert_eq!(load(&path).unwrap().total, 1);
    }

    #[test]
    fn saves_atomically_and_loads_back() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("nested").join(STATS_FILE);
        assert_eq!(load(&path).unwrap(), Stats::new());
        let mut stats = Stats::new();
        stats.record(&repair("[1,]", &RepairOptions::new()));
        save(&stats, &path).unwrap();
        assert_eq!(load(&path).unwrap(), stats);
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from(STATS_FILE)]);

        std::fs::write(&path, "not json").unwrap();
        assert!(matches!(load(&path), Err(StatsError::Corrupt { .. })));
    }

    #[test]
    fn an_unwritable_place_is_an_error_not_a_panic() {
        let directory = tempfile::tempdir().unwrap();
        let blocker = directory.path().join("file");
        std::fs::write(&blocker, "").unwrap();
        let error = save(&Stats::new(), &blocker.join(STATS_FILE)).unwrap_err();
        assert!(matches!(error, StatsError::Write { .. }), "{error:?}");
    }
}
