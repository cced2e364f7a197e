//! The shared store over real Redis Cluster (3 primaries, 3 replicas) and
//! Sentinel (a primary, 2 replicas, 3 sentinels) deployments: the
//! single-node verdicts on a sequential stream, the concurrency stress
//! (4 instances, 10,010 posts, 0 double keeps), and a primary SIGKILLed
//! mid-load: 503s during the failover, then the service resumes, every
//! acknowledged verdict is in the log and the verdicts still form one
//! keep-first order. Skipped, saying so, without redis-server.

mod common;
mod redis_server;

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::temp_dir;
use neardup::io::{Content, RawDocument};
use neardup_server::redis::StoreUrl;
use neardup_server::{Config, ContentSeen};
use redis_server::cluster::{Cluster, SLOT};
use redis_server::sentinel::Sentinels;
use redis_server::stress::{self, assert_one_kept_per_group, assert_replayed, posts, replay};
use redis_server::wait_until;

/// Groups of near-duplicates in the stress: 10,010 posts.
const GROUPS: usize = 3640;

#[test]
fn a_cluster_gives_the_single_node_verdicts_and_never_double_keeps() {
    if !redis_server::available_with_cli(
        "a_cluster_gives_the_single_node_verdicts_and_never_double_keeps",
    ) {
        return;
    }
    let started = Instant::now();
    // A busy 2-core machine must not make a node look down: no 503 here.
    let cluster = Cluster::start("cluster-stress", 5000);
    let owner = cluster.owner().unwrap();
    let slot: u16 = redis::cmd("CLUSTER")
        .arg("KEYSLOT")
        .arg("{neardup}:log")
        .query(&mut cluster.nodes[owner].connection())
        .unwrap();
    assert_eq!(slot, SLOT);
    let dir = temp_dir("redis-cluster-stress");
    let up = started.elapsed();

    // A sequential stream: the single-node verdicts, one by one.
    let url = StoreUrl::parse(&cluster.url()).unwrap();
    let seen = ContentSeen::open_shared(&url, dir.join("sequential"), &Config::new()).unwrap();
    // The slot's primary has a replica: each write waits for it.
    assert_eq!(seen.shared_store_replicas(), Some(1));
    let sequence = posts(300);
    let node = &cluster.nodes[owner];
    let (scripts, waits) = (node.script_calls(), node.calls(&["wait"]));
    let t = Instant::now();
    let got: Vec<_> = sequence
        .iter()
        .map(|(_, id, text)| {
            seen.insert(RawDocument {
                id: id.clone(),
                url: None,
                content: Content::Text(text.as_str().into()),
            })
            .unwrap()
        })
        .collect();
    // One round trip per verdict: one script call, with its WAIT in the
    // same pipeline, less the catching-up thread's (one every 100 ms).
    // Closed first, so that the thread stops; its last pipeline may still
    // be in flight (its script counted, its WAIT not yet answered), so the
    // counts are read once they agree: a script without its WAIT would
    // never let them.
    drop(seen);
    let calls = || (node.script_calls() - scripts, node.calls(&["wait"]) - waits);
    wait_until(30, "a WAIT for every script call", || {
        let (made, waited) = calls();
        made == waited
    });
    let made = calls().0;
    let tail = t.elapsed().as_millis() as u64 / 100 + 2;
    let n = sequence.len() as u64;
    assert!(made >= n && made <= n + tail, "{made} script calls");
    let ids: Vec<String> = sequence.iter().map(|p| p.1.clone()).collect();
    let single = ContentSeen::open(dir.join("sequential-single"), &Config::new()).unwrap();
    let expected = replay(&single, &ids, &sequence);
    for (g, e) in got.iter().zip(expected) {
        assert_eq!(g, &e.unwrap(), "{}", g.id);
    }
    assert!(got.iter().filter(|v| v.is_duplicate()).count() > 400);
    let sequential = started.elapsed() - up;
    // A fresh store for the stress.
    redis::cmd("DEL")
        .arg(&["{neardup}:log", "{neardup}:meta", "{neardup}:sync"])
        .exec(&mut cluster.nodes[owner].connection())
        .unwrap();

    // 4 instances, 10,010 near-duplicate posts at once.
    let servers = stress::instances(&cluster.url(), &dir, 4);
    let addrs: Vec<_> = servers.iter().map(|s| s.addr()).collect();
    let posts = Arc::new(posts(GROUPS));
    assert!(posts.len() >= 10_000);
    let t = Instant::now();
    let load = stress::load(&addrs, &posts, 16, Duration::ZERO, |_| {});
    let posting = t.elapsed();
    assert_one_kept_per_group(&posts, &load.verdicts);
    let order = cluster.logged_ids();
    assert_eq!(order.len(), posts.len());
    assert_eq!(order.iter().collect::<HashSet<_>>().len(), posts.len());
    assert!(assert_replayed(&dir.join("single"), &order, &posts, &load.verdicts) > 0);

    // A manual failover (`CLUSTER FAILOVER`: the old primary lives on as
    // a replica and answers MOVED): the instances follow it, no 503.
    let old = cluster.owner().unwrap();
    let replica = (0..cluster.nodes.len())
        .find(|&i| {
            cluster.nodes[i]
                .info("replication", "master_port")
                .is_some_and(|p| p == cluster.nodes[old].port.to_string())
        })
        .unwrap();
    redis::cmd("CLUSTER")
        .arg("FAILOVER")
        .exec(&mut cluster.nodes[replica].connection())
        .unwrap();
    wait_until(30, "the manual failover", || {
        cluster.owner() == Some(replica)
    });
    cluster.wait_replicated();
    let more = Arc::new(
        (0..40)
            .map(|i| {
                (
                    GROUPS + i,
                    format!("moved{i}"),
                    common::article(90_000 + i as u64, 150),
                )
            })
            .collect::<Vec<_>>(),
    );
    let after = stress::load(&addrs, &more, 4, Duration::ZERO, |_| {});
    assert_eq!(after.refused, 0);
    assert_eq!(cluster.logged_ids().len(), posts.len() + more.len());
    eprintln!(
        "cluster up in {:.1} s; {} sequential posts in {:.1} s; {} posts to 4 instances in {:.1} s ({:.0} posts/s); whole test {:.1} s",
        up.as_secs_f64(),
        sequence.len(),
        sequential.as_secs_f64(),
        posts.len(),
        posting.as_secs_f64(),
        posts.len() as f64 / posting.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    for s in servers {
        s.stop().unwrap();
    }
}

#[test]
fn a_killed_cluster_primary_fails_over_and_no_acknowledged_verdict_is_lost() {
    if !redis_server::available_with_cli(
        "a_killed_cluster_primary_fails_over_and_no_acknowledged_verdict_is_lost",
    ) {
        return;
    }
    let started = Instant::now();
    let mut cluster = Cluster::start("cluster-failover", 1000);
    let dir = temp_dir("redis-cluster-failover");
    let servers = stress::instances(&cluster.url(), &dir, 4);
    let addrs: Vec<_> = servers.iter().map(|s| s.addr()).collect();
    let posts = Arc::new(posts(700));
    let (mut killed, mut promoted, mut gap) = (0, 0, (0.0, 0.0));
    let load = stress::load(&addrs, &posts, 8, Duration::from_secs(40), |next| {
        wait_until(60, "a third of the load", || {
            next.load(Ordering::Relaxed) >= posts.len() / 3
        });
        let t = Instant::now();
        killed = cluster.kill_owner();
        promoted = cluster.wait_failover(killed);
        gap.0 = t.elapsed().as_secs_f64();
        // The new primary has no replica until the killed node is back
        // (it rejoins as the new primary's replica): writes wait for it.
        cluster.nodes[killed].restart();
        cluster.wait_replicated();
        gap.1 = t.elapsed().as_secs_f64();
    });
    assert_ne!(killed, promoted);
    assert!(load.refused > 0, "the failover was not seen");
    assert_one_kept_per_group(&posts, &load.verdicts);
    // Every acknowledged verdict survived, in one keep-first order.
    let order = cluster.logged_ids();
    assert_replayed(&dir.join("single"), &order, &posts, &load.verdicts);
    eprintln!(
        "cluster failover: promoted {:.1} s after the kill, a replica again after {:.1} s; {} posts, {} answers 503, {} log entries; whole test {:.1} s",
        gap.0,
        gap.1,
        posts.len(),
        load.refused,
        order.len(),
        started.elapsed().as_secs_f64()
    );
    for s in servers {
        s.stop().unwrap();
    }
}

#[test]
fn a_killed_sentinel_primary_fails_over_and_no_acknowledged_verdict_is_lost() {
    if !redis_server::available(
        "a_killed_sentinel_primary_fails_over_and_no_acknowledged_verdict_is_lost",
    ) {
        return;
    }
    let started = Instant::now();
    let mut deployment = Sentinels::start("sentinel-failover");
    let dir = temp_dir("redis-sentinel-failover");
    let servers = stress::instances(&deployment.url(), &dir, 4);
    let addrs: Vec<_> = servers.iter().map(|s| s.addr()).collect();
    let posts = Arc::new(posts(700));
    let (mut killed, mut promoted, mut gap) = (0, 0, (0.0, 0.0));
    let load = stress::load(&addrs, &posts, 8, Duration::from_secs(40), |next| {
        wait_until(60, "a third of the load", || {
            next.load(Ordering::Relaxed) >= posts.len() / 3
        });
        let t = Instant::now();
        killed = deployment.master();
        deployment.data[killed].kill();
        promoted = deployment.wait_failover(killed);
        gap.0 = t.elapsed().as_secs_f64();
        // The sentinels point the other replica at the new primary:
        // writes are confirmed again without the killed node.
        wait_until(30, "the other replica replicating the new primary", || {
            deployment.data[promoted]
                .info("replication", "slave0")
                .is_some_and(|s| s.contains("state=online"))
        });
        gap.1 = t.elapsed().as_secs_f64();
    });
    assert_ne!(killed, promoted);
    assert!(load.refused > 0, "the failover was not seen");
    assert_one_kept_per_group(&posts, &load.verdicts);
    let order = redis_server::logged_ids(&mut deployment.data[promoted].connection());
    assert_replayed(&dir.join("single"), &order, &posts, &load.verdicts);
    eprintln!(
        "sentinel failover: promoted {:.1} s after the kill, a replica again after {:.1} s; {} posts, {} answers 503, {} log entries; whole test {:.1} s",
        gap.0,
        gap.1,
        posts.len(),
        load.refused,
        order.len(),
        started.elapsed().as_secs_f64()
    );
    for s in servers {
        s.stop().unwrap();
    }
}

/// A node that answers every connection with bytes that are not RESP,
/// for at most `n` connections.
fn garbage_node(n: usize) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut c in listener.incoming().take(n).flatten() {
            use std::io::Write;
            let _ = c.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n\x00\xff*-1\r\n:x\r\n");
        }
    });
    port
}

#[test]
fn a_cluster_without_the_slot_and_nodes_answering_garbage_are_refused_clearly() {
    if !redis_server::available(
        "a_cluster_without_the_slot_and_nodes_answering_garbage_are_refused_clearly",
    ) {
        return;
    }
    // A cluster node that owns no slot, and a plain server (no sentinel).
    let empty = redis_server::RedisServer::start_with(
        "cluster-no-slot",
        None,
        &[
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
        ],
    );
    let plain = redis_server::RedisServer::start("not-a-sentinel", None);
    let garbage = garbage_node(64);
    let dir = temp_dir("redis-hostile");
    for (url, says) in [
        (
            format!(
                "redis+cluster://127.0.0.1:{garbage},127.0.0.1:{}",
                empty.port
            ),
            "no node owns slot 3979",
        ),
        (
            format!(
                "redis+sentinel://127.0.0.1:{garbage},127.0.0.1:{}/m",
                plain.port
            ),
            "no primary found",
        ),
        (format!("redis://:Secr3t@127.0.0.1:{garbage}"), "127.0.0.1"),
    ] {
        let parsed = StoreUrl::parse(&url).unwrap();
        let e = ContentSeen::open_shared(&parsed, dir.join("replica"), &Config::new())
            .err()
            .unwrap_or_else(|| panic!("{url}: opened"))
            .to_string();
        assert!(e.contains(says), "{url}: {e}");
        assert!(!e.contains("Secr3t"), "{e}");
        let _ = std::fs::remove_dir_all(dir.join("replica"));
    }
}

/// What a failover without `WAIT` (or a server restarted without its
/// data) can do: the log loses entries an instance had applied. The
/// instance then answers 503 naming the loss, never a verdict against
/// another history, until it is restarted; a restarted one replays the
/// log as it is.
#[test]
fn an_instance_that_applied_lost_entries_answers_503_until_restarted() {
    if !redis_server::available("an_instance_that_applied_lost_entries_answers_503_until_restarted")
    {
        return;
    }
    let redis = redis_server::RedisServer::start("lost-entries", None);
    let url = StoreUrl::parse(&redis.url()).unwrap();
    let dir = temp_dir("redis-lost-entries");
    let seen = ContentSeen::open_shared(&url, dir.join("a"), &Config::new()).unwrap();
    assert_eq!(seen.shared_store_replicas(), Some(0));
    let posts = posts(10);
    let doc = |(_, id, text): &stress::Post| RawDocument {
        id: id.clone(),
        url: None,
        content: Content::Text(text.as_str().into()),
    };
    for p in &posts[..20] {
        seen.insert(doc(p)).unwrap();
    }
    // The last 3 entries are lost (as by a failover to a replica that
    // had not received them).
    redis::cmd("RPOP")
        .arg("{neardup}:log")
        .arg(3)
        .exec(&mut redis.connection())
        .unwrap();
    for p in &posts[20..] {
        let e = seen.insert(doc(p)).unwrap_err().to_string();
        assert!(
            e.contains("no longer holds the entries this instance applied")
                && e.contains("restart it"),
            "{e}"
        );
        assert!(seen.check(doc(p)).is_err());
    }
    // Nothing was appended meanwhile; a restarted instance replays the
    // 17 entries left and goes on.
    assert_eq!(redis.logged_ids().len(), 17);
    drop(seen);
    let again = ContentSeen::open_shared(&url, dir.join("b"), &Config::new()).unwrap();
    assert_eq!(again.stats().documents, 17);
    for p in &posts[20..] {
        again.insert(doc(p)).unwrap();
    }
    // The store reset (its meta key gone): refused the same way.
    redis::cmd("DEL")
        .arg("{neardup}:meta")
        .exec(&mut redis.connection())
        .unwrap();
    let e = again.insert(doc(&posts[0])).unwrap_err().to_string();
    assert!(e.contains("the store was reset"), "{e}");
}
