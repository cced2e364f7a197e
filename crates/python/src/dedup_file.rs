//! The file format of `Deduplicator.save` / `load` and of its pickles: the
//! settings and every document in arrival order, rebuilt by adding them
//! to a new [`Online`] again with their recorded verdicts (as the service
//! rebuilds from its store).
//!
//! Layout, integers little-endian:
//!
//! | size | content |
//! |------|---------|
//! | 8    | magic `NDDEDUP\0` |
//! | 4    | format version (1) |
//! | ...  | settings: method (string), threshold (flag, f64), max_distance (flag, u32), all_text u8, composite_check u8 |
//! | 8    | number of documents |
//! | ...  | per document: role u8 (0 kept, 1 duplicate, 2 empty, 3 removed), id (string); kept: signature (bytes, neardup's signature format), shingles (flag, bytes); duplicate: signature key u128, dense id of the kept document u32, similarity f64 |
//! | 8    | checksum: `xxh3_64` of everything before |
//!
//! Strings and byte strings are a u32 length and the bytes.

use neardup::dedup::{signature_key, Judgement, Online, Role};
use neardup::sketch::{DocText, Signature as Sig, Sketcher};
use neardup::ShingleSeq;
use xxhash_rust::xxh3::xxh3_64;

const MAGIC: &[u8; 8] = b"NDDEDUP\0";
const VERSION: u32 = 1;

/// How a `Deduplicator` was made.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The method's name.
    pub method: String,
    /// Its threshold, when given.
    pub threshold: Option<f64>,
    /// Its largest distance, when given.
    pub max_distance: Option<u32>,
    /// Whether HTML is read whole (no main-text extraction).
    pub all_text: bool,
    /// Whether the composite page check is on.
    pub composite_check: bool,
}

struct Writer(Vec<u8>);

impl Writer {
    fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(&(b.len() as u32).to_le_bytes());
        self.0.extend_from_slice(b);
    }
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err("truncated deduplicator file".into());
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }
    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }
    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    fn string(&mut self) -> Result<String, String> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| "bad string".to_string())
    }
}

/// The settings and documents of an engine, in the format above.
pub fn encode(settings: &Settings, online: &Online) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    w.0.extend_from_slice(MAGIC);
    w.0.extend_from_slice(&VERSION.to_le_bytes());
    w.bytes(settings.method.as_bytes());
    w.0.push(u8::from(settings.threshold.is_some()));
    w.0.extend_from_slice(&settings.threshold.unwrap_or(0.0).to_le_bytes());
    w.0.push(u8::from(settings.max_distance.is_some()));
    w.0.extend_from_slice(&settings.max_distance.unwrap_or(0).to_le_bytes());
    w.0.push(u8::from(settings.all_text));
    w.0.push(u8::from(settings.composite_check));
    w.0.extend_from_slice(&(online.slots().len() as u64).to_le_bytes());
    for slot in online.slots() {
        let role = match slot.role {
            Role::Original if slot.signature.is_some() => 0,
            Role::Duplicate { .. } => 1,
            Role::Empty => 2,
            _ => 3,
        };
        w.0.push(role);
        w.bytes(slot.id.as_bytes());
        match slot.role {
            Role::Original if slot.signature.is_some() => {
                let sig = slot.signature.as_ref().expect("checked");
                w.bytes(&sig.to_bytes());
                w.0.push(u8::from(slot.shingles.is_some()));
                w.bytes(
                    &slot
                        .shingles
                        .as_ref()
                        .map(|s| s.to_bytes())
                        .unwrap_or_default(),
                );
            }
            Role::Duplicate { of, similarity } => {
                w.0.extend_from_slice(&slot.key.unwrap_or(0).to_le_bytes());
                w.0.extend_from_slice(&of.to_le_bytes());
                w.0.extend_from_slice(&similarity.to_le_bytes());
            }
            _ => {}
        }
    }
    let sum = xxh3_64(&w.0);
    w.0.extend_from_slice(&sum.to_le_bytes());
    w.0
}

/// The settings of [`encode`]'s bytes (checked: magic, version,
/// checksum) and a reader positioned at the documents.
pub fn decode_settings(data: &[u8]) -> Result<(Settings, &[u8]), String> {
    if data.len() < 20 || &data[..8] != MAGIC {
        return Err("not a neardup Deduplicator file".into());
    }
    let (body, sum) = data.split_at(data.len() - 8);
    if xxh3_64(body) != u64::from_le_bytes(sum.try_into().expect("8")) {
        return Err("Deduplicator file checksum mismatch (corrupt or truncated)".into());
    }
    let mut r = Reader(&body[8..]);
    let version = r.u32()?;
    if version != VERSION {
        return Err(format!("unsupported Deduplicator file version {version}"));
    }
    let method = r.string()?;
    let t = (
        r.u8()?,
        f64::from_le_bytes(r.take(8)?.try_into().expect("8")),
    );
    let m = (r.u8()?, r.u32()?);
    let all_text = r.u8()? != 0;
    let composite_check = r.u8()? != 0;
    let settings = Settings {
        method,
        threshold: (t.0 != 0).then_some(t.1),
        max_distance: (m.0 != 0).then_some(m.1),
        all_text,
        composite_check,
    };
    Ok((settings, r.0))
}

/// Adds the documents of [`decode_settings`]'s rest to a new engine made
/// with those settings, in order and with their recorded verdicts.
pub fn replay(online: &mut Online, docs: &[u8]) -> Result<(), String> {
    let mut r = Reader(docs);
    let n = r.u64()?;
    let k = online.verifier().map(|v| v.k);
    // Duplicates keep only their signature's key: any signature of the
    // method stands in for theirs.
    let stand_in: Sig = online.method().sketch(&DocText::from_text("x"));
    for _ in 0..n {
        let role = r.u8()?;
        let id = r.string()?;
        let bad = |e: String| format!("{id}: {e}");
        match role {
            0 => {
                let bytes = r.bytes()?;
                let sig = Sig::from_bytes(bytes).map_err(|e| bad(e.to_string()))?;
                let has_shingles = r.u8()? != 0;
                let sh = r.bytes()?;
                let shingles = match (has_shingles, k) {
                    (true, Some(k)) => Some(
                        ShingleSeq::from_bytes(sh, k).ok_or_else(|| bad("bad shingles".into()))?,
                    ),
                    _ => None,
                };
                let key = signature_key(bytes);
                let j = Judgement { duplicate_of: None };
                online
                    .add(&id, Some((sig, key)), shingles, j)
                    .map_err(|e| bad(e.to_string()))?;
            }
            1 => {
                let key = u128::from_le_bytes(r.take(16)?.try_into().expect("16"));
                let of = r.u32()?;
                let sim = f64::from_le_bytes(r.take(8)?.try_into().expect("8"));
                if of as usize >= online.slots().len() {
                    return Err(bad("duplicate of an unknown document".into()));
                }
                let j = Judgement {
                    duplicate_of: Some((of, sim)),
                };
                online
                    .add(&id, Some((stand_in.clone(), key)), None, j)
                    .map_err(|e| bad(e.to_string()))?;
            }
            2 => {
                let j = Judgement { duplicate_of: None };
                online
                    .add(&id, None, None, j)
                    .map_err(|e| bad(e.to_string()))?;
            }
            3 => {
                online.add_tombstone(&id);
            }
            _ => return Err(bad(format!("unknown role {role}"))),
        }
    }
    if !r.0.is_empty() {
        return Err("trailing bytes in Deduplicator file".into());
    }
    Ok(())
}
