//! Word and character mixing for `neardup-bench realtext`: every original
//! document has a share of its words (of its CJK characters) replaced by
//! random words (characters) of the real paragraphs, so that two unrelated
//! documents built from the same paragraph pieces still share almost none
//! of their shingles, as unrelated web pages do, and the number of
//! unrelated candidate pairs grows with the corpus, not with its square.
//!
//! The replacements are drawn by frequency from every word of the spaced
//! pool (with the punctuation attached to it: curly quotes, dashes,
//! accented letters as written) and every CJK character of the CJK pool,
//! so the character mix of the corpus stays that of the real text.
//!
//! With a share `q` replaced independently in each of two documents, a
//! word k-gram of a piece they share survives in both with probability
//! `(1 - q)^(2k)`: for `q = 0.2` and the default word 5-grams about 0.11,
//! for CJK (bigram 5-grams, six characters) about 0.07.

use neardup::text::is_cjk;

use crate::paragraphs::Pools;
use crate::rng::Rng;

/// Every word of the spaced pool and every CJK character of the CJK pool,
/// with their multiplicity.
#[derive(Debug, Clone)]
pub struct Vocab<'a> {
    words: Vec<&'a str>,
    han: Vec<char>,
}

impl<'a> Vocab<'a> {
    /// The vocabulary of `pools`.
    pub fn new(pools: &'a Pools) -> Vocab<'a> {
        let words: Vec<&str> = pools
            .spaced
            .iter()
            .flat_map(|p| p.split_whitespace())
            .collect();
        let han: Vec<char> = pools
            .cjk
            .iter()
            .flat_map(|p| p.chars())
            .filter(|&c| is_cjk(c))
            .collect();
        Vocab { words, han }
    }

    /// A random word, by frequency; `fallback` when there are none.
    pub fn word<'s>(&self, rng: &mut Rng, fallback: &'s str) -> &'s str
    where
        'a: 's,
    {
        if self.words.is_empty() {
            return fallback;
        }
        self.words[rng.below(self.words.len() as u64) as usize]
    }

    /// A random CJK character, by frequency; `fallback` when there are none.
    pub fn han(&self, rng: &mut Rng, fallback: char) -> char {
        if self.han.is_empty() {
            return fallback;
        }
        self.han[rng.below(self.han.len() as u64) as usize]
    }

    /// `text` with each whitespace-delimited word replaced, with
    /// probability `rate`, by a random word; whitespace (line breaks,
    /// blank lines) is kept as it is.
    pub fn mix_words(&self, text: &str, rate: f64, rng: &mut Rng) -> String {
        let mut out = String::with_capacity(text.len() + text.len() / 8);
        let mut rest = text;
        while !rest.is_empty() {
            let space = rest
                .find(|c: char| !c.is_whitespace())
                .unwrap_or(rest.len());
            out.push_str(&rest[..space]);
            rest = &rest[space..];
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let word = &rest[..end];
            if !word.is_empty() {
                out.push_str(if rng.chance(rate) {
                    self.word(rng, word)
                } else {
                    word
                });
            }
            rest = &rest[end..];
        }
        out
    }

    /// `text` with each CJK character replaced, with probability `rate`, by
    /// a random CJK character; everything else kept.
    pub fn mix_chars(&self, text: &str, rate: f64, rng: &mut Rng) -> String {
        text.chars()
            .map(|c| {
                if is_cjk(c) && rng.chance(rate) {
                    self.han(rng, c)
                } else {
                    c
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    fn pools() -> Pools {
        let mut p = Pools::default();
        for i in 0..20 {
            p.add_article(&format!(
                "Paragraph {i} says “something” — about café number {i}, at length enough \
                 for a piece of its own, with words {w} and more.\n\n\
                 第{i}段中文文字，内容是关于咖啡馆的一些描述，长度足够用来测试。",
                w = i * 7
            ));
        }
        p
    }

    fn word_kgrams(text: &str, k: usize) -> HashSet<Vec<&str>> {
        let words: Vec<&str> = text.split_whitespace().collect();
        words.windows(k).map(<[&str]>::to_vec).collect()
    }

    fn jaccard<T: std::hash::Hash + Eq>(a: &HashSet<T>, b: &HashSet<T>) -> f64 {
        a.intersection(b).count() as f64 / a.union(b).count().max(1) as f64
    }

    #[test]
    fn mixed_copies_of_the_same_text_share_few_kgrams() {
        let pools = pools();
        let vocab = Vocab::new(&pools);
        let text = pools.spaced[..8].join("\n\n");
        let mut rng = Rng::new(5);
        let a = vocab.mix_words(&text, 0.2, &mut rng);
        let b = vocab.mix_words(&text, 0.2, &mut rng);
        assert_ne!(a, b);
        let j = jaccard(&word_kgrams(&a, 5), &word_kgrams(&b, 5));
        assert!(j < 0.2, "{j}");
        // Unmixed, they are the same text.
        assert_eq!(vocab.mix_words(&text, 0.0, &mut rng), text);
        // Paragraph breaks and the number of words are kept.
        assert_eq!(a.matches("\n\n").count(), 7);
        assert_eq!(
            a.split_whitespace().count(),
            text.split_whitespace().count()
        );
        // Replacements are real words of the pool.
        let known: HashSet<&str> = pools
            .spaced
            .iter()
            .flat_map(|p| p.split_whitespace())
            .collect();
        assert!(a.split_whitespace().all(|w| known.contains(w)));
    }

    #[test]
    fn mixed_cjk_keeps_its_shape() {
        let pools = pools();
        let vocab = Vocab::new(&pools);
        let text = "第一段中文文字，内容是关于咖啡馆的描述。abc 第二段。".repeat(20);
        let mut rng = Rng::new(9);
        let a = vocab.mix_chars(&text, 0.3, &mut rng);
        assert_ne!(a, text);
        assert_eq!(a.chars().count(), text.chars().count());
        for (x, y) in a.chars().zip(text.chars()) {
            assert_eq!(is_cjk(x), is_cjk(y));
            if !is_cjk(y) {
                assert_eq!(x, y);
            }
        }
        let empty = Pools::default();
        let none = Vocab::new(&empty);
        assert_eq!(none.mix_chars(&text, 1.0, &mut rng), text);
        assert_eq!(none.mix_words("a b  c", 1.0, &mut rng), "a b  c");
    }
}
