//! A streaming reader of ARC files (the Internet Archive's format before
//! WARC; version 1 and 2 header lines), plain or one gzip member per record.
//!
//! An ARC file starts with a `filedesc://` record (skipped, counted); every
//! other record is a header line `URL IP DATE MIME ... LENGTH` and LENGTH
//! bytes of content, an HTTP response for `http(s)` URLs. The URL is the
//! document's id and URL; the content is read as a WARC `response` record's.

use std::io::{BufRead, Read};

use crate::document::Item;
use crate::error::{DocError, DocErrorKind};
use crate::gzip_members::is_member_cut;
use crate::record::{classify, RecordHead};
use crate::rewind::Rewind;

/// The longest header line accepted.
const MAX_LINE: usize = 64 * 1024;
/// How far ahead a record's end looks for the next header line.
const MAX_PEEK: usize = 4096;

/// Reads the records of one ARC stream (already gunzipped).
pub struct ArcReader<R> {
    reader: Rewind<R>,
    name: String,
    limit: u64,
    record: u64,
    done: bool,
    /// A gzip member cut short met after a whole record, reported next.
    pending: Option<std::io::Error>,
}

/// The fields of an ARC record header line that are used.
struct ArcHead {
    url: String,
    mime: String,
    len: u64,
}

/// Parses an ARC header line: at least five fields, a URL-like first one
/// and a length last.
fn parse_head(line: &[u8]) -> Option<ArcHead> {
    let text = std::str::from_utf8(line).ok()?;
    let fields: Vec<&str> = text.split_ascii_whitespace().collect();
    let scheme = fields.first()?.split_once(':')?.0;
    if fields.len() < 5 || !scheme.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let len = fields.last()?.parse().ok()?;
    Some(ArcHead {
        url: fields[0].to_string(),
        mime: fields[3].to_string(),
        len,
    })
}

/// The record line at the start of `bytes` when its URL has a scheme ARC
/// writers record (a line cut inside its URL's scheme, `ttp://...`, is not
/// taken for a record).
fn known_head(bytes: &[u8]) -> Option<ArcHead> {
    let line = bytes.split(|&c| c == b'\n').next().unwrap_or_default();
    let head = parse_head(line.strip_suffix(b"\r").unwrap_or(line))?;
    let url = head.url.to_ascii_lowercase();
    ["http://", "https://", "ftp://", "dns:", "filedesc://"]
        .iter()
        .any(|s| url.starts_with(s))
        .then_some(head)
}

/// Whether `bytes` start with an ARC record line (the first bytes of a gzip
/// member that may follow one cut short, `gzip_members.rs`).
pub(crate) fn starts_record(bytes: &[u8]) -> bool {
    bytes.contains(&b'\n') && known_head(bytes).is_some()
}

/// Where a header line of a next record starts inside `block` (the content
/// of a record whose framing failed), if anywhere: at a line start (the
/// content's own start too: a record cut before its content), or in the
/// middle of a line (a record cut short there and the next one glued to
/// it) where its URL's scheme starts.
fn next_arc_start(block: &[u8]) -> Option<usize> {
    let line_starts = std::iter::once(0).chain(memchr::memchr_iter(b'\n', block).map(|p| p + 1));
    let first_line = line_starts
        .filter(|&p| p < block.len())
        .find(|&p| record_line_at(block, p));
    let first_glued = glued_record_line(block, first_line.unwrap_or(block.len()));
    first_glued.or(first_line)
}

/// Whether the line at `start` of `block` is a record line.
fn record_line_at(block: &[u8], start: usize) -> bool {
    let end = memchr::memchr(b'\n', &block[start..]).map_or(block.len(), |e| start + e);
    let line = &block[start..end];
    line.windows(3).any(|w| w == b"://") && parse_head(line).is_some()
}

/// The first record line of `block` before `before` that starts in the
/// middle of a line, where its URL's scheme starts.
fn glued_record_line(block: &[u8], before: usize) -> Option<usize> {
    memchr::memmem::find_iter(block, b"://")
        .flat_map(|p| {
            [&b"https"[..], b"http", b"ftp", b"filedesc"]
                .into_iter()
                .filter(move |s| p > s.len() && block[p - s.len()..p].eq_ignore_ascii_case(s))
                .map(move |s| p - s.len())
        })
        .filter(|&p| block[p - 1] != b'\n')
        .take_while(|&p| p < before)
        .find(|&p| record_line_at(block, p))
}

impl<R: BufRead> ArcReader<R> {
    /// A reader over `reader`; `name` (the file's path) names records in
    /// errors; records larger than `limit` bytes are reported and skipped.
    pub fn new(reader: R, name: impl Into<String>, limit: u64) -> ArcReader<R> {
        ArcReader {
            reader: Rewind::new(reader),
            name: name.into(),
            limit,
            record: 0,
            done: false,
            pending: None,
        }
    }

    /// Reports `error` (met on the stream before the first record) first.
    pub(crate) fn after_error(mut self, error: Option<std::io::Error>) -> ArcReader<R> {
        self.pending = error;
        self
    }

    fn error(&self, id: Option<String>, kind: DocErrorKind) -> Item {
        Item::Error(DocError {
            id: id.unwrap_or_else(|| format!("{}#record-{}", self.name, self.record)),
            kind,
        })
    }

    fn line(&mut self) -> std::io::Result<Option<Vec<u8>>> {
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
        Ok(Some(buf))
    }

    /// The next record and whether its content was cut short.
    pub(crate) fn next_read(&mut self) -> Option<(Item, bool)> {
        if self.done {
            return None;
        }
        if let Some(e) = self.pending.take() {
            self.record += 1;
            return Some((self.broken(None, e), false));
        }
        let line = loop {
            match self.line() {
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Ok(Some(l)) if l.iter().all(u8::is_ascii_whitespace) => {}
                Ok(Some(l)) => break l,
                Err(e) => {
                    // A gzip member cut before any of its record was decoded.
                    self.record += u64::from(is_member_cut(&e));
                    return Some((self.broken(None, e), false));
                }
            }
        };
        self.record += 1;
        if let Some(p) = glued_record_line(&line, line.len()) {
            // A record cut inside its record line, the next one glued to it.
            let mut next = line[p..].to_vec();
            next.push(b'\n');
            self.reader.unread(&next);
            let err = self.error(
                None,
                DocErrorKind::Warc(
                    "truncated ARC record line (the next record starts inside it)".into(),
                ),
            );
            return Some((err, false));
        }
        let Some(head) = parse_head(&line) else {
            let found = String::from_utf8_lossy(&line[..line.len().min(40)]).into_owned();
            let err = self.error(
                None,
                DocErrorKind::Warc(format!("expected an ARC record line, found {found:?}")),
            );
            self.resync();
            return Some((err, false));
        };
        let id = Some(head.url.clone());
        if head.len > self.limit {
            let skipped =
                std::io::copy(&mut (&mut self.reader).take(head.len), &mut std::io::sink());
            if !matches!(skipped, Ok(n) if n == head.len) {
                self.done = true;
            }
            let kind = DocErrorKind::TooLarge {
                size: head.len,
                limit: self.limit,
            };
            return Some((self.error(id, kind), false));
        }
        let mut block = Vec::with_capacity(head.len.min(16 << 20) as usize);
        let mut truncated = match (&mut self.reader).take(head.len).read_to_end(&mut block) {
            Ok(n) => (n as u64) < head.len,
            Err(e) if block.is_empty() => return Some((self.broken(id, e), false)),
            Err(e) => {
                self.done = !is_member_cut(&e);
                true
            }
        };
        let mut gap = Vec::new();
        if truncated || !self.next_is_record(&mut gap) {
            // A record whose length runs into the next one is cut there;
            // the bytes still in the stream complete a record line cut by
            // the claimed length.
            let n = block.len() + gap.len();
            block.extend_from_slice(&gap);
            if let Ok(ahead) = self.reader.peek(MAX_PEEK) {
                block.extend_from_slice(ahead);
            }
            let p = next_arc_start(&block).filter(|&p| p < n);
            block.truncate(n);
            if let Some(p) = p {
                self.reader.unread(&block[p..]);
                block.truncate(p);
                while block.last().is_some_and(|&c| c == b'\r' || c == b'\n') {
                    block.pop();
                }
                self.done = false;
                truncated = true;
            } else {
                block.truncate(n - gap.len());
            }
        }
        if head.url.starts_with("filedesc:") {
            let item = Item::Skipped {
                id: head.url,
                reason: "ARC file header record".into(),
            };
            return Some((item, false));
        }
        let kind = if head.url.starts_with("dns:") {
            "dns"
        } else {
            "response"
        };
        let rec = RecordHead {
            kind,
            content_type: Some(&head.mime),
            uri: id,
            name: self.name.clone(),
        };
        Some((classify(rec, block, self.limit), truncated))
    }

    /// Whether the end of the stream or a record header line follows the
    /// line breaks after a record (consumed, kept in `gap`).
    fn next_is_record(&mut self, gap: &mut Vec<u8>) -> bool {
        loop {
            match self.reader.fill_buf() {
                Ok([c, ..]) if *c == b'\n' || *c == b'\r' => {
                    gap.push(*c);
                    self.reader.consume(1);
                }
                Ok(_) => break,
                Err(e) => return self.stream_error(e),
            }
        }
        match self.reader.peek(MAX_PEEK) {
            Ok(next) => match next.iter().position(|&c| c == b'\n') {
                Some(end) => known_head(&next[..end]).is_some(),
                None => next.len() < MAX_PEEK || next.is_empty(),
            },
            Err(e) => self.stream_error(e),
        }
    }

    /// A stream error after a whole record: a gzip member cut short is
    /// reported next, other errors end the reading at the next read.
    fn stream_error(&mut self, e: std::io::Error) -> bool {
        if is_member_cut(&e) {
            self.pending = Some(e);
        }
        true
    }

    /// Skips lines up to the next one that reads as a record header.
    fn resync(&mut self) {
        loop {
            match self.line() {
                Ok(Some(l)) if parse_head(&l).is_some() => {
                    let mut l = l;
                    l.push(b'\n');
                    self.reader.unread(&l);
                    return;
                }
                Ok(Some(_)) => {}
                _ => {
                    self.done = true;
                    return;
                }
            }
        }
    }

    /// An error item for a stream error; the reading ends, except after a
    /// gzip member cut short (the next member is read).
    fn broken(&mut self, id: Option<String>, e: std::io::Error) -> Item {
        self.done = !is_member_cut(&e);
        self.error(id, DocErrorKind::Compression(e.to_string()))
    }
}

impl<R: BufRead> Iterator for ArcReader<R> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        self.next_read().map(|(item, _)| item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arc(records: &[(&str, &str)]) -> Vec<u8> {
        let desc = "1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n";
        let mut out = format!(
            "filedesc://t.arc 0.0.0.0 20000101000000 text/plain {}\n{desc}\n",
            desc.len()
        )
        .into_bytes();
        for (url, body) in records {
            let http = format!("HTTP/1.0 200 OK\nContent-Type: text/html\n\n{body}");
            out.extend(
                format!(
                    "{url} 1.2.3.4 20000101000000 text/html {}\n{http}\n",
                    http.len()
                )
                .into_bytes(),
            );
        }
        out
    }

    #[test]
    fn reads_v1_records() {
        let data = arc(&[("http://a/", "<p>a</p>"), ("http://b/", "<p>b</p>")]);
        let items: Vec<Item> = ArcReader::new(&data[..], "t.arc", 1 << 20).collect();
        assert_eq!(items.len(), 3, "{items:?}");
        assert!(matches!(&items[0], Item::Skipped { reason, .. } if reason.contains("ARC file")));
        assert!(matches!(&items[1], Item::Document(d) if d.id == "http://a/"));
        assert!(matches!(&items[2], Item::Document(d) if d.url.as_deref() == Some("http://b/")));
    }

    #[test]
    fn v2_lines_and_a_record_cut_in_the_middle() {
        let data = arc(&[
            ("http://a/", &"<p>a</p>".repeat(50)),
            ("http://b/", "<p>b</p>"),
        ]);
        let text = String::from_utf8(data).unwrap();
        let a_start = text.find("http://a/ ").unwrap();
        let b_start = text.find("http://b/ ").unwrap();
        let cut = [
            &text[..a_start + (b_start - a_start) / 2],
            "\n",
            &text[b_start..],
        ]
        .concat();
        let mut r = ArcReader::new(cut.as_bytes(), "t.arc", 1 << 20);
        let reads: Vec<(Item, bool)> = std::iter::from_fn(|| r.next_read()).collect();
        assert_eq!(reads.len(), 3, "{reads:?}");
        assert!(matches!(&reads[1], (Item::Document(d), true) if d.id == "http://a/"));
        assert!(matches!(&reads[2], (Item::Document(d), false) if d.id == "http://b/"));
        // Version 2: ten fields, the length last.
        let http = "HTTP/1.1 200 OK\nContent-Type: text/html\n\n<p>two</p>";
        let v2 = format!(
            "http://c/ 1.2.3.4 20080101000000 text/html 200 SHA1 - - 0 x.arc {}\n{http}\n",
            http.len()
        );
        let items: Vec<Item> = ArcReader::new(v2.as_bytes(), "t.arc", 1 << 20).collect();
        assert!(
            matches!(&items[..], [Item::Document(d)] if d.id == "http://c/"),
            "{items:?}"
        );
    }

    #[test]
    fn truncated_and_garbage() {
        let data = arc(&[
            ("http://a/", "<p>a</p>"),
            ("http://b/", "<p>bbbbbbbbbb</p>"),
        ]);
        let mut r = ArcReader::new(&data[..data.len() - 6], "t.arc", 1 << 20);
        let reads: Vec<(Item, bool)> = std::iter::from_fn(|| r.next_read()).collect();
        assert!(matches!(&reads[2], (Item::Document(d), true) if d.id == "http://b/"));
        let items: Vec<Item> = ArcReader::new(&b"junk\n\x00\x01"[..], "g", 100).collect();
        assert!(
            items.iter().all(|i| matches!(i, Item::Error(_))),
            "{items:?}"
        );
    }
}
