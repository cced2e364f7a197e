//! Index snapshots: the in-RAM part of an [`OnlineCore`] as one file, so
//! that a service restarts by reading it instead of re-reading every
//! stored document.
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `NDUPSNAP` |
//! | 4 | format version ([`SNAPSHOT_VERSION`], little-endian `u32`) |
//! | 8 | xxh3-64 of the engine's identity (method, verifier and composite check parameters) |
//! | 4 + n | the caller's bytes (`u32` length first): what the snapshot covers |
//! | ... | the engine's parts: candidate index, one byte per dense id, signature keys, sampled postings |
//! | 8 | xxh3-64 of everything above |
//! | 8 | magic `NDUPSEND` |
//!
//! Written and read as a stream (no copy of the index in memory). A reader
//! checks magic, version and identity first and the checksum at the end;
//! a snapshot of another engine is refused as stale, a damaged one as
//! damaged ([`SnapshotRefusal`]), and the engine is left empty either way,
//! so that the caller rebuilds.

use std::io::{self, Read, Write};

use xxhash_rust::xxh3::Xxh3;

use neardup_index::{CompactLsh, CompactPostings};

use crate::error::Error;
use crate::online::decisions::OnlineCore;
use crate::online::docs::Kind;
use crate::online::index::write_lsh;
use crate::online::postings_store::FrozenPostings;

/// The snapshot format this build writes and reads.
pub const SNAPSHOT_VERSION: u32 = 1;

const MAGIC: &[u8; 8] = b"NDUPSNAP";
const END: &[u8; 8] = b"NDUPSEND";

/// Why a snapshot was not used.
#[derive(Debug)]
pub enum SnapshotRefusal {
    /// Made by another engine (method, verifier or composite settings), or
    /// by another format version: rebuild from the documents.
    Stale(String),
    /// Damaged: truncated, bad checksum, or inconsistent.
    Damaged(Error),
}

impl std::fmt::Display for SnapshotRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SnapshotRefusal::Stale(m) => write!(f, "made by another engine: {m}"),
            SnapshotRefusal::Damaged(e) => write!(f, "damaged: {e}"),
        }
    }
}

fn identity(core: &OnlineCore) -> u64 {
    let mut b = core.method().params_bytes();
    if let Some(v) = core.verifier() {
        b.extend(v.params_bytes());
    }
    if let Some(c) = core.composite() {
        b.push(1);
        b.extend(c.params_bytes());
    }
    xxhash_rust::xxh3::xxh3_64(&b)
}

/// A writer that hashes what passes through.
struct Hashing<W> {
    inner: W,
    hash: Xxh3,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
}

/// An engine's in-RAM parts as they were when [`OnlineCore::freeze`]
/// took them: cheap to take (the large sorted runs of the tables are
/// shared, not copied; the rest is about a byte per document), and
/// written on another thread while the engine goes on.
pub struct FrozenCore {
    identity: u64,
    candidates: Option<CompactLsh>,
    kinds: Vec<u8>,
    exact: CompactPostings,
    postings: Option<Box<dyn FrozenPostings>>,
}

impl std::fmt::Debug for FrozenCore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FrozenCore")
            .field("documents", &self.kinds.len())
            .finish_non_exhaustive()
    }
}

impl FrozenCore {
    /// Writes the snapshot with the caller's `extra` bytes (what it
    /// covers).
    ///
    /// # Errors
    /// What `w` returns.
    pub fn write_snapshot(&self, extra: &[u8], w: &mut impl Write) -> io::Result<()> {
        let mut h = Hashing {
            inner: w,
            hash: Xxh3::new(),
        };
        h.write_all(MAGIC)?;
        h.write_all(&SNAPSHOT_VERSION.to_le_bytes())?;
        h.write_all(&self.identity.to_le_bytes())?;
        let len = u32::try_from(extra.len()).map_err(io::Error::other)?;
        h.write_all(&len.to_le_bytes())?;
        h.write_all(extra)?;
        write_lsh(self.candidates.as_ref(), &mut h)?;
        h.write_all(&(self.kinds.len() as u64).to_le_bytes())?;
        for chunk in self.kinds.chunks(1 << 16) {
            h.write_all(chunk)?;
        }
        self.exact.write_to(&mut h)?;
        if let Some(p) = &self.postings {
            p.write_to(&mut h)?;
        }
        let sum = h.hash.digest();
        h.inner.write_all(&sum.to_le_bytes())?;
        h.inner.write_all(END)?;
        Ok(())
    }

    /// Called once the snapshot written is durable: what only older
    /// snapshots needed (merged-away postings files) may go.
    pub fn saved(&self) {
        if let Some(p) = &self.postings {
            p.saved();
        }
    }
}

impl OnlineCore {
    /// Takes the parts a snapshot holds, for [`FrozenCore::write_snapshot`]
    /// (on this thread or another); `None` when the method's candidate
    /// index is not saved.
    pub fn freeze(&self) -> Option<FrozenCore> {
        Some(FrozenCore {
            identity: identity(self),
            candidates: self.candidates.frozen()?,
            kinds: self.kinds.iter().map(|&k| k as u8).collect(),
            exact: self.exact.clone(),
            postings: self.postings.as_ref().map(|p| p.store().freeze()),
        })
    }

    /// Writes the snapshot of this engine with the caller's `extra` bytes
    /// (what it covers); `Ok(false)` when the method's candidate index is
    /// not saved (nothing useful was written then).
    ///
    /// # Errors
    /// What `w` returns.
    pub fn write_snapshot(&self, extra: &[u8], w: &mut impl Write) -> io::Result<bool> {
        match self.freeze() {
            Some(f) => f.write_snapshot(extra, w).map(|()| true),
            None => Ok(false),
        }
    }

    /// The snapshot as bytes (see [`OnlineCore::write_snapshot`]).
    pub fn snapshot(&self, extra: &[u8]) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        self.write_snapshot(extra, &mut out).ok()?.then_some(out)
    }

    /// Loads a snapshot into this engine, which must be empty and made
    /// with the same settings; returns the caller's bytes.
    ///
    /// # Errors
    /// A snapshot of another engine or version, or a damaged one; the
    /// engine is then left empty.
    pub fn restore_from(&mut self, r: &mut impl Read) -> Result<Vec<u8>, SnapshotRefusal> {
        if !self.is_empty() || self.next_dense() != 0 {
            return Err(SnapshotRefusal::Damaged(Error::snapshot(
                "restored into an engine in use",
            )));
        }
        let result = self.read_snapshot(r);
        if result.is_err() {
            self.clear();
        }
        result
    }

    fn read_snapshot(&mut self, r: &mut impl Read) -> Result<Vec<u8>, SnapshotRefusal> {
        let damaged = |m: &str| SnapshotRefusal::Damaged(Error::snapshot(m));
        let mut h = Hashing {
            inner: r,
            hash: Xxh3::new(),
        };
        let mut head = [0u8; 24];
        h.read_exact(&mut head)
            .map_err(|_| damaged("truncated header"))?;
        if &head[..8] != MAGIC {
            return Err(damaged("no snapshot magic"));
        }
        let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let version = word(&head[8..12]);
        if version != SNAPSHOT_VERSION {
            return Err(SnapshotRefusal::Stale(format!("format version {version}")));
        }
        let id = u64::from_le_bytes(head[12..20].try_into().unwrap_or([0; 8]));
        if id != identity(self) {
            return Err(SnapshotRefusal::Stale("other parameters".into()));
        }
        let mut extra = vec![0u8; word(&head[20..24]) as usize];
        h.read_exact(&mut extra).map_err(|_| damaged("truncated"))?;
        self.read_parts(&mut h).map_err(SnapshotRefusal::Damaged)?;
        let sum = h.hash.digest();
        let mut tail = [0u8; 16];
        h.inner
            .read_exact(&mut tail)
            .map_err(|_| damaged("truncated trailer"))?;
        if tail[..8] != sum.to_le_bytes() {
            return Err(damaged("checksum mismatch"));
        }
        if &tail[8..] != END {
            return Err(damaged("no end magic"));
        }
        let mut more = [0u8];
        if h.inner.read(&mut more).map_err(|_| damaged("unreadable"))? != 0 {
            return Err(damaged("trailing bytes"));
        }
        Ok(extra)
    }

    /// [`OnlineCore::restore_from`] of bytes.
    ///
    /// # Errors
    /// As there.
    pub fn restore(&mut self, bytes: &[u8]) -> Result<Vec<u8>, SnapshotRefusal> {
        self.restore_from(&mut &bytes[..])
    }
}

impl OnlineCore {
    /// Reads what [`FrozenCore::write_snapshot`] wrote after the caller's
    /// bytes into an empty engine
    /// made with the same settings.
    pub(crate) fn read_parts(&mut self, r: &mut impl Read) -> Result<(), Error> {
        let truncated = |_| Error::snapshot("truncated");
        self.candidates.read_from(r)?;
        let mut n = [0u8; 8];
        r.read_exact(&mut n).map_err(truncated)?;
        let n = usize::try_from(u64::from_le_bytes(n)).map_err(|_| Error::snapshot("too long"))?;
        if n >= u32::MAX as usize {
            return Err(Error::snapshot("too many documents"));
        }
        let mut kinds = Vec::with_capacity(n.min(1 << 28));
        let mut buf = vec![0u8; 1 << 16];
        let mut left = n;
        while left > 0 {
            let take = left.min(buf.len());
            r.read_exact(&mut buf[..take]).map_err(truncated)?;
            for &b in &buf[..take] {
                kinds.push(Kind::from_byte(b).ok_or_else(|| Error::snapshot("unknown kind"))?);
            }
            left -= take;
        }
        self.exact = CompactPostings::read_from(r)?;
        if let Some(p) = &mut self.postings {
            p.store_mut().read_from(r)?;
        }
        (self.originals, self.duplicates, self.empty) = (0, 0, 0);
        for &k in &kinds {
            self.count(k, 1);
        }
        self.kinds = kinds;
        Ok(())
    }
}

/// Checks a snapshot's framing and checksum without an engine (for
/// offline tools); its length in bytes.
///
/// # Errors
/// A damaged snapshot, or one of another format version.
pub fn check_snapshot(r: &mut impl Read) -> Result<u64, SnapshotRefusal> {
    let damaged = |m: &str| SnapshotRefusal::Damaged(Error::snapshot(m));
    let mut hash = Xxh3::new();
    let mut tail: Vec<u8> = Vec::with_capacity(16);
    let mut buf = vec![0u8; 1 << 20];
    let mut head = Vec::with_capacity(12);
    let mut total = 0u64;
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(damaged("unreadable")),
        };
        total += n as u64;
        if head.len() < 12 {
            let take = (12 - head.len()).min(n);
            head.extend_from_slice(&buf[..take]);
        }
        // Hash everything but the last 16 bytes seen so far.
        tail.extend_from_slice(&buf[..n]);
        if tail.len() > 16 {
            let cut = tail.len() - 16;
            hash.update(&tail[..cut]);
            tail.drain(..cut);
        }
    }
    if head.len() < 12 || &head[..8] != MAGIC || tail.len() < 16 {
        return Err(damaged("no snapshot magic (truncated?)"));
    }
    let version = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
    if version != SNAPSHOT_VERSION {
        return Err(SnapshotRefusal::Stale(format!("format version {version}")));
    }
    if tail[..8] != hash.digest().to_le_bytes() || &tail[8..] != END {
        return Err(damaged("checksum mismatch"));
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{default_method, signature_key, CandidateKeys, CompositeCheck, Online, Verifier};
    use neardup_sketch::{DocText, Sketcher};

    fn engine() -> OnlineCore {
        OnlineCore::new(
            default_method(),
            Some(Verifier::default()),
            Some(CompositeCheck::default()),
        )
        .unwrap()
    }

    #[test]
    fn a_snapshot_restores_the_same_verdicts_and_refuses_damage() {
        let method = default_method();
        let v = Verifier::default();
        let mut online =
            Online::new(method.clone(), Some(v), Some(CompositeCheck::default())).unwrap();
        let text = |i: usize| {
            format!("Report number {i} on the council budget, the new cycle lanes and the library hours, with comments from residents of the old town and the harbour district.")
        };
        for i in 0..40 {
            let t = text(i % 25);
            let sig = method.sketch(&DocText::from_text(&t));
            let key = signature_key(&sig.to_bytes());
            let seq = v.shingles(&t, &method);
            let j = online.judge(Some((&sig, key)), Some(&seq)).unwrap();
            online
                .add(&format!("d{i}"), Some((sig, key)), Some(seq), j)
                .unwrap();
        }
        let bytes = online.core().snapshot(b"covers 40").unwrap();
        let mut back = engine();
        assert_eq!(back.restore(&bytes).unwrap(), b"covers 40");
        assert_eq!(
            (back.originals(), back.duplicates()),
            (online.originals(), online.duplicates())
        );
        let probe = text(7);
        let sig = method.sketch(&DocText::from_text(&probe));
        let key = signature_key(&sig.to_bytes());
        let seq = v.shingles(&probe, &method);
        let want = online.judge(Some((&sig, key)), Some(&seq)).unwrap();
        let got = back
            .judge(
                online.docs(),
                Some(CandidateKeys::full(&sig, key)),
                Some(&seq),
                None,
            )
            .unwrap();
        assert_eq!(got, want);
        // Any flipped byte or cut is refused.
        for at in [0, 10, 30, bytes.len() / 2, bytes.len() - 9] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x40;
            assert!(engine().restore(&bad).is_err(), "flip at {at}");
        }
        assert!(engine().restore(&bytes[..bytes.len() - 1]).is_err());
        assert_eq!(
            check_snapshot(&mut bytes.as_slice()).unwrap(),
            bytes.len() as u64
        );
        for at in [0, 30, bytes.len() / 2, bytes.len() - 9] {
            let mut bad = bytes.clone();
            bad[at] ^= 0x40;
            assert!(check_snapshot(&mut bad.as_slice()).is_err(), "flip at {at}");
        }
        // Another engine's snapshot is stale, not damaged.
        let mut other = OnlineCore::new(default_method(), Some(v), None).unwrap();
        assert!(matches!(
            other.restore(&bytes),
            Err(SnapshotRefusal::Stale(_))
        ));
    }
}
