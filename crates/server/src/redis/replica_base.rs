//! How a [`Replica`] takes part in compaction ([`crate::redis::compact`]):
//! it loads the log's base when its position is no longer in the log,
//! and compacts the log at its own position when that is due.

use std::sync::atomic::Ordering;
use std::sync::mpsc;

use super::{Applier, Replica};
use crate::error::{Error, ErrorKind};
use crate::redis::compact::{self, BaseAt};
use crate::seen::ContentSeen;
use crate::writer::Op;

impl Replica {
    /// Loads the log's base and makes the local store hold its documents
    /// (the writer's [`Op::Restore`], after every entry sent before);
    /// the position is then the base's. Nothing when the replica is at
    /// the base or past it. This instance's own entries between the two
    /// positions are not judged here: their callers get an error.
    pub(super) fn reload(&self, seen: &ContentSeen, a: &mut Applier) -> Result<(), Error> {
        let Some((at, base)) = compact::load(&self.log)? else {
            return Err(Error::new(ErrorKind::SharedStore(format!(
                "{}: the log starts past this instance's position, and holds no base",
                self.url()
            ))));
        };
        if at.at <= a.next {
            return Ok(());
        }
        let (tx, rx) = mpsc::sync_channel(1);
        seen.send_local(Op::Restore(Box::new(base), tx))?;
        rx.recv()
            .unwrap_or_else(|_| Err(ErrorKind::Failed.into()))?;
        a.next = at.at;
        a.last = at.last;
        a.clock = a.clock.max(at.clock);
        Ok(())
    }

    /// Whether a compaction is due: the store has eviction limits and
    /// the log holds many more entries than there are live documents
    /// ([`compact::due`]).
    pub(super) fn compaction_due(&self, seen: &ContentSeen) -> bool {
        let live = seen.shared().read_state().len() as u64;
        self.evicting && compact::due(self.held.load(Ordering::Relaxed), live)
    }

    /// Compacts the log at this replica's position, if the lease is free:
    /// the base is the local store's documents, read at a position every
    /// entry before which it has committed. Whether a base was published.
    pub fn compact(&self, seen: &ContentSeen) -> Result<bool, Error> {
        let token = format!("{:016x}-{}", self.origin, self.token().1);
        if !compact::acquire(&self.log, &token)? {
            return Ok(false);
        }
        // The position and a read transaction of the store that holds
        // exactly the entries before it (committed: the barrier); the
        // records are read after the applier goes on.
        let (at, reader, evicted) = {
            let a = self.applier.lock().unwrap_or_else(|p| p.into_inner());
            seen.local_barrier()?;
            let reader = seen.shared().store.base_reader()?;
            let at = BaseAt {
                at: a.next,
                last: a.last.clone(),
                clock: a.clock,
            };
            (at, reader, seen.stats().evicted)
        };
        let mut base = reader.read()?;
        base.evicted = evicted;
        if at.at == 0 {
            return Ok(false);
        }
        let keep = compact::keep(base.docs.len() as u64);
        compact::publish(&self.log, &token, &at, &base, keep)
    }
}
