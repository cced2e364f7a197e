//! The in-process API: verdicts as the batch engine's, restarts, deletes.

mod common;

use neardup::io::{Content, RawDocument};
use neardup::{Dedup, DocFingerprint, Verifier};
use neardup_server::{Config, ContentSeen, ErrorKind};

use common::{article, edit, temp_dir};

fn text(id: &str, t: &str) -> RawDocument {
    RawDocument {
        id: id.into(),
        url: Some(format!("https://example.com/{id}")),
        content: Content::Text(t.into()),
    }
}

/// Originals, edited reprints, exact copies and copies of reprints,
/// interleaved.
fn corpus() -> Vec<(String, String)> {
    let mut docs = Vec::new();
    for a in 0..30u64 {
        let base = article(a, 300);
        docs.push((format!("a{a}"), base.clone()));
        if a % 2 == 0 {
            docs.push((format!("a{a}-edit"), edit(&base, 25, 1)));
        }
        if a % 3 == 0 {
            docs.push((format!("a{a}-copy"), base.clone()));
            docs.push((format!("a{a}-edit-copy"), edit(&base, 25, 1)));
        }
        if a % 5 == 0 {
            docs.push((format!("a{a}-heavy"), edit(&base, 4, 2)));
        }
    }
    docs.push(("empty".into(), "   ".into()));
    docs
}

/// Inserts the corpus one document at a time and checks every verdict and
/// similarity against the batch engine with the same settings.
fn check_against_batch(name: &str, verifier: Option<Verifier>) {
    let docs = corpus();
    let dir = temp_dir(name);
    let mut config = Config::new();
    config.verifier(verifier);
    let seen = ContentSeen::open(&dir, &config).unwrap();
    let online: Vec<_> = docs
        .iter()
        .map(|(id, t)| seen.insert(text(id, t)).unwrap())
        .collect();
    drop(seen);
    // The same verdicts again after a restart (ids re-posted: idempotent).
    let seen = ContentSeen::open(&dir, &config).unwrap();
    for ((id, t), v) in docs.iter().zip(&online) {
        assert_eq!(&seen.insert(text(id, t)).unwrap(), v, "{id} after restart");
    }

    let dedup = Dedup::builder().verifier(verifier).build();
    let pages: Vec<_> = docs
        .iter()
        .map(|(id, t)| neardup::Page::from_text(id.clone(), None, t.clone()))
        .collect();
    let sigs: Vec<_> = pages
        .iter()
        .map(|p| dedup.fingerprint(&p.text, &p.paragraphs))
        .collect();
    let shingles: Vec<_> = pages.iter().map(|p| dedup.shingles(&p.text)).collect();
    let fps: Vec<_> = sigs
        .iter()
        .zip(&pages)
        .map(|(s, p)| DocFingerprint {
            signature: s.as_ref(),
            url: &p.id,
            text_len: p.text.len(),
        })
        .collect();
    let refs: Vec<_> = shingles.iter().map(Option::as_ref).collect();
    let groups = dedup.cluster_exact(&fps, &refs).unwrap();
    let mut duplicates = 0;
    for (i, a) in groups.assignments.iter().enumerate() {
        let v = &online[i];
        let want = a.duplicate_of.map(|o| docs[o as usize].0.clone());
        assert_eq!(v.duplicate_of, want, "{name}: {}", docs[i].0);
        if let Some(s) = v.similarity {
            assert!((s - a.similarity).abs() < 1e-12, "{name}: {}", docs[i].0);
            duplicates += 1;
        }
    }
    // The corpus does have duplicates of each kind.
    assert!(duplicates >= 25, "{name}: {duplicates}");
    assert_eq!(online.last().unwrap().duplicate_of, None);
    drop(seen);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn verdicts_match_the_batch_engine_with_exact_verification() {
    check_against_batch("batch-exact", Some(Verifier::default()));
}

#[test]
fn verdicts_match_the_batch_engine_on_signatures() {
    check_against_batch("batch-sig", None);
}

#[test]
fn reopen_rebuilds_the_index_and_keeps_deletes() {
    let dir = temp_dir("reopen");
    let a = article(1, 200);
    let b = article(2, 200);
    {
        let seen = ContentSeen::open(&dir, &Config::new()).unwrap();
        assert!(!seen.insert(text("a", &a)).unwrap().is_duplicate());
        assert!(!seen.insert(text("b", &b)).unwrap().is_duplicate());
        let v = seen.insert(text("a2", &edit(&a, 30, 1))).unwrap();
        assert_eq!(v.duplicate_of.as_deref(), Some("a"));
        assert!(seen.delete("b").unwrap());
        assert!(!seen.delete("b").unwrap());
    }
    let seen = ContentSeen::open(&dir, &Config::new()).unwrap();
    let s = seen.stats();
    assert_eq!((s.documents, s.originals, s.duplicates), (2, 1, 1));
    // The rebuilt index finds the original; the deleted one is gone.
    let v = seen.check(text("a3", &edit(&a, 30, 2))).unwrap();
    assert_eq!(v.duplicate_of.as_deref(), Some("a"));
    assert!(!v.stored);
    assert!(!seen.check(text("b2", &b)).unwrap().is_duplicate());
    let info = seen.get("a2").unwrap().unwrap();
    assert_eq!(info.duplicate_of.as_ref().map(|d| d.0.as_str()), Some("a"));
    assert_eq!(info.url.as_deref(), Some("https://example.com/a2"));
    assert_eq!(info.method, Some("default"));
    assert!(seen.get("b").unwrap().is_none());
    // Deleting the original leaves its duplicate naming it, across restarts.
    assert!(seen.delete("a").unwrap());
    drop(seen);
    let seen = ContentSeen::open(&dir, &Config::new()).unwrap();
    let v = seen.insert(text("a2", &edit(&a, 30, 1))).unwrap();
    assert_eq!(v.duplicate_of.as_deref(), Some("a"));
    assert!(!seen.insert(text("a-new", &a)).unwrap().is_duplicate());
    drop(seen);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn changed_content_replaces_the_stored_version() {
    let dir = temp_dir("replace");
    let seen = ContentSeen::open(&dir, &Config::new()).unwrap();
    let (a, b) = (article(3, 200), article(4, 200));
    seen.insert(text("page", &a)).unwrap();
    // The page was re-crawled and its content changed: a new version.
    let v = seen.insert(text("page", &b)).unwrap();
    assert!(v.stored && !v.is_duplicate(), "{v:?}");
    // The old version is no longer a target; the new one is.
    let old = seen.check(text("copy-of-old", &edit(&a, 30, 1))).unwrap();
    assert!(!old.is_duplicate(), "{old:?}");
    let new = seen.check(text("copy-of-new", &edit(&b, 30, 1))).unwrap();
    assert_eq!(new.duplicate_of.as_deref(), Some("page"));
    // A new version that is a near-duplicate of its own old version is
    // judged without it: new content.
    let v = seen.insert(text("page", &edit(&b, 30, 2))).unwrap();
    assert!(!v.is_duplicate(), "{v:?}");
    assert_eq!(seen.stats().documents, 1);
    drop(seen);
    // And so after a restart.
    let seen = ContentSeen::open(&dir, &Config::new()).unwrap();
    assert_eq!(seen.stats().documents, 1);
    let again = seen.check(text("q", &edit(&b, 30, 3))).unwrap();
    assert_eq!(again.duplicate_of.as_deref(), Some("page"));
    assert!(!seen.check(text("q2", &a)).unwrap().is_duplicate());
}

#[test]
fn repost_is_idempotent_and_conflicts_are_refused() {
    let dir = temp_dir("repost");
    let mut strict = Config::new();
    strict.replace_changed(false);
    let seen = ContentSeen::open(&dir, &strict).unwrap();
    let a = article(3, 200);
    seen.insert(text("a", &a)).unwrap();
    let first = seen.insert(text("d", &edit(&a, 30, 1))).unwrap();
    let again = seen.insert(text("d", &edit(&a, 30, 1))).unwrap();
    assert_eq!(first, again);
    let e = seen.insert(text("d", &article(4, 200))).unwrap_err();
    assert_eq!(e.kind(), &ErrorKind::Conflict("d".into()));
    let e = seen.insert(text("", &a)).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidId(_)));
    assert_eq!(seen.stats().documents, 2);
    drop(seen);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn duplicates_can_be_left_unstored() {
    let dir = temp_dir("nostore");
    let mut config = Config::new();
    config.store_duplicates(false);
    let seen = ContentSeen::open(&dir, &config).unwrap();
    let a = article(5, 200);
    seen.insert(text("a", &a)).unwrap();
    let v = seen.insert(text("a2", &a)).unwrap();
    assert_eq!((v.duplicate_of.as_deref(), v.stored), (Some("a"), false));
    assert!(seen.get("a2").unwrap().is_none());
    assert_eq!(seen.stats().documents, 1);
    drop(seen);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn another_method_is_refused_on_open() {
    let dir = temp_dir("method");
    drop(ContentSeen::open(&dir, &Config::new()).unwrap());
    let mut config = Config::new();
    config.method("simhash".parse().unwrap());
    let e = ContentSeen::open(&dir, &config).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MethodMismatch { .. }), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Half of a short article A glued in front of all of article B.
fn composite_corpus() -> (String, String, String) {
    let a = article(100, 100);
    let b = article(101, 500);
    let half_a: Vec<&str> = a.split(' ').take(50).collect();
    let merged = format!("{} {b}", half_a.join(" "));
    (a, b, merged)
}

#[test]
fn a_composite_page_is_refused_once_the_other_article_is_stored() {
    let (a, b, merged) = composite_corpus();
    let dir = temp_dir("composite");
    let seen = ContentSeen::open(&dir, &Config::new()).unwrap();
    seen.insert(text("a", &a)).unwrap();
    seen.insert(text("b", &b)).unwrap();
    let v = seen.check(text("m", &merged)).unwrap();
    assert_eq!(v.duplicate_of, None, "a copy of A is stored: {v:?}");
    drop(seen);
    // The originals' sampled shingles are rebuilt at open.
    let seen = ContentSeen::open(&dir, &Config::new()).unwrap();
    let v = seen.insert(text("m", &merged)).unwrap();
    assert_eq!(v.duplicate_of, None, "after a restart: {v:?}");
    drop(seen);
    let _ = std::fs::remove_dir_all(&dir);

    // Posted before any copy of A, nothing shows where its first 50 words
    // come from: B is taken for its copy.
    let dir = temp_dir("composite-first");
    let seen = ContentSeen::open(&dir, &Config::new()).unwrap();
    seen.insert(text("m", &merged)).unwrap();
    let v = seen.insert(text("b", &b)).unwrap();
    assert_eq!(v.duplicate_of.as_deref(), Some("m"), "{v:?}");
    drop(seen);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_the_composite_check_the_composite_page_joins_b() {
    let (a, b, merged) = composite_corpus();
    let dir = temp_dir("no-composite");
    let mut config = Config::new();
    config.composite(None);
    let seen = ContentSeen::open(&dir, &config).unwrap();
    seen.insert(text("a", &a)).unwrap();
    seen.insert(text("b", &b)).unwrap();
    let v = seen.insert(text("m", &merged)).unwrap();
    assert_eq!(v.duplicate_of.as_deref(), Some("b"), "{v:?}");
    drop(seen);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_oldest_documents_are_evicted_past_the_limits() {
    let dir = temp_dir("evict");
    let mut config = Config::new();
    config.max_documents(Some(3));
    let seen = ContentSeen::open(&dir, &config).unwrap();
    let docs: Vec<String> = (0..5).map(|i| article(20 + i, 150)).collect();
    for (i, d) in docs.iter().enumerate() {
        seen.insert(text(&format!("d{i}"), d)).unwrap();
    }
    let s = seen.stats();
    assert_eq!((s.documents, s.evicted), (3, 2));
    assert!(seen.get("d0").unwrap().is_none() && seen.get("d1").unwrap().is_none());
    assert!(seen.get("d4").unwrap().is_some());
    // An evicted original is no longer a target.
    assert!(!seen
        .check(text("q", &edit(&docs[0], 30, 1)))
        .unwrap()
        .is_duplicate());
    let v = seen.check(text("q", &edit(&docs[4], 30, 1))).unwrap();
    assert_eq!(v.duplicate_of.as_deref(), Some("d4"));
    drop(seen);
    // By age: what was stored before the limit is gone at the next commit.
    let mut config = Config::new();
    config.max_age(Some(std::time::Duration::from_millis(500)));
    let seen = ContentSeen::open(&dir, &config).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    seen.insert(text("fresh", &article(40, 150))).unwrap();
    let s = seen.stats();
    assert_eq!(s.documents, 1, "only the fresh document is left");
    assert!(seen.get("fresh").unwrap().is_some());
}

#[test]
fn an_online_backup_is_a_consistent_store() {
    let dir = temp_dir("backup");
    let seen = ContentSeen::open(dir.join("live"), &Config::new()).unwrap();
    let docs: Vec<String> = (0..6).map(|i| article(60 + i, 150)).collect();
    for (i, d) in docs.iter().enumerate().take(4) {
        seen.insert(text(&format!("d{i}"), d)).unwrap();
    }
    let copy = dir.join("copy").join(neardup_server::FILE_NAME);
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    assert_eq!(seen.backup(&copy).unwrap(), 4);
    assert!(seen.backup(&copy).is_err(), "never over an existing file");
    // The service went on.
    for (i, d) in docs.iter().enumerate().skip(4) {
        seen.insert(text(&format!("d{i}"), d)).unwrap();
    }
    assert_eq!(seen.stats().documents, 6);
    // The copy opens as a store of its own, with what was there at the call.
    let restored = ContentSeen::open(dir.join("copy"), &Config::new()).unwrap();
    assert_eq!(restored.stats().documents, 4);
    let v = restored.check(text("q", &edit(&docs[2], 30, 1))).unwrap();
    assert_eq!(v.duplicate_of.as_deref(), Some("d2"));
    assert!(!restored.check(text("q", &docs[5])).unwrap().is_duplicate());
}
