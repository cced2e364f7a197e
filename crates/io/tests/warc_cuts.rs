//! Records cut short in the middle of a file, warcio-style: a record is cut
//! at every byte offset (in its WARC header, in its HTTP head, in its body)
//! and followed directly by the next records. The cut record is flagged
//! truncated (or reported as an error when nothing of its page is left), it
//! never holds another record's headers, and every later record is read.

use neardup_io::{Content, Inputs, Item, TruncatedIds};

fn response(uri: &str, body: &str) -> (Vec<u8>, usize, usize) {
    let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{body}");
    let head = format!(
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{uri}>\r\n\
         WARC-Target-URI: {uri}\r\nContent-Type: application/http; msgtype=response\r\n\
         Content-Length: {}\r\n\r\n",
        http.len()
    );
    let body_at = head.len() + http.len() - body.len();
    let record = [head.as_bytes(), http.as_bytes(), b"\r\n\r\n"].concat();
    (record, head.len(), body_at)
}

/// Items and truncation flags of a stream, read as a `.warc` file.
fn read(name: &str, bytes: &[u8]) -> Vec<(Item, bool)> {
    let dir = neardup_testkit::TempDir::new(name);
    let path = dir.write("cut.warc", bytes);
    let truncated = TruncatedIds::new();
    let inputs = Inputs::builder().truncated_ids(truncated.clone()).build();
    let sources = inputs.sources(&[path]).unwrap();
    let items: Vec<Item> = inputs.read_all(&sources).collect();
    items
        .into_iter()
        .map(|i| {
            let t = matches!(&i, Item::Document(d) if truncated.contains(&d.id));
            (i, t)
        })
        .collect()
}

fn html(item: &Item) -> Option<(&str, &[u8])> {
    match item {
        Item::Document(d) => match &d.content {
            Content::Html { bytes, .. } => Some((d.id.as_str(), bytes)),
            Content::Text(_) => None,
        },
        _ => None,
    }
}

/// Cuts the first record at every offset in `range` and checks the reading.
fn check_cuts(name: &str, range: std::ops::Range<usize>, expect_page_from: usize) {
    let a_body = "<p>First page, long enough to be cut in its body.</p>".repeat(8);
    let (a, _, _) = response("http://cut.example/a", &a_body);
    let (b, _, _) = response("http://cut.example/b", "<p>Second page.</p>");
    let (c, _, _) = response("http://cut.example/c", "<p>Third page.</p>");
    for k in range {
        let stream = [&a[..k], &b[..], &c[..]].concat();
        let got = read(&format!("{name}-{k}"), &stream);
        let ctx = || format!("cut at {k}: {:?}", String::from_utf8_lossy(&a[..k]));
        // The two later records, whole and not flagged.
        let tail: Vec<(&str, &[u8], bool)> = got
            .iter()
            .filter_map(|(i, t)| html(i).map(|(id, b)| (id, b, *t)))
            .filter(|(id, _, _)| *id != "http://cut.example/a")
            .collect();
        assert_eq!(tail.len(), 2, "{}: {got:?}", ctx());
        assert_eq!(tail[0].0, "http://cut.example/b", "{}", ctx());
        assert_eq!(tail[0].1, b"<p>Second page.</p>", "{}", ctx());
        assert_eq!(tail[1].0, "http://cut.example/c", "{}", ctx());
        assert!(!tail[0].2 && !tail[1].2, "{}", ctx());
        // Nothing of another record in any page.
        for (item, _) in &got {
            if let Some((_, bytes)) = html(item) {
                let text = String::from_utf8_lossy(bytes);
                assert!(
                    !text.contains("WARC") && !text.contains("HTTP/1.1"),
                    "{}: {text:?}",
                    ctx()
                );
            }
        }
        // The cut record: a truncated page with a prefix of its own body,
        // or (cut before its body) an error or nothing, never a whole page.
        let first = got
            .iter()
            .find(|(i, _)| matches!(i, Item::Document(d) if d.id == "http://cut.example/a"));
        if let Some((item, truncated)) = first {
            let (_, bytes) = html(item).unwrap();
            assert!(*truncated, "{}", ctx());
            assert!(a_body.as_bytes().starts_with(bytes), "{}: {bytes:?}", ctx());
        } else {
            assert!(k < expect_page_from, "{}: {got:?}", ctx());
        }
        assert!(got.len() <= 3, "{}: {got:?}", ctx());
    }
}

#[test]
fn cut_in_the_warc_header() {
    let (a, head, _) = response("http://cut.example/a", "<p>x</p>");
    assert!(a.len() > head);
    check_cuts("cut-header", 1..head, usize::MAX);
}

#[test]
fn cut_in_the_http_head() {
    let a_body = "<p>First page, long enough to be cut in its body.</p>".repeat(8);
    let (_, head, body_at) = response("http://cut.example/a", &a_body);
    check_cuts("cut-http", head..body_at, usize::MAX);
}

#[test]
fn cut_in_the_body() {
    let a_body = "<p>First page, long enough to be cut in its body.</p>".repeat(8);
    let (a, _, body_at) = response("http://cut.example/a", &a_body);
    // Up to the record's last byte of content (a whole record then reads as
    // a page of its own); cut right after its HTTP head, a record has no page.
    check_cuts("cut-body", body_at..a.len() - 4, body_at + 1);
}

#[test]
fn cut_records_in_a_row_and_a_quoted_record_in_a_whole_page() {
    let quoted = "<pre>WARC/1.0\r\nWARC-Type: response\r\n</pre>";
    let (a, _, _) = response("http://cut.example/a", &"<p>aaaa</p>".repeat(20));
    let (b, _, _) = response("http://cut.example/b", &"<p>bbbb</p>".repeat(20));
    let (q, _, _) = response("http://cut.example/q", quoted);
    let stream = [&a[..260], &b[..300], &q[..]].concat();
    let got = read("cut-row", &stream);
    let ids: Vec<(&str, bool)> = got
        .iter()
        .filter_map(|(i, t)| html(i).map(|(id, _)| (id, *t)))
        .collect();
    assert_eq!(
        ids,
        [
            ("http://cut.example/a", true),
            ("http://cut.example/b", true),
            ("http://cut.example/q", false)
        ],
        "{got:?}"
    );
    // A whole record that quotes a record in its page keeps its page.
    let (_, page) = html(&got[2].0).unwrap();
    assert_eq!(page, quoted.as_bytes());
}
