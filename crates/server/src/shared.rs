//! The state the request threads and the writer share ([`Shared`]: the
//! in-memory index, the store, the engine and the counters), and the one
//! decision both make for a document ([`Shared::decide`]): its stored
//! verdict when its id holds the same content, else a judgement against
//! the index without the version it would replace.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use neardup::extract::Extractor;
use neardup::Dedup;

use crate::answers::Verdict;
use crate::config::Config;
use crate::error::{Error, ErrorKind};
use crate::recover::Recovery;
use crate::seen::Prepared;
use crate::store::Store;
use crate::store_docs::StoreDocs;
use neardup::dedup::{Judgement, KeyRule, OnlineCore};
use redb::ReadableTable;

pub(crate) struct Shared {
    pub(crate) state: RwLock<OnlineCore>,
    /// The engine's rule for what a document keeps of its signature, for
    /// the threads that prepare documents without the state's lock.
    pub key_rule: KeyRule,
    pub store: Store,
    /// The data directory (the index snapshot lives there).
    pub dir: PathBuf,
    /// How the index was brought up at open.
    pub recovery: Recovery,
    /// Operations applied since the last index snapshot.
    pub since_snapshot: AtomicU64,
    /// Index snapshots written since open.
    pub snapshots: AtomicU64,
    pub config: Config,
    pub dedup: Dedup,
    pub extractor: Extractor,
    pub failed: AtomicBool,
    pub commits: AtomicU64,
    /// Documents evicted by the document or age limit.
    pub evicted: AtomicU64,
    pub committed_ops: AtomicU64,
}

pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Shared {
    pub fn write_state(&self) -> RwLockWriteGuard<'_, OnlineCore> {
        self.state.write().unwrap_or_else(|p| p.into_inner())
    }

    pub fn read_state(&self) -> RwLockReadGuard<'_, OnlineCore> {
        self.state.read().unwrap_or_else(|p| p.into_inner())
    }

    /// The engine's view of the store through a pair of tables.
    pub fn docs<'a, D, O>(&'a self, docs: &'a D, order: &'a O) -> StoreDocs<'a, D, O> {
        StoreDocs {
            docs,
            order,
            method: self.config.get_method(),
            verifier: self.config.get_verifier(),
            unpacker: Default::default(),
        }
    }

    /// The verdict of a judgement, in ids.
    pub fn verdict<D, O>(
        &self,
        docs: &StoreDocs<'_, D, O>,
        p: &Prepared,
        j: Judgement,
    ) -> Result<Verdict, Error>
    where
        D: ReadableTable<&'static str, &'static [u8]>,
        O: ReadableTable<u64, &'static str>,
    {
        let duplicate_of = match j.duplicate_of {
            Some((d, _)) => Some(docs.id_of(u64::from(d))?.ok_or_else(|| {
                Error::corrupt(format!("the original of {:?} is not stored", p.id))
            })?),
            None => None,
        };
        Ok(Verdict {
            id: p.id.clone(),
            empty: !p.has_text(),
            duplicate_of,
            similarity: j.duplicate_of.map(|(_, s)| s),
            stored: false,
        })
    }

    /// The decision for `p`: the stored verdict of the same content under
    /// its id, or its judgement (without the version it replaces) and
    /// verdict. Checks and the writer both decide here.
    pub fn decide<D, O>(
        &self,
        state: &OnlineCore,
        docs: &StoreDocs<'_, D, O>,
        p: &Prepared,
    ) -> Result<Decision, Error>
    where
        D: ReadableTable<&'static str, &'static [u8]>,
        O: ReadableTable<u64, &'static str>,
    {
        let replacing = match self.existing(state, docs, p)? {
            Existing::Stored(v) => return Ok(Decision::Stored(v)),
            Existing::Replace(d) => Some(d),
            Existing::New => None,
        };
        let judgement = state.judge(docs, p.candidate_keys(), p.shingles.as_ref(), replacing)?;
        let verdict = self.verdict(docs, p, judgement)?;
        Ok(Decision::Judged {
            judgement,
            replacing,
            verdict,
        })
    }

    /// For an id already stored: its stored verdict when the content is
    /// the same; with other content a conflict, or, when changed content
    /// replaces the stored version, `Replace` with the stored version's
    /// dense id; `New` for a new id.
    pub fn existing<D, O>(
        &self,
        state: &OnlineCore,
        docs: &StoreDocs<'_, D, O>,
        p: &Prepared,
    ) -> Result<Existing, Error>
    where
        D: ReadableTable<&'static str, &'static [u8]>,
        O: ReadableTable<u64, &'static str>,
    {
        let Some(r) = docs.by_id(&p.id)? else {
            return Ok(Existing::New);
        };
        let Some(d) = u32::try_from(r.seq)
            .ok()
            .filter(|&d| state.kind(d).is_live())
        else {
            return Ok(Existing::New);
        };
        let key = p.has_text().then_some(p.key);
        if r.key() != key {
            if self.config.get_replace_changed() {
                return Ok(Existing::Replace(d));
            }
            return Err(Error::new(ErrorKind::Conflict(p.id.clone())));
        }
        Ok(Existing::Stored(Verdict {
            id: p.id.clone(),
            empty: !p.has_text(),
            similarity: r.duplicate_of.as_ref().map(|(_, s)| *s),
            duplicate_of: r.duplicate_of.map(|(o, _)| o),
            stored: true,
        }))
    }
}

/// What the index decides for a prepared document.
pub(crate) enum Decision {
    /// Its id is stored with the same content: the stored verdict.
    Stored(Verdict),
    /// Judged against the index, without the stored version it replaces.
    Judged {
        judgement: Judgement,
        replacing: Option<u32>,
        verdict: Verdict,
    },
}

/// What is stored under a document's id.
pub(crate) enum Existing {
    /// Nothing (or a removed version).
    New,
    /// The same content: its stored verdict.
    Stored(Verdict),
    /// Other content, which replaces the stored version (this dense id).
    Replace(u32),
}
