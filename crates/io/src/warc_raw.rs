//! Raw WARC records, byte for byte, for writing a subset of a crawl back out
//! (`neardup dedup --kept`): the records are copied, never re-encoded.

use std::io::{BufRead, Read, Write};

/// One WARC record as it was stored: header block, content block and the
/// two line breaks that end it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRecord {
    /// `WARC-Type`, lower-cased.
    pub warc_type: String,
    /// `WARC-Target-URI`, if any.
    pub target_uri: Option<String>,
    /// The whole record.
    pub bytes: Vec<u8>,
}

/// Iterates over the raw records of a WARC stream (already gunzipped). Stops
/// at the end of the stream or at the first record it cannot frame (the
/// [`crate::WarcReader`] reports those).
pub struct RawRecords<R> {
    reader: R,
    limit: u64,
}

impl<R: BufRead> RawRecords<R> {
    /// Records of `reader`; records larger than `limit` bytes end the
    /// iteration.
    pub fn new(reader: R, limit: u64) -> RawRecords<R> {
        RawRecords { reader, limit }
    }

    fn read_record(&mut self) -> Option<RawRecord> {
        let mut bytes = Vec::new();
        // Skip blank lines, then expect the version line.
        loop {
            let mut line = Vec::new();
            let n = (&mut self.reader)
                .take(64 * 1024)
                .read_until(b'\n', &mut line)
                .ok()?;
            if n == 0 {
                return None;
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if !line.starts_with(b"WARC/") {
                return None;
            }
            bytes.extend_from_slice(&line);
            break;
        }
        let (mut len, mut warc_type, mut target_uri) = (None, String::new(), None);
        loop {
            let mut line = Vec::new();
            let n = (&mut self.reader)
                .take(64 * 1024)
                .read_until(b'\n', &mut line)
                .ok()?;
            if n == 0 {
                return None;
            }
            bytes.extend_from_slice(&line);
            let text = String::from_utf8_lossy(&line);
            let text = text.trim_end();
            if text.is_empty() {
                break;
            }
            if let Some((k, v)) = text.split_once(':') {
                let (k, v) = (k.trim(), v.trim());
                if k.eq_ignore_ascii_case("content-length") {
                    len = v.parse::<u64>().ok();
                } else if k.eq_ignore_ascii_case("warc-type") {
                    warc_type = v.to_ascii_lowercase();
                } else if k.eq_ignore_ascii_case("warc-target-uri") {
                    target_uri = Some(v.trim_matches(|c| c == '<' || c == '>').to_string());
                }
            }
        }
        let len = len.filter(|&l| l <= self.limit)?;
        let start = bytes.len();
        (&mut self.reader).take(len).read_to_end(&mut bytes).ok()?;
        if (bytes.len() - start) as u64 != len {
            return None;
        }
        // The record ends with CRLF CRLF; copy it when present.
        let buf = self.reader.fill_buf().ok()?;
        let end = buf
            .iter()
            .take(4)
            .take_while(|&&c| c == b'\r' || c == b'\n')
            .count();
        bytes.extend_from_slice(&buf[..end]);
        self.reader.consume(end);
        Some(RawRecord {
            warc_type,
            target_uri,
            bytes,
        })
    }
}

impl<R: BufRead> Iterator for RawRecords<R> {
    type Item = RawRecord;

    fn next(&mut self) -> Option<RawRecord> {
        self.read_record()
    }
}

/// Writes WARC records, each as its own gzip member when `gzip` is set (the
/// layout crawlers and WARC tools expect for `.warc.gz`).
pub struct WarcWriter<W: Write> {
    out: W,
    gzip: bool,
}

impl<W: Write> WarcWriter<W> {
    /// A writer to `out`.
    pub fn new(out: W, gzip: bool) -> WarcWriter<W> {
        WarcWriter { out, gzip }
    }

    /// Writes one record.
    pub fn write(&mut self, record: &RawRecord) -> std::io::Result<()> {
        if self.gzip {
            let mut gz =
                flate2::write::GzEncoder::new(&mut self.out, flate2::Compression::default());
            gz.write_all(&record.bytes)?;
            gz.finish()?;
            Ok(())
        } else {
            self.out.write_all(&record.bytes)
        }
    }

    /// Flushes and returns the inner writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Item, WarcReader};

    fn record(uri: &str, body: &str) -> Vec<u8> {
        let http = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n{body}");
        let mut r = format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: {uri}\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n",
            http.len()
        )
        .into_bytes();
        r.extend_from_slice(http.as_bytes());
        r.extend_from_slice(b"\r\n\r\n");
        r
    }

    #[test]
    fn round_trips_records_byte_for_byte() {
        let (a, b) = (
            record("http://a/", "<p>a</p>"),
            record("http://b/", "<p>b</p>"),
        );
        let stream = [a.clone(), b.clone()].concat();
        let recs: Vec<RawRecord> = RawRecords::new(&stream[..], 1 << 20).collect();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].bytes, a);
        assert_eq!(recs[1].target_uri.as_deref(), Some("http://b/"));
        assert_eq!(recs[1].warc_type, "response");
        for gzip in [false, true] {
            let mut w = WarcWriter::new(Vec::new(), gzip);
            w.write(&recs[1]).unwrap();
            let out = w.finish().unwrap();
            let plain = if gzip {
                let mut d = Vec::new();
                flate2::read::MultiGzDecoder::new(&out[..])
                    .read_to_end(&mut d)
                    .unwrap();
                d
            } else {
                out
            };
            let items: Vec<Item> = WarcReader::new(&plain[..], "x", 1 << 20).collect();
            assert!(matches!(&items[..], [Item::Document(d)] if d.id == "http://b/"));
        }
    }

    #[test]
    fn stops_at_garbage_and_truncation() {
        let a = record("http://a/", "<p>a</p>");
        assert_eq!(RawRecords::new(&a[..a.len() - 10], 1 << 20).count(), 0);
        assert_eq!(RawRecords::new(&b"junk\n"[..], 1 << 20).count(), 0);
    }
}
