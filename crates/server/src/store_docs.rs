//! [`StoreDocs`]: the online engine's documents read from the store, by
//! dense id (a document's dense id is its sequence number). The engine
//! keeps only its candidate tables in RAM and reads here the signature
//! (absent from a record that keeps band keys instead),
//! the text (cut into shingles again, as at insertion) or the verification
//! sketch (read back as it was made) and the verdict of
//! each candidate; through the writer's transaction (which sees the
//! operations of its own batch) or a read transaction (committed state).

use neardup::dedup::{Error as EngineError, OnlineDocs};
use neardup::sketch::{Method, Signature};
use neardup::{ShingleSeq, Verifier};
use redb::ReadableTable;

use crate::error::Error;
use crate::record::{Record, Text, Unpacker};

/// Reads records by id and by sequence number from a pair of tables.
pub(crate) struct StoreDocs<'a, D, O> {
    pub docs: &'a D,
    pub order: &'a O,
    pub method: &'a Method,
    pub verifier: Option<&'a Verifier>,
    /// The texts' decompression context, shared by the reads.
    pub unpacker: std::cell::RefCell<Unpacker>,
}

fn engine_error(e: Error) -> EngineError {
    EngineError::documents(e.to_string())
}

impl<D, O> StoreDocs<'_, D, O>
where
    D: ReadableTable<&'static str, &'static [u8]>,
    O: ReadableTable<u64, &'static str>,
{
    /// The stored document `id`, with its text when `text` (decompressed)
    /// or without.
    fn record(&self, id: &str, text: bool) -> Result<Option<Record>, Error> {
        let got = self.docs.get(id).map_err(Error::store)?;
        let mut unpacker = self.unpacker.borrow_mut();
        let mode = if text {
            Text::Unpack(&mut unpacker)
        } else {
            Text::Skip
        };
        got.map(|g| Record::decode_with(g.value(), mode))
            .transpose()
    }

    /// The stored document `id`, without its text.
    pub fn by_id(&self, id: &str) -> Result<Option<Record>, Error> {
        self.record(id, false)
    }

    /// The id of the document with sequence number `seq`, when stored.
    pub fn id_of(&self, seq: u64) -> Result<Option<String>, Error> {
        Ok(self
            .order
            .get(seq)
            .map_err(Error::store)?
            .map(|g| g.value().to_string()))
    }

    /// The stored document with sequence number `seq`, with its text when
    /// `text`.
    fn by_seq(&self, seq: u64, text: bool) -> Result<Option<Record>, Error> {
        let Some(id) = self.id_of(seq)? else {
            return Ok(None);
        };
        let record = self
            .record(&id, text)?
            .ok_or_else(|| Error::corrupt(format!("order entry {seq} has no document")))?;
        Ok((record.seq == seq).then_some(record))
    }

    /// The dense id of the original a record duplicates: the sequence
    /// number it records, or (records of format 1) the stored document of
    /// that id.
    pub fn original_of(&self, r: &Record) -> Result<Option<(u32, f64)>, Error> {
        let Some((id, similarity)) = &r.duplicate_of else {
            return Ok(None);
        };
        let seq = match r.original_seq {
            Some(seq) => Some(seq),
            None => self.by_id(id)?.map(|o| o.seq),
        };
        Ok(seq
            .and_then(|s| u32::try_from(s).ok())
            .map(|d| (d, *similarity)))
    }

    fn signature(&self, d: u32, r: &Record) -> Result<Option<Signature>, Error> {
        r.signature
            .as_deref()
            .map(|b| {
                Signature::from_bytes(b)
                    .map_err(|e| Error::corrupt(format!("signature of document {d}: {e}")))
            })
            .transpose()
    }

    fn shingles_of(&self, r: &Record) -> Result<Option<ShingleSeq>, Error> {
        if r.duplicate_of.is_some() {
            return Ok(None);
        }
        match (self.verifier, &r.text, &r.sketch) {
            (Some(v), Some(t), _) => Ok(Some(v.shingles(t, self.method))),
            (Some(_), None, Some(s)) => ShingleSeq::from_sketch_bytes(s)
                .map(Some)
                .ok_or_else(|| Error::corrupt(format!("the sketch of document {}", r.seq))),
            _ => Ok(None),
        }
    }
}

impl<D, O> OnlineDocs for StoreDocs<'_, D, O>
where
    D: ReadableTable<&'static str, &'static [u8]>,
    O: ReadableTable<u64, &'static str>,
{
    type Shingles = ShingleSeq;

    fn with_original<R>(
        &self,
        d: u32,
        f: impl FnOnce(Option<&Signature>, Option<&ShingleSeq>) -> R,
    ) -> Result<Option<R>, EngineError> {
        let Some(r) = self.by_seq(u64::from(d), true).map_err(engine_error)? else {
            return Ok(None);
        };
        if r.duplicate_of.is_some() || !r.has_text() {
            return Ok(None);
        }
        // A document kept by its band keys has no signature.
        let sig = self.signature(d, &r).map_err(engine_error)?;
        let shingles = self.shingles_of(&r).map_err(engine_error)?;
        Ok(Some(f(sig.as_ref(), shingles.as_ref())))
    }

    fn shingles(&self, d: u32) -> Result<Option<ShingleSeq>, EngineError> {
        let r = self.by_seq(u64::from(d), true).map_err(engine_error)?;
        match r {
            Some(r) => self.shingles_of(&r).map_err(engine_error),
            None => Ok(None),
        }
    }

    fn key(&self, d: u32) -> Result<Option<u128>, EngineError> {
        let r = self.by_seq(u64::from(d), false).map_err(engine_error)?;
        Ok(r.and_then(|r| r.key()))
    }

    fn duplicate_of(&self, d: u32) -> Result<Option<(u32, f64)>, EngineError> {
        match self.by_seq(u64::from(d), false).map_err(engine_error)? {
            Some(r) => self.original_of(&r).map_err(engine_error),
            None => Ok(None),
        }
    }
}
