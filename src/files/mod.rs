//! The files slmcode keeps in its config directory (`config.toml`, `capabilities.json`,
//! `repair-stats.json`), read and written one way:
//!
//! - only a regular file, or a symlink to one, is read or replaced. What is at the path is
//!   looked up from its metadata before anything is opened: opening a FIFO would block the
//!   command, and a rename over a device would replace it ([`read_regular`], [`write_atomic`]);
//! - a write goes to a temporary file in the same directory, is fsynced, then renamed over the
//!   file, so a reader sees the old file or the new one and never half of one ([`write_atomic`]);
//! - a read-modify-write holds an advisory lock on `<file>.lock` beside the file from the read
//!   to the rename, so processes editing at the same moment never lose each other's changes
//!   ([`FileLock`]).
//!
//! The repair statistics' file is read and written here too ([`stats`]), so `repair` stays
//! pure counting. Depends on nothing else in the crate but the types of the files it keeps;
//! never prints.

use std::fmt;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub mod stats;

/// Something other than a regular file is at a path slmcode reads or writes (following a
/// symlink): it is neither opened nor replaced.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct NotRegularFile {
    /// The path as slmcode was given it.
    pub path: PathBuf,
    /// Where the path leads, when it is a symlink.
    pub target: Option<PathBuf>,
    /// What is there instead: "a named pipe (FIFO)", "a character device", "a directory", ...
    pub kind: &'static str,
}

impl fmt::Display for NotRegularFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.target {
            Some(target) => write!(
                f,
                "{} links to {}, {}, not a regular file",
                self.path.display(),
                target.display(),
                self.kind
            ),
            None => write!(
                f,
                "{} is {}, not a regular file",
                self.path.display(),
                self.kind
            ),
        }
    }
}

/// Why a file could not be read, written or locked. The caller adds which file and what it
/// was doing.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The path holds something other than a regular file.
    #[error(transparent)]
    NotRegular(#[from] NotRegularFile),
    /// What the system said.
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// Whether a regular file is at `path` (following a symlink), from its metadata alone:
/// `Ok(false)` when nothing is there, [`FileError::NotRegular`] when something else is.
pub fn regular_file_exists(path: &Path) -> Result<bool, FileError> {
    let metadata = match fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(error) => return Err(error.into()),
    };
    if metadata.is_file() {
        return Ok(true);
    }
    let is_link = fs::symlink_metadata(path).is_ok_and(|link| link.file_type().is_symlink());
    Err(NotRegularFile {
        path: path.to_owned(),
        target: is_link.then(|| fs::canonicalize(path).ok()).flatten(),
        kind: kind_of(&metadata.file_type()),
    }
    .into())
}

#[cfg(unix)]
fn kind_of(file_type: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_fifo() {
        "a named pipe (FIFO)"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else {
        "something else"
    }
}

#[cfg(not(unix))]
fn kind_of(file_type: &fs::FileType) -> &'static str {
    if file_type.is_dir() {
        "a directory"
    } else {
        "something else"
    }
}

/// The bytes of the regular file at `path` (or of the one a symlink there leads to); `None`
/// when nothing is there. Anything else is refused before it is opened.
pub fn read_regular(path: &Path) -> Result<Option<Vec<u8>>, FileError> {
    if !regular_file_exists(path)? {
        return Ok(None);
    }
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        // Removed between the look and the read: as if it had never been there.
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(error.into()),
    }
}

/// Writes `contents` to `path` so that readers see the old file or the new one, never a mix:
/// a temporary file in the same directory (created 0600 when `private`), written and fsynced,
/// then renamed over `path`, then the directory fsynced. A symlink to a regular file (dotfile
/// managers) is written through: the link stays and its target is replaced. The file keeps its
/// mode unless `private`. Anything but a regular file at `path` (a FIFO, a socket, a device, a
/// directory, or a link to one) is refused and left as it is. On any failure the temporary
/// file is removed and `path` is as it was.
pub fn write_atomic(path: &Path, contents: &[u8], private: bool) -> Result<(), FileError> {
    regular_file_exists(path)?;
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
    // The temporary file is removed when it is dropped, on every way out before the rename.
    let mut builder = tempfile::Builder::new();
    let prefix = format!(
        ".{}.",
        target
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or("file")
    );
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(if private {
            0o600
        } else {
            0o666
        }));
    }
    let mut temporary = builder.tempfile_in(&directory)?;
    temporary.write_all(contents)?;
    let file = temporary.as_file();
    if private {
        set_private(file)?;
    } else if let Some(permissions) = existing_permissions {
        file.set_permissions(permissions)?;
    }
    file.sync_all()?;
    // Looked at again just before the rename: a special file put there since is not replaced
    // either.
    regular_file_exists(&target)?;
    temporary
        .persist(&target)
        .map_err(|error| FileError::from(error.error))?;
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

/// `value` as pretty JSON with a final newline, written with [`write_atomic`] (not private).
pub fn write_json_atomic(path: &Path, value: &impl serde::Serialize) -> Result<(), FileError> {
    let mut text = serde_json::to_vec_pretty(value).map_err(io::Error::from)?;
    text.push(b'\n');
    write_atomic(path, &text, false)
}

/// The permission bits of `path` (unix), for warnings about a file others may read.
#[cfg(unix)]
pub(crate) fn mode(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path)
        .ok()
        .map(|metadata| metadata.permissions().mode() & 0o777)
}

/// The permission bits of `path`: not meaningful off unix.
#[cfg(not(unix))]
pub(crate) fn mode(_path: &Path) -> Option<u32> {
    None
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
    pub fn acquire(file: &Path) -> Result<FileLock, FileError> {
        let lock = FileLock::open(file)?;
        lock.lock()?;
        Ok(FileLock { file: lock })
    }

    /// Like [`FileLock::acquire`], but gives up after `wait` while another process holds the
    /// lock: `Ok(None)` then. For work that is not worth a hang.
    pub fn acquire_within(file: &Path, wait: Duration) -> Result<Option<FileLock>, FileError> {
        let lock = FileLock::open(file)?;
        let started = Instant::now();
        loop {
            match lock.try_lock() {
                Ok(()) => return Ok(Some(FileLock { file: lock })),
                Err(TryLockError::WouldBlock) if started.elapsed() < wait => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(TryLockError::WouldBlock) => return Ok(None),
                Err(TryLockError::Error(source)) => return Err(source.into()),
            }
        }
    }

    fn open(file: &Path) -> Result<File, FileError> {
        let path = FileLock::path_for(file);
        if let Some(directory) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            fs::create_dir_all(directory)?;
        }
        // Opening a FIFO to write would wait for a reader.
        regular_file_exists(&path)?;
        Ok(OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?)
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
mod tests;
