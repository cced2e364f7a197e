//! The verification sketch: a small, content-defined sample of a document's
//! token shingles, for when keeping every shingle (or the text they are cut
//! from) costs too much, as in a shared store where every instance holds
//! every document.
//!
//! A document of `n` shingles keeps the shingles whose 32-bit hash has its
//! top `level` bits zero, one in `2^level`, where `level` is the largest,
//! up to [`VerifySketch::max_level`], that still leaves about
//! [`VerifySketch::min_samples`] of them (a short document keeps every
//! shingle). Each kept shingle is its token position and 16 bits of its hash
//! (those below the `level` zero bits): 3 bytes in
//! [`ShingleSeq::to_sketch_bytes`].
//!
//! The rule is the exact verifier's ([`crate::Verifier`]) on the samples:
//! the two documents are compared at the coarser of their levels (the finer
//! one's samples are filtered down, so both keep the same shingles of the
//! shared ones), where the Jaccard similarity of the sampled sets estimates
//! that of the full sets, and the uncovered runs are measured from the
//! positions of the covered samples, less the mean gap between samples
//! (`2^level - 1` tokens). Identical documents always verify; the
//! estimate's error grows as samples get fewer (about 0.06 in Jaccard at 44
//! samples and similarity 0.5). The composite page check needs every
//! shingle and is off with a sketch.

use neardup_sketch::intersection_size;

use crate::verify::{comparison, Comparison, ShingleSeq};

/// Settings of the verification sketch (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerifySketch {
    /// A document keeps at least about this many shingles (all of them
    /// when it has fewer than twice as many).
    pub min_samples: u32,
    /// The coarsest sampling: one shingle in `2^max_level` (at most 15);
    /// the run rules' error grows with it.
    pub max_level: u8,
}

impl Default for VerifySketch {
    fn default() -> VerifySketch {
        VerifySketch {
            min_samples: 32,
            max_level: 3,
        }
    }
}

/// Where the samples of a sketched sequence are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Sampled {
    /// Token position of each sample, increasing.
    pub(crate) pos: Vec<u32>,
    /// One shingle in `2^level` is kept.
    pub(crate) level: u8,
}

/// Bits `level..level + 16` (from the top) of `h`, when its top `level`
/// bits are zero.
fn key_of(h: u32, level: u32) -> Option<u32> {
    if level > 0 && h >> (32 - level) != 0 {
        return None;
    }
    Some((h << level) >> 16)
}

impl VerifySketch {
    /// The sampling level of a document of `shingles` shingles.
    pub fn level(&self, shingles: usize) -> u8 {
        let max = self.max_level.min(15);
        let mut level = 0;
        while level < max && (shingles >> (level + 1)) >= self.min_samples as usize {
            level += 1;
        }
        level
    }

    /// The sketch of a full shingle sequence (a sketch is returned as is).
    pub fn sample(&self, seq: ShingleSeq) -> ShingleSeq {
        if seq.sampled.is_some() {
            return seq;
        }
        let level = self.level(seq.len());
        let (mut keys, mut pos) = (Vec::new(), Vec::new());
        for (i, &h) in seq.hashes().iter().enumerate() {
            if let Some(k) = key_of(h, u32::from(level)) {
                keys.push(k);
                pos.push(i as u32);
            }
        }
        ShingleSeq::sketched(keys, seq.tokens(), Sampled { pos, level })
    }
}

/// The (position, key) pairs of `seq` at level `at`, keys cut to the bits
/// both sides of a comparison have (`at..16 + low`, aligned to 16 bits).
fn keyed(seq: &ShingleSeq, at: u32, low: u32) -> Vec<(u32, u32)> {
    let mask = 0xFFFF & !((1u32 << (at - low)) - 1);
    match &seq.sampled {
        None => seq
            .hashes()
            .iter()
            .enumerate()
            .filter_map(|(i, &h)| key_of(h, at).map(|k| (i as u32, k & mask)))
            .collect(),
        Some(s) => {
            let d = at - u32::from(s.level);
            seq.hashes()
                .iter()
                .zip(&s.pos)
                .filter(|&(&k, _)| d == 0 || k >> (16 - d) == 0)
                .map(|(&k, &p)| (p, ((k << d) & 0xFFFF) & mask))
                .collect()
        }
    }
}

fn level_of(seq: &ShingleSeq) -> u32 {
    seq.sampled.as_ref().map_or(0, |s| u32::from(s.level))
}

/// The comparison of two sequences, either of them (or both) a sketch,
/// at the coarser level of the two; `k` is the shingle length.
pub(crate) fn compare_sampled(a: &ShingleSeq, b: &ShingleSeq, k: usize) -> Comparison {
    let (la, lb) = (level_of(a), level_of(b));
    let (at, low) = (la.max(lb), la.min(lb));
    let (ka, kb) = (keyed(a, at, low), keyed(b, at, low));
    let set = |kv: &[(u32, u32)]| {
        let mut s: Vec<u32> = kv.iter().map(|&(_, key)| key).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    let (sa, sb) = (set(&ka), set(&kb));
    if sa.is_empty() || sb.is_empty() {
        let mut c = comparison(1, 1, 0, (a.tokens(), a.tokens()), (b.tokens(), b.tokens()));
        c.jaccard = 0.0;
        return c;
    }
    // Samples are `2^at - 1` tokens apart on average: a run between two
    // covered samples is measured that much longer than it is.
    let gap = (1usize << at) - 1;
    let runs = |kv: &[(u32, u32)], other: &[u32], tokens: usize| {
        let (head, run) = sampled_runs(kv, other, tokens, k, at);
        (head.saturating_sub(gap), run.saturating_sub(gap))
    };
    let shared = intersection_size(&sa, &sb);
    comparison(
        sa.len(),
        sb.len(),
        shared,
        runs(&ka, &sb, a.tokens()),
        runs(&kb, &sa, b.tokens()),
    )
}

/// The uncovered runs (head, longest) of a sketch's samples `kv` against
/// the other document's keys, in tokens, as exact verification measures them on
/// every shingle, with what a sample can tell: a run reaches from the
/// covered text before it to the covered text after it, but no further
/// than `5 * 2^level` tokens past its outermost uncovered samples.
///
/// Samples are content-defined: a shingle repeated over a long stretch (a
/// run of one token, a repeated line) is kept at every position or at
/// none, so a stretch without samples is no evidence of text the other
/// document lacks. Distinct text goes that far without a sample about
/// once in 200 (`(1 - 2^-level)^(5 * 2^level)`), so the bound leaves
/// ordinary runs as they were.
fn sampled_runs(
    kv: &[(u32, u32)],
    other: &[u32],
    tokens: usize,
    k: usize,
    level: u32,
) -> (usize, usize) {
    let reach = 5usize << level;
    let mut covered_until = 0usize;
    let mut head: Option<usize> = None;
    let mut best = 0usize;
    // The first and last uncovered samples since the last covered one.
    let mut uncovered: Option<(usize, usize)> = None;
    let mut close = |end: usize,
                     uncovered: Option<(usize, usize)>,
                     covered_until: usize,
                     head: &mut Option<usize>| {
        let (start, run) = match uncovered {
            None => (covered_until, 0),
            Some((first, last)) => {
                let start = covered_until.max(first.saturating_sub(reach));
                (start, end.min(last + k + reach).saturating_sub(start))
            }
        };
        head.get_or_insert(if start == 0 { run } else { 0 });
        best = best.max(run);
    };
    for &(p, key) in kv {
        let p = p as usize;
        if other.binary_search(&key).is_ok() {
            close(p, uncovered.take(), covered_until, &mut head);
            covered_until = covered_until.max(p + k);
        } else if p + k > covered_until {
            let p = p.max(covered_until);
            uncovered = Some(uncovered.map_or((p, p), |(first, _)| (first, p)));
        }
    }
    close(tokens, uncovered, covered_until, &mut head);
    (head.unwrap_or(0), best)
}

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn varint(b: &mut &[u8]) -> Option<u64> {
    let mut n = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = b.split_first()?;
        *b = rest;
        n |= u64::from(byte & 0x7F) << shift;
        if byte < 0x80 {
            return Some(n);
        }
    }
    None
}

impl ShingleSeq {
    /// A sketch's bytes: its level (`u8`), the document's tokens and the
    /// number of samples (LEB128), then each sample's distance from the
    /// previous one's position (LEB128, from 0 for the first) and its 16-bit
    /// key (little-endian); `None` for a full sequence.
    pub fn to_sketch_bytes(&self) -> Option<Vec<u8>> {
        let s = self.sampled.as_ref()?;
        let mut out = Vec::with_capacity(8 + 3 * s.pos.len());
        out.push(s.level);
        put_varint(&mut out, self.tokens() as u64);
        put_varint(&mut out, s.pos.len() as u64);
        let mut prev = 0;
        for (&p, &k) in s.pos.iter().zip(self.hashes()) {
            put_varint(&mut out, u64::from(p - prev));
            out.extend_from_slice(&(k as u16).to_le_bytes());
            prev = p;
        }
        Some(out)
    }

    /// Reads [`ShingleSeq::to_sketch_bytes`]; `None` when the bytes are
    /// not a sketch.
    pub fn from_sketch_bytes(bytes: &[u8]) -> Option<ShingleSeq> {
        let (&level, mut b) = bytes.split_first()?;
        if level > 15 {
            return None;
        }
        let tokens = usize::try_from(varint(&mut b)?).ok()?;
        let n = usize::try_from(varint(&mut b)?).ok()?;
        if n > b.len() / 3 {
            return None;
        }
        let (mut keys, mut pos) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let mut at = 0u32;
        for i in 0..n {
            let step = u32::try_from(varint(&mut b)?).ok()?;
            if i > 0 && step == 0 {
                return None;
            }
            at = at.checked_add(step)?;
            let (k, rest) = b.split_first_chunk::<2>()?;
            b = rest;
            keys.push(u32::from(u16::from_le_bytes(*k)));
            pos.push(at);
        }
        if !b.is_empty() || pos.last().is_some_and(|&p| p as usize >= tokens) {
            return None;
        }
        Some(ShingleSeq::sketched(keys, tokens, Sampled { pos, level }))
    }

    /// Whether this is a sketch (not every shingle).
    pub fn is_sketch(&self) -> bool {
        self.sampled.is_some()
    }
}

#[cfg(test)]
#[path = "verify_sketch_tests.rs"]
mod tests;
