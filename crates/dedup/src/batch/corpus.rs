//! [`BatchCorpus`]: a corpus as a batch run reads it, held in memory while
//! it fits a memory budget and moved to disk past it. Spilled, a document
//! keeps about 50 bytes in memory (its id and URL in a [`DocTable`], where
//! its signature and shingle sequence are); in memory it takes its whole
//! [`Fingerprinted`] (about 2 KB for a 1.5 KB text). The decision is the
//! same either way ([`Dedup::run`] or [`Dedup::run_spilled`]).

use std::path::PathBuf;

use neardup_sketch::Signature;
use rayon::prelude::*;

use crate::batch::doc_table::DocTable;
use crate::batch::fingerprinted::Fingerprinted;
use crate::batch::run::Outcome;
use crate::batch::seq_spill::SeqSpill;
use crate::batch::sig_spill::{KeysOnly, SigSpill};
use crate::dedup::Dedup;
use crate::error::Error;
use crate::verify::ShingleSeq;

/// Bytes a [`Fingerprinted`] takes besides its strings and vectors.
const DOC_BYTES: u64 = std::mem::size_of::<Fingerprinted>() as u64;

/// Where the documents are.
#[derive(Debug)]
enum Held {
    Memory(Vec<Fingerprinted>),
    Spilled(Box<Spilled>),
    /// Spilled and run: the files are gone, the table stays for the output.
    Ran(DocTable),
}

/// A spilled corpus: the documents' table, sequences and signatures.
#[derive(Debug)]
struct Spilled {
    table: DocTable,
    seqs: SeqSpill,
    sigs: SigSpill,
}

/// The documents of a batch run in input order, in memory or spilled.
#[derive(Debug)]
pub struct BatchCorpus {
    held: Held,
    /// Bytes of documents held in memory before they move to disk.
    budget: Option<u64>,
    /// Where they move.
    spill_dir: Option<PathBuf>,
    /// Shingle length of the sequences (the verifier's).
    k: usize,
    /// What a spilled document keeps of its signature.
    keys_only: Option<KeysOnly>,
    /// Bytes the documents in memory take (estimated).
    bytes: u64,
}

/// Bytes `doc` takes in memory, estimated from its parts.
pub fn held_bytes(doc: &Fingerprinted) -> u64 {
    let sig = match &doc.signature {
        Some(Signature::MinHash(m)) => m.values().len() * 4,
        Some(other) => other.to_bytes().len(),
        None => 0,
    };
    // A sketch holds its samples' positions beside their keys.
    let seq = doc.shingles.as_ref().map_or(0, ShingleSeq::memory_bytes);
    let strings = doc.id.len()
        + doc.url.as_ref().map_or(0, String::len)
        + doc.error.as_ref().map_or(0, String::len);
    DOC_BYTES + (sig + seq + strings) as u64
}

impl BatchCorpus {
    /// A corpus held in memory, however large.
    pub fn in_memory() -> BatchCorpus {
        BatchCorpus {
            held: Held::Memory(Vec::new()),
            budget: None,
            spill_dir: None,
            k: 1,
            keys_only: None,
            bytes: 0,
        }
    }

    /// A corpus spilled into `dir` from its first document on, for
    /// `dedup` (its verifier's shingle length).
    ///
    /// # Errors
    /// When the files cannot be created in `dir`.
    pub fn spilled(dedup: &Dedup, dir: impl Into<PathBuf>) -> Result<BatchCorpus, Error> {
        let mut corpus = BatchCorpus::within(dedup, 0, dir);
        corpus.spill()?;
        Ok(corpus)
    }

    /// A corpus held in memory until its documents take more than
    /// `budget` bytes, then moved into `dir` (the documents read so far
    /// and all that follow).
    pub fn within(dedup: &Dedup, budget: u64, dir: impl Into<PathBuf>) -> BatchCorpus {
        BatchCorpus {
            held: Held::Memory(Vec::new()),
            budget: Some(budget),
            spill_dir: Some(dir.into()),
            k: dedup.verifier().map_or(1, |v| v.k),
            keys_only: SigSpill::keys_only(dedup),
            bytes: 0,
        }
    }

    /// Appends the next document; moves the corpus to disk when it passes
    /// the budget.
    ///
    /// # Errors
    /// When spilling fails (the files cannot be created or written).
    pub fn push(&mut self, doc: Fingerprinted) -> Result<(), Error> {
        match &mut self.held {
            Held::Memory(docs) => {
                self.bytes += held_bytes(&doc);
                docs.push(doc);
                if self.budget.is_some_and(|b| self.bytes > b) {
                    self.spill()?;
                }
                Ok(())
            }
            Held::Ran(_) => Err(Error::corpus(
                "documents cannot be added to a spilled corpus after its run",
            )),
            Held::Spilled(s) => {
                s.seqs.push(doc.shingles.as_ref())?;
                s.sigs.push(doc.signature.as_ref(), doc.shingles.as_ref())?;
                s.table.push(&doc);
                Ok(())
            }
        }
    }

    /// Moves the documents in memory to disk; those pushed later go there
    /// too.
    fn spill(&mut self) -> Result<(), Error> {
        let Some(dir) = &self.spill_dir else {
            return Ok(());
        };
        let Held::Memory(docs) = &mut self.held else {
            return Ok(());
        };
        let docs = std::mem::take(docs);
        self.held = Held::Spilled(Box::new(Spilled {
            table: DocTable::new(),
            seqs: SeqSpill::create(dir, self.k)?,
            sigs: SigSpill::with_keys(dir, self.keys_only)?,
        }));
        self.bytes = 0;
        for doc in docs {
            self.push(doc)?;
        }
        Ok(())
    }

    /// Fails when an id occurs more than once (the output names documents
    /// by id), naming up to ten of them.
    ///
    /// # Errors
    /// [`ErrorKind::Corpus`](crate::ErrorKind::Corpus) naming the repeated
    /// ids.
    pub fn check_unique_ids(&self) -> Result<(), Error> {
        // By a parallel sort of (hash of id, document): 12 bytes a document
        // where a hash map of the ids took about 40; equal hashes are
        // compared by their ids.
        let mut keyed: Vec<(u64, u32)> = (0..self.len())
            .into_par_iter()
            .map(|i| (xxhash_rust::xxh3::xxh3_64(self.id(i).as_bytes()), i as u32))
            .collect();
        keyed.par_sort_unstable();
        let mut repeated: Vec<(u32, &str)> = Vec::new();
        for run in keyed.chunk_by(|x, y| x.0 == y.0).filter(|r| r.len() > 1) {
            // Within a run of equal hashes (almost always one id), each id
            // that occurs again, named at its second occurrence.
            let mut ids: Vec<(&str, u32)> =
                run.iter().map(|&(_, d)| (self.id(d as usize), d)).collect();
            ids.sort_unstable();
            for same in ids.chunk_by(|x, y| x.0 == y.0).filter(|s| s.len() > 1) {
                repeated.push((same[1].1, same[0].0));
            }
        }
        repeated.sort_unstable();
        let repeated: Vec<&str> = repeated.into_iter().map(|(_, id)| id).collect();
        if repeated.is_empty() {
            return Ok(());
        }
        let shown: Vec<String> = repeated.iter().take(10).map(|d| format!("{d:?}")).collect();
        Err(Error::corpus(format!(
            "document ids must be unique; {} ids occur more than once: {}{}",
            repeated.len(),
            shown.join(", "),
            if repeated.len() > 10 { ", ..." } else { "" }
        )))
    }

    /// Documents held.
    pub fn len(&self) -> usize {
        match &self.held {
            Held::Memory(docs) => docs.len(),
            Held::Spilled(s) => s.table.len(),
            Held::Ran(t) => t.len(),
        }
    }

    /// Whether no document is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the documents are on disk.
    pub fn is_spilled(&self) -> bool {
        matches!(self.held, Held::Spilled(_) | Held::Ran(_))
    }

    /// The documents, when they are in memory.
    pub fn in_memory_docs(&self) -> Option<&[Fingerprinted]> {
        match &self.held {
            Held::Memory(docs) => Some(docs),
            _ => None,
        }
    }

    /// Takes the documents out, when they are in memory (the corpus is
    /// then empty).
    pub fn take_memory_docs(&mut self) -> Option<Vec<Fingerprinted>> {
        match &mut self.held {
            Held::Memory(docs) => {
                self.bytes = 0;
                Some(std::mem::take(docs))
            }
            _ => None,
        }
    }

    /// Document `d`'s id.
    pub fn id(&self, d: usize) -> &str {
        match &self.held {
            Held::Memory(docs) => &docs[d].id,
            Held::Spilled(s) => s.table.id(d),
            Held::Ran(t) => t.id(d),
        }
    }

    /// Why document `d` failed, if it did.
    pub fn error(&self, d: usize) -> Option<&str> {
        match &self.held {
            Held::Memory(docs) => docs[d].error.as_deref(),
            Held::Spilled(s) => s.table.error(d),
            Held::Ran(t) => t.error(d),
        }
    }

    /// Whether document `d` has a signature (else: no text, or it failed).
    pub fn has_signature(&self, d: usize) -> bool {
        match &self.held {
            Held::Memory(docs) => docs[d].signature.is_some(),
            Held::Spilled(s) => s.table.has_signature(d),
            Held::Ran(t) => t.has_signature(d),
        }
    }

    /// The batch decision over the corpus: [`Dedup::run`] in memory,
    /// [`Dedup::run_spilled`] on disk (the same outcome). A spilled
    /// corpus's files are removed after it: what the output reads (ids,
    /// errors) stays, and it cannot be run again.
    ///
    /// # Errors
    /// As those; a spilled corpus run twice.
    pub fn run(&mut self, dedup: &Dedup) -> Result<Outcome, Error> {
        match &mut self.held {
            Held::Memory(docs) => dedup.run(docs),
            Held::Ran(_) => Err(Error::corpus(
                "a spilled corpus is run once: its files are removed after the run",
            )),
            Held::Spilled(s) => {
                let outcome = dedup.run_spilled(&s.table, &mut s.seqs, &mut s.sigs)?;
                let table = std::mem::take(&mut s.table);
                self.held = Held::Ran(table);
                Ok(outcome)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_text::words;

    fn docs(dedup: &Dedup) -> Vec<Fingerprinted> {
        let mut out = Vec::new();
        for i in 0..60usize {
            let base = words(120, i % 25);
            let text = match i % 3 {
                0 => base,
                1 => format!("{base} with a short note {i}"),
                _ => format!("{i} {}", words(80, 1000 + i)),
            };
            let url = (i % 4 == 0).then(|| format!("http://site{}.example/{i}", i % 5));
            out.push(dedup.fingerprint_doc(format!("d{i}"), url, &text, &[]));
        }
        out.push(Fingerprinted::failed(
            "bad".into(),
            None,
            "line 9: bad".into(),
        ));
        out.push(dedup.fingerprint_doc("blank".into(), None, " ", &[]));
        out
    }

    #[test]
    fn a_corpus_past_its_budget_moves_to_disk_and_decides_the_same() {
        let dir = neardup_testkit::TempDir::new("batch-corpus");
        let dedup = Dedup::new();
        let expected = dedup.run(&mut docs(&dedup)).unwrap();
        let all = docs(&dedup);
        let one = held_bytes(&all[0]);
        for budget in [0, one * 10, one * 1000] {
            let mut corpus = BatchCorpus::within(&dedup, budget, &*dir);
            for (i, d) in docs(&dedup).into_iter().enumerate() {
                corpus.push(d).unwrap();
                // Spilled once past the budget, and for good.
                let held: u64 = all[..=i].iter().map(held_bytes).sum();
                assert_eq!(corpus.is_spilled(), held > budget, "{budget} {i}");
            }
            assert_eq!(corpus.is_spilled(), budget < one * 1000, "{budget}");
            assert_eq!(corpus.in_memory_docs().is_some(), !corpus.is_spilled());
            let got = corpus.run(&dedup).unwrap();
            if corpus.is_spilled() {
                let files = std::fs::read_dir(&dir).unwrap().count();
                assert_eq!(files, 0, "the run removes the spill files");
                assert!(corpus.run(&dedup).is_err(), "a spilled corpus runs once");
            }
            assert!(expected.duplicates() > 10);
            assert_eq!(
                got.groups.assignments, expected.groups.assignments,
                "{budget}"
            );
            assert_eq!(got.groups.refusals, expected.groups.refusals);
            for (i, d) in all.iter().enumerate() {
                assert_eq!(corpus.id(i), d.id);
                assert_eq!(corpus.error(i), d.error.as_deref());
                assert_eq!(corpus.has_signature(i), d.signature.is_some());
            }
            assert_eq!(corpus.len(), all.len());
        }
        let mut spilled = BatchCorpus::spilled(&dedup, &*dir).unwrap();
        assert!(spilled.is_spilled() && spilled.is_empty());
        for d in docs(&dedup) {
            spilled.push(d).unwrap();
        }
        assert_eq!(
            spilled.run(&dedup).unwrap().groups.assignments,
            expected.groups.assignments
        );
        let mut memory = BatchCorpus::in_memory();
        for d in docs(&dedup) {
            memory.push(d).unwrap();
        }
        assert!(!memory.is_spilled());
        assert!(memory.check_unique_ids().is_ok());
        memory.push(docs(&dedup).remove(1)).unwrap();
        let e = memory.check_unique_ids().unwrap_err();
        assert!(matches!(e.kind(), crate::ErrorKind::Corpus(_)));
        assert!(e.to_string().contains("1 ids occur more than once"), "{e}");
        drop((spilled, memory));
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "spill files removed"
        );
    }

    #[test]
    fn a_sketched_document_counts_its_samples_positions() {
        let verifier = crate::Verifier::default().sketched();
        let dedup = Dedup::builder().verifier(Some(verifier)).build();
        let text = words(400, 7);
        let doc = dedup.fingerprint_doc("d".into(), None, &text, &[]);
        let seq = doc.shingles.as_ref().expect("a sketch");
        assert!(seq.len() > 10, "{}", seq.len());
        // A key and a position a sample: twice the bytes of the keys.
        assert!(seq.memory_bytes() >= seq.len() * 8);
        let without_seq = Fingerprinted {
            shingles: None,
            ..doc.clone()
        };
        assert_eq!(
            held_bytes(&doc) - held_bytes(&without_seq),
            seq.memory_bytes() as u64
        );
    }

    #[test]
    fn repeated_ids_are_named_in_the_order_they_repeat() {
        let dedup = Dedup::new();
        let ids = ["a", "b", "c", "b", "d", "a", "b", "e", "c"];
        let dir = neardup_testkit::TempDir::new("corpus-ids");
        for mut corpus in [
            BatchCorpus::in_memory(),
            BatchCorpus::spilled(&dedup, &*dir).unwrap(),
        ] {
            for id in ids {
                corpus
                    .push(dedup.fingerprint_doc(id.into(), None, "some text here", &[]))
                    .unwrap();
            }
            let e = corpus.check_unique_ids().unwrap_err().to_string();
            assert!(
                e.ends_with("3 ids occur more than once: \"b\", \"a\", \"c\""),
                "{e}"
            );
        }
        let many: Vec<String> = (0..30).map(|i| format!("id{}", i % 12)).collect();
        let mut corpus = BatchCorpus::in_memory();
        for id in &many {
            corpus
                .push(dedup.fingerprint_doc(id.clone(), None, "x y z", &[]))
                .unwrap();
        }
        let e = corpus.check_unique_ids().unwrap_err().to_string();
        assert!(e.contains("12 ids occur") && e.ends_with(", ..."), "{e}");
    }

    #[test]
    fn an_unwritable_spill_directory_is_an_error_not_a_panic() {
        let dedup = Dedup::new();
        assert!(BatchCorpus::spilled(&dedup, "/nonexistent/neardup-spill").is_err());
        let mut corpus = BatchCorpus::within(&dedup, 0, "/nonexistent/neardup-spill");
        let doc = docs(&dedup).remove(0);
        assert!(corpus.push(doc).is_err());
    }
}
