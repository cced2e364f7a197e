//! The shared store (`--store redis://...`) against a real redis-server:
//! the single-node verdicts on a sequential stream, a late instance that
//! catches up, a server that goes away and comes back, and credentials
//! that never show. The concurrency test is in redis_concurrency.rs.

mod common;
mod crawl;
mod redis_server;

use common::{article, edit, error_code, post_text, temp_dir};
use crawl::{run, stream, text, Step};
use neardup::io::RawDocument;
use neardup_server::client::Client;
use neardup_server::http::Server;
use neardup_server::redis::StoreUrl;
use neardup_server::{Config, ContentSeen, ErrorKind, Verdict};
use redis_server::RedisServer;

#[test]
fn a_sequential_stream_gets_the_single_node_verdicts() {
    if !redis_server::available("a_sequential_stream_gets_the_single_node_verdicts") {
        return;
    }
    let redis = RedisServer::start("sequential", None);
    let url = StoreUrl::parse(&redis.url()).unwrap();
    let steps = stream();
    assert!(steps.len() >= 700, "{}", steps.len());
    let config = Config::new();
    let dir = temp_dir("redis-sequential-single");
    let single = ContentSeen::open(&dir, &config).unwrap();
    let expected = run(&single, &steps);
    let replica = temp_dir("redis-sequential-a");
    let shared = ContentSeen::open_shared(&url, &replica, &config).unwrap();
    assert!(shared.is_shared());
    let got = run(&shared, &steps);
    for ((step, e), g) in steps.iter().zip(&expected).zip(&got) {
        let id = match step {
            Step::Insert(id, _) | Step::Check(id, _) | Step::Delete(id) => id,
        };
        assert_eq!(g, e, "{id}");
    }
    assert!(
        expected
            .iter()
            .filter(|v| v.as_ref().is_ok_and(Verdict::is_duplicate))
            .count()
            > 100
    );
    // A late instance replays the log and holds the same documents.
    let late_dir = temp_dir("redis-sequential-b");
    let late = ContentSeen::open_shared(&url, &late_dir, &config).unwrap();
    assert_eq!(late.stats().documents, single.stats().documents);
    assert_eq!(late.stats().originals, single.stats().originals);
    for step in &steps {
        if let Step::Insert(id, _) = step {
            let (a, b) = (single.get(id).unwrap(), late.get(id).unwrap());
            assert_eq!(
                a.map(|d| (d.duplicate_of, d.text_len, d.signature_hash)),
                b.map(|d| (d.duplicate_of, d.text_len, d.signature_hash)),
                "{id}"
            );
        }
    }
    // An idle instance keeps up with the log on its own.
    let idle = shared.stats().documents;
    for i in 0..50u64 {
        late.insert(text(&format!("late{i}"), &article(7000 + i, 80)))
            .unwrap();
    }
    let start = std::time::Instant::now();
    while shared.stats().documents < idle + 50 {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(10),
            "no catching up"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // One round trip per verdict: the script calls of 200 insertions,
    // less those of the two instances' catching-up threads (one every
    // 100 ms each).
    let (calls, start) = (redis.script_calls(), std::time::Instant::now());
    for i in 0..200u64 {
        shared
            .insert(text(&format!("rt{i}"), &article(8000 + i, 60)))
            .unwrap();
    }
    let tail = 2 * (start.elapsed().as_millis() as u64 / 100 + 2);
    let made = redis.script_calls() - calls;
    assert!(
        made >= 200 && made <= 200 + tail,
        "{made} script calls, {tail} by the threads"
    );
    eprintln!(
        "200 insertions: {made} script calls (at most {tail} by the catching-up threads) in {:.2} s",
        start.elapsed().as_secs_f64()
    );
    // A document posted to one instance is seen by the other at once.
    let fresh = article(5000, 150);
    assert!(!late.insert(text("fresh", &fresh)).unwrap().is_duplicate());
    let v = shared
        .insert(text("fresh-edit", &edit(&fresh, 30, 1)))
        .unwrap();
    assert_eq!(v.duplicate_of.as_deref(), Some("fresh"));
}

#[test]
fn a_batch_larger_than_one_append_gets_the_single_node_verdicts() {
    if !redis_server::available("a_batch_larger_than_one_append_gets_the_single_node_verdicts") {
        return;
    }
    let redis = RedisServer::start("batch", None);
    let url = StoreUrl::parse(&redis.url()).unwrap();
    let config = Config::new();
    // 1,300 documents (3 appends of at most 512), near-duplicates among
    // them across the appends' bounds, and an id that is refused.
    let docs: Vec<RawDocument> = (0..1300u64)
        .map(|i| {
            let t = if i % 3 == 0 {
                article(i, 70)
            } else {
                edit(&article(i - i % 3, 70), 20, i as usize)
            };
            text(&format!("b{i}"), &t)
        })
        .chain(std::iter::once(text("", "no id")))
        .collect();
    let run = |seen: &ContentSeen| -> Vec<Result<Verdict, String>> {
        let prepared = docs.iter().map(|d| seen.prepare(d.clone())).collect();
        seen.insert_many(prepared)
            .into_iter()
            .map(|r| r.map_err(|e| e.to_string()))
            .collect()
    };
    let single = ContentSeen::open(temp_dir("redis-batch-single"), &config).unwrap();
    let shared = ContentSeen::open_shared(&url, temp_dir("redis-batch-shared"), &config).unwrap();
    let (expected, got) = (run(&single), run(&shared));
    assert_eq!(got, expected);
    assert!(expected.last().unwrap().is_err());
    assert!(
        expected
            .iter()
            .filter(|v| v.as_ref().is_ok_and(Verdict::is_duplicate))
            .count()
            > 500
    );
    assert_eq!(redis.logged_ids().len(), 1300);
}

#[test]
fn batches_over_http_insert_on_one_instance_and_check_on_another() {
    if !redis_server::available("batches_over_http_insert_on_one_instance_and_check_on_another") {
        return;
    }
    let redis = RedisServer::start("http-batch", None);
    let url = StoreUrl::parse(&redis.url()).unwrap();
    let dir = temp_dir("redis-http-batch");
    let start = |name: &str| {
        let seen = ContentSeen::open_shared(&url, dir.join(name), &Config::new()).unwrap();
        Server::new(seen)
            .spawn("127.0.0.1:0".parse().unwrap())
            .unwrap()
    };
    let (a, b) = (start("a"), start("b"));
    let lines = |prefix: &str, every: usize| -> String {
        (0..40u64)
            .map(|i| {
                let t = edit(&article(900 + i, 90), every, i as usize);
                format!(
                    "{}\n",
                    serde_json::json!({"id": format!("{prefix}{i}"), "text": t})
                )
            })
            .collect()
    };
    let ndjson = [("content-type", "application/x-ndjson")];
    let r = Client::new(a.addr())
        .request("POST", "/v1/batch", &ndjson, lines("x", 1000).as_bytes())
        .unwrap();
    assert_eq!(r.status, 200);
    // Instance b checks near-copies at once: each is a duplicate of the
    // document instance a stored.
    let r = Client::new(b.addr())
        .request(
            "POST",
            "/v1/batch?check=true",
            &ndjson,
            lines("y", 30).as_bytes(),
        )
        .unwrap();
    assert_eq!(r.status, 200);
    let body = String::from_utf8_lossy(&r.body).to_string();
    let verdicts: Vec<serde_json::Value> = body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(verdicts.len(), 40);
    for (i, v) in verdicts.iter().enumerate() {
        assert_eq!(v["duplicate_of"], serde_json::json!(format!("x{i}")), "{v}");
        assert_eq!(v["stored"], serde_json::json!(false));
    }
    a.stop().unwrap();
    b.stop().unwrap();
}

/// HTML pages extracted once, by the instance that got them: the example
/// crawl (examples/crawl.warc.gz: reprints, an excerpt, a GBK page).
#[test]
fn the_example_crawl_gets_the_single_node_verdicts() {
    if !redis_server::available("the_example_crawl_gets_the_single_node_verdicts") {
        return;
    }
    let warc =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/crawl.warc.gz");
    let inputs = neardup::io::Inputs::new();
    let sources = inputs.sources(&[warc]).unwrap();
    let pages: Vec<RawDocument> = inputs
        .read_all(&sources)
        .filter_map(|item| match item {
            neardup::io::Item::Document(d) => Some(d),
            _ => None,
        })
        .collect();
    assert_eq!(pages.len(), 7);
    let redis = RedisServer::start("crawl", None);
    let url = StoreUrl::parse(&redis.url()).unwrap();
    let config = Config::new();
    let single = ContentSeen::open(temp_dir("redis-crawl-single"), &config).unwrap();
    let shared = ContentSeen::open_shared(&url, temp_dir("redis-crawl-shared"), &config).unwrap();
    let mut duplicates = 0;
    for page in pages {
        let id = page.id.clone();
        let expected = single.insert(page.clone()).map_err(|e| e.to_string());
        let got = shared.insert(page).map_err(|e| e.to_string());
        assert_eq!(got, expected, "{id}");
        duplicates += usize::from(expected.is_ok_and(|v| v.is_duplicate()));
    }
    assert!(duplicates >= 2, "{duplicates}");
}

#[test]
fn other_settings_and_a_used_replica_directory_are_refused() {
    if !redis_server::available("other_settings_and_a_used_replica_directory_are_refused") {
        return;
    }
    let redis = RedisServer::start("refused", None);
    let url = StoreUrl::parse(&redis.url()).unwrap();
    let dir = temp_dir("redis-refused");
    let first = ContentSeen::open_shared(&url, dir.join("a"), &Config::new()).unwrap();
    let mut other = Config::new();
    other.store_duplicates(false);
    let e = ContentSeen::open_shared(&url, dir.join("b"), &other).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MethodMismatch { .. }), "{e}");
    let mut evicting = Config::new();
    evicting.max_documents(Some(10));
    let e = ContentSeen::open_shared(&url, dir.join("c"), &evicting).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MethodMismatch { .. }), "{e}");
    drop(first);
    // The replica directory must not hold a store already.
    let e = ContentSeen::open_shared(&url, dir.join("a"), &Config::new()).unwrap_err();
    assert!(e.to_string().contains("already holds a store"), "{e}");
}

#[test]
fn an_unreachable_store_answers_503_and_the_service_resumes() {
    if !redis_server::available("an_unreachable_store_answers_503_and_the_service_resumes") {
        return;
    }
    let secret = "s3cret-Pa55word";
    let mut redis = RedisServer::start("down", Some(secret));
    // A wrong password is refused without being repeated.
    let wrong = StoreUrl::parse(&redis.url().replace(secret, "Wr0ng-pa55")).unwrap();
    let dir = temp_dir("redis-down");
    let e = ContentSeen::open_shared(&wrong, dir.join("wrong"), &Config::new()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::SharedStore(_)), "{e}");
    assert!(!e.to_string().contains("Wr0ng-pa55"), "{e}");
    // The password from elsewhere (as from NEARDUP_STORE_PASSWORD).
    let mut url = StoreUrl::parse(&format!("redis://127.0.0.1:{}/0", redis.port)).unwrap();
    url.password_if_missing(Some(secret.into()));
    let seen = ContentSeen::open_shared(&url, dir.join("a"), &Config::new()).unwrap();
    let server = Server::new(seen)
        .spawn("127.0.0.1:0".parse().unwrap())
        .unwrap();
    let mut c = Client::new(server.addr());
    let mut posted = Vec::new();
    let mut post = |c: &mut Client, id: &str, t: &str| {
        let r = post_text(c, "/v1/documents", id, t);
        if r.status == 200 {
            posted.push((id.to_string(), t.to_string(), r.json()));
        }
        r
    };
    let base = article(77, 200);
    for i in 0..20u64 {
        let t = if i % 2 == 0 {
            article(i, 150)
        } else {
            edit(&base, 30, i as usize)
        };
        assert_eq!(post(&mut c, &format!("before{i}"), &t).status, 200);
    }
    redis.kill();
    for i in 0..10usize {
        let r = post(&mut c, &format!("during{i}"), &edit(&base, 30, 100 + i));
        assert_eq!(r.status, 503, "{}", String::from_utf8_lossy(&r.body));
        assert_eq!(error_code(&r), "store_unavailable");
        let body = String::from_utf8_lossy(&r.body).to_string();
        assert!(
            body.contains("unreachable") && !body.contains(secret),
            "{body}"
        );
        // Checks and reads need the store too.
        let r = c
            .post_json("/v1/check", &serde_json::json!({"id": "x", "text": base}))
            .unwrap();
        assert_eq!(r.status, 503);
    }
    let stats = c.get("/v1/stats").unwrap().json();
    assert_eq!(
        stats["shared_store"],
        serde_json::json!(format!("redis://:***@127.0.0.1:{}/0", redis.port))
    );
    for path in ["/metrics", "/v1/stats", "/healthz"] {
        let r = c.get(path).unwrap();
        assert!(!String::from_utf8_lossy(&r.body).contains(secret), "{path}");
    }
    redis.restart();
    for i in 0..10usize {
        let r = post(&mut c, &format!("during{i}"), &edit(&base, 30, 100 + i));
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    }
    server.stop().unwrap();
    // Every verdict acknowledged is the single-node verdict of the log's
    // order; the refused posts were never judged.
    let logged = redis.logged_ids();
    assert_eq!(logged.len(), posted.len());
    let single = ContentSeen::open(dir.join("single"), &Config::new()).unwrap();
    for id in logged {
        let (_, t, v) = posted.iter().find(|(i, _, _)| *i == id).unwrap();
        let expected = single.insert(text(&id, t)).unwrap();
        assert_eq!(
            v["duplicate_of"].as_str(),
            expected.duplicate_of.as_deref(),
            "{id}"
        );
    }
    assert_eq!(single.stats().originals, 11);
}
