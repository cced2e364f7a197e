//! [`CompactLsh`]: incremental MinHash LSH in about six bytes per band per
//! document, for a service that holds tens of millions of documents.
//!
//! Each band is a [`CompactPostings`] keyed by 32 bits of the band key
//! ([`band_key`](crate::band_key) folded), so a query returns every document
//! [`LshIndex`](crate::LshIndex) returns, plus the rare one whose band key
//! only agrees in those 32 bits (about `bands * n / 2^32` a query): the
//! caller verifies candidates anyway.

use std::io::{self, Read, Write};

use crate::compact::CompactPostings;
use crate::error::{Error, ErrorKind, Result};
use crate::lsh::{each_band_key, SignatureValue};
use crate::params::LshParams;

/// An incremental MinHash LSH index with compact band tables.
///
/// ```
/// use neardup_index::{CompactLsh, LshParams};
///
/// let mut lsh = CompactLsh::new(LshParams::new(2, 2)?);
/// lsh.insert(0, &[1u32, 2, 3, 4], |_| true)?;
/// lsh.insert(1, &[1u32, 2, 9, 9], |_| true)?;
/// lsh.insert(2, &[7u32, 7, 9, 8], |_| true)?;
/// assert_eq!(lsh.query(&[1u32, 2, 5, 5])?, [0, 1]);
/// # Ok::<(), neardup_index::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct CompactLsh {
    params: LshParams,
    tables: Vec<CompactPostings>,
}

/// The 32 bits of a band key a table keeps.
fn fold(key: u64) -> u32 {
    (key ^ (key >> 32)) as u32
}

/// The folded band keys of a signature under `params`: one 32-bit key a
/// band, what [`CompactLsh::insert_keys`] and [`CompactLsh::query_keys`]
/// take. A caller that keeps these instead of the signature (`4 * bands`
/// bytes) can still insert and query it.
///
/// # Errors
/// A signature shorter than `bands * rows`.
pub fn folded_band_keys<T: SignatureValue>(params: LshParams, signature: &[T]) -> Result<Vec<u32>> {
    Ok(each_band_key(params, signature)?.map(fold).collect())
}

/// Table `b` of `n`, its merges staggered from the other tables'.
fn stagger(b: usize, n: usize) -> CompactPostings {
    CompactPostings::staggered((b * 64 / n.max(1)) as u32)
}

impl CompactLsh {
    /// An empty index.
    pub fn new(params: LshParams) -> CompactLsh {
        CompactLsh {
            params,
            tables: (0..params.bands())
                .map(|b| stagger(b, params.bands()))
                .collect(),
        }
    }

    /// Bands and rows in use.
    pub fn params(&self) -> LshParams {
        self.params
    }

    /// [`folded_band_keys`] of a signature with this index's parameters.
    ///
    /// # Errors
    /// A signature shorter than `bands * rows`.
    pub fn band_keys<T: SignatureValue>(&self, signature: &[T]) -> Result<Vec<u32>> {
        folded_band_keys(self.params, signature)
    }

    /// Fails unless `keys` has one key a band.
    fn check_keys(&self, keys: &[u32]) -> Result<()> {
        if keys.len() != self.params.bands() {
            return Err(Error::new(ErrorKind::LengthMismatch {
                expected: self.params.bands(),
                got: keys.len(),
            }));
        }
        Ok(())
    }

    /// Adds document `id`; `alive` says which ids to keep when a table
    /// merges its levels. Fails on a signature shorter than `bands * rows`.
    pub fn insert<T: SignatureValue>(
        &mut self,
        id: u32,
        signature: &[T],
        alive: impl Fn(u32) -> bool,
    ) -> Result<()> {
        let keys = self.band_keys(signature)?;
        self.insert_keys(id, &keys, alive)
    }

    /// Adds document `id` by its [`CompactLsh::band_keys`]. Fails unless
    /// there is one key a band.
    pub fn insert_keys(
        &mut self,
        id: u32,
        keys: &[u32],
        alive: impl Fn(u32) -> bool,
    ) -> Result<()> {
        self.check_keys(keys)?;
        for (table, &key) in self.tables.iter_mut().zip(keys) {
            table.insert(key, id, &alive);
        }
        Ok(())
    }

    /// Ids sharing a band with `signature` (or 32 bits of its key), sorted,
    /// each once; removed ids are returned until a merge drops them.
    pub fn query<T: SignatureValue>(&self, signature: &[T]) -> Result<Vec<u32>> {
        self.query_keys(&self.band_keys(signature)?)
    }

    /// [`CompactLsh::query`] by [`CompactLsh::band_keys`]. Fails unless
    /// there is one key a band.
    pub fn query_keys(&self, keys: &[u32]) -> Result<Vec<u32>> {
        self.check_keys(keys)?;
        let mut out = Vec::new();
        for (table, &key) in self.tables.iter().zip(keys) {
            table.get(key, &mut out);
        }
        out.sort_unstable();
        out.dedup();
        Ok(out)
    }

    /// Merges every table into one run, without the ids `alive` refuses.
    pub fn compact(&mut self, alive: impl Fn(u32) -> bool) {
        for t in &mut self.tables {
            t.compact(&alive);
        }
    }

    /// Approximate heap bytes.
    pub fn memory_bytes(&self) -> usize {
        self.tables.iter().map(CompactPostings::memory_bytes).sum()
    }

    /// Writes the index: bands and rows (`u32` each), then every table.
    ///
    /// # Errors
    /// What `w` returns.
    pub fn write_to(&self, w: &mut impl Write) -> io::Result<()> {
        w.write_all(&(self.params.bands() as u32).to_le_bytes())?;
        w.write_all(&(self.params.rows() as u32).to_le_bytes())?;
        for t in &self.tables {
            t.write_to(w)?;
        }
        Ok(())
    }

    /// Reads what [`CompactLsh::write_to`] wrote.
    ///
    /// # Errors
    /// Truncated or inconsistent input, or what `r` returns.
    pub fn read_from(r: &mut impl Read) -> Result<CompactLsh> {
        let mut b = [0u8; 8];
        r.read_exact(&mut b)
            .map_err(|_| Error::invalid("truncated LSH index"))?;
        let word = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as usize;
        let params = LshParams::new(word(0), word(4))?;
        let n = params.bands();
        let tables = (0..n)
            .map(|b| {
                let mut t = CompactPostings::read_from(r)?;
                t.set_stagger(stagger(b, n).stagger());
                Ok(t)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(CompactLsh { params, tables })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MinHashLsh;

    #[test]
    fn finds_what_the_chained_index_finds() {
        let params = LshParams::new(8, 2).unwrap();
        let mut compact = CompactLsh::new(params);
        let mut chained = MinHashLsh::new().set_params(params).index();
        let sig = |i: u32| -> Vec<u32> { (0..16).map(|j| (i * 7 + j * (i % 5)) % 23).collect() };
        for i in 0..500 {
            compact.insert(i, &sig(i), |_| true).unwrap();
            chained.insert(i, &sig(i)).unwrap();
        }
        for q in 0..600 {
            assert_eq!(
                compact.query(&sig(q)).unwrap(),
                chained.query(&sig(q)).unwrap()
            );
        }
        let mut bytes = Vec::new();
        compact.write_to(&mut bytes).unwrap();
        let back = CompactLsh::read_from(&mut bytes.as_slice()).unwrap();
        assert_eq!(
            back.query(&sig(3)).unwrap(),
            compact.query(&sig(3)).unwrap()
        );
        assert!(CompactLsh::read_from(&mut &bytes[..bytes.len() - 1]).is_err());
        assert!(compact.query(&[1u32; 3]).is_err(), "short signature");
    }

    #[test]
    fn band_keys_insert_and_query_as_the_signature_does() {
        let params = LshParams::new(8, 2).unwrap();
        let (mut by_sig, mut by_keys) = (CompactLsh::new(params), CompactLsh::new(params));
        let sig = |i: u32| -> Vec<u32> { (0..16).map(|j| (i * 7 + j * (i % 5)) % 23).collect() };
        for i in 0..300 {
            let keys = by_keys.band_keys(&sig(i)).unwrap();
            assert_eq!(keys.len(), 8);
            by_keys.insert_keys(i, &keys, |_| true).unwrap();
            by_sig.insert(i, &sig(i), |_| true).unwrap();
        }
        for q in 0..350 {
            let keys = by_sig.band_keys(&sig(q)).unwrap();
            assert_eq!(
                by_keys.query_keys(&keys).unwrap(),
                by_sig.query(&sig(q)).unwrap()
            );
        }
        assert!(by_keys.insert_keys(0, &[1, 2, 3], |_| true).is_err());
        assert!(by_keys.query_keys(&[1; 9]).is_err());
    }
}
