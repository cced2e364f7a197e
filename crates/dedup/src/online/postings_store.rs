//! [`PostingsStore`]: where the composite page check's sampled postings
//! live (sampled shingle hash → originals holding it). They take a few
//! hundred bytes per original, more than the rest of the online engine's
//! RAM together, and are read only for the rare pair that passes
//! verification with a long foreign run; so a service keeps them on disk
//! (`neardup serve`'s segment files) and [`MemoryPostings`] keeps them in
//! memory for an in-process engine.

use std::fmt::Debug;
use std::io::{Read, Write};

use neardup_index::CompactPostings;

use crate::error::Error;

/// Sampled shingle hashes to the originals (dense ids) holding them.
pub trait PostingsStore: Debug + Send + Sync {
    /// Adds original `d` (greater than every original added before) under
    /// each of its sampled hashes (sorted, distinct); `alive` says which
    /// originals are still stored, for merges.
    ///
    /// # Errors
    /// The postings could not be written.
    fn insert(&mut self, d: u32, hashes: &[u32], alive: &dyn Fn(u32) -> bool) -> Result<(), Error>;

    /// The earliest `limit` originals holding `h` that `keep` accepts,
    /// ascending.
    ///
    /// # Errors
    /// The postings could not be read.
    fn docs_with(
        &self,
        h: u32,
        keep: &dyn Fn(u32) -> bool,
        limit: usize,
    ) -> Result<Vec<u32>, Error>;

    /// Writes what a snapshot must hold to find the postings again.
    ///
    /// # Errors
    /// What `w` returns.
    fn write_to(&self, w: &mut dyn Write) -> std::io::Result<()>;

    /// Reads what [`PostingsStore::write_to`] wrote, into an empty store.
    ///
    /// # Errors
    /// Damaged input, or postings it names that are gone.
    fn read_from(&mut self, r: &mut dyn Read) -> Result<(), Error>;

    /// What [`PostingsStore::write_to`] would write now, taken cheaply,
    /// for a snapshot written on another thread while this store goes on.
    fn freeze(&self) -> Box<dyn FrozenPostings>;

    /// Forgets every posting.
    fn clear(&mut self);

    /// Approximate heap bytes.
    fn memory_bytes(&self) -> usize;
}

/// A [`PostingsStore`] as it was when frozen, for a snapshot.
pub trait FrozenPostings: Send {
    /// Writes what [`PostingsStore::write_to`] wrote when this was taken.
    ///
    /// # Errors
    /// What `w` returns.
    fn write_to(&self, w: &mut dyn Write) -> std::io::Result<()>;

    /// Called once a snapshot holding these bytes is durable: what only
    /// older snapshots needed may go.
    fn saved(&self) {}
}

/// [`MemoryPostings`] frozen: its postings (their large runs shared).
struct FrozenMemory(CompactPostings);

impl FrozenPostings for FrozenMemory {
    fn write_to(&self, mut w: &mut dyn Write) -> std::io::Result<()> {
        self.0.write_to(&mut w)
    }
}

/// Sampled postings in memory: a [`CompactPostings`] (six bytes each).
#[derive(Debug, Default)]
pub struct MemoryPostings {
    postings: CompactPostings,
}

impl PostingsStore for MemoryPostings {
    fn insert(&mut self, d: u32, hashes: &[u32], alive: &dyn Fn(u32) -> bool) -> Result<(), Error> {
        for &h in hashes {
            self.postings.insert(h, d, alive);
        }
        Ok(())
    }

    fn docs_with(
        &self,
        h: u32,
        keep: &dyn Fn(u32) -> bool,
        limit: usize,
    ) -> Result<Vec<u32>, Error> {
        Ok(self.postings.earliest(h, keep, limit))
    }

    fn write_to(&self, mut w: &mut dyn Write) -> std::io::Result<()> {
        self.postings.write_to(&mut w)
    }

    fn read_from(&mut self, mut r: &mut dyn Read) -> Result<(), Error> {
        self.postings = CompactPostings::read_from(&mut r)?;
        Ok(())
    }

    fn freeze(&self) -> Box<dyn FrozenPostings> {
        Box::new(FrozenMemory(self.postings.clone()))
    }

    fn clear(&mut self) {
        self.postings = CompactPostings::new();
    }

    fn memory_bytes(&self) -> usize {
        self.postings.memory_bytes()
    }
}
