//! The write-ahead journal: what makes a batch durable between
//! checkpoints of the store.
//!
//! redb makes a commit durable with an fsync of the database file; after a
//! crash it then walks the whole file to rebuild its page allocator (a
//! "repair": about 5 s at 10^6 stored documents, most of 90 s at 10^7),
//! unless the last durable commit saved the allocator's state ("quick
//! repair"), which writes that state (about 256 KiB per 4 GiB of file) in
//! a two-phase commit: too much for every batch. So the writer commits
//! each batch to redb without an fsync (visible at once, lost in a crash)
//! and appends what the batch did to this journal, synced (one sequential
//! write and an fdatasync) before anyone is answered. Every
//! [`CHECKPOINT_BYTES`] of journal a batch is committed durably with quick
//! repair (a checkpoint) and the journal starts over. When the store is
//! opened, the journal's batches that the store does not hold (numbered
//! above the store's `journal_batch`) are applied again, in order, and
//! checkpointed.
//!
//! File [`JOURNAL_FILE`]: magic `NDJOURNL`, format version `u32`, the
//! store's instance id `u64`; then entries: payload length `u32`, xxh3-64
//! of the payload `u64`, payload (batch number `u64`, then operations:
//! `0` put (id, encoded record), `1` delete (id), `2` prune (removal
//! number); ids and records as `u32` length and bytes). The last entry cut
//! short or failing its checksum ends the journal: an append a crash
//! interrupted, whose batch was never acknowledged. A whole entry failing
//! its checksum with entries after it is damage: the open is refused.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind};

/// The journal's file name in the data directory.
pub const JOURNAL_FILE: &str = "journal";

/// Journal bytes after which the next batch is a checkpoint: a crash
/// replays at most about this much (some 50,000 documents of 2 KB).
pub(crate) const CHECKPOINT_BYTES: u64 = 64 << 20;

const MAGIC: &[u8; 8] = b"NDJOURNL";
const VERSION: u32 = 1;
const HEADER: u64 = 20;

/// One change to the store's tables, as the journal keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Logged {
    /// A document stored: its id and encoded record (with its sequence
    /// number).
    Put { id: String, record: Vec<u8> },
    /// A document removed.
    Delete { id: String },
    /// Removals below this number forgotten.
    Prune { below: u64 },
}

/// The journal file, open for appending.
#[derive(Debug)]
pub(crate) struct Journal {
    file: File,
    path: PathBuf,
    /// The store's instance id, in the header.
    instance: u64,
    /// Bytes after the header.
    len: u64,
}

/// The batches a journal holds, read at open.
pub(crate) type Batches = Vec<(u64, Vec<Logged>)>;

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::with_source(ErrorKind::Io(format!("{}: {e}", path.display())), e)
}

impl Journal {
    /// Reads the journal in `dir` without changing it: the store instance
    /// it belongs to and its whole batches, or `None` when there is no
    /// journal (or an empty file: a crash while it was being created).
    pub fn read(dir: &Path) -> Result<Option<(u64, Batches)>, Error> {
        let path = dir.join(JOURNAL_FILE);
        let mut bytes = Vec::new();
        match File::open(&path) {
            Ok(mut f) => f.read_to_end(&mut bytes).map_err(|e| io(&path, e))?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(&path, e)),
        };
        if bytes.len() < HEADER as usize {
            return Ok(None);
        }
        if &bytes[..8] != MAGIC {
            return Err(Error::corrupt(format!("{}: not a journal", path.display())));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or_default());
        if version != VERSION {
            return Err(Error::corrupt(format!(
                "{}: journal version {version} is not readable by this build",
                path.display()
            )));
        }
        let instance = u64::from_le_bytes(bytes[12..20].try_into().unwrap_or_default());
        let mut batches = Vec::new();
        let mut rest = &bytes[HEADER as usize..];
        while !rest.is_empty() {
            let Some((payload, after)) = entry(rest) else {
                // Only the last append can be torn: a whole entry that
                // fails its checksum with more after it is damage.
                if whole_entry_len(rest).is_some_and(|n| n < rest.len()) {
                    return Err(damaged(&path, bytes.len() - rest.len()));
                }
                break;
            };
            match decode(payload) {
                Some(batch) => batches.push(batch),
                None if after.is_empty() => break,
                None => return Err(damaged(&path, bytes.len() - rest.len())),
            }
            rest = after;
        }
        Ok(Some((instance, batches)))
    }

    /// Opens the journal in `dir` for appending, empty, for store
    /// `instance` (what it held must have been applied: it is dropped).
    pub fn create(dir: &Path, instance: u64) -> Result<Journal, Error> {
        let path = dir.join(JOURNAL_FILE);
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| io(&path, e))?;
        crate::store::make_private(&path)?;
        let mut journal = Journal {
            file,
            path,
            instance,
            len: 0,
        };
        journal.clear()?;
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(journal)
    }

    /// Bytes appended since the journal was last cleared.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Appends batch `batch` and syncs it: once this returns, the batch
    /// survives a crash.
    pub fn append(&mut self, batch: u64, ops: &[Logged]) -> Result<(), Error> {
        // The entry is encoded in place after room for its length and
        // checksum, filled in once the payload is there: no second copy.
        let mut buf = encode(batch, ops);
        let len = u32::try_from(buf.len() - 12)
            .map_err(|_| Error::new(ErrorKind::Io("a batch of 4 GiB or more".into())))?;
        let sum = xxhash_rust::xxh3::xxh3_64(&buf[12..]);
        buf[..4].copy_from_slice(&len.to_le_bytes());
        buf[4..12].copy_from_slice(&sum.to_le_bytes());
        let path = &self.path;
        self.file
            .seek(SeekFrom::Start(HEADER + self.len))
            .and_then(|_| self.file.write_all(&buf))
            .and_then(|()| self.file.sync_data())
            .map_err(|e| io(path, e))?;
        self.len += buf.len() as u64;
        Ok(())
    }

    /// Empties the journal (after a checkpoint made its batches durable in
    /// the store).
    pub fn clear(&mut self) -> Result<(), Error> {
        let mut header = Vec::with_capacity(HEADER as usize);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&VERSION.to_le_bytes());
        header.extend_from_slice(&self.instance.to_le_bytes());
        let path = &self.path;
        self.file
            .set_len(0)
            .and_then(|()| self.file.seek(SeekFrom::Start(0)))
            .and_then(|_| self.file.write_all(&header))
            .and_then(|()| self.file.sync_all())
            .map_err(|e| io(path, e))?;
        self.len = 0;
        Ok(())
    }
}

fn damaged(path: &Path, at: usize) -> Error {
    Error::corrupt(format!(
        "{}: damaged entry at byte {at}, with entries after it (the batches after it cannot be trusted; move the journal away to open the store at its last checkpoint)",
        path.display()
    ))
}

/// The length of the entry at the start of `bytes` (header and payload)
/// when all of it is there.
fn whole_entry_len(bytes: &[u8]) -> Option<usize> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let whole = 12usize.checked_add(len)?;
    (whole <= bytes.len()).then_some(whole)
}

/// The payload of the first whole entry of `bytes`, and what follows it.
fn entry(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
    let sum = u64::from_le_bytes(bytes.get(4..12)?.try_into().ok()?);
    let payload = bytes.get(12..12usize.checked_add(len)?)?;
    (xxhash_rust::xxh3::xxh3_64(payload) == sum).then(|| (payload, &bytes[12 + len..]))
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

/// An entry for `batch`: 12 bytes left for the length and checksum, then
/// the payload.
fn encode(batch: u64, ops: &[Logged]) -> Vec<u8> {
    let size: usize = ops
        .iter()
        .map(|op| match op {
            Logged::Put { id, record } => 9 + id.len() + record.len(),
            Logged::Delete { id } => 5 + id.len(),
            Logged::Prune { .. } => 9,
        })
        .sum();
    let mut out = Vec::with_capacity(12 + 8 + size);
    out.extend_from_slice(&[0; 12]);
    out.extend_from_slice(&batch.to_le_bytes());
    for op in ops {
        match op {
            Logged::Put { id, record } => {
                out.push(0);
                put_bytes(&mut out, id.as_bytes());
                put_bytes(&mut out, record);
            }
            Logged::Delete { id } => {
                out.push(1);
                put_bytes(&mut out, id.as_bytes());
            }
            Logged::Prune { below } => {
                out.push(2);
                out.extend_from_slice(&below.to_le_bytes());
            }
        }
    }
    out
}

/// A payload's batch; `None` when it does not decode (a checksum that
/// matched by chance, or a build that wrote something else).
fn decode(payload: &[u8]) -> Option<(u64, Vec<Logged>)> {
    let mut r = payload;
    let mut take = |n: usize| -> Option<&[u8]> {
        let (head, tail) = (r.get(..n)?, r.get(n..)?);
        r = tail;
        Some(head)
    };
    let batch = u64::from_le_bytes(take(8)?.try_into().ok()?);
    let mut ops = Vec::new();
    while let Some(tag) = take(1) {
        let mut bytes = || -> Option<Vec<u8>> {
            let n = u32::from_le_bytes(take(4)?.try_into().ok()?) as usize;
            Some(take(n)?.to_vec())
        };
        ops.push(match tag[0] {
            0 => {
                let id = String::from_utf8(bytes()?).ok()?;
                Logged::Put {
                    id,
                    record: bytes()?,
                }
            }
            1 => Logged::Delete {
                id: String::from_utf8(bytes()?).ok()?,
            },
            2 => Logged::Prune {
                below: u64::from_le_bytes(take(8)?.try_into().ok()?),
            },
            _ => return None,
        });
    }
    Some((batch, ops))
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_testkit::TempDir;

    fn batch(n: u64) -> Vec<Logged> {
        vec![
            Logged::Put {
                id: format!("doc-{n}"),
                record: vec![n as u8; n as usize + 3],
            },
            Logged::Delete {
                id: format!("old-{n}"),
            },
            Logged::Prune { below: n * 7 },
        ]
    }

    #[test]
    fn batches_come_back_as_appended() {
        let dir = TempDir::new("journal-round");
        let mut j = Journal::create(&dir, 42).unwrap();
        assert_eq!(Journal::read(&dir).unwrap(), Some((42, vec![])));
        for n in 1..=3 {
            j.append(n, &batch(n)).unwrap();
        }
        let want: Batches = (1..=3).map(|n| (n, batch(n))).collect();
        assert_eq!(Journal::read(&dir).unwrap(), Some((42, want)));
        j.clear().unwrap();
        assert_eq!(Journal::read(&dir).unwrap(), Some((42, vec![])));
        j.append(9, &batch(9)).unwrap();
        assert_eq!(
            Journal::read(&dir).unwrap(),
            Some((42, vec![(9, batch(9))]))
        );
    }

    #[test]
    fn a_torn_or_damaged_last_entry_ends_the_journal() {
        let dir = TempDir::new("journal-torn");
        let mut j = Journal::create(&dir, 7).unwrap();
        j.append(1, &batch(1)).unwrap();
        let one = std::fs::metadata(dir.join(JOURNAL_FILE)).unwrap().len();
        j.append(2, &batch(2)).unwrap();
        drop(j);
        let path = dir.join(JOURNAL_FILE);
        let whole = std::fs::read(&path).unwrap();
        // Cut anywhere in the last entry: only the first comes back.
        for cut in one..whole.len() as u64 {
            std::fs::write(&path, &whole[..cut as usize]).unwrap();
            let (_, got) = Journal::read(&dir).unwrap().unwrap();
            assert_eq!(got, vec![(1, batch(1))], "cut at {cut}");
        }
        // A flipped byte in the last entry's checksum or payload: the
        // same. (In its length, it is either cut short or damage.)
        for at in one as usize + 4..whole.len() {
            let mut bad = whole.clone();
            bad[at] ^= 0x20;
            std::fs::write(&path, &bad).unwrap();
            let (_, got) = Journal::read(&dir).unwrap().unwrap();
            assert_eq!(got, vec![(1, batch(1))], "flip at {at}");
        }
    }

    #[test]
    fn a_damaged_entry_with_entries_after_it_is_refused() {
        let dir = TempDir::new("journal-damaged");
        let mut j = Journal::create(&dir, 7).unwrap();
        j.append(1, &batch(1)).unwrap();
        let one = std::fs::metadata(dir.join(JOURNAL_FILE)).unwrap().len() as usize;
        j.append(2, &batch(2)).unwrap();
        j.append(3, &batch(3)).unwrap();
        drop(j);
        let path = dir.join(JOURNAL_FILE);
        let whole = std::fs::read(&path).unwrap();
        let mut refused = 0;
        // Every byte of the second entry's checksum and payload.
        for at in one + 4..one + 12 + 8 {
            let mut bad = whole.clone();
            bad[at] ^= 0x01;
            std::fs::write(&path, &bad).unwrap();
            let e = Journal::read(&dir).unwrap_err();
            assert!(e.to_string().contains("damaged entry"), "{e}");
            refused += 1;
        }
        assert_eq!(refused, 16);
    }

    #[test]
    fn another_file_is_refused_and_none_is_no_journal() {
        let dir = TempDir::new("journal-other");
        assert_eq!(Journal::read(&dir).unwrap(), None);
        std::fs::write(dir.join(JOURNAL_FILE), b"").unwrap();
        assert_eq!(Journal::read(&dir).unwrap(), None);
        std::fs::write(dir.join(JOURNAL_FILE), b"this is not a journal at all").unwrap();
        assert!(Journal::read(&dir).is_err());
        let mut newer = MAGIC.to_vec();
        newer.extend_from_slice(&99u32.to_le_bytes());
        newer.extend_from_slice(&1u64.to_le_bytes());
        std::fs::write(dir.join(JOURNAL_FILE), &newer).unwrap();
        let e = Journal::read(&dir).unwrap_err();
        assert!(e.to_string().contains("version 99"), "{e}");
    }
}
