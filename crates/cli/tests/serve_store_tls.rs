//! `neardup serve --store rediss://...` as a process over a real
//! redis-server that speaks only TLS, with a throwaway CA made by the
//! `openssl` CLI (skipped, saying so, when either is not installed): the
//! verdicts of a single-node instance, a wrong CA or a missing client
//! certificate refused at start-up naming the store, and a password that
//! never shows (stdout, stderr, /metrics).

mod common;
#[path = "../../server/tests/redis_server/tls.rs"]
mod tls;

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use common::serve::{text, Serve};
use neardup_server::client::Client;
use serde_json::{json, Value};
use tls::{Certs, TlsRedis};

const PASSWORD: &str = "Tls-Secr3t-pw";

/// `neardup serve` with `args`, its first two stdout lines read.
struct Running {
    child: Child,
    addr: SocketAddr,
    lines: String,
}

fn serve(dir: &std::path::Path, args: &[&str]) -> Running {
    let mut child = Command::new(env!("CARGO_BIN_EXE_neardup"))
        .args(["serve", "--method", "minhash", "--listen", "127.0.0.1:0"])
        .arg("--data-dir")
        .arg(dir)
        .args(args)
        .env_remove("NEARDUP_TOKEN")
        .env_remove("NEARDUP_STORE_PASSWORD")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start neardup serve");
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut lines = String::new();
    for _ in 0..2 {
        if out.read_line(&mut lines).unwrap_or(0) == 0 {
            let mut err = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut err);
            panic!("neardup serve did not start: {lines}{err}");
        }
    }
    let addr = lines
        .lines()
        .next()
        .and_then(|l| l.trim().rsplit("http://").next())
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("no address in {lines:?}"));
    Running { child, addr, lines }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Posts: originals, near-duplicates, copies; the verdicts' JSON without
/// the timings.
fn verdicts(addr: SocketAddr) -> Vec<Value> {
    let mut c = Client::new(addr);
    let mut got = Vec::new();
    for i in 0..30u64 {
        let t = match i % 3 {
            0 => text(i),
            // The original with its last words changed: a near-duplicate.
            1 => {
                let base = text(i - 1);
                let cut = base.len() * 9 / 10;
                format!("{} changed words at the end", &base[..cut])
            }
            _ => text(i - 2),
        };
        let r = c
            .post_json("/v1/documents", &json!({"id": format!("d{i}"), "text": t}))
            .unwrap();
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
        let v = r.json();
        got.push(json!([
            v["id"],
            v["duplicate"],
            v["duplicate_of"],
            v["stored"]
        ]));
    }
    got
}

#[test]
fn a_tls_store_gives_the_single_node_verdicts_and_refuses_a_wrong_ca_clearly() {
    let name = "a_tls_store_gives_the_single_node_verdicts_and_refuses_a_wrong_ca_clearly";
    if !tls::available(name) {
        return;
    }
    let dir = common::temp_dir("serve-store-tls");
    let certs = Certs::make("serve-a");
    let other = Certs::make("serve-other");
    let redis = TlsRedis::start("serve", &certs, Some(PASSWORD), false);
    let url = redis.url();
    let ca = certs.ca();
    let ca = ca.to_str().unwrap();

    let single = Serve::start(&dir.join("single"));
    let expected = verdicts(single.addr);
    assert!(expected.iter().any(|v| v[1] == json!(true)), "{expected:?}");
    drop(single);

    let mut a = serve(&dir.join("a"), &["--store", &url, "--store-cacert", ca]);
    assert!(
        a.lines.contains(&format!(
            "shared store rediss://default:***@127.0.0.1:{}/0",
            redis.port
        )),
        "{}",
        a.lines
    );
    assert_eq!(verdicts(a.addr), expected);
    let metrics = Client::new(a.addr).get("/metrics").unwrap().body;
    let page = Client::new(a.addr).get("/ui/").unwrap().body;
    let _ = a.child.kill();
    let _ = a.child.wait();
    let mut err = String::new();
    let _ = a.child.stderr.take().unwrap().read_to_string(&mut err);
    let (metrics, page) = (
        String::from_utf8_lossy(&metrics).to_string(),
        String::from_utf8_lossy(&page).to_string(),
    );
    for shown in [&a.lines, &metrics, &page, &err] {
        assert!(!shown.contains(PASSWORD), "{shown}");
    }
    drop(a);

    let other_ca = other.ca();
    for (args, says) in [
        // Another CA, then the system's roots: the server's certificate
        // is not trusted.
        (
            vec![
                "--store",
                &url,
                "--store-cacert",
                other_ca.to_str().unwrap(),
            ],
            "certificate",
        ),
        (vec!["--store", &url], "certificate"),
        // A CA for a store without TLS.
        (
            vec![
                "--store",
                "redis://default:Tls-Secr3t-pw@127.0.0.1:1/0",
                "--store-cacert",
                ca,
            ],
            "rediss://",
        ),
        // A file that holds no certificate.
        (
            vec!["--store", &url, "--store-cacert", "/dev/null"],
            "--store-cacert",
        ),
    ] {
        let mut full = vec!["serve", "--listen", "127.0.0.1:0", "--data-dir"];
        let d = dir.join("refused");
        full.push(d.to_str().unwrap());
        full.extend(&args);
        let out = common::neardup(&full);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        if says == "certificate" {
            assert!(
                err.contains(&format!("rediss://default:***@127.0.0.1:{}/0", redis.port)),
                "{err}"
            );
        }
        assert!(!err.contains(PASSWORD), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mutual_tls_takes_a_client_certificate() {
    let name = "mutual_tls_takes_a_client_certificate";
    if !tls::available(name) {
        return;
    }
    let dir = common::temp_dir("serve-store-mtls");
    let certs = Certs::make("serve-mtls");
    let redis = TlsRedis::start("serve-mtls", &certs, None, true);
    let url = redis.url();
    let (ca, cert, key) = (certs.ca(), certs.client_cert(), certs.client_key());
    let (ca, cert, key) = (
        ca.to_str().unwrap(),
        cert.to_str().unwrap(),
        key.to_str().unwrap(),
    );
    // Without the client certificate: refused at start-up.
    let d = dir.join("refused");
    let out = common::neardup(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--data-dir",
        d.to_str().unwrap(),
        "--store",
        &url,
        "--store-cacert",
        ca,
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("rediss://127.0.0.1:{}/0", redis.port)),
        "{err}"
    );
    // A certificate without its key is refused before connecting.
    let out = common::neardup(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--data-dir",
        d.to_str().unwrap(),
        "--store",
        &url,
        "--store-cacert",
        ca,
        "--store-cert",
        cert,
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--store-key"));
    // With it: served.
    let a = serve(
        &dir.join("a"),
        &[
            "--store",
            &url,
            "--store-cacert",
            ca,
            "--store-cert",
            cert,
            "--store-key",
            key,
        ],
    );
    let r = Client::new(a.addr)
        .post_json("/v1/documents", &json!({"id": "first", "text": text(1)}))
        .unwrap();
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(redis.cli(&["LLEN", "{neardup}:log"]), "1");
    drop(a);
    let _ = std::fs::remove_dir_all(&dir);
}
