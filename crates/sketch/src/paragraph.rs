//! Paragraph fingerprints: one 64-bit SimHash per paragraph.
//!
//! Each paragraph of at least `min_chars = 20` characters (normalized,
//! spaces excluded) gets a TF-weighted 64-bit SimHash over token 2-grams
//! (word pairs, or character bigrams for CJK). Paragraphs of two pages are
//! aligned one-to-one, greedily in page order, pairing each paragraph of A
//! with the closest unused paragraph of B within Hamming distance
//! `max_distance = 3`. Similarity is the Dice share of matched paragraphs,
//! `2 · matched / (paragraphs_a + paragraphs_b)`; pages are duplicates when
//! it is at least 0.8. (The paper requires every paragraph to match, i.e. 1.0.)
//! Without paragraphs, the text's lines are used.

use neardup_text::{ShingleUnit, Shingler};

use crate::codec::{Reader, Writer};
use crate::doc::DocText;
use crate::error::{ErrorKind, Result};
use crate::simhash::weighted_simhash;

/// Paragraph fingerprints of a document.
///
/// Body format: params u64 (hash of seed, feature length, minimum length),
/// count u32, then per paragraph: index u32 (in the input paragraphs) and
/// fingerprint u64.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ParagraphSig {
    pub(crate) params: u64,
    pub(crate) entries: Vec<(u32, u64)>,
}

impl ParagraphSig {
    /// `(paragraph index, fingerprint)` for every fingerprinted paragraph.
    pub fn entries(&self) -> &[(u32, u64)] {
        &self.entries
    }

    /// The fingerprints in paragraph order.
    pub fn fingerprints(&self) -> impl Iterator<Item = u64> + '_ {
        self.entries.iter().map(|e| e.1)
    }

    pub(crate) fn encode(&self, w: &mut Writer) {
        w.u64(self.params);
        w.len(self.entries.len());
        for &(i, f) in &self.entries {
            w.u32(i);
            w.u64(f);
        }
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Self> {
        let params = r.u64()?;
        let n = r.count(12)?;
        let entries = (0..n)
            .map(|_| Ok((r.u32()?, r.u64()?)))
            .collect::<Result<Vec<_>>>()?;
        if entries.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(ErrorKind::Malformed("paragraph indices not increasing").into());
        }
        Ok(ParagraphSig { params, entries })
    }
}

/// Which paragraphs of A match which of B, and which stand in one page only.
/// Indices are paragraph indices of the input documents.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Alignment {
    /// `(index in A, index in B, Hamming distance)`, in A's order.
    pub pairs: Vec<(usize, usize, u32)>,
    /// Fingerprinted paragraphs of A without a match.
    pub only_a: Vec<usize>,
    /// Fingerprinted paragraphs of B without a match.
    pub only_b: Vec<usize>,
}

/// Paragraph method; see the module documentation.
///
/// ```
/// use neardup_sketch::{DocText, Paragraph};
/// let pa = vec!["A first paragraph about near duplicates.".to_string(),
///               "A second paragraph, about fingerprints.".to_string()];
/// let pb = vec!["A second paragraph, about fingerprints.".to_string(),
///               "Something else entirely, written for this page only.".to_string()];
/// let p = Paragraph::new();
/// let a = p.signature(&DocText::new("", &pa));
/// let b = p.signature(&DocText::new("", &pb));
/// let al = p.align(&a, &b).unwrap();
/// assert_eq!(al.pairs, vec![(1, 0, 0)]);
/// assert_eq!((al.only_a, al.only_b), (vec![0], vec![1]));
/// assert_eq!(p.similarity(&a, &b).unwrap(), 0.5);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Paragraph {
    min_chars: usize,
    k: usize,
    max_distance: u32,
    min_share: f64,
    seed: u64,
}

impl Default for Paragraph {
    fn default() -> Self {
        Self::new()
    }
}

impl Paragraph {
    /// Default seed of the paragraph SimHash.
    pub const DEFAULT_SEED: u64 = 0x5061_7261_5348_3031; // "ParaSH01"

    /// 20 characters minimum, token 2-grams, Hamming <= 3, share >= 0.8.
    pub fn new() -> Self {
        Paragraph {
            min_chars: 20,
            k: 2,
            max_distance: 3,
            min_share: 0.8,
            seed: Self::DEFAULT_SEED,
        }
    }

    /// Sets the minimum paragraph length in non-space characters.
    pub fn min_chars(&mut self, n: usize) -> &mut Self {
        self.min_chars = n;
        self
    }

    /// Sets the feature length in tokens.
    pub fn shingle(&mut self, k: usize) -> &mut Self {
        self.k = k.max(1);
        self
    }

    /// Sets the largest Hamming distance of matching paragraphs.
    pub fn max_distance(&mut self, d: u32) -> &mut Self {
        self.max_distance = d;
        self
    }

    /// Sets the share of matched paragraphs at or above which pages are duplicates.
    pub fn min_share(&mut self, s: f64) -> &mut Self {
        self.min_share = s;
        self
    }

    /// The duplicate share.
    pub fn get_min_share(&self) -> f64 {
        self.min_share
    }

    /// Fingerprints of a document's paragraphs.
    pub fn signature(&self, doc: &DocText<'_>) -> ParagraphSig {
        let mut sh = Shingler::new(ShingleUnit::Token, self.k);
        let mut feats = Vec::new();
        let entries = doc
            .normalized_paragraphs()
            .into_iter()
            .filter(|(_, p)| p.chars().filter(|c| *c != ' ').count() >= self.min_chars)
            .map(|(i, p)| {
                feats.clear();
                sh.extend(&p, &mut feats);
                (
                    i as u32,
                    weighted_simhash(&feats, 64, self.seed, None) as u64,
                )
            })
            .collect();
        let params = crate::hash::mix64(self.seed, (self.k as u64) << 32 | self.min_chars as u64);
        ParagraphSig { params, entries }
    }

    /// Aligns the paragraphs of two pages (see the module documentation).
    ///
    /// # Errors
    /// [`ErrorKind::ParameterMismatch`] for signatures of different settings.
    pub fn align(&self, a: &ParagraphSig, b: &ParagraphSig) -> Result<Alignment> {
        if a.params != b.params {
            return Err(ErrorKind::ParameterMismatch.into());
        }
        let mut used = vec![false; b.entries.len()];
        let mut al = Alignment::default();
        for &(ia, fa) in &a.entries {
            let best = b
                .entries
                .iter()
                .enumerate()
                .filter(|(j, _)| !used[*j])
                .map(|(j, &(_, fb))| ((fa ^ fb).count_ones(), j))
                .filter(|&(d, _)| d <= self.max_distance)
                .min();
            match best {
                Some((d, j)) => {
                    used[j] = true;
                    al.pairs.push((ia as usize, b.entries[j].0 as usize, d));
                }
                None => al.only_a.push(ia as usize),
            }
        }
        al.only_b = (0..b.entries.len())
            .filter(|&j| !used[j])
            .map(|j| b.entries[j].0 as usize)
            .collect();
        Ok(al)
    }

    /// Dice share of matched paragraphs (1 when both have none).
    ///
    /// # Errors
    /// [`ErrorKind::ParameterMismatch`] for signatures of different settings.
    pub fn similarity(&self, a: &ParagraphSig, b: &ParagraphSig) -> Result<f64> {
        let forward = self.align(a, b)?.pairs.len();
        let total = a.entries.len() + b.entries.len();
        if total == 0 {
            return Ok(1.0);
        }
        // Greedy alignment depends on the direction: use the better one.
        let m = forward.max(self.align(b, a)?.pairs.len());
        Ok(2.0 * m as f64 / total as f64)
    }

    /// Whether the share of matched paragraphs reaches the threshold.
    ///
    /// # Errors
    /// [`ErrorKind::ParameterMismatch`] for signatures of different settings.
    pub fn is_duplicate(&self, a: &ParagraphSig, b: &ParagraphSig) -> Result<bool> {
        Ok(self.similarity(a, b)? >= self.min_share)
    }
}

impl Paragraph {
    /// Writes every parameter (for [`crate::Method::params_bytes`]).
    pub(crate) fn encode_params(&self, w: &mut crate::codec::Writer) {
        w.len(self.min_chars);
        w.len(self.k);
        w.u32(self.max_distance);
        w.f64(self.min_share);
        w.u64(self.seed);
    }
}
