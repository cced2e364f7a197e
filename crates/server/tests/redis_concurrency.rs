//! Four service instances over one real redis-server, thousands of
//! near-duplicate pairs and groups posted at once to different instances:
//! never a double keep, never two documents each other's duplicate, and
//! verdicts that are the single-node engine's in the store's arrival order.

mod common;
mod redis_server;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{article, edit, post_text, temp_dir};
use neardup::io::{Content, RawDocument};
use neardup_server::client::Client;
use neardup_server::http::Server;
use neardup_server::redis::StoreUrl;
use neardup_server::{Config, ContentSeen};
use redis_server::RedisServer;
use serde_json::Value;

const INSTANCES: usize = 4;
const CLIENTS: usize = 16;
/// Groups of near-duplicates: 10,010 posts.
const GROUPS: usize = 3640;

/// Groups of 1 to 5 near-duplicates (light edits of one article, pairwise
/// near-duplicates), members adjacent so that they are posted at once.
fn posts(groups: usize) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    for g in 0..groups {
        let base = article(10_000 + g as u64, 150);
        let size = [2, 2, 3, 4, 5, 1, 2, 3][g % 8];
        for m in 0..size {
            out.push((g, format!("g{g}m{m}"), edit(&base, 40, m)));
        }
    }
    out
}

/// The single-node engine's verdicts for the posts `order` names, in that
/// order: one batch, which its writer judges one after the other.
fn replay(
    single: &ContentSeen,
    order: &[String],
    posts: &[(usize, String, String)],
) -> Vec<Result<neardup_server::Verdict, neardup_server::Error>> {
    let texts: HashMap<&str, &str> = posts
        .iter()
        .map(|(_, id, t)| (id.as_str(), t.as_str()))
        .collect();
    single.insert_many(
        order
            .iter()
            .map(|id| {
                single.prepare(RawDocument {
                    id: id.clone(),
                    url: None,
                    content: Content::Text(texts[id.as_str()].into()),
                })
            })
            .collect(),
    )
}

#[test]
fn four_instances_never_double_keep() {
    if !redis_server::available("four_instances_never_double_keep") {
        return;
    }
    let started = Instant::now();
    let redis = RedisServer::start("concurrency", None);
    let url = StoreUrl::parse(&redis.url()).unwrap();
    let dir = temp_dir("redis-concurrency");
    let config = Config::new();
    let servers: Vec<_> = (0..INSTANCES)
        .map(|i| {
            let seen = ContentSeen::open_shared(&url, dir.join(format!("i{i}")), &config).unwrap();
            Server::new(seen)
                .spawn("127.0.0.1:0".parse().unwrap())
                .unwrap()
        })
        .collect();
    let addrs: Vec<_> = servers.iter().map(|s| s.addr()).collect();
    let posts = Arc::new(posts(GROUPS));
    assert!(posts.len() >= 10_000, "{}", posts.len());
    let next = Arc::new(AtomicUsize::new(0));
    let verdicts = Arc::new(Mutex::new(HashMap::<String, Value>::new()));
    let threads: Vec<_> = (0..CLIENTS)
        .map(|t| {
            let (posts, next, verdicts, addrs) =
                (posts.clone(), next.clone(), verdicts.clone(), addrs.clone());
            std::thread::spawn(move || {
                let mut clients: Vec<Client> = addrs.iter().map(|a| Client::new(*a)).collect();
                for c in &mut clients {
                    c.timeout(Duration::from_secs(60));
                }
                // Bounded: every post is taken once.
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((_, id, text)) = posts.get(i) else {
                        break;
                    };
                    // Members of a group go to different instances.
                    let c = &mut clients[(i + t) % INSTANCES];
                    let r = post_text(c, "/v1/documents", id, text);
                    assert_eq!(r.status, 200, "{id}: {}", String::from_utf8_lossy(&r.body));
                    verdicts.lock().unwrap().insert(id.clone(), r.json());
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let posting = started.elapsed();
    let verdicts = verdicts.lock().unwrap().clone();
    assert_eq!(verdicts.len(), posts.len());
    let of = |id: &str| verdicts[id]["duplicate_of"].as_str().map(str::to_string);

    // 0 double keeps: one original per group of near-duplicates.
    let mut kept: HashMap<usize, Vec<&str>> = HashMap::new();
    for (g, id, _) in posts.iter() {
        if of(id).is_none() {
            kept.entry(*g).or_default().push(id);
        }
    }
    let double: Vec<_> = kept.values().filter(|k| k.len() > 1).collect();
    assert!(double.is_empty(), "double keeps: {double:?}");
    assert_eq!(kept.len(), GROUPS);
    // 0 mutual duplicates, no chains: a duplicate names a kept document
    // of its group.
    let group: HashMap<&str, usize> = posts.iter().map(|(g, id, _)| (id.as_str(), *g)).collect();
    for (g, id, _) in posts.iter() {
        if let Some(o) = of(id) {
            assert!(of(&o).is_none(), "{id} duplicates {o}, itself a duplicate");
            assert_eq!(
                group[o.as_str()],
                *g,
                "{id} duplicates {o} of another group"
            );
        }
    }

    // A valid keep-first order: the single-node engine, fed the posts in
    // the store's arrival order, gives every verdict.
    let order = redis.logged_ids();
    assert_eq!(order.len(), posts.len());
    assert_eq!(order.iter().collect::<HashSet<_>>().len(), posts.len());
    let single = ContentSeen::open(dir.join("single"), &config).unwrap();
    let replayed = replay(&single, &order, &posts);
    let mut arrival_differs = 0;
    for (k, (id, v)) in order.iter().zip(replayed).enumerate() {
        let v = v.unwrap();
        assert_eq!(v.duplicate_of, of(id), "{id}");
        assert_eq!(verdicts[id]["similarity"].as_f64(), v.similarity, "{id}");
        if posts[k].1 != *id {
            arrival_differs += 1;
        }
    }
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
    let url = StoreUrl::parse(&redis.url()).unwrap();
    let dir = temp_dir("redis-restart-load");
    let config = Config::new();
    let servers: Vec<_> = (0..INSTANCES)
        .map(|i| {
            let seen = ContentSeen::open_shared(&url, dir.join(format!("i{i}")), &config).unwrap();
            Server::new(seen)
                .spawn("127.0.0.1:0".parse().unwrap())
                .unwrap()
        })
        .collect();
    let addrs: Vec<_> = servers.iter().map(|s| s.addr()).collect();
    let posts = Arc::new(posts(700));
    let next = Arc::new(AtomicUsize::new(0));
    let refused = Arc::new(AtomicUsize::new(0));
    let verdicts = Arc::new(Mutex::new(HashMap::<String, Value>::new()));
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (posts, next, verdicts, addrs, refused) = (
                posts.clone(),
                next.clone(),
                verdicts.clone(),
                addrs.clone(),
                refused.clone(),
            );
            std::thread::spawn(move || {
                let mut clients: Vec<Client> = addrs.iter().map(|a| Client::new(*a)).collect();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((_, id, text)) = posts.get(i) else {
                        break;
                    };
                    let c = &mut clients[(i + t) % INSTANCES];
                    // Bounded: a 503 is retried for at most 20 s.
                    let mut tries = 0;
                    let r = loop {
                        let r = post_text(c, "/v1/documents", id, text);
                        if r.status != 503 || tries == 400 {
                            break r;
                        }
                        assert_eq!(common::error_code(&r), "store_unavailable");
                        refused.fetch_add(1, Ordering::Relaxed);
                        tries += 1;
                        std::thread::sleep(Duration::from_millis(50));
                    };
                    assert_eq!(r.status, 200, "{id}: {}", String::from_utf8_lossy(&r.body));
                    verdicts.lock().unwrap().insert(id.clone(), r.json());
                }
            })
        })
        .collect();
    let start = Instant::now();
    while next.load(Ordering::Relaxed) < posts.len() / 3 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the load did not start"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    redis.kill();
    std::thread::sleep(Duration::from_millis(500));
    redis.restart();
    for t in threads {
        t.join().unwrap();
    }
    assert!(
        refused.load(Ordering::Relaxed) > 0,
        "the outage was not seen"
    );
    let verdicts = verdicts.lock().unwrap().clone();
    assert_eq!(verdicts.len(), posts.len());
    let of = |id: &str| verdicts[id]["duplicate_of"].as_str().map(str::to_string);
    let mut kept: HashMap<usize, usize> = HashMap::new();
    for (g, id, _) in posts.iter() {
        if of(id).is_none() {
            *kept.entry(*g).or_default() += 1;
        }
    }
    assert!(kept.values().all(|&k| k == 1), "a double keep");
    // The log may hold a post twice (its answer was lost, it was posted
    // again): the second is answered with the first's stored verdict.
    let order = redis.logged_ids();
    let single = ContentSeen::open(dir.join("single"), &config).unwrap();
    let replayed = replay(&single, &order, &posts);
    let mut checked = HashSet::new();
    for (id, v) in order.iter().zip(replayed) {
        let v = v.unwrap();
        assert_eq!(v.duplicate_of, of(id), "{id}");
        checked.insert(id.clone());
    }
    assert_eq!(checked.len(), posts.len());
    eprintln!(
        "{} posts, {} answers 503 while Redis restarted, {} log entries",
        posts.len(),
        refused.load(Ordering::Relaxed),
        order.len()
    );
    for s in servers {
        s.stop().unwrap();
    }
}
