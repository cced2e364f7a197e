//! The substring unit: spans that are runs of at least `min_tokens` tokens
//! (and `min_bytes` bytes) occurring earlier in the corpus (`--keep
//! first`) or anywhere else in it (`--keep none`), found exactly with a
//! suffix array over the corpus's token stream ([`crate::suffix`]).
//!
//! A **token** is a word of [`crate::words`]: a run of letters, digits and
//! marks, or one CJK character, compared after normalization (NFKC,
//! lowercase) by its 64-bit hash; punctuation and spacing between tokens
//! do not count. A run's **bytes** are those of its normalized tokens
//! joined by single spaces. The run covers the text from its first token's
//! start to its last token's end, so spans start and end on token
//! boundaries and never cross a document.
//!
//! The run keeps one 4-byte token id per token and, per distinct token,
//! its hash and bytes in memory while reading; documents (text, reference
//! matches) wait on the spill directory until the input ends. A long
//! document's tokens are not in its analysis
//! ([`SpanFinder::analyze_for_run`]): the run tokenizes its text as it
//! takes it in, so its tokens take no memory but the ids (or, on disk, the
//! window being cut), and its spans are read back by walking its text. The suffix
//! array pass then takes [`SUBSTRING_BYTES_PER_TOKEN`] bytes per token:
//! [`SubstringRun::peak_bytes`] is checked against the memory budget on
//! every document, and past it the windows go to disk
//! ([`crate::substring_spill`]), with the same spans.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use crate::analysis::Analysis;
use crate::deferred::{write_doc_head, write_refs};
use crate::error::{Error, ErrorKind};
use crate::hashmap::IdentityBuild;
use crate::options::{Keep, SpanFinder};
use crate::span::Span;
use crate::spill::SpillDir;
use crate::substring_docs::{window_lengths, DocReader, Runs};
use crate::substring_spill::{Copies, WindowRule, WindowSpool};
use crate::suffix::{earliest_copies, Windows, NONE};
use crate::words::Words;

/// Bytes per token of the suffix array pass (stream, suffix array, two
/// LCP arrays, 4 bytes each).
pub const SUBSTRING_BYTES_PER_TOKEN: u64 = 16;

/// A document of a substring run, as read back with its spans.
pub(crate) struct SubstringDoc {
    pub index: u32,
    pub body: Result<(String, Analysis), String>,
    pub spans: Vec<Span>,
}

/// The corpus of a substring run, on its way to the suffix array.
pub(crate) struct SubstringRun {
    vocab: HashMap<u64, u32, IdentityBuild>,
    /// Normalized bytes of each distinct token (by id).
    token_bytes: Vec<u32>,
    /// Token ids, each document followed by a separator (filled in last).
    tokens: Vec<i32>,
    /// Index in `tokens` of each document's first token.
    doc_start: Vec<u32>,
    /// Hash of each distinct token (by id), to move the stream to disk.
    id_hash: Vec<u64>,
    /// The stream on disk, once past the memory budget.
    spool: Option<WindowSpool>,
    /// Documents pushed.
    docs_pushed: u32,
    /// Tokens pushed (the run's statistics count them as units compared).
    tokens_pushed: u64,
    dir: SpillDir,
    docs: BufWriter<File>,
    spilled: u64,
    /// Scratch of the tokenizer for documents whose tokens are left in
    /// their text.
    words: Words,
}

impl SubstringRun {
    /// Starts a run whose documents wait in a new directory in `parent`.
    pub fn start(parent: &Path) -> Result<SubstringRun, Error> {
        let dir = SpillDir::create(parent)?;
        let docs = dir.writer("docs")?;
        Ok(SubstringRun {
            vocab: HashMap::default(),
            token_bytes: Vec::new(),
            tokens: Vec::new(),
            doc_start: Vec::new(),
            id_hash: Vec::new(),
            spool: None,
            docs_pushed: 0,
            tokens_pushed: 0,
            dir,
            docs,
            spilled: 0,
            words: Words::default(),
        })
    }

    /// Memory the run will need at its peak with `tokens` more tokens (the
    /// suffix array pass), in bytes; each of the new tokens may be a new
    /// distinct token (36 bytes of ids), so that a document's own
    /// vocabulary is counted before it is taken in.
    pub fn peak_bytes(&self, more_tokens: usize) -> u64 {
        let n = (self.tokens.len() + more_tokens + 1) as u64;
        let distinct = |capacity: usize| (self.vocab.len() + more_tokens).max(capacity) as u64;
        n * SUBSTRING_BYTES_PER_TOKEN
            + distinct(self.vocab.capacity()) * 24
            + distinct(self.id_hash.capacity()) * 12
            + self.doc_start.len() as u64 * 4
    }

    /// Index of the first document whose windows went to disk, if the run
    /// went past its budget.
    pub fn partitioned_from(&self) -> Option<u32> {
        self.spool.as_ref().map(|s| s.from)
    }

    /// Moves the stream to disk (the run went past its budget).
    fn move_to_disk(&mut self, rule: WindowRule) -> Result<(), Error> {
        let mut spool = WindowSpool::create(&self.dir, rule, self.docs_pushed)?;
        let mut from = 0usize;
        for end in memchr_ends(&self.tokens) {
            let ids = &self.tokens[from..end];
            let (id_hash, token_bytes) = (&self.id_hash, &self.token_bytes);
            spool.push(|f| {
                for &t in ids {
                    f(id_hash[t as usize], token_bytes[t as usize]);
                }
            })?;
            from = end + 1;
        }
        self.tokens = Vec::new();
        self.doc_start = Vec::new();
        self.vocab = HashMap::default();
        self.id_hash = Vec::new();
        self.token_bytes = Vec::new();
        self.spool = Some(spool);
        Ok(())
    }

    /// Tokens of all documents pushed.
    pub fn tokens(&self) -> u64 {
        self.tokens_pushed
    }

    /// Bytes written to the spill directory.
    pub fn spilled(&self) -> u64 {
        self.spilled + self.spool.as_ref().map_or(0, WindowSpool::bytes)
    }

    /// Adds the next document; `budget`: the bytes the suffix array pass
    /// may take (past it, the stream goes to disk).
    pub fn push(
        &mut self,
        body: &Result<(String, Analysis), String>,
        budget: u64,
        rule: WindowRule,
    ) -> Result<(), Error> {
        let count = body.as_ref().map_or(0, |(_, a)| a.token_count());
        if self.spool.is_none()
            && (self.peak_bytes(count) > budget
                || self.tokens.len() + count >= i32::MAX as usize / 2)
        {
            self.move_to_disk(rule)?;
        }
        self.docs_pushed += 1;
        self.tokens_pushed += count as u64;
        let w = &mut self.docs;
        match write_doc_head(w, body)? {
            None => {
                if let Err(msg) = body {
                    self.spilled += msg.len() as u64 + 9;
                }
            }
            Some((text, a)) => {
                write_refs(w, &a.references)?;
                self.spilled += text.len() as u64 + 12 * a.references.len() as u64 + 17;
                let words = &mut self.words;
                if let Some(spool) = &mut self.spool {
                    return spool.push(|f| a.each_token(text, words, f));
                }
                self.doc_start.push(self.tokens.len() as u32);
                let (vocab, ids) = (&mut self.vocab, &mut self.tokens);
                let (token_bytes, id_hash) = (&mut self.token_bytes, &mut self.id_hash);
                // A long document's ids are the only memory its tokens take.
                ids.reserve(count + 1);
                a.each_token(text, words, |key, bytes| {
                    let next = token_bytes.len() as u32;
                    let id = *vocab.entry(key).or_insert(next);
                    if id == next {
                        token_bytes.push(bytes);
                        id_hash.push(key);
                    }
                    ids.push(id as i32);
                });
                self.tokens.push(-1);
                return Ok(());
            }
        }
        match &mut self.spool {
            Some(spool) => spool.push(|_| {}),
            None => {
                self.doc_start.push(self.tokens.len() as u32);
                self.tokens.push(-1);
                Ok(())
            }
        }
    }

    /// Builds the suffix array and gives every document back in input
    /// order with its spans.
    pub fn finish(
        mut self,
        finder: &SpanFinder,
        emit: impl FnMut(SubstringDoc) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.docs.flush()?;
        let c = &finder.config;
        if let Some(spool) = self.spool.take() {
            return self.finish_from_disk(spool, emit);
        }
        let vocab = self.token_bytes.len();
        drop(std::mem::take(&mut self.vocab));
        let alphabet = vocab as u64 + self.doc_start.len() as u64;
        if alphabet >= i32::MAX as u64 {
            return Err(Error::new(ErrorKind::TooManyDocuments));
        }
        // Each document's separator is a token of its own.
        let mut d = 0u32;
        for t in self.tokens.iter_mut() {
            if *t < 0 {
                *t = vocab as i32 + d as i32;
                d += 1;
            }
        }
        let n = self.tokens.len();
        let (min_tokens, min_bytes) = (c.min_tokens as u32, c.min_bytes);
        let token_bytes = std::mem::take(&mut self.token_bytes);
        let mut tokens = std::mem::take(&mut self.tokens);
        // The suffix array pass counts 4 bytes per token for the stream.
        tokens.shrink_to_fit();
        let (first, windows) = earliest_copies(tokens, |tokens| {
            if min_bytes == 0 {
                return Windows::Fixed(min_tokens);
            }
            let lens = |t: i32| token_bytes.get(t as usize).copied();
            Windows::PerPosition(window_lengths(tokens, lens, min_tokens, min_bytes))
        })?;
        let doc_start = std::mem::take(&mut self.doc_start);
        let doc_of = |pos: u32| (doc_start.partition_point(|&s| s <= pos) - 1) as u32;
        let keep = c.keep;
        let mut runs = Runs::default();
        let reader = self.dir.reader("docs")?;
        let mut docs = DocReader { reader, index: 0 };
        let mut emit = emit;
        for (index, &start) in doc_start.iter().enumerate() {
            let end = doc_start.get(index + 1).map_or(n as u32, |&s| s) - 1;
            runs.clear();
            for p in start..end {
                let f = first[p as usize];
                let is_copy = match keep {
                    Keep::First => f != NONE && f < p,
                    Keep::None => f != NONE,
                };
                if is_copy {
                    runs.push(p - start, windows.at(p as usize), doc_of(f));
                }
            }
            docs.next_with(&runs, &mut emit)?;
        }
        Ok(())
    }
}

impl SubstringRun {
    fn finish_from_disk(
        self,
        spool: WindowSpool,
        mut emit: impl FnMut(SubstringDoc) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let total = spool.tokens;
        let starts = spool.doc_start.clone();
        let names = spool.decide(&self.dir)?;
        let mut copies = Copies::open(&self.dir, &names)?;
        let reader = self.dir.reader("docs")?;
        let mut docs = DocReader { reader, index: 0 };
        let mut runs = Runs::default();
        for (d, &pos) in starts.iter().enumerate() {
            let end = starts.get(d + 1).copied().unwrap_or(total);
            runs.clear();
            copies.take_until(end, |p, w, f| runs.push((p - pos) as u32, w, f))?;
            docs.next_with(&runs, &mut emit)?;
        }
        Ok(())
    }
}

/// Ends of the documents of an in-memory stream (their separators).
fn memchr_ends(tokens: &[i32]) -> impl Iterator<Item = usize> + '_ {
    tokens
        .iter()
        .enumerate()
        .filter(|(_, &t)| t < 0)
        .map(|(i, _)| i)
}
