//! TLS for the shared-store tests: a throwaway CA with a server and a
//! client certificate made by the `openssl` CLI (scripts/test.sh installs
//! it with redis-server), and a redis-server that speaks only TLS
//! (`--port 0 --tls-port`) on a free loopback port, killed when dropped.
//! Self-contained (crates/cli's tests include it by path).
#![allow(dead_code)]

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use neardup_testkit::TempDir;

/// Whether redis-server, redis-cli and openssl can be run here, and
/// redis-server was built with TLS; prints why a test skips (a failure
/// with NEARDUP_REQUIRE_REDIS=1).
pub fn available(test: &str) -> bool {
    let runs = |cmd: &str, arg: &str| {
        Command::new(cmd)
            .arg(arg)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    let missing: Vec<&str> = [
        ("redis-server", "--version"),
        ("redis-cli", "--version"),
        ("openssl", "version"),
    ]
    .into_iter()
    .filter(|(c, a)| !runs(c, a))
    .map(|(c, _)| c)
    .collect();
    if !missing.is_empty() {
        assert!(
            std::env::var("NEARDUP_REQUIRE_REDIS").ok().as_deref() != Some("1"),
            "{test}: {missing:?} not installed and NEARDUP_REQUIRE_REDIS=1"
        );
        eprintln!("{test}: skipped: {missing:?} not installed (apt-get install redis-server redis-tools openssl)");
        return false;
    }
    true
}

fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("running openssl");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A CA, a server certificate for 127.0.0.1 and a client certificate it
/// signed, in PEM files.
pub struct Certs {
    dir: TempDir,
}

impl Certs {
    /// Makes them (2-day RSA certificates: a few hundred ms).
    pub fn make(name: &str) -> Certs {
        let dir = TempDir::new(&format!("tls-{name}"));
        let d = dir.to_path_buf();
        openssl(
            &d,
            &[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                "ca.key",
                "-out",
                "ca.crt",
                "-days",
                "2",
                "-subj",
                "/CN=neardup test CA",
            ],
        );
        std::fs::write(d.join("server.ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
        std::fs::write(d.join("client.ext"), "extendedKeyUsage=clientAuth\n").unwrap();
        for who in ["server", "client"] {
            let (key, csr, crt, ext) = (
                format!("{who}.key"),
                format!("{who}.csr"),
                format!("{who}.crt"),
                format!("{who}.ext"),
            );
            openssl(
                &d,
                &[
                    "req",
                    "-newkey",
                    "rsa:2048",
                    "-nodes",
                    "-keyout",
                    &key,
                    "-out",
                    &csr,
                    "-subj",
                    &format!("/CN=neardup test {who}"),
                ],
            );
            openssl(
                &d,
                &[
                    "x509",
                    "-req",
                    "-in",
                    &csr,
                    "-CA",
                    "ca.crt",
                    "-CAkey",
                    "ca.key",
                    "-CAcreateserial",
                    "-out",
                    &crt,
                    "-days",
                    "2",
                    "-extfile",
                    &ext,
                ],
            );
        }
        Certs { dir }
    }

    pub fn path(&self, file: &str) -> PathBuf {
        self.dir.join(file)
    }

    /// The CA's certificate (PEM).
    pub fn ca(&self) -> PathBuf {
        self.path("ca.crt")
    }

    pub fn client_cert(&self) -> PathBuf {
        self.path("client.crt")
    }

    pub fn client_key(&self) -> PathBuf {
        self.path("client.key")
    }
}

/// A redis-server that speaks only TLS.
pub struct TlsRedis {
    child: Child,
    pub port: u16,
    _dir: TempDir,
    ca: PathBuf,
    client: (PathBuf, PathBuf),
    password: Option<String>,
}

impl TlsRedis {
    /// Starts one with `certs`' server certificate, `requirepass` when a
    /// password is given, and client certificates required when
    /// `client_auth`; waits (at most 10 s) until it answers PING.
    pub fn start(name: &str, certs: &Certs, password: Option<&str>, client_auth: bool) -> TlsRedis {
        let dir = TempDir::new(&format!("redis-tls-{name}"));
        let port = free_port();
        let mut cmd = Command::new("redis-server");
        cmd.args(["--port", "0", "--tls-port", &port.to_string()])
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .args(["--dir".as_ref(), dir.as_os_str()])
            .args(["--daemonize", "no", "--protected-mode", "no"])
            .args([
                "--tls-cert-file".as_ref(),
                certs.path("server.crt").as_os_str(),
            ])
            .args([
                "--tls-key-file".as_ref(),
                certs.path("server.key").as_os_str(),
            ])
            .args(["--tls-ca-cert-file".as_ref(), certs.ca().as_os_str()])
            .args(["--tls-auth-clients", if client_auth { "yes" } else { "no" }])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some(p) = password {
            cmd.args(["--requirepass", p]);
        }
        let child = cmd.spawn().expect("starting redis-server");
        let s = TlsRedis {
            child,
            port,
            _dir: dir,
            ca: certs.ca(),
            client: (certs.client_cert(), certs.client_key()),
            password: password.map(str::to_string),
        };
        let start = Instant::now();
        loop {
            if TcpStream::connect(("127.0.0.1", port)).is_ok() && s.cli(&["PING"]) == "PONG" {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "redis-server --tls-port did not start (built without TLS?)"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        s
    }

    /// `redis-cli` over TLS (with the client certificate), its output.
    pub fn cli(&self, args: &[&str]) -> String {
        let mut cmd = Command::new("redis-cli");
        cmd.args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "--tls"])
            .args(["--cacert".as_ref(), self.ca.as_os_str()])
            .args(["--cert".as_ref(), self.client.0.as_os_str()])
            .args(["--key".as_ref(), self.client.1.as_os_str()]);
        if let Some(p) = &self.password {
            cmd.args(["--no-auth-warning", "-a", p]);
        }
        let out = cmd
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("running redis-cli");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// `rediss://` URL, with the password when there is one.
    pub fn url(&self) -> String {
        match &self.password {
            Some(p) => format!("rediss://default:{p}@127.0.0.1:{}/0", self.port),
            None => format!("rediss://127.0.0.1:{}/0", self.port),
        }
    }
}

impl Drop for TlsRedis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
