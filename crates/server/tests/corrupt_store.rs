//! Damaged and foreign store files: opening one is an error naming the
//! store, never a panic, and a store that is refused is not written to.

mod common;

use neardup::io::{Content, RawDocument};
use neardup_server::{Config, ContentSeen, ErrorKind, FILE_NAME};

use common::{article, temp_dir};

fn text(id: &str, t: &str) -> RawDocument {
    RawDocument {
        id: id.into(),
        url: None,
        content: Content::Text(t.into()),
    }
}

/// A store with a few documents, closed.
fn make_store(dir: &std::path::Path) {
    let seen = ContentSeen::open(dir, &Config::new()).unwrap();
    for i in 0..20 {
        seen.insert(text(&format!("d{i}"), &article(i, 120)))
            .unwrap();
    }
}

#[test]
fn a_refused_store_is_not_written_to() {
    let dir = temp_dir("corrupt-refused");
    make_store(&dir);
    let path = dir.join(FILE_NAME);
    let before = std::fs::read(&path).unwrap();
    let mut other = Config::new();
    other.method("simhash".parse().unwrap()).verifier(None);
    let e = ContentSeen::open(&dir, &other).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::MethodMismatch { .. }), "{e}");
    assert!(
        std::fs::read(&path).unwrap() == before,
        "the refused store is unchanged"
    );
}

#[test]
fn a_foreign_file_is_refused_unchanged() {
    let dir = temp_dir("corrupt-foreign");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(FILE_NAME);
    let junk: Vec<u8> = (0..100_000u32).map(|i| (i * 7919 % 251) as u8).collect();
    std::fs::write(&path, &junk).unwrap();
    let e = ContentSeen::open(&dir, &Config::new()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Corrupt(_)), "{e}");
    assert!(e.to_string().contains("not a neardup store"), "{e}");
    assert_eq!(std::fs::read(&path).unwrap(), junk);
}

#[test]
fn flipped_bytes_never_panic() {
    let dir = temp_dir("corrupt-flip");
    let good = dir.join("good");
    make_store(&good);
    let bytes = std::fs::read(good.join(FILE_NAME)).unwrap();
    let (mut opened, mut refused) = (0, 0);
    // 64 places spread over the file, and the first bytes of its header.
    let step = (bytes.len() / 64).max(1);
    let mut offsets: Vec<usize> = (0..64).map(|i| i * step + (i * 37) % step.max(1)).collect();
    offsets.extend(0..16);
    for (n, &at) in offsets.iter().filter(|&&at| at < bytes.len()).enumerate() {
        let case = dir.join(format!("case{n}"));
        std::fs::create_dir_all(&case).unwrap();
        let mut damaged = bytes.clone();
        damaged[at] ^= 0xA5;
        std::fs::write(case.join(FILE_NAME), &damaged).unwrap();
        // Whatever the damage, an answer: a store or an error.
        match ContentSeen::open(&case, &Config::new()) {
            Ok(seen) => {
                opened += 1;
                let _ = seen.stats();
                let _ = seen.get("d3");
                let _ = seen.check(text("q", &article(3, 120)));
            }
            Err(_) => refused += 1,
        }
        std::fs::remove_dir_all(&case).unwrap();
    }
    assert!(opened + refused >= 64, "{opened} opened, {refused} refused");
    assert!(refused > 0, "some damage is detected");
}
