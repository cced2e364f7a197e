//! The postings segment file of [`DiskPostings`](crate::DiskPostings):
//! magic `NDUPPOST`, version `u32`, count `u64`; the postings as sorted
//! `(hash, dense id)` pairs of little-endian `u32`; the sparse index (the
//! first hash of every [`BLOCK`] postings); xxh3-64 of the postings, xxh3-64
//! of the sparse index; magic `NDUPPEND`. Written once (synced, then
//! renamed into place), read with positioned reads.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use neardup::dedup::Error as EngineError;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// Postings per sparse index key.
pub(crate) const BLOCK: usize = 256;

const MAGIC: &[u8; 8] = b"NDUPPOST";
const END: &[u8; 8] = b"NDUPPEND";
const VERSION: u32 = 1;
const HEADER: u64 = 20;

pub(crate) fn err(what: impl std::fmt::Display) -> EngineError {
    EngineError::documents(format!("postings: {what}"))
}

/// One immutable segment file.
#[derive(Debug)]
pub(crate) struct Segment {
    pub(crate) name: String,
    pub(crate) file: File,
    pub(crate) count: u64,
    /// The first hash of every block.
    pub(crate) firsts: Vec<u32>,
}

impl Segment {
    /// Opens and checks a segment (all but the postings' checksum).
    pub(crate) fn open(dir: &Path, name: &str) -> Result<Segment, EngineError> {
        let path = dir.join(name);
        let file = File::open(&path).map_err(|e| err(format!("{}: {e}", path.display())))?;
        let len = file.metadata().map_err(err)?.len();
        let mut head = [0u8; HEADER as usize];
        file.read_exact_at(&mut head, 0)
            .map_err(|_| err(format!("{name}: truncated")))?;
        let version = u32::from_le_bytes(head[8..12].try_into().unwrap_or([0; 4]));
        let count = u64::from_le_bytes(head[12..20].try_into().unwrap_or([0; 8]));
        let blocks = count.div_ceil(BLOCK as u64);
        if &head[..8] != MAGIC || version != VERSION {
            return Err(err(format!(
                "{name}: not a postings segment of this version"
            )));
        }
        if Some(len) != count.checked_mul(8).map(|c| HEADER + c + blocks * 4 + 24) {
            return Err(err(format!("{name}: wrong length")));
        }
        let mut sparse = vec![0u8; (blocks * 4 + 24) as usize];
        file.read_exact_at(&mut sparse, HEADER + count * 8)
            .map_err(|_| err(format!("{name}: truncated")))?;
        let (index, tail) = sparse.split_at(blocks as usize * 4);
        if tail[8..16] != xxh3_64(index).to_le_bytes() || &tail[16..] != END {
            return Err(err(format!("{name}: damaged index")));
        }
        let firsts = index
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok(Segment {
            name: name.to_string(),
            file,
            count,
            firsts,
        })
    }

    /// Appends the ids under `h` that `keep` accepts, ascending, until
    /// `out` holds `limit`.
    pub(crate) fn find(
        &self,
        h: u32,
        keep: &dyn Fn(u32) -> bool,
        limit: usize,
        out: &mut Vec<u32>,
    ) -> Result<(), EngineError> {
        let mut block = self.firsts.partition_point(|&k| k < h).saturating_sub(1);
        let mut buf = vec![0u8; BLOCK * 8];
        while block < self.firsts.len() && out.len() < limit {
            let start = (block * BLOCK) as u64;
            let n = (self.count - start).min(BLOCK as u64) as usize;
            self.file
                .read_exact_at(&mut buf[..n * 8], HEADER + start * 8)
                .map_err(|e| err(format!("{}: {e}", self.name)))?;
            for c in buf[..n * 8].chunks_exact(8) {
                let k = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                if k > h {
                    return Ok(());
                }
                let d = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
                if k == h && keep(d) {
                    out.push(d);
                    if out.len() >= limit {
                        return Ok(());
                    }
                }
            }
            block += 1;
        }
        Ok(())
    }

    /// Every posting, in order (sequential read).
    pub(crate) fn entries(&self) -> impl Iterator<Item = Result<(u32, u32), EngineError>> + '_ {
        let mut r = BufReader::with_capacity(1 << 20, &self.file);
        let skipped = std::io::copy(&mut (&mut r).take(HEADER), &mut std::io::sink());
        let mut left = if skipped.is_ok() { self.count } else { 0 };
        std::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            left -= 1;
            let mut c = [0u8; 8];
            Some(
                r.read_exact(&mut c)
                    .map(|()| {
                        (
                            u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                            u32::from_le_bytes([c[4], c[5], c[6], c[7]]),
                        )
                    })
                    .map_err(|e| err(format!("{}: {e}", self.name))),
            )
        })
    }
}

/// Checks every segment file in `dir` whole (framing, index and postings
/// checksums): the number sound, the names of the damaged ones, and the
/// bytes of all.
pub(crate) fn verify_dir(dir: &Path) -> (usize, Vec<String>, u64) {
    let (mut sound, mut damaged, mut bytes) = (0, Vec::new(), 0);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (0, damaged, 0);
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".post") {
            continue;
        }
        bytes += e.metadata().map_or(0, |m| m.len());
        let whole = Segment::open(dir, &name).and_then(|s| {
            let mut hash = Xxh3::new();
            for entry in s.entries() {
                let (h, d) = entry?;
                hash.update(&h.to_le_bytes());
                hash.update(&d.to_le_bytes());
            }
            let mut sum = [0u8; 8];
            let at = HEADER + s.count * 8 + s.firsts.len() as u64 * 4;
            s.file.read_exact_at(&mut sum, at).map_err(err)?;
            if sum == hash.digest().to_le_bytes() {
                Ok(())
            } else {
                Err(err("postings checksum mismatch"))
            }
        });
        match whole {
            Ok(()) => sound += 1,
            Err(_) => damaged.push(name),
        }
    }
    (sound, damaged, bytes)
}

/// Writes sorted postings as segment `name` in `dir` (synced before it
/// is renamed into place).
pub(crate) fn write_segment(
    dir: &Path,
    name: &str,
    entries: impl Iterator<Item = Result<(u32, u32), EngineError>>,
) -> Result<Segment, EngineError> {
    let tmp = dir.join(format!("{name}.partial"));
    let io = |e: std::io::Error| err(format!("{}: {e}", tmp.display()));
    let file = File::create(&tmp).map_err(io)?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    w.write_all(MAGIC).map_err(io)?;
    w.write_all(&VERSION.to_le_bytes()).map_err(io)?;
    w.write_all(&0u64.to_le_bytes()).map_err(io)?;
    let mut hash = Xxh3::new();
    let mut firsts = Vec::new();
    let mut count = 0u64;
    for e in entries {
        let (h, d) = e?;
        if count % BLOCK as u64 == 0 {
            firsts.push(h);
        }
        let mut c = [0u8; 8];
        c[..4].copy_from_slice(&h.to_le_bytes());
        c[4..].copy_from_slice(&d.to_le_bytes());
        hash.update(&c);
        w.write_all(&c).map_err(io)?;
        count += 1;
    }
    let index: Vec<u8> = firsts.iter().flat_map(|k| k.to_le_bytes()).collect();
    w.write_all(&index).map_err(io)?;
    w.write_all(&hash.digest().to_le_bytes()).map_err(io)?;
    w.write_all(&xxh3_64(&index).to_le_bytes()).map_err(io)?;
    w.write_all(END).map_err(io)?;
    let file = w.into_inner().map_err(|e| io(e.into_error()))?;
    file.write_all_at(&count.to_le_bytes(), 12).map_err(io)?;
    file.sync_all().map_err(io)?;
    drop(file);
    std::fs::rename(&tmp, dir.join(name)).map_err(io)?;
    Segment::open(dir, name)
}

/// The sorted union of segments' postings, without removed originals.
pub(crate) fn merge<'a>(
    inputs: &'a [std::sync::Arc<Segment>],
    alive: &'a dyn Fn(u32) -> bool,
) -> impl Iterator<Item = Result<(u32, u32), EngineError>> + 'a {
    let mut streams: Vec<_> = inputs.iter().map(|s| s.entries().peekable()).collect();
    std::iter::from_fn(move || loop {
        let mut best: Option<(usize, (u32, u32))> = None;
        for (i, s) in streams.iter_mut().enumerate() {
            match s.peek() {
                Some(Ok(e)) if best.is_none_or(|(_, b)| *e < b) => best = Some((i, *e)),
                Some(Err(_)) => return s.next(),
                _ => {}
            }
        }
        let (i, e) = best?;
        streams[i].next();
        if alive(e.1) {
            return Some(Ok(e));
        }
    })
}
