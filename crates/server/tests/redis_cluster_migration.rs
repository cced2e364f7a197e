//! The slot of `{neardup}` migrated between two primaries of a real
//! Cluster while an instance posts: `MIGRATING`/`IMPORTING`, the keys
//! moved with `MIGRATE` so that the source answers `ASK`, a script over
//! keys split between the two nodes (`TRYAGAIN`), then the slot given to
//! the destination (`MOVED`). Verdicts stay those of a single node.

mod common;
mod redis_server;

use common::{article, edit, temp_dir};
use neardup::io::{Content, RawDocument};
use neardup_server::redis::StoreUrl;
use neardup_server::{Config, ContentSeen, Verdict};
use redis_server::cluster::{Cluster, SLOT};
use redis_server::RedisServer;

fn text(id: &str, t: &str) -> RawDocument {
    RawDocument {
        id: id.into(),
        url: Some(format!("https://example.com/{id}")),
        content: Content::Text(t.into()),
    }
}

/// Inserts: originals, light edits and copies.
fn steps() -> Vec<(String, String)> {
    let mut s = Vec::new();
    for a in 0..60u64 {
        let base = article(a, 150);
        s.push((format!("a{a}"), base.clone()));
        s.push((format!("a{a}-edit"), edit(&base, 25, 1)));
        if a % 3 == 0 {
            s.push((format!("a{a}-copy"), base));
        }
    }
    s
}

fn insert(seen: &ContentSeen, (id, t): &(String, String)) -> Result<Verdict, String> {
    seen.insert(text(id, t)).map_err(|e| e.to_string())
}

fn cmd(node: &RedisServer, args: &[&str]) -> redis::RedisResult<redis::Value> {
    let mut c = redis::cmd(args[0]);
    for a in &args[1..] {
        c.arg(*a);
    }
    c.query(&mut node.connection())
}

fn node_id(node: &RedisServer) -> String {
    redis::cmd("CLUSTER")
        .arg("MYID")
        .query(&mut node.connection())
        .unwrap()
}

/// The script calls a node refused before running them (a redirection,
/// `TRYAGAIN`): `rejected_calls` of `INFO commandstats` (redirections are
/// not in `errorstats`).
fn rejected(node: &RedisServer) -> u64 {
    node.commandstat(&["evalsha", "eval"], "rejected_calls")
}

fn keys_in_slot(node: &RedisServer) -> i64 {
    redis::cmd("CLUSTER")
        .arg("COUNTKEYSINSLOT")
        .arg(SLOT)
        .query(&mut node.connection())
        .unwrap()
}

#[test]
fn a_slot_migration_is_followed_through_ask_and_moved() {
    let name = "a_slot_migration_is_followed_through_ask_and_moved";
    if !redis_server::available_with_cli(name) {
        return;
    }
    let steps = steps();
    let config = Config::new();
    let single_dir = temp_dir("redis-migration-single");
    let single = ContentSeen::open(&single_dir, &config).unwrap();
    let expected: Vec<_> = steps.iter().map(|s| insert(&single, s)).collect();
    assert!(expected
        .iter()
        .any(|v| v.as_ref().is_ok_and(Verdict::is_duplicate)));

    // A long node timeout: a busy machine causes no failover.
    let cluster = Cluster::start("migration", 15_000);
    let url = StoreUrl::parse(&cluster.url()).unwrap();
    let dir = temp_dir("redis-migration-a");
    let seen = ContentSeen::open_shared(&url, &dir, &config).unwrap();
    let mut next = 0;
    // The next n steps get the single node's verdicts.
    let post = |n: usize, next: &mut usize| {
        for i in *next..*next + n {
            assert_eq!(insert(&seen, &steps[i]), expected[i], "{}", steps[i].0);
        }
        *next += n;
    };
    post(30, &mut next);

    let src = cluster.owner().expect("an owner");
    let nodes: String = redis::cmd("CLUSTER")
        .arg("NODES")
        .query(&mut cluster.nodes[src].connection())
        .unwrap();
    let dst = cluster
        .nodes
        .iter()
        .position(|n| {
            nodes.lines().any(|l| {
                let f: Vec<&str> = l.split(' ').collect();
                f[1].starts_with(&format!("127.0.0.1:{}@", n.port))
                    && f[2].contains("master")
                    && n.port != cluster.nodes[src].port
            })
        })
        .expect("another primary");
    let (s, d) = (&cluster.nodes[src], &cluster.nodes[dst]);
    let (src_id, dst_id) = (node_id(s), node_id(d));
    let slot = SLOT.to_string();
    // The sync key (written by calls that append nothing) is one of the
    // script's keys: present, all four keys (with the meta and the
    // base's hash, written at join) move together.
    cmd(s, &["SET", "{neardup}:sync", "0", "NX"]).unwrap();
    cmd(d, &["CLUSTER", "SETSLOT", &slot, "IMPORTING", &src_id]).unwrap();
    cmd(s, &["CLUSTER", "SETSLOT", &slot, "MIGRATING", &dst_id]).unwrap();

    // Migrating, every key still on the source: it runs the calls.
    post(30, &mut next);

    // The log alone moved: the script's keys are split between the two
    // nodes. The source answers ASK, the destination TRYAGAIN: the call
    // was not run; tried again (bounded), then a 503.
    let port = d.port.to_string();
    let migrate = |keys: &[&str]| {
        let mut args = vec!["MIGRATE", "127.0.0.1", &port, "", "0", "5000", "KEYS"];
        args.extend(keys);
        cmd(s, &args).unwrap();
    };
    migrate(&["{neardup}:log"]);
    assert_eq!((keys_in_slot(s), keys_in_slot(d)), (3, 1));
    let e = insert(&seen, &steps[next]).unwrap_err();
    assert!(e.contains("TRYAGAIN"), "{e}");

    // Every key on the destination: the source answers ASK, and the call
    // runs there after ASKING (the refused post above again first).
    migrate(&["{neardup}:meta", "{neardup}:sync", "{neardup}:base"]);
    assert_eq!((keys_in_slot(s), keys_in_slot(d)), (0, 4));
    let asks = rejected(s);
    post(30, &mut next);
    assert!(rejected(s) >= asks + 30, "no ASK was answered");

    // The migration finished: the source answers MOVED. Counted from
    // before the slot is reassigned: the instance's background catch-up
    // may be the first to meet the MOVED (and update the routing) before
    // the posts below.
    let moved = rejected(s);
    for n in [d, s] {
        cmd(n, &["CLUSTER", "SETSLOT", &slot, "NODE", &dst_id]).unwrap();
    }
    post(steps.len() - next, &mut next);
    assert!(rejected(s) > moved, "no MOVED was answered");
    let logged = redis_server::logged_ids(&mut d.connection());
    assert_eq!(logged.len(), steps.len());
    drop(seen);

    // A late instance finds the log on its new primary.
    let late_dir = temp_dir("redis-migration-b");
    let late = ContentSeen::open_shared(&url, &late_dir, &config).unwrap();
    assert_eq!(late.stats().documents, single.stats().documents);
}
