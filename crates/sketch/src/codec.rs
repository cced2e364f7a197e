//! The versioned byte format of signatures (and the helpers behind it).
//!
//! Layout, all integers little-endian:
//!
//! | offset | size | content                                             |
//! |--------|------|-----------------------------------------------------|
//! | 0      | 4    | magic `NDSG`                                        |
//! | 4      | 1    | format version, currently [`FORMAT_VERSION`] (1)    |
//! | 5      | 1    | method tag (see [`crate::MethodKind::tag`])         |
//! | 6      | 4    | body length `n` (u32)                               |
//! | 10     | n    | body: the method's parameters, then its values      |
//! | 10+n   | 8    | checksum: `xxh3_64` (seed 0) of bytes `0..10+n`     |
//!
//! Each signature type documents its body. Decoding checks the magic,
//! version, tag, lengths and checksum, and validates every count against the
//! bytes actually present, so garbage input yields an [`Error`], never a
//! panic or a huge allocation.

use xxhash_rust::xxh3::xxh3_64;

use crate::error::{Error, ErrorKind, Result};

/// Magic at the start of every encoded signature.
pub const MAGIC: [u8; 4] = *b"NDSG";
/// Current format version.
pub const FORMAT_VERSION: u8 = 1;
const HEADER: usize = 10;

/// Little-endian byte writer.
#[derive(Debug, Default)]
pub(crate) struct Writer {
    pub(crate) buf: Vec<u8>,
}

impl Writer {
    pub(crate) fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub(crate) fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    pub(crate) fn bytes(&mut self, v: &[u8]) {
        self.buf.extend_from_slice(v);
    }
    /// Writes a count as u32 (counts never exceed u32 in practice).
    pub(crate) fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX));
    }
}

/// Bounds-checked little-endian byte reader.
#[derive(Debug)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Reader { buf }
    }
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.buf.len() < n {
            return Err(ErrorKind::Truncated.into());
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }
    pub(crate) fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }
    pub(crate) fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    pub(crate) fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    pub(crate) fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    /// Reads a u32 count of items of `item_size` bytes each and checks that
    /// many bytes remain.
    pub(crate) fn count(&mut self, item_size: usize) -> Result<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(item_size) > self.buf.len() {
            return Err(ErrorKind::Malformed("count exceeds remaining bytes").into());
        }
        Ok(n)
    }
    pub(crate) fn finish(&self) -> Result<()> {
        if self.buf.is_empty() {
            Ok(())
        } else {
            Err(ErrorKind::Malformed("trailing bytes in body").into())
        }
    }
}

/// Wraps an encoded body into the framed format.
pub(crate) fn frame(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + body.len() + 8);
    out.extend_from_slice(&MAGIC);
    out.push(FORMAT_VERSION);
    out.push(tag);
    out.extend_from_slice(&u32::try_from(body.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(body);
    let sum = xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// Checks the frame and returns `(tag, body)`.
pub(crate) fn unframe(bytes: &[u8]) -> Result<(u8, &[u8])> {
    if bytes.len() < 4 {
        return Err(if MAGIC.starts_with(bytes) {
            ErrorKind::Truncated
        } else {
            ErrorKind::BadMagic
        }
        .into());
    }
    if bytes[..4] != MAGIC {
        return Err(ErrorKind::BadMagic.into());
    }
    let mut r = Reader::new(&bytes[4..]);
    let version = r.u8()?;
    if version != FORMAT_VERSION {
        return Err(ErrorKind::UnsupportedVersion(version).into());
    }
    let tag = r.u8()?;
    let n = r.u32()? as usize;
    let body = r.take(n)?;
    let sum = r.u64()?;
    r.finish()
        .map_err(|_| Error::new(ErrorKind::Malformed("trailing bytes after checksum")))?;
    if xxh3_64(&bytes[..HEADER + n]) != sum {
        return Err(ErrorKind::ChecksumMismatch.into());
    }
    Ok((tag, body))
}

/// Reads a bool byte (0 or 1).
pub(crate) fn read_bool(r: &mut Reader<'_>) -> Result<bool> {
    match r.u8()? {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(ErrorKind::Malformed("bad boolean").into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_round_trip_and_errors() {
        let f = frame(7, b"body");
        assert_eq!(unframe(&f).unwrap(), (7, &b"body"[..]));
        assert_eq!(unframe(b"ND").unwrap_err().kind(), &ErrorKind::Truncated);
        assert_eq!(
            unframe(b"XXXXXXXXXXXXXXXXXXXX").unwrap_err().kind(),
            &ErrorKind::BadMagic
        );
        let mut bad = f.clone();
        bad[11] ^= 1;
        assert_eq!(
            unframe(&bad).unwrap_err().kind(),
            &ErrorKind::ChecksumMismatch
        );
        let mut v2 = f.clone();
        v2[4] = 2;
        assert_eq!(
            unframe(&v2).unwrap_err().kind(),
            &ErrorKind::UnsupportedVersion(2)
        );
        assert_eq!(
            unframe(&f[..f.len() - 1]).unwrap_err().kind(),
            &ErrorKind::Truncated
        );
        let mut long = f.clone();
        long.push(0);
        assert!(unframe(&long).is_err());
    }

    #[test]
    fn reader_counts_are_checked() {
        let mut w = Writer::default();
        w.u32(1000);
        w.u64(5);
        let mut r = Reader::new(&w.buf);
        assert!(r.count(8).is_err());
    }
}
