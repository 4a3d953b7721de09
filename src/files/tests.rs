//! Regular files only, atomic writes, modes, symlinks, and the lock beside a file.

use super::*;

#[cfg(unix)]
fn make_fifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o644) }, 0);
}

#[cfg(unix)]
fn is_fifo(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    fs::symlink_metadata(path).unwrap().file_type().is_fifo()
}

fn names_in(directory: &Path) -> Vec<String> {
    let mut names: Vec<_> = fs::read_dir(directory)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[cfg(unix)]
#[test]
fn a_private_write_is_0600() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    fs::write(&path, "a = 1\n").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    write_atomic(&path, b"a = 2\n", true).unwrap();
    assert_eq!(mode(&path).unwrap(), 0o600);
}

#[cfg(unix)]
#[test]
fn a_write_keeps_the_mode() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    fs::write(&path, "model = \"m\"\n").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    write_atomic(&path, b"model = \"n\"\n", false).unwrap();
    assert_eq!(mode(&path).unwrap(), 0o640);
}

#[cfg(unix)]
#[test]
fn a_new_file_gets_the_mode_any_new_file_gets() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain");
    fs::write(&plain, "").unwrap();
    let path = dir.path().join("repair-stats.json");
    write_atomic(&path, b"{}\n", false).unwrap();
    // What the umask leaves of 0666, as for a file created the ordinary way.
    assert_eq!(mode(&path).unwrap(), mode(&plain).unwrap());
    let private = dir.path().join("private");
    write_atomic(&private, b"", true).unwrap();
    assert_eq!(mode(&private).unwrap(), 0o600);
}

#[test]
fn an_atomic_write_replaces_the_file_and_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("config.toml");
    write_atomic(&path, b"a = 1\n", false).unwrap();
    write_atomic(&path, b"a = 2\n", false).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "a = 2\n");
    assert_eq!(names_in(path.parent().unwrap()), ["config.toml"]);
}

#[test]
fn a_failed_write_leaves_no_temporary_file_behind() {
    let dir = tempfile::tempdir().unwrap();
    // A directory where the file should be: refused, and left as it is.
    let path = dir.path().join("config.toml");
    fs::create_dir(&path).unwrap();
    fs::write(path.join("inside"), "kept").unwrap();
    let error = write_atomic(&path, b"a = 1\n", false).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("{} is a directory, not a regular file", path.display())
    );
    assert_eq!(names_in(dir.path()), ["config.toml"]);
    assert_eq!(fs::read_to_string(path.join("inside")).unwrap(), "kept");
}

#[cfg(unix)]
#[test]
fn a_symlinked_file_is_written_through_the_link() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("dotfiles-config.toml");
    fs::write(&real, "a = 1\n").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
    let link = dir.path().join("config.toml");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    write_atomic(&link, b"a = 2\n", false).unwrap();
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(fs::read_to_string(&real).unwrap(), "a = 2\n");
    assert_eq!(mode(&real).unwrap(), 0o640);
    assert_eq!(read_regular(&link).unwrap().unwrap(), b"a = 2\n");
}

#[cfg(unix)]
#[test]
fn a_fifo_is_neither_opened_nor_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("config.toml");
    make_fifo(&fifo);
    let refused = format!(
        "{} is a named pipe (FIFO), not a regular file",
        fifo.display()
    );
    // Opening it to read would wait for a writer: it is refused from its metadata instead.
    assert_eq!(read_regular(&fifo).unwrap_err().to_string(), refused);
    assert_eq!(
        write_atomic(&fifo, b"a = 1\n", false)
            .unwrap_err()
            .to_string(),
        refused
    );
    assert!(is_fifo(&fifo));
    assert_eq!(names_in(dir.path()), ["config.toml"]);
}

#[cfg(unix)]
#[test]
fn a_link_to_something_else_is_refused_with_where_it_leads() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    make_fifo(&fifo);
    let link = dir.path().join("config.toml");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    let error = write_atomic(&link, b"a = 1\n", false).unwrap_err();
    let FileError::NotRegular(refused) = error else {
        panic!("{error:?}");
    };
    assert_eq!(
        refused,
        NotRegularFile {
            path: link.clone(),
            target: Some(fs::canonicalize(&fifo).unwrap()),
            kind: "a named pipe (FIFO)",
        }
    );
    assert!(is_fifo(&fifo));
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(names_in(dir.path()), ["config.toml", "pipe"]);
    assert!(matches!(read_regular(&link), Err(FileError::NotRegular(_))));
}

#[cfg(unix)]
#[test]
fn a_lock_file_that_is_a_fifo_is_refused_rather_than_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    make_fifo(&FileLock::path_for(&path));
    assert!(matches!(
        FileLock::acquire(&path),
        Err(FileError::NotRegular(_))
    ));
}

#[test]
fn nothing_there_reads_as_none() {
    let dir = tempfile::tempdir().unwrap();
    let absent = dir.path().join("absent");
    assert!(read_regular(&absent).unwrap().is_none());
    assert!(!regular_file_exists(&absent).unwrap());
    fs::write(&absent, "now").unwrap();
    assert!(regular_file_exists(&absent).unwrap());
}

#[test]
fn the_lock_serialises_read_modify_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("counter");
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| {
                for _ in 0..10 {
                    let _lock = FileLock::acquire(&path).unwrap();
                    let count: u32 =
                        fs::read_to_string(&path).map_or(0, |text| text.parse().unwrap());
                    write_atomic(&path, (count + 1).to_string().as_bytes(), false).unwrap();
                }
            });
        }
    });
    assert_eq!(fs::read_to_string(&path).unwrap(), "80");
    assert_eq!(
        FileLock::path_for(&path),
        dir.path().join("nested").join("counter.lock")
    );
    assert_eq!(
        names_in(&dir.path().join("nested")),
        ["counter", "counter.lock"]
    );
}
