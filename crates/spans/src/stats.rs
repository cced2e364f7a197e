//! What a run found: counts per kind, characters in spans, the most
//! repeated passages (the boilerplate of a crawl at a glance) and the
//! reference items that leaked, with the number of documents each one is in.

use std::collections::{BTreeMap, HashMap};

use crate::analysis::Analysis;
use crate::hashmap::IdentityBuild;
use crate::options::Keep;
use crate::run::Emitted;
use crate::span::{Source, SpanKind};
use crate::units::UnitKeyer;

/// Distinct repeated passages whose counts and texts the statistics keep
/// (the most repeated are chosen among them; later new passages are not
/// tracked).
pub const TRACKED_PASSAGES: usize = 1 << 20;
/// Characters of a repeated passage's text kept for the report.
pub const SAMPLE_CHARS: usize = 300;
/// Longest spans the statistics keep.
pub const LONGEST_KEPT: usize = 100;

/// One of the longest spans: its length, document and text (cut to
/// [`SAMPLE_CHARS`]).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LongSpan {
    /// Its length in characters.
    pub chars: u64,
    /// Index of its document, in input order.
    pub index: std::cmp::Reverse<u32>,
    /// Its document's id.
    pub id: String,
    /// The span kind.
    pub kind: SpanKind,
    /// Its text.
    pub text: String,
}

/// A repeated passage: how many copies, and its text (as first met in a
/// span, cut to [`SAMPLE_CHARS`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repeated {
    /// Copies in the corpus (the kept first one included with
    /// `--keep first`).
    pub copies: u64,
    /// Its text.
    pub text: String,
    /// The span kind.
    pub kind: SpanKind,
}

/// Statistics of a run.
#[derive(Debug, Default)]
pub struct Stats {
    /// Documents pushed.
    pub documents: u64,
    /// Documents that could not be read.
    pub errors: u64,
    /// Documents with at least one span.
    pub documents_with_spans: u64,
    /// Units that were compared (long enough to have a key); tokens for
    /// the substring unit.
    pub units: u64,
    /// Characters (code points) of all documents.
    pub chars: u64,
    /// Spans by kind.
    pub spans: BTreeMap<SpanKind, u64>,
    /// Characters in spans by kind.
    pub span_chars: BTreeMap<SpanKind, u64>,
    /// Distinct keys of the streaming index.
    pub keys: u64,
    /// The document from which the run took the partitioned path because
    /// the streaming index outgrew the budget.
    pub partitioned_from: Option<u32>,
    /// Bytes written to the spill directory.
    pub spilled_bytes: u64,
    /// Documents each reference item leaked into, by item index.
    pub leaked: BTreeMap<u32, u64>,
    repeated: HashMap<u64, Repeated, IdentityBuild>,
    longest: std::collections::BinaryHeap<std::cmp::Reverse<LongSpan>>,
    keyer: UnitKeyer,
    scratch: Vec<u32>,
}

impl Stats {
    pub(crate) fn observe(&mut self, e: &Emitted<'_>, analysis: Option<&Analysis>) {
        self.documents += 1;
        if e.error.is_some() {
            self.errors += 1;
            return;
        }
        self.chars += e.chars as u64;
        self.units += analysis.map_or(0, |a| a.units.len() as u64);
        if !e.spans.is_empty() {
            self.documents_with_spans += 1;
        }
        self.scratch.clear();
        for s in e.spans {
            let piece = &e.text[s.start..s.end];
            let chars = (s.chars.1 - s.chars.0) as u64;
            *self.spans.entry(s.kind).or_default() += 1;
            *self.span_chars.entry(s.kind).or_default() += chars;
            let shortest = self.longest.peek().map_or(0, |r| r.0.chars);
            if self.longest.len() < LONGEST_KEPT || chars > shortest {
                self.longest.push(std::cmp::Reverse(LongSpan {
                    chars,
                    index: std::cmp::Reverse(e.index),
                    id: e.id.to_string(),
                    kind: s.kind,
                    text: piece.chars().take(SAMPLE_CHARS).collect(),
                }));
                if self.longest.len() > LONGEST_KEPT {
                    self.longest.pop();
                }
            }
            match s.source {
                Source::Reference(r) => self.scratch.push(r),
                Source::First(_) => {
                    let key = match s.key {
                        0 => match self.keyer.key(piece, 0) {
                            Some(k) => k,
                            None => continue,
                        },
                        k => k,
                    };
                    let full = self.repeated.len() >= TRACKED_PASSAGES;
                    match self.repeated.get_mut(&key) {
                        Some(r) => r.copies += 1,
                        None if !full => {
                            let text: String = piece.chars().take(SAMPLE_CHARS).collect();
                            self.repeated.insert(
                                key,
                                Repeated {
                                    copies: 1,
                                    text,
                                    kind: s.kind,
                                },
                            );
                        }
                        None => {}
                    }
                }
            }
        }
        self.scratch.sort_unstable();
        self.scratch.dedup();
        for &r in &self.scratch {
            *self.leaked.entry(r).or_default() += 1;
        }
    }

    pub(crate) fn finish(&mut self, keep: Keep) {
        if keep == Keep::First {
            for r in self.repeated.values_mut() {
                r.copies += 1;
            }
        }
    }

    /// The `n` most repeated passages, most copies first (then by text).
    pub fn most_repeated(&self, n: usize) -> Vec<&Repeated> {
        let mut v: Vec<&Repeated> = self.repeated.values().collect();
        v.sort_by(|a, b| b.copies.cmp(&a.copies).then_with(|| a.text.cmp(&b.text)));
        v.truncate(n);
        v
    }

    /// The `n` longest spans (at most [`LONGEST_KEPT`]), longest first
    /// (then in input order).
    pub fn longest(&self, n: usize) -> Vec<&LongSpan> {
        let mut v: Vec<&LongSpan> = self.longest.iter().map(|r| &r.0).collect();
        v.sort_by(|a, b| b.cmp(a));
        v.truncate(n);
        v
    }

    /// Characters in spans, all kinds.
    pub fn span_chars_total(&self) -> u64 {
        self.span_chars.values().sum()
    }
}
