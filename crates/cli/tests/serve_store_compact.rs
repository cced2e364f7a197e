//! Compaction of the shared log (`neardup serve --store URL` with
//! `--max-documents`) with processes over a real redis-server (skipped,
//! saying so, when it is not installed): an instance stopped (SIGSTOP)
//! while the other compacted past its position reloads the base when it
//! resumes; a compactor SIGKILLed holding the lease is taken over after
//! the lease, and nothing is lost or doubled.

mod common;
#[path = "../../server/tests/redis_server/launcher.rs"]
mod redis_server;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::serve::{text, Serve};
use neardup_server::client::Client;
use redis_server::RedisServer;
use serde_json::json;

/// The store's database (as `serve_store.rs`).
const DB: u32 = 3;

/// Sends `signal` (`STOP`, `CONT`) to a child process.
fn signal(child: &std::process::Child, signal: &str) {
    let status = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn an_instance_stopped_behind_the_compacted_log_reloads_its_base_and_judges_as_one() {
    let name = "an_instance_stopped_behind_the_compacted_log_reloads_its_base_and_judges_as_one";
    let dir = common::temp_dir("serve-store-compact");
    let Some(redis) = RedisServer::start_if_available("serve-store-compact", name) else {
        return;
    };
    let url = redis.db_url(DB);
    let limit = ["--store", &url, "--max-documents", "20"];
    let a = Serve::start_with(&dir.join("a"), &limit);
    let b = Serve::start_with(&dir.join("b"), &limit);
    let post = |at: &Serve, id: &str, i: u64| at.post_text(id, i);
    // B stops before the first entry; A posts 900 and compacts the log
    // past B's position.
    signal(&b.child, "STOP");
    for i in 0..900u64 {
        assert_eq!(post(&a, &format!("d{i}"), i), json!(null));
    }
    let mut c = redis.db_connection(DB);
    let first = |c: &mut redis::Connection| -> u64 {
        let f: Option<u64> = redis::cmd("HGET")
            .arg("{neardup}:base")
            .arg("first")
            .query(c)
            .unwrap();
        f.unwrap_or(0)
    };
    redis_server::wait_until(30, "the log compacted", || first(&mut c) > 0);
    signal(&b.child, "CONT");
    // B loads the base: a copy of a live document is its duplicate, of an
    // evicted one not, on either instance, and B holds the limit.
    assert_eq!(post(&b, "copy-of-d890", 890), json!("d890"));
    assert_eq!(post(&b, "copy-of-d100", 100), json!(null));
    assert_eq!(post(&a, "copy-of-d895", 895), json!("d895"));
    assert_eq!(post(&a, "copy-of-d101", 101), json!(null));
    for at in [&a, &b] {
        let stats = Client::new(at.addr).get("/v1/stats").unwrap().json();
        assert_eq!(stats["documents"], json!(20), "{stats}");
    }
    drop((a, b, redis));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_compactor_killed_mid_compaction_is_taken_over_after_its_lease() {
    let name = "a_compactor_killed_mid_compaction_is_taken_over_after_its_lease";
    let dir = common::temp_dir("serve-store-compact-kill");
    let Some(redis) = RedisServer::start_if_available("serve-store-compact-kill", name) else {
        return;
    };
    let url = redis.db_url(DB);
    let limit = ["--store", &url, "--max-documents", "1500"];
    let a = Serve::start_with(&dir.join("a"), &limit);
    let b = Serve::start_with(&dir.join("b"), &limit);
    // Only A can compact while B is stopped.
    signal(&b.child, "STOP");
    let conn = || redis.db_connection(DB);
    // A watcher kills A (SIGKILL) the moment it sees the compaction
    // lease taken: A is then killed holding it, mid-compaction (unless it
    // published in between: then the lease is gone, checked below).
    let done = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (done, pid, mut c) = (done.clone(), a.child.id(), conn());
        std::thread::spawn(move || {
            // Bounded: at most 120 s of polling.
            let start = Instant::now();
            while !done.load(Ordering::Relaxed) && start.elapsed() < Duration::from_secs(120) {
                let lease: Option<String> = redis::cmd("GET")
                    .arg("{neardup}:compact:lease")
                    .query(&mut c)
                    .unwrap();
                if lease.is_some() {
                    let killed = std::process::Command::new("kill")
                        .arg("-KILL")
                        .arg(pid.to_string())
                        .status()
                        .unwrap();
                    assert!(killed.success());
                    return true;
                }
            }
            false
        })
    };
    let mut acked = Vec::new();
    let mut client = Client::new(a.addr);
    client.timeout(Duration::from_secs(10));
    // Bounded: at most 6,000 posts (compaction is due past 3,000 entries).
    for i in 0..6_000u64 {
        match client.post_json(
            "/v1/documents",
            &json!({"id": format!("d{i}"), "text": text(i)}),
        ) {
            Ok(r) if r.status == 200 => acked.push(i),
            _ => break,
        }
    }
    done.store(true, Ordering::Relaxed);
    assert!(
        watcher.join().unwrap(),
        "no compaction began in 6,000 posts"
    );
    let mut c = conn();
    let pttl: i64 = redis::cmd("PTTL")
        .arg("{neardup}:compact:lease")
        .query(&mut c)
        .unwrap();
    let at = |c: &mut redis::Connection| -> u64 {
        let v: Option<u64> = redis::cmd("HGET")
            .arg("{neardup}:base")
            .arg("at")
            .query(c)
            .unwrap();
        v.unwrap_or(0)
    };
    let before = at(&mut c);
    eprintln!(
        "{} posts acknowledged; A killed, its lease {pttl} ms from expiry; base at {before}",
        acked.len()
    );
    // Killed holding the lease (the usual case: the watcher kills within
    // a few milliseconds, the compaction takes longer), A published
    // nothing: its half-written base is no base.
    if pttl > 0 {
        assert_eq!(before, 0);
    }
    // B goes on, and compacts once the dead holder's lease has expired.
    signal(&b.child, "CONT");
    let post = |at: &Serve, id: &str, i: u64| at.post_text(id, i);
    let last = *acked.last().unwrap();
    assert_eq!(post(&b, "copy-of-last", last), json!(format!("d{last}")));
    redis_server::wait_until(60, "B compacts after the lease", || at(&mut c) > before);
    let lease: Option<String> = redis::cmd("GET")
        .arg("{neardup}:compact:lease")
        .query(&mut c)
        .unwrap();
    assert!(lease.is_none(), "{lease:?}");
    // Nothing lost, nothing doubled: a new instance loads B's base and
    // holds what B holds; both judge copies alike.
    let late = Serve::start_with(&dir.join("c"), &limit);
    let (live, gone) = (last - 10, last - 1_600);
    assert_eq!(
        post(&late, "late-copy-live", live),
        json!(format!("d{live}"))
    );
    assert_eq!(post(&b, "b-copy-live", live), json!(format!("d{live}")));
    assert_eq!(post(&late, "late-copy-gone", gone), json!(null));
    assert_eq!(post(&b, "b-copy-gone", gone), json!("late-copy-gone"));
    for at in [&b, &late] {
        let stats = Client::new(at.addr).get("/v1/stats").unwrap().json();
        assert_eq!(stats["documents"], json!(1500), "{stats}");
    }
    drop((a, b, late, redis));
    let _ = std::fs::remove_dir_all(&dir);
}
