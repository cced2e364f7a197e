//! The index at open, and its snapshots.
//!
//! The engine's in-RAM part ([`OnlineCore`]: candidate tables, signature
//! keys, one byte per document) is saved as a snapshot file next to the
//! store ([`SNAPSHOT_FILE`]; format in `neardup::dedup`'s `snapshot`
//! module: magic, version, engine identity, checksum) at every clean close
//! and after every eighth of growth (`writer::snapshot_every`). The snapshot records the store
//! [`Position`] it covers. At open the snapshot is loaded, then brought up
//! to date from the store, which is the truth: documents removed since
//! (the `removed` table) are forgotten, documents stored since (sequence
//! numbers from the snapshot's on) are added with their recorded verdicts.
//! A missing, stale or damaged snapshot, or one of another store, is
//! ignored: the index is rebuilt from every stored document (slower, same
//! result).

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use neardup::dedup::{CandidateKeys, FrozenCore, Judgement, OnlineCore};
use neardup::sketch::{Method, Signature};
use neardup::{ShingleSeq, Verifier};

use crate::error::{Error, ErrorKind};
use crate::record::Record;
use crate::store::{Position, Store};

/// The snapshot's file name in the data directory.
pub const SNAPSHOT_FILE: &str = "index.snap";

/// How the index was brought up at open.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Whether a snapshot was loaded.
    pub from_snapshot: bool,
    /// Why a snapshot present was not used.
    pub snapshot_refused: Option<String>,
    /// Documents added from the store (all of them without a snapshot).
    pub replayed: u64,
    /// Removals applied from the store after the snapshot.
    pub removals: u64,
    /// Documents stored again from the journal (written before a crash,
    /// after the store's last checkpoint).
    pub from_journal: u64,
    /// How long bringing the index up took (loading the snapshot and
    /// replaying).
    pub took: std::time::Duration,
}

fn io_error(path: &Path, e: std::io::Error) -> Error {
    Error::with_source(ErrorKind::Io(format!("{}: {e}", path.display())), e)
}

/// Loads the snapshot in `dir` when it is usable and brings `core` (new
/// and empty) up to date with `store`.
pub(crate) fn open_index(
    dir: &Path,
    store: &Store,
    core: &mut OnlineCore,
) -> Result<Recovery, Error> {
    let started = std::time::Instant::now();
    let now = store.position()?;
    let mut recovery = Recovery {
        from_journal: store.from_journal,
        ..Recovery::default()
    };
    let path = dir.join(SNAPSHOT_FILE);
    let covered = match File::open(&path) {
        Ok(f) => match core.restore_from(&mut BufReader::with_capacity(1 << 20, f)) {
            Ok(extra) => match Position::from_bytes(&extra) {
                Some(p)
                    if p.instance == now.instance
                        && p.next_seq <= now.next_seq
                        && p.next_removal <= now.next_removal
                        && u64::from(core.next_dense()) <= p.next_seq =>
                {
                    Some(p)
                }
                _ => {
                    recovery.snapshot_refused = Some("made for another state of the store".into());
                    core.clear();
                    None
                }
            },
            Err(refusal) => {
                recovery.snapshot_refused = Some(refusal.to_string());
                None
            }
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(io_error(&path, e)),
    };
    let from = match covered {
        Some(p) => {
            recovery.from_snapshot = true;
            store.removed_from(p.next_removal, |seq| {
                if let Ok(d) = u32::try_from(seq) {
                    if core.remove(d) {
                        recovery.removals += 1;
                    }
                }
            })?;
            p.next_seq
        }
        None => {
            // Anything a snapshot left (segment files) goes.
            core.clear();
            0
        }
    };
    recovery.replayed = replay(store, core, from)?;
    recovery.took = started.elapsed();
    Ok(recovery)
}

/// Writes the snapshot of a frozen engine, covering store position `at`,
/// to `dir` (a new file, synced, then renamed over the old one); its size
/// in bytes.
pub(crate) fn save_snapshot(dir: &Path, core: &FrozenCore, at: Position) -> Result<u64, Error> {
    let path = dir.join(SNAPSHOT_FILE);
    let tmp: PathBuf = dir.join(format!("{SNAPSHOT_FILE}.partial"));
    let file = File::create(&tmp).map_err(|e| io_error(&tmp, e))?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let written = core
        .write_snapshot(&at.to_bytes(), &mut w)
        .and_then(|()| w.flush());
    let file = match (written, w.into_inner()) {
        (Ok(()), Ok(f)) => f,
        (Err(e), _) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(io_error(&tmp, e));
        }
        (_, Err(e)) => {
            let _ = std::fs::remove_file(&tmp);
            return Err(io_error(&tmp, e.into_error()));
        }
    };
    file.sync_all().map_err(|e| io_error(&tmp, e))?;
    let size = file.metadata().map_or(0, |m| m.len());
    drop(file);
    std::fs::rename(&tmp, &path).map_err(|e| io_error(&path, e))?;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(size)
}

/// Records decoded together, at most.
const REPLAY_CHUNK: usize = 4096;

/// Text bytes decoded together, at most (past it the chunk is added even
/// when it has fewer records): replay memory does not depend on how large
/// the stored texts are.
const REPLAY_BYTES: usize = 64 << 20;

/// Adds every stored document from sequence number `from` on to `core`,
/// with its recorded verdict; the number added.
fn replay(store: &Store, core: &mut OnlineCore, from: u64) -> Result<u64, Error> {
    let method = core.method().clone();
    let verifier = core.verifier().copied();
    // Shingles only feed the composite check's postings.
    let cut = verifier.filter(|_| core.composite_check());
    let mut chunk = Vec::with_capacity(REPLAY_CHUNK);
    let mut added = 0u64;
    let mut bytes = 0usize;
    store.load_from(from, |_, record| {
        bytes += record.text.as_ref().map_or(0, |t| t.len());
        chunk.push(record);
        if chunk.len() >= REPLAY_CHUNK || bytes >= REPLAY_BYTES {
            added += add_chunk(store, core, &mut chunk, cut.as_ref(), &method)?;
            bytes = 0;
        }
        Ok(())
    })?;
    added += add_chunk(store, core, &mut chunk, cut.as_ref(), &method)?;
    Ok(added)
}

/// Adds `records` (stored documents, in insertion order, with their
/// texts) to `core` with their recorded verdicts, as [`open_index`]
/// replays the store: a restored base ([`crate::base::restore`]).
pub(crate) fn add_records(
    store: &Store,
    core: &mut OnlineCore,
    records: &mut Vec<Record>,
) -> Result<u64, Error> {
    let method = core.method().clone();
    let verifier = core.verifier().copied();
    let cut = verifier.filter(|_| core.composite_check());
    add_chunk(store, core, records, cut.as_ref(), &method)
}

type Decoded = Result<(Option<Signature>, Option<u128>, Option<ShingleSeq>), Error>;

/// A record's signature (none when it keeps band keys instead), its key
/// and the shingles of its text for the composite check.
fn decode(r: &Record, cut: Option<&Verifier>, method: &Method) -> Decoded {
    let sig = match &r.signature {
        Some(b) => Some(
            Signature::from_bytes(b)
                .map_err(|e| Error::corrupt(format!("signature of document {}: {e}", r.seq)))?,
        ),
        None => None,
    };
    let shingles = match (cut, &r.text) {
        (Some(v), Some(t)) if r.duplicate_of.is_none() && r.has_text() => {
            Some(v.shingles(t, method))
        }
        _ => None,
    };
    Ok((sig, r.key(), shingles))
}

/// Adds a chunk of records, in order, decoding them on every core first.
fn add_chunk(
    store: &Store,
    core: &mut OnlineCore,
    chunk: &mut Vec<Record>,
    cut: Option<&Verifier>,
    method: &Method,
) -> Result<u64, Error> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per = chunk.len().div_ceil(threads.clamp(1, 8)).max(1);
    let mut decoded: Vec<Decoded> = Vec::with_capacity(chunk.len());
    std::thread::scope(|s| -> Result<(), Error> {
        let handles: Vec<_> = chunk
            .chunks(per)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|r| decode(r, cut, method))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            let part = h
                .join()
                .map_err(|_| Error::corrupt("a thread decoding the store failed"))?;
            decoded.extend(part);
        }
        Ok(())
    })?;
    let n = chunk.len() as u64;
    for (r, d) in chunk.drain(..).zip(decoded) {
        let (sig, key, shingles) = d?;
        let dense = u32::try_from(r.seq)
            .ok()
            .filter(|&d| d < u32::MAX)
            .ok_or_else(|| Error::corrupt(format!("sequence number {} too large", r.seq)))?;
        let duplicate_of = match (&r.duplicate_of, r.original_seq) {
            (None, _) => None,
            (Some((_, sim)), Some(seq)) => Some((u32::try_from(seq).unwrap_or(u32::MAX), *sim)),
            // Format 1: the original by id, when still stored.
            (Some((id, sim)), None) => Some((
                store
                    .get(id)?
                    .and_then(|o| u32::try_from(o.seq).ok())
                    .unwrap_or(u32::MAX),
                *sim,
            )),
        };
        let keys = key.map(|key| CandidateKeys {
            key,
            signature: sig.as_ref(),
            band_keys: r.band_keys.as_ref().map(|(_, k)| k.as_slice()),
        });
        core.add(dense, keys, shingles.as_ref(), Judgement { duplicate_of })?;
    }
    Ok(n)
}
