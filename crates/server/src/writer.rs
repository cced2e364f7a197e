//! The single writer: check-and-insert and delete operations are applied
//! one after the other (so verdicts are linearizable) and grouped into one
//! durable transaction per batch; every caller is answered after the
//! commit that made its operation durable.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::Arc;

use crate::answers::Verdict;
use crate::error::{Error, ErrorKind};
use crate::record::Record;
use crate::seen::{now_ms, Prepared, Shared};
use crate::store::Tables;

/// One operation for the writer, with the channel its answer goes to.
pub(crate) enum Op {
    Insert(Box<Prepared>, SyncSender<Result<Verdict, Error>>),
    Delete(String, SyncSender<Result<bool, Error>>),
}

enum Answer {
    Insert(SyncSender<Result<Verdict, Error>>, Result<Verdict, Error>),
    Delete(SyncSender<Result<bool, Error>>, Result<bool, Error>),
}

impl Answer {
    fn send(self, commit: &Result<(), Error>) {
        let failed = || Error::new(ErrorKind::Failed);
        // A caller that went away (timed out) is no error.
        match (self, commit) {
            (Answer::Insert(tx, r), Ok(())) => drop(tx.send(r)),
            (Answer::Insert(tx, _), Err(_)) => drop(tx.send(Err(failed()))),
            (Answer::Delete(tx, r), Ok(())) => drop(tx.send(r)),
            (Answer::Delete(tx, _), Err(_)) => drop(tx.send(Err(failed()))),
        }
    }
}

/// The writer thread's loop; returns when every sender is gone.
pub(crate) fn run(shared: Arc<Shared>, rx: Receiver<Op>) {
    let max = shared.config.get_max_batch();
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
            for op in ops {
                let a = apply(&shared, t, op)?;
                answers.push(a);
            }
            evict(&shared, t)
        });
        if result.is_err() {
            // Memory may now hold operations the store does not: stop
            // writing until the store is reopened and the index rebuilt.
            shared.failed.store(true, Ordering::Release);
        } else {
            shared.commits.fetch_add(1, Ordering::Relaxed);
            shared.committed_ops.fetch_add(n, Ordering::Relaxed);
        }
        for a in answers {
            a.send(&result);
        }
    }
}

/// Deletes the oldest documents while there are more than the document
/// limit or they are older than the age limit, in the batch's transaction.
fn evict(shared: &Shared, t: &mut Tables<'_>) -> Result<(), Error> {
    let (max_docs, max_age) = (
        shared.config.get_max_documents(),
        shared.config.get_max_age(),
    );
    if max_docs.is_none() && max_age.is_none() {
        return Ok(());
    }
    let now = now_ms();
    while let Some((id, at)) = t.oldest()? {
        let mut state = shared.write_state();
        let over = max_docs.is_some_and(|m| state.len() as u64 > m);
        let old = max_age.is_some_and(|a| now.saturating_sub(at) > a.as_millis() as u64);
        if !(over || old) {
            break;
        }
        state.remove(&id);
        drop(state);
        t.delete(&id)?;
        shared.evicted.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

fn answer_of(op: Op, err: Result<(), Error>) -> Answer {
    let e = err.err().unwrap_or_else(|| Error::new(ErrorKind::Failed));
    match op {
        Op::Insert(_, tx) => Answer::Insert(tx, Err(e)),
        Op::Delete(_, tx) => Answer::Delete(tx, Err(e)),
    }
}

/// Applies one operation to memory and to the open transaction. An error
/// of the store aborts the whole batch; a per-document error (conflict) is
/// the answer to that document only.
fn apply(shared: &Shared, t: &mut Tables<'_>, op: Op) -> Result<Answer, Error> {
    match op {
        Op::Delete(id, tx) => {
            let removed = shared.write_state().remove(&id);
            let stored = t.delete(&id)?;
            Ok(Answer::Delete(tx, Ok(removed || stored)))
        }
        Op::Insert(p, tx) => {
            let mut state = shared.write_state();
            if let Some(v) = shared.existing(&state, &p) {
                return Ok(Answer::Insert(tx, v));
            }
            let replacing = shared.replacing(&state, &p);
            let judgement = state.judge_without(
                p.signature.as_ref().map(|s| (s, p.key)),
                p.shingles.as_ref(),
                replacing,
            )?;
            if replacing.is_some() {
                // The new version replaces the stored one: the old is no
                // longer a target; its duplicates keep naming the id.
                state.remove(&p.id);
                t.delete(&p.id)?;
            }
            let mut verdict = shared.verdict(&state, &p, judgement);
            if judgement.duplicate_of.is_some() && !shared.config.get_store_duplicates() {
                return Ok(Answer::Insert(tx, Ok(verdict)));
            }
            let Prepared {
                id,
                url,
                signature,
                bytes,
                key,
                text_len,
                shingles,
                text,
            } = *p;
            state.add(&id, signature.map(|s| (s, key)), shingles, judgement)?;
            drop(state);
            let mut record = Record {
                seq: 0,
                stored_at_ms: now_ms(),
                text_len,
                url,
                signature: bytes,
                duplicate_of: verdict.duplicate_of.clone().zip(verdict.similarity),
                // Originals keep their text to rebuild their shingles.
                text: text.filter(|_| judgement.duplicate_of.is_none()),
            };
            t.put(&id, &mut record)?;
            verdict.stored = true;
            Ok(Answer::Insert(tx, Ok(verdict)))
        }
    }
}
