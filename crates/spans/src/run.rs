//! A run: documents in input order in, each document's spans out.
//!
//! With `--keep first` the run streams: a document's spans are given as
//! soon as it is pushed, from the streaming index ([`crate::first_seen`]).
//! When that index would outgrow the memory budget, it is carried over to
//! the partitioned path ([`crate::deferred`]) and the documents from then
//! on are given when the run finishes. `--keep none` needs the whole
//! corpus before any answer and takes the partitioned path from the start.
//! Both paths decide by the same rule ([`crate::decide`]), so the spans
//! do not depend on the path, the budget or the thread count.

use std::path::PathBuf;

use crate::analysis::Analysis;
use crate::decide::{unit_spans, KeyMatch};
use crate::deferred::{Deferred, DeferredDoc};
use crate::error::{Error, ErrorKind};
use crate::first_seen::FirstSeen;
use crate::ids::IdTable;
use crate::options::{Keep, SpanFinder};
use crate::seen_filter::SeenFilter;
use crate::span::{join, Source, Span, SpanKind};
use crate::stats::Stats;
use crate::substring::{SubstringDoc, SubstringRun};
use crate::substring_spill::WindowRule;
use crate::units::Unit;

/// One document's result, handed to the run's sink.
#[derive(Debug)]
pub struct Emitted<'a> {
    /// Index of the document in input order.
    pub index: u32,
    /// Its id.
    pub id: &'a str,
    /// Its text (empty for a document that failed). Without
    /// [`whole_text`](crate::SpanFinderBuilder::whole_text), a document of
    /// a partitioned `--keep first` run has the text of its spans only, and
    /// spaces (as many bytes) in place of the rest.
    pub text: &'a str,
    /// Code points of its text.
    pub chars: usize,
    /// Its spans, sorted, not overlapping, byte offsets into `text`.
    pub spans: &'a [Span],
    /// Why the document could not be read, when it could not.
    pub error: Option<&'a str>,
    ids: &'a IdTable,
    finder: &'a SpanFinder,
}

impl Emitted<'_> {
    /// The id a span names: the document of the first occurrence, or the
    /// reference item.
    pub fn source_id(&self, span: &Span) -> &str {
        match span.source {
            Source::First(d) => self.ids.get(d),
            Source::Reference(r) => self.finder.reference().map_or("", |x| x.id(r)),
        }
    }
}

/// The sink a run gives documents to.
pub type Sink<'s> = dyn FnMut(&Emitted<'_>) -> std::io::Result<()> + 's;

enum Path {
    Streaming(FirstSeen),
    Partitioned(Deferred),
    Substring(Box<SubstringRun>),
}

/// A run of a [`SpanFinder`] over a corpus; see the module documentation.
pub struct SpanRun {
    finder: SpanFinder,
    ids: IdTable,
    path: Path,
    stats: Stats,
    matches: Vec<KeyMatch>,
}

impl SpanFinder {
    /// Starts a run. `--keep none` creates its partition files at once
    /// (an error when the spill directory cannot be written).
    pub fn run(&self) -> Result<SpanRun, Error> {
        let path = match self.config.keep {
            _ if self.config.unit == Unit::Substring && self.config.units_on => {
                Path::Substring(Box::new(SubstringRun::start(&self.spill_parent())?))
            }
            Keep::First => Path::Streaming(FirstSeen::default()),
            Keep::None => Path::Partitioned(Deferred::start(
                &self.spill_parent(),
                0,
                [].into_iter(),
                None,
            )?),
        };
        Ok(SpanRun {
            finder: self.clone(),
            ids: IdTable::default(),
            path,
            stats: Stats::default(),
            matches: Vec::new(),
        })
    }

    fn spill_parent(&self) -> PathBuf {
        self.config
            .spill_dir
            .clone()
            .unwrap_or_else(std::env::temp_dir)
    }

    /// The filter of a partitioned `--keep first` run whose sink does not
    /// need whole texts (and without a reference set, whose matches read
    /// the text around units): a quarter of the memory budget.
    fn kept_text_filter(&self) -> Option<SeenFilter> {
        let c = &self.config;
        (c.keep == Keep::First && !c.whole_text && c.reference.is_none())
            .then(|| SeenFilter::with_bytes(c.memory / 4))
    }

    fn unit_kind(&self) -> SpanKind {
        SpanKind::of_unit(self.config.unit)
    }

    /// The spans of a document analysed as `a`, given for each of its keys
    /// the document of the key's first occurrence when the key counts as
    /// seen (see [`crate::decide`]): the rule every path of a run applies,
    /// for drivers that find the first occurrences themselves (a shuffle by
    /// key in Spark). `Source::First` of the result holds the values of
    /// `matches`.
    pub fn spans_of(&self, text: &str, a: &Analysis, matches: &[Option<u32>]) -> Vec<Span> {
        let units = unit_spans(a, matches, self.unit_kind(), self.config.overlap);
        join(text, units, &a.references)
    }
}

impl SpanRun {
    /// Adds the next document in input order: its text and analysis, or
    /// the error that kept it from being read. `sink` gets every document
    /// whose spans are known (with `--keep first`, this one).
    pub fn push(
        &mut self,
        id: &str,
        body: Result<(String, Analysis), String>,
        sink: &mut Sink<'_>,
    ) -> Result<(), Error> {
        if self.ids.len() >= u32::MAX as usize {
            return Err(Error::new(ErrorKind::TooManyDocuments));
        }
        let body = match body {
            Ok((text, _)) if text.len() > u32::MAX as usize => Err(format!(
                "text of {} bytes: longer than the span stage's limit of 4 GiB",
                text.len()
            )),
            b => b,
        };
        let index = self.ids.push(id) as u32;
        if let Path::Streaming(fs) = &mut self.path {
            let keys = body.as_ref().map_or(0, |(_, a)| a.keys.len());
            if fs.memory_after(keys) + self.ids.memory_bytes() > self.finder.config.memory {
                // Written out straight from the table: a copy of it would
                // take most of the budget again.
                let d = Deferred::start(
                    &self.finder.spill_parent(),
                    index,
                    fs.drain(),
                    self.finder.kept_text_filter(),
                )?;
                self.stats.partitioned_from = Some(index);
                self.path = Path::Partitioned(d);
            }
        }
        match &mut self.path {
            Path::Streaming(fs) => {
                let (text, spans, error) = match &body {
                    Ok((text, a)) => {
                        fs.observe(index, a, &mut self.matches);
                        let spans = self.finder.spans_of(text, a, &self.matches);
                        (text.as_str(), spans, None)
                    }
                    Err(e) => ("", Vec::new(), Some(e.as_str())),
                };
                self.stats.keys = fs.len() as u64;
                emit(
                    &self.finder,
                    &self.ids,
                    &mut self.stats,
                    index,
                    text,
                    &spans,
                    error,
                    body.as_ref().ok().map(|(_, a)| a),
                    sink,
                )
            }
            Path::Partitioned(d) => d.push(&body),
            Path::Substring(s) => {
                let c = &self.finder.config;
                let budget = c.memory.saturating_sub(self.ids.memory_bytes());
                let rule = WindowRule {
                    min_tokens: c.min_tokens as u32,
                    min_bytes: c.min_bytes,
                    keep: c.keep,
                };
                s.push(&body, budget, rule)?;
                self.stats.partitioned_from = s.partitioned_from();
                Ok(())
            }
        }
    }

    /// Ends the run: gives the documents still waiting (partitioned path)
    /// and returns the run's statistics.
    pub fn finish(self, sink: &mut Sink<'_>) -> Result<Stats, Error> {
        let SpanRun {
            finder,
            ids,
            path,
            mut stats,
            ..
        } = self;
        if let Path::Substring(s) = path {
            stats.spilled_bytes = s.spilled();
            stats.partitioned_from = s.partitioned_from();
            stats.units = s.tokens();
            let finder = &finder;
            s.finish(finder, |doc: SubstringDoc| {
                let (text, error, a) = match &doc.body {
                    Ok((text, a)) => (text.as_str(), None, Some(a)),
                    Err(e) => ("", Some(e.as_str()), None),
                };
                emit(
                    finder, &ids, &mut stats, doc.index, text, &doc.spans, error, a, sink,
                )
            })?;
        } else if let Path::Partitioned(d) = path {
            stats.spilled_bytes = d.bytes();
            let finder = &finder;
            d.finish(finder.config.keep, |doc: DeferredDoc| {
                let (text, spans, error, a) = match &doc.body {
                    Ok((text, a)) => {
                        let units =
                            unit_spans(a, &doc.matches, finder.unit_kind(), finder.config.overlap);
                        (
                            text.as_str(),
                            join(text, units, &a.references),
                            None,
                            Some(a),
                        )
                    }
                    Err(e) => ("", Vec::new(), Some(e.as_str()), None),
                };
                emit(
                    finder, &ids, &mut stats, doc.index, text, &spans, error, a, sink,
                )
            })?;
        }
        stats.finish(finder.config.keep);
        Ok(stats)
    }

    /// The statistics so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The ids of the documents pushed so far.
    pub fn ids(&self) -> &IdTable {
        &self.ids
    }
}

#[allow(clippy::too_many_arguments)]
fn emit(
    finder: &SpanFinder,
    ids: &IdTable,
    stats: &mut Stats,
    index: u32,
    text: &str,
    spans: &[Span],
    error: Option<&str>,
    analysis: Option<&Analysis>,
    sink: &mut Sink<'_>,
) -> Result<(), Error> {
    let e = Emitted {
        index,
        id: ids.get(index),
        text,
        chars: analysis.map_or(0, |a| a.chars),
        spans,
        error,
        ids,
        finder,
    };
    stats.observe(&e, analysis);
    sink(&e).map_err(Error::io)
}
