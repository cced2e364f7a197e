//! Document ids: unique within a run, whatever the inputs repeat.
//!
//! An archive that fetched one URL twice has two records with the same
//! target URI; the second becomes `URI#2`, the third `URI#3`, and so on, in
//! input order (the URL stays the URL). The same holds for HTML files named
//! twice. JSON Lines and Parquet ids are the user's own: a repeated one is a
//! [`DocErrorKind::DuplicateId`] error, which callers may treat as fatal.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, Mutex};

use crate::document::Item;
use crate::error::{DocError, DocErrorKind};

/// Gives every item a unique id. Ids are remembered by their 128-bit hash,
/// whatever the length of the URL: 17 bytes a slot of a table at most 7/8
/// full, so 20 to 40 bytes a document (a growing table holds its old half
/// too). The suffix last given to a repeated id is kept apart, for the few
/// ids that repeat.
#[derive(Debug, Default)]
pub(crate) struct IdRegistry {
    seen: HashSet<u128, BuildHasherDefault<KeyHasher>>,
    last_suffix: HashMap<u128, u32, BuildHasherDefault<KeyHasher>>,
}

/// The hasher of the registry's keys, which are hashes already: their
/// two halves folded, without hashing them again.
#[derive(Debug, Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Not reached for `u128` keys; any bytes still hash.
        self.0 = xxhash_rust::xxh3::xxh3_64_with_seed(bytes, self.0);
    }

    fn write_u128(&mut self, k: u128) {
        self.0 ^= (k as u64) ^ ((k >> 64) as u64);
    }
}

fn key(id: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(id.as_bytes())
}

impl IdRegistry {
    /// `item` with a unique id; `strict` (user-given ids) turns a repeated
    /// document id into an error.
    pub(crate) fn assign(&mut self, item: Item, strict: bool) -> Item {
        match item {
            Item::Document(mut d) => match self.rename(&d.id) {
                None => Item::Document(d),
                Some(new) if strict => Item::Error(DocError {
                    id: new,
                    kind: DocErrorKind::DuplicateId(d.id),
                }),
                Some(new) => {
                    d.id = new;
                    Item::Document(d)
                }
            },
            Item::Error(mut e) => {
                if let Some(new) = self.rename(&e.id) {
                    e.id = new;
                }
                Item::Error(e)
            }
            skipped => skipped,
        }
    }

    /// Registers `id`; `Some(new id)` when it was already taken: `id#k`
    /// for the first `k` from 2 on (after the last suffix given to `id`)
    /// that is not taken either.
    fn rename(&mut self, id: &str) -> Option<String> {
        let base = key(id);
        if self.seen.insert(base) {
            return None;
        }
        let mut k = self.last_suffix.get(&base).map_or(2, |&last| last + 1);
        loop {
            let candidate = format!("{id}#{k}");
            if self.seen.insert(key(&candidate)) {
                self.last_suffix.insert(base, k);
                return Some(candidate);
            }
            k += 1;
        }
    }
}

/// The ids of documents whose record was cut short (a truncated archive, a
/// gzip member without its end): filled while reading, shared by clones.
#[derive(Debug, Clone, Default)]
pub struct TruncatedIds(Arc<Mutex<HashSet<String>>>);

impl TruncatedIds {
    /// An empty set.
    pub fn new() -> TruncatedIds {
        TruncatedIds::default()
    }

    /// Whether the document `id` was truncated.
    pub fn contains(&self, id: &str) -> bool {
        self.0.lock().map(|s| s.contains(id)).unwrap_or(false)
    }

    /// How many documents were truncated.
    pub fn len(&self) -> usize {
        self.0.lock().map(|s| s.len()).unwrap_or(0)
    }

    /// Whether no document was truncated.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn insert(&self, id: &str) {
        if let Ok(mut s) = self.0.lock() {
            s.insert(id.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Content, RawDocument};

    fn doc(id: &str) -> Item {
        Item::Document(RawDocument {
            id: id.into(),
            url: Some("http://a/".into()),
            content: Content::Text("t".into()),
        })
    }

    fn id(item: &Item) -> &str {
        match item {
            Item::Document(d) => &d.id,
            Item::Error(e) => &e.id,
            Item::Skipped { id, .. } => id,
        }
    }

    #[test]
    fn repeats_are_numbered_and_urls_kept() {
        let mut ids = IdRegistry::default();
        let out: Vec<Item> = ["u", "u", "u#3", "u", "v"]
            .into_iter()
            .map(|i| ids.assign(doc(i), false))
            .collect();
        let names: Vec<&str> = out.iter().map(id).collect();
        assert_eq!(names, ["u", "u#2", "u#3", "u#4", "v"]);
        assert!(matches!(&out[1], Item::Document(d) if d.url.as_deref() == Some("http://a/")));
    }

    #[test]
    fn strict_repeats_are_errors() {
        let mut ids = IdRegistry::default();
        assert!(matches!(ids.assign(doc("a"), true), Item::Document(_)));
        let again = ids.assign(doc("a"), true);
        assert!(matches!(
            &again,
            Item::Error(DocError { id, kind: DocErrorKind::DuplicateId(orig) }) if id == "a#2" && orig == "a"
        ));
    }

    #[test]
    fn suffixes_skip_ids_taken_and_follow_the_last_one_given() {
        let mut ids = IdRegistry::default();
        let got: Vec<String> = ["a", "a", "a#3", "a", "a", "a#2", "b", "a#2"]
            .into_iter()
            .map(|id| match ids.assign(doc(id), false) {
                Item::Document(d) => d.id,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            got,
            ["a", "a#2", "a#3", "a#4", "a#5", "a#2#2", "b", "a#2#3"]
        );
    }
}
