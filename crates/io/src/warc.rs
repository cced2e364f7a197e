//! A streaming WARC reader: one record at a time, `response` records with an
//! HTML payload become documents, other records are skipped and counted, and
//! a malformed or truncated record is reported without losing the records
//! before it (and, for malformed headers, the records after it).
//!
//! Framing is checked: a record must be followed by its line breaks and then
//! the next `WARC/` line or the end. A record cut short in the middle of a
//! file (its `Content-Length` runs into the next record) is cut where the next
//! record starts, kept as a truncated document, and the next record is read;
//! a record cut by the end of the file keeps the bytes it has, also flagged
//! as truncated. A `.warc.gz` member cut short reads as a plain record cut
//! short (`gzip_members.rs`), and so goes through the same rule.

use std::io::{BufRead, Read};

use crate::document::Item;
use crate::error::{DocError, DocErrorKind};
use crate::gzip_members::is_member_cut;
use crate::record::{classify, RecordHead};
use crate::rewind::Rewind;
use crate::warc_resync::{next_record_start, record_start_in_line, records_filling_the_end};

/// The longest header line accepted; binary garbage has none.
const MAX_LINE: usize = 64 * 1024;
/// The most header lines a record may have.
const MAX_HEADERS: usize = 1024;
/// The most line-break bytes accepted between two records.
const MAX_GAP: usize = 64;
/// How many bytes past a record cut short are read to recognize the header
/// of the next record when the cut fell inside it.
const RESYNC_PEEK: usize = 8 * 1024;

/// One record read: its item, whether its content was cut short, and (when
/// asked for) its bytes as stored.
pub(crate) struct Read1 {
    pub(crate) item: Item,
    pub(crate) truncated: bool,
    pub(crate) raw: Option<Vec<u8>>,
}

/// Reads the records of one WARC stream (already gunzipped: a `.warc.gz`
/// with one member per record is read through a multi-member decoder).
pub struct WarcReader<R> {
    reader: Rewind<R>,
    name: String,
    limit: u64,
    record: u64,
    done: bool,
    keep_raw: bool,
    raw: Vec<u8>,
    /// A stream error met after a whole record, reported next.
    pending: Option<std::io::Error>,
}

impl<R: BufRead> WarcReader<R> {
    /// A reader over `reader`; `name` (the file's path) names records that
    /// have no target URI; records larger than `limit` bytes are reported as
    /// too large and skipped.
    pub fn new(reader: R, name: impl Into<String>, limit: u64) -> WarcReader<R> {
        WarcReader {
            reader: Rewind::new(reader),
            name: name.into(),
            limit,
            record: 0,
            done: false,
            keep_raw: false,
            raw: Vec::new(),
            pending: None,
        }
    }

    /// Reports `error` (met on the stream before the first record) first.
    pub(crate) fn after_error(mut self, error: Option<std::io::Error>) -> WarcReader<R> {
        self.pending = error;
        self
    }

    /// Keeps each record's stored bytes (for copying records out).
    pub(crate) fn keeping_raw(mut self) -> WarcReader<R> {
        self.keep_raw = true;
        self
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
    fn line(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        let mut buf = Vec::new();
        let n = (&mut self.reader)
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut buf)?;
        if n == 0 {
            return Ok(None);
        }
        if self.keep_raw {
            self.raw.extend_from_slice(&buf);
        }
        Ok(Some(buf))
    }

    /// Skips to the next line that starts a record and gives it back to
    /// the stream; `false` at the end of the stream.
    fn resync(&mut self) -> std::io::Result<bool> {
        loop {
            match self.line()? {
                None => return Ok(false),
                Some(l) => {
                    if let Some(p) = record_start_in_line(&l) {
                        self.reader.unread(&l[p..]);
                        return Ok(true);
                    }
                }
            }
        }
    }

    /// The next record, or `None` at the end of the stream.
    pub(crate) fn next_read(&mut self) -> Option<Read1> {
        if self.done {
            return None;
        }
        self.raw.clear();
        if let Some(e) = self.pending.take() {
            self.record += 1;
            return self.fail(None, e);
        }
        let r = self.next_item();
        if r.is_none() {
            self.done = true;
        }
        r
    }

    fn plain(&mut self, item: Item) -> Option<Read1> {
        Some(Read1 {
            item,
            truncated: false,
            raw: None,
        })
    }

    fn next_item(&mut self) -> Option<Read1> {
        // Find the version line, skipping blank lines between records.
        let first = loop {
            match self.line() {
                Ok(None) => return None,
                Ok(Some(l)) if l.iter().all(u8::is_ascii_whitespace) => self.raw.clear(),
                Ok(Some(l)) => break l,
                Err(e) => {
                    // A gzip member cut before any of its record was decoded.
                    self.record += u64::from(is_member_cut(&e));
                    return self.fail(None, e);
                }
            }
        };
        self.record += 1;
        // A line cut short and glued to the next record's version line (a
        // record cut inside its own version line reads `WARC/WARC/1.0`).
        let glued = record_start_in_line(&first).is_some_and(|p| p > 0);
        if !first.starts_with(b"WARC/") || glued {
            if let Some(p) = record_start_in_line(&first).filter(|&p| p > 0) {
                self.reader.unread(&first[p..]);
            }
            let err = self.error(
                None,
                DocErrorKind::Warc(format!(
                    "expected a WARC version line, found {:?}",
                    String::from_utf8_lossy(&first)
                        .chars()
                        .take(40)
                        .collect::<String>()
                )),
            );
            // Drop garbage up to the next record and continue from there.
            return match self.resync() {
                Ok(true) => self.plain(err),
                Ok(false) => {
                    self.done = true;
                    self.plain(err)
                }
                Err(e) => self.fail(None, e).or(Some(Read1 {
                    item: err,
                    truncated: false,
                    raw: None,
                })),
            };
        }
        self.read_record()
    }

    fn read_record(&mut self) -> Option<Read1> {
        let mut headers: Vec<(String, String)> = Vec::new();
        loop {
            match self.line() {
                Ok(None) => {
                    self.done = true;
                    let err = self.error(
                        target(&headers),
                        DocErrorKind::Warc("truncated record header".into()),
                    );
                    return self.plain(err);
                }
                Ok(Some(l)) if l.iter().all(|&c| c == b'\r' || c == b'\n') => break,
                Ok(Some(l)) => {
                    if let Some(p) = record_start_in_line(&l) {
                        // The header was cut and the next record follows:
                        // this record is lost, the next one is read.
                        self.reader.unread(&l[p..]);
                        let err = self.error(
                            target(&headers),
                            DocErrorKind::Warc(
                                "truncated record header (the next record starts inside it)".into(),
                            ),
                        );
                        return self.plain(err);
                    }
                    if headers.len() >= MAX_HEADERS {
                        self.done = true;
                        let err = self.error(
                            target(&headers),
                            DocErrorKind::Warc("too many header lines".into()),
                        );
                        return self.plain(err);
                    }
                    let l = String::from_utf8_lossy(&l);
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
            if !matches!(self.resync(), Ok(true)) {
                self.done = true;
            }
            return self.plain(err);
        };
        if len > self.limit {
            let skipped = std::io::copy(&mut (&mut self.reader).take(len), &mut std::io::sink());
            if !matches!(skipped, Ok(n) if n == len) {
                self.done = true;
            }
            let err = self.error(
                id,
                DocErrorKind::TooLarge {
                    size: len,
                    limit: self.limit,
                },
            );
            return self.plain(err);
        }
        let mut block = Vec::with_capacity(len.min(16 << 20) as usize);
        let mut truncated = false;
        match (&mut self.reader).take(len).read_to_end(&mut block) {
            Ok(n) if n as u64 == len => {}
            Ok(_) => truncated = true,
            Err(e) => {
                // The stream is broken (corrupt gzip data with no member
                // after it): keep what was decoded, read no further. After
                // a cut gzip member the stream goes on.
                self.done = !is_member_cut(&e);
                if block.is_empty() {
                    let err = self.error(
                        id,
                        DocErrorKind::Compression(format!("{e} (record content cut short)")),
                    );
                    return self.plain(err);
                }
                truncated = true;
            }
        }
        let mut gap = Vec::new();
        let framed = truncated || self.end_of_record(&mut gap);
        // A record that runs into the next one is cut there (junk after a
        // whole record is left to the next read, which reports it). When
        // the framing looks whole, a cut is still certain where the content
        // starts with a record's header, or ends with whole records.
        let cut = if !framed || truncated {
            // The next record may start in the last bytes read (its header
            // cut by the claimed length): the bytes still in the stream
            // complete it.
            let n = block.len();
            block.extend_from_slice(&gap);
            if let Ok(ahead) = self.reader.peek(RESYNC_PEEK) {
                block.extend_from_slice(ahead);
            }
            let p = next_record_start(&block).filter(|&p| p < n + gap.len());
            block.truncate(n + gap.len());
            p
        } else {
            let p = next_record_start(&block)
                .filter(|&p| p == 0)
                .or_else(|| records_filling_the_end(&block));
            if p.is_some() {
                block.extend_from_slice(&gap);
            }
            p
        };
        if let Some(p) = cut {
            self.reader.unread(&block[p..]);
            block.truncate(p);
            // The line breaks before the next record are not content.
            while block.last().is_some_and(|&c| c == b'\r' || c == b'\n') {
                block.pop();
            }
            self.done = false;
            truncated = true;
        } else if !framed || truncated {
            block.truncate(block.len() - gap.len());
        }
        if self.keep_raw {
            self.raw.extend_from_slice(&block);
            self.raw.extend_from_slice(b"\r\n\r\n");
        }
        let raw = self.keep_raw.then(|| std::mem::take(&mut self.raw));
        let kind = header(&headers, "warc-type")
            .unwrap_or("")
            .to_ascii_lowercase();
        let head = RecordHead {
            kind: &kind,
            content_type: header(&headers, "content-type"),
            uri: id,
            name: self.fallback_id(),
        };
        Some(Read1 {
            item: classify(head, block, self.limit),
            truncated,
            raw,
        })
    }

    /// Consumes the line breaks after a record's content (kept in `gap`);
    /// whether they are followed by the end of the stream or the next
    /// record. A stream error here ends the reading (the record itself is
    /// whole).
    fn end_of_record(&mut self, gap_bytes: &mut Vec<u8>) -> bool {
        let mut gap = 0;
        loop {
            let buf = match self.reader.fill_buf() {
                Ok(b) => b,
                Err(e) => {
                    self.stream_error(e);
                    return true;
                }
            };
            if buf.is_empty() {
                return true;
            }
            let k = buf
                .iter()
                .take(MAX_GAP - gap)
                .take_while(|&&c| c == b'\r' || c == b'\n')
                .count();
            let all = k == buf.len();
            gap_bytes.extend_from_slice(&buf[..k]);
            self.reader.consume(k);
            gap += k;
            if !all || gap >= MAX_GAP {
                break;
            }
        }
        match self.reader.peek(5) {
            Ok(next) => next.is_empty() || next == b"WARC/",
            Err(e) => {
                self.stream_error(e);
                true
            }
        }
    }

    /// A stream error after a whole record: the end of a file cut inside a
    /// gzip trailer ends the reading quietly (the record is whole, as warcio
    /// reads it); corrupt data, a gzip member cut before any of its record
    /// was decoded, or one cut by the end of the file after its first bytes
    /// is reported as the next item.
    fn stream_error(&mut self, e: std::io::Error) {
        if e.kind() == std::io::ErrorKind::UnexpectedEof && !self.reader.has_unread() {
            self.done = true;
        } else {
            self.pending = Some(e);
        }
    }

    /// An error item for a stream error; the reading ends, except after a
    /// gzip member cut short (the next member is read).
    fn fail(&mut self, id: Option<String>, e: std::io::Error) -> Option<Read1> {
        self.done = !is_member_cut(&e);
        let err = self.error(id, DocErrorKind::Compression(e.to_string()));
        self.plain(err)
    }
}

impl<R: BufRead> Iterator for WarcReader<R> {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        self.next_read().map(|r| r.item)
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
    use crate::document::Content;

    fn response(uri: &str, body: &str) -> Vec<u8> {
        let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}");
        let head = format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\n\
             Content-Type: application/http\r\nContent-Length: {}\r\n\r\n",
            http.len()
        );
        [head.as_bytes(), http.as_bytes(), b"\r\n\r\n"].concat()
    }

    fn reads(bytes: &[u8]) -> Vec<(Item, bool)> {
        let mut r = WarcReader::new(bytes, "t.warc", 1 << 20);
        std::iter::from_fn(|| r.next_read().map(|r| (r.item, r.truncated))).collect()
    }

    #[test]
    fn records_cut_short_keep_their_bytes_and_are_flagged() {
        // Cut by the end of the stream.
        let a = response("http://a/", &"<p>a</p>".repeat(200));
        let got = reads(&a[..a.len() - 100]);
        assert!(matches!(&got[..], [(Item::Document(d), true)] if d.id == "http://a/"));
        // Cut in the middle: cut where the next record starts, which is read.
        let b = response("http://b/", "<p>b</p>");
        let w = [&a[..a.len() / 2], b"\r\n", &b[..]].concat();
        match &reads(&w)[..] {
            [(Item::Document(x), true), (Item::Document(y), false)] => {
                let Content::Html { bytes, .. } = &x.content else {
                    panic!()
                };
                assert!(
                    bytes.ends_with(b"<p>a</p><p"),
                    "{:?}",
                    &bytes[bytes.len() - 20..]
                );
                assert_eq!(y.id, "http://b/");
            }
            other => panic!("{other:?}"),
        }
        // Cut inside its WARC header: an error.
        let got = reads(&b[..40]);
        assert!(
            matches!(&got[..], [(Item::Error(e), false)] if e.to_string().contains("truncated"))
        );
    }
}
