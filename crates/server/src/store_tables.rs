//! The tables of one store transaction: writes ([`Tables`]: put, delete,
//! the oldest document, pruning removals) and reads ([`ReadTables`]), and
//! the store [`Position`] an index snapshot covers.

use redb::{ReadableTable, Table};

use crate::error::Error;
use crate::journal::Logged;
use crate::record::{PackedText, Record};

/// The tables of one write transaction.
pub(crate) struct Tables<'t> {
    pub docs: Table<'t, &'static str, &'static [u8]>,
    pub order: Table<'t, u64, &'static str>,
    pub(crate) removed: Table<'t, u64, u64>,
    /// The next insertion sequence number; saved at commit.
    pub next_seq: u64,
    /// The next removal number; saved at commit.
    pub next_removal: u64,
    /// What this transaction changed, for the journal.
    pub(crate) log: Vec<Logged>,
    /// The journal's number for this transaction's batch (the store's
    /// last plus one; a replay sets the journal's own).
    pub(crate) batch: u64,
}

/// Where the store stands: what an index snapshot records it covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Position {
    /// The store's instance id (made when it was created).
    pub instance: u64,
    /// The next insertion sequence number.
    pub next_seq: u64,
    /// The next removal number.
    pub next_removal: u64,
}

impl Position {
    /// As bytes (three little-endian `u64`).
    pub fn to_bytes(self) -> Vec<u8> {
        [self.instance, self.next_seq, self.next_removal]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect()
    }

    /// From [`Position::to_bytes`].
    pub fn from_bytes(b: &[u8]) -> Option<Position> {
        if b.len() != 24 {
            return None;
        }
        let v = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
        Some(Position {
            instance: v(0),
            next_seq: v(8),
            next_removal: v(16),
        })
    }
}

/// The tables of one read transaction.
pub(crate) struct ReadTables {
    pub docs: redb::ReadOnlyTable<&'static str, &'static [u8]>,
    pub order: redb::ReadOnlyTable<u64, &'static str>,
}

impl Tables<'_> {
    /// Stores a document under a fresh sequence number (set in `record`),
    /// with `text` as its text (`record.text` is not read).
    pub fn put(
        &mut self,
        id: &str,
        record: &mut Record,
        text: Option<&PackedText>,
    ) -> Result<(), Error> {
        record.seq = self.next_seq;
        self.put_encoded(id, record.seq, record.encode_packed(text))
    }

    /// Stores an encoded record under the next sequence number, which
    /// must be `seq` (the one it records).
    fn put_encoded(&mut self, id: &str, seq: u64, record: Vec<u8>) -> Result<(), Error> {
        if seq != self.next_seq {
            return Err(Error::corrupt(format!(
                "journal: document {id:?} has sequence number {seq}, the store is at {}",
                self.next_seq
            )));
        }
        self.next_seq += 1;
        self.docs
            .insert(id, record.as_slice())
            .map_err(Error::store)?;
        self.order.insert(seq, id).map_err(Error::store)?;
        self.log.push(Logged::Put {
            id: id.to_owned(),
            record,
        });
        Ok(())
    }

    /// Stores an encoded record under the sequence number it records,
    /// which may skip numbers (documents a restored base no longer
    /// holds: [`crate::base`]) but not go back.
    pub(crate) fn restore(&mut self, id: &str, record: Vec<u8>) -> Result<(), Error> {
        let seq = Record::decode_meta(&record)?.seq;
        self.next_seq = self.next_seq.max(seq);
        self.put_encoded(id, seq, record)
    }

    /// Applies a change read from the journal, as it was made.
    pub(crate) fn redo(&mut self, op: Logged) -> Result<(), Error> {
        match op {
            Logged::Put { id, record } => self.restore(&id, record),
            Logged::Delete { id } => self.delete(&id).map(drop),
            Logged::Prune { below } => self.prune_removed(below),
        }
    }

    /// The sequence number of stored document `id`.
    pub fn seq_of(&self, id: &str) -> Result<Option<u64>, Error> {
        let got = self.docs.get(id).map_err(Error::store)?;
        got.map(|g| Record::decode_meta(g.value()).map(|r| r.seq))
            .transpose()
    }

    /// The oldest stored document: its id, when it was stored, and its
    /// sequence number.
    pub fn oldest(&self) -> Result<Option<(String, u64, u64)>, Error> {
        let Some(first) = self.order.first().map_err(Error::store)? else {
            return Ok(None);
        };
        let id = first.1.value().to_string();
        drop(first);
        let got = self.docs.get(id.as_str()).map_err(Error::store)?;
        let at = match got {
            Some(g) => {
                let r = Record::decode_meta(g.value())?;
                (r.stored_at_ms, r.seq)
            }
            None => {
                return Err(Error::corrupt(format!(
                    "order entry of {id:?} has no document"
                )))
            }
        };
        Ok(Some((id, at.0, at.1)))
    }

    /// Removes a document; false when it was not stored.
    pub fn delete(&mut self, id: &str) -> Result<bool, Error> {
        let old = self.docs.remove(id).map_err(Error::store)?;
        let Some(old) = old else { return Ok(false) };
        let record = Record::decode_meta(old.value())?;
        drop(old);
        self.order.remove(record.seq).map_err(Error::store)?;
        self.removed
            .insert(self.next_removal, record.seq)
            .map_err(Error::store)?;
        self.next_removal += 1;
        self.log.push(Logged::Delete { id: id.to_owned() });
        Ok(true)
    }

    /// Forgets the removals before number `below` (an index snapshot
    /// covers them).
    pub fn prune_removed(&mut self, below: u64) -> Result<(), Error> {
        self.removed
            .retain_in(..below, |_, _| false)
            .map_err(Error::store)?;
        self.log.push(Logged::Prune { below });
        Ok(())
    }
}
