//! `.warc.gz` files (one gzip member per record) with a member cut short and
//! followed directly by the next member: each member is cut at every byte
//! offset. The records after the cut come back exactly as from the whole
//! file, the cut record is flagged truncated and holds a prefix of its own
//! page (or, cut before its page, is an error), and no page holds another
//! record's bytes.

use std::io::Read;
use std::path::{Path, PathBuf};

use neardup_io::{Content, Inputs, Item, TruncatedIds};
use neardup_testkit::TempDir;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The gzip members of `bytes`.
fn members(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let before = rest.len();
        let mut sink = Vec::new();
        flate2::bufread::GzDecoder::new(&mut rest)
            .read_to_end(&mut sink)
            .unwrap();
        let len = before - rest.len();
        out.push(&bytes[bytes.len() - before..bytes.len() - before + len]);
    }
    out
}

/// A page read: its URL (ids are renumbered when an error takes a
/// record's URI), its bytes, whether it was flagged truncated.
type Page = (String, Vec<u8>, bool);

/// The items of `bytes` read as the file `file`, and its pages.
fn read(dir: &TempDir, file: &str, bytes: &[u8]) -> (Vec<Item>, Vec<Page>) {
    let path = dir.write(file, bytes);
    let truncated = TruncatedIds::new();
    let inputs = Inputs::builder().truncated_ids(truncated.clone()).build();
    let sources = inputs.sources(&[path]).unwrap();
    let items: Vec<Item> = inputs.read_all(&sources).collect();
    let pages = items
        .iter()
        .filter_map(|i| match i {
            Item::Document(d) => {
                let bytes = match &d.content {
                    Content::Html { bytes, .. } => bytes.clone(),
                    Content::Text(t) => t.clone().into_bytes(),
                };
                let url = d.url.clone().unwrap_or_else(|| d.id.clone());
                Some((url, bytes, truncated.contains(&d.id)))
            }
            _ => None,
        })
        .collect();
    (items, pages)
}

/// Each item's id and what it is (a page and its length, an error, a skip).
fn summary(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i {
            Item::Document(d) => format!("page {} ({:?})", d.id, content_len(&d.content)),
            Item::Error(e) => format!("error {e}"),
            Item::Skipped { id, reason } => format!("skipped {id}: {reason}"),
        })
        .collect()
}

fn content_len(c: &Content) -> usize {
    match c {
        Content::Html { bytes, .. } => bytes.len(),
        Content::Text(t) => t.len(),
    }
}

/// Cuts every member of the archive `bytes` at every offset in `offsets`
/// (of its length) and checks what is read.
fn check_cuts(name: &str, file: &str, bytes: &[u8], offsets: impl Fn(usize) -> Vec<usize>) {
    let dir = TempDir::new(name);
    let (whole_items, whole) = read(&dir, file, bytes);
    assert!(whole.iter().all(|p| !p.2), "{:?}", summary(&whole_items));
    let ms = members(bytes);
    assert!(ms.len() > 2, "{name}: {} members", ms.len());
    let mut before = 0;
    for (m, member) in ms.iter().enumerate() {
        // The page of this member, when it has one, is `whole[before]`.
        let (_, own) = read(&dir, file, member);
        let own = own.first().map(|p| p.0.clone());
        for k in offsets(member.len())
            .into_iter()
            .filter(|&k| m > 0 || k >= 2)
        {
            // A file is read as gzip when it starts with the gzip magic.
            let stream = [&ms[..m].concat()[..], &member[..k], &ms[m + 1..].concat()].concat();
            let (items, pages) = read(&dir, file, &stream);
            let ctx = format!("{name}: member {m} cut at {k} of {}", member.len());
            let say = || format!("{ctx}: {:?}", summary(&items));
            let after = match own.is_some() {
                true => before + 1,
                false => before,
            };
            // The pages of the other members, as from the whole file.
            assert!(pages.len() >= whole.len() - 1, "{}", say());
            assert!(pages[..before] == whole[..before], "{}", say());
            assert!(pages.len() >= whole.len() - after, "{}", say());
            let tail = &pages[pages.len() - (whole.len() - after)..];
            assert!(tail == &whole[after..], "{}", say());
            match (&pages[before..pages.len() - tail.len()], &own) {
                ([cut], Some(url)) => {
                    let full = &whole[before].1;
                    assert_eq!(&cut.0, url, "{}", say());
                    assert!(full.starts_with(&cut.1), "{}", say());
                    assert!(cut.2 || cut.1 == *full, "{}: not flagged", say());
                }
                ([], Some(_)) if k > 0 => assert!(
                    items.iter().any(|i| matches!(i, Item::Error(_))),
                    "{}: gone without an error",
                    say()
                ),
                ([], _) => {}
                _ => panic!("{}", say()),
            }
            for (id, page, _) in &pages {
                let text = String::from_utf8_lossy(page);
                assert!(
                    !text.contains("WARC/1.") && !text.contains("HTTP/1."),
                    "{ctx}: {id}: {text:?}"
                );
            }
            assert!(items.len() <= whole_items.len() + 1, "{}", say());
        }
        before += usize::from(own.is_some());
    }
}

#[test]
fn warcio_members_cut_at_every_offset() {
    let bytes = std::fs::read(data("warcio.warc.gz")).unwrap();
    check_cuts("gz-warcio", "cut.warc.gz", &bytes, |n| (0..n).collect());
}

#[test]
fn python_gzip_members_cut_at_every_offset() {
    // Nine records of every type, written by Python's gzip module.
    let bytes = std::fs::read(data("repeated_uri.warc.gz")).unwrap();
    check_cuts("gz-python", "cut.warc.gz", &bytes, |n| (0..n).collect());
}

#[test]
fn arc_members_cut_at_every_offset() {
    // ARC version 1, one member per record; a record cut inside its record
    // line is an error, the next one is read.
    let bytes = std::fs::read(data("v1.arc.gz")).unwrap();
    check_cuts("gz-arc", "cut.arc.gz", &bytes, |n| (0..n).collect());
}

#[test]
fn damaged_bytes_never_panic() {
    // Bytes overwritten here and there, members dropped and repeated.
    let bytes = std::fs::read(data("warcio.warc.gz")).unwrap();
    let dir = TempDir::new("gz-damaged");
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n as u64) as usize
    };
    for _ in 0..300 {
        let mut b = bytes.clone();
        for _ in 0..1 + next(4) {
            let at = next(b.len());
            b[at] = next(256) as u8;
        }
        let (from, to) = (next(b.len()), next(b.len()));
        if from < to && next(2) == 0 {
            b.drain(from..to);
        }
        let (items, _) = read(&dir, "cut.warc.gz", &b);
        assert!(!items.is_empty());
    }
}

/// The dev WARC of `../shared/eval` (1,729 pages, warcio-style members)
/// with one member in the middle cut in half: every other page comes back.
#[test]
fn real_crawl_with_a_member_cut_in_half() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/eval/neardup/dev/pages.warc.gz");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("skipped: {} is absent", path.display());
        return;
    };
    let dir = TempDir::new("gz-dev");
    let (_, whole) = read(&dir, "cut.warc.gz", &bytes);
    let ms = members(&bytes);
    let m = ms.len() / 2;
    let (_, own) = read(&dir, "cut.warc.gz", ms[m]);
    let stream = [
        &ms[..m].concat()[..],
        &ms[m][..ms[m].len() / 2],
        &ms[m + 1..].concat(),
    ]
    .concat();
    let (_, pages) = read(&dir, "cut.warc.gz", &stream);
    assert_eq!(pages.len(), whole.len());
    for (got, want) in pages.iter().zip(&whole) {
        if Some(&got.0) == own.first().map(|p| &p.0) {
            assert!(got.2 && want.1.starts_with(&got.1), "{}", got.0);
        } else {
            assert!(got == want, "{}", got.0);
        }
    }
}
