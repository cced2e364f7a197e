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
//! The run keeps one 4-byte token id per token and one id per distinct
//! token in memory while reading; documents (text, token ranges,
//! reference matches) wait on the spill directory until the input ends.
//! The suffix array pass then takes 20 bytes per token (24 with `--keep
//! none`): [`SubstringRun::peak_bytes`] is checked against the memory
//! budget on every document, before the work.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use crate::analysis::{Analysis, RefMatch};
use crate::deferred::{read_bytes, read_u32s, write_bytes, write_u32s};
use crate::error::{Error, ErrorKind};
use crate::hashmap::IdentityBuild;
use crate::options::{Keep, SpanFinder};
use crate::span::{char_offsets, Source, Span, SpanKind};
use crate::spill::SpillDir;
use crate::suffix::repeats;

/// Bytes per token of the suffix array pass, `--keep first`.
pub const SUBSTRING_BYTES_PER_TOKEN: u64 = 20;

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
    dir: SpillDir,
    docs: BufWriter<File>,
    spilled: u64,
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
            dir,
            docs,
            spilled: 0,
        })
    }

    /// Memory the run will need at its peak with `tokens` more tokens (the
    /// suffix array pass), in bytes.
    pub fn peak_bytes(&self, more_tokens: usize, keep: Keep) -> u64 {
        let per = SUBSTRING_BYTES_PER_TOKEN + if keep == Keep::None { 4 } else { 0 };
        let n = (self.tokens.len() + more_tokens + 1) as u64;
        n * per + self.vocab.capacity() as u64 * 24 + self.doc_start.len() as u64 * 4
    }

    /// Bytes written to the spill directory.
    pub fn spilled(&self) -> u64 {
        self.spilled
    }

    /// Adds the next document.
    pub fn push(&mut self, body: &Result<(String, Analysis), String>) -> Result<(), Error> {
        if self.tokens.len() >= i32::MAX as usize - 1 {
            return Err(Error::new(ErrorKind::TooManyDocuments));
        }
        self.doc_start.push(self.tokens.len() as u32);
        let w = &mut self.docs;
        match body {
            Err(msg) => {
                w.write_all(&[1])?;
                write_bytes(w, msg.as_bytes())?;
                self.spilled += msg.len() as u64 + 9;
            }
            Ok((text, a)) => {
                w.write_all(&[0])?;
                write_bytes(w, text.as_bytes())?;
                write_u32s(w, a.tokens.iter().flat_map(|t| [t.start, t.end]))?;
                write_u32s(
                    w,
                    a.references.iter().flat_map(|m| {
                        [
                            m.range.0 as u32,
                            m.range.1 as u32,
                            m.chars.0 as u32,
                            m.chars.1 as u32,
                            m.reference,
                        ]
                    }),
                )?;
                self.spilled += text.len() as u64
                    + 8 * a.tokens.len() as u64
                    + 20 * a.references.len() as u64
                    + 25;
                for t in &a.tokens {
                    let next = self.token_bytes.len() as u32;
                    let id = *self.vocab.entry(t.key).or_insert(next);
                    if id == next {
                        self.token_bytes.push(t.bytes);
                    }
                    self.tokens.push(id as i32);
                }
            }
        }
        self.tokens.push(-1);
        Ok(())
    }

    /// Builds the suffix array and gives every document back in input
    /// order with its spans.
    pub fn finish(
        mut self,
        finder: &SpanFinder,
        mut emit: impl FnMut(SubstringDoc) -> Result<(), Error>,
    ) -> Result<(), Error> {
        self.docs.flush()?;
        let c = &finder.config;
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
        let min_tokens = c.min_tokens as u32;
        let r = repeats(&mut self.tokens, min_tokens, c.keep == Keep::None)?;
        let mut reader = self.dir.reader("docs")?;
        let mut runs: Vec<(u32, u32, u32)> = Vec::new();
        let mut prefix: Vec<u64> = Vec::new();
        for (index, &start) in self.doc_start.iter().enumerate() {
            let index = index as u32;
            let end = self
                .doc_start
                .get(index as usize + 1)
                .map_or(self.tokens.len() as u32, |&s| s)
                - 1;
            let body = read_doc(&mut reader, index)?;
            let mut spans = Vec::new();
            if let Ok((text, a)) = &body {
                let lens = self.tokens[start as usize..end as usize]
                    .iter()
                    .map(|&t| self.token_bytes[t as usize]);
                prefix.clear();
                prefix.push(0);
                let mut acc = 0u64;
                for l in lens {
                    acc += u64::from(l) + 1;
                    prefix.push(acc);
                }
                let limits = Limits {
                    min_tokens,
                    min_bytes: c.min_bytes,
                    keep: c.keep,
                };
                covered_runs(&r, start, end, &prefix, limits, &self.doc_start, &mut runs);
                spans = run_spans(text, &a.tokens, start, &runs);
                spans = crate::span::join(text, spans, &a.references);
            }
            emit(SubstringDoc { index, body, spans })?;
        }
        Ok(())
    }
}

/// What makes a run count.
#[derive(Debug, Clone, Copy)]
struct Limits {
    min_tokens: u32,
    min_bytes: u64,
    keep: Keep,
}

/// The covered runs of the document whose tokens are `start..end`: token
/// ranges (absolute) with the document of the run's earliest occurrence,
/// sorted, not overlapping. A run is cut where the document it was first
/// seen in changes.
fn covered_runs(
    r: &crate::suffix::Repeats,
    start: u32,
    end: u32,
    prefix: &[u64],
    lim: Limits,
    doc_start: &[u32],
    out: &mut Vec<(u32, u32, u32)>,
) {
    out.clear();
    let doc_of = |pos: u32| (doc_start.partition_point(|&s| s <= pos) - 1) as u32;
    let bytes = |p: u32, len: u32| {
        let a = (p - start) as usize;
        prefix[a + len as usize] - prefix[a] - 1
    };
    for p in start..end {
        let i = p as usize;
        let (len, first) = match lim.keep {
            Keep::First => (r.lpf[i], r.earliest[i]),
            Keep::None => {
                let len = r.longest.as_ref().map_or(0, |l| l[i]);
                let first = if r.lpf[i] >= len { r.earliest[i] } else { p };
                (len, first)
            }
        };
        if len < lim.min_tokens || len == 0 {
            continue;
        }
        let to = p + len;
        if out.last().is_some_and(|last| to <= last.1) || bytes(p, len) < lim.min_bytes {
            continue;
        }
        let src = doc_of(first);
        match out.last_mut() {
            Some(last) if p <= last.1 && last.2 == src => last.1 = last.1.max(to),
            Some(last) if p < last.1 => {
                if to > last.1 {
                    let from = last.1;
                    out.push((from, to, src));
                }
            }
            _ => out.push((p, to, src)),
        }
    }
}

/// Spans of a document's covered runs (absolute token ranges; the
/// document's first token is `start`).
fn run_spans(
    text: &str,
    tokens: &[crate::analysis::Token],
    start: u32,
    runs: &[(u32, u32, u32)],
) -> Vec<Span> {
    let mut offs = Vec::with_capacity(runs.len() * 2);
    for &(a, b, _) in runs {
        offs.push(tokens[(a - start) as usize].start as usize);
        offs.push(tokens[(b - 1 - start) as usize].end as usize);
    }
    let chars = char_offsets(text, &offs);
    runs.iter()
        .enumerate()
        .map(|(k, &(_, _, src))| Span {
            start: offs[2 * k],
            end: offs[2 * k + 1],
            chars: (chars[2 * k], chars[2 * k + 1]),
            kind: SpanKind::Substring,
            source: Source::First(src),
            key: 0,
        })
        .collect()
}

fn read_doc(
    r: &mut BufReader<File>,
    index: u32,
) -> Result<Result<(String, Analysis), String>, Error> {
    let mut tag = [0u8; 1];
    r.read_exact(&mut tag)?;
    let bad = |what: &str| Error::corrupt(format!("document {index}: {what}"));
    let text = String::from_utf8(read_bytes(r)?).map_err(|_| bad("text is not UTF-8"))?;
    if tag[0] == 1 {
        return Ok(Err(text));
    }
    let ranges = read_u32s(r)?;
    let refs = read_u32s(r)?;
    let mut a = Analysis {
        tokens: ranges
            .chunks_exact(2)
            .map(|c| crate::analysis::Token {
                start: c[0],
                end: c[1],
                key: 0,
                bytes: 0,
            })
            .collect(),
        references: refs
            .chunks_exact(5)
            .map(|c| RefMatch {
                range: (c[0] as usize, c[1] as usize),
                chars: (c[2] as usize, c[3] as usize),
                reference: c[4],
            })
            .collect(),
        ..Default::default()
    };
    let ok = |s: usize, e: usize| s <= e && text.get(s..e).is_some();
    if !a
        .tokens
        .iter()
        .all(|t| ok(t.start as usize, t.end as usize))
        || !a.references.iter().all(|m| ok(m.range.0, m.range.1))
    {
        return Err(bad("a range is outside the text"));
    }
    a.chars = char_offsets(&text, &[text.len()])[0];
    Ok(Ok((text, a)))
}
