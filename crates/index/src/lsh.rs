//! MinHash LSH: configuration, band keys and the batch (frozen) tables.
//!
//! A signature of `bands * rows` values is cut into `bands` bands; each band
//! is hashed with xxh3 under the fixed seed [`BAND_SEED`] into a `u64` band
//! key. Two documents are candidates when they share the key of at least one
//! band. The batch path, [`MinHashLsh::build`], keeps per band the keys sorted
//! with their ids in two parallel arrays (12 bytes per document and band),
//! and [`LshTables::candidate_pairs`] walks each band's runs of equal keys.

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::error::{Error, ErrorKind, Result};
use crate::lsh_index::LshIndex;
use crate::params::LshParams;
use crate::radix::sort_entries;
use crate::spill_lsh::SpillLsh;
use crate::table::{check_doc_count, group_pairs};

/// Documents whose band keys are computed together in [`MinHashLsh::build`].
const KEY_CHUNK: usize = 2048;

/// Seed of the band-key hash. Changing it changes every band key.
pub const BAND_SEED: u64 = 0x6e65_6172_6475_7031;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// A MinHash signature value: `u32` or `u64`. Band keys hash the values'
/// little-endian bytes, so they are the same on every platform.
pub trait SignatureValue: Copy + Send + Sync + sealed::Sealed {
    /// Appends the little-endian bytes of `self`.
    fn extend_le(self, out: &mut Vec<u8>);
}

impl SignatureValue for u32 {
    fn extend_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl SignatureValue for u64 {
    fn extend_le(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

/// The key of one band: xxh3 (seed [`BAND_SEED`]) of its values' bytes.
/// `scratch` is a reusable buffer.
pub fn band_key<T: SignatureValue>(band: &[T], scratch: &mut Vec<u8>) -> u64 {
    scratch.clear();
    for &v in band {
        v.extend_le(scratch);
    }
    xxh3_64_with_seed(scratch, BAND_SEED)
}

/// The key of every band of `signature` under `params` ([`band_key`] of
/// each band's rows, in band order): what the band tables sort, and what a
/// caller can keep instead of the signature
/// ([`SpillLsh::candidate_pairs_of_keys`](crate::SpillLsh::candidate_pairs_of_keys)).
///
/// # Errors
/// A signature shorter than `bands * rows`.
pub fn band_keys<T: SignatureValue>(params: LshParams, signature: &[T]) -> Result<Vec<u64>> {
    Ok(each_band_key(params, signature)?.collect())
}

/// [`band_keys`] one at a time, without collecting them: what the tables
/// insert and query band by band.
///
/// # Errors
/// A signature shorter than `bands * rows` (checked before any key).
pub(crate) fn each_band_key<T: SignatureValue>(
    params: LshParams,
    signature: &[T],
) -> Result<impl Iterator<Item = u64> + '_> {
    let p = params;
    check_signatures(std::iter::once(signature.len()), p.num_perm())?;
    let mut scratch = Vec::new();
    Ok((0..p.bands())
        .map(move |b| band_key(&signature[b * p.rows()..(b + 1) * p.rows()], &mut scratch)))
}

/// Configuration of a MinHash LSH index, and the entry point to its batch
/// ([`build`](Self::build)) and incremental ([`index`](Self::index)) forms.
#[derive(Debug, Clone, Default)]
pub struct MinHashLsh {
    cfg: Config,
}

#[derive(Debug, Clone, Default)]
struct Config {
    params: LshParams,
    max_bucket_len: Option<usize>,
}

impl MinHashLsh {
    /// Default configuration: [`LshParams::default`] (threshold 0.7, 128
    /// permutations), no bucket cap.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets bands and rows.
    pub fn set_params(&mut self, params: LshParams) -> &mut Self {
        self.cfg.params = params;
        self
    }

    /// Caps the pairs taken from one bucket (a run of documents sharing a band
    /// key). A bucket of `len > cap` documents yields only the pairs whose
    /// smaller id is among its `cap` lowest ids (`O(len * cap)` pairs instead
    /// of `O(len^2)`), and a query returns only those `cap` lowest ids of it.
    /// Huge buckets come from boilerplate pages; with the default order
    /// (lower id = higher priority) every member still meets the documents
    /// it would be clustered with first. `None` (default) keeps everything.
    /// `Some(0)` is treated as `Some(1)`.
    pub fn set_max_bucket_len(&mut self, cap: Option<usize>) -> &mut Self {
        self.cfg.max_bucket_len = cap.map(|c| c.max(1));
        self
    }

    /// Bands and rows in use.
    pub fn params(&self) -> LshParams {
        self.cfg.params
    }

    /// The bucket cap in use.
    pub fn max_bucket_len(&self) -> Option<usize> {
        self.cfg.max_bucket_len
    }

    /// An empty incremental index with this configuration.
    pub fn index(&self) -> LshIndex {
        LshIndex::with_config(self.cfg.params, self.cfg.max_bucket_len)
    }

    /// External-memory candidate generation with this configuration, for
    /// band tables larger than RAM.
    pub fn spill(&self) -> SpillLsh {
        SpillLsh::with_config(self.cfg.params, self.cfg.max_bucket_len)
    }

    /// Builds the batch tables from all signatures; document `i` is
    /// `signatures[i]`. Values past `bands * rows` are ignored.
    pub fn build<T, S>(&self, signatures: &[S]) -> Result<LshTables>
    where
        T: SignatureValue,
        S: AsRef<[T]> + Sync,
    {
        check_doc_count(signatures.len())?;
        let p = self.cfg.params;
        check_signatures(signatures.iter().map(|s| s.as_ref().len()), p.num_perm())?;
        // Keys are computed document by document (each signature is read
        // once, while hot in cache) in chunks, stored band-major per chunk,
        // then each band gathers its keys and sorts them.
        let rows = p.rows();
        let chunks: Vec<(usize, Vec<u64>)> = signatures
            .par_chunks(KEY_CHUNK)
            .map_init(Vec::new, |scratch, chunk| {
                let mut keys = vec![0u64; chunk.len() * p.bands()];
                for (j, s) in chunk.iter().enumerate() {
                    let s = s.as_ref();
                    for b in 0..p.bands() {
                        keys[b * chunk.len() + j] = band_key(&s[b * rows..(b + 1) * rows], scratch);
                    }
                }
                (chunk.len(), keys)
            })
            .collect();
        let bands = (0..p.bands())
            .into_par_iter()
            .map(|b| {
                let mut entries: Vec<(u64, u32)> = Vec::with_capacity(signatures.len());
                for (len, keys) in &chunks {
                    let base = entries.len() as u32;
                    let mine = &keys[b * len..(b + 1) * len];
                    entries.extend(mine.iter().enumerate().map(|(j, &k)| (k, base + j as u32)));
                }
                sort_entries(&mut entries);
                let (keys, ids) = entries.into_iter().unzip();
                Band { keys, ids }
            })
            .collect();
        Ok(LshTables {
            params: p,
            max_bucket_len: self.cfg.max_bucket_len,
            bands,
            len: signatures.len(),
        })
    }
}

/// Fails with `SignatureTooShort` on the first length below `need`.
pub(crate) fn check_signatures(lens: impl Iterator<Item = usize>, need: usize) -> Result<()> {
    for got in lens {
        if got < need {
            return Err(Error::new(ErrorKind::SignatureTooShort {
                expected: need,
                got,
            }));
        }
    }
    Ok(())
}

#[derive(Debug, Clone)]
struct Band {
    keys: Vec<u64>,
    ids: Vec<u32>,
}

/// Frozen LSH tables of a whole collection (batch mode).
#[derive(Debug, Clone)]
pub struct LshTables {
    params: LshParams,
    max_bucket_len: Option<usize>,
    bands: Vec<Band>,
    len: usize,
}

impl LshTables {
    /// Number of documents.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the tables hold no document.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bands and rows in use.
    pub fn params(&self) -> LshParams {
        self.params
    }

    /// Every pair `(i, j)`, `i < j`, sharing at least one band key (subject
    /// to the bucket cap), each once, sorted ascending. The result does not
    /// depend on the number of threads.
    pub fn candidate_pairs(&self) -> Vec<(u32, u32)> {
        let cap = self.max_bucket_len;
        let per_band: Vec<Vec<(u32, u32)>> = self
            .bands
            .par_iter()
            .map(|band| {
                let mut out = Vec::new();
                for_each_run(&band.keys, |lo, hi| {
                    if hi - lo > 1 {
                        group_pairs(&band.ids[lo..hi], cap, &mut out);
                    }
                });
                out
            })
            .collect();
        let mut pairs: Vec<(u32, u32)> = per_band.into_iter().flatten().collect();
        pairs.par_sort_unstable();
        pairs.dedup();
        pairs
    }

    /// Ids sharing at least one band key with `signature`, sorted, each once.
    pub fn query<T: SignatureValue>(&self, signature: &[T]) -> Result<Vec<u32>> {
        let mut out = Vec::new();
        for (band, key) in self
            .bands
            .iter()
            .zip(each_band_key(self.params, signature)?)
        {
            let lo = band.keys.partition_point(|&k| k < key);
            let hi = band.keys.partition_point(|&k| k <= key);
            let take = self.max_bucket_len.unwrap_or(usize::MAX).min(hi - lo);
            out.extend_from_slice(&band.ids[lo..lo + take]);
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// Heap bytes held by the tables.
    pub fn memory_bytes(&self) -> usize {
        self.bands
            .iter()
            .map(|b| b.keys.capacity() * 8 + b.ids.capacity() * 4)
            .sum()
    }
}

/// Calls `f(lo, hi)` for each maximal run of equal values in sorted `keys`.
pub(crate) fn for_each_run<K: PartialEq>(keys: &[K], mut f: impl FnMut(usize, usize)) {
    let mut lo = 0;
    while lo < keys.len() {
        let mut hi = lo + 1;
        while hi < keys.len() && keys[hi] == keys[lo] {
            hi += 1;
        }
        f(lo, hi);
        lo = hi;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lsh(b: usize, r: usize) -> MinHashLsh {
        let mut l = MinHashLsh::new();
        l.set_params(LshParams::new(b, r).unwrap());
        l
    }

    #[test]
    fn band_keys_are_stable_and_width_aware() {
        let mut s = Vec::new();
        let a = band_key(&[1u64, 2, 3], &mut s);
        assert_eq!(a, band_key(&[1u64, 2, 3], &mut s));
        assert_ne!(a, band_key(&[1u64, 2, 4], &mut s));
        assert_ne!(band_key(&[1u32, 2], &mut s), band_key(&[1u64, 2], &mut s));
    }

    #[test]
    fn pairs_from_shared_bands_only() {
        // 2 bands x 2 rows. Doc 0 and 1 share band 0; 1 and 2 share band 1;
        // doc 3 shares nothing; doc 4 equals doc 0 entirely.
        let sigs: Vec<Vec<u64>> = vec![
            vec![1, 2, 3, 4],
            vec![1, 2, 9, 9],
            vec![7, 7, 9, 9],
            vec![5, 5, 5, 5],
            vec![1, 2, 3, 4, 99],
        ];
        let t = lsh(2, 2).build(&sigs).unwrap();
        assert_eq!(t.candidate_pairs(), vec![(0, 1), (0, 4), (1, 2), (1, 4)]);
        assert_eq!(t.query(&[1u64, 2, 0, 0]).unwrap(), vec![0, 1, 4]);
        assert_eq!(t.query(&[0u64, 0, 9, 9]).unwrap(), vec![1, 2]);
        assert!(t.query(&[0u64, 0, 0, 0]).unwrap().is_empty());
        assert_eq!(t.len(), 5);
        assert!(t.memory_bytes() >= 5 * 2 * 12);
    }

    #[test]
    fn u32_signatures_work() {
        let sigs: Vec<&[u32]> = vec![&[1, 2, 3], &[1, 2, 3], &[4, 5, 6]];
        let t = lsh(3, 1).build(&sigs).unwrap();
        assert_eq!(t.candidate_pairs(), vec![(0, 1)]);
    }

    #[test]
    fn bucket_cap_limits_pairs() {
        let sigs = vec![vec![1u64, 1]; 5];
        let mut l = lsh(1, 2);
        l.set_max_bucket_len(Some(2));
        let t = l.build(&sigs).unwrap();
        assert_eq!(
            t.candidate_pairs(),
            vec![(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)]
        );
        assert_eq!(t.query(&[1u64, 1]).unwrap(), vec![0, 1]);
    }

    #[test]
    fn short_signature_is_an_error() {
        let sigs = vec![vec![1u64, 2, 3, 4], vec![1u64, 2]];
        let e = lsh(2, 2).build(&sigs).unwrap_err();
        assert!(matches!(
            e.kind(),
            ErrorKind::SignatureTooShort {
                expected: 4,
                got: 2
            }
        ));
        let t = lsh(2, 2).build(&sigs[..1]).unwrap();
        assert!(t.query(&[1u64]).is_err());
    }

    #[test]
    fn empty_collection() {
        let sigs: Vec<Vec<u64>> = Vec::new();
        let t = MinHashLsh::new().build(&sigs).unwrap();
        assert!(t.is_empty());
        assert!(t.candidate_pairs().is_empty());
    }
}
