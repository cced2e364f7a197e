//! The stored form of one document: a small versioned binary record.
//!
//! Layout (little endian): record version `u8` (1), insertion sequence
//! `u64`, stored-at time in milliseconds since the Unix epoch `u64`, main
//! text length `u32`, flags `u8` (bit 0 URL, bit 1 signature, bit 2
//! duplicate, bit 3 main text, bit 4 the original's sequence number), then
//! the URL, the signature bytes
//! ([`Signature::to_bytes`](neardup::sketch::Signature::to_bytes)), the
//! original's id (with the similarity to it as `f64`, then its sequence
//! number `u64` when bit 4 is set) and the main text, each as `u32` length
//! and bytes when its flag is set. The main text is kept for originals when
//! exact verification is on, compressed with zstd when bit 5 is set (the
//! frame's content size is the text length recorded, which bounds the
//! decompression). With a verification sketch
//! ([`neardup::dedup::VerifySketch`]) an original keeps the sketch's bytes
//! instead of its text (bit 6, after the text's place), and, when the
//! engine allows it ([`neardup::dedup::OnlineCore::keeps_signature`]), its
//! band keys instead of its signature (bit 7, last: the 16-byte signature
//! key, then one `u32` a band, as one length-prefixed field; bit 1 is then
//! clear). Records written before bit 4 existed name their original by id
//! only; before bit 5, texts are plain; a binary older than bit 7 refuses
//! a record that has it (unknown flags).

use crate::error::Error;

const RECORD_VERSION: u8 = 1;

/// A reusable zstd context for the texts of records: level 1, a third of
/// the size of plain text for a few microseconds a record.
pub(crate) struct Packer(Option<zstd::bulk::Compressor<'static>>);

impl Packer {
    pub fn new() -> Packer {
        Packer(zstd::bulk::Compressor::new(1).ok())
    }

    fn pack(&mut self, text: &[u8]) -> Vec<u8> {
        let packed = match &mut self.0 {
            Some(c) => c.compress(text),
            None => zstd::bulk::compress(text, 1),
        };
        packed.unwrap_or_default()
    }
}

/// A main text compressed for its record: made by the caller's thread
/// (many at once), so that the single writer only copies it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PackedText(Vec<u8>);

impl PackedText {
    /// `text` compressed with `packer`.
    pub fn new(text: &str, packer: &mut Packer) -> PackedText {
        PackedText(packer.pack(text.as_bytes()))
    }
}

/// What [`Record::decode_with`] does with the text.
pub(crate) enum Text<'a> {
    /// Decompress it with this context.
    Unpack(&'a mut Unpacker),
    /// Leave it out.
    Skip,
}

/// A reusable zstd context for reading texts (made at first use).
#[derive(Default)]
pub(crate) struct Unpacker(Option<zstd::bulk::Decompressor<'static>>);

impl Unpacker {
    /// The text of at most `len` bytes in `packed`.
    fn unpack(&mut self, packed: &[u8], len: usize) -> Result<Vec<u8>, Error> {
        let bad = |e: std::io::Error| Error::corrupt(format!("a record's text: {e}"));
        if self.0.is_none() {
            self.0 = Some(zstd::bulk::Decompressor::new().map_err(bad)?);
        }
        match &mut self.0 {
            Some(d) => d.decompress(packed, len).map_err(bad),
            None => Err(Error::corrupt("no decompression context")),
        }
    }
}

impl std::fmt::Debug for Packer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Packer")
    }
}

/// One stored document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Record {
    pub seq: u64,
    pub stored_at_ms: u64,
    pub text_len: u32,
    pub url: Option<String>,
    pub signature: Option<Vec<u8>>,
    /// The original's id and the similarity to it.
    pub duplicate_of: Option<(String, f64)>,
    /// The original's sequence number (the version of it that was
    /// matched), in records written since it was recorded.
    pub original_seq: Option<u64>,
    /// The main text (originals, with exact verification).
    pub text: Option<String>,
    /// The verification sketch's bytes (originals, with a sketch).
    pub sketch: Option<Vec<u8>>,
    /// The signature's key and its folded band keys, kept instead of the
    /// signature when the engine allows it.
    pub band_keys: Option<(u128, Vec<u32>)>,
}

impl Record {
    /// A record for tests: stored at `n`, `n` as its signature bytes, no
    /// text.
    #[cfg(test)]
    pub(crate) fn sample(n: u64) -> Record {
        Record {
            seq: 0,
            stored_at_ms: n,
            text_len: 0,
            url: None,
            signature: Some(n.to_le_bytes().to_vec()),
            duplicate_of: None,
            original_seq: None,
            text: None,
            sketch: None,
            band_keys: None,
        }
    }

    /// Whether the document has text (a signature or band keys).
    pub fn has_text(&self) -> bool {
        self.signature.is_some() || self.band_keys.is_some()
    }

    /// The key of the signature ([`neardup::dedup::signature_key`] of its
    /// bytes, or the one kept with the band keys); `None` without text.
    pub fn key(&self) -> Option<u128> {
        match (&self.signature, &self.band_keys) {
            (Some(b), _) => Some(neardup::dedup::signature_key(b)),
            (None, Some((key, _))) => Some(*key),
            (None, None) => None,
        }
    }

    /// The record's bytes, its text compressed with a fresh context.
    #[cfg(test)]
    pub fn encode(&self) -> Vec<u8> {
        let packed = self
            .text
            .as_ref()
            .map(|t| PackedText::new(t, &mut Packer::new()));
        self.encode_packed(packed.as_ref())
    }

    /// The record's bytes with `text` as its text (`self.text` is not
    /// read: a record to write carries its text compressed).
    pub fn encode_packed(&self, text: Option<&PackedText>) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            32 + self.url.as_ref().map_or(0, |u| u.len() + 4)
                + self.signature.as_ref().map_or(0, |s| s.len() + 4)
                + self.duplicate_of.as_ref().map_or(0, |(d, _)| d.len() + 12)
                + text.map_or(0, |t| t.0.len() + 4)
                + self.sketch.as_ref().map_or(0, |s| s.len() + 4)
                + self.band_keys.as_ref().map_or(0, |(_, k)| 20 + 4 * k.len()),
        );
        out.push(RECORD_VERSION);
        out.extend_from_slice(&self.seq.to_le_bytes());
        out.extend_from_slice(&self.stored_at_ms.to_le_bytes());
        out.extend_from_slice(&self.text_len.to_le_bytes());
        let flags = u8::from(self.url.is_some())
            | (u8::from(self.signature.is_some()) << 1)
            | (u8::from(self.duplicate_of.is_some()) << 2)
            | (u8::from(text.is_some()) << 3)
            | (u8::from(self.duplicate_of.is_some() && self.original_seq.is_some()) << 4)
            | (u8::from(text.is_some()) << 5)
            | (u8::from(self.sketch.is_some()) << 6)
            | (u8::from(self.band_keys.is_some()) << 7);
        out.push(flags);
        if let Some(u) = &self.url {
            put_bytes(&mut out, u.as_bytes());
        }
        if let Some(s) = &self.signature {
            put_bytes(&mut out, s);
        }
        if let Some((d, sim)) = &self.duplicate_of {
            put_bytes(&mut out, d.as_bytes());
            out.extend_from_slice(&sim.to_le_bytes());
            if let Some(seq) = self.original_seq {
                out.extend_from_slice(&seq.to_le_bytes());
            }
        }
        if let Some(t) = text {
            put_bytes(&mut out, &t.0);
        }
        if let Some(s) = &self.sketch {
            put_bytes(&mut out, s);
        }
        if let Some((key, keys)) = &self.band_keys {
            let mut b = Vec::with_capacity(16 + 4 * keys.len());
            b.extend_from_slice(&key.to_le_bytes());
            keys.iter()
                .for_each(|k| b.extend_from_slice(&k.to_le_bytes()));
            put_bytes(&mut out, &b);
        }
        out
    }

    /// A record from its bytes, its text decompressed with a fresh
    /// context.
    pub fn decode(bytes: &[u8]) -> Result<Record, Error> {
        Record::decode_with(bytes, Text::Unpack(&mut Unpacker::default()))
    }

    /// A record from its bytes, without its text (not decompressed; the
    /// record still has to be whole).
    pub fn decode_meta(bytes: &[u8]) -> Result<Record, Error> {
        Record::decode_with(bytes, Text::Skip)
    }

    /// A record from its bytes, its text as `text` says.
    pub fn decode_with(bytes: &[u8], text: Text<'_>) -> Result<Record, Error> {
        let mode = text;
        let mut r = Reader { bytes, pos: 0 };
        let version = r.take(1)?[0];
        if version != RECORD_VERSION {
            return Err(Error::corrupt(format!("unknown record version {version}")));
        }
        let seq = r.u64()?;
        let stored_at_ms = r.u64()?;
        let text_len = r.u32()?;
        let flags = r.take(1)?[0];
        if (flags & 0b10 != 0 && flags & 0b1000_0000 != 0)
            || (flags & 0b1_0000 != 0 && flags & 0b100 == 0)
            || (flags & 0b10_0000 != 0 && flags & 0b1000 == 0)
        {
            return Err(Error::corrupt("unknown record flags"));
        }
        let url = if flags & 1 != 0 {
            Some(r.string()?)
        } else {
            None
        };
        let signature = if flags & 2 != 0 {
            Some(r.bytes()?.to_vec())
        } else {
            None
        };
        let (duplicate_of, original_seq) = if flags & 4 != 0 {
            let d = r.string()?;
            let sim = f64::from_le_bytes(fixed(r.take(8)?));
            let seq = if flags & 16 != 0 {
                Some(r.u64()?)
            } else {
                None
            };
            (Some((d, sim)), seq)
        } else {
            (None, None)
        };
        let text = match (flags & 8 != 0, flags & 32 != 0, mode) {
            (false, _, _) => None,
            (true, _, Text::Skip) => {
                r.bytes()?;
                None
            }
            (true, false, _) => Some(r.string()?),
            (true, true, Text::Unpack(unpacker)) => {
                let packed = r.bytes()?;
                let plain = unpacker.unpack(packed, text_len as usize)?;
                Some(
                    String::from_utf8(plain)
                        .map_err(|_| Error::corrupt("a record's text is not UTF-8"))?,
                )
            }
        };
        let sketch = if flags & 64 != 0 {
            Some(r.bytes()?.to_vec())
        } else {
            None
        };
        let band_keys = if flags & 128 != 0 {
            let b = r.bytes()?;
            if b.len() < 16 || b.len() % 4 != 0 {
                return Err(Error::corrupt("a record's band keys"));
            }
            let key = u128::from_le_bytes(fixed(&b[..16]));
            let keys = b[16..]
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(fixed(c)));
            Some((key, keys.collect()))
        } else {
            None
        };
        if r.pos != bytes.len() {
            return Err(Error::corrupt("trailing bytes in a record"));
        }
        Ok(Record {
            seq,
            stored_at_ms,
            text_len,
            url,
            signature,
            duplicate_of,
            original_seq,
            text,
            sketch,
            band_keys,
        })
    }
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    // Lengths are bounded by the HTTP body limit, far below 4 GiB.
    out.extend_from_slice(&u32::try_from(b.len()).unwrap_or(u32::MAX).to_le_bytes());
    out.extend_from_slice(b);
}

fn fixed<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[..N]);
    a
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.bytes.len())
            .ok_or_else(|| Error::corrupt("truncated record"))?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(fixed(self.take(4)?)))
    }

    fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(fixed(self.take(8)?)))
    }

    fn bytes(&mut self) -> Result<&'a [u8], Error> {
        let n = self.u32()? as usize;
        self.take(n)
    }

    fn string(&mut self) -> Result<String, Error> {
        let b = self.bytes()?;
        String::from_utf8(b.to_vec()).map_err(|_| Error::corrupt("a record string is not UTF-8"))
    }
}

#[cfg(test)]
#[path = "record_tests.rs"]
mod tests;
