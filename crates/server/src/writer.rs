//! The single writer: check-and-insert and delete operations are applied
//! one after the other (so verdicts are linearizable) and grouped into one
//! durable transaction per batch; every caller is answered after the
//! commit that made its operation durable.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::Arc;

use crate::answers::Verdict;
use crate::base::Base;
use crate::error::{Error, ErrorKind};
use crate::evict::{evict, At};
use crate::record::Record;
use crate::recover::save_snapshot;
use crate::seen::Prepared;
use crate::shared::{now_ms, Decision, Shared};
use crate::store::Tables;
use neardup::ShingleSeq;

/// Operations between index snapshots: an eighth of the documents stored,
/// at least [`SNAPSHOT_MIN`] and at most [`SNAPSHOT_MAX`]. A restart
/// after a crash re-reads at most that many documents from the store
/// (about 14,000 a second here on a busy machine: 9 s at 10^6 documents,
/// 18 s at 10^7); a snapshot costs about 190 bytes a document to write,
/// on its own thread (1.9 GB at 10^7, every 250,000 operations).
pub(crate) fn snapshot_every(documents: u64) -> u64 {
    (documents / 8).clamp(SNAPSHOT_MIN, SNAPSHOT_MAX)
}

/// See [`snapshot_every`].
pub(crate) const SNAPSHOT_MIN: u64 = 100_000;

/// See [`snapshot_every`].
pub(crate) const SNAPSHOT_MAX: u64 = 250_000;

/// One operation for the writer, with where its answer goes.
/// Each is applied at its time ([`At`]), and eviction is evaluated
/// after each ([`crate::evict`]).
pub(crate) enum Op {
    Insert(Box<Prepared>, Reply, At),
    Delete(String, SyncSender<Result<bool, Error>>, At),
    /// Hold the documents of a shared store's compacted base and nothing
    /// else ([`crate::base::restore`]); untimed.
    Restore(Box<Base>, SyncSender<Result<(), Error>>),
}

/// Where the verdict of an insertion goes: a thread waiting for it, or an
/// async task (HTTP), woken directly by the writer. The task's
/// concurrency permit travels with the operation, so that a request that
/// timed out counts until its work has ended.
pub(crate) enum Reply {
    Thread(SyncSender<Result<Verdict, Error>>),
    Task(
        tokio::sync::oneshot::Sender<Result<Verdict, Error>>,
        Option<tokio::sync::OwnedSemaphorePermit>,
    ),
}

impl Reply {
    fn send(self, r: Result<Verdict, Error>) {
        // A caller that went away (timed out) is no error.
        match self {
            Reply::Thread(tx) => drop(tx.send(r)),
            Reply::Task(tx, permit) => {
                drop(tx.send(r));
                drop(permit);
            }
        }
    }
}

enum Answer {
    Insert(Reply, Result<Verdict, Error>),
    Delete(SyncSender<Result<bool, Error>>, Result<bool, Error>),
    Restore(SyncSender<Result<(), Error>>),
}

impl Answer {
    fn send(self, commit: &Result<(), Error>) {
        let failed = || Error::new(ErrorKind::Failed);
        match (self, commit) {
            (Answer::Insert(tx, r), Ok(())) => tx.send(r),
            (Answer::Insert(tx, _), Err(_)) => tx.send(Err(failed())),
            (Answer::Delete(tx, r), Ok(())) => drop(tx.send(r)),
            (Answer::Delete(tx, _), Err(_)) => drop(tx.send(Err(failed()))),
            (Answer::Restore(tx), Ok(())) => drop(tx.send(Ok(()))),
            (Answer::Restore(tx), Err(_)) => drop(tx.send(Err(failed()))),
        }
    }
}

/// The writer thread's loop; returns when every sender is gone.
pub(crate) fn run(shared: Arc<Shared>, rx: Receiver<Op>) {
    let max = shared.config.get_max_batch();
    let mut prune_below = None;
    let mut writing: Option<Snapshot> = None;
    if shared.since_snapshot.load(Ordering::Relaxed) > 0 {
        prune_below = Snapshot::start(&shared).and_then(|s| s.finish(&shared));
    }
    while let Ok(first) = rx.recv() {
        let mut ops = vec![first];
        while ops.len() < max {
            match rx.try_recv() {
                Ok(op) => ops.push(op),
                Err(_) => break,
            }
        }
        if shared.failed.load(Ordering::Acquire) {
            let err = Err(Error::new(ErrorKind::Failed));
            for op in ops {
                answer_of(op, Err(Error::new(ErrorKind::Failed))).send(&err);
            }
            continue;
        }
        let n = ops.len() as u64;
        let mut answers = Vec::with_capacity(ops.len());
        let result = shared.store.write(|t| {
            if let Some(below) = prune_below {
                t.prune_removed(below)?;
            }
            for op in ops {
                let at = match &op {
                    Op::Insert(_, _, at) | Op::Delete(_, _, at) => at.ms(),
                    Op::Restore(..) => None,
                };
                answers.push(apply(&shared, t, op, at)?);
                evict(&shared, t, at)?;
            }
            Ok(())
        });
        if result.is_err() {
            // Memory may now hold operations the store does not: stop
            // writing until the store is reopened and the index rebuilt.
            shared.failed.store(true, Ordering::Release);
        } else {
            prune_below = None;
            shared.commits.fetch_add(1, Ordering::Relaxed);
            shared.committed_ops.fetch_add(n, Ordering::Relaxed);
        }
        for a in answers {
            a.send(&result);
        }
        let since = shared.since_snapshot.fetch_add(n, Ordering::Relaxed) + n;
        if let Some(done) = writing.take_if(|w| w.thread.is_finished()) {
            prune_below = done.finish(&shared).or(prune_below);
        }
        let live = shared.read_state().len() as u64;
        if result.is_ok() && writing.is_none() && since >= snapshot_every(live) {
            writing = Snapshot::start(&shared);
        }
    }
    if let Some(w) = writing {
        w.finish(&shared);
    }
    if !shared.failed.load(Ordering::Acquire) && shared.since_snapshot.load(Ordering::Relaxed) > 0 {
        if let Some(s) = Snapshot::start(&shared) {
            s.finish(&shared);
        }
    }
}

/// An index snapshot of the committed state being written on its own
/// thread, while the writer goes on: the engine's parts are frozen (the
/// large runs of its tables shared, the rest copied, about a byte and a
/// half per document) between two batches. A failed snapshot is no
/// failure of the service: the store holds everything, the next open
/// only takes longer.
struct Snapshot {
    /// The removal number below which the store's removals are covered
    /// (to prune), when written.
    thread: std::thread::JoinHandle<Option<u64>>,
    /// Operations it covers of those counted since the last snapshot.
    ops: u64,
}

impl Snapshot {
    /// Freezes the engine and starts writing its snapshot (none for
    /// methods whose index is not saved).
    fn start(shared: &Arc<Shared>) -> Option<Snapshot> {
        let state = shared.read_state();
        let at = shared.store.position().ok()?;
        let frozen = state.freeze()?;
        let ops = shared.since_snapshot.load(Ordering::Relaxed);
        drop(state);
        let dir = shared.dir.clone();
        let thread = std::thread::Builder::new()
            .name("neardup-snapshot".into())
            .spawn(move || {
                save_snapshot(&dir, &frozen, at).ok()?;
                frozen.saved();
                Some(at.next_removal)
            })
            .ok()?;
        Some(Snapshot { thread, ops })
    }

    /// Waits for the snapshot; what [`Snapshot::thread`] returns.
    fn finish(self, shared: &Shared) -> Option<u64> {
        let below = self.thread.join().ok().flatten()?;
        shared.since_snapshot.fetch_sub(self.ops, Ordering::Relaxed);
        shared.snapshots.fetch_add(1, Ordering::Relaxed);
        Some(below)
    }
}

fn answer_of(op: Op, err: Result<(), Error>) -> Answer {
    let e = err.err().unwrap_or_else(|| Error::new(ErrorKind::Failed));
    match op {
        Op::Insert(_, tx, _) => Answer::Insert(tx, Err(e)),
        Op::Delete(_, tx, _) => Answer::Delete(tx, Err(e)),
        Op::Restore(_, tx) => {
            drop(e);
            Answer::Restore(tx)
        }
    }
}

/// The dense id of the next document stored: its sequence number.
fn dense_of(t: &Tables<'_>) -> Result<u32, Error> {
    u32::try_from(t.next_seq)
        .ok()
        .filter(|&d| d < u32::MAX)
        .ok_or_else(|| {
            Error::new(ErrorKind::Index(
                "the store used every sequence number (2^32 - 1)".into(),
            ))
        })
}

/// Applies one operation to memory and to the open transaction, at `at`
/// (a document's storing time). An error of the store aborts the whole
/// batch; a per-document error (conflict) is the answer to that document
/// only.
fn apply(shared: &Shared, t: &mut Tables<'_>, op: Op, at: Option<u64>) -> Result<Answer, Error> {
    match op {
        Op::Restore(base, tx) => {
            crate::base::restore(shared, t, *base)?;
            Ok(Answer::Restore(tx))
        }
        Op::Delete(id, tx, _) => {
            let seq = t.seq_of(&id)?;
            let removed =
                seq.is_some_and(|s| u32::try_from(s).is_ok_and(|d| shared.write_state().remove(d)));
            let stored = t.delete(&id)?;
            Ok(Answer::Delete(tx, Ok(removed || stored)))
        }
        Op::Insert(p, tx, _) => {
            let mut state = shared.write_state();
            // Judging only reads: a record that cannot be read (damaged)
            // fails this document, not the batch nor the service.
            let docs = shared.docs(&t.docs, &t.order);
            let decided = shared.decide(&state, &docs, &p);
            drop(docs);
            let (judgement, replacing, mut verdict) = match decided {
                Ok(Decision::Judged {
                    judgement,
                    replacing,
                    verdict,
                }) => (judgement, replacing, verdict),
                Ok(Decision::Stored(stored)) => return Ok(Answer::Insert(tx, Ok(stored))),
                Err(e) => return Ok(Answer::Insert(tx, Err(e))),
            };
            if let Some(d) = replacing {
                // The new version replaces the stored one: the old is no
                // longer a target; its duplicates keep naming the id.
                state.remove(d);
                t.delete(&p.id)?;
            }
            if judgement.duplicate_of.is_some() && !shared.config.get_store_duplicates() {
                return Ok(Answer::Insert(tx, Ok(verdict)));
            }
            state.add(
                dense_of(t)?,
                p.candidate_keys(),
                p.shingles.as_ref(),
                judgement,
            )?;
            drop(state);
            let Prepared {
                id,
                url,
                signature: _,
                bytes,
                band_keys,
                key,
                text_len,
                shingles,
                text: _,
                packed,
            } = *p;
            let dense = dense_of(t)?;
            let mut record = Record {
                seq: 0,
                stored_at_ms: at.unwrap_or_else(now_ms),
                text_len,
                url,
                signature: bytes,
                band_keys: band_keys.map(|k| (key, k)),
                duplicate_of: verdict.duplicate_of.clone().zip(verdict.similarity),
                original_seq: judgement.duplicate_of.map(|(d, _)| u64::from(d)),
                text: None,
                // With a verification sketch, originals keep the sketch.
                sketch: shingles
                    .as_ref()
                    .filter(|_| judgement.duplicate_of.is_none())
                    .and_then(ShingleSeq::to_sketch_bytes),
            };
            // Originals keep their text: candidates are verified on it.
            // (Every sender packs the text before it sends: `seen.rs`.)
            let packed = packed.filter(|_| judgement.duplicate_of.is_none());
            t.put(&id, &mut record, packed.as_ref())?;
            debug_assert_eq!(record.seq, u64::from(dense));
            verdict.stored = true;
            Ok(Answer::Insert(tx, Ok(verdict)))
        }
    }
}
