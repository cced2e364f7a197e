//! Settings of a [`ContentSeen`](crate::ContentSeen) store.

use neardup::sketch::Method;
use neardup::{CompositeCheck, Verifier};

/// How a [`ContentSeen`](crate::ContentSeen) judges and stores documents.
///
/// ```
/// use neardup_server::Config;
/// let mut config = Config::new();
/// config.store_duplicates(false).max_batch(64);
/// assert!(!config.get_store_duplicates());
/// ```
#[derive(Debug, Clone)]
pub struct Config {
    inner: Inner,
}

#[derive(Debug, Clone)]
struct Inner {
    method: Method,
    store_duplicates: bool,
    replace_changed: bool,
    max_documents: Option<u64>,
    max_age: Option<std::time::Duration>,
    max_batch: usize,
    reserve: usize,
    verifier: Option<Verifier>,
    composite: Option<CompositeCheck>,
}

impl Default for Config {
    fn default() -> Config {
        Config::new()
    }
}

impl Config {
    /// The batch engine's defaults ([`neardup::default_method`] with exact
    /// verification), duplicates stored, at most 512 operations per commit.
    pub fn new() -> Config {
        Config {
            inner: Inner {
                method: neardup::default_method(),
                store_duplicates: true,
                replace_changed: true,
                max_documents: None,
                max_age: None,
                max_batch: 512,
                reserve: 0,
                verifier: Some(Verifier::default()),
                composite: Some(CompositeCheck::default()),
            },
        }
    }

    /// The fingerprinting method. A store remembers its method and refuses
    /// to open with another one.
    pub fn method(&mut self, method: Method) -> &mut Config {
        self.inner.method = method;
        self
    }

    /// Whether a duplicate is stored too, linked to its original (default
    /// true). When false, a duplicate is judged and answered but not kept.
    pub fn store_duplicates(&mut self, yes: bool) -> &mut Config {
        self.inner.store_duplicates = yes;
        self
    }

    /// What a document posted again under its id with other content does:
    /// replace the stored version (default true: a re-crawled page whose
    /// content changed; the old version is no longer a target), or be
    /// refused as a conflict (false).
    pub fn replace_changed(&mut self, yes: bool) -> &mut Config {
        self.inner.replace_changed = yes;
        self
    }

    /// Whether changed content replaces the stored version.
    pub fn get_replace_changed(&self) -> bool {
        self.inner.replace_changed
    }

    /// Keeps at most this many documents: past it, the oldest are evicted
    /// (deleted) after each operation, so that the index does not grow
    /// forever. Default: no limit.
    pub fn max_documents(&mut self, n: Option<u64>) -> &mut Config {
        self.inner.max_documents = n;
        self
    }

    /// Evicts documents stored longer ago than this, after each
    /// operation: by the service's clock, or over a shared store by the
    /// log's time (see [`crate::ContentSeen::open_shared`]). Default:
    /// none.
    pub fn max_age(&mut self, age: Option<std::time::Duration>) -> &mut Config {
        self.inner.max_age = age;
        self
    }

    /// The document limit, if any.
    pub fn get_max_documents(&self) -> Option<u64> {
        self.inner.max_documents
    }

    /// The age limit, if any.
    pub fn get_max_age(&self) -> Option<std::time::Duration> {
        self.inner.max_age
    }

    /// The most operations the writer groups into one transaction (at
    /// least 1; default 512).
    pub fn max_batch(&mut self, n: usize) -> &mut Config {
        self.inner.max_batch = n.max(1);
        self
    }

    /// Exact verification of candidates on their token shingles, as the
    /// batch engine's [`neardup::DedupBuilder::verifier`] (default: on, with
    /// [`Verifier::default`]). With it, each original's main text is stored
    /// too (its shingles are rebuilt from it at open). `None` decides with
    /// the method's rule on signatures.
    pub fn verifier(&mut self, verifier: Option<Verifier>) -> &mut Config {
        self.inner.verifier = verifier;
        self
    }

    /// The batch engine's composite page check
    /// ([`neardup::DedupBuilder::composite`]), with the originals stored so
    /// far as third documents; needs exact verification (default: on,
    /// with [`CompositeCheck::default`]). `None` turns it off.
    pub fn composite(&mut self, check: Option<CompositeCheck>) -> &mut Config {
        self.inner.composite = check;
        self
    }

    /// The composite page check, if on.
    pub fn get_composite(&self) -> Option<&CompositeCheck> {
        self.inner.composite.as_ref()
    }

    /// The exact verifier, if on.
    pub fn get_verifier(&self) -> Option<&Verifier> {
        self.inner.verifier.as_ref()
    }

    /// Room to make in the in-memory index at open for this many documents
    /// in all (default 0: grow as needed). Growing a large index rehashes
    /// its tables at once, a pause of seconds at a million documents;
    /// reserving avoids it.
    pub fn expected_documents(&mut self, n: usize) -> &mut Config {
        self.inner.reserve = n;
        self
    }

    /// The documents room is made for at open.
    pub fn get_expected_documents(&self) -> usize {
        self.inner.reserve
    }

    /// The method.
    pub fn get_method(&self) -> &Method {
        &self.inner.method
    }

    /// Whether duplicates are stored.
    pub fn get_store_duplicates(&self) -> bool {
        self.inner.store_duplicates
    }

    /// The group-commit batch limit.
    pub fn get_max_batch(&self) -> usize {
        self.inner.max_batch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_is_at_least_one() {
        let mut c = Config::new();
        c.max_batch(0);
        assert_eq!(c.get_max_batch(), 1);
        assert!(c.get_store_duplicates());
    }
}
