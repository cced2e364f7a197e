//! Hamming-distance search over SimHash fingerprints with permuted tables
//! (Manku, Jain and Das Sarma, "Detecting near-duplicates for web crawling").
//!
//! A fingerprint of `BITS` bits is cut into `k + 1` contiguous blocks. Two
//! fingerprints within Hamming distance `k` differ in at most `k` blocks, so
//! by the pigeonhole principle they agree on at least one whole block: one
//! table per block, keyed by that block's bits, finds every such pair. Each
//! candidate is verified by popcount. A pair agreeing on several blocks is
//! reported only from the first of them, so no deduplication pass is needed.
//!
//! Large `k` means short blocks and large buckets (up to `n^2 / 2^width`
//! comparisons per table): the scheme suits `k` up to about 7 on 64 bits.

use rayon::prelude::*;

use crate::error::{Error, ErrorKind, Result};
use crate::lsh::for_each_run;
use crate::table::{check_doc_count, ChainTable, IdSet};

mod sealed {
    pub trait Sealed {}
    impl Sealed for u64 {}
    impl Sealed for u128 {}
}

/// A SimHash fingerprint: `u64` or `u128`.
pub trait Fingerprint: Copy + Default + Send + Sync + Eq + sealed::Sealed {
    /// Number of bits.
    const BITS: u32;
    /// Hamming distance.
    fn distance(self, other: Self) -> u32;
    /// The bits `[shift, shift + width)` as a `u64` key (folded when
    /// `width > 64`; the fold can only add candidates, never lose one).
    fn block(self, shift: u32, width: u32) -> u64;
}

impl Fingerprint for u64 {
    const BITS: u32 = 64;
    fn distance(self, other: Self) -> u32 {
        (self ^ other).count_ones()
    }
    fn block(self, shift: u32, width: u32) -> u64 {
        let v = self.checked_shr(shift).unwrap_or(0);
        if width >= 64 {
            v
        } else {
            v & ((1u64 << width) - 1)
        }
    }
}

impl Fingerprint for u128 {
    const BITS: u32 = 128;
    fn distance(self, other: Self) -> u32 {
        (self ^ other).count_ones()
    }
    fn block(self, shift: u32, width: u32) -> u64 {
        let v = self.checked_shr(shift).unwrap_or(0);
        let v = if width >= 128 {
            v
        } else {
            v & ((1u128 << width) - 1)
        };
        (v as u64) ^ ((v >> 64) as u64).rotate_left(29)
    }
}

/// A pair within the distance bound: `(i, j, distance)` with `i < j`.
pub type SimPair = (u32, u32, u32);

/// Permuted-table index for SimHash fingerprints within Hamming distance `k`.
#[derive(Debug, Clone)]
pub struct SimHashIndex<F: Fingerprint = u64> {
    k: u32,
    blocks: Vec<(u32, u32)>,
    tables: Vec<ChainTable>,
    fps: Vec<F>,
    ids: IdSet,
}

impl<F: Fingerprint> Default for SimHashIndex<F> {
    fn default() -> Self {
        Self::new()
    }
}

/// `(shift, width)` of the `k + 1` blocks; the first `BITS % (k + 1)` blocks
/// are one bit wider.
fn layout(bits: u32, k: u32) -> Vec<(u32, u32)> {
    let n = k + 1;
    let (base, extra) = (bits / n, bits % n);
    let mut shift = 0;
    (0..n)
        .map(|i| {
            let w = base + u32::from(i < extra);
            let b = (shift, w);
            shift += w;
            b
        })
        .collect()
}

impl<F: Fingerprint> SimHashIndex<F> {
    /// An empty index for distance `k <= 3` (the usual setting for 64-bit
    /// SimHash on web pages).
    pub fn new() -> Self {
        Self {
            k: 3,
            blocks: layout(F::BITS, 3),
            tables: vec![ChainTable::default(); 4],
            fps: Vec::new(),
            ids: IdSet::default(),
        }
    }

    /// Sets the largest Hamming distance `k` found; `k < BITS`. Fails with
    /// `NotEmpty` once documents were inserted.
    pub fn set_max_distance(&mut self, k: u32) -> Result<&mut Self> {
        if k >= F::BITS {
            return Err(Error::invalid(
                "max distance must be below the fingerprint width",
            ));
        }
        if !self.is_empty() {
            return Err(Error::new(ErrorKind::NotEmpty));
        }
        self.k = k;
        self.blocks = layout(F::BITS, k);
        self.tables = vec![ChainTable::default(); self.blocks.len()];
        Ok(self)
    }

    /// The distance bound.
    pub fn max_distance(&self) -> u32 {
        self.k
    }

    /// Number of documents inserted.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no document was inserted.
    pub fn is_empty(&self) -> bool {
        self.ids.len() == 0
    }

    /// Adds document `id`; fails on an id inserted before or `u32::MAX`.
    ///
    /// Ids are dense indices: per-id arrays grow to the largest id inserted.
    pub fn insert(&mut self, id: u32, fp: F) -> Result<()> {
        self.ids.insert(id)?;
        let slot = id as usize;
        if self.fps.len() <= slot {
            self.fps.resize(slot + 1, F::default());
        }
        self.fps[slot] = fp;
        for (t, &(shift, width)) in self.tables.iter_mut().zip(&self.blocks) {
            t.insert(fp.block(shift, width), id);
        }
        Ok(())
    }

    /// Inserted documents within distance `k` of `fp`, as `(id, distance)`
    /// sorted by id.
    pub fn query(&self, fp: F) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for (t, (table, &(shift, width))) in self.tables.iter().zip(&self.blocks).enumerate() {
            for id in table.bucket(fp.block(shift, width)) {
                let other = self.fps[id as usize];
                if self.first_shared_block(fp, other) == Some(t) {
                    let d = fp.distance(other);
                    if d <= self.k {
                        out.push((id, d));
                    }
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// Every pair of inserted documents within distance `k`, sorted.
    pub fn candidate_pairs(&self) -> Vec<SimPair> {
        let mut out = Vec::new();
        let mut group = Vec::new();
        for (t, table) in self.tables.iter().enumerate() {
            for chain in table.buckets() {
                group.clear();
                group.extend(chain);
                group.sort_unstable();
                self.verify_group(t, &group, |i| self.fps[i as usize], &mut out);
            }
        }
        out.sort_unstable();
        out
    }

    /// Batch mode: every pair `(i, j, d)` of `fps` with `d <= k`, sorted,
    /// using this index's `k` only (inserted documents are not involved).
    /// Same result for any number of threads.
    pub fn pairs(&self, fps: &[F]) -> Result<Vec<SimPair>> {
        check_doc_count(fps.len())?;
        let per_table: Vec<Vec<SimPair>> = self
            .blocks
            .par_iter()
            .enumerate()
            .map(|(t, &(shift, width))| {
                let mut entries: Vec<(u64, u32)> = fps
                    .iter()
                    .enumerate()
                    .map(|(i, fp)| (fp.block(shift, width), i as u32))
                    .collect();
                entries.sort_unstable();
                let (keys, ids): (Vec<u64>, Vec<u32>) = entries.into_iter().unzip();
                let mut out = Vec::new();
                for_each_run(&keys, |lo, hi| {
                    self.verify_group(t, &ids[lo..hi], |i| fps[i as usize], &mut out);
                });
                out
            })
            .collect();
        let mut all: Vec<SimPair> = per_table.into_iter().flatten().collect();
        all.par_sort_unstable();
        Ok(all)
    }

    /// Approximate heap bytes held by the index.
    pub fn memory_bytes(&self) -> usize {
        self.tables
            .iter()
            .map(ChainTable::memory_bytes)
            .sum::<usize>()
            + self.fps.capacity() * std::mem::size_of::<F>()
            + self.ids.memory_bytes()
    }

    /// The first block on which `a` and `b` agree.
    fn first_shared_block(&self, a: F, b: F) -> Option<usize> {
        self.blocks
            .iter()
            .position(|&(s, w)| a.block(s, w) == b.block(s, w))
    }

    /// Pairs of one bucket of table `t` (ids sorted ascending) that are first
    /// found in `t` and lie within `k`.
    fn verify_group(&self, t: usize, group: &[u32], fp: impl Fn(u32) -> F, out: &mut Vec<SimPair>) {
        for (x, &i) in group.iter().enumerate() {
            let a = fp(i);
            for &j in &group[x + 1..] {
                let b = fp(j);
                let d = a.distance(b);
                if d <= self.k && self.first_shared_block(a, b) == Some(t) {
                    out.push((i, j, d));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_covers_all_bits() {
        assert_eq!(layout(64, 3), vec![(0, 16), (16, 16), (32, 16), (48, 16)]);
        assert_eq!(layout(64, 2), vec![(0, 22), (22, 21), (43, 21)]);
        assert_eq!(layout(128, 0), vec![(0, 128)]);
        assert_eq!(0xABCDu64.block(4, 8), 0xBC);
        assert_eq!(u64::MAX.block(0, 64), u64::MAX);
    }

    #[test]
    fn finds_pairs_within_k_once() {
        let base = 0x0123_4567_89AB_CDEFu64;
        let fps = [
            base,
            base ^ 0b111,
            base ^ (1 << 63) ^ (1 << 20),
            !base,
            base,
        ];
        let idx = SimHashIndex::<u64>::new();
        let pairs = idx.pairs(&fps).unwrap();
        assert_eq!(
            pairs,
            vec![(0, 1, 3), (0, 2, 2), (0, 4, 0), (1, 4, 3), (2, 4, 2)]
        );
        let mut inc = SimHashIndex::<u64>::new();
        for (i, &f) in fps.iter().enumerate() {
            inc.insert(i as u32, f).unwrap();
        }
        assert_eq!(inc.candidate_pairs(), pairs);
        assert_eq!(inc.query(base ^ 1), vec![(0, 1), (1, 2), (2, 3), (4, 1)]);
        assert_eq!(inc.query(!base ^ 0x7), vec![(3, 3)]);
        assert!(inc.query(!base ^ 0xF).is_empty());
    }

    #[test]
    fn u128_and_k0() {
        let mut idx = SimHashIndex::<u128>::new();
        idx.set_max_distance(0).unwrap();
        idx.insert(0, 5).unwrap();
        idx.insert(1, 5).unwrap();
        idx.insert(2, 6).unwrap();
        assert_eq!(idx.candidate_pairs(), vec![(0, 1, 0)]);
        assert!(idx.set_max_distance(2).is_err());
        assert!(SimHashIndex::<u64>::new().set_max_distance(64).is_err());
        assert!(idx.insert(1, 9).is_err());
    }
}
