//! [`DiskPostings`]: the composite check's sampled postings on disk, so
//! that the service's RAM holds only the candidate tables.
//!
//! New postings collect in memory ([`CompactPostings`]); at [`FLUSH_AT`]
//! they are written, sorted, as an immutable segment file in `postings/`
//! of the data directory. Segments are kept in insertion order (so in
//! dense id order); the last [`MERGE_FANIN`] are merged into one when they
//! are of one size tier, up to [`MAX_MERGED`] postings, dropping removed
//! originals. A lookup reads each segment's block holding the hash (a
//! sparse index of one key per 256 postings stays in RAM: 1/64 byte
//! per posting) with positioned reads, which the page cache serves.
//!
//! Segment file: magic `NDUPPOST`, version `u32`, count `u64`; the
//! postings as sorted `(hash, dense id)` pairs of little-endian `u32`;
//! the sparse index (first hash of every block, `u32`); xxh3-64 of the
//! postings, xxh3-64 of the sparse index; magic `NDUPPEND`. A snapshot
//! names the segments it covers and holds the postings not yet written;
//! segments merged away are deleted once a newer snapshot is durable, and
//! files no snapshot names are deleted when one is loaded.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use neardup::dedup::{Error as EngineError, PostingsStore};
use neardup::index::CompactPostings;

pub(crate) use crate::segment::verify_dir;
use crate::segment::{err, merge, write_segment, Segment};

/// The segments' directory inside the data directory.
pub const POSTINGS_DIR: &str = "postings";

/// Postings held in memory before they are written as a segment.
pub(crate) const FLUSH_AT: usize = 1 << 21;

/// Segments merged at once.
pub(crate) const MERGE_FANIN: usize = 4;

/// Postings past which segments are no longer merged (a merge of the
/// writer's stays under about a second).
pub(crate) const MAX_MERGED: u64 = 1 << 26;

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
        // The recent postings are of later originals than every segment's.
        let left = limit.saturating_sub(out.len());
        out.extend(self.recent.earliest(h, keep, left));
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
