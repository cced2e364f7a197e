//! Restarts from the index snapshot: loaded and brought up to date from
//! the store, or refused (damaged, stale, of another store) and rebuilt;
//! verdicts are the same either way.

mod common;

use neardup::io::{Content, RawDocument};
use neardup_server::{Config, ContentSeen, Verdict, SNAPSHOT_FILE};

use common::{article, edit, temp_dir};

fn text(id: &str, t: &str) -> RawDocument {
    RawDocument {
        id: id.into(),
        url: None,
        content: Content::Text(t.into()),
    }
}

/// Originals and reprints, ids `p{i}`.
fn docs(range: std::ops::Range<u64>) -> Vec<(String, String)> {
    range
        .map(|i| {
            let t = if i % 3 == 2 {
                edit(&article(i / 3, 250), 30, 1)
            } else {
                article(i, 250)
            };
            (format!("p{i}"), t)
        })
        .collect()
}

/// The verdicts for probes (not stored): reprints of every original.
fn probes(seen: &ContentSeen) -> Vec<Verdict> {
    (0..40)
        .map(|i| {
            seen.check(text(&format!("probe{i}"), &edit(&article(i, 250), 20, 2)))
                .unwrap()
        })
        .collect()
}

#[test]
fn a_restart_loads_the_snapshot_and_catches_up_with_the_store() {
    let dir = temp_dir("snap-catch-up");
    let config = Config::new();
    let seen = ContentSeen::open(&dir, &config).unwrap();
    for (id, t) in docs(0..60) {
        seen.insert(text(&id, &t)).unwrap();
    }
    drop(seen);
    let first = std::fs::read(dir.join(SNAPSHOT_FILE)).expect("a snapshot at close");

    // A clean restart: everything from the snapshot.
    let seen = ContentSeen::open(&dir, &config).unwrap();
    assert!(seen.recovery().from_snapshot, "{:?}", seen.recovery());
    assert_eq!(seen.recovery().replayed, 0);
    for (id, t) in docs(60..90) {
        seen.insert(text(&id, &t)).unwrap();
    }
    assert!(seen.delete("p0").unwrap());
    assert!(seen.delete("p61").unwrap());
    let want = probes(&seen);
    let stats = seen.stats();
    drop(seen);

    // As after a crash past the first snapshot: the old snapshot, then the
    // 30 documents stored and the 2 removed since.
    std::fs::write(dir.join(SNAPSHOT_FILE), &first).unwrap();
    let seen = ContentSeen::open(&dir, &config).unwrap();
    let r = seen.recovery().clone();
    assert!(r.from_snapshot, "{r:?}");
    assert_eq!((r.replayed, r.removals), (29, 1), "{r:?}");
    assert_eq!(probes(&seen), want);
    assert_eq!(seen.stats().documents, stats.documents);
    assert_eq!(seen.stats().originals, stats.originals);
    drop(seen);

    // Without a snapshot: rebuilt from every document, the same verdicts.
    std::fs::remove_file(dir.join(SNAPSHOT_FILE)).unwrap();
    let seen = ContentSeen::open(&dir, &config).unwrap();
    assert!(!seen.recovery().from_snapshot);
    assert_eq!(seen.recovery().replayed, stats.documents as u64);
    assert_eq!(probes(&seen), want);
}

#[test]
fn a_damaged_or_foreign_snapshot_is_refused_and_the_index_rebuilt() {
    let dir = temp_dir("snap-damaged");
    let config = Config::new();
    let seen = ContentSeen::open(&dir, &config).unwrap();
    for (id, t) in docs(0..45) {
        seen.insert(text(&id, &t)).unwrap();
    }
    let want = probes(&seen);
    drop(seen);
    let good = std::fs::read(dir.join(SNAPSHOT_FILE)).unwrap();
    let step = (good.len() / 23).max(1);
    for at in (0..good.len()).step_by(step).chain([good.len() - 1]) {
        let mut bad = good.clone();
        bad[at] ^= 0x5a;
        std::fs::write(dir.join(SNAPSHOT_FILE), &bad).unwrap();
        let seen = ContentSeen::open(&dir, &config).unwrap();
        let r = seen.recovery();
        assert!(!r.from_snapshot, "flip at {at} was used");
        assert!(r.snapshot_refused.is_some(), "flip at {at}");
        assert_eq!(probes(&seen), want, "flip at {at}");
    }
    std::fs::write(dir.join(SNAPSHOT_FILE), &good[..good.len() / 2]).unwrap();
    let seen = ContentSeen::open(&dir, &config).unwrap();
    assert!(!seen.recovery().from_snapshot);
    drop(seen);

    // The snapshot of another store with the same settings is refused too.
    let other = temp_dir("snap-other");
    let seen = ContentSeen::open(&other, &config).unwrap();
    seen.insert(text("x", &article(999, 250))).unwrap();
    drop(seen);
    std::fs::copy(other.join(SNAPSHOT_FILE), dir.join(SNAPSHOT_FILE)).unwrap();
    let seen = ContentSeen::open(&dir, &config).unwrap();
    assert!(!seen.recovery().from_snapshot);
    assert_eq!(probes(&seen), want);
}
