//! [`FrozenDisk`]: the [`DiskPostings`](crate::DiskPostings) as they were
//! when an index snapshot was taken, written by the snapshot's thread
//! while the service goes on.
//!
//! The bytes: the next segment number `u64`, the number of segments
//! `u32`, each segment's name (`u32` length and bytes) and posting count
//! `u64`, then the postings not yet in a segment as a [`CompactPostings`]
//! writes itself (those being written by the segment thread and the recent
//! ones, merged into its first run).

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use neardup::dedup::FrozenPostings;
use neardup::index::CompactPostings;

/// The postings as they were (see the module documentation).
pub(crate) struct FrozenDisk {
    pub next_name: u64,
    /// Name and posting count of every segment, in order.
    pub segments: Vec<(String, u64)>,
    /// Postings being written as segments (shared, never changed).
    pub flushing: Vec<Arc<CompactPostings>>,
    /// The recent postings (their large runs shared).
    pub recent: CompactPostings,
    /// The files of segments merged away, to delete once a snapshot that
    /// no longer names them is durable ...
    pub retired: Arc<Mutex<Vec<PathBuf>>>,
    /// ... of which the first this many were merged away before this.
    pub retired_before: usize,
}

impl FrozenPostings for FrozenDisk {
    fn write_to(&self, w: &mut dyn Write) -> std::io::Result<()> {
        w.write_all(&self.next_name.to_le_bytes())?;
        w.write_all(&(self.segments.len() as u32).to_le_bytes())?;
        for (name, count) in &self.segments {
            w.write_all(&(name.len() as u32).to_le_bytes())?;
            w.write_all(name.as_bytes())?;
            w.write_all(&count.to_le_bytes())?;
        }
        let mut w = w;
        if self.flushing.is_empty() {
            return self.recent.write_to(&mut w);
        }
        let parts: Vec<&CompactPostings> = self.flushing.iter().map(|f| &**f).collect();
        write_union(&parts, &self.recent, &mut w)
    }

    fn saved(&self) {
        // Files merged away after this was taken are still named by it.
        let mut retired = self.retired.lock().unwrap_or_else(|p| p.into_inner());
        let n = self.retired_before.min(retired.len());
        for path in retired.drain(..n) {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Writes the entries of `parts` and `recent` as [`CompactPostings`]
/// writes itself, all in its first run (read back as one sorted run).
pub(crate) fn write_union(
    parts: &[&CompactPostings],
    recent: &CompactPostings,
    w: &mut impl Write,
) -> std::io::Result<()> {
    let total = parts.iter().map(|p| p.len()).sum::<usize>() + recent.len();
    w.write_all(&(total as u64).to_le_bytes())?;
    w.write_all(&(total as u64).to_le_bytes())?;
    let mut streams: Vec<_> = parts
        .iter()
        .chain([&recent])
        .map(|p| p.iter().peekable())
        .collect();
    let mut buf = Vec::with_capacity(1 << 16);
    loop {
        let next = streams
            .iter_mut()
            .filter_map(|s| s.peek().copied().map(|e| (e, s)))
            .min_by_key(|(e, _)| *e);
        let Some((e, s)) = next else { break };
        s.next();
        buf.extend_from_slice(&e.0.to_le_bytes());
        buf.extend_from_slice(&e.1.to_le_bytes());
        if buf.len() >= 1 << 16 {
            w.write_all(&buf)?;
            buf.clear();
        }
    }
    w.write_all(&buf)?;
    w.write_all(&0u64.to_le_bytes())?;
    w.write_all(&0u64.to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_in_flight_are_written_as_one_sorted_run() {
        let mut parts = [CompactPostings::new(), CompactPostings::new()];
        let mut recent = CompactPostings::new();
        let mut all = Vec::new();
        for d in 0..3000u32 {
            let h = d.wrapping_mul(2_654_435_761) % 500;
            let p = match d / 1000 {
                0 => &mut parts[0],
                1 => &mut parts[1],
                _ => &mut recent,
            };
            p.insert(h, d, |_| true);
            all.push((h, d));
        }
        all.sort_unstable();
        let refs: Vec<&CompactPostings> = parts.iter().collect();
        let mut bytes = Vec::new();
        write_union(&refs, &recent, &mut bytes).unwrap();
        let back = CompactPostings::read_from(&mut bytes.as_slice()).unwrap();
        assert_eq!(back.iter().collect::<Vec<_>>(), all);
    }
}
