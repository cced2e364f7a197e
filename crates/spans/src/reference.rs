//! Decontamination: the n-grams of a reference set (benchmark items, eval
//! sets) and the stretches of a document that share them.
//!
//! Every window of `n` consecutive words (CJK characters) of every
//! reference item is indexed with the first item that has it. A document's
//! word windows are looked up; the words of the matching windows are
//! merged into runs, and each run is one match, from the start of its first
//! word to the end of its last (so a match never cuts a word), naming the
//! reference item most of its windows came from (the earliest on a tie).
//! An item shorter than `n` words is indexed whole when it has at least
//! half as many words (rounded up): such items are matched by windows of
//! their own length; shorter items are counted in
//! [`ReferenceIndex::too_short`] and never matched.

use std::collections::{BTreeSet, HashMap};

use crate::analysis::RefMatch;
use crate::hashmap::IdentityBuild;
use crate::words::Words;

/// Approximate bytes of memory per indexed n-gram (key, item, table slack).
pub const REFERENCE_BYTES_PER_NGRAM: u64 = 24;

/// The n-grams of a reference set.
#[derive(Debug, Clone)]
pub struct ReferenceIndex {
    ngram: usize,
    grams: HashMap<u64, u32, IdentityBuild>,
    ids: Vec<String>,
    lengths: BTreeSet<usize>,
    too_short: usize,
    words: Words,
}

impl ReferenceIndex {
    /// An empty index of `ngram`-word windows.
    pub fn new(ngram: usize) -> ReferenceIndex {
        let mut lengths = BTreeSet::new();
        lengths.insert(ngram.max(1));
        ReferenceIndex {
            ngram: ngram.max(1),
            grams: HashMap::default(),
            ids: Vec::new(),
            lengths,
            too_short: 0,
            words: Words::default(),
        }
    }

    /// Adds a reference item; returns its index.
    pub fn add(&mut self, id: impl Into<String>, text: &str) -> u32 {
        let idx = self.ids.len() as u32;
        self.ids.push(id.into());
        let mut words = std::mem::take(&mut self.words);
        words.fill(text);
        let w = words.len();
        let n = if w >= self.ngram {
            self.ngram
        } else if w > 0 && w >= self.ngram.div_ceil(2) {
            self.lengths.insert(w);
            w
        } else {
            self.too_short += 1;
            self.words = words;
            return idx;
        };
        for i in 0..=w - n {
            self.grams.entry(words.ngram(i, n)).or_insert(idx);
        }
        self.words = words;
        idx
    }

    /// The id of reference item `idx`.
    pub fn id(&self, idx: u32) -> &str {
        self.ids.get(idx as usize).map_or("", String::as_str)
    }

    /// Number of reference items.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the index has no items.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Items too short to be matched.
    pub fn too_short(&self) -> usize {
        self.too_short
    }

    /// Distinct n-grams indexed.
    pub fn ngrams(&self) -> usize {
        self.grams.len()
    }

    /// The window length in words.
    pub fn ngram(&self) -> usize {
        self.ngram
    }

    /// Approximate memory of the index in bytes.
    pub fn memory_bytes(&self) -> u64 {
        self.grams.capacity() as u64 * REFERENCE_BYTES_PER_NGRAM
            + self.ids.iter().map(|s| s.len() as u64 + 24).sum::<u64>()
    }

    /// The matches of a document whose words are `words`.
    pub(crate) fn find(&self, words: &Words) -> Vec<RefMatch> {
        let w = words.len();
        if self.grams.is_empty() || w == 0 {
            return Vec::new();
        }
        // Matching windows: (first word, end word, item).
        let mut windows: Vec<(usize, usize, u32)> = Vec::new();
        for &n in self.lengths.iter().rev() {
            if n > w {
                continue;
            }
            for i in 0..=w - n {
                if let Some(&item) = self.grams.get(&words.ngram(i, n)) {
                    windows.push((i, i + n, item));
                }
            }
        }
        windows.sort_unstable();
        // Windows that share a word make one match; windows that only touch
        // do not (two items leaked one after the other are two matches).
        let mut out = Vec::new();
        let mut i = 0;
        while i < windows.len() {
            let (start, mut end, _) = windows[i];
            let mut votes: HashMap<u32, u32> = HashMap::new();
            while i < windows.len() && windows[i].0 < end.max(start + 1) {
                end = end.max(windows[i].1);
                *votes.entry(windows[i].2).or_default() += 1;
                i += 1;
            }
            let reference = votes
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map_or(0, |(&r, _)| r);
            out.push(RefMatch {
                range: (words.ranges[start].0, words.ranges[end - 1].1),
                chars: (0, 0),
                reference,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(idx: &ReferenceIndex, text: &str) -> Vec<(String, String)> {
        let mut w = Words::default();
        w.fill(text);
        idx.find(&w)
            .iter()
            .map(|m| {
                (
                    text[m.range.0..m.range.1].to_string(),
                    idx.id(m.reference).to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn a_leaked_item_is_found_on_word_boundaries() {
        let mut idx = ReferenceIndex::new(4);
        idx.add("q1", "What is the boiling point of water at sea level?");
        idx.add("q2", "Name the largest planet of the solar system.");
        let doc =
            "Intro text. Quiz: what is the BOILING point of water at sea level? Answer below.";
        assert_eq!(
            matches(&idx, doc),
            [(
                "what is the BOILING point of water at sea level".to_string(),
                "q1".to_string()
            )]
        );
        assert!(matches(&idx, "nothing of the kind is in this text at all").is_empty());
    }

    #[test]
    fn cjk_items_match_by_characters() {
        let mut idx = ReferenceIndex::new(6);
        idx.add("zh", "请计算下列各题的答案并写出过程");
        let doc = "今天的作业：请计算下列各题的答案。";
        assert_eq!(
            matches(&idx, doc),
            [("请计算下列各题的答案".to_string(), "zh".to_string())]
        );
    }

    #[test]
    fn items_leaked_one_after_the_other_are_two_matches() {
        let mut idx = ReferenceIndex::new(3);
        idx.add("a", "alpha beta gamma delta");
        idx.add("b", "one two three four");
        assert_eq!(
            matches(&idx, "x alpha beta gamma delta one two three four y"),
            [
                ("alpha beta gamma delta".to_string(), "a".to_string()),
                ("one two three four".to_string(), "b".to_string())
            ]
        );
    }

    #[test]
    fn short_items_are_matched_whole_or_counted() {
        let mut idx = ReferenceIndex::new(8);
        idx.add("five", "one two three four five");
        idx.add("two", "one two");
        assert_eq!(idx.too_short(), 1);
        assert_eq!(
            matches(&idx, "zero one two three four five six"),
            [("one two three four five".to_string(), "five".to_string())]
        );
    }
}
