//! Archives written by other tools and damaged archives: what neardup reads
//! from each fixture of `tests/data/` (made by `scripts/make_io_fixtures.py`;
//! see `tests/data/README.md`).

use std::path::{Path, PathBuf};

use neardup_io::{Content, DocErrorKind, Inputs, Item, SourceKind, TruncatedIds};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Reads fixtures through `read_all`; returns the items and the truncated ids.
fn read(names: &[&str]) -> (Vec<Item>, TruncatedIds) {
    let truncated = TruncatedIds::new();
    let inputs = Inputs::builder().truncated_ids(truncated.clone()).build();
    let paths: Vec<PathBuf> = names.iter().map(|n| data(n)).collect();
    let sources = inputs.sources(&paths).unwrap();
    (inputs.read_all(&sources).collect(), truncated)
}

fn docs(items: &[Item]) -> Vec<(&str, Option<&str>, String)> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Document(d) => {
                let text = match &d.content {
                    Content::Html { bytes, .. } => String::from_utf8_lossy(bytes).into_owned(),
                    Content::Text(t) => t.clone(),
                };
                Some((d.id.as_str(), d.url.as_deref(), text))
            }
            _ => None,
        })
        .collect()
}

fn skips(items: &[Item]) -> Vec<&str> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Skipped { reason, .. } => Some(reason.as_str()),
            _ => None,
        })
        .collect()
}

fn errors(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Error(e) => Some(e.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn repeated_uri_gets_numbered_ids_and_other_records_are_counted() {
    let (items, truncated) = read(&["repeated_uri.warc.gz"]);
    let d = docs(&items);
    let ids: Vec<&str> = d.iter().map(|x| x.0).collect();
    assert_eq!(
        ids,
        [
            "http://example.com/a",
            "http://example.com/a#2",
            "http://example.com/r.html"
        ]
    );
    assert_eq!(d[1].1, Some("http://example.com/a"));
    assert!(d[1].2.contains("Second fetch"));
    assert_eq!(
        skips(&items),
        [
            "warcinfo record",
            "request record",
            "HTTP status 404",
            "not HTML (image/png)",
            "revisit record",
            "metadata record"
        ]
    );
    assert!(errors(&items).is_empty());
    assert!(truncated.is_empty());
}

#[test]
fn the_same_archive_twice_numbers_across_files() {
    let (items, _) = read(&["repeated_uri.warc.gz", "repeated_uri.warc.gz"]);
    let d = docs(&items);
    assert_eq!(d.len(), 6);
    assert_eq!(d[3].0, "http://example.com/a#3");
    assert_eq!(d[5].0, "http://example.com/r.html#2");
}

#[test]
fn warc_versions_and_http_quirks() {
    for (name, id, text) in [
        (
            "warc11_chunked.warc",
            "http://example.org/chunked",
            "chunked and gzip",
        ),
        (
            "warc017.warc",
            "http://old.example.net/",
            "A page from 2008.",
        ),
        (
            "clueweb09.warc.gz",
            "http://clueweb.example.com/",
            "Stored already decoded.",
        ),
        (
            "httpx_crcrlf.warc",
            "http://httpx.example.com/",
            "Odd line ends.",
        ),
    ] {
        let (items, _) = read(&[name]);
        let d = docs(&items);
        assert_eq!(d.len(), 1, "{name}: {items:?}");
        assert_eq!(d[0].0, id, "{name}");
        assert!(d[0].2.starts_with("<html>"), "{name}: {:?}", d[0].2);
        assert!(d[0].2.contains(text), "{name}: {:?}", d[0].2);
    }
}

#[test]
fn record_cut_in_the_middle_keeps_both_records() {
    let (items, truncated) = read(&["cut_in_middle.warc"]);
    let d = docs(&items);
    assert_eq!(d.len(), 2, "{items:?}");
    assert_eq!(d[0].0, "http://cut.example.com/1");
    assert!(!d[0].2.contains("WARC/1.0"), "{:?}", d[0].2);
    assert!(d[0].2.ends_with("<p>This p"), "{:?}", d[0].2);
    assert_eq!(d[1].0, "http://cut.example.com/2");
    assert!(d[1].2.contains("The next page."));
    assert!(truncated.contains("http://cut.example.com/1"));
    assert!(!truncated.contains("http://cut.example.com/2"));
}

#[test]
fn clipped_last_record_keeps_its_bytes() {
    let (items, truncated) = read(&["clipped_end.warc"]);
    let d = docs(&items);
    assert_eq!(d.len(), 2, "{items:?}");
    assert!(d[1].2.contains("This page is cut"));
    assert!(truncated.contains("http://cut.example.com/1"));
    assert_eq!(truncated.len(), 1);
}

#[test]
fn gzip_member_without_trailer_keeps_its_page() {
    let (items, _) = read(&["no_gzip_trailer.warc.gz"]);
    let d = docs(&items);
    let ids: Vec<&str> = d.iter().map(|x| x.0).collect();
    assert_eq!(
        ids,
        ["http://cut.example.com/2", "http://trailer.example.com/"],
        "{items:?}"
    );
    assert!(d[1].2.contains("Trailer lost."));
}

#[test]
fn arc_files_plain_gzipped_and_found_by_content() {
    for name in ["v1.arc", "v1.arc.gz", "arc_without_extension"] {
        let (items, _) = read(&[name]);
        let d = docs(&items);
        let ids: Vec<&str> = d.iter().map(|x| x.0).collect();
        assert_eq!(
            ids,
            ["http://arc.example.com/", "http://arc.example.com/b"],
            "{name}"
        );
        assert!(d[0].2.starts_with("<html>"), "{name}: {:?}", d[0].2);
        assert_eq!(skips(&items), ["ARC file header record"], "{name}");
    }
    let inputs = Inputs::new();
    let sources = inputs.sources(&[data("")]).unwrap();
    let kind = |n: &str| sources.iter().find(|s| s.path.ends_with(n)).map(|s| s.kind);
    assert_eq!(kind("arc_without_extension"), Some(SourceKind::Arc));
    assert_eq!(kind("v1.arc.gz"), Some(SourceKind::Arc));
    assert_eq!(kind("wet.warc.wet.gz"), Some(SourceKind::Warc));
}

#[test]
fn wet_conversion_records_are_text() {
    let (items, _) = read(&["wet.warc.wet.gz"]);
    match &items[..] {
        [Item::Skipped { .. }, Item::Document(d)] => {
            assert_eq!(d.id, "http://wet.example.com/");
            assert_eq!(
                d.content,
                Content::Text("Plain text of a page, already extracted.".into())
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn repeated_jsonl_id_is_an_error_at_once() {
    let (items, _) = read(&["repeated_id.jsonl"]);
    assert_eq!(items.len(), 3);
    match &items[2] {
        Item::Error(e) => {
            assert_eq!(e.id, "a#2");
            assert_eq!(e.kind, DocErrorKind::DuplicateId("a".into()));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn document_records_pair_ids_with_stored_bytes() {
    let inputs = Inputs::new();
    let sources = inputs.sources(&[data("repeated_uri.warc.gz")]).unwrap();
    let recs: Vec<(String, Vec<u8>)> = inputs.document_records(&sources).collect();
    let ids: Vec<&str> = recs.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        ids,
        [
            "http://example.com/a",
            "http://example.com/a#2",
            "http://example.com/r.html"
        ]
    );
    assert!(recs[1].1.starts_with(b"WARC/1.0\r\n"));
    assert!(recs[1].1.ends_with(b"</html>\r\n\r\n"));
    let text = String::from_utf8_lossy(&recs[1].1);
    assert!(text.contains("Second fetch"));
}

#[test]
fn legacy_multibyte_pages_under_a_wrong_declaration() {
    for (name, charset, text) in [
        (
            "sjis_as_windows-1252.html",
            "Shift_JIS",
            "東京都の天気は晴れ",
        ),
        ("gb18030_as_iso-8859-1.html", "GBK", "北京今天天气晴朗"),
        (
            "real_windows-1252.html",
            "windows-1252",
            "Le café de la gare",
        ),
    ] {
        let (items, _) = read(&[name]);
        let [Item::Document(d)] = &items[..] else {
            panic!("{name}: {items:?}")
        };
        let decoded = d.decode().unwrap();
        assert_eq!(decoded.charset, charset, "{name}");
        assert!(decoded.text.contains(text), "{name}: {}", decoded.text);
        assert!(!decoded.had_errors, "{name}");
    }
}

#[test]
fn zstd_archives_and_json_lines() {
    let dir = neardup_testkit::TempDir::new("zstd-inputs");
    let warc = std::fs::read(data("cut_in_middle.warc")).unwrap();
    let zst = zstd::stream::encode_all(&warc[..], 3).unwrap();
    let p1 = dir.write("crawl.warc.zst", &zst);
    let jsonl =
        zstd::stream::encode_all(&b"{\"id\":\"z\",\"text\":\"zstd text\"}\n"[..], 3).unwrap();
    let p2 = dir.write("docs.jsonl.zst", &jsonl);
    // No extension: told by content.
    let p3 = dir.write("crawl-no-extension", &zst);
    let inputs = Inputs::new();
    let sources = inputs.sources(&[&p1, &p2, &p3]).unwrap();
    let kinds: Vec<SourceKind> = sources.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [SourceKind::Warc, SourceKind::Jsonl, SourceKind::Warc]
    );
    let items: Vec<Item> = inputs.read_all(&sources).collect();
    let d = docs(&items);
    let ids: Vec<&str> = d.iter().map(|x| x.0).collect();
    assert_eq!(
        ids,
        [
            "http://cut.example.com/1",
            "http://cut.example.com/2",
            "z",
            "http://cut.example.com/1#2",
            "http://cut.example.com/2#2"
        ]
    );
}
