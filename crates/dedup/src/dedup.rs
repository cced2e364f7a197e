//! The batch deduplication engine: fingerprints in, groups out.
//!
//! Documents with byte-identical signatures are collapsed first (a crawl is
//! full of exact copies, and they would make LSH buckets quadratic); the
//! distinct signatures go through the method's candidate search; every
//! candidate pair is verified with the method's own rule; and groups are
//! formed without chaining: visiting documents in the keep policy's order,
//! a document joins the group of the most similar document kept so far, or
//! is kept itself. "Half of A + all of B" therefore cannot pull A's and B's
//! groups together.

use neardup_index::{Assignment, Containment};
use neardup_sketch::{DocText, Method, Signature, Sketcher};
use neardup_text::{Segmenter, ShingleUnit};

use crate::batch::candidates::Spill;
use crate::builder::DedupBuilder;
use crate::keep::KeepPolicy;
use crate::rules::composite::CompositeCheck;
use crate::rules::pair_rule::Refusal;
use crate::rules::partial::PartialCopyCheck;
use crate::rules::templates::SiteTemplates;
use crate::verify::{ShingleSeq, Verifier};

/// One document as the engine sees it.
#[derive(Debug, Clone, Copy)]
pub struct DocFingerprint<'a> {
    /// Its signature; `None` for a document with no text (or that failed):
    /// such a document is a group of its own.
    pub signature: Option<&'a Signature>,
    /// Its URL or id, for [`KeepPolicy::PreferUrl`].
    pub url: &'a str,
    /// Its main text length in bytes, for [`KeepPolicy::Longest`].
    pub text_len: usize,
}

/// The result of [`Dedup::cluster`].
#[derive(Debug, Clone)]
pub struct Groups {
    /// Per document, in input order: its group's kept document, the kept
    /// document it duplicates, and the similarity to it.
    pub assignments: Vec<Assignment>,
    /// Documents with a signature.
    pub with_text: usize,
    /// Distinct signatures among them.
    pub distinct: usize,
    /// Candidate pairs among distinct signatures.
    pub candidates: usize,
    /// Candidate pairs the method confirmed.
    pub verified: usize,
    /// Pairs that passed exact verification but were refused as a
    /// composite page and a page of one of its articles (see
    /// [`CompositeCheck`]).
    pub composites: usize,
    /// Pairs that passed exact verification but were refused as a partial
    /// copy and its full page (see [`PartialCopyCheck`]).
    pub partial_copies: usize,
    /// Every verified pair a corpus-level rule refused, with the rule.
    pub refusals: Vec<Refusal>,
    /// Sorted runs written to disk (0 without spilling).
    pub spilled_runs: usize,
    /// Partial reprints (with [`DedupBuilder::containment`]): pairs whose
    /// containment reaches the threshold although they are not
    /// near-duplicates, as document indices.
    pub contained: Vec<Containment>,
}

/// The deduplication engine: a method and a keep policy.
///
/// ```
/// use neardup_dedup::{Dedup, DocFingerprint};
///
/// let dedup = Dedup::new();
/// let texts = [
///     "The council approved the new cycle lanes on the high street after a long debate on Monday evening.",
///     "The council approved the new cycle lanes on the high street after a long debate on Monday night.",
///     "A completely different story about the harbour festival and its fireworks, which drew large crowds.",
/// ];
/// let sigs: Vec<_> = texts.iter().map(|t| dedup.fingerprint(t, &[])).collect();
/// let docs: Vec<_> = sigs
///     .iter()
///     .zip(texts)
///     .map(|(s, t)| DocFingerprint { signature: s.as_ref(), url: "", text_len: t.len() })
///     .collect();
/// let groups = dedup.cluster(&docs)?;
/// assert_eq!(groups.assignments[1].duplicate_of, Some(0));
/// assert_eq!(groups.assignments[2].duplicate_of, None);
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Dedup {
    pub(crate) config: Config,
}

#[derive(Debug, Clone)]
pub(crate) struct Config {
    pub(crate) method: Method,
    pub(crate) keep: KeepPolicy,
    pub(crate) spill: Option<Spill>,
    pub(crate) verifier: Option<Verifier>,
    pub(crate) containment: Option<f64>,
    pub(crate) site_templates: Option<SiteTemplates>,
    pub(crate) composite: Option<CompositeCheck>,
    pub(crate) partial: Option<PartialCopyCheck>,
    /// Where a batch run says how far it has gone.
    pub(crate) progress: Option<std::sync::Arc<crate::batch::progress::RunProgress>>,
}

impl Default for Dedup {
    fn default() -> Dedup {
        Dedup::new()
    }
}

/// The default method: 128-permutation MinHash over word 3-grams of the
/// main text (3-grams of character bigrams, spanning 4 characters, in CJK
/// text: [`neardup_text::Segmenter::bigrams`]), near-duplicate at Jaccard
/// 0.5; with exact verification (see [`Verifier`]) on by default.
pub fn default_method() -> Method {
    let v = Verifier::default();
    let mut m = neardup_sketch::MinHash::new();
    m.shingles(ShingleUnit::Token, v.k)
        .threshold(v.threshold)
        .segmenter(Segmenter::bigrams());
    Method::MinHash(m)
}

impl Dedup {
    /// The engine with the default method and keep policy.
    pub fn new() -> Dedup {
        Dedup::builder().build()
    }

    /// A builder.
    pub fn builder() -> DedupBuilder {
        DedupBuilder {
            config: Config {
                method: default_method(),
                keep: KeepPolicy::First,
                spill: None,
                verifier: Some(Verifier::default()),
                containment: None,
                site_templates: Some(SiteTemplates::default()),
                composite: Some(CompositeCheck::default()),
                partial: Some(PartialCopyCheck::default()),
                progress: None,
            },
        }
    }

    /// The method.
    pub fn method(&self) -> &Method {
        &self.config.method
    }

    /// The signature of a document's main text, `None` when it has no
    /// letters or digits at all (an empty document is a group of its own).
    pub fn fingerprint(&self, text: &str, paragraphs: &[String]) -> Option<Signature> {
        if !text.chars().any(char::is_alphanumeric) {
            return None;
        }
        Some(self.config.method.sketch(&DocText::new(text, paragraphs)))
    }

    /// The signature and, with exact verification, the shingles of a
    /// document's main text: both `None` without letters or digits. When
    /// the method is MinHash over the verifier's token shingles (the
    /// default method), the text is tokenized once and the signature made
    /// from the shingle sequence; otherwise as [`Dedup::fingerprint`] then
    /// [`Dedup::shingles`]. The result is the same either way.
    pub fn fingerprint_with_shingles(
        &self,
        text: &str,
        paragraphs: &[String],
    ) -> (Option<Signature>, Option<ShingleSeq>) {
        if !text.chars().any(char::is_alphanumeric) {
            return (None, None);
        }
        if let (Some(v), Method::MinHash(m)) = (&self.config.verifier, &self.config.method) {
            if m.get_shingles() == (ShingleUnit::Token, v.k) {
                let seq = ShingleSeq::with_segmenter(text, v.k, self.config.method.segmenter());
                let sig = crate::rules::templates::resketch(m, &seq);
                return (Some(sig), Some(v.sample(seq)));
            }
        }
        let signature = self.fingerprint(text, paragraphs);
        let shingles = signature.as_ref().and_then(|_| self.shingles(text));
        (signature, shingles)
    }

    /// The exact verifier, if exact verification is on.
    pub fn verifier(&self) -> Option<&Verifier> {
        self.config.verifier.as_ref()
    }

    /// The site template pass, if on.
    pub fn site_templates(&self) -> Option<&SiteTemplates> {
        self.config.site_templates.as_ref()
    }

    /// What exact verification keeps of a document (`None` when it is off),
    /// with the method's segmenter.
    pub fn shingles(&self, text: &str) -> Option<ShingleSeq> {
        self.config
            .verifier
            .map(|v| v.shingles(text, &self.config.method))
    }
}
