//! The WARC reader through its public interface: record types, garbage,
//! oversized records, missing lengths, broken compression.

use neardup_io::{Content, DocError, DocErrorKind, Item, WarcReader};

fn record(kind: &str, uri: &str, ctype: &str, block: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {uri}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    r.extend_from_slice(block);
    r.extend_from_slice(b"\r\n\r\n");
    r
}

fn response(uri: &str, mime: &str, body: &str) -> Vec<u8> {
    let http = format!("HTTP/1.1 200 OK\r\nContent-Type: {mime}\r\n\r\n{body}");
    record(
        "response",
        uri,
        "application/http; msgtype=response",
        http.as_bytes(),
    )
}

fn read(bytes: &[u8]) -> Vec<Item> {
    WarcReader::new(bytes, "t.warc", 1 << 20).collect()
}

#[test]
fn reads_html_responses_and_skips_others() {
    let mut w = record(
        "warcinfo",
        "",
        "application/warc-fields",
        b"software: x\r\n",
    );
    w.extend(record(
        "request",
        "http://a/",
        "application/http; msgtype=request",
        b"GET / HTTP/1.1\r\n\r\n",
    ));
    w.extend(response(
        "http://a/",
        "text/html; charset=utf-8",
        "<p>a</p>",
    ));
    w.extend(response("http://a/img.png", "image/png", "\u{1}PNG"));
    w.extend(record("resource", "http://b/", "text/html", b"<p>b</p>"));
    let items = read(&w);
    assert_eq!(items.len(), 5);
    assert!(matches!(&items[0], Item::Skipped { reason, .. } if reason == "warcinfo record"));
    assert!(matches!(&items[1], Item::Skipped { .. }));
    match &items[2] {
        Item::Document(d) => {
            assert_eq!(d.id, "http://a/");
            assert_eq!(d.url.as_deref(), Some("http://a/"));
            assert_eq!(
                d.content,
                Content::Html {
                    bytes: b"<p>a</p>".to_vec(),
                    content_type: Some("text/html; charset=utf-8".into())
                }
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&items[3], Item::Skipped { reason, .. } if reason.starts_with("not HTML")));
    assert!(matches!(&items[4], Item::Document(d) if d.id == "http://b/"));
}

#[test]
fn garbage_between_records_is_reported_and_skipped() {
    let mut w = response("http://a/", "text/html", "<p>a</p>");
    w.extend_from_slice(b"\x00\x01garbage line\nmore\n");
    w.extend(response("http://c/", "text/html", "<p>c</p>"));
    let items = read(&w);
    assert_eq!(items.len(), 3, "{items:?}");
    assert!(matches!(&items[1], Item::Error(e) if e.id == "t.warc#record-2"));
    assert!(matches!(&items[2], Item::Document(d) if d.id == "http://c/"));
}

#[test]
fn oversized_record_is_skipped_with_an_error() {
    let mut w = response("http://big/", "text/html", &"x".repeat(5000));
    w.extend(response("http://a/", "text/html", "<p>a</p>"));
    let items: Vec<Item> = WarcReader::new(&w[..], "t.warc", 1000).collect();
    assert!(matches!(
        &items[0],
        Item::Error(DocError {
            kind: DocErrorKind::TooLarge { .. },
            ..
        })
    ));
    assert!(matches!(&items[1], Item::Document(d) if d.id == "http://a/"));
}

#[test]
fn missing_content_length_resyncs() {
    let mut w = b"WARC/1.0\r\nWARC-Type: response\r\n\r\nblah\r\n".to_vec();
    w.extend(response("http://a/", "text/html", "<p>a</p>"));
    let items = read(&w);
    assert_eq!(items.len(), 2, "{items:?}");
    assert!(matches!(&items[0], Item::Error(_)));
    assert!(matches!(&items[1], Item::Document(_)));
}

#[test]
fn corrupt_gzip_after_a_whole_record_is_reported() {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(&response("http://a/", "text/html", "<p>a</p>"))
        .unwrap();
    let mut data = e.finish().unwrap();
    data.extend_from_slice(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\xff\xff\xff\xff garbage");
    let stream = std::io::BufReader::new(flate2::read::MultiGzDecoder::new(&data[..]));
    let items: Vec<Item> = WarcReader::new(stream, "t.warc.gz", 1 << 20).collect();
    assert_eq!(items.len(), 2, "{items:?}");
    assert!(matches!(&items[0], Item::Document(_)));
    assert!(matches!(&items[1], Item::Error(e) if e.id == "t.warc.gz#record-2"));
}

#[test]
fn empty_and_binary_streams() {
    assert!(read(b"").is_empty());
    let garbage: Vec<u8> = (0..10_000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 7) as u8)
        .collect();
    let items = read(&garbage);
    assert!(items.len() <= 2, "{items:?}");
    assert!(items.iter().all(|i| matches!(i, Item::Error(_))));
}
