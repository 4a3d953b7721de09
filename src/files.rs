//! The files slmcode keeps in its config directory (`config.toml`, `capabilities.json`,
//! `repair-stats.json`), written one way:
//!
//! - a write goes to a temporary file in the same directory, is fsynced, then renamed over the
//!   file, so a reader sees the old file or the new one and never half of one ([`write_atomic`]);
//! - a read-modify-write holds an advisory lock on `<file>.lock` beside the file from the read
//!   to the rename, so processes editing at the same moment never lose each other's changes
//!   ([`FileLock`]).
//!
//! Depends on nothing else in the crate; never prints.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `contents` to `path` so that readers see the old file or the new one, never a mix:
/// a temporary file in the same directory (created 0600 when `private`), written and fsynced,
/// then renamed over `path`, then the directory fsynced. A symlinked file (dotfile managers)
/// is written through the link, and the file keeps its mode unless `private`. On failure the
/// temporary file is removed and `path` is as it was.
pub fn write_atomic(path: &Path, contents: &[u8], private: bool) -> io::Result<()> {
    let target = match fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => fs::canonicalize(path)?,
        _ => path.to_owned(),
    };
    let directory = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&directory)?;
    let existing_permissions = fs::metadata(&target)
        .ok()
        .map(|metadata| metadata.permissions());
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let temporary = directory.join(format!(
        ".{}.{}.{}.tmp",
        target
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("file"),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
    ));
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(if private { 0o600 } else { 0o666 });
    }
    let written = (|| {
        let mut file = options.open(&temporary)?;
        file.write_all(contents)?;
        if private {
            set_private(&file)?;
        } else if let Some(permissions) = existing_permissions {
            file.set_permissions(permissions)?;
        }
        file.sync_all()?;
        drop(file);
        fs::rename(&temporary, &target)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    written?;
    // The rename is durable only once the directory entry is; not every platform can open a
    // directory, and the file is already complete either way.
    if let Ok(directory) = File::open(&directory) {
        let _ = directory.sync_all();
    }
    Ok(())
}

#[cfg(unix)]
fn set_private(file: &File) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(0o600))
}

#[cfg(not(unix))]
fn set_private(_file: &File) -> io::Result<()> {
    Ok(())
}

/// An advisory lock (`std::fs::File::lock`) on `<file>.lock` beside a file, held until it is
/// dropped: take it before reading a file you will write back, and drop it after the write.
/// Every process that edits the file takes the same lock, so none loses another's edit;
/// readers need none, because writes are atomic renames.
#[derive(Debug)]
pub struct FileLock {
    file: File,
}

impl FileLock {
    /// Waits for, then takes, the lock for `file` (creating the directory and the lock file
    /// when needed). An error is about [`FileLock::path_for`]`(file)`.
    pub fn acquire(file: &Path) -> io::Result<FileLock> {
        let path = FileLock::path_for(file);
        if let Some(directory) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            fs::create_dir_all(directory)?;
        }
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?;
        lock.lock()?;
        Ok(FileLock { file: lock })
    }

    /// The lock file for `file`: `<file>.lock` in the same directory.
    pub fn path_for(file: &Path) -> PathBuf {
        let mut path = file.as_os_str().to_owned();
        path.push(".lock");
        PathBuf::from(path)
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Closing the file releases the lock as well; this keeps the release explicit.
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
#[path = "files_tests.rs"]
mod tests;
