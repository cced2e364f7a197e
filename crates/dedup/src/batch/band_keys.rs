//! [`BandKeys`]: the LSH band keys of spilled signatures as a stream, in
//! the order the band sort takes them, read back a chunk of documents at
//! a time ([`SigSpill::load_band_keys`]) so that they never are all in
//! memory.

use neardup_index::LshParams;

use crate::batch::sig_spill::SigSpill;
use crate::error::Error;

/// Documents whose band keys a [`BandKeys`] holds in memory at once.
const STREAM_CHUNK: usize = 1 << 15;

/// An iterator over spilled band keys ([`SigSpill::band_keys`]). A read
/// that fails (a document without a MinHash signature or without keys of
/// these bands) ends the stream with an empty item and leaves the error
/// in [`BandKeys::error`].
pub(crate) struct BandKeys<'s> {
    spill: &'s mut SigSpill,
    docs: &'s [u32],
    params: LshParams,
    next: usize,
    chunk: std::vec::IntoIter<Vec<u64>>,
    error: Option<Error>,
}

impl<'s> BandKeys<'s> {
    /// The band keys under `params` of `docs`, in that order.
    pub(crate) fn new(spill: &'s mut SigSpill, docs: &'s [u32], params: LshParams) -> Self {
        BandKeys {
            spill,
            docs,
            params,
            next: 0,
            chunk: Vec::new().into_iter(),
            error: None,
        }
    }

    /// Why the stream ended early, if it did.
    pub(crate) fn error(&mut self) -> Option<Error> {
        self.error.take()
    }

    fn fill(&mut self) -> Result<(), Error> {
        let chunk = &self.docs[self.next..(self.next + STREAM_CHUNK).min(self.docs.len())];
        self.next += chunk.len();
        let mut loaded = self.spill.load_band_keys(chunk, self.params)?;
        let keys: Vec<Vec<u64>> = chunk
            .iter()
            .map(|d| loaded.remove(d).unwrap_or_default())
            .collect();
        self.chunk = keys.into_iter();
        Ok(())
    }
}

impl Iterator for BandKeys<'_> {
    type Item = Vec<u64>;

    fn next(&mut self) -> Option<Vec<u64>> {
        if self.error.is_some() {
            return None;
        }
        if let Some(v) = self.chunk.next() {
            return Some(v);
        }
        if self.next >= self.docs.len() {
            return None;
        }
        match self.fill() {
            Ok(()) => self.chunk.next(),
            Err(e) => {
                self.error = Some(e);
                Some(Vec::new())
            }
        }
    }
}
