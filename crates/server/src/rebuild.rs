//! Rebuilding the in-memory state from the store at open: records are
//! read in insertion order, in chunks whose signatures and shingles are
//! decoded on every core, then added to the state one by one (the order
//! decides which document is an original).

use neardup::sketch::{Method, Signature};
use neardup::{ShingleSeq, Verifier};

use crate::error::Error;
use crate::record::Record;
use crate::store::Store;
use neardup::dedup::{signature_key, Judgement, Online};

/// Loads every stored document into `state`; shingles for exact
/// verification are cut as `method` cuts them ([`Verifier::shingles`], as
/// at insertion).
pub(crate) fn load(
    store: &Store,
    state: &mut Online,
    verifier: Option<Verifier>,
    method: &Method,
) -> Result<(), Error> {
    let mut chunk = Vec::with_capacity(REBUILD_CHUNK);
    store.load(|id, record| {
        chunk.push((id.to_string(), record));
        if chunk.len() >= REBUILD_CHUNK {
            add_chunk(state, &mut chunk, verifier, method)?;
        }
        Ok(())
    })?;
    add_chunk(state, &mut chunk, verifier, method)
}

/// Records decoded together at open.
const REBUILD_CHUNK: usize = 4096;

type Decoded = (Option<(Signature, u128)>, Option<ShingleSeq>);

/// A stored document's signature, and its shingles when it is an original
/// and exact verification is on.
fn decode(
    id: &str,
    r: &Record,
    verifier: Option<Verifier>,
    method: &Method,
) -> Result<Decoded, Error> {
    let sig = match &r.signature {
        Some(b) => {
            let s = Signature::from_bytes(b)
                .map_err(|e| Error::corrupt(format!("signature of {id:?}: {e}")))?;
            Some((s, signature_key(b)))
        }
        None => None,
    };
    let shingles = match (verifier, &r.text, &r.duplicate_of) {
        (Some(v), Some(t), None) if sig.is_some() => Some(v.shingles(t, method)),
        _ => None,
    };
    Ok((sig, shingles))
}

/// Adds a chunk of stored documents to the state, in order, decoding
/// their signatures and shingles on every core first.
fn add_chunk(
    state: &mut Online,
    chunk: &mut Vec<(String, Record)>,
    verifier: Option<Verifier>,
    method: &Method,
) -> Result<(), Error> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let per = chunk.len().div_ceil(threads.clamp(1, 8)).max(1);
    let mut decoded = Vec::with_capacity(chunk.len());
    std::thread::scope(|s| -> Result<(), Error> {
        let handles: Vec<_> = chunk
            .chunks(per)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|(id, r)| decode(id, r, verifier, method))
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
    for ((id, record), d) in chunk.drain(..).zip(decoded) {
        let (sig, shingles) = d?;
        let duplicate_of = record.duplicate_of.as_ref().map(|(o, sim)| {
            let d = state.dense(o).unwrap_or_else(|| state.add_tombstone(o));
            (d, *sim)
        });
        state.add(&id, sig, shingles, Judgement { duplicate_of })?;
    }
    Ok(())
}
