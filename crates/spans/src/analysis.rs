//! What one document contributes to a run: its units, their keys and its
//! matches against the reference set. Computed by [`SpanFinder::analyze`],
//! a pure function of the text that any thread can run.

use std::cell::RefCell;

use crate::options::SpanFinder;
use crate::span::char_offsets;
use crate::units::{unit_ranges, Range, Unit, UnitKeyer};
use crate::words::Words;

/// A stretch of a document that shares n-grams with a reference item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefMatch {
    /// Byte range in the document's text, on word boundaries.
    pub range: Range,
    /// The same range in code points.
    pub chars: Range,
    /// Index of the reference item (see [`crate::ReferenceIndex::id`]).
    pub reference: u32,
}

/// A token of the substring unit: the hash of its normalized form and
/// that form's length in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Token {
    pub key: u64,
    pub bytes: u32,
}

/// One document's units, keys and reference matches.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Analysis {
    /// Byte ranges of the units that have keys, in order.
    pub(crate) units: Vec<Range>,
    /// Keys: one per unit (exact units) or the unit's n-grams (fuzzy).
    pub(crate) keys: Vec<u64>,
    /// The unit of each key (index into `units`), non-decreasing.
    pub(crate) key_unit: Vec<u32>,
    /// Reference matches, in order, not overlapping.
    pub(crate) references: Vec<RefMatch>,
    /// Code point ranges of `units`.
    pub(crate) unit_chars: Vec<Range>,
    /// Code points of the whole text.
    pub(crate) chars: usize,
    /// Tokens (the substring unit).
    pub(crate) tokens: Vec<Token>,
    /// The substring unit, a long document analysed for a run: the number
    /// of its tokens, left in its text for the run to take (`tokens` is
    /// empty).
    pub(crate) text_tokens: Option<usize>,
}

impl Analysis {
    /// Code points of the document's text.
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// Fills in the code point offsets of the units and reference matches
    /// and of the whole text (one pass over the text for each).
    pub(crate) fn fill_chars(&mut self, text: &str) {
        if text.is_ascii() {
            self.chars = text.len();
            self.unit_chars = self.units.clone();
            for m in &mut self.references {
                m.chars = m.range;
            }
            return;
        }
        // Unit offsets and the end of the text in one pass (units are in
        // order), reference matches in another.
        let mut offs: Vec<usize> = self.units.iter().flat_map(|&(s, e)| [s, e]).collect();
        offs.push(text.len());
        let chars = char_offsets(text, &offs);
        self.chars = chars.last().copied().unwrap_or(0);
        self.unit_chars = chars.chunks_exact(2).map(|c| (c[0], c[1])).collect();
        if !self.references.is_empty() {
            let offs: Vec<usize> = self
                .references
                .iter()
                .flat_map(|m| [m.range.0, m.range.1])
                .collect();
            let chars = char_offsets(text, &offs);
            for (m, c) in self.references.iter_mut().zip(chars.chunks_exact(2)) {
                m.chars = (c[0], c[1]);
            }
        }
    }

    /// Tokens of the substring unit, kept or left in the text.
    pub(crate) fn token_count(&self) -> usize {
        self.text_tokens.unwrap_or(self.tokens.len())
    }

    /// Calls `f(hash, normalized bytes)` for each token of the substring
    /// unit of the document whose text is `text`, in order: the kept
    /// tokens, or those of the text (a long document) by `words`.
    pub(crate) fn each_token(&self, text: &str, words: &mut Words, mut f: impl FnMut(u64, u32)) {
        if self.text_tokens.is_some() {
            words.each_hash(text, f);
        } else {
            for t in &self.tokens {
                f(t.key, t.bytes);
            }
        }
    }

    /// Number of units with keys.
    pub fn units(&self) -> usize {
        self.units.len()
    }

    /// Byte range of unit `i` (of those with keys).
    pub fn unit_range(&self, i: usize) -> (usize, usize) {
        self.units[i]
    }

    /// Number of keys.
    pub fn keys(&self) -> usize {
        self.keys.len()
    }

    /// The keys, in order.
    pub fn key_values(&self) -> &[u64] {
        &self.keys
    }

    /// The unit (index of [`Analysis::unit_range`]) of each key.
    pub fn key_units(&self) -> &[u32] {
        &self.key_unit
    }

    /// The reference matches.
    pub fn references(&self) -> &[RefMatch] {
        &self.references
    }
}

thread_local! {
    static SCRATCH: RefCell<(UnitKeyer, Words, Vec<Range>)> = RefCell::default();
}

/// Words a thread keeps room for between documents. The scratch of a
/// longer document (about 28 bytes a word, doubled by growth) is freed
/// once it is analysed, so that one long document does not hold its
/// words' memory on every thread for the rest of the run.
const KEPT_SCRATCH_WORDS: usize = 1 << 16;

impl SpanFinder {
    /// Analyzes one document: `text` is its text, `paragraphs` the
    /// extractor's paragraphs that `text` joins with line breaks (`None`
    /// for plain text, whose paragraphs are its lines).
    ///
    /// ```
    /// let finder = neardup_spans::SpanFinder::new();
    /// let a = finder.analyze("A line long enough to count as a paragraph.\nshort", None);
    /// assert_eq!(a.units(), 1);
    /// ```
    pub fn analyze(&self, text: &str, paragraphs: Option<&[String]>) -> Analysis {
        self.analyze_long(text, paragraphs, usize::MAX)
    }

    /// Analyzes one document for [`SpanRun::push`](crate::SpanRun::push)
    /// alone: as [`analyze`](Self::analyze), except that with the
    /// substring unit a text of at least
    /// [`long_document_bytes`](crate::SpanFinderBuilder::long_document_bytes)
    /// keeps no tokens, only their number: the run takes them from the
    /// text, so that one long document stays within the memory budget.
    /// [`substring_windows`](Self::substring_windows) of such an analysis
    /// is empty.
    ///
    /// ```
    /// use neardup_spans::{SpanFinder, Unit};
    /// let f = SpanFinder::builder()
    ///     .unit(Unit::Substring)
    ///     .long_document_bytes(4)
    ///     .build()?;
    /// let a = f.analyze_for_run("a few words", None);
    /// assert!(f.substring_windows(&a).is_empty());
    /// # Ok::<(), neardup_spans::Error>(())
    /// ```
    pub fn analyze_for_run(&self, text: &str, paragraphs: Option<&[String]>) -> Analysis {
        self.analyze_long(text, paragraphs, self.config.long_document_bytes)
    }

    /// Analyzes one document; a substring unit's text of at least `long`
    /// bytes keeps no tokens.
    fn analyze_long(&self, text: &str, paragraphs: Option<&[String]>, long: usize) -> Analysis {
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut s) => {
                let (keyer, words, ranges) = &mut *s;
                let a = self.analyze_with(text, paragraphs, long, keyer, words, ranges);
                if words.capacity() > KEPT_SCRATCH_WORDS {
                    *words = Words::default();
                }
                if ranges.capacity() > KEPT_SCRATCH_WORDS {
                    *ranges = Vec::new();
                }
                a
            }
            Err(_) => self.analyze_with(
                text,
                paragraphs,
                long,
                &mut UnitKeyer::default(),
                &mut Words::default(),
                &mut Vec::new(),
            ),
        })
    }

    fn analyze_with(
        &self,
        text: &str,
        paragraphs: Option<&[String]>,
        long: usize,
        keyer: &mut UnitKeyer,
        words: &mut Words,
        ranges: &mut Vec<Range>,
    ) -> Analysis {
        let c = &self.config;
        let mut a = Analysis::default();
        let substring = c.units_on && c.unit == Unit::Substring;
        let left_in_text = substring && text.len() >= long;
        if left_in_text {
            // The run tokenizes the text itself (`Analysis::each_token`).
            a.text_tokens = Some(Words::count(text));
        } else if substring && c.reference.is_none() {
            // The tokens alone: 16 bytes a word, nothing else kept.
            words.each_hash(text, |key, bytes| a.tokens.push(Token { key, bytes }));
        } else if substring {
            words.fill(text);
            a.tokens = (0..words.len())
                .map(|i| Token {
                    key: words.hash(i),
                    bytes: words.lens[i],
                })
                .collect();
        } else if c.units_on {
            ranges.clear();
            unit_ranges(text, c.unit, paragraphs, ranges);
            for &(s, e) in ranges.iter() {
                let unit = &text[s..e];
                let Some(key) = keyer.key(unit, c.min_chars) else {
                    continue;
                };
                let u = a.units.len() as u32;
                if c.fuzzy {
                    words.fill(unit);
                    let w = words.len();
                    if w == 0 {
                        continue;
                    }
                    if w < c.ngram {
                        a.keys.push(words.run(0, w));
                        a.key_unit.push(u);
                    } else {
                        for i in 0..=w - c.ngram {
                            a.keys.push(words.ngram(i, c.ngram));
                            a.key_unit.push(u);
                        }
                    }
                } else {
                    a.keys.push(key);
                    a.key_unit.push(u);
                }
                a.units.push((s, e));
            }
        }
        if let Some(r) = &c.reference {
            // The substring unit's words are those of the whole text already
            // (unless they are left in it).
            if !substring || left_in_text {
                words.fill(text);
            }
            a.references = r.find(words);
        }
        a.fill_chars(text);
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_units_have_one_key_each() {
        let f = SpanFinder::builder().unit(Unit::Line).build().unwrap();
        let a = f.analyze(
            "A first line that is long enough.\nshort\nA second line that is long enough.",
            None,
        );
        assert_eq!(a.units, vec![(0, 33), (40, 74)]);
        assert_eq!(a.keys.len(), 2);
        assert_eq!(a.key_unit, vec![0, 1]);
    }

    #[test]
    fn a_long_substring_document_leaves_its_tokens_in_its_text() {
        let f = SpanFinder::builder()
            .unit(Unit::Substring)
            .long_document_bytes(10)
            .build()
            .unwrap();
        let text = "Hello, 世界! It's ＴＨＥ end";
        let kept = f.analyze(text, None);
        let left = f.analyze_for_run(text, None);
        assert_eq!(kept.tokens.len(), 7);
        assert!(left.tokens.is_empty());
        assert_eq!(left.token_count(), 7);
        assert_eq!(left.chars, kept.chars);
        let mut got = Vec::new();
        left.each_token(text, &mut Words::default(), |key, bytes| {
            got.push(Token { key, bytes })
        });
        assert_eq!(got, kept.tokens);
        // Below the threshold the analysis is `analyze`'s.
        assert_eq!(f.analyze_for_run("Hello", None), f.analyze("Hello", None));
    }

    #[test]
    fn fuzzy_paragraphs_have_their_ngrams() {
        let f = SpanFinder::builder().fuzzy(true).ngram(3).build().unwrap();
        let a = f.analyze(
            "one two three four five six seven\nalpha beta gamma delta epsilon\nunder a third",
            None,
        );
        // 5 + 3 windows; the last line has exactly 3 words and 13 chars:
        // below the 20-character minimum.
        assert_eq!(a.units.len(), 2);
        assert_eq!(a.key_unit, vec![0, 0, 0, 0, 0, 1, 1, 1]);
        let short = SpanFinder::builder().fuzzy(true).build().unwrap();
        let b = short.analyze("a paragraph shorter than thirteen words", None);
        assert_eq!(b.keys.len(), 1);
    }
}
