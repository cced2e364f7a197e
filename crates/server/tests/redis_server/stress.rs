//! The concurrency tests' load and checks, over any deployment: groups
//! of near-duplicates posted at once to several service instances, then
//! one kept document per group, no mutual duplicates, and the verdicts
//! of the single-node engine fed the store's arrival order.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{article, edit, error_code, post_text};
use neardup::io::{Content, RawDocument};
use neardup_server::client::Client;
use neardup_server::http::Server;
use neardup_server::redis::StoreUrl;
use neardup_server::{Config, ContentSeen};
use serde_json::Value;

/// One post: its group, id and text.
pub type Post = (usize, String, String);

/// Groups of 1 to 5 near-duplicates (light edits of one article, pairwise
/// near-duplicates), members adjacent so that they are posted at once.
pub fn posts(groups: usize) -> Vec<Post> {
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
pub fn replay(
    single: &ContentSeen,
    order: &[String],
    posts: &[Post],
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

/// `n` HTTP instances over the store at `url`, their replicas in `dir`.
pub fn instances(url: &str, dir: &Path, n: usize) -> Vec<neardup_server::http::Running> {
    let url = StoreUrl::parse(url).unwrap();
    (0..n)
        .map(|i| {
            let seen =
                ContentSeen::open_shared(&url, dir.join(format!("i{i}")), &Config::new()).unwrap();
            Server::new(seen)
                .spawn("127.0.0.1:0".parse().unwrap())
                .unwrap()
        })
        .collect()
}

/// What a load got: the acknowledged verdicts, and the 503s retried.
pub struct Load {
    pub verdicts: HashMap<String, Value>,
    pub refused: usize,
}

/// Posts every post once from `clients` threads, members of a group to
/// different instances. A 503 (`store_unavailable`) is retried every
/// 50 ms for at most `retry_for` (none: a 503 fails the test). `during`
/// runs on this thread meanwhile, given how many posts were taken.
pub fn load(
    addrs: &[SocketAddr],
    posts: &Arc<Vec<Post>>,
    clients: usize,
    retry_for: Duration,
    during: impl FnOnce(&AtomicUsize),
) -> Load {
    let next = Arc::new(AtomicUsize::new(0));
    let refused = Arc::new(AtomicUsize::new(0));
    let verdicts = Arc::new(Mutex::new(HashMap::<String, Value>::new()));
    let threads: Vec<_> = (0..clients)
        .map(|t| {
            let (posts, next, verdicts, refused) = (
                posts.clone(),
                next.clone(),
                verdicts.clone(),
                refused.clone(),
            );
            let addrs = addrs.to_vec();
            std::thread::spawn(move || {
                let mut clients: Vec<Client> = addrs.iter().map(|a| Client::new(*a)).collect();
                for c in &mut clients {
                    c.timeout(Duration::from_secs(60));
                }
                let tries = retry_for.as_millis() / 50;
                // Bounded: every post is taken once, retried at most
                // `tries` times.
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((_, id, text)) = posts.get(i) else {
                        break;
                    };
                    let c = &mut clients[(i + t) % addrs.len()];
                    let mut tried = 0;
                    let r = loop {
                        let r = post_text(c, "/v1/documents", id, text);
                        if r.status != 503 || tried >= tries {
                            break r;
                        }
                        assert_eq!(error_code(&r), "store_unavailable");
                        refused.fetch_add(1, Ordering::Relaxed);
                        tried += 1;
                        std::thread::sleep(Duration::from_millis(50));
                    };
                    assert_eq!(r.status, 200, "{id}: {}", String::from_utf8_lossy(&r.body));
                    verdicts.lock().unwrap().insert(id.clone(), r.json());
                }
            })
        })
        .collect();
    during(&next);
    for t in threads {
        t.join().unwrap();
    }
    let verdicts = verdicts.lock().unwrap().clone();
    assert_eq!(verdicts.len(), posts.len());
    Load {
        verdicts,
        refused: refused.load(Ordering::Relaxed),
    }
}

/// 0 double keeps (one original per group), 0 mutual duplicates and no
/// chains (a duplicate names a kept document of its group).
pub fn assert_one_kept_per_group(posts: &[Post], verdicts: &HashMap<String, Value>) {
    let of = |id: &str| verdicts[id]["duplicate_of"].as_str().map(str::to_string);
    let mut kept: HashMap<usize, Vec<&str>> = HashMap::new();
    for (g, id, _) in posts {
        if of(id).is_none() {
            kept.entry(*g).or_default().push(id);
        }
    }
    let double: Vec<_> = kept.values().filter(|k| k.len() > 1).collect();
    assert!(double.is_empty(), "double keeps: {double:?}");
    let groups: HashSet<usize> = posts.iter().map(|p| p.0).collect();
    assert_eq!(kept.len(), groups.len());
    let group: HashMap<&str, usize> = posts.iter().map(|(g, id, _)| (id.as_str(), *g)).collect();
    for (g, id, _) in posts {
        if let Some(o) = of(id) {
            assert!(of(&o).is_none(), "{id} duplicates {o}, itself a duplicate");
            assert_eq!(
                group[o.as_str()],
                *g,
                "{id} duplicates {o} of another group"
            );
        }
    }
}

/// A valid keep-first order: the single-node engine (its store in `dir`),
/// fed the log's insertions in `order`, gives every acknowledged verdict.
/// The log may hold a post twice (its answer was lost or refused, it was
/// posted again): the later copy gets the first's stored verdict. Every
/// acknowledged post must be in the log. Returns how many positions of
/// the log differ from the posts' list (posts that raced).
pub fn assert_replayed(
    dir: &Path,
    order: &[String],
    posts: &[Post],
    verdicts: &HashMap<String, Value>,
) -> usize {
    let single = ContentSeen::open(dir, &Config::new()).unwrap();
    let replayed = replay(&single, order, posts);
    let mut checked = HashSet::new();
    let mut differs = 0;
    for (k, (id, v)) in order.iter().zip(replayed).enumerate() {
        let v = v.unwrap();
        let got = &verdicts[id];
        assert_eq!(
            v.duplicate_of.as_deref(),
            got["duplicate_of"].as_str(),
            "{id}"
        );
        assert_eq!(got["similarity"].as_f64(), v.similarity, "{id}");
        checked.insert(id.clone());
        if posts.get(k).is_none_or(|p| p.1 != *id) {
            differs += 1;
        }
    }
    assert_eq!(
        checked.len(),
        posts.len(),
        "acknowledged posts missing from the log"
    );
    differs
}
