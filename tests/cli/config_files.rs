//! `config.toml` as a file: only regular files (or links to them) are read or replaced, edits
//! from parallel processes all land, the file's own line endings are kept, and an empty
//! `SLMCODE_CONFIG_DIR` counts as unset and says so.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::json;

use crate::util::{Slm, config_file, read_config};

#[cfg(unix)]
fn c_path(path: &Path) -> std::ffi::CString {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap()
}

#[cfg(unix)]
fn make_fifo(path: &Path) {
    let made = unsafe { libc::mkfifo(c_path(path).as_ptr(), 0o644) };
    assert_eq!(made, 0, "mkfifo {}", path.display());
}

/// A character device for a link to lead to: a copy of `/dev/null` (same device numbers) made
/// at `path`, or, for a user who may not make devices, the real `/dev/null` when that user may
/// not write to `/dev` either, so a regression cannot replace it. Never the real one otherwise: a
/// regression must not replace a device the system uses. `None`: neither can be had.
#[cfg(unix)]
fn null_device(path: &Path) -> Option<PathBuf> {
    // SAFETY: a path that is a valid C string; mknod only creates a node or fails.
    let made = unsafe {
        libc::mknod(
            c_path(path).as_ptr(),
            libc::S_IFCHR | 0o666,
            libc::makedev(1, 3),
        )
    };
    if made == 0 {
        return Some(path.to_owned());
    }
    // SAFETY: a valid C string; access only asks.
    let dev_writable = unsafe { libc::access(c"/dev".as_ptr(), libc::W_OK) } == 0;
    let null = Path::new("/dev/null");
    (!dev_writable && null.exists()).then(|| null.to_owned())
}

fn refusal(path: &Path, what: &str) -> String {
    format!(
        "error: {path} {what}, not a regular file\nhint: replace {path} with a regular file or a \
         symlink to one\n",
        path = path.display()
    )
}

#[cfg(unix)]
#[test]
fn a_fifo_config_is_refused_by_every_command_without_blocking() {
    use std::os::unix::fs::FileTypeExt;
    let slm = Slm::new();
    let path = config_file(&slm);
    make_fifo(&path);
    for command in [
        vec!["config", "list"],
        vec!["config", "get", "model"],
        vec!["config", "set", "model", "m"],
        vec!["config", "unset", "model"],
        vec!["readiness", "--fix"],
        vec!["status"],
    ] {
        let run = slm.run(&command, "");
        run.code(1);
        assert_eq!(run.stdout, "", "{command:?}");
        assert_eq!(
            run.stderr,
            refusal(&path, "is a named pipe (FIFO)"),
            "{command:?}"
        );
    }
    assert!(
        std::fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_fifo()
    );
}

#[cfg(unix)]
#[test]
fn set_through_a_link_to_a_device_is_refused_and_the_device_kept() {
    use std::os::unix::fs::FileTypeExt;
    let slm = Slm::new();
    let Some(device) = null_device(&slm.work_dir().join("null-copy")) else {
        crate::skip::skip(
            "set_through_a_link_to_a_device_is_refused_and_the_device_kept",
            "this user may not make a device node, and may write to /dev",
        );
        return;
    };
    let link = config_file(&slm);
    std::os::unix::fs::symlink(&device, &link).unwrap();
    let target = std::fs::canonicalize(&device).unwrap();
    for command in [
        vec!["config", "set", "model", "m"],
        vec!["config", "unset", "model"],
        vec!["config", "list"],
    ] {
        let run = slm.run(&command, "");
        run.code(1);
        assert_eq!(
            run.stderr,
            refusal(
                &link,
                &format!("links to {}, a character device", target.display())
            ),
            "{command:?}"
        );
    }
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::metadata(&device)
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

#[cfg(unix)]
#[test]
fn a_link_to_a_socket_is_refused_with_where_it_leads() {
    let slm = Slm::new();
    let socket = slm.work_dir().join("server.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let link = config_file(&slm);
    std::os::unix::fs::symlink(&socket, &link).unwrap();
    let target = std::fs::canonicalize(&socket).unwrap();
    let run = slm.run(["config", "set", "model", "m"], "");
    run.code(1);
    assert_eq!(
        run.stderr,
        refusal(&link, &format!("links to {}, a socket", target.display()))
    );
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[cfg(unix)]
#[test]
fn a_link_to_a_regular_file_is_written_through_and_keeps_its_mode() {
    use std::os::unix::fs::PermissionsExt;
    let slm = Slm::new();
    let real = slm.file("dotfiles/slmcode.toml", "# mine\nmodel = \"a\"\n");
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = config_file(&slm);
    std::os::unix::fs::symlink(&real, &link).unwrap();
    slm.run(["config", "set", "model", "b"], "").code(0);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read_to_string(&real).unwrap(),
        "# mine\nmodel = \"b\"\n"
    );
    let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
}

/// A different key and value for each process.
const PARALLEL_SETTINGS: [(&str, &str); 16] = [
    ("provider", "llamacpp"),
    ("endpoint", "http://127.0.0.1:8080/v1"),
    ("model", "qwen2.5-coder:7b"),
    ("api_key_env", "TEAM_KEY"),
    ("structured_decoding", "off"),
    ("max_tokens", "4096"),
    ("temperature", "0.1"),
    ("anti_repetition", "reask"),
    ("grammar_whitespace", "pretty"),
    ("schema_in_prompt", "true"),
    ("brief_instructions", "true"),
    ("timeout_s", "200"),
    ("call_timeout_s", "400"),
    ("probe_timeout_s", "30"),
    ("reask", "2"),
    ("record_stats", "false"),
];

#[test]
fn parallel_sets_of_different_keys_all_land() {
    let slm = Slm::new();
    std::fs::write(config_file(&slm), "# shared\n\n[other_tool]\nkept = true\n").unwrap();
    let children: Vec<_> = PARALLEL_SETTINGS
        .iter()
        .map(|(key, value)| {
            slm.command(["config", "set", key, value])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let list = slm.run(["config", "list", "--json"], "").code(0).json();
    let path = config_file(&slm);
    for (key, _) in PARALLEL_SETTINGS {
        let entry = list["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|entry| entry["key"] == key)
            .unwrap();
        assert_eq!(entry["source"]["kind"], "file", "{key} was lost:\n{entry}");
        assert_eq!(entry["source"]["path"], json!(path));
    }
    let text = read_config(&slm);
    assert!(
        text.ends_with("# shared\n\n[other_tool]\nkept = true\n"),
        "{text}"
    );
    let mut names: Vec<_> = std::fs::read_dir(slm.config_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["config.toml", "config.toml.lock"]);
}

#[test]
fn crlf_line_endings_are_kept_by_every_edit() {
    let slm = Slm::new();
    std::fs::write(
        config_file(&slm),
        "# team settings\r\n\r\n# the server\r\nmodel = \"a\"\r\nmax_tokens = 1024\r\n\r\n[other]\r\nx = 1\r\n",
    )
    .unwrap();
    slm.run(["config", "set", "model", "b"], "").code(0);
    slm.run(["config", "set", "temperature", "0.1"], "").code(0);
    assert_eq!(
        read_config(&slm),
        "# team settings\r\n\r\n# the server\r\nmodel = \"b\"\r\nmax_tokens = 1024\r\ntemperature = 0.1\r\n\r\n[other]\r\nx = 1\r\n"
    );
    slm.run(["config", "unset", "model"], "").code(0);
    assert_eq!(
        read_config(&slm),
        "# team settings\r\n\r\n# the server\r\nmax_tokens = 1024\r\ntemperature = 0.1\r\n\r\n[other]\r\nx = 1\r\n"
    );
    slm.run(["readiness", "--fix"], "").code(0);
    let fixed = read_config(&slm);
    assert!(
        !fixed.replace("\r\n", "").contains('\n'),
        "a bare LF: {fixed:?}"
    );
}

#[test]
fn a_new_file_and_an_lf_file_are_written_with_lf() {
    let slm = Slm::new();
    slm.run(["config", "set", "model", "a"], "").code(0);
    assert_eq!(read_config(&slm), "model = \"a\"\n");
    std::fs::write(config_file(&slm), "# mine\nmodel = \"a\"\n").unwrap();
    slm.run(["config", "set", "max_tokens", "4096"], "").code(0);
    assert_eq!(
        read_config(&slm),
        "# mine\nmodel = \"a\"\nmax_tokens = 4096\n"
    );
}

#[test]
fn an_empty_config_dir_variable_counts_as_unset_and_says_so() {
    let mut slm = Slm::new();
    slm.env("SLMCODE_CONFIG_DIR", "");
    // The helper points XDG_CONFIG_HOME into the scratch directory.
    let default_dir = slm.work_dir().parent().unwrap().join("xdg").join("slmcode");
    let note = format!(
        "SLMCODE_CONFIG_DIR is empty, which counts as unset: using the default directory {}\n",
        default_dir.display()
    );
    let run = slm.run(["config", "path"], "");
    run.code(0);
    assert_eq!(
        run.stdout,
        format!("{}\n", default_dir.join("config.toml").display())
    );
    assert_eq!(run.stderr, note);

    let set = slm.run(["config", "set", "model", "m"], "");
    set.code(0);
    assert_eq!(
        std::fs::read_to_string(default_dir.join("config.toml")).unwrap(),
        "model = \"m\"\n"
    );
    assert!(!config_file(&slm).exists());

    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    slm.env("SLMCODE_ENDPOINT", &format!("http://127.0.0.1:{port}/v1"))
        .env("SLMCODE_PROBE_TIMEOUT_S", "1");
    let doctor = slm.run(["doctor", "--json"], "").json();
    let config_check = &doctor["checks"][0];
    assert_eq!(config_check["name"], "config");
    assert_eq!(config_check["status"], "warn");
    assert_eq!(
        config_check["detail"],
        format!(
            "{} (SLMCODE_CONFIG_DIR is empty, which counts as unset: the default directory)",
            default_dir.join("config.toml").display()
        )
    );
    assert_eq!(
        config_check["remedy"],
        "unset SLMCODE_CONFIG_DIR, or set it to the directory you mean"
    );
}

#[test]
fn config_path_and_doctor_name_the_directory_slmcode_config_dir_gives() {
    let slm = Slm::new();
    let run = slm.run(["config", "path"], "");
    run.code(0);
    assert_eq!(run.stderr, "");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut slm = slm;
    slm.env("SLMCODE_ENDPOINT", &format!("http://127.0.0.1:{port}/v1"))
        .env("SLMCODE_PROBE_TIMEOUT_S", "1");
    let doctor = slm.run(["doctor", "--json"], "").json();
    assert_eq!(doctor["checks"][0]["status"], "ok");
    assert_eq!(
        doctor["checks"][0]["detail"],
        format!(
            "{} (not created yet: defaults, environment and flags apply; directory from \
             SLMCODE_CONFIG_DIR)",
            config_file(&slm).display()
        )
    );
}

#[test]
fn a_removed_key_is_ignored_with_a_warning_and_named_as_removed() {
    let slm = Slm::new();
    let original = "max_parallel = 4 # from an older slmcode\nmax_tokens = 4096\n";
    let path = config_file(&slm);
    std::fs::write(&path, original).unwrap();
    // Every command still works: the old key is ignored, and the warning says so and why.
    let run = slm.run(["config", "get", "max_tokens"], "");
    run.code(0);
    assert_eq!(run.stdout, "4096\n");
    assert_eq!(
        run.stderr,
        format!(
            "warning: {} line 1: `max_parallel` is no longer a setting and is ignored (slmcode \
             never limited concurrency; the server queues parallel requests itself); `slmcode \
             config unset max_parallel` removes it\n",
            path.display()
        )
    );
    slm.run(["readiness"], "").code(0);
    // Setting it is refused with the reason, not a guess at the nearest key.
    let set = slm.run(["config", "set", "llm_retry_count", "3"], "");
    set.code(2);
    assert!(
        set.stderr.starts_with(
            "error: `llm_retry_count` is no longer a setting: every request is retried by the \
             retry policy"
        ),
        "{}",
        set.stderr
    );
    assert_eq!(read_config(&slm), original);
    // What the warning says to run removes it, and the warning with it.
    slm.run(["config", "unset", "max_parallel"], "").code(0);
    assert_eq!(read_config(&slm), "max_tokens = 4096\n");
    assert_eq!(slm.run(["config", "get", "max_tokens"], "").stderr, "");
}
