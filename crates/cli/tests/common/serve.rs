//! `neardup serve` as a child process, for the serve tests.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

/// A running `neardup serve`, killed when dropped.
pub struct Serve {
    pub child: Child,
    pub addr: SocketAddr,
}

impl Serve {
    pub fn start(dir: &std::path::Path) -> Serve {
        Serve::start_with(dir, &[])
    }

    pub fn start_with(dir: &std::path::Path, extra: &[&str]) -> Serve {
        Serve::start_method(dir, "minhash", extra)
    }

    /// As [`Serve::start_with`], with `--method method`.
    pub fn start_method(dir: &std::path::Path, method: &str, extra: &[&str]) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_neardup"))
            .args([
                "serve",
                "--method",
                method,
                "--listen",
                "127.0.0.1:0",
                "--data-dir",
            ])
            .arg(dir)
            .args(extra)
            .env_remove("NEARDUP_TOKEN")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start neardup serve");
        let stdout = child.stdout.take().unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        let addr = line
            .trim()
            .rsplit("http://")
            .next()
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        Serve { child, addr }
    }

    /// Posts [`text`]`(i)` as document `id`, asserting a 200; the
    /// duplicate the verdict names (`null` for an original).
    pub fn post_text(&self, id: &str, i: u64) -> serde_json::Value {
        let r = neardup_server::client::Client::new(self.addr)
            .post_json(
                "/v1/documents",
                &serde_json::json!({"id": id, "text": text(i)}),
            )
            .unwrap();
        assert_eq!(r.status, 200, "{id}: {}", r.json());
        r.json()["duplicate_of"].clone()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// About 2 KB of text, distinct for every `i`.
pub fn text(i: u64) -> String {
    // About 2 KB of text distinct for every i.
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..300)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            format!("w{}", x % 5000)
        })
        .collect::<Vec<_>>()
        .join(" ")
}
