//! Eviction over the shared store (`--store` with `--max-documents`,
//! `--max-age`) against a real redis-server: two instances, posted to in
//! turn, give the verdicts of one single-node service with the same
//! limit, near-duplicates of evicted documents and of live ones among
//! them; age is measured in the log's time; and an instance with other
//! limits refuses the store.

mod common;
mod crawl;
mod evict_stream;
mod redis_server;

use std::time::{Duration, Instant};

use common::{article, edit, temp_dir};
use crawl::text;
use evict_stream::{run, stream};
use neardup::io::RawDocument;
use neardup_server::redis::StoreUrl;
use neardup_server::{Config, ContentSeen, ErrorKind, Verdict};
use redis_server::cluster::Cluster;
use redis_server::RedisServer;

#[test]
fn two_instances_evict_as_one_by_the_document_limit() {
    if !redis_server::available("two_instances_evict_as_one_by_the_document_limit") {
        return;
    }
    let redis = RedisServer::start("evict-docs", None);
    let mut config = Config::new();
    config.max_documents(Some(50));
    evict_as_one(&redis.url(), &config, "standalone");
}

/// The same over a Redis Cluster (3 primaries, 3 replicas), with an age
/// limit too (an hour: it evicts nothing here), so that every entry is
/// stamped by the log script with the server's `TIME` on the slot's
/// primary.
#[test]
fn two_instances_evict_as_one_over_a_cluster_with_stamped_entries() {
    if !redis_server::available_with_cli(
        "two_instances_evict_as_one_over_a_cluster_with_stamped_entries",
    ) {
        return;
    }
    let cluster = Cluster::start("evict-cluster", 5000);
    let mut config = Config::new();
    config
        .max_documents(Some(50))
        .max_age(Some(Duration::from_secs(3600)));
    evict_as_one(&cluster.url(), &config, "cluster");
    // Every entry carries its time: the stamped kind (bit 0x10).
    let owner = cluster.owner().expect("the slot's primary");
    let first: Vec<u8> = redis::cmd("LINDEX")
        .arg("{neardup}:log")
        .arg(0)
        .query(&mut cluster.nodes[owner].connection())
        .unwrap();
    assert!(first.first().is_some_and(|k| k & 0x10 != 0), "{first:?}");
}

/// Posts [`stream`] to two instances over the store at `url` in turn and
/// checks them against a single node with `config`: the same verdicts,
/// documents and evictions, and a late instance replaying into the same
/// documents.
fn evict_as_one(url: &str, config: &Config, name: &str) {
    let url = StoreUrl::parse(url).unwrap();
    let config = config.clone();
    // 300 documents, under a limit of 50: the edits of the article 20
    // steps before find it, those of the article 70 steps before do not.
    let steps = stream(0, 180, 20, 70);
    assert!(steps.len() >= 300, "{}", steps.len());
    let single_dir = temp_dir(&format!("redis-evict-single-{name}"));
    let single = ContentSeen::open(&single_dir, &config).unwrap();
    let expected = run(&steps, |_| &single);
    let (da, db) = (
        temp_dir(&format!("redis-evict-a-{name}")),
        temp_dir(&format!("redis-evict-b-{name}")),
    );
    let a = ContentSeen::open_shared(&url, &da, &config).unwrap();
    let b = ContentSeen::open_shared(&url, &db, &config).unwrap();
    let got = run(&steps, |i| if i % 2 == 0 { &a } else { &b });
    for ((step, e), g) in steps.iter().zip(&expected).zip(&got) {
        assert_eq!(g, e, "{}", step.0);
    }
    let named = |tag: &str, dup: bool| {
        steps
            .iter()
            .zip(&expected)
            .filter(|((id, _), v)| id.ends_with(tag) && v.is_some() == dup)
            .count()
    };
    // The edits of live articles are duplicates, those of evicted ones
    // not (the limit holds at every step).
    assert!(
        named("-live-edit", true) >= 75,
        "{}",
        named("-live-edit", true)
    );
    assert!(named("-gone-edit", true) == 0 && named("-gone-edit", false) >= 30);
    let evicted = single.stats().evicted;
    assert!(evicted > 200, "{evicted}");
    a.get("a0").unwrap();
    b.get("a0").unwrap();
    for s in [&a, &b] {
        assert_eq!(s.stats().documents, 50);
        assert_eq!(s.stats().evicted, evicted);
    }
    // A late instance replays the log into the same 50 documents.
    let dl = temp_dir(&format!("redis-evict-late-{name}"));
    let late = ContentSeen::open_shared(&url, &dl, &config).unwrap();
    assert_eq!(late.stats().documents, 50);
    for (id, _) in &steps {
        assert_eq!(
            late.get(id).unwrap().map(|d| d.duplicate_of),
            single.get(id).unwrap().map(|d| d.duplicate_of),
            "{id}"
        );
    }
}

/// Phases of documents: each a few articles and light edits of the
/// phase's own articles and of the previous phase's.
fn phase(p: u64) -> Vec<RawDocument> {
    let mut docs = Vec::new();
    for k in 0..8u64 {
        let seed = 100 * p + k;
        docs.push(text(&format!("p{p}-{k}"), &article(seed, 80)));
        docs.push(text(
            &format!("p{p}-{k}-edit"),
            &edit(&article(seed, 80), 25, 1),
        ));
        if p > 0 {
            let before = edit(&article(seed - 100, 80), 25, 2);
            docs.push(text(&format!("p{p}-{k}-old-edit"), &before));
        }
    }
    docs
}

#[test]
fn two_instances_evict_as_one_by_the_age_limit_in_log_time() {
    if !redis_server::available("two_instances_evict_as_one_by_the_age_limit_in_log_time") {
        return;
    }
    let redis = RedisServer::start("evict-age", None);
    let url = StoreUrl::parse(&redis.url()).unwrap();
    let mut config = Config::new();
    config.max_age(Some(Duration::from_secs(1)));
    let single_dir = temp_dir("redis-age-single");
    let single = ContentSeen::open(&single_dir, &config).unwrap();
    let (da, db) = (temp_dir("redis-age-a"), temp_dir("redis-age-b"));
    let a = ContentSeen::open_shared(&url, &da, &config).unwrap();
    let b = ContentSeen::open_shared(&url, &db, &config).unwrap();
    // Each phase is posted within well under the limit (checked), and
    // more than the limit after the one before: the previous phase's
    // documents are evicted by the first entry of the next.
    let pause = Duration::from_millis(1400);
    let (mut expected, mut got) = (Vec::new(), Vec::new());
    for p in 0..3u64 {
        if p > 0 {
            std::thread::sleep(pause);
        }
        let start = Instant::now();
        let docs = phase(p);
        let verdicts = |s: &ContentSeen, d: &[RawDocument]| -> Vec<Verdict> {
            let prepared = d.iter().map(|d| s.prepare(d.clone())).collect();
            s.insert_many(prepared)
                .into_iter()
                .map(Result::unwrap)
                .collect()
        };
        expected.extend(verdicts(&single, &docs));
        for (i, chunk) in docs.chunks(4).enumerate() {
            got.extend(verdicts(if i % 2 == 0 { &a } else { &b }, chunk));
        }
        let took = start.elapsed();
        assert!(took < Duration::from_millis(900), "phase {p}: {took:?}");
    }
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(&expected) {
        assert_eq!(g.duplicate_of, e.duplicate_of, "{}", e.id);
    }
    let kind = |tag: &str| {
        let all = expected.iter().filter(|v| v.id.ends_with(tag));
        (
            all.clone().count(),
            all.filter(|v| v.is_duplicate()).count(),
        )
    };
    assert_eq!(kind("-edit").0, kind("-edit").1 + kind("-old-edit").0);
    assert_eq!(kind("-old-edit").1, 0);
    // Both instances hold the last phase, stamped with the same log time.
    let (x, y) = (
        a.get("p2-3").unwrap().unwrap(),
        b.get("p2-3").unwrap().unwrap(),
    );
    assert_eq!(x.stored_at_ms, y.stored_at_ms);
    assert!(a.get("p1-3").unwrap().is_none() && b.get("p1-3").unwrap().is_none());
    assert_eq!(a.stats().documents, b.stats().documents);
    // Without new entries, nothing ages out: the log's time stands still.
    std::thread::sleep(pause);
    let held = b.stats().documents;
    assert!(b.get("p2-3").unwrap().is_some());
    assert_eq!(b.stats().documents, held);
    a.insert(text("tick", &article(999, 80))).unwrap();
    assert!(b.get("p2-3").unwrap().is_none());
    assert_eq!(b.stats().documents, 1);
}

#[test]
fn an_instance_with_other_eviction_limits_refuses_the_store() {
    if !redis_server::available("an_instance_with_other_eviction_limits_refuses_the_store") {
        return;
    }
    let redis = RedisServer::start("evict-refused", None);
    let url = StoreUrl::parse(&redis.url()).unwrap();
    let dir = temp_dir("redis-evict-refused");
    let mut limits = Config::new();
    limits
        .max_documents(Some(50))
        .max_age(Some(Duration::from_secs(3600)));
    let first = ContentSeen::open_shared(&url, dir.join("a"), &limits).unwrap();
    let same = ContentSeen::open_shared(&url, dir.join("b"), &limits).unwrap();
    let mut others = [Config::new(), limits.clone(), limits.clone()];
    others[1].max_documents(Some(60));
    others[2].max_age(None);
    for (i, other) in others.iter().enumerate() {
        let e = ContentSeen::open_shared(&url, dir.join(format!("o{i}")), other).unwrap_err();
        let ErrorKind::MethodMismatch { stored, configured } = e.kind() else {
            panic!("{i}: {e}");
        };
        assert!(
            stored.contains("max documents 50; max age 3600000 ms"),
            "{stored}"
        );
        assert_ne!(stored, configured);
    }
    drop((first, same));
}
