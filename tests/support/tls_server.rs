//! A TLS server on 127.0.0.1 whose certificate no client trusts: a self-signed certificate made
//! at test time with the `openssl` command (`openssl req -x509`), served by `openssl s_server`.
//! No Rust TLS server is needed, so no dependency is added for it; where the command is
//! missing, [`SelfSignedServer::start`] returns `None` and the test counts itself skipped
//! (`tests/support/skip.rs`: a failure under `.ci/run`).
#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `openssl s_server`; dropping it stops the server.
pub struct SelfSignedServer {
    child: Child,
    port: u16,
    _files: tempfile::TempDir,
}

impl SelfSignedServer {
    /// Makes a certificate for 127.0.0.1 and serves TLS with it on a free port; `None` when
    /// there is no `openssl` command. Anything else that goes wrong fails the test.
    pub fn start() -> Option<SelfSignedServer> {
        let files = tempfile::tempdir().expect("a temporary directory");
        let key = files.path().join("key.pem");
        let cert = files.path().join("cert.pem");
        let made = openssl()
            .args(["req", "-x509", "-newkey", "ec", "-pkeyopt"])
            .arg("ec_paramgen_curve:prime256v1")
            .args(["-nodes", "-days", "2", "-subj", "/CN=127.0.0.1"])
            .args(["-addext", "subjectAltName=IP:127.0.0.1"])
            .arg("-keyout")
            .arg(&key)
            .arg("-out")
            .arg(&cert)
            .status();
        let made = match made {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return None,
            made => made.expect("run `openssl req`"),
        };
        assert!(made.success(), "`openssl req -x509` failed: {made}");
        let port = free_port();
        let child = openssl()
            .arg("s_server")
            .arg("-accept")
            .arg(format!("127.0.0.1:{port}"))
            .args(["-www", "-quiet"])
            .arg("-cert")
            .arg(&cert)
            .arg("-key")
            .arg(&key)
            .spawn()
            .expect("run `openssl s_server`");
        let server = SelfSignedServer {
            child,
            port,
            _files: files,
        };
        assert!(
            server.wait_until_listening(),
            "`openssl s_server` did not listen on port {port}"
        );
        Some(server)
    }

    /// The OpenAI-style base URL: `https://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("https://127.0.0.1:{}/v1", self.port)
    }

    fn wait_until_listening(&self) -> bool {
        for _ in 0..500 {
            if TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }
}

impl Drop for SelfSignedServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn openssl() -> Command {
    let mut command = Command::new("openssl");
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    command
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("bind 127.0.0.1:0")
}
