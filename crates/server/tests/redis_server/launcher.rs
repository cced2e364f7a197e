//! A real `redis-server` for the shared-store tests: started on a free
//! loopback port with its files in a temporary directory (append-only
//! file, `appendfsync always`), stopped when dropped. No mock: without
//! `redis-server` on PATH the tests skip and say so (scripts/test.sh
//! installs Debian's), unless NEARDUP_REQUIRE_REDIS=1 makes that a failure.
//! The CLI's tests use this file too (`crates/cli/tests/serve_store.rs`,
//! through `#[path]`): it needs only `redis` and `neardup-testkit`.
#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use neardup_testkit::TempDir;

/// A running redis-server.
pub struct RedisServer {
    child: Option<Child>,
    pub port: u16,
    dir: TempDir,
    password: Option<String>,
    /// More arguments for redis-server (they override the defaults).
    extra: Vec<String>,
}

/// Whether redis-server can be run here; prints why a test skips.
pub fn available(test: &str) -> bool {
    installed(test, "redis-server", "redis-server")
}

/// As [`available`], and `redis-cli` too (it makes the Cluster).
pub fn available_with_cli(test: &str) -> bool {
    available(test) && installed(test, "redis-cli", "redis-tools")
}

/// Whether `program --version` runs; when it does not, a failure under
/// `NEARDUP_REQUIRE_REDIS=1`, else why `test` skips (`package` has it).
fn installed(test: &str, program: &str, package: &str) -> bool {
    let found = Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var("NEARDUP_REQUIRE_REDIS").ok().as_deref() != Some("1"),
            "{test}: {program} is not installed and NEARDUP_REQUIRE_REDIS=1"
        );
        eprintln!("{test}: skipped: {program} is not installed (apt-get install {package})");
    }
    found
}

pub fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

impl RedisServer {
    /// Starts a server, with `requirepass` when a password is given.
    pub fn start(name: &str, password: Option<&str>) -> RedisServer {
        RedisServer::start_with(name, password, &[])
    }

    /// Starts a server with more arguments (`--cluster-enabled yes`...).
    pub fn start_with(name: &str, password: Option<&str>, extra: &[&str]) -> RedisServer {
        let mut s = RedisServer {
            child: None,
            port: free_port(),
            dir: TempDir::new(&format!("redis-{name}")),
            password: password.map(str::to_string),
            extra: extra.iter().map(|a| a.to_string()).collect(),
        };
        // A config file, which Sentinel rewrites when it reconfigures.
        std::fs::write(s.dir.join("redis.conf"), "").unwrap();
        s.restart();
        s
    }

    /// The server's files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A server as [`RedisServer::start`] (no password) when
    /// `redis-server` is installed; `None`, the test skipping and saying
    /// so, when not ([`available`]).
    pub fn start_if_available(name: &str, test: &str) -> Option<RedisServer> {
        available(test).then(|| RedisServer::start(name, None))
    }

    /// The URL of database `db` of a server without a password, as a
    /// store is given it (`--store`).
    pub fn db_url(&self, db: u32) -> String {
        format!("redis://127.0.0.1:{}/{db}", self.port)
    }

    /// A connection to database `db`, for the test's own reads.
    pub fn db_connection(&self, db: u32) -> redis::Connection {
        let mut c = self.connection();
        let _: () = redis::cmd("SELECT").arg(db).query(&mut c).unwrap();
        c
    }

    /// `redis://` URL, with the password when there is one.
    pub fn url(&self) -> String {
        match &self.password {
            Some(p) => format!("redis://default:{p}@127.0.0.1:{}/0", self.port),
            None => format!("redis://127.0.0.1:{}/0", self.port),
        }
    }

    /// Starts the server again (after [`RedisServer::kill`]) on the same
    /// port and files: it reloads its append-only file.
    pub fn restart(&mut self) {
        assert!(self.child.is_none(), "already running");
        let mut cmd = Command::new("redis-server");
        cmd.arg(self.dir.join("redis.conf"))
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--dir".as_ref(), self.dir.as_os_str()])
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
            ])
            .args(["--daemonize", "no", "--protected-mode", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(p) = &self.password {
            cmd.args(["--requirepass", p]);
        }
        cmd.args(&self.extra);
        self.child = Some(cmd.spawn().expect("starting redis-server"));
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "redis-server did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        // The port answers before the append-only file is loaded: wait
        // for PING to answer PONG (not LOADING).
        while !self.ping() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "redis-server did not load"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether the server runs (not killed).
    pub fn running(&self) -> bool {
        self.child.is_some()
    }

    fn ping(&self) -> bool {
        redis::Client::open(self.url().as_str())
            .and_then(|c| c.get_connection_with_timeout(Duration::from_secs(1)))
            .and_then(|mut c| redis::cmd("PING").query::<String>(&mut c))
            .is_ok_and(|p| p == "PONG")
    }

    /// Kills the server at once (SIGKILL): with `appendfsync always`, every
    /// write it acknowledged is in its append-only file.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// A connection for the test's own reads.
    pub fn connection(&self) -> redis::Connection {
        redis::Client::open(self.url().as_str())
            .unwrap()
            .get_connection_with_timeout(Duration::from_secs(5))
            .unwrap()
    }

    /// The ids of the log's insertions, in the log's order (the arrival
    /// order the store defines).
    pub fn logged_ids(&self) -> Vec<String> {
        logged_ids(&mut self.connection())
    }

    /// A line of `INFO section`, e.g. `info("replication", "role")`.
    pub fn info(&self, section: &str, field: &str) -> Option<String> {
        let info: String = redis::cmd("INFO")
            .arg(section)
            .query(&mut self.connection())
            .ok()?;
        info.lines()
            .find_map(|l| l.strip_prefix(&format!("{field}:")))
            .map(|v| v.trim().to_string())
    }

    /// Script calls (EVALSHA and EVAL) the server has run: the shared
    /// store's round trips.
    pub fn script_calls(&self) -> u64 {
        self.calls(&["evalsha", "eval"])
    }

    /// Calls of these commands (lower case) the server has run.
    pub fn calls(&self, commands: &[&str]) -> u64 {
        self.commandstat(commands, "calls")
    }

    /// A field of `INFO commandstats` (`calls`, `rejected_calls`...)
    /// summed over these commands (lower case).
    pub fn commandstat(&self, commands: &[&str], field: &str) -> u64 {
        let info: String = redis::cmd("INFO")
            .arg("commandstats")
            .query(&mut self.connection())
            .unwrap();
        info.lines()
            .filter_map(|l| {
                let (name, stats) = l.strip_prefix("cmdstat_")?.split_once(':')?;
                commands.contains(&name).then_some(stats)
            })
            .filter_map(|stats| {
                stats
                    .split(',')
                    .find_map(|kv| kv.strip_prefix(field)?.strip_prefix('='))?
                    .parse::<u64>()
                    .ok()
            })
            .sum()
    }

    /// Bytes of memory the server uses (INFO memory's used_memory).
    pub fn used_memory(&self) -> u64 {
        let info: String = redis::cmd("INFO")
            .arg("memory")
            .query(&mut self.connection())
            .unwrap();
        info.lines()
            .find_map(|l| l.strip_prefix("used_memory:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The ids of the log's insertions on the server behind `conn`, in the
/// log's order (the arrival order the store defines).
pub fn logged_ids(conn: &mut redis::Connection) -> Vec<String> {
    let entries: Vec<Vec<u8>> = redis::cmd("LRANGE")
        .arg("{neardup}:log")
        .arg(0)
        .arg(-1)
        .query(conn)
        .unwrap();
    entries
        .iter()
        .filter(|e| e[0] == 1)
        .map(|e| {
            // kind, 16-byte token, tag 1, u32 length, the id.
            let n = u32::from_le_bytes(e[18..22].try_into().unwrap()) as usize;
            String::from_utf8(e[22..22 + n].to_vec()).unwrap()
        })
        .collect()
}

/// Waits for `what` to hold, for at most `secs` seconds.
pub fn wait_until(secs: u64, what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(secs),
            "{what}: not within {secs} s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A fresh directory for one instance's local replica.
pub fn replica_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "neardup-replica-{name}-{}-{:?}",
        std::process::id(),
        Instant::now()
    ));
    let _ = std::fs::remove_dir_all(&d);
    d
}
