//! [`DiskPostings`]: the composite check's sampled postings on disk, so
//! that the service's RAM holds only the candidate tables.
//!
//! New postings collect in memory ([`CompactPostings`]); at [`FLUSH_AT`]
//! they are written, sorted, as an immutable segment file in `postings/`
//! of the data directory. Segments are kept in insertion order (so in
//! dense id order); the last [`MERGE_FANIN`] are merged into one when they
//! are of one size tier, up to [`MAX_MERGED`] postings, dropping removed
//! originals. A lookup reads each segment's block holding the hash (a
//! sparse index of one key per [`BLOCK`] postings stays in RAM: 1/64 byte
//! per posting) with positioned reads, which the page cache serves.
//!
//! Segment file: magic `NDUPPOST`, version `u32`, count `u64`; the
//! postings as sorted `(hash, dense id)` pairs of little-endian `u32`;
//! the sparse index (first hash of every block, `u32`); xxh3-64 of the
//! postings, xxh3-64 of the sparse index; magic `NDUPPEND`. A snapshot
//! names the segments it covers and holds the postings not yet written;
//! segments merged away are deleted once a newer snapshot is durable, and
//! files no snapshot names are deleted when one is loaded.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use neardup::dedup::{Error as EngineError, PostingsStore};
use neardup::index::CompactPostings;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

/// The segments' directory inside the data directory.
pub const POSTINGS_DIR: &str = "postings";

/// Postings held in memory before they are written as a segment.
pub(crate) const FLUSH_AT: usize = 1 << 21;

/// Segments merged at once.
pub(crate) const MERGE_FANIN: usize = 4;

/// Postings past which segments are no longer merged (a merge of the
/// writer's stays under about a second).
pub(crate) const MAX_MERGED: u64 = 1 << 26;

/// Postings per sparse index key.
pub(crate) const BLOCK: usize = 256;

const MAGIC: &[u8; 8] = b"NDUPPOST";
const END: &[u8; 8] = b"NDUPPEND";
const VERSION: u32 = 1;
const HEADER: u64 = 20;

fn err(what: impl std::fmt::Display) -> EngineError {
    EngineError::documents(format!("postings: {what}"))
}

/// One immutable segment file.
#[derive(Debug)]
struct Segment {
    name: String,
    file: File,
    count: u64,
    /// The first hash of every block.
    firsts: Vec<u32>,
}

impl Segment {
    /// Opens and checks a segment (all but the postings' checksum).
    fn open(dir: &Path, name: &str) -> Result<Segment, EngineError> {
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
    fn find(
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
    fn entries(&self) -> impl Iterator<Item = Result<(u32, u32), EngineError>> + '_ {
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
fn write_segment(
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

/// The tier of a segment of `count` postings (flushed at `flush_at`).
fn tier(count: u64, flush_at: usize) -> u32 {
    let (mut t, mut cap) = (0, flush_at as u64);
    while count > cap {
        cap = cap.saturating_mul(MERGE_FANIN as u64);
        t += 1;
    }
    t
}

/// Sampled postings in segment files (see the module documentation).
#[derive(Debug)]
pub struct DiskPostings {
    dir: PathBuf,
    /// [`FLUSH_AT`], smaller in tests.
    flush_at: usize,
    recent: CompactPostings,
    segments: Vec<Segment>,
    next_name: u64,
    /// Segments merged away, still named by the last durable snapshot.
    retired: Mutex<Vec<PathBuf>>,
}

impl DiskPostings {
    /// Postings in `dir` (created when missing); empty until a snapshot
    /// is read into them.
    ///
    /// # Errors
    /// The directory cannot be created.
    pub fn open(dir: &Path) -> std::io::Result<DiskPostings> {
        std::fs::create_dir_all(dir)?;
        Ok(DiskPostings {
            dir: dir.to_path_buf(),
            flush_at: FLUSH_AT,
            recent: CompactPostings::new(),
            segments: Vec::new(),
            next_name: 0,
            retired: Mutex::new(Vec::new()),
        })
    }

    fn new_name(&mut self) -> String {
        self.next_name += 1;
        format!("{:010}.post", self.next_name - 1)
    }

    /// Deletes the files of the directory that `keep` does not name.
    fn delete_others(&self, keep: &[&str]) {
        if let Ok(entries) = std::fs::read_dir(&self.dir) {
            for e in entries.flatten() {
                let name = e.file_name();
                if !keep.iter().any(|k| name.to_str() == Some(k)) {
                    let _ = std::fs::remove_file(e.path());
                }
            }
        }
    }

    fn flush(&mut self, alive: &dyn Fn(u32) -> bool) -> Result<(), EngineError> {
        self.recent.compact(alive);
        let name = self.new_name();
        let recent = std::mem::take(&mut self.recent);
        let seg = write_segment(&self.dir, &name, recent.iter().map(Ok))?;
        self.segments.push(seg);
        while self.segments.len() >= MERGE_FANIN {
            let tail = &self.segments[self.segments.len() - MERGE_FANIN..];
            let t = tier(tail[0].count, self.flush_at);
            let total: u64 = tail.iter().map(|s| s.count).sum();
            if tail.iter().any(|s| tier(s.count, self.flush_at) != t) || total > MAX_MERGED {
                break;
            }
            let inputs = self.segments.split_off(self.segments.len() - MERGE_FANIN);
            let name = self.new_name();
            let merged = write_segment(&self.dir, &name, merge(&inputs, alive))?;
            self.segments.push(merged);
            let mut retired = self.retired.lock().unwrap_or_else(|p| p.into_inner());
            retired.extend(inputs.iter().map(|s| self.dir.join(&s.name)));
        }
        Ok(())
    }
}

/// The sorted union of segments' postings, without removed originals.
fn merge<'a>(
    inputs: &'a [Segment],
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

impl PostingsStore for DiskPostings {
    fn insert(
        &mut self,
        d: u32,
        hashes: &[u32],
        alive: &dyn Fn(u32) -> bool,
    ) -> Result<(), EngineError> {
        for &h in hashes {
            self.recent.insert(h, d, alive);
        }
        if self.recent.len() >= self.flush_at {
            self.flush(alive)?;
        }
        Ok(())
    }

    fn docs_with(
        &self,
        h: u32,
        keep: &dyn Fn(u32) -> bool,
        limit: usize,
    ) -> Result<Vec<u32>, EngineError> {
        let mut out = Vec::new();
        for s in &self.segments {
            if out.len() >= limit {
                break;
            }
            s.find(h, keep, limit, &mut out)?;
        }
        let mut recent = Vec::new();
        self.recent.get(h, &mut recent);
        recent.sort_unstable();
        recent.dedup();
        out.extend(recent.into_iter().filter(|&d| keep(d)));
        out.truncate(limit);
        Ok(out)
    }

    fn write_to(&self, w: &mut dyn Write) -> std::io::Result<()> {
        w.write_all(&self.next_name.to_le_bytes())?;
        w.write_all(&(self.segments.len() as u32).to_le_bytes())?;
        for s in &self.segments {
            w.write_all(&(s.name.len() as u32).to_le_bytes())?;
            w.write_all(s.name.as_bytes())?;
            w.write_all(&s.count.to_le_bytes())?;
        }
        let mut w = w;
        self.recent.write_to(&mut w)
    }

    fn read_from(&mut self, r: &mut dyn Read) -> Result<(), EngineError> {
        let truncated = |_| err("truncated snapshot");
        let mut b8 = [0u8; 8];
        let mut b4 = [0u8; 4];
        r.read_exact(&mut b8).map_err(truncated)?;
        let next_name = u64::from_le_bytes(b8);
        r.read_exact(&mut b4).map_err(truncated)?;
        let n = u32::from_le_bytes(b4);
        let mut segments = Vec::new();
        for _ in 0..n {
            r.read_exact(&mut b4).map_err(truncated)?;
            let len = u32::from_le_bytes(b4) as usize;
            if len > 64 {
                return Err(err("bad segment name"));
            }
            let mut name = vec![0u8; len];
            r.read_exact(&mut name).map_err(truncated)?;
            r.read_exact(&mut b8).map_err(truncated)?;
            let name = String::from_utf8(name).map_err(|_| err("bad segment name"))?;
            if name.contains('/') || !name.ends_with(".post") {
                return Err(err("bad segment name"));
            }
            let seg = Segment::open(&self.dir, &name)?;
            if seg.count != u64::from_le_bytes(b8) {
                return Err(err(format!("{name}: not the segment the snapshot names")));
            }
            segments.push(seg);
        }
        let mut r = r;
        let recent = CompactPostings::read_from(&mut r)?;
        let names: Vec<&str> = segments.iter().map(|s| s.name.as_str()).collect();
        self.delete_others(&names);
        (self.next_name, self.segments, self.recent) = (next_name, segments, recent);
        Ok(())
    }

    fn snapshot_saved(&self) {
        let mut retired = self.retired.lock().unwrap_or_else(|p| p.into_inner());
        for path in retired.drain(..) {
            let _ = std::fs::remove_file(path);
        }
    }

    fn clear(&mut self) {
        self.delete_others(&[]);
        self.segments.clear();
        self.recent = CompactPostings::new();
        self.next_name = 0;
        self.retired
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    fn memory_bytes(&self) -> usize {
        self.recent.memory_bytes()
            + self
                .segments
                .iter()
                .map(|s| s.firsts.capacity() * 4 + 64)
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup::dedup::MemoryPostings;
    use neardup_testkit::TempDir;

    fn postings(i: u32) -> Vec<u32> {
        let mut h: Vec<u32> = (0..12).map(|j| (i * 7 + j * 13) % 97).collect();
        h.sort_unstable();
        h.dedup();
        h
    }

    fn small(dir: &Path) -> DiskPostings {
        let mut p = DiskPostings::open(dir).unwrap();
        p.flush_at = 50;
        p
    }

    #[test]
    fn segments_merges_and_a_reload_find_what_memory_finds() {
        let dir = TempDir::new("postings-disk");
        let mut disk = small(&dir);
        let mut memory = MemoryPostings::default();
        let removed = |d: u32| d % 11 == 5;
        let alive = |d: u32| !removed(d);
        for i in 0..400 {
            disk.insert(i, &postings(i), &alive).unwrap();
            memory.insert(i, &postings(i), &alive).unwrap();
        }
        assert!(disk.segments.len() >= 2, "{} segments", disk.segments.len());
        assert!(
            disk.segments.iter().any(|s| s.count > 50),
            "some segments were merged"
        );
        let same = |disk: &DiskPostings| {
            for h in 0..97 {
                for limit in [3, 32, 1000] {
                    assert_eq!(
                        disk.docs_with(h, &alive, limit).unwrap(),
                        memory.docs_with(h, &alive, limit).unwrap(),
                        "hash {h} limit {limit}"
                    );
                }
            }
        };
        same(&disk);
        // A snapshot's bytes bring the same postings back; files it does
        // not name (a segment flushed after it) are deleted.
        let mut snap = Vec::new();
        disk.write_to(&mut snap).unwrap();
        disk.snapshot_saved();
        std::fs::write(dir.join("0000000999.post"), b"orphan").unwrap();
        let mut back = small(&dir);
        back.read_from(&mut snap.as_slice()).unwrap();
        assert!(!dir.join("0000000999.post").exists());
        same(&back);
        let (sound, damaged, _) = verify_dir(&dir);
        assert_eq!((sound, damaged.len()), (back.segments.len(), 0));
        // A damaged segment is refused when a snapshot names it.
        let seg = dir.join(&back.segments[0].name);
        let mut bytes = std::fs::read(&seg).unwrap();
        let n = bytes.len();
        bytes[n - 26] ^= 1; // in the sparse index
        std::fs::write(&seg, &bytes).unwrap();
        assert!(small(&dir).read_from(&mut snap.as_slice()).is_err());
        std::fs::write(&seg, &bytes[..n - 1]).unwrap();
        assert!(small(&dir).read_from(&mut snap.as_slice()).is_err());
        // Clearing deletes every segment.
        back.clear();
        assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0);
    }
}
