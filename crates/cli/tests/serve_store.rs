//! `neardup serve --store redis://...` as processes over a real
//! redis-server (skipped, saying so, when it is not installed): refusals
//! that never show the password, two instances that share verdicts (also
//! with `--store-verify sketch`, which refuses an exact instance, and with
//! a document limit, which refuses another limit), and one killed
//! mid-load that blocks no other.

mod common;
#[path = "../../server/tests/redis_server/launcher.rs"]
mod redis_server;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::serve::{text, Serve};
use neardup_server::client::Client;
use redis_server::RedisServer;
use serde_json::json;

/// Starts `neardup serve` over the store at `url` with `extra` options, a
/// replica directory in `dir`, expecting a refusal: exit status 2. Its
/// standard error.
fn refused_start(dir: &std::path::Path, url: &str, extra: &[&str]) -> String {
    let dir = dir.to_str().unwrap();
    let mut args = vec!["serve", "--listen", "127.0.0.1:0", "--data-dir", dir];
    args.extend(["--store", url]);
    args.extend(extra);
    let out = common::neardup(&args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{url}: {err}");
    err
}

#[test]
fn a_shared_store_is_refused_clearly_without_showing_its_password() {
    let dir = common::temp_dir("serve-store-refused");
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    for (url, says) in [
        (
            format!("rediss://u:Secr3t-pw@127.0.0.1:{free}"),
            "rediss://u:***@127.0.0.1",
        ),
        (
            format!("redis+cluster://u:Secr3t-pw@127.0.0.1:{free},127.0.0.1:{free}"),
            "no primary found",
        ),
        (
            format!("redis+sentinel://u:Secr3t-pw@127.0.0.1:{free}"),
            "names no master",
        ),
        (
            format!("redis://u:Secr3t-pw@127.0.0.1:{free}/0"),
            "unreachable",
        ),
    ] {
        let err = refused_start(&dir, &url, &[]);
        assert!(err.contains(says), "{err}");
        assert!(!err.contains("Secr3t"), "{err}");
    }
    // The replica directory made for the failed start is gone.
    let left: Vec<_> = std::fs::read_dir(&dir).map_or(Vec::new(), |d| d.flatten().collect());
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The store's database on the test's redis-server (the server tests'
/// launcher, shared: append-only file, `appendfsync always`, skipped when
/// not installed).
const DB: u32 = 3;

#[test]
fn two_processes_over_one_redis_share_their_verdicts() {
    let dir = common::temp_dir("serve-store-two");
    let Some(redis) = RedisServer::start_if_available(
        "serve-store-two",
        "two_processes_over_one_redis_share_their_verdicts",
    ) else {
        return;
    };
    let url = redis.db_url(DB);
    let a = Serve::start_with(&dir.join("a"), &["--store", &url]);
    let b = Serve::start_with(&dir.join("b"), &["--store", &url, "--store-replicas", "0"]);
    let t = text(1);
    let r = Client::new(a.addr)
        .post_json("/v1/documents", &json!({"id": "first", "text": t}))
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["duplicate"], json!(false));
    let r = Client::new(b.addr)
        .post_json("/v1/documents", &json!({"id": "copy", "text": t}))
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["duplicate_of"], json!("first"));
    drop((a, b, redis));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_processes_with_a_document_limit_evict_as_one_and_refuse_another_limit() {
    let dir = common::temp_dir("serve-store-evict");
    let Some(redis) = RedisServer::start_if_available(
        "serve-store-evict",
        "two_processes_with_a_document_limit_evict_as_one_and_refuse_another_limit",
    ) else {
        return;
    };
    let url = redis.db_url(DB);
    let limit = ["--store", &url, "--max-documents", "2"];
    let a = Serve::start_with(&dir.join("a"), &limit);
    let b = Serve::start_with(&dir.join("b"), &limit);
    let post = |at: &Serve, id: &str, i: u64| at.post_text(id, i);
    for (i, at) in [&a, &b, &a].into_iter().enumerate() {
        assert_eq!(post(at, &format!("d{i}"), 10 + i as u64), json!(null));
    }
    // d0 was evicted when d2 came (on both), d2 is live.
    assert_eq!(post(&b, "copy-of-d0", 10), json!(null));
    assert_eq!(post(&a, "copy-of-d2", 12), json!("d2"));
    let stats = Client::new(b.addr).get("/v1/stats").unwrap().json();
    assert_eq!(stats["documents"], json!(2), "{stats}");
    let err = refused_start(
        &dir.join("c"),
        &url,
        &["--method", "minhash", "--max-documents", "3"],
    );
    assert!(err.contains("max documents 2"), "{err}");
    drop((a, b, redis));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sketch_instances_share_their_verdicts_and_refuse_an_exact_one() {
    let dir = common::temp_dir("serve-store-sketch");
    let Some(redis) = RedisServer::start_if_available(
        "serve-store-sketch",
        "sketch_instances_share_their_verdicts_and_refuse_an_exact_one",
    ) else {
        return;
    };
    let url = redis.db_url(DB);
    let sketch = ["--store", &url, "--store-verify", "sketch"];
    // The default method: the sketch needs its exact verification.
    let a = Serve::start_method(&dir.join("a"), "default", &sketch);
    let b = Serve::start_method(&dir.join("b"), "default", &sketch);
    let t = text(2);
    let r = Client::new(a.addr)
        .post_json("/v1/documents", &json!({"id": "first", "text": t}))
        .unwrap();
    assert_eq!(r.json()["duplicate"], json!(false));
    let r = Client::new(b.addr)
        .post_json("/v1/documents", &json!({"id": "copy", "text": t}))
        .unwrap();
    assert_eq!(r.json()["duplicate_of"], json!("first"));
    let err = refused_start(&dir.join("c"), &url, &[]);
    assert!(err.contains("the store was built with method"), "{err}");
    drop((a, b, redis));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_instance_killed_mid_load_blocks_no_other_and_its_acknowledged_documents_stay() {
    let name = "an_instance_killed_mid_load_blocks_no_other_and_its_acknowledged_documents_stay";
    let dir = common::temp_dir("serve-store-kill");
    let Some(redis) = RedisServer::start_if_available("serve-store-kill", name) else {
        return;
    };
    let url = redis.db_url(DB);
    let mut a = Serve::start_with(&dir.join("a"), &["--store", &url]);
    let b = Serve::start_with(&dir.join("b"), &["--store", &url, "--store-replicas", "0"]);
    let acked = Arc::new(Mutex::new(Vec::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let loaders: Vec<_> = (0..4u64)
        .map(|t| {
            let (acked, stop, addr) = (acked.clone(), stop.clone(), a.addr);
            std::thread::spawn(move || {
                let mut c = Client::new(addr);
                c.timeout(Duration::from_secs(5));
                // Bounded: at most 2,000 posts a thread.
                for i in 0..2_000u64 {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let id = format!("t{t}-{i}");
                    match c.post_json(
                        "/v1/documents",
                        &json!({"id": id, "text": text(t * 10_000 + i)}),
                    ) {
                        Ok(r) if r.status == 200 => {
                            acked.lock().unwrap().push((id, t * 10_000 + i))
                        }
                        _ => break,
                    }
                }
            })
        })
        .collect();
    let start = Instant::now();
    while acked.lock().unwrap().len() < 100 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the load did not start"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    a.child.kill().unwrap();
    let _ = a.child.wait();
    stop.store(true, Ordering::Relaxed);
    for l in loaders {
        l.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    // The other instance goes on at once, and holds everything the killed
    // one acknowledged: a copy of each is its duplicate.
    let mut c = Client::new(b.addr);
    c.timeout(Duration::from_secs(10));
    let took = Instant::now();
    for (id, seed) in acked.iter().step_by(7) {
        let r = c
            .post_json(
                "/v1/documents",
                &json!({"id": format!("{id}-copy"), "text": text(*seed)}),
            )
            .unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.json()["duplicate_of"], json!(id), "{id}");
    }
    assert!(took.elapsed() < Duration::from_secs(60));
    for (id, _) in &acked {
        assert_eq!(
            c.get(&format!("/v1/documents/{id}")).unwrap().status,
            200,
            "{id}"
        );
    }
    drop((b, redis));
    let _ = std::fs::remove_dir_all(&dir);
}
