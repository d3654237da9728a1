//! A moto S3 server (`python3 -m moto.server`, PyPI's `moto[server]`) on 127.0.0.1 for the
//! tests: started once per test binary, stopped when the test process ends (the server
//! watches its parent). Shared by this crate's and the CLI's tests (`#[path]`).
//!
//! When it cannot start, tests skip with a message, unless the `CI` environment variable is
//! set: then they fail, so that CI never passes without having run them.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// moto's server, started by [`moto`].
pub struct Moto {
    pub port: u16,
    child: Mutex<Child>,
}

impl Moto {
    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// A new bucket with a name unique in this process (`prefix-<pid>-<n>`).
    pub fn bucket(&self, prefix: &str) -> String {
        static N: AtomicU32 = AtomicU32::new(0);
        let name = format!(
            "{prefix}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        let (status, body) = self.request("PUT", &format!("/{name}"));
        assert_eq!(status, 200, "creating bucket {name}: {body}");
        name
    }

    /// One plain HTTP request to the server (moto does not check signatures): the status
    /// and the body.
    pub fn request(&self, method: &str, target: &str) -> (u16, String) {
        http(self.port, method, target)
    }

    /// The ids of the multipart uploads in progress in `bucket`.
    pub fn uploads_in_progress(&self, bucket: &str) -> usize {
        let (status, body) = self.request("GET", &format!("/{bucket}?uploads"));
        assert_eq!(status, 200, "{body}");
        body.matches("<UploadId>").count()
    }

    /// True when the server has not exited.
    pub fn is_running(&self) -> bool {
        let mut c = self.child.lock().unwrap();
        matches!(c.try_wait(), Ok(None))
    }
}

fn http(port: u16, method: &str, target: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect to moto");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).expect("moto's answer");
    let status = out
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = out.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_owned();
    (status, body)
}

/// The server's Python program: moto's own `main`, plus a thread that ends the server when
/// the test process (its parent) is gone, so no server outlives the tests.
const LAUNCHER: &str = r#"
import os, sys, threading, time
parent = os.getppid()
def watch():
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(0)
threading.Thread(target=watch, daemon=True).start()
from moto.server import main
sys.argv = ["moto_server", "-H", "127.0.0.1", "-p", sys.argv[1]]
main()
"#;

fn start() -> Result<Moto, String> {
    let mut last = String::new();
    for _ in 0..3 {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        // The server's log, read when it fails to start.
        let log_path =
            std::env::temp_dir().join(format!("avrokit-moto-{}-{port}.log", std::process::id()));
        let log = std::fs::File::create(&log_path).map_err(|e| format!("{log_path:?}: {e}"))?;
        let mut child = Command::new("python3")
            .args(["-c", LAUNCHER, &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot run python3: {e}"))?;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                let err = std::fs::read_to_string(&log_path).unwrap_or_default();
                last = format!("moto's server exited ({status}): {}", err.trim());
                break;
            }
            if TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Ok(Moto {
                    port,
                    child: Mutex::new(child),
                });
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                last = "moto's server did not listen within 60 s".into();
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        if last.contains("No module named") {
            break;
        }
    }
    Err(last)
}

/// The server, or `None` (with a message on stderr) when it cannot start and `CI` is unset.
///
/// # Panics
/// When it cannot start and `CI` is set.
pub fn moto() -> Option<&'static Moto> {
    static MOTO: OnceLock<Result<Moto, String>> = OnceLock::new();
    match MOTO.get_or_init(start) {
        Ok(m) => Some(m),
        Err(e) if std::env::var_os("CI").is_some() => {
            panic!(
                "CI is set and the S3 test server cannot start: {e} (pip install 'moto[server]')"
            )
        }
        Err(e) => {
            eprintln!("skipped: the S3 test server cannot start: {e} (pip install 'moto[server]')");
            None
        }
    }
}
