//! Compaction of the shared store's log under eviction, against a real
//! redis-server: many more documents than `--max-documents` through two
//! instances leave a log and a base of a bounded size (the log alone
//! would hold every entry), with the single node's verdicts; an instance
//! that joins after compactions loads the base and judges as the single
//! node does from there; a compaction lease held by a dead compactor
//! (with its half-written base) delays compaction until it expires, and
//! another instance compacts then; and the same over a Redis Cluster and
//! behind Sentinel (eviction and compaction through `redis+sentinel://`).

mod common;
mod crawl;
mod evict_stream;
mod redis_server;

use common::temp_dir;
use evict_stream::{run, stream};
use neardup_server::redis::StoreUrl;
use neardup_server::{Config, ContentSeen};
use redis_server::cluster::Cluster;
use redis_server::sentinel::Sentinels;
use redis_server::{wait_until, RedisServer};

const LOG: &str = "{neardup}:log";
const BASE: &str = "{neardup}:base";
const DOCS: &str = "{neardup}:base:docs";
const LEASE: &str = "{neardup}:compact:lease";
const STAGING: &str = "{neardup}:base:staging";

/// Entries the log holds at most once no compaction is due (twice the
/// live set, at least 256: `redis::compact::due`).
const QUIET_LOG: u64 = 512;

/// The documents' limit of these tests.
const LIMIT: u64 = 40;

/// Steps back of the stream's edits: of live articles, of evicted ones.
const LIVE: u64 = 10;
const GONE: u64 = 60;

fn config() -> Config {
    let mut config = Config::new();
    config.max_documents(Some(LIMIT));
    config
}

fn llen(c: &mut redis::Connection) -> u64 {
    redis::cmd("LLEN").arg(LOG).query(c).unwrap()
}

fn base_at(c: &mut redis::Connection) -> u64 {
    let at: Option<u64> = redis::cmd("HGET").arg(BASE).arg("at").query(c).unwrap();
    at.unwrap_or(0)
}

fn memory_usage(c: &mut redis::Connection, key: &str) -> u64 {
    let m: Option<u64> = redis::cmd("MEMORY")
        .arg("USAGE")
        .arg(key)
        .arg("SAMPLES")
        .arg(0)
        .query(c)
        .unwrap();
    m.unwrap_or(0)
}

/// Posts `steps` to two instances over the store at `url` in turn, and
/// checks them against a single node: the same verdicts; once the
/// instances are idle, the log holds at most [`QUIET_LOG`] entries and
/// the log and base take less than half the memory of every entry
/// posted; an instance that joins then holds the single node's documents
/// and gives its verdicts on the rest of the stream. `conn` reads the
/// primary that holds the log.
fn compact_as_one(url: &str, config: &Config, name: &str, conn: impl Fn() -> redis::Connection) {
    let url = StoreUrl::parse(url).unwrap();
    let config = config.clone();
    let first = stream(0, 1200, LIVE, GONE);
    let then = stream(1200, 1400, LIVE, GONE);
    let single_dir = temp_dir(&format!("redis-compact-single-{name}"));
    let single = ContentSeen::open(&single_dir, &config).unwrap();
    let expected = run(&first, |_| &single);
    let (da, db) = (
        temp_dir(&format!("redis-compact-a-{name}")),
        temp_dir(&format!("redis-compact-b-{name}")),
    );
    let a = ContentSeen::open_shared(&url, &da, &config).unwrap();
    let b = ContentSeen::open_shared(&url, &db, &config).unwrap();
    let got = run(&first, |i| if i % 2 == 0 { &a } else { &b });
    for ((step, e), g) in first.iter().zip(&expected).zip(&got) {
        assert_eq!(g, e, "{}", step.0);
    }
    let dups = |tag: &str| {
        first
            .iter()
            .zip(&expected)
            .filter(|((id, _), v)| id.ends_with(tag) && v.is_some())
            .count()
    };
    assert!(dups("-live-edit") > 500, "{}", dups("-live-edit"));
    assert_eq!(dups("-gone-edit"), 0);
    // Entries posted: every step's. The log holds few of them once
    // quiet, and the base one record a live document.
    let posted = first.len() as u64;
    let mut c = conn();
    wait_until(30, "the log compacted", || llen(&mut c) <= QUIET_LOG);
    assert!(base_at(&mut c) > posted / 2, "{}", base_at(&mut c));
    let entries: Vec<Vec<u8>> = redis::cmd("LRANGE")
        .arg(LOG)
        .arg(0)
        .arg(-1)
        .query(&mut c)
        .unwrap();
    let per_entry =
        entries.iter().map(Vec::len).sum::<usize>() as u64 / entries.len().max(1) as u64;
    let held = memory_usage(&mut c, LOG) + memory_usage(&mut c, DOCS);
    eprintln!(
        "{name}: {posted} entries posted ({per_entry} B each), log {} entries, {held} B of log and base",
        llen(&mut c)
    );
    assert!(held < posted * per_entry / 2, "{held} B");
    let base_docs: u64 = redis::cmd("LLEN").arg(DOCS).query(&mut c).unwrap();
    assert!(base_docs <= LIMIT, "{base_docs}");
    // A late instance loads the base, then replays the log's tail.
    let dl = temp_dir(&format!("redis-compact-late-{name}"));
    let late = ContentSeen::open_shared(&url, &dl, &config).unwrap();
    for s in [&a, &b, &late] {
        // (A read catches the instance up with the log first.)
        s.get("a0").unwrap();
        assert_eq!(s.stats().documents, single.stats().documents);
        assert_eq!(s.stats().evicted, single.stats().evicted);
    }
    for (id, _) in &first {
        let held = late.get(id).unwrap();
        assert_eq!(
            held.as_ref().map(|d| d.duplicate_of.clone()),
            single.get(id).unwrap().map(|d| d.duplicate_of),
            "{id}"
        );
        // With an age limit, the base carries each document's log time.
        if config.get_max_age().is_some() {
            let at_a = a.get(id).unwrap().map(|d| d.stored_at_ms);
            assert_eq!(held.map(|d| d.stored_at_ms), at_a, "{id}");
        }
    }
    // ...and judges the rest of the stream as the single node does.
    let expected = run(&then, |_| &single);
    let got = run(&then, |i| if i % 2 == 0 { &late } else { &a });
    for ((step, e), g) in then.iter().zip(&expected).zip(&got) {
        assert_eq!(g, e, "after the join: {}", step.0);
    }
    assert!(got.iter().filter(|v| v.is_some()).count() > 60);
}

#[test]
fn two_instances_keep_the_log_bounded_and_judge_as_one() {
    if !redis_server::available("two_instances_keep_the_log_bounded_and_judge_as_one") {
        return;
    }
    let redis = RedisServer::start("compact", None);
    compact_as_one(&redis.url(), &config(), "standalone", || redis.connection());
}

#[test]
fn a_dead_compactors_lease_expires_and_another_compacts() {
    if !redis_server::available("a_dead_compactors_lease_expires_and_another_compacts") {
        return;
    }
    let redis = RedisServer::start("compact-lease", None);
    let url = StoreUrl::parse(&redis.url()).unwrap();
    let config = config();
    // A compactor that died while it wrote its base: its lease (4 s left)
    // and its half-written staging list.
    let mut c = redis.connection();
    let _: () = redis::cmd("SET")
        .arg(LEASE)
        .arg("dead-compactor")
        .arg("PX")
        .arg(4000)
        .query(&mut c)
        .unwrap();
    let _: () = redis::cmd("RPUSH")
        .arg(STAGING)
        .arg(&b"\x05\x00\x00\x00garbage"[..])
        .query(&mut c)
        .unwrap();
    let steps = stream(0, 900, LIVE, GONE);
    let single_dir = temp_dir("redis-compact-lease-single");
    let single = ContentSeen::open(&single_dir, &config).unwrap();
    let expected = run(&steps, |_| &single);
    let (da, db) = (
        temp_dir("redis-compact-lease-a"),
        temp_dir("redis-compact-lease-b"),
    );
    let a = ContentSeen::open_shared(&url, &da, &config).unwrap();
    let b = ContentSeen::open_shared(&url, &db, &config).unwrap();
    let (half, rest) = steps.split_at(steps.len() / 2);
    let mut got = run(half, |i| if i % 2 == 0 { &a } else { &b });
    // While the dead compactor's lease lasts, nobody compacts.
    // (The base first: a lease still held after it was held before.)
    let at = base_at(&mut c);
    let lease: Option<String> = redis::cmd("GET").arg(LEASE).query(&mut c).unwrap();
    if lease.as_deref() == Some("dead-compactor") {
        assert_eq!(at, 0, "compacted under another's lease");
    }
    got.extend(run(rest, |i| if i % 2 == 0 { &a } else { &b }));
    for ((step, e), g) in steps.iter().zip(&expected).zip(&got) {
        assert_eq!(g, e, "{}", step.0);
    }
    wait_until(30, "the log compacted", || llen(&mut c) <= QUIET_LOG);
    assert!(base_at(&mut c) > 0);
    let staged: u64 = redis::cmd("EXISTS").arg(STAGING).query(&mut c).unwrap();
    assert_eq!(staged, 0, "the dead compactor's staging list is gone");
    // Nothing lost, nothing doubled: a late instance holds the single
    // node's documents.
    let dl = temp_dir("redis-compact-lease-late");
    let late = ContentSeen::open_shared(&url, &dl, &config).unwrap();
    assert_eq!(late.stats().documents, single.stats().documents);
    for (id, _) in &steps {
        assert_eq!(
            late.get(id).unwrap().map(|d| d.duplicate_of),
            single.get(id).unwrap().map(|d| d.duplicate_of),
            "{id}"
        );
    }
}

/// The same over a Redis Cluster (3 primaries, 3 replicas): every key of
/// the compaction shares the log's slot. With an age limit too (an hour:
/// it evicts nothing here), so that entries carry their log time, which
/// the base keeps.
#[test]
fn two_instances_keep_the_log_bounded_over_a_cluster() {
    if !redis_server::available_with_cli("two_instances_keep_the_log_bounded_over_a_cluster") {
        return;
    }
    let cluster = Cluster::start("compact-cluster", 5000);
    let owner = cluster.owner().expect("the slot's primary");
    let mut config = config();
    config.max_age(Some(std::time::Duration::from_secs(3600)));
    compact_as_one(&cluster.url(), &config, "cluster", || {
        cluster.nodes[owner].connection()
    });
}

/// The same behind Sentinel (a primary, 2 replicas, 3 sentinels): the
/// instances find the primary through the sentinels, and each write is
/// confirmed by a replica.
#[test]
fn two_instances_keep_the_log_bounded_behind_sentinel() {
    if !redis_server::available("two_instances_keep_the_log_bounded_behind_sentinel") {
        return;
    }
    let deployment = Sentinels::start("compact-sentinel");
    let master = deployment.master();
    compact_as_one(&deployment.url(), &config(), "sentinel", || {
        deployment.data[master].connection()
    });
}
