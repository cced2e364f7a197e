//! The verification sketch in the service (`--store-verify sketch`): its
//! precision, recall and F1 on the crawler scenario beside exact
//! verification's, instances over one redis-server that give the verdicts
//! of one, log entries that carry no text, and stores of one verification
//! refused to the other.

mod common;
mod crawl;
mod redis_server;

use common::{article, edit, temp_dir};
use crawl::{labelled_stream, run, run_on, score, stream, text, Step};
use neardup::dedup::VerifySketch;
use neardup::Verifier;
use neardup_server::redis::StoreUrl;
use neardup_server::{Config, ContentSeen, ErrorKind};
use redis_server::RedisServer;

fn sketch_config() -> Config {
    sketch_config_with(VerifySketch::default())
}

fn sketch_config_with(sketch: VerifySketch) -> Config {
    let mut config = Config::new();
    config.verifier(Some(Verifier {
        sketch: Some(sketch),
        ..Verifier::default()
    }));
    config
}

#[test]
fn the_sketch_scores_beside_exact_verification_on_the_crawler_scenario() {
    let steps = labelled_stream();
    let plain: Vec<_> = steps.iter().map(|(s, _)| s.clone()).collect();
    let mut scores = Vec::new();
    for (name, config) in [("exact", Config::new()), ("sketch", sketch_config())] {
        let dir = temp_dir(&format!("sketch-f1-{name}"));
        let seen = ContentSeen::open(&dir, &config).unwrap();
        let s = score(&steps, &run(&seen, &plain));
        eprintln!(
            "{name}: precision {:.3} recall {:.3} F1 {:.3} ({} true, {} false positives, {} false negatives)",
            s.precision, s.recall, s.f1, s.tp, s.fp, s.fn_
        );
        scores.push(s);
    }
    assert!(scores[0].tp > 100, "{:?}", scores[0]);
    assert!(scores[0].f1 > 0.95, "{:?}", scores[0]);
    assert!(scores[1].f1 >= scores[0].f1 - 0.03, "{scores:?}");
}

#[test]
fn a_sketch_store_reopened_judges_from_its_band_keys() {
    let steps = stream();
    let config = sketch_config();
    let whole_dir = temp_dir("sketch-whole");
    let whole = ContentSeen::open(&whole_dir, &config).unwrap();
    let expected = run(&whole, &steps);
    let half = steps.len() / 2;
    for (name, keep_snapshot) in [("sketch-reopened", true), ("sketch-rebuilt", false)] {
        let dir = temp_dir(name);
        let seen = ContentSeen::open(&dir, &config).unwrap();
        let mut got = run(&seen, &steps[..half]);
        drop(seen);
        if !keep_snapshot {
            let _ = std::fs::remove_file(dir.join(neardup_server::SNAPSHOT_FILE));
        }
        let seen = ContentSeen::open(&dir, &config).unwrap();
        assert_eq!(seen.recovery().from_snapshot, keep_snapshot, "{name}");
        got.extend(run(&seen, &steps[half..]));
        for ((step, e), g) in steps.iter().zip(&expected).zip(&got) {
            assert_eq!(g, e, "{name}: {}", step.id());
        }
        assert_eq!(seen.stats().originals, whole.stats().originals);
        // A stored document keeps the key of its signature, not its bytes.
        let id = steps
            .iter()
            .map(Step::id)
            .find(|id| {
                whole
                    .get(id)
                    .unwrap()
                    .is_some_and(|i| i.duplicate_of.is_none())
            })
            .unwrap();
        let info = seen.get(id).unwrap().unwrap();
        assert_eq!(info.signature_bytes, 0);
        assert_eq!(
            info.signature_hash,
            whole.get(id).unwrap().unwrap().signature_hash
        );
        assert!(info.signature_hash.is_some() && info.method.is_some());
    }
}

#[test]
fn sketch_instances_over_one_store_give_the_verdicts_of_one() {
    if !redis_server::available("sketch_instances_over_one_store_give_the_verdicts_of_one") {
        return;
    }
    let redis = RedisServer::start("sketch", None);
    let url = StoreUrl::parse(&redis.url()).unwrap();
    let steps = stream();
    let config = sketch_config();
    let dirs = ["sketch-single", "sketch-a", "sketch-b", "sketch-late"].map(temp_dir);
    let single = ContentSeen::open(&dirs[0], &config).unwrap();
    let expected = run(&single, &steps);
    let a = ContentSeen::open_shared(&url, &dirs[1], &config).unwrap();
    let b = ContentSeen::open_shared(&url, &dirs[2], &config).unwrap();
    let got = run_on(&[&a, &b], &steps);
    for ((step, e), g) in steps.iter().zip(&expected).zip(&got) {
        assert_eq!(g, e, "{}", step.id());
    }
    // A late instance replays the sketches from the log.
    let late = ContentSeen::open_shared(&url, &dirs[3], &config).unwrap();
    assert_eq!(late.stats().originals, single.stats().originals);
    let fresh = article(9000, 150);
    assert!(!a.insert(text("fresh", &fresh)).unwrap().is_duplicate());
    let v = late
        .insert(text("fresh-edit", &edit(&fresh, 30, 1)))
        .unwrap();
    assert_eq!(v.duplicate_of.as_deref(), Some("fresh"));
}

/// The mean bytes of the log's entries after `n` articles of about 2 KB.
fn entry_bytes(config: &Config, name: &str) -> usize {
    let redis = RedisServer::start(name, None);
    let url = StoreUrl::parse(&redis.url()).unwrap();
    let dir = temp_dir(name);
    let seen = ContentSeen::open_shared(&url, &dir, config).unwrap();
    let n = 40;
    for i in 0..n {
        let t = article(20_000 + i, 340);
        assert!((1_800..2_600).contains(&t.len()), "{}", t.len());
        seen.insert(text(&format!("doc{i}"), &t)).unwrap();
    }
    let entries: Vec<Vec<u8>> = redis::cmd("LRANGE")
        .arg("{neardup}:log")
        .arg(0)
        .arg(-1)
        .query(&mut redis.connection())
        .unwrap();
    assert_eq!(entries.len(), n as usize);
    entries.iter().map(Vec::len).sum::<usize>() / entries.len()
}

#[test]
fn sketch_entries_carry_no_text() {
    if !redis_server::available("sketch_entries_carry_no_text") {
        return;
    }
    let exact = entry_bytes(&Config::new(), "entries-exact");
    let sketch = entry_bytes(&sketch_config(), "entries-sketch");
    eprintln!("mean entry: exact {exact} bytes, sketch {sketch} bytes");
    // The compressed text (about 900 bytes) is gone; the sketch (about
    // 120 bytes) and the band keys (about 130) replace the 551 bytes of
    // the signature.
    assert!(exact > 1_200, "{exact}");
    assert!(sketch < 400, "{sketch}");
}

#[test]
fn a_store_of_one_verification_is_refused_to_the_other() {
    if !redis_server::available("a_store_of_one_verification_is_refused_to_the_other") {
        return;
    }
    let redis = RedisServer::start("sketch-refused", None);
    let url = StoreUrl::parse(&redis.url()).unwrap();
    let first_dir = temp_dir("refused-sketch");
    let _first = ContentSeen::open_shared(&url, &first_dir, &sketch_config()).unwrap();
    let e = ContentSeen::open_shared(&url, temp_dir("refused-exact"), &Config::new()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MethodMismatch { .. }), "{e}");
    let other = Config::new();
    let redis2 = RedisServer::start("exact-refused", None);
    let url2 = StoreUrl::parse(&redis2.url()).unwrap();
    let exact_dir = temp_dir("refused-exact2");
    let _exact = ContentSeen::open_shared(&url2, &exact_dir, &other).unwrap();
    let e =
        ContentSeen::open_shared(&url2, temp_dir("refused-sketch2"), &sketch_config()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MethodMismatch { .. }), "{e}");
}

/// Predictions of both verifications on a labelled WARC, for
/// ../shared/eval/score_neardup.py: with `NEARDUP_DEV_WARC=pages.warc.gz`
/// and `NEARDUP_DEV_OUT=DIR`, writes `DIR/exact.jsonl` and
/// `DIR/sketch.jsonl` (`{"id": URL, "cluster": URL of the kept page}`),
/// the pages posted to one instance in the WARC's order; with
/// `NEARDUP_DEV_LEVELS=2,4` also `sketch-l2.jsonl`... of sketches whose
/// coarsest level is 2, 4.
#[test]
#[ignore = "needs NEARDUP_DEV_WARC and NEARDUP_DEV_OUT"]
fn dev_set_predictions() {
    let (Ok(warc), Ok(out)) = (
        std::env::var("NEARDUP_DEV_WARC"),
        std::env::var("NEARDUP_DEV_OUT"),
    ) else {
        panic!("set NEARDUP_DEV_WARC and NEARDUP_DEV_OUT");
    };
    let inputs = neardup::io::Inputs::new();
    let sources = inputs.sources(&[std::path::PathBuf::from(warc)]).unwrap();
    let pages: Vec<_> = inputs
        .read_all(&sources)
        .filter_map(|item| match item {
            neardup::io::Item::Document(d) => Some(d),
            _ => None,
        })
        .collect();
    let mut configs = vec![
        ("exact".to_string(), Config::new()),
        ("sketch".to_string(), sketch_config()),
    ];
    for level in std::env::var("NEARDUP_DEV_LEVELS")
        .unwrap_or_default()
        .split(',')
    {
        if let Ok(max_level) = level.trim().parse() {
            let sketch = VerifySketch {
                max_level,
                ..VerifySketch::default()
            };
            configs.push((format!("sketch-l{level}"), sketch_config_with(sketch)));
        }
    }
    for (name, config) in configs {
        let seen = ContentSeen::open(temp_dir(&format!("dev-{name}")), &config).unwrap();
        let mut url_of = std::collections::HashMap::new();
        let mut lines = String::new();
        for page in &pages {
            let url = page.url.clone().unwrap_or_else(|| page.id.clone());
            url_of.insert(page.id.clone(), url.clone());
            let cluster = match seen.insert(page.clone()) {
                Ok(v) => v
                    .duplicate_of
                    .and_then(|o| url_of.get(&o).cloned())
                    .unwrap_or_else(|| url.clone()),
                Err(_) => url.clone(),
            };
            let line = serde_json::json!({"id": url, "cluster": cluster});
            lines.push_str(&format!("{line}\n"));
        }
        std::fs::write(format!("{out}/{name}.jsonl"), lines).unwrap();
    }
}
