//! The documents of a substring run read back, and their spans: the
//! copied windows of a document become runs (cut where the document of
//! the earliest copy changes), and runs become spans on token boundaries
//! with code point offsets. Also the window lengths of a stream (the
//! `--min-bytes` rule), shared by the suffix array and the disk path.

use std::fs::File;
use std::io::BufReader;

use crate::analysis::Analysis;
use crate::deferred::{read_doc_head, read_refs};
use crate::error::Error;
use crate::options::SpanFinder;
use crate::span::{char_offsets, Source, Span, SpanKind};
use crate::substring::SubstringDoc;
use crate::substring_windows::Cutter;

/// The documents of a run read back in input order, each with its spans
/// from its copied windows.
pub(crate) struct DocReader {
    pub reader: BufReader<File>,
    pub index: u32,
}

impl DocReader {
    /// Reads the next document and gives it with the spans of its copied
    /// `runs` (see [`Runs`]).
    pub fn next_with(
        &mut self,
        runs: &Runs,
        emit: &mut impl FnMut(SubstringDoc) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let index = self.index;
        self.index += 1;
        let body = read_doc(&mut self.reader, index)?;
        let spans = match &body {
            Ok((text, a)) => substring_spans(text, a, &runs.runs)
                .ok_or_else(|| Error::corrupt(format!("document {index}: tokens out of range")))?,
            Err(_) => Vec::new(),
        };
        emit(SubstringDoc { index, body, spans })
    }
}

/// The spans of a document from its copied runs (see [`Runs`]), joined
/// with its reference matches. `None` when a run is past the document's
/// tokens.
fn substring_spans(text: &str, a: &Analysis, runs: &[(u32, u32, u32)]) -> Option<Vec<Span>> {
    let mut spans = Vec::new();
    if !runs.is_empty() {
        spans = run_spans(text, runs)?;
    }
    Some(crate::span::join(text, spans, &a.references))
}

impl SpanFinder {
    /// The spans of a document analysed with the substring unit, from its
    /// copied windows as the corpus decides them: `(token position, window
    /// length, document of the earliest copy)` sorted by position, where a
    /// window is copied when another window has its tokens and, with
    /// `keep` first, one of them is earlier in input order (the earliest
    /// copy is the one earliest in input order, then in position). The
    /// documents are any numbers that are equal for the same document; a
    /// span's [`Source::First`] is one of them. This is the rule `neardup
    /// spans` applies to the suffix array's copies (runs cut where the
    /// document of the earliest copy changes, on token boundaries), joined
    /// with the reference matches. Fails when a window is past the
    /// document's tokens.
    pub fn substring_spans(
        &self,
        text: &str,
        a: &Analysis,
        windows: &[(u32, u32, u32)],
    ) -> Result<Vec<Span>, Error> {
        let mut runs = Runs::default();
        for &(p, w, src) in windows {
            runs.push(p, w, src);
        }
        substring_spans(text, a, &runs.runs)
            .ok_or_else(|| Error::corrupt("a copied window is past the document's tokens"))
    }
}

/// Window lengths of a stream, written over it: for each token, the
/// fewest tokens from it (at least `min_tokens`) whose normalized bytes
/// joined by spaces are at least `min_bytes`, or 0 when its document ends
/// first ([`Cutter`]). `lens` gives a token's bytes (`None`: a separator).
pub(crate) fn window_lengths(
    mut tokens: Vec<i32>,
    lens: impl Fn(i32) -> Option<u32>,
    min_tokens: u32,
    min_bytes: u64,
) -> Vec<u32> {
    let mut cutter = Cutter::new(min_tokens, min_bytes);
    // Stream position of the document's first token.
    let mut start = 0;
    for j in 0..tokens.len() {
        match lens(tokens[j]) {
            // A window ends at or before `j`: its first token is read.
            Some(b) => cutter.push(b, |p, w| tokens[start + p as usize] = w as i32),
            None => {
                let left = cutter.end();
                tokens[j - left..=j].fill(0);
                start = j + 1;
            }
        }
    }
    let (n, left) = (tokens.len(), cutter.end());
    tokens[n - left..].fill(0);
    tokens.into_iter().map(|w| w as u32).collect()
}

/// The copied runs of a document, built from its copied windows (token
/// position, length, document of the earliest copy) given in order of
/// position: token ranges with that document, sorted, not overlapping, cut
/// where the document of the earliest copy changes. A run is kept, not a
/// window: a document copied whole from one document is one run.
#[derive(Debug, Default)]
pub(crate) struct Runs {
    runs: Vec<(u32, u32, u32)>,
}

impl Runs {
    /// Takes the next copied window.
    #[inline]
    pub fn push(&mut self, p: u32, w: u32, src: u32) {
        let to = p + w;
        match self.runs.last_mut() {
            Some(last) if to <= last.1 => {}
            Some(last) if p <= last.1 && last.2 == src => last.1 = to,
            Some(last) if p < last.1 => {
                let from = last.1;
                self.runs.push((from, to, src));
            }
            _ => self.runs.push((p, to, src)),
        }
    }

    /// Starts the next document (the room of a long one's runs is freed).
    pub fn clear(&mut self) {
        self.runs.clear();
        if self.runs.capacity() > 1 << 16 {
            self.runs = Vec::new();
        }
    }
}

/// Spans of a document's copied runs (token ranges, sorted, not
/// overlapping). The tokens are walked once and only the boundaries of the
/// runs are kept, so a long document costs no memory per token here.
/// `None` when a run is past the tokens.
fn run_spans(text: &str, runs: &[(u32, u32, u32)]) -> Option<Vec<Span>> {
    // The tokens wanted, in order: each run's first (its start) and last
    // (its end). Runs are sorted and do not overlap, so this never goes
    // back.
    let mut want = Vec::with_capacity(runs.len() * 2);
    for &(a, b, _) in runs {
        want.push(a as usize);
        want.push((b as usize).checked_sub(1)?);
    }
    let mut offs = Vec::with_capacity(want.len());
    let base = text.as_ptr() as usize;
    for (i, tok) in neardup_text::tokens(text).enumerate() {
        if offs.len() == want.len() {
            break;
        }
        while offs.len() < want.len() && want[offs.len()] == i {
            let start = tok.as_ptr() as usize - base;
            let end = offs.len() % 2 == 1;
            offs.push(if end { start + tok.len() } else { start });
        }
    }
    if offs.len() < want.len() {
        return None;
    }
    let chars = char_offsets(text, &offs);
    Some(
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
            .collect(),
    )
}

fn read_doc(
    r: &mut BufReader<File>,
    index: u32,
) -> Result<Result<(String, Analysis), String>, Error> {
    let text = match read_doc_head(r, index)? {
        Ok(text) => text,
        Err(msg) => return Ok(Err(msg)),
    };
    let mut a = Analysis {
        references: read_refs(r, &text, index)?,
        ..Default::default()
    };
    a.fill_chars(&text);
    Ok(Ok((text, a)))
}
