//! The span finder's options: a builder over a private configuration.

use std::path::PathBuf;
use std::sync::Arc;

use crate::error::Error;
use crate::reference::ReferenceIndex;
use crate::units::Unit;

/// Default of [`SpanFinderBuilder::min_chars`]: units shorter than this
/// (normalized, in characters) are never spans. Twenty characters is a
/// short boilerplate line ("All rights reserved.", "Share this article")
/// and a long Chinese sentence; shorter lines repeat by chance ("Thank you
/// very much").
pub const DEFAULT_MIN_CHARS: usize = 20;
/// Default of [`SpanFinderBuilder::overlap`] (dolma's n-gram mode).
pub const DEFAULT_OVERLAP: f64 = 0.8;
/// Default n-gram length of fuzzy paragraphs and of decontamination, in
/// words (CJK characters): the 13-grams of GPT-3's and NeMo Curator's
/// decontamination.
pub const DEFAULT_NGRAM: usize = 13;
/// Default of [`SpanFinderBuilder::min_tokens`]: the 50 tokens of Lee et
/// al.'s exact substring deduplication.
pub const DEFAULT_MIN_TOKENS: usize = 50;
/// Default memory budget of a run's index: 4 GiB.
pub const DEFAULT_MEMORY: u64 = 4 << 30;
/// Default of [`SpanFinderBuilder::long_document_bytes`]: 1 MiB of text.
pub const DEFAULT_LONG_DOCUMENT_BYTES: usize = 1 << 20;

/// Which copy of a repeated passage survives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Keep {
    /// The first occurrence in input order survives; every later one is a
    /// span (the default).
    #[default]
    First,
    /// Every copy is a span, the first too (Lee et al.'s behaviour).
    None,
}

impl Keep {
    /// The policy's name (`first`, `none`).
    pub fn name(self) -> &'static str {
        match self {
            Keep::First => "first",
            Keep::None => "none",
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub unit: Unit,
    pub min_chars: usize,
    pub keep: Keep,
    pub fuzzy: bool,
    pub overlap: f64,
    pub ngram: usize,
    pub memory: u64,
    pub spill_dir: Option<PathBuf>,
    pub reference: Option<Arc<ReferenceIndex>>,
    pub units_on: bool,
    /// Whether the sink gets each document's whole text.
    pub whole_text: bool,
    /// Substring unit: shortest run in tokens and in bytes.
    pub min_tokens: usize,
    pub min_bytes: u64,
    /// Substring unit: texts of at least this many bytes are tokenized by
    /// the run, not by [`SpanFinder::analyze_for_run`].
    pub long_document_bytes: usize,
    /// Builder state: `min_tokens` as set.
    min_tokens_set: Option<usize>,
    /// Builder state: whether a unit was named, and `units` as set.
    unit_given: bool,
    units_set: Option<bool>,
}

/// Finds repeated passages; built by [`SpanFinder::builder`].
///
/// [`SpanFinder::analyze`] looks at one document (pure, run it on any
/// thread); [`SpanFinder::run`] starts a run that takes the analyses in
/// input order and gives each document's spans.
#[derive(Debug, Clone)]
pub struct SpanFinder {
    pub(crate) config: Config,
}

/// Builder of a [`SpanFinder`].
#[derive(Debug, Clone)]
pub struct SpanFinderBuilder {
    config: Config,
}

impl Default for SpanFinderBuilder {
    fn default() -> Self {
        SpanFinderBuilder {
            config: Config {
                unit: Unit::Paragraph,
                min_chars: DEFAULT_MIN_CHARS,
                keep: Keep::First,
                fuzzy: false,
                overlap: DEFAULT_OVERLAP,
                ngram: DEFAULT_NGRAM,
                memory: DEFAULT_MEMORY,
                spill_dir: None,
                reference: None,
                units_on: true,
                whole_text: true,
                min_tokens: DEFAULT_MIN_TOKENS,
                min_bytes: 0,
                long_document_bytes: DEFAULT_LONG_DOCUMENT_BYTES,
                min_tokens_set: None,
                unit_given: false,
                units_set: None,
            },
        }
    }
}

impl SpanFinder {
    /// A finder with the defaults: exact paragraphs, keep the first copy.
    pub fn new() -> SpanFinder {
        SpanFinder {
            config: SpanFinderBuilder::default().config,
        }
    }

    /// A builder starting from the defaults.
    pub fn builder() -> SpanFinderBuilder {
        SpanFinderBuilder::default()
    }

    /// The unit compared.
    pub fn unit(&self) -> Unit {
        self.config.unit
    }

    /// The keep policy.
    pub fn keep(&self) -> Keep {
        self.config.keep
    }

    /// Whether paragraphs are compared by their n-grams.
    pub fn fuzzy(&self) -> bool {
        self.config.fuzzy
    }

    /// Whether documents are decided by their units' keys alone (every
    /// unit but the substring unit, which needs the whole corpus in one
    /// suffix array): what a driver that shuffles by key needs.
    pub fn decides_by_keys(&self) -> bool {
        !(self.config.units_on && self.config.unit == Unit::Substring)
    }

    /// Whether a run gives each document's spans as it is pushed (while
    /// its index fits the memory budget): `--keep first`, decided by keys.
    pub fn answers_each_document(&self) -> bool {
        self.config.keep == Keep::First && self.decides_by_keys()
    }

    /// The reference set, if any.
    pub fn reference(&self) -> Option<&ReferenceIndex> {
        self.config.reference.as_deref()
    }
}

impl Default for SpanFinder {
    fn default() -> Self {
        SpanFinder::new()
    }
}

impl SpanFinderBuilder {
    /// The unit compared (default: paragraphs). Naming one with a
    /// reference set looks for both repeated units and reference spans.
    pub fn unit(mut self, unit: Unit) -> Self {
        self.config.unit = unit;
        self.config.unit_given = true;
        self
    }

    /// Units shorter than this, normalized, in characters, are never spans
    /// (default [`DEFAULT_MIN_CHARS`]).
    pub fn min_chars(mut self, n: usize) -> Self {
        self.config.min_chars = n;
        self
    }

    /// Which copy survives (default: the first).
    pub fn keep(mut self, keep: Keep) -> Self {
        self.config.keep = keep;
        self
    }

    /// Paragraphs are repeats when `overlap` of their word n-grams appeared
    /// before (dolma's n-gram mode); paragraphs only.
    pub fn fuzzy(mut self, on: bool) -> Self {
        self.config.fuzzy = on;
        self
    }

    /// Share of a paragraph's n-grams seen before that makes it a repeat
    /// (fuzzy mode; default [`DEFAULT_OVERLAP`]).
    pub fn overlap(mut self, overlap: f64) -> Self {
        self.config.overlap = overlap;
        self
    }

    /// N-gram length in words of fuzzy mode (default [`DEFAULT_NGRAM`]).
    pub fn ngram(mut self, n: usize) -> Self {
        self.config.ngram = n;
        self
    }

    /// Memory budget of the run's index in bytes (default
    /// [`DEFAULT_MEMORY`]); past it the run partitions its keys by hash
    /// onto the spill directory.
    pub fn memory(mut self, bytes: u64) -> Self {
        self.config.memory = bytes;
        self
    }

    /// Where a run that outgrows its budget (or keeps no copy) writes its
    /// partitions; default: the system's temporary directory.
    pub fn spill_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config.spill_dir = Some(dir.into());
        self
    }

    /// Whether the sink gets each document's whole text (the default), or
    /// only the text of its spans, with spaces in place of the rest (its
    /// length, offsets and characters unchanged), which is all the spans'
    /// offsets, a report of repeated passages and the run's statistics
    /// read. Off, a `--keep first` run that outgrows its budget keeps on
    /// disk the text of the units that may repeat only, about a fifth of
    /// the disk on real text; a run that keeps no
    /// copy, or with a reference set, keeps whole texts either way.
    pub fn whole_text(mut self, on: bool) -> Self {
        self.config.whole_text = on;
        self
    }

    /// Decontamination against a reference set: spans sharing its n-grams.
    pub fn reference(mut self, index: ReferenceIndex) -> Self {
        self.config.reference = Some(Arc::new(index));
        self
    }

    /// Substring unit: the shortest run that counts, in tokens (default
    /// [`DEFAULT_MIN_TOKENS`], or 1 when [`min_bytes`](Self::min_bytes) is
    /// set and this is not).
    pub fn min_tokens(mut self, n: usize) -> Self {
        self.config.min_tokens_set = Some(n);
        self
    }

    /// Substring unit: the shortest run that counts, in bytes of its
    /// normalized tokens joined by spaces (Lee et al.'s 100 bytes are
    /// about their 50 tokens). Default: no byte minimum.
    pub fn min_bytes(mut self, n: u64) -> Self {
        self.config.min_bytes = n;
        self
    }

    /// Substring unit: a text of at least this many bytes is a long
    /// document (default [`DEFAULT_LONG_DOCUMENT_BYTES`]). Its analysis by
    /// [`SpanFinder::analyze_for_run`] keeps no tokens (16 bytes a token
    /// outside the memory budget); the run tokenizes its text as it takes
    /// it in, straight into the token stream that the budget counts, and
    /// the spans are the same. Shorter documents are tokenized by the
    /// analysis, on any thread.
    pub fn long_document_bytes(mut self, n: usize) -> Self {
        self.config.long_document_bytes = n;
        self
    }

    /// Whether repeated units are looked for at all. The default: yes,
    /// unless a reference set is given with neither a [`unit`](Self::unit)
    /// named nor fuzzy matching (decontamination alone).
    pub fn units(mut self, on: bool) -> Self {
        self.config.units_set = Some(on);
        self
    }

    /// The finder, or an error naming the option out of range.
    pub fn build(mut self) -> Result<SpanFinder, Error> {
        let c = &mut self.config;
        c.units_on = c
            .units_set
            .unwrap_or(c.unit_given || c.fuzzy || c.reference.is_none());
        c.min_tokens = match (c.min_tokens_set, c.min_bytes) {
            (Some(n), _) => n,
            (None, 0) => DEFAULT_MIN_TOKENS,
            (None, _) => 1,
        };
        let c = &self.config;
        if c.min_tokens == 0 || c.min_tokens > 1 << 20 {
            return Err(Error::option(format!(
                "the minimum run must be 1 to 1048576 tokens, not {}",
                c.min_tokens
            )));
        }
        if (c.min_tokens_set.is_some() || c.min_bytes > 0) && c.unit != Unit::Substring {
            return Err(Error::option(format!(
                "--min-tokens and --min-bytes apply to --unit substring, not --unit {}",
                c.unit.name()
            )));
        }
        // An option that does not apply is refused rather than ignored,
        // when set to anything but its default (the default is what every
        // frontend passes when the user says nothing).
        if c.unit == Unit::Substring && c.min_chars != DEFAULT_MIN_CHARS {
            return Err(Error::option(format!(
                "--min-chars applies to paragraphs, lines and sentences; the shortest run of --unit substring is --min-tokens or --min-bytes (min_chars {})",
                c.min_chars
            )));
        }
        if !c.fuzzy && (c.overlap != DEFAULT_OVERLAP || c.ngram != DEFAULT_NGRAM) {
            return Err(Error::option(format!(
                "--overlap and --ngram apply to --fuzzy paragraphs only (overlap {}, ngram {}); the n-gram of --reference is --ref-ngram",
                c.overlap, c.ngram
            )));
        }
        if c.fuzzy && c.unit != Unit::Paragraph {
            return Err(Error::option(format!(
                "fuzzy matching compares paragraphs; it does not apply to --unit {}",
                c.unit.name()
            )));
        }
        if !(c.overlap > 0.0 && c.overlap <= 1.0) {
            return Err(Error::option(format!(
                "the overlap must be in (0, 1], not {}",
                c.overlap
            )));
        }
        if c.ngram == 0 || c.ngram > 1000 {
            return Err(Error::option(format!(
                "the n-gram length must be 1 to 1000 words, not {}",
                c.ngram
            )));
        }
        if c.memory < (64 << 10) {
            return Err(Error::option(format!(
                "the memory budget must be at least 64 KiB, not {} bytes",
                c.memory
            )));
        }
        if !c.units_on && c.reference.is_none() {
            return Err(Error::option(
                "nothing to look for: no units and no reference set",
            ));
        }
        Ok(SpanFinder {
            config: self.config,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn refused(b: SpanFinderBuilder) -> String {
        match b.build() {
            Err(e) => match e.kind() {
                ErrorKind::Option(m) => m.clone(),
                k => panic!("not an option error: {k:?}"),
            },
            Ok(_) => panic!("built"),
        }
    }

    #[test]
    fn options_that_do_not_apply_are_refused() {
        let b = SpanFinder::builder;
        assert!(refused(b().unit(Unit::Substring).min_chars(5)).contains("--min-chars"));
        assert!(refused(b().overlap(0.5)).contains("--fuzzy"));
        assert!(refused(b().unit(Unit::Line).ngram(5)).contains("--fuzzy"));
        assert!(refused(b().unit(Unit::Line).min_tokens(5)).contains("--min-tokens"));
        assert!(refused(b().unit(Unit::Substring).fuzzy(true)).contains("fuzzy"));
        // Defaults, and options where they apply, build.
        assert!(b()
            .unit(Unit::Substring)
            .min_chars(DEFAULT_MIN_CHARS)
            .build()
            .is_ok());
        assert!(b()
            .fuzzy(true)
            .overlap(0.5)
            .ngram(5)
            .min_chars(5)
            .build()
            .is_ok());
        assert!(b()
            .unit(Unit::Substring)
            .min_tokens(8)
            .min_bytes(30)
            .build()
            .is_ok());
    }

    #[test]
    fn out_of_range_options_are_refused() {
        let b = SpanFinder::builder;
        assert!(refused(b().fuzzy(true).overlap(1.5)).contains("overlap"));
        assert!(refused(b().fuzzy(true).ngram(0)).contains("n-gram"));
        assert!(refused(b().unit(Unit::Substring).min_tokens(0)).contains("1 to"));
        assert!(refused(b().memory(1000)).contains("64 KiB"));
    }
}
