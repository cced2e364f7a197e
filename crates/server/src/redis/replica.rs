//! [`Replica`]: how an instance over the shared store turns the log into
//! verdicts. Its [`ContentSeen`] (a local store, a cache of the log) takes
//! the log's entries one after the other, in the log's order, through the
//! same writer as the single-node service: each verdict is the
//! single-node engine's verdict of the log's prefix, whichever instance
//! computes it. An instance appends its document, then applies every
//! entry up to it (its own among them) and answers with its verdict.
//! Over a store with an age limit, each entry is applied at its log time
//! ([`At::Log`]): the latest time stamped on the entries up to it, so
//! that the times never go back, whichever server's clock stamped them.
//! Under eviction limits the log is compacted ([`crate::redis::compact`]):
//! an instance whose position the log no longer holds loads the base
//! (the documents a replica holds at the base's position, restored as
//! recorded: [`Op::Restore`]) and replays the log from there.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use neardup::Dedup;

use crate::answers::Verdict;
use crate::error::{Error, ErrorKind};
use crate::evict::At;
use crate::redis::entry::{self, Entry};
use crate::redis::log::{Log, Window};
use crate::seen::{ContentSeen, Prepared, WeakSeen};
use crate::writer::{Op, Reply};

#[path = "replica_base.rs"]
mod base;

/// Answers of this instance's own entries not yet collected, at most
/// (a caller that failed after its append leaves one behind).
const MAX_UNCLAIMED: usize = 100_000;

/// Entries appended by one script call at most (Lua unpacks them onto
/// its stack, which holds about 8,000).
const APPEND_CHUNK: usize = 512;

/// How often an instance applies what other instances appended, when it
/// has no request of its own that does.
const TAIL_EVERY: Duration = Duration::from_millis(100);

/// An answer of the local writer for an entry this instance appended.
enum Pending {
    Insert(Receiver<Result<Verdict, Error>>),
    Delete(Receiver<Result<bool, Error>>),
}

/// Where the replica stands in the log.
struct Applier {
    /// Entries applied (the sequence number of the next one).
    next: u64,
    /// The token of entry `next - 1`.
    last: Vec<u8>,
    /// Own entries' answers, by their counter.
    mine: HashMap<u64, Pending>,
    /// The log time: the latest stamped on the entries applied.
    clock: u64,
}

/// The shared log and this instance's position in it.
pub(crate) struct Replica {
    log: Log,
    /// This instance, in the tokens of its entries.
    origin: u64,
    counter: AtomicU64,
    applier: Mutex<Applier>,
    dedup: Dedup,
    /// Whether entries are stamped with their log time (the store has an
    /// age limit).
    timed: bool,
    /// Whether the store has eviction limits (the log may be compacted).
    evicting: bool,
    /// Entries the log held at the last call.
    held: AtomicU64,
}

/// Loads of the base one call makes at most before it fails (the log
/// compacted again each time while this instance loaded the base).
const RELOADS: usize = 4;

fn counter_of(bytes: &[u8]) -> Option<u64> {
    bytes
        .get(9..17)
        .and_then(|b| b.try_into().ok())
        .map(u64::from_le_bytes)
}

impl Replica {
    /// `timed`: whether entries are stamped with their log time;
    /// `evicting`: whether the store has eviction limits.
    pub fn new(log: Log, dedup: Dedup, timed: bool, evicting: bool) -> Replica {
        let origin = xxhash_rust::xxh3::xxh3_64(
            format!(
                "{:?} {} {:?}",
                std::time::SystemTime::now(),
                std::process::id(),
                std::thread::current().id()
            )
            .as_bytes(),
        );
        Replica {
            log,
            origin,
            counter: AtomicU64::new(0),
            applier: Mutex::new(Applier {
                next: 0,
                last: Vec::new(),
                mine: HashMap::new(),
                clock: 0,
            }),
            dedup,
            timed,
            evicting,
            held: AtomicU64::new(0),
        }
    }

    /// The server, for messages (no password).
    pub fn url(&self) -> String {
        self.log.url().to_string()
    }

    /// Replicas that confirm each write before it is acknowledged.
    pub fn replicas(&self) -> u32 {
        self.log.replicas()
    }

    fn token(&self) -> (u64, u64) {
        (self.origin, self.counter.fetch_add(1, Ordering::Relaxed))
    }

    fn position(&self) -> (u64, Vec<u8>) {
        let a = self.applier.lock().unwrap_or_else(|p| p.into_inner());
        (a.next, a.last.clone())
    }

    /// Appends `entries` (maybe none) in chunks of [`APPEND_CHUNK`], each
    /// then applied with the log before it; the answers of the appended
    /// entries, in order.
    fn append_and_apply(
        &self,
        seen: &ContentSeen,
        entries: Vec<Vec<u8>>,
    ) -> Result<Vec<Pending>, Error> {
        if entries.len() <= APPEND_CHUNK {
            return self.append_chunk(seen, entries);
        }
        let mut out = Vec::with_capacity(entries.len());
        for chunk in entries.chunks(APPEND_CHUNK) {
            out.extend(self.append_chunk(seen, chunk.to_vec())?);
        }
        Ok(out)
    }

    /// [`Replica::append_and_apply`] of one chunk: one round trip when the
    /// replica is less than [`crate::redis::log`]'s window behind.
    fn append_chunk(
        &self,
        seen: &ContentSeen,
        entries: Vec<Vec<u8>>,
    ) -> Result<Vec<Pending>, Error> {
        let counters: Vec<u64> = entries.iter().filter_map(|e| counter_of(e)).collect();
        let (from, last) = self.position();
        let mut w = self.log.append(from, &last, &entries)?;
        let mut a = self.applier.lock().unwrap_or_else(|p| p.into_inner());
        let mut start = from;
        // Trimmed: nothing was appended; the base, then the call again.
        for _ in 0..RELOADS {
            if !w.trimmed {
                break;
            }
            self.reload(seen, &mut a)?;
            start = a.next;
            w = self.log.append(a.next, &a.last, &entries)?;
        }
        let end = self.window(&w)?;
        let mut batch = (start, w.entries);
        // Bounded: each round applies at least one entry or stops.
        while a.next < end {
            let (start, entries) = batch;
            let before = a.next;
            for (i, bytes) in entries.into_iter().enumerate() {
                if start + i as u64 == a.next && a.next < end {
                    self.apply(seen, &mut a, bytes)?;
                }
            }
            if a.next < end {
                if a.next == before && start == a.next {
                    return Err(Error::new(ErrorKind::SharedStore(format!(
                        "{}: the log returned no entry at {}",
                        self.url(),
                        a.next
                    ))));
                }
                let mut more = self.log.append(a.next, &a.last, &[])?;
                if more.trimmed {
                    self.reload(seen, &mut a)?;
                    more = self.log.append(a.next, &a.last, &[])?;
                }
                self.window(&more)?;
                batch = (a.next, more.entries);
            } else {
                break;
            }
        }
        Ok(counters
            .iter()
            .map(|c| {
                a.mine.remove(c).unwrap_or_else(|| {
                    let (tx, rx) = mpsc::sync_channel(1);
                    drop(tx.send(Err(ErrorKind::Failed.into())));
                    Pending::Insert(rx)
                })
            })
            .collect())
    }

    /// Records what a call of the log script says of the log; its end.
    /// Still trimmed (compacted again after each load) is an error.
    fn window(&self, w: &Window) -> Result<u64, Error> {
        if w.trimmed {
            return Err(Error::new(ErrorKind::SharedStore(format!(
                "{}: the log was compacted again at every load of its base",
                self.url()
            ))));
        }
        self.held.store(w.end - w.first, Ordering::Relaxed);
        Ok(w.end)
    }

    /// Sends one log entry to the local writer, in order.
    fn apply(&self, seen: &ContentSeen, a: &mut Applier, bytes: Vec<u8>) -> Result<(), Error> {
        let own = entry::origin(&bytes) == Some(self.origin);
        let counter = counter_of(&bytes).unwrap_or(u64::MAX);
        let at = match self.timed {
            true => {
                a.clock = a.clock.max(entry::log_time(&bytes).unwrap_or(0));
                At::Log(a.clock)
            }
            false => At::Now,
        };
        let pending = match entry::decode(&bytes, &self.dedup) {
            Ok(Entry::Insert(p)) => {
                let (tx, rx) = mpsc::sync_channel(1);
                seen.send_local(Op::Insert(seen.pack(*p), Reply::Thread(tx), at))?;
                Pending::Insert(rx)
            }
            Ok(Entry::Delete(id)) => {
                let (tx, rx) = mpsc::sync_channel(1);
                seen.send_local(Op::Delete(id, tx, at))?;
                Pending::Delete(rx)
            }
            // Every instance reads the same bytes: an entry that cannot
            // be read is skipped by all, and fails its own caller.
            Err(e) => {
                let (tx, rx) = mpsc::sync_channel(1);
                drop(tx.send(Err(e)));
                Pending::Insert(rx)
            }
        };
        if own {
            if a.mine.len() >= MAX_UNCLAIMED {
                if let Some(&oldest) = a.mine.keys().min() {
                    a.mine.remove(&oldest);
                }
            }
            a.mine.insert(counter, pending);
        }
        a.last = entry::token(&bytes).to_vec();
        a.next += 1;
        Ok(())
    }

    /// Applies every entry in the log now, and waits until the local store
    /// has committed them: reads after it see everything acknowledged
    /// before the call, by any instance.
    pub fn catch_up(&self, seen: &ContentSeen) -> Result<(), Error> {
        self.append_and_apply(seen, Vec::new())?;
        seen.local_barrier()
    }

    /// Starts the thread that keeps the replica caught up while the
    /// instance is idle (one round trip every [`TAIL_EVERY`]), and
    /// compacts the log when it is due ([`compact::due`]); it ends
    /// once the instance is closed. Errors (an unreachable server) are
    /// left to the requests to report.
    pub fn keep_up(self: &Arc<Replica>, seen: WeakSeen) -> Result<(), Error> {
        let replica = self.clone();
        std::thread::Builder::new()
            .name("neardup-log-tail".into())
            .spawn(move || loop {
                std::thread::sleep(TAIL_EVERY);
                let Some(seen) = seen.upgrade() else {
                    break;
                };
                if seen.is_healthy() {
                    drop(replica.append_and_apply(&seen, Vec::new()));
                    if replica.compaction_due(&seen) {
                        drop(replica.compact(&seen));
                    }
                }
            })
            .map(drop)
            .map_err(|e| Error::with_source(ErrorKind::Io(format!("log thread: {e}")), e))
    }

    /// Judges and stores documents: appended to the log at once (one
    /// round trip), their verdicts in the log's order.
    pub fn insert_many(
        &self,
        seen: &ContentSeen,
        docs: Vec<Result<Prepared, Error>>,
    ) -> Vec<Result<Verdict, Error>> {
        let entries: Vec<Vec<u8>> = docs
            .iter()
            .flatten()
            .map(|p| entry::encode_insert(p, self.token(), self.timed))
            .collect();
        let mut pending = match self.append_and_apply(seen, entries) {
            Ok(p) => p.into_iter(),
            Err(e) => {
                let kind = e.kind().clone();
                return docs
                    .into_iter()
                    .map(|d| d.and_then(|_| Err(Error::new(kind.clone()))))
                    .collect();
            }
        };
        docs.into_iter()
            .map(|d| {
                d?;
                match pending.next() {
                    Some(Pending::Insert(rx)) => {
                        rx.recv().unwrap_or_else(|_| Err(ErrorKind::Failed.into()))
                    }
                    _ => Err(ErrorKind::Failed.into()),
                }
            })
            .collect()
    }

    /// Deletes a document through the log.
    pub fn delete(&self, seen: &ContentSeen, id: &str) -> Result<bool, Error> {
        let entries = vec![entry::encode_delete(id, self.token(), self.timed)];
        match self.append_and_apply(seen, entries)?.pop() {
            Some(Pending::Delete(rx)) => {
                rx.recv().unwrap_or_else(|_| Err(ErrorKind::Failed.into()))
            }
            Some(Pending::Insert(rx)) => match rx.recv() {
                Ok(Err(e)) => Err(e),
                _ => Err(ErrorKind::Failed.into()),
            },
            None => Err(ErrorKind::Failed.into()),
        }
    }
}
