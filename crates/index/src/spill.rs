//! Spill storage and the run file format for external sorting.
//!
//! A run is a sorted sequence of records, each written as its difference
//! from the one before ([`crate::run_record`]):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `NDUPRUN\0` |
//! | 4 | format version (little-endian `u32`, [`RUN_VERSION`]) |
//! | 4 | record kind (`1` band entry, `2` pair) |
//! | 8 | record count (`u64`) |
//! | varies | records, delta-coded varints |
//! | 8 | xxh3-64 of everything above |
//! | 8 | magic `NDUPEND\0` |
//!
//! Readers check magic, version, kind, length and checksum; the checksum is
//! known only once a run has been read to its end, so a consumer must drop
//! what it produced when the merge returns an error. Runs live in a
//! [`SpillStorage`]: a directory ([`DirStorage`](crate::DirStorage)) or memory
//! ([`MemoryStorage`](crate::MemoryStorage)).

use std::io::{self, Read, Write};

use xxhash_rust::xxh3::Xxh3;

use crate::error::{Error, ErrorKind, Result};
pub(crate) use crate::run_record::Record;
use crate::storage::SpillStorage;

/// Version written in, and required of, every run header.
pub const RUN_VERSION: u32 = 2;
const MAGIC: &[u8; 8] = b"NDUPRUN\0";
const END_MAGIC: &[u8; 8] = b"NDUPEND\0";

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// Writes sorted `records` as run `run`.
pub(crate) fn write_run<S: SpillStorage, R: Record>(
    storage: &mut S,
    run: u32,
    records: &[R],
) -> Result<()> {
    let mut w = storage.create(run)?;
    let mut hash = Xxh3::new();
    let mut buf = Vec::with_capacity(1 << 16);
    buf.extend_from_slice(MAGIC);
    buf.extend_from_slice(&RUN_VERSION.to_le_bytes());
    buf.extend_from_slice(&R::KIND.to_le_bytes());
    buf.extend_from_slice(&(records.len() as u64).to_le_bytes());
    let mut prev = R::default();
    for r in records {
        r.encode(&prev, &mut buf);
        prev = *r;
        if buf.len() >= 1 << 16 {
            hash.update(&buf);
            w.write_all(&buf)?;
            buf.clear();
        }
    }
    hash.update(&buf);
    buf.extend_from_slice(&hash.digest().to_le_bytes());
    buf.extend_from_slice(END_MAGIC);
    w.write_all(&buf)?;
    storage.finish(run, w)?;
    Ok(())
}

fn corrupt(what: &'static str) -> Error {
    Error::new(ErrorKind::Corrupt(what))
}

/// Reads `buf.len()` bytes, mapping a short read to `Corrupt("truncated")`.
fn read_exact(r: &mut impl Read, buf: &mut [u8]) -> Result<()> {
    r.read_exact(buf).map_err(|e| match e.kind() {
        io::ErrorKind::UnexpectedEof => corrupt("truncated"),
        _ => Error::from(e),
    })
}

/// Bytes a [`RunReader`] reads at a time.
const READ_CHUNK: usize = 1 << 16;

/// Streaming reader of one run; validates the header on open and the
/// checksum and footer after the last record. It decodes from a buffer of
/// its own and hashes the record bytes a block at a time.
pub(crate) struct RunReader<Rd: Read, R: Record> {
    inner: Rd,
    left: u64,
    hash: Xxh3,
    buf: Vec<u8>,
    /// Next unread byte of `buf`.
    pos: usize,
    /// End of the bytes read into `buf`.
    end: usize,
    /// Bytes of `buf` before this one are in `hash` (or not records).
    hashed: usize,
    /// The inner reader has no more bytes.
    eof: bool,
    prev: R,
}

impl<Rd: Read, R: Record> RunReader<Rd, R> {
    pub(crate) fn open(mut inner: Rd) -> Result<Self> {
        let mut head = [0u8; 24];
        read_exact(&mut inner, &mut head)?;
        if &head[..8] != MAGIC {
            return Err(corrupt("bad magic"));
        }
        if u32_at(&head, 8) != RUN_VERSION {
            return Err(corrupt("unknown version"));
        }
        if u32_at(&head, 12) != R::KIND {
            return Err(corrupt("unexpected record kind"));
        }
        let mut hash = Xxh3::new();
        hash.update(&head);
        Ok(Self {
            inner,
            left: u64_at(&head, 16),
            hash,
            buf: Vec::new(),
            pos: 0,
            end: 0,
            hashed: 0,
            eof: false,
            prev: R::default(),
        })
    }

    /// Makes at least `want` unread bytes available unless the input ends
    /// first; record bytes already consumed go into the hash.
    fn fill(&mut self, want: usize) -> Result<()> {
        if self.end - self.pos >= want || self.eof {
            return Ok(());
        }
        self.hash.update(&self.buf[self.hashed..self.pos]);
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        self.hashed = 0;
        if self.buf.len() < READ_CHUNK + want {
            self.buf.resize(READ_CHUNK + want, 0);
        }
        while self.end < want {
            let n = match self.inner.read(&mut self.buf[self.end..]) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            };
            if n == 0 {
                self.eof = true;
                break;
            }
            self.end += n;
        }
        Ok(())
    }

    /// The next record, `None` after the last one (footer verified).
    pub(crate) fn next_record(&mut self) -> Result<Option<R>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.fill(R::MAX_SIZE)?;
        let bytes = &self.buf[self.pos..self.end];
        let mut at = 0;
        let mut next = || {
            let b = *bytes.get(at).ok_or_else(|| corrupt("truncated"))?;
            at += 1;
            Ok(b)
        };
        let r = R::decode(&self.prev, &mut next)?;
        self.pos += at;
        self.prev = r;
        self.left -= 1;
        if self.left == 0 {
            self.check_footer()?;
        }
        Ok(Some(r))
    }

    fn check_footer(&mut self) -> Result<()> {
        self.hash.update(&self.buf[self.hashed..self.pos]);
        self.hashed = self.pos;
        self.fill(17)?;
        let foot = &self.buf[self.pos..self.end];
        if foot.len() < 16 {
            return Err(corrupt("truncated"));
        }
        if u64_at(foot, 0) != self.hash.digest() {
            return Err(corrupt("checksum mismatch"));
        }
        if &foot[8..16] != END_MAGIC {
            return Err(corrupt("bad end magic"));
        }
        if foot.len() > 16 {
            return Err(corrupt("trailing bytes"));
        }
        self.pos = self.end;
        self.hashed = self.end;
        Ok(())
    }

    /// Opens a run and checks an empty one completely.
    pub(crate) fn open_checked(inner: Rd) -> Result<Self> {
        let mut r = Self::open(inner)?;
        if r.left == 0 {
            r.check_footer()?;
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::MemoryStorage;

    fn read_all(bytes: Vec<u8>) -> Result<Vec<(u32, u32)>> {
        let mut r = RunReader::<_, (u32, u32)>::open_checked(io::Cursor::new(bytes))?;
        let mut out = Vec::new();
        while let Some(x) = r.next_record()? {
            out.push(x);
        }
        Ok(out)
    }

    fn stored(records: &[(u32, u32)]) -> Vec<u8> {
        let mut m = MemoryStorage::new();
        write_run(&mut m, 3, records).unwrap();
        m.run_mut(3).unwrap().clone()
    }

    #[test]
    fn roundtrip_and_layout() {
        let recs = [(1, 2), (1, 5), (7, 9)];
        let bytes = stored(&recs);
        // (1, 2), then (0, 3): the same first field, and (6, 9).
        assert_eq!(bytes.len(), 24 + 3 * 2 + 16);
        assert_eq!(&bytes[24..30], [1, 2, 0, 3, 6, 9]);
        assert_eq!(&bytes[..8], MAGIC);
        assert_eq!(read_all(bytes).unwrap(), recs);
        assert!(read_all(stored(&[])).unwrap().is_empty());
        let mut m = MemoryStorage::new();
        write_run(&mut m, 0, &[(1u32, 0xDEAD_BEEF_u64, 4u32)]).unwrap();
        let mut r = RunReader::<_, (u32, u64, u32)>::open_checked(m.open(0).unwrap()).unwrap();
        assert_eq!(r.next_record().unwrap(), Some((1, 0xDEAD_BEEF, 4)));
        assert_eq!(r.next_record().unwrap(), None);
    }

    fn corrupt_kind(bytes: Vec<u8>) -> &'static str {
        match read_all(bytes).unwrap_err().kind() {
            ErrorKind::Corrupt(w) => w,
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn detects_damage() {
        let good = stored(&[(1, 2), (3, 4)]);
        let mut b = good.clone();
        b[0] = b'X';
        assert_eq!(corrupt_kind(b), "bad magic");
        let mut b = good.clone();
        b[8] = 9;
        assert_eq!(corrupt_kind(b), "unknown version");
        let mut b = good.clone();
        b[12] = 1;
        assert_eq!(corrupt_kind(b), "unexpected record kind");
        let mut b = good.clone();
        b[26] ^= 1;
        assert_eq!(corrupt_kind(b), "checksum mismatch");
        let mut b = good.clone();
        b.truncate(b.len() - 3);
        assert_eq!(corrupt_kind(b), "truncated");
        let mut b = good.clone();
        b.push(0);
        assert_eq!(corrupt_kind(b), "trailing bytes");
        let mut b = good.clone();
        let n = b.len();
        b[n - 1] = 1;
        assert_eq!(corrupt_kind(b), "bad end magic");
        assert_eq!(corrupt_kind(Vec::new()), "truncated");
    }
}
