//! Four service instances over one real redis-server, thousands of
//! near-duplicate pairs and groups posted at once to different instances:
//! never a double keep, never two documents each other's duplicate, and
//! verdicts that are the single-node engine's in the store's arrival order.
//! The same over Redis Cluster and Sentinel: redis_cluster.rs.

mod common;
mod redis_server;

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::temp_dir;
use neardup_server::client::Client;
use redis_server::stress::{self, assert_one_kept_per_group, assert_replayed, posts};
use redis_server::RedisServer;

const INSTANCES: usize = 4;
const CLIENTS: usize = 16;
/// Groups of near-duplicates: 10,010 posts.
const GROUPS: usize = 3640;

#[test]
fn four_instances_never_double_keep() {
    if !redis_server::available("four_instances_never_double_keep") {
        return;
    }
    let started = Instant::now();
    let redis = RedisServer::start("concurrency", None);
    let dir = temp_dir("redis-concurrency");
    let servers = stress::instances(&redis.url(), &dir, INSTANCES);
    let addrs: Vec<_> = servers.iter().map(|s| s.addr()).collect();
    let posts = Arc::new(posts(GROUPS));
    assert!(posts.len() >= 10_000, "{}", posts.len());
    let load = stress::load(&addrs, &posts, CLIENTS, Duration::ZERO, |_| {});
    let posting = started.elapsed();
    assert_one_kept_per_group(&posts, &load.verdicts);
    // A valid keep-first order, with each post once in the log.
    let order = redis.logged_ids();
    assert_eq!(order.len(), posts.len());
    assert_eq!(order.iter().collect::<HashSet<_>>().len(), posts.len());
    let arrival_differs = assert_replayed(&dir.join("single"), &order, &posts, &load.verdicts);
    // The posts really raced: the store's order is not the list's.
    assert!(arrival_differs > 0);
    // Every instance holds the same documents once caught up.
    for a in &addrs {
        let mut c = Client::new(*a);
        let r = c.get("/v1/documents/g0m0").unwrap();
        assert_eq!(r.status, 200);
        let s = c.get("/v1/stats").unwrap().json();
        assert_eq!(s["documents"].as_u64(), Some(posts.len() as u64), "{s}");
    }
    let bytes = redis.used_memory();
    eprintln!(
        "{} posts to {INSTANCES} instances from {CLIENTS} clients in {:.1} s ({:.0} posts/s); Redis uses {} bytes ({} per document); whole test {:.1} s",
        posts.len(),
        posting.as_secs_f64(),
        posts.len() as f64 / posting.as_secs_f64(),
        bytes,
        bytes / posts.len() as u64,
        started.elapsed().as_secs_f64()
    );
    for s in servers {
        s.stop().unwrap();
    }
}

#[test]
fn a_redis_restart_under_load_gives_503s_and_no_wrong_verdict() {
    if !redis_server::available("a_redis_restart_under_load_gives_503s_and_no_wrong_verdict") {
        return;
    }
    let mut redis = RedisServer::start("restart-load", None);
    let dir = temp_dir("redis-restart-load");
    let servers = stress::instances(&redis.url(), &dir, INSTANCES);
    let addrs: Vec<_> = servers.iter().map(|s| s.addr()).collect();
    let posts = Arc::new(posts(700));
    let load = stress::load(&addrs, &posts, 8, Duration::from_secs(20), |next| {
        redis_server::wait_until(60, "a third of the load", || {
            next.load(Ordering::Relaxed) >= posts.len() / 3
        });
        redis.kill();
        std::thread::sleep(Duration::from_millis(500));
        redis.restart();
    });
    assert!(load.refused > 0, "the outage was not seen");
    assert_one_kept_per_group(&posts, &load.verdicts);
    // The log may hold a post twice (its answer was lost, it was posted
    // again): the second is answered with the first's stored verdict.
    let order = redis.logged_ids();
    assert_replayed(&dir.join("single"), &order, &posts, &load.verdicts);
    eprintln!(
        "{} posts, {} answers 503 while Redis restarted, {} log entries",
        posts.len(),
        load.refused,
        order.len()
    );
    for s in servers {
        s.stop().unwrap();
    }
}
