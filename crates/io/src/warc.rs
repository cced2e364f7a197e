//! A streaming WARC reader: one record at a time, `response` records with an
//! HTML payload become documents, other records are skipped and counted, and
//! a malformed or truncated record is reported without losing the records
//! before it (and, for malformed headers, the records after it).

use std::io::{BufRead, Read};

use crate::document::{Content, Item, RawDocument};
use crate::error::{DocError, DocErrorKind};
use crate::http::{is_html, parse_response};

/// The longest header line accepted; binary garbage has none.
const MAX_LINE: usize = 64 * 1024;
/// The most header lines a record may have.
const MAX_HEADERS: usize = 1024;

/// Reads the records of one WARC stream (already gunzipped: a `.warc.gz`
/// with one member per record is read through a multi-member decoder).
pub struct WarcReader<R> {
    reader: R,
    name: String,
    limit: u64,
    record: u64,
    done: bool,
    /// A resync already consumed the next record's version line.
    pending_version: bool,
}

impl<R: BufRead> WarcReader<R> {
    /// A reader over `reader`; `name` (the file's path) names records that
    /// have no target URI; records larger than `limit` bytes are reported as
    /// too large and skipped.
    pub fn new(reader: R, name: impl Into<String>, limit: u64) -> WarcReader<R> {
        WarcReader {
            reader,
            name: name.into(),
            limit,
            record: 0,
            done: false,
            pending_version: false,
        }
    }

    fn fallback_id(&self) -> String {
        format!("{}#record-{}", self.name, self.record)
    }

    fn error(&self, id: Option<String>, kind: DocErrorKind) -> Item {
        Item::Error(DocError {
            id: id.unwrap_or_else(|| self.fallback_id()),
            kind,
        })
    }

    /// Reads one line (without the line ending); `Ok(None)` at end of stream.
    fn line(&mut self) -> std::io::Result<Option<String>> {
        let mut buf = Vec::new();
        let n = (&mut self.reader)
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut buf)?;
        if n == 0 {
            return Ok(None);
        }
        while buf.last().is_some_and(|&c| c == b'\n' || c == b'\r') {
            buf.pop();
        }
        Ok(Some(String::from_utf8_lossy(&buf).into_owned()))
    }

    /// Skips to the next line that starts a record; returns that line.
    fn resync(&mut self) -> std::io::Result<Option<String>> {
        loop {
            match self.line()? {
                None => return Ok(None),
                Some(l) if l.starts_with("WARC/") => return Ok(Some(l)),
                Some(_) => {}
            }
        }
    }

    fn next_item(&mut self) -> Option<Item> {
        if std::mem::take(&mut self.pending_version) {
            self.record += 1;
            return self.read_record();
        }
        // Find the version line, skipping blank lines between records.
        let first = loop {
            match self.line() {
                Ok(None) => return None,
                Ok(Some(l)) if l.trim().is_empty() => continue,
                Ok(Some(l)) => break l,
                Err(e) => return self.fail(None, e),
            }
        };
        self.record += 1;
        if !first.starts_with("WARC/") {
            let err = self.error(
                None,
                DocErrorKind::Warc(format!(
                    "expected a WARC version line, found {:?}",
                    first.chars().take(40).collect::<String>()
                )),
            );
            // Drop garbage up to the next record and continue from there.
            return match self.resync() {
                Ok(Some(_)) => {
                    self.pending_version = true;
                    Some(err)
                }
                Ok(None) => {
                    self.done = true;
                    Some(err)
                }
                Err(e) => self.fail(None, e).or(Some(err)),
            };
        }
        self.read_record()
    }

    fn read_record(&mut self) -> Option<Item> {
        let mut headers: Vec<(String, String)> = Vec::new();
        loop {
            match self.line() {
                Ok(None) => {
                    self.done = true;
                    return Some(self.error(
                        target(&headers),
                        DocErrorKind::Warc("truncated record header".into()),
                    ));
                }
                Ok(Some(l)) if l.is_empty() => break,
                Ok(Some(l)) => {
                    if headers.len() >= MAX_HEADERS {
                        self.done = true;
                        return Some(self.error(
                            target(&headers),
                            DocErrorKind::Warc("too many header lines".into()),
                        ));
                    }
                    if let Some((k, v)) = l.split_once(':') {
                        headers.push((k.trim().to_string(), v.trim().to_string()));
                    }
                }
                Err(e) => return self.fail(target(&headers), e),
            }
        }
        let id = target(&headers);
        let Some(len) = header(&headers, "content-length").and_then(|v| v.parse::<u64>().ok())
        else {
            let err = self.error(
                id,
                DocErrorKind::Warc("missing or invalid Content-Length".into()),
            );
            match self.resync() {
                Ok(Some(_)) => self.pending_version = true,
                _ => self.done = true,
            }
            return Some(err);
        };
        if len > self.limit {
            let skipped = std::io::copy(&mut (&mut self.reader).take(len), &mut std::io::sink());
            if !matches!(skipped, Ok(n) if n == len) {
                self.done = true;
            }
            return Some(self.error(
                id,
                DocErrorKind::TooLarge {
                    size: len,
                    limit: self.limit,
                },
            ));
        }
        let mut block = Vec::with_capacity(len as usize);
        match (&mut self.reader).take(len).read_to_end(&mut block) {
            Ok(n) if n as u64 == len => {}
            Ok(n) => {
                self.done = true;
                return Some(self.error(
                    id,
                    DocErrorKind::Warc(format!("truncated record: {n} of {len} content bytes")),
                ));
            }
            Err(e) => {
                self.done = true;
                return Some(self.error(
                    id,
                    DocErrorKind::Compression(format!("{e} (record content cut short)")),
                ));
            }
        }
        Some(self.classify(&headers, id, block))
    }

    fn classify(&self, headers: &[(String, String)], id: Option<String>, block: Vec<u8>) -> Item {
        let kind = header(headers, "warc-type")
            .unwrap_or("")
            .to_ascii_lowercase();
        let ctype = header(headers, "content-type")
            .unwrap_or("")
            .to_ascii_lowercase();
        let name = id.clone().unwrap_or_else(|| self.fallback_id());
        let skip = |reason: String| Item::Skipped {
            id: name.clone(),
            reason,
        };
        match kind.as_str() {
            "response" if ctype.starts_with("application/http") => {
                match parse_response(&block, self.limit) {
                    Err(m) => self.error(id, DocErrorKind::Warc(m)),
                    Ok(resp) => {
                        let ct = resp.header("content-type").map(str::to_string);
                        if !(200..300).contains(&resp.status) {
                            skip(format!("HTTP status {}", resp.status))
                        } else if !is_html(ct.as_deref(), &resp.body) {
                            skip(format!(
                                "not HTML ({})",
                                ct.as_deref().unwrap_or("no Content-Type")
                            ))
                        } else {
                            Item::Document(RawDocument {
                                id: name.clone(),
                                url: id,
                                content: Content::Html {
                                    bytes: resp.body,
                                    content_type: ct,
                                },
                            })
                        }
                    }
                }
            }
            "resource" | "response" if is_html(Some(&ctype), &block) => {
                let ct = header(headers, "content-type").map(str::to_string);
                Item::Document(RawDocument {
                    id: name.clone(),
                    url: id,
                    content: Content::Html {
                        bytes: block,
                        content_type: ct,
                    },
                })
            }
            "" => skip("record without WARC-Type".into()),
            other => skip(format!("{other} record")),
        }
    }

    fn fail(&mut self, id: Option<String>, e: std::io::Error) -> Option<Item> {
        self.done = true;
        Some(self.error(id, DocErrorKind::Compression(e.to_string())))
    }
}

impl<R: BufRead> Iterator for WarcReader<R> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        if self.done {
            return None;
        }
        let item = self.next_item();
        if item.is_none() {
            self.done = true;
        }
        item
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn target(headers: &[(String, String)]) -> Option<String> {
    header(headers, "warc-target-uri")
        .map(|u| u.trim_matches(|c| c == '<' || c == '>').to_string())
        .filter(|u| !u.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(
            matches!(&items[3], Item::Skipped { reason, .. } if reason.starts_with("not HTML"))
        );
        assert!(matches!(&items[4], Item::Document(d) if d.id == "http://b/"));
    }

    #[test]
    fn truncated_record_keeps_earlier_ones() {
        let mut w = response("http://a/", "text/html", "<p>a</p>");
        let second = response("http://b/", "text/html", &"<p>b</p>".repeat(50));
        w.extend_from_slice(&second[..second.len() - 100]);
        let items = read(&w);
        assert_eq!(items.len(), 2);
        assert!(matches!(&items[0], Item::Document(_)));
        match &items[1] {
            Item::Error(e) => {
                assert_eq!(e.id, "http://b/");
                assert!(e.to_string().contains("truncated"), "{e}");
            }
            other => panic!("{other:?}"),
        }
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
    fn empty_and_binary_streams() {
        assert!(read(b"").is_empty());
        let garbage: Vec<u8> = (0..10_000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 7) as u8)
            .collect();
        let items = read(&garbage);
        assert!(items.len() <= 2, "{items:?}");
        assert!(items.iter().all(|i| matches!(i, Item::Error(_))));
    }
}
