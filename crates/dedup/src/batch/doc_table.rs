//! [`DocTable`]: what a spilled batch run keeps of each document in
//! memory (its id, URL, text length, error and whether it has a
//! signature), packed into blocks of bytes: about 20 bytes a document plus
//! its id and URL, where a [`Fingerprinted`] takes 160 plus its strings.
//! Its signature and shingle sequence are on disk ([`crate::SigSpill`],
//! [`crate::SeqSpill`]).

use crate::batch::fingerprinted::Fingerprinted;
use crate::dedup::DocFingerprint;

/// Bytes of one block of strings (a longer string has a block of its own).
const BLOCK: usize = 1 << 20;
/// A URL length meaning "no URL".
const NO_URL: u32 = u32::MAX;

/// The documents of a corpus in input order, compactly.
#[derive(Debug, Default)]
pub struct DocTable {
    /// Blocks of strings: each document's id, then its URL.
    blocks: Vec<Vec<u8>>,
    /// Per document: its block (high 24 bits) and offset in it (low 40).
    starts: Vec<u64>,
    /// Per document: its id's length in bytes.
    id_lens: Vec<u32>,
    /// Per document: its URL's length, [`NO_URL`] without one.
    url_lens: Vec<u32>,
    /// Per document: its text length in bytes, saturated at `u32::MAX`.
    text_lens: Vec<u32>,
    /// Per document: whether it has a signature.
    signed: Vec<bool>,
    /// The documents that failed, with why, in input order.
    errors: Vec<(u32, Box<str>)>,
}

impl DocTable {
    /// An empty table.
    pub fn new() -> DocTable {
        DocTable::default()
    }

    /// Documents held.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether no document is held.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Appends what the engine and the output need of `doc` (not its
    /// signature or shingles: spill those first).
    pub fn push(&mut self, doc: &Fingerprinted) {
        let d = self.len() as u32;
        let url = doc.url.as_deref().unwrap_or("");
        let need = doc.id.len() + url.len();
        let fits = self
            .blocks
            .last()
            .is_some_and(|b| b.capacity() - b.len() >= need);
        if !fits {
            self.blocks.push(Vec::with_capacity(BLOCK.max(need)));
        }
        let block = self.blocks.len() - 1;
        let bytes = &mut self.blocks[block];
        self.starts
            .push(((block as u64) << 40) | bytes.len() as u64);
        bytes.extend_from_slice(doc.id.as_bytes());
        bytes.extend_from_slice(url.as_bytes());
        self.id_lens.push(doc.id.len() as u32);
        self.url_lens.push(match &doc.url {
            Some(u) => u.len() as u32,
            None => NO_URL,
        });
        self.text_lens
            .push(u32::try_from(doc.text_len).unwrap_or(u32::MAX));
        self.signed.push(doc.signature.is_some());
        if let Some(e) = &doc.error {
            self.errors.push((d, e.as_str().into()));
        }
    }

    fn str_at(&self, d: usize, skip: usize, len: usize) -> &str {
        let start = self.starts[d];
        let block = &self.blocks[(start >> 40) as usize];
        let at = (start & ((1 << 40) - 1)) as usize + skip;
        // Whole strings were pushed, so both ends are char boundaries.
        std::str::from_utf8(&block[at..at + len]).unwrap_or_default()
    }

    /// Document `d`'s id.
    pub fn id(&self, d: usize) -> &str {
        self.str_at(d, 0, self.id_lens[d] as usize)
    }

    /// Document `d`'s URL, if the input gave one.
    pub fn url(&self, d: usize) -> Option<&str> {
        let len = self.url_lens[d];
        (len != NO_URL).then(|| self.str_at(d, self.id_lens[d] as usize, len as usize))
    }

    /// Document `d`'s main text length in bytes.
    pub fn text_len(&self, d: usize) -> usize {
        self.text_lens[d] as usize
    }

    /// Whether document `d` has a signature (else: no text, or it failed).
    pub fn has_signature(&self, d: usize) -> bool {
        self.signed[d]
    }

    /// Why document `d` failed, if it did.
    pub fn error(&self, d: usize) -> Option<&str> {
        let at = self
            .errors
            .binary_search_by_key(&(d as u32), |e| e.0)
            .ok()?;
        Some(&self.errors[at].1)
    }

    /// The documents that failed, with why, in input order.
    pub fn errors(&self) -> impl Iterator<Item = (usize, &str)> {
        self.errors.iter().map(|(d, e)| (*d as usize, &**e))
    }

    /// The engine's view of document `d`, without its signature (which
    /// is spilled): its URL or id and text length.
    pub fn as_doc(&self, d: usize) -> DocFingerprint<'_> {
        DocFingerprint {
            signature: None,
            url: self.url(d).unwrap_or_else(|| self.id(d)),
            text_len: self.text_len(d),
        }
    }

    /// Bytes of memory the table holds.
    pub fn memory_bytes(&self) -> usize {
        self.blocks.iter().map(Vec::capacity).sum::<usize>()
            + self.starts.capacity() * 8
            + (self.id_lens.capacity() + self.url_lens.capacity() + self.text_lens.capacity()) * 4
            + self.signed.capacity()
            + self.errors.iter().map(|e| 24 + e.1.len()).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Dedup;

    #[test]
    fn documents_come_back_as_pushed() {
        let dedup = Dedup::new();
        let long_url = format!("http://example.com/{}", "é".repeat(BLOCK));
        let docs = vec![
            dedup.fingerprint_doc(
                "a".into(),
                Some("http://x/a".into()),
                "some words here",
                &[],
            ),
            dedup.fingerprint_doc("b«東京»".into(), None, "  ", &[]),
            Fingerprinted::failed("c".into(), Some(long_url.clone()), "line 3: bad".into()),
            dedup.fingerprint_doc(String::new(), Some(String::new()), "more words", &[]),
        ];
        let mut table = DocTable::new();
        for d in &docs {
            table.push(d);
        }
        assert_eq!(table.len(), 4);
        for (i, d) in docs.iter().enumerate() {
            assert_eq!(table.id(i), d.id);
            assert_eq!(table.url(i), d.url.as_deref());
            assert_eq!(table.text_len(i), d.text_len);
            assert_eq!(table.has_signature(i), d.signature.is_some());
            assert_eq!(table.error(i), d.error.as_deref());
            let (view, want) = (table.as_doc(i), d.as_doc());
            assert_eq!((view.url, view.text_len), (want.url, want.text_len));
            assert!(view.signature.is_none());
        }
        assert_eq!(table.errors().collect::<Vec<_>>(), [(2, "line 3: bad")]);
        assert!(
            table.blocks.len() >= 2,
            "a long URL gets a block of its own"
        );
        assert!(table.memory_bytes() > long_url.len());
    }

    #[test]
    fn many_documents_cost_a_few_bytes_each_beyond_their_strings() {
        let dedup = Dedup::new();
        let mut table = DocTable::new();
        let doc = dedup.fingerprint_doc("r00000000".into(), None, "a few words", &[]);
        for _ in 0..100_000 {
            table.push(&doc);
        }
        let per_doc = table.memory_bytes() as f64 / 1e5;
        assert!(per_doc < 2.0 * (21.0 + 9.0), "{per_doc} bytes a document");
        assert_eq!(table.id(99_999), "r00000000");
    }
}
