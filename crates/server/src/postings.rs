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
use std::sync::{Arc, Mutex};

use neardup::dedup::{Error as EngineError, FrozenPostings, PostingsStore};
use neardup::index::CompactPostings;

use crate::postings_frozen::FrozenDisk;
pub(crate) use crate::segment::verify_dir;
use crate::segment::{err, Segment};
use crate::segment_worker::{AliveBits, Done, Job, SegmentWorker};

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

/// Flushed postings not yet written past which an insertion waits for
/// the segment thread (bounds the memory of postings in flight).
pub(crate) const MAX_FLUSHING: usize = 3;

/// Sampled postings in segment files (see the module documentation).
#[derive(Debug)]
pub struct DiskPostings {
    dir: PathBuf,
    /// [`FLUSH_AT`], smaller in tests.
    flush_at: usize,
    recent: CompactPostings,
    /// Postings sent to be written, oldest first; read until their
    /// segment takes their place.
    flushing: Vec<Arc<CompactPostings>>,
    segments: Vec<Arc<Segment>>,
    /// Whether a merge is under way (one at a time).
    merging: bool,
    /// One past the largest id inserted since the postings were opened.
    end: u32,
    next_name: u64,
    /// Segments merged away, still named by the last durable snapshot.
    retired: Arc<Mutex<Vec<PathBuf>>>,
    /// Writes and merges segments off the caller's thread.
    worker: SegmentWorker,
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
            flushing: Vec::new(),
            segments: Vec::new(),
            merging: false,
            end: 0,
            next_name: 0,
            retired: Arc::default(),
            worker: SegmentWorker::start(dir)?,
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

    /// Sends the recent postings to be written as a segment.
    fn flush(&mut self, alive: &dyn Fn(u32) -> bool) -> Result<(), EngineError> {
        self.recent.compact(alive);
        let frozen = Arc::new(std::mem::take(&mut self.recent));
        let name = self.new_name();
        self.worker.send(Job::Write(name, Arc::clone(&frozen)))?;
        self.flushing.push(frozen);
        while self.flushing.len() > MAX_FLUSHING {
            self.collect(true, alive)?;
        }
        Ok(())
    }

    /// Applies finished jobs of the segment thread (waiting for one when
    /// `wait`), then starts a merge when one is due.
    fn collect(&mut self, wait: bool, alive: &dyn Fn(u32) -> bool) -> Result<(), EngineError> {
        let mut wait = wait;
        while let Some(done) = self.worker.next(wait) {
            wait = false;
            match done {
                Done::Written(seg) => {
                    // Jobs finish in the order sent: the oldest postings.
                    self.segments.push(Arc::new(seg?));
                    self.flushing.remove(0);
                }
                Done::Merged(inputs, seg) => {
                    self.merging = false;
                    let seg = seg?;
                    let at = self.segments.iter().position(|s| s.name == inputs[0]);
                    let Some(at) = at.filter(|&a| {
                        self.segments[a..]
                            .iter()
                            .map(|s| &s.name)
                            .take(inputs.len())
                            .eq(inputs.iter())
                    }) else {
                        return Err(err("a merged segment's inputs are gone"));
                    };
                    self.segments.splice(at..at + inputs.len(), [Arc::new(seg)]);
                    let mut retired = self.retired.lock().unwrap_or_else(|p| p.into_inner());
                    retired.extend(inputs.iter().map(|n| self.dir.join(n)));
                }
            }
        }
        self.start_merge(alive)
    }

    /// Sends the last [`MERGE_FANIN`] segments to be merged when they are
    /// of one size tier (and no merge is under way).
    fn start_merge(&mut self, alive: &dyn Fn(u32) -> bool) -> Result<(), EngineError> {
        if self.merging || self.segments.len() < MERGE_FANIN {
            return Ok(());
        }
        let tail = &self.segments[self.segments.len() - MERGE_FANIN..];
        let t = tier(tail[0].count, self.flush_at);
        let total: u64 = tail.iter().map(|s| s.count).sum();
        if tail.iter().any(|s| tier(s.count, self.flush_at) != t) || total > MAX_MERGED {
            return Ok(());
        }
        let inputs = tail.to_vec();
        let name = self.new_name();
        // Every id of the inputs is below the last one inserted.
        let alive = AliveBits::new(self.end, alive);
        self.worker.send(Job::Merge(name, inputs, alive))?;
        self.merging = true;
        Ok(())
    }

    /// Waits for every job of the segment thread and applies it.
    fn settle(&mut self, alive: &dyn Fn(u32) -> bool) -> Result<(), EngineError> {
        while self.worker.pending > 0 {
            self.collect(true, alive)?;
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
        self.end = self.end.max(d.saturating_add(1));
        for &h in hashes {
            self.recent.insert(h, d, alive);
        }
        if self.recent.len() >= self.flush_at {
            self.flush(alive)?;
        }
        self.collect(false, alive)
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
        // Postings being written, then the recent ones, are of later
        // originals than every segment's.
        for f in self.flushing.iter().map(|f| &**f).chain([&self.recent]) {
            let left = limit.saturating_sub(out.len());
            if left == 0 {
                break;
            }
            out.extend(f.earliest(h, keep, left));
        }
        Ok(out)
    }

    fn write_to(&self, w: &mut dyn Write) -> std::io::Result<()> {
        self.freeze().write_to(w)
    }

    fn freeze(&self) -> Box<dyn FrozenPostings> {
        let retired = Arc::clone(&self.retired);
        let retired_before = retired.lock().unwrap_or_else(|p| p.into_inner()).len();
        Box::new(FrozenDisk {
            next_name: self.next_name,
            segments: self
                .segments
                .iter()
                .map(|s| (s.name.clone(), s.count))
                .collect(),
            flushing: self.flushing.clone(),
            recent: self.recent.clone(),
            retired,
            retired_before,
        })
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
        self.settle(&|_| true)?;
        let names: Vec<&str> = segments.iter().map(|s| s.name.as_str()).collect();
        self.delete_others(&names);
        let segments = segments.into_iter().map(Arc::new).collect();
        (self.next_name, self.segments, self.recent) = (next_name, segments, recent);
        self.flushing.clear();
        Ok(())
    }

    fn clear(&mut self) {
        // Jobs under way would write files after the deletion.
        let _ = self.settle(&|_| true);
        self.delete_others(&[]);
        self.segments.clear();
        self.flushing.clear();
        self.merging = false;
        self.end = 0;
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
                .flushing
                .iter()
                .map(|f| f.memory_bytes())
                .sum::<usize>()
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
    fn a_saved_snapshot_deletes_only_files_merged_away_before_it() {
        let dir = TempDir::new("postings-frozen");
        let mut disk = small(&dir);
        let alive = |_: u32| true;
        let mut i = 0;
        while disk.segments.len() < 3 {
            disk.insert(i, &postings(i), &alive).unwrap();
            disk.settle(&alive).unwrap();
            i += 1;
        }
        let (frozen, frozen_end) = (disk.freeze(), i);
        let mut bytes = Vec::new();
        frozen.write_to(&mut bytes).unwrap();
        // Merges after the freeze retire segments the frozen bytes name.
        let merged = disk.retired.lock().unwrap().len();
        while disk.retired.lock().unwrap().len() == merged {
            disk.insert(i, &postings(i), &alive).unwrap();
            disk.settle(&alive).unwrap();
            i += 1;
        }
        frozen.saved();
        assert!(!disk.retired.lock().unwrap().is_empty());
        let mut back = small(&dir);
        back.read_from(&mut bytes.as_slice()).unwrap();
        for h in 0..97 {
            let want: Vec<u32> = (0..frozen_end)
                .filter(|&d| postings(d).contains(&h))
                .collect();
            assert_eq!(back.docs_with(h, &alive, 10_000).unwrap(), want, "hash {h}");
        }
        disk.freeze().saved();
        assert!(disk.retired.lock().unwrap().is_empty());
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
        // A snapshot taken while segments are being written holds the
        // postings not yet in one.
        let mut early = Vec::new();
        disk.write_to(&mut early).unwrap();
        // The files it names (finished segments are renamed into place
        // whole, and deleted only after a newer snapshot is saved).
        let dir2 = TempDir::new("postings-disk-early");
        for e in std::fs::read_dir(&*dir).unwrap().flatten() {
            let name = e.file_name();
            if name.to_string_lossy().ends_with(".post") {
                std::fs::copy(e.path(), dir2.join(&name)).unwrap();
            }
        }
        let same_as_memory = |disk: &DiskPostings| {
            for h in 0..97 {
                assert_eq!(
                    disk.docs_with(h, &alive, 1000).unwrap(),
                    memory.docs_with(h, &alive, 1000).unwrap(),
                    "hash {h}"
                );
            }
        };
        same_as_memory(&disk);
        disk.settle(&alive).unwrap();
        assert!(disk.flushing.is_empty() && disk.worker.pending == 0);
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
        disk.freeze().saved();
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
        // The early snapshot brings the same postings back.
        let mut early_back = small(&dir2);
        early_back.read_from(&mut early.as_slice()).unwrap();
        same_as_memory(&early_back);
        // Clearing deletes every segment.
        back.clear();
        assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0);
    }
}
