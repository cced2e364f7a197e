//! The shared store: `neardup serve --store URL`, one Redis or Valkey
//! server, a Cluster, or a primary watched by sentinels ([`StoreUrl`]).
//! Service instances over one Redis or Valkey server give the verdicts of
//! one instance: the server holds the log of every insertion and deletion
//! in one arrival order ([`log`]), and each instance applies that log, in
//! that order, to a local [`ContentSeen`] with the single-node engine
//! ([`replica`]), so every verdict is the single-node verdict of the log's
//! prefix before it. Under eviction limits the log is compacted
//! ([`compact`]): its head is replaced by a base, the documents a replica
//! holds there, which a starting instance restores before it replays the
//! rest. See ARCHITECTURE.md, "Shared store (Redis)".

mod compact;
mod entry;
mod log;
mod pool;
mod replica;
mod topology;
mod url;

use std::path::Path;
use std::sync::{mpsc, Arc};

pub use url::StoreUrl;

pub(crate) use replica::Replica;

use crate::config::Config;
use crate::error::{Error, ErrorKind};
use crate::evict::At;
use crate::seen::ContentSeen;
use crate::writer::Op;

/// What every instance over one shared store must agree on, recorded in
/// the store by the first one: the engine (method, parameters, exact
/// verification), the settings that change verdicts, and, when entries
/// may carry band keys instead of signatures (a MinHash method with a
/// verification sketch: [`neardup::dedup::KeyRule`]), that they do, so
/// that an instance which cannot read them refuses the store; and the
/// eviction limits, with an age limit that entries carry their log time
/// ([`entry::TIMED`]), and that the log is compacted ([`compact`]), so
/// that an instance from before compaction refuses it. A store without
/// limits keeps the description (and the entries) of the instances that
/// had none.
pub(crate) fn description(engine: &str, config: &Config) -> String {
    let bands = neardup::dedup::KeyRule::new(config.get_method(), config.get_verifier())
        .is_ok_and(|r| r.may_leave_signatures_out());
    let mut evict = String::new();
    if let Some(n) = config.get_max_documents() {
        evict.push_str(&format!("; max documents {n}"));
    }
    if let Some(age) = config.get_max_age() {
        evict.push_str(&format!(
            "; max age {} ms; entries log time",
            age.as_millis()
        ));
    }
    if !evict.is_empty() {
        // Instances from before compaction would replay a compacted log
        // from its first entry held as if it were the whole: refused.
        evict.push_str("; log compacted");
    }
    format!(
        "{engine}; composite {:?}; store duplicates {}; replace changed {}{}{evict}",
        config.get_composite(),
        config.get_store_duplicates(),
        config.get_replace_changed(),
        if bands { "; entries band keys" } else { "" }
    )
}

/// Opens an instance over the shared store at `url`, with its local
/// replica in `dir` (which must hold no store: it is filled from the log).
pub(crate) fn open(
    url: &StoreUrl,
    dir: &Path,
    config: &Config,
    engine: &str,
) -> Result<ContentSeen, Error> {
    if dir.join(crate::FILE_NAME).exists() {
        return Err(Error::new(ErrorKind::SharedStore(format!(
            "{}: the replica directory already holds a store; give an empty one",
            dir.display()
        ))));
    }
    let log = log::Log::join(url, &description(engine, config))?;
    let local = ContentSeen::open(dir, config)?;
    let timed = config.get_max_age().is_some();
    let evicting = timed || config.get_max_documents().is_some();
    let replica = Arc::new(Replica::new(
        log,
        local.shared().dedup.clone(),
        timed,
        evicting,
    ));
    let seen = local.with_replica(replica.clone());
    replica.catch_up(&seen)?;
    replica.keep_up(seen.downgrade())?;
    Ok(seen)
}

/// A [`ContentSeen`] over a shared store.
impl ContentSeen {
    /// Opens a service instance over a shared store (Redis or Valkey):
    /// any number of instances over one store give the verdicts of one
    /// instance (see [`crate::redis`]). Its local replica of the store's
    /// log is kept in `dir`, which must hold no store; it is filled from
    /// the log at open.
    ///
    /// The eviction limits ([`Config::max_documents`],
    /// [`Config::max_age`]) hold over the log: every instance evicts the
    /// same documents at the same entry, and with a shared store age is
    /// measured in log time (the store server's clock when an entry was
    /// appended), so documents age out as new entries arrive. With
    /// limits, the instances compact the log in Redis so that its memory
    /// stays bounded (see [`crate::redis`]).
    ///
    /// # Errors
    /// [`ErrorKind::SharedStore`]: the server cannot be reached;
    /// [`ErrorKind::MethodMismatch`]: the store was made with other
    /// settings (eviction limits among them).
    pub fn open_shared(
        url: &StoreUrl,
        dir: impl AsRef<Path>,
        config: &Config,
    ) -> Result<ContentSeen, Error> {
        open(
            url,
            dir.as_ref(),
            config,
            &crate::seen::method_description(config),
        )
    }

    /// Whether this instance is over a shared store (every write takes a
    /// round trip to it).
    pub fn is_shared(&self) -> bool {
        self.replica().is_some()
    }

    /// The shared store's address (its password as `***`), if any.
    pub fn shared_store(&self) -> Option<String> {
        self.replica().map(Replica::url)
    }

    /// With a shared store: how many of its primary's replicas confirm
    /// each write before the verdict is given (see
    /// [`StoreUrl::require_replicas`]).
    pub fn shared_store_replicas(&self) -> Option<u32> {
        self.replica().map(Replica::replicas)
    }

    /// With a shared store: applies everything in its log now (one round
    /// trip) and waits for the local commits; nothing without one.
    pub(crate) fn catch_up(&self) -> Result<(), Error> {
        match self.replica() {
            Some(r) => r.catch_up(self),
            None => Ok(()),
        }
    }

    /// Waits until the writer has committed everything sent before.
    pub(crate) fn local_barrier(&self) -> Result<(), Error> {
        // No document has the empty id (`check_id`): deleting it changes
        // nothing, and its answer comes after the earlier operations.
        let (tx, rx) = mpsc::sync_channel(1);
        self.send_local(Op::Delete(String::new(), tx, At::Untimed))?;
        rx.recv()
            .unwrap_or_else(|_| Err(ErrorKind::Failed.into()))
            .map(drop)
    }
}
