//! Reading whole files and streams, transparently decompressing gzip (all
//! members) and zstd (all frames), within a size limit.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use crate::counting::{CountingReader, ReadCounter};
use crate::error::DocErrorKind;
use crate::gzip_members::GzipMembers;

/// The two bytes every gzip member starts with.
pub(crate) const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// The four bytes every zstd frame starts with.
pub(crate) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// Buffer size of decompressed streams.
const STREAM_BUFFER: usize = 256 * 1024;

/// `reader`, decompressed when its first bytes are a gzip or zstd magic.
pub(crate) fn decoded<R: BufRead + Send + 'static>(
    mut reader: R,
) -> std::io::Result<Box<dyn BufRead + Send>> {
    let head = reader.fill_buf()?;
    if head.starts_with(&GZIP_MAGIC) {
        // The decoder reads `reader`'s own buffer (no second one between).
        Ok(Box::new(BufReader::with_capacity(
            STREAM_BUFFER,
            flate2::bufread::MultiGzDecoder::new(reader),
        )))
    } else if head.starts_with(&ZSTD_MAGIC) {
        Ok(Box::new(BufReader::with_capacity(
            STREAM_BUFFER,
            zstd::stream::read::Decoder::with_buffer(reader)?,
        )))
    } else {
        Ok(Box::new(reader))
    }
}

/// `reader` as [`decoded`] gives it, gzip members read by [`GzipMembers`]:
/// for archives (one member per record), a member cut short is cut where
/// the next member starts, and the records after it are read.
pub(crate) fn decoded_archive<R: BufRead + Send + 'static>(
    mut reader: R,
) -> std::io::Result<Box<dyn BufRead + Send>> {
    if reader.fill_buf()?.starts_with(&GZIP_MAGIC) {
        Ok(Box::new(GzipMembers::new(reader, archive_record_start)))
    } else {
        decoded(reader)
    }
}

/// Whether decoded bytes start a WARC or an ARC record.
pub(crate) fn archive_record_start(bytes: &[u8]) -> bool {
    crate::warc_resync::starts_record(bytes) || crate::arc::starts_record(bytes)
}

/// Reads a file, gunzipping it if it starts with the gzip magic, and fails
/// with [`DocErrorKind::TooLarge`] past `limit` decompressed bytes.
pub(crate) fn read_file(
    path: &Path,
    limit: u64,
    counter: Option<&ReadCounter>,
) -> Result<Vec<u8>, DocErrorKind> {
    let read_error = |e: std::io::Error| DocErrorKind::Read(e.to_string());
    let mut file = File::open(path).map_err(read_error)?;
    let size = file.metadata().map_or(0, |m| m.len());
    let mut head = [0u8; 4];
    let n = read_full(&mut file, &mut head).map_err(read_error)?;
    if let Some(c) = counter {
        c.add(n);
    }
    let prefix = &head[..n];
    let counted = |file| BufReader::new(CountingReader::new(file, counter.cloned()));
    if prefix.starts_with(&GZIP_MAGIC) {
        read_limited(
            MultiGzDecoder::new(prefix.chain(counted(file))),
            limit,
            true,
        )
    } else if prefix == ZSTD_MAGIC {
        let decoder = zstd::stream::read::Decoder::new(prefix.chain(counted(file)))
            .map_err(|e| DocErrorKind::Compression(e.to_string()))?;
        read_limited(decoder, limit, true)
    } else {
        // A plain file is read into one buffer of its size, not one grown
        // (and copied) a doubling at a time, and straight from the file:
        // a reader of its own would have the buffer zeroed first.
        let capacity = usize::try_from(size.min(limit.saturating_add(1))).unwrap_or(0);
        let mut out = Vec::with_capacity(capacity);
        out.extend_from_slice(prefix);
        let read = read_into(&mut file, &mut out, limit, false);
        if let Some(c) = counter {
            c.add(out.len() - n);
        }
        read.map(|()| out)
    }
}

/// Reads everything from `r`, up to `limit` bytes.
pub(crate) fn read_limited(r: impl Read, limit: u64, gz: bool) -> Result<Vec<u8>, DocErrorKind> {
    let mut out = Vec::new();
    read_into(r, &mut out, limit, gz).map(|()| out)
}

/// Reads everything from `r` after what `out` holds, up to `limit` bytes in
/// all; past them, [`DocErrorKind::TooLarge`].
fn read_into(r: impl Read, out: &mut Vec<u8>, limit: u64, gz: bool) -> Result<(), DocErrorKind> {
    let rest = limit.saturating_add(1).saturating_sub(out.len() as u64);
    match r.take(rest).read_to_end(out) {
        Ok(_) if out.len() as u64 > limit => Err(DocErrorKind::TooLarge {
            size: out.len() as u64,
            limit,
        }),
        Ok(_) => Ok(()),
        Err(e) if gz => Err(DocErrorKind::Compression(format!(
            "{e} (after {} decompressed bytes)",
            out.len()
        ))),
        Err(e) => Err(DocErrorKind::Read(e.to_string())),
    }
}

fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use neardup_testkit::TempDir;
    use std::io::Write;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn plain_and_gzip() {
        let dir = TempDir::new("plain-gzip");
        let p = dir.write("a.html", b"<p>hi</p>");
        assert_eq!(read_file(&p, 100, None).unwrap(), b"<p>hi</p>");
        let p = dir.write("a.html.gz", gz(b"<p>hi</p>"));
        assert_eq!(read_file(&p, 100, None).unwrap(), b"<p>hi</p>");
    }

    #[test]
    fn zstd_files_and_streams() {
        let data = zstd::stream::encode_all(&b"<p>zst</p>"[..], 3).unwrap();
        let dir = TempDir::new("zstd");
        let p = dir.write("a.html.zst", &data);
        assert_eq!(read_file(&p, 100, None).unwrap(), b"<p>zst</p>");
        let two = [data.clone(), data].concat();
        let mut out = String::new();
        decoded(std::io::Cursor::new(two))
            .unwrap()
            .read_to_string(&mut out)
            .unwrap();
        assert_eq!(out, "<p>zst</p><p>zst</p>");
    }

    #[test]
    fn truncated_gzip_is_a_compression_error() {
        let data = gz(&b"<p>hello world</p>".repeat(1000));
        let dir = TempDir::new("truncated-gzip");
        let p = dir.write("t.html.gz", &data[..data.len() / 2]);
        assert!(matches!(
            read_file(&p, 1 << 20, None),
            Err(DocErrorKind::Compression(_))
        ));
    }

    #[test]
    fn limit_is_enforced() {
        let dir = TempDir::new("limit");
        let p = dir.write("big.html", [b'a'; 1000]);
        assert_eq!(
            read_file(&p, 999, None),
            Err(DocErrorKind::TooLarge {
                size: 1000,
                limit: 999
            })
        );
        assert_eq!(read_file(&p, 1000, None).unwrap().len(), 1000);
    }

    #[test]
    fn the_counter_gets_the_bytes_of_the_file() {
        let dir = TempDir::new("counted");
        let page = b"<p>counted</p>".repeat(500);
        for (name, data) in [("c.html", page.clone()), ("c.html.gz", gz(&page))] {
            let counter = ReadCounter::new();
            let p = dir.write(name, &data);
            assert_eq!(read_file(&p, 1 << 20, Some(&counter)).unwrap(), page);
            assert_eq!(counter.get(), data.len() as u64, "{name}");
        }
        // Past the limit, what was read is counted all the same.
        let counter = ReadCounter::new();
        let p = dir.write("big.html", &page);
        assert!(read_file(&p, 100, Some(&counter)).is_err());
        assert_eq!(counter.get(), 101);
    }

    #[test]
    fn empty_and_one_byte_files() {
        let dir = TempDir::new("tiny");
        assert_eq!(read_file(&dir.write("e.html", b""), 10, None).unwrap(), b"");
        assert_eq!(
            read_file(&dir.write("o.html", b"\x1f"), 10, None).unwrap(),
            b"\x1f"
        );
    }
}
