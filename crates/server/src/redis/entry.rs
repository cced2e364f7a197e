//! The shared log's entries, binary: an insertion (what the engine needs
//! to judge the document again on every instance: id, URL, signature
//! bytes, text length and, with exact verification, the main text
//! compressed, or with a verification sketch
//! ([`neardup::dedup::VerifySketch`]) the sketch's bytes in its place:
//! a last field, which entries written before it lack) or a deletion.
//! When the engine keeps band keys instead of the signature (a MinHash
//! method with a verification sketch: [`neardup::dedup::KeyRule`]), an
//! insertion of kind 3 carries, in the signature's place, the 16-byte
//! signature key and one `u32` band key a band (about 120 bytes instead
//! of about 550); a document without a sketch keeps kind 1 and its
//! signature. Every entry starts with its kind and a
//! 16-byte token (the appending instance and its counter), which the log
//! script compares to find out whether the log still holds what an
//! instance applied. Over a store with an age limit, every entry is
//! stamped: its kind has the [`TIMED`] bit, and the log script appends
//! the store server's time (`TIME`, milliseconds since the Unix epoch,
//! `u64` little endian) when it appends the entry: its log time.

use neardup::dedup::signature_key;
use neardup::sketch::Signature;
use neardup::{Dedup, ShingleSeq};

use crate::error::{Error, ErrorKind};
use crate::seen::Prepared;

const INSERT: u8 = 1;
const DELETE: u8 = 2;
/// An insertion that carries the signature's key and band keys in place of
/// its signature ([`neardup::dedup::KeyRule`]).
const INSERT_KEYS: u8 = 3;

/// The bit of a kind that marks an entry stamped with its log time (its
/// last 8 bytes, appended by the log script).
pub(crate) const TIMED: u8 = 0x10;

/// Bytes of a log time.
const TIME: usize = 8;

/// Bytes of an entry's kind and token.
pub(crate) const HEAD: usize = 17;

/// A decoded entry.
pub(crate) enum Entry {
    /// Judge and store a document.
    Insert(Box<Prepared>),
    /// Delete a document by id.
    Delete(String),
}

/// The origin instance of an entry, from its token.
pub(crate) fn origin(bytes: &[u8]) -> Option<u64> {
    bytes
        .get(1..9)
        .and_then(|b| b.try_into().ok())
        .map(u64::from_le_bytes)
}

/// The token of an entry (its kind and the 16 bytes after it).
pub(crate) fn token(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.len().min(HEAD)]
}

fn head(kind: u8, token: (u64, u64)) -> Vec<u8> {
    let mut out = Vec::with_capacity(256);
    out.push(kind);
    out.extend_from_slice(&token.0.to_le_bytes());
    out.extend_from_slice(&token.1.to_le_bytes());
    out
}

fn put_bytes(out: &mut Vec<u8>, b: Option<&[u8]>) {
    match b {
        None => out.push(0),
        Some(b) => {
            out.push(1);
            out.extend_from_slice(&(b.len() as u32).to_le_bytes());
            out.extend_from_slice(b);
        }
    }
}

/// The kind byte, with the [`TIMED`] bit when `timed`.
fn kind(kind: u8, timed: bool) -> u8 {
    if timed {
        kind | TIMED
    } else {
        kind
    }
}

/// An entry's log time, when it is stamped.
pub(crate) fn log_time(bytes: &[u8]) -> Option<u64> {
    if bytes.first()? & TIMED == 0 || bytes.len() < HEAD + TIME {
        return None;
    }
    let t = bytes[bytes.len() - TIME..].try_into().ok()?;
    Some(u64::from_le_bytes(t))
}

/// An insertion's bytes; `timed`: to be stamped with its log time.
pub(crate) fn encode_insert(p: &Prepared, token: (u64, u64), timed: bool) -> Vec<u8> {
    let keys = match (&p.bytes, &p.band_keys) {
        (None, Some(k)) => Some(band_key_bytes(p.key, k)),
        _ => None,
    };
    let plain = if keys.is_some() { INSERT_KEYS } else { INSERT };
    let mut out = head(kind(plain, timed), token);
    put_bytes(&mut out, Some(p.id.as_bytes()));
    put_bytes(&mut out, p.url.as_deref().map(str::as_bytes));
    put_bytes(&mut out, keys.as_deref().or(p.bytes.as_deref()));
    out.extend_from_slice(&p.text_len.to_le_bytes());
    let packed = p.text.as_deref().map(|t| {
        let mut z = (t.len() as u32).to_le_bytes().to_vec();
        // Level 1 cannot fail on a Vec; an error would leave the text raw.
        match zstd::bulk::compress(t.as_bytes(), 1) {
            Ok(c) => z.extend_from_slice(&c),
            Err(_) => z.clear(),
        }
        z
    });
    put_bytes(&mut out, packed.as_deref().filter(|z| !z.is_empty()));
    let sketch = p.shingles.as_ref().and_then(ShingleSeq::to_sketch_bytes);
    if sketch.is_some() {
        put_bytes(&mut out, sketch.as_deref());
    }
    out
}

/// The signature's key (16 bytes) then each band key (`u32`), little
/// endian.
fn band_key_bytes(key: u128, keys: &[u32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(16 + 4 * keys.len());
    out.extend_from_slice(&key.to_le_bytes());
    keys.iter()
        .for_each(|k| out.extend_from_slice(&k.to_le_bytes()));
    out
}

/// Reads [`band_key_bytes`].
fn read_band_keys(b: &[u8]) -> Result<(u128, Vec<u32>), Error> {
    if b.len() < 16 || b.len() % 4 != 0 {
        return Err(bad("bad band keys"));
    }
    let mut key = [0u8; 16];
    key.copy_from_slice(&b[..16]);
    let keys = b[16..]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok((u128::from_le_bytes(key), keys))
}

/// A deletion's bytes; `timed`: to be stamped with its log time.
pub(crate) fn encode_delete(id: &str, token: (u64, u64), timed: bool) -> Vec<u8> {
    let mut out = head(kind(DELETE, timed), token);
    put_bytes(&mut out, Some(id.as_bytes()));
    out
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if self.0.len() < n {
            return Err(bad("truncated"));
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }

    fn u32(&mut self) -> Result<u32, Error> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn bytes(&mut self) -> Result<Option<&'a [u8]>, Error> {
        match self.take(1)?[0] {
            0 => Ok(None),
            1 => {
                let n = self.u32()? as usize;
                self.take(n).map(Some)
            }
            _ => Err(bad("bad field tag")),
        }
    }

    fn string(&mut self) -> Result<Option<String>, Error> {
        self.bytes()?
            .map(|b| String::from_utf8(b.to_vec()).map_err(|_| bad("a string is not UTF-8")))
            .transpose()
    }
}

fn bad(why: &str) -> Error {
    Error::new(ErrorKind::SharedStore(format!(
        "a log entry cannot be read: {why}"
    )))
}

/// Decodes an entry (its log time, if stamped, is [`log_time`]'s); the
/// shingles of an insertion are cut from its text as
/// [`crate::ContentSeen::prepare`] cut them (the same function), so every
/// instance judges the same [`Prepared`].
pub(crate) fn decode(bytes: &[u8], dedup: &Dedup) -> Result<Entry, Error> {
    let first = *bytes.first().ok_or_else(|| bad("empty"))?;
    let bytes = match first & TIMED {
        0 => bytes,
        _ if bytes.len() < HEAD + TIME => return Err(bad("truncated")),
        _ => &bytes[..bytes.len() - TIME],
    };
    let mut r = Reader(bytes);
    let kind = r.take(HEAD)?[0] & !TIMED;
    let id = r.string()?.ok_or_else(|| bad("no id"))?;
    if kind == DELETE {
        return Ok(Entry::Delete(id));
    }
    if kind != INSERT && kind != INSERT_KEYS {
        return Err(bad("unknown kind"));
    }
    let url = r.string()?;
    let sig_bytes = r.bytes()?.map(<[u8]>::to_vec);
    let text_len = r.u32()?;
    let text = match r.bytes()? {
        None => None,
        Some(z) if z.len() >= 4 => {
            let n = u32::from_le_bytes([z[0], z[1], z[2], z[3]]) as usize;
            let raw = zstd::bulk::decompress(&z[4..], n).map_err(|_| bad("bad compressed text"))?;
            Some(String::from_utf8(raw).map_err(|_| bad("the text is not UTF-8"))?)
        }
        Some(_) => return Err(bad("short text")),
    };
    let sketch = match r.0.is_empty() {
        true => None,
        false => r.bytes()?,
    };
    if !r.0.is_empty() {
        return Err(bad("trailing bytes"));
    }
    let (sig_bytes, band_keys, key) = match (kind, sig_bytes) {
        (INSERT_KEYS, Some(b)) => {
            if sketch.is_none() {
                return Err(bad("band keys without a sketch"));
            }
            let (key, keys) = read_band_keys(&b)?;
            (None, Some(keys), key)
        }
        (INSERT_KEYS, None) => return Err(bad("no band keys")),
        (_, b) => {
            let key = b.as_deref().map_or(0, signature_key);
            (b, None, key)
        }
    };
    let signature = sig_bytes
        .as_deref()
        .map(Signature::from_bytes)
        .transpose()
        .map_err(|e| bad(&format!("signature: {e}")))?;
    let has_text = signature.is_some() || band_keys.is_some();
    let shingles = match (has_text, &text, sketch) {
        (true, Some(t), _) => dedup.shingles(t),
        (true, None, Some(s)) => {
            Some(ShingleSeq::from_sketch_bytes(s).ok_or_else(|| bad("bad sketch"))?)
        }
        _ => None,
    };
    Ok(Entry::Insert(Box::new(Prepared {
        id,
        url,
        signature,
        bytes: sig_bytes,
        band_keys,
        key,
        text_len,
        shingles,
        text,
        packed: None,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, ContentSeen};
    use neardup::io::{Content, RawDocument};
    use neardup::Verifier;
    use neardup_testkit::TempDir;

    fn sketch_config() -> Config {
        let mut config = Config::new();
        config.verifier(Some(Verifier::default().sketched()));
        config
    }

    /// About 2 KB of text.
    fn article() -> String {
        (0..330)
            .map(|i| format!("w{} ", (i * 7919) % 10_007))
            .collect()
    }

    fn prepare(seen: &ContentSeen, text: &str) -> Prepared {
        seen.prepare(RawDocument {
            id: "doc-17".into(),
            url: Some("https://example.com/a/17".into()),
            content: Content::Text(text.into()),
        })
        .unwrap()
    }

    #[test]
    fn a_sketch_entry_carries_band_keys_and_round_trips() {
        let dir = TempDir::new("entry-band-keys");
        let seen = ContentSeen::open(&dir, &sketch_config()).unwrap();
        let text = article();
        assert!((1_800..2_600).contains(&text.len()), "{}", text.len());
        let p = prepare(&seen, &text);
        assert!(p.signature.is_none() && p.band_keys.is_some());
        let bytes = encode_insert(&p, (7, 9), false);
        assert_eq!(bytes[0], INSERT_KEYS);
        eprintln!(
            "a sketch entry of a {} B text: {} bytes ({} bands, sketch {} bytes)",
            text.len(),
            bytes.len(),
            p.band_keys.as_ref().map_or(0, Vec::len),
            p.shingles
                .as_ref()
                .and_then(ShingleSeq::to_sketch_bytes)
                .map_or(0, |s| s.len())
        );
        assert!(bytes.len() < 350, "{} bytes", bytes.len());
        let Entry::Insert(back) = decode(&bytes, &seen.shared().dedup).unwrap() else {
            panic!("not an insertion");
        };
        assert_eq!((&back.id, &back.url), (&p.id, &p.url));
        assert_eq!((back.key, &back.band_keys), (p.key, &p.band_keys));
        assert!(back.signature.is_none() && back.bytes.is_none());
        assert_eq!(back.text_len, p.text_len);
        assert_eq!(
            back.shingles.as_ref().and_then(ShingleSeq::to_sketch_bytes),
            p.shingles.as_ref().and_then(ShingleSeq::to_sketch_bytes)
        );
        // Every cut is refused.
        for n in HEAD..bytes.len() {
            assert!(decode(&bytes[..n], &seen.shared().dedup).is_err(), "{n}");
        }
    }

    #[test]
    fn exact_entries_keep_the_signature() {
        let dir = TempDir::new("entry-signature");
        let seen = ContentSeen::open(&dir, &Config::new()).unwrap();
        let p = prepare(&seen, &article());
        assert!(p.signature.is_some() && p.band_keys.is_none());
        let bytes = encode_insert(&p, (1, 2), false);
        assert_eq!(bytes[0], INSERT);
        let Entry::Insert(back) = decode(&bytes, &seen.shared().dedup).unwrap() else {
            panic!("not an insertion");
        };
        assert_eq!((back.key, &back.bytes), (p.key, &p.bytes));
        assert!(back.band_keys.is_none());
    }

    #[test]
    fn a_stamped_entry_carries_its_log_time() {
        let dir = TempDir::new("entry-timed");
        let seen = ContentSeen::open(&dir, &Config::new()).unwrap();
        let p = prepare(&seen, &article());
        let mut bytes = encode_insert(&p, (1, 2), true);
        assert_eq!(bytes[0], INSERT | TIMED);
        let plain = encode_insert(&p, (1, 2), false);
        assert_eq!(bytes[1..], plain[1..]);
        // What the log script appends.
        bytes.extend_from_slice(&1_764_000_000_123u64.to_le_bytes());
        assert_eq!(log_time(&bytes), Some(1_764_000_000_123));
        assert_eq!(log_time(&plain), None);
        let Entry::Insert(back) = decode(&bytes, &seen.shared().dedup).unwrap() else {
            panic!("not an insertion");
        };
        assert_eq!((&back.id, back.key), (&p.id, p.key));
        let mut del = encode_delete("gone", (1, 3), true);
        del.extend_from_slice(&7u64.to_le_bytes());
        assert_eq!(log_time(&del), Some(7));
        assert!(
            matches!(decode(&del, &seen.shared().dedup), Ok(Entry::Delete(id)) if id == "gone")
        );
    }
}
