//! [`ContentSeen`]: the persistent near-duplicate index, usable in-process.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, RwLock};
use std::thread::JoinHandle;

use neardup::extract::Extractor;
use neardup::io::RawDocument;
use neardup::sketch::{Signature, Sketcher};
use neardup::{Dedup, Page, ShingleSeq};

use crate::answers::{DocumentInfo, Stats, Verdict};
use crate::config::Config;
use crate::error::{Error, ErrorKind};
use crate::evict::At;
use crate::postings::{DiskPostings, POSTINGS_DIR};
use crate::record::PackedText;
use crate::recover::{self, Recovery};
use crate::redis::Replica;
use crate::shared::{Decision, Shared};
use crate::store::Store;
use crate::writer::{self, Op, Reply};
use neardup::dedup::{signature_key, CandidateKeys, OnlineCore};

/// The longest document id accepted, in bytes.
pub const MAX_ID_BYTES: usize = 4096;

/// A document extracted and fingerprinted, ready for [`ContentSeen::insert_prepared`].
#[derive(Debug, Clone)]
pub struct Prepared {
    pub(crate) id: String,
    pub(crate) url: Option<String>,
    /// The signature, unless the engine keeps band keys instead
    /// ([`neardup::dedup::KeyRule`]).
    pub(crate) signature: Option<Signature>,
    /// The signature's bytes, with the signature.
    pub(crate) bytes: Option<Vec<u8>>,
    /// The folded band keys, in place of the signature.
    pub(crate) band_keys: Option<Vec<u32>>,
    /// [`signature_key`] of the signature's bytes (0 without text).
    pub(crate) key: u128,
    pub(crate) text_len: u32,
    /// Token shingles for exact verification (when it is on).
    pub(crate) shingles: Option<ShingleSeq>,
    /// The main text, stored for originals when exact verification is on
    /// (not with a verification sketch: the sketch is stored).
    pub(crate) text: Option<String>,
    /// That text compressed, by the thread that sends it to the writer.
    pub(crate) packed: Option<PackedText>,
}

impl Prepared {
    /// The document's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Whether the document has text (a signature or its band keys).
    pub(crate) fn has_text(&self) -> bool {
        self.signature.is_some() || self.band_keys.is_some()
    }

    /// What the engine reads of the signature; `None` without text.
    pub(crate) fn candidate_keys(&self) -> Option<CandidateKeys<'_>> {
        self.has_text().then_some(CandidateKeys {
            key: self.key,
            signature: self.signature.as_ref(),
            band_keys: self.band_keys.as_deref(),
        })
    }
}

/// The ContentSeen store: judges documents against everything stored
/// before, keeps them durably in a data directory, and rebuilds its
/// in-memory index from there when opened again.
///
/// Cheap to clone; clones share one store. The store closes when the last
/// clone is dropped.
///
/// ```
/// use neardup::io::{Content, RawDocument};
/// use neardup_server::{Config, ContentSeen};
///
/// let dir = std::env::temp_dir().join(format!("neardup-doc-seen-{}", std::process::id()));
/// # let _ = std::fs::remove_dir_all(&dir);
/// let seen = ContentSeen::open(&dir, &Config::new())?;
/// let text = |id: &str, t: &str| RawDocument { id: id.into(), url: None, content: Content::Text(t.into()) };
/// let a = "The council approved the new cycle lanes on the high street after a long debate on Monday evening.";
/// assert!(!seen.insert(text("a", a))?.is_duplicate());
/// let v = seen.insert(text("b", &a.replace("evening", "night")))?;
/// assert_eq!(v.duplicate_of.as_deref(), Some("a"));
/// assert_eq!(seen.stats().documents, 2);
/// # drop(seen); let _ = std::fs::remove_dir_all(&dir);
/// # Ok::<(), neardup_server::Error>(())
/// ```
#[derive(Clone)]
pub struct ContentSeen {
    inner: Arc<Inner>,
}

struct Inner {
    shared: Arc<Shared>,
    tx: Option<Sender<Op>>,
    writer: Option<JoinHandle<()>>,
    /// With a shared store: the log every write goes through first.
    replica: Option<Arc<Replica>>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.tx.take();
        if let Some(h) = self.writer.take() {
            let _ = h.join();
        }
    }
}

/// A [`ContentSeen`] that does not keep it open (for its own threads).
pub(crate) struct WeakSeen(std::sync::Weak<Inner>);

impl WeakSeen {
    /// The instance, while it is open.
    pub fn upgrade(&self) -> Option<ContentSeen> {
        self.0.upgrade().map(|inner| ContentSeen { inner })
    }
}

impl std::fmt::Debug for ContentSeen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContentSeen")
            .field("store", &self.inner.shared.store.path())
            .finish_non_exhaustive()
    }
}

/// The method as the store records it ([`neardup::dedup::engine_description`]:
/// its name and a hash of the versioned bytes of every parameter), so that
/// a store is never read with fingerprints it was not made with.
pub(crate) fn method_description(config: &Config) -> String {
    neardup::dedup::engine_description(config.get_method(), config.get_verifier())
}

/// How stores made before the versioned parameter format (neardup 0.1)
/// recorded the same method: a hash of the parameters' `Debug` text. A
/// store that holds it was made with this very configuration by 0.1; it is
/// opened and its record upgraded to [`method_description`]. Frozen: it
/// only has to match what 0.1 wrote.
fn legacy_description(config: &Config) -> String {
    let method = config.get_method();
    let verifier = config.get_verifier();
    let params = xxhash_rust::xxh3::xxh3_64(format!("{method:?} {verifier:?}").as_bytes());
    let exact = if verifier.is_some() { "+exact" } else { "" };
    format!("{}{exact} (parameters {params:016x})", method.kind().name())
}

fn check_id(id: &str) -> Result<(), Error> {
    if id.is_empty() {
        return Err(ErrorKind::InvalidId("the id is empty".into()).into());
    }
    if id.len() > MAX_ID_BYTES {
        return Err(
            ErrorKind::InvalidId(format!("the id is longer than {MAX_ID_BYTES} bytes")).into(),
        );
    }
    Ok(())
}

impl ContentSeen {
    /// Opens (or creates) the store in `dir` and brings up the index: from
    /// its snapshot and the documents stored after it, or, without a
    /// usable snapshot, from every stored document.
    ///
    /// # Errors
    /// A store of a newer format, a corrupt store, one built with another
    /// method, or one already open: never a silent reset.
    pub fn open(dir: impl AsRef<Path>, config: &Config) -> Result<ContentSeen, Error> {
        let method = config.get_method().clone();
        let store = Store::open(
            dir.as_ref(),
            &method_description(config),
            &legacy_description(config),
        )?;
        let verifier = config.get_verifier().copied();
        let postings = DiskPostings::open(&dir.as_ref().join(POSTINGS_DIR)).map_err(|e| {
            Error::with_source(ErrorKind::Io(format!("{}: {e}", dir.as_ref().display())), e)
        })?;
        let mut state = OnlineCore::with_postings(
            method.clone(),
            verifier,
            config.get_composite().copied(),
            Box::new(postings),
        )?;
        let recovery = recover::open_index(dir.as_ref(), &store, &mut state)?;
        let key_rule = state.key_rule();
        let shared = Arc::new(Shared {
            key_rule,
            state: RwLock::new(state),
            store,
            dir: dir.as_ref().to_path_buf(),
            since_snapshot: AtomicU64::new(recovery.replayed + recovery.removals),
            recovery,
            snapshots: AtomicU64::new(0),
            config: config.clone(),
            dedup: Dedup::builder().method(method).verifier(verifier).build(),
            extractor: Extractor::new(),
            failed: AtomicBool::new(false),
            commits: AtomicU64::new(0),
            evicted: AtomicU64::new(0),
            committed_ops: AtomicU64::new(0),
        });
        let (tx, rx) = mpsc::channel();
        let for_writer = shared.clone();
        let writer = std::thread::Builder::new()
            .name("neardup-writer".into())
            .spawn(move || writer::run(for_writer, rx))
            .map_err(|e| Error::with_source(ErrorKind::Io(format!("writer thread: {e}")), e))?;
        Ok(ContentSeen {
            inner: Arc::new(Inner {
                shared,
                tx: Some(tx),
                writer: Some(writer),
                replica: None,
            }),
        })
    }

    /// This instance, taking every write through the shared log first.
    pub(crate) fn with_replica(mut self, replica: Arc<Replica>) -> ContentSeen {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.replica = Some(replica);
        }
        self
    }

    /// A handle that does not keep this instance open.
    pub(crate) fn downgrade(&self) -> WeakSeen {
        WeakSeen(Arc::downgrade(&self.inner))
    }

    pub(crate) fn replica(&self) -> Option<&Replica> {
        self.inner.replica.as_deref()
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.inner.shared
    }

    /// Extracts and fingerprints a document (the CPU-heavy part, safe to
    /// run on many threads at once).
    pub fn prepare(&self, doc: RawDocument) -> Result<Prepared, Error> {
        check_id(&doc.id)?;
        let page = Page::from_raw(doc, &self.shared().extractor)
            .map_err(|e| Error::with_source(ErrorKind::Extract(e.to_string()), e))?;
        let dedup = &self.shared().dedup;
        let (signature, shingles) = dedup.fingerprint_with_shingles(&page.text, &page.paragraphs);
        let bytes = signature.as_ref().map(Signature::to_bytes);
        let key = bytes.as_deref().map_or(0, signature_key);
        // The engine's rule: band keys in place of the signature when it
        // never reads the signature (a document with a sketch).
        let rule = &self.shared().key_rule;
        let (signature, bytes, band_keys) = match signature {
            Some(sig) if !rule.keeps_signature(shingles.as_ref()) => {
                (None, None, rule.band_keys(&sig)?)
            }
            sig => (sig, bytes, None),
        };
        let text_len = u32::try_from(page.text.len()).unwrap_or(u32::MAX);
        // With a verification sketch, the sketch is kept instead.
        let text = shingles
            .as_ref()
            .filter(|s| !s.is_sketch())
            .map(|_| page.text);
        Ok(Prepared {
            id: page.id,
            url: page.url,
            signature,
            bytes,
            band_keys,
            key,
            text_len,
            shingles,
            text,
            packed: None,
        })
    }

    /// Compresses the prepared text for the store, on this thread.
    pub(crate) fn pack(&self, mut p: Prepared) -> Box<Prepared> {
        if p.packed.is_none() {
            p.packed = p.text.as_deref().map(|t| self.shared().store.pack(t));
        }
        Box::new(p)
    }

    /// Judges and stores prepared documents in their order: all go to the
    /// writer at once, so that they share its transactions; each answer
    /// comes once its document is durable. A failed preparation is passed
    /// through as its answer.
    pub fn insert_many(&self, docs: Vec<Result<Prepared, Error>>) -> Vec<Result<Verdict, Error>> {
        if let Some(r) = self.replica() {
            return r.insert_many(self, docs);
        }
        let pending: Vec<Result<mpsc::Receiver<Result<Verdict, Error>>, Error>> = docs
            .into_iter()
            .map(|p| {
                let (tx, rx) = mpsc::sync_channel(1);
                self.send_local(Op::Insert(self.pack(p?), Reply::Thread(tx), At::Now))?;
                Ok(rx)
            })
            .collect();
        pending
            .into_iter()
            .map(|r| r.and_then(|rx| rx.recv().unwrap_or_else(|_| Err(ErrorKind::Failed.into()))))
            .collect()
    }

    /// The verdict [`ContentSeen::insert`] would give, without storing.
    pub fn check(&self, doc: RawDocument) -> Result<Verdict, Error> {
        let p = self.prepare(doc)?;
        self.check_prepared(&p)
    }

    /// [`ContentSeen::check`] of a prepared document.
    pub fn check_prepared(&self, p: &Prepared) -> Result<Verdict, Error> {
        if let Some(r) = self.replica() {
            r.catch_up(self)?;
        }
        self.check_local(p)
    }

    /// [`ContentSeen::check_prepared`] against what this instance holds
    /// now (with a shared store: without catching up with its log first).
    pub(crate) fn check_local(&self, p: &Prepared) -> Result<Verdict, Error> {
        let shared = self.shared();
        if shared.failed.load(Ordering::Acquire) {
            return Err(ErrorKind::Failed.into());
        }
        shared.store.read(|t| {
            let docs = shared.docs(&t.docs, &t.order);
            match shared.decide(&shared.read_state(), &docs, p)? {
                Decision::Stored(v) | Decision::Judged { verdict: v, .. } => Ok(v),
            }
        })
    }

    /// Judges a document and stores it; returns once it is durable.
    ///
    /// Re-inserting an id with the same content returns its stored verdict
    /// (so a retry is safe); with other content it fails with
    /// [`ErrorKind::Conflict`].
    pub fn insert(&self, doc: RawDocument) -> Result<Verdict, Error> {
        let p = self.prepare(doc)?;
        self.insert_prepared(p)
    }

    /// [`ContentSeen::insert`] of a prepared document.
    pub fn insert_prepared(&self, p: Prepared) -> Result<Verdict, Error> {
        if let Some(r) = self.replica() {
            let mut v = r.insert_many(self, vec![Ok(p)]);
            return v.pop().unwrap_or_else(|| Err(ErrorKind::Failed.into()));
        }
        let (tx, rx) = mpsc::sync_channel(1);
        self.send_local(Op::Insert(self.pack(p), Reply::Thread(tx), At::Now))?;
        rx.recv().unwrap_or_else(|_| Err(ErrorKind::Failed.into()))
    }

    /// Sends a prepared document to the writer and returns at once: the
    /// verdict arrives on the receiver once the document is durable.
    /// `permit` is dropped when the writer is done with it.
    pub(crate) fn submit(
        &self,
        p: Prepared,
        permit: Option<tokio::sync::OwnedSemaphorePermit>,
    ) -> Result<tokio::sync::oneshot::Receiver<Result<Verdict, Error>>, Error> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.is_shared() {
            // The round trip to the shared store is made here (callers
            // run this on the blocking pool with a shared store).
            drop(tx.send(self.insert_prepared(p)));
            drop(permit);
            return Ok(rx);
        }
        self.send_local(Op::Insert(self.pack(p), Reply::Task(tx, permit), At::Now))?;
        Ok(rx)
    }

    /// Writes a consistent copy of the store (every document acknowledged
    /// before the call) to a new store file at `to`, while the service
    /// goes on; the documents copied. Restore by putting the file, named
    /// [`crate::FILE_NAME`], in a data directory.
    pub fn backup(&self, to: &Path) -> Result<u64, Error> {
        self.shared().store.backup(to)
    }

    /// Deletes a document; false when it was not stored. Its duplicates
    /// stay stored and keep naming it.
    pub fn delete(&self, id: &str) -> Result<bool, Error> {
        if let Some(r) = self.replica() {
            check_id(id)?;
            return r.delete(self, id);
        }
        let (tx, rx) = mpsc::sync_channel(1);
        self.send_local(Op::Delete(id.to_string(), tx, At::Now))?;
        rx.recv().unwrap_or_else(|_| Err(ErrorKind::Failed.into()))
    }

    pub(crate) fn send_local(&self, op: Op) -> Result<(), Error> {
        let tx = self.inner.tx.as_ref().ok_or(ErrorKind::Closed)?;
        tx.send(op).map_err(|_| ErrorKind::Closed.into())
    }

    /// A stored document, read from the store (so only committed ones).
    pub fn get(&self, id: &str) -> Result<Option<DocumentInfo>, Error> {
        if let Some(r) = self.replica() {
            r.catch_up(self)?;
        }
        let Some(r) = self.shared().store.get(id)? else {
            return Ok(None);
        };
        // Every stored signature was made by the store's method (checked
        // at open); the signature must still decode. A document stored by
        // its band keys has no signature bytes.
        if let Some(b) = &r.signature {
            Signature::from_bytes(b)
                .map_err(|e| Error::corrupt(format!("signature of {id:?}: {e}")))?;
        }
        let signature_hash = r.key().map(|k| format!("{k:032x}"));
        let method = r
            .has_text()
            .then(|| neardup::dedup::method_name(self.shared().config.get_method()));
        Ok(Some(DocumentInfo {
            id: id.to_string(),
            url: r.url,
            stored_at_ms: r.stored_at_ms,
            text_len: r.text_len,
            duplicate_of: r.duplicate_of,
            method,
            signature_bytes: r.signature.as_ref().map_or(0, Vec::len),
            signature_hash,
        }))
    }

    /// Counters.
    pub fn stats(&self) -> Stats {
        let shared = self.shared();
        let state = shared.read_state();
        Stats {
            documents: state.len(),
            originals: state.originals(),
            duplicates: state.duplicates(),
            empty: state.empty(),
            index_bytes: state.memory_bytes(),
            commits: shared.commits.load(Ordering::Relaxed),
            committed_ops: shared.committed_ops.load(Ordering::Relaxed),
            evicted: shared.evicted.load(Ordering::Relaxed),
            method: neardup::dedup::method_name(shared.config.get_method()),
        }
    }

    /// How the index was brought up when the store was opened.
    pub fn recovery(&self) -> &Recovery {
        &self.shared().recovery
    }

    /// Whether the store accepts writes (false after a failed commit).
    pub fn is_healthy(&self) -> bool {
        !self.shared().failed.load(Ordering::Acquire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_testkit::TempDir;

    #[test]
    fn a_damaged_record_fails_its_candidates_not_the_service() {
        use neardup::io::Content;
        let dir = TempDir::new("seen-damaged-record");
        let config = Config::new();
        let doc = |id: &str, t: &str| RawDocument {
            id: id.into(),
            url: None,
            content: Content::Text(t.into()),
        };
        let a: String = (0..200).map(|i| format!("w{} ", i * 7 % 101)).collect();
        let seen = ContentSeen::open(&dir, &config).unwrap();
        seen.insert(doc("a", &a)).unwrap();
        drop(seen);
        // The record of "a" is damaged on disk; the snapshot still names it.
        let store = Store::open(&dir, &method_description(&config), "").unwrap();
        store
            .write(|t| {
                t.docs
                    .insert("a", b"\x01garbage".as_slice())
                    .map_err(Error::store)?;
                Ok(())
            })
            .unwrap();
        drop(store);
        let seen = ContentSeen::open(&dir, &config).unwrap();
        assert!(seen.recovery().from_snapshot);
        let e = seen.insert(doc("b", &format!("{a} tail"))).unwrap_err();
        assert!(e.to_string().contains("record"), "{e}");
        // Other documents go on being judged and stored.
        assert!(seen.is_healthy());
        let other: String = (0..200).map(|i| format!("z{} ", i * 3 % 97)).collect();
        assert!(!seen.insert(doc("c", &other)).unwrap().is_duplicate());
        assert_eq!(seen.stats().documents, 2);
    }

    #[test]
    fn a_store_made_by_neardup_0_1_opens_and_is_upgraded() {
        let dir = TempDir::new("seen-legacy");
        let config = Config::new();
        // What 0.1 recorded for the default configuration.
        drop(Store::open(&dir, &legacy_description(&config), "").unwrap());
        let seen = ContentSeen::open(&dir, &config).unwrap();
        assert_eq!(seen.stats().method, "default");
        drop(seen);
        drop(ContentSeen::open(&dir, &config).unwrap());
        // Another configuration is still refused.
        let mut other = Config::new();
        other.method("minhash".parse().unwrap()).verifier(None);
        let e = ContentSeen::open(&dir, &other).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::MethodMismatch { .. }), "{e}");
    }
}
