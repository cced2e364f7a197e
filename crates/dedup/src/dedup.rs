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

use std::collections::HashMap;
use std::sync::Mutex;

use rayon::prelude::*;

use neardup_index::{Assignment, Clusterer, Containment};
use neardup_sketch::{DocText, Method, Signature, Sketcher};
use neardup_text::{Segmenter, ShingleUnit};

use crate::builder::DedupBuilder;
use crate::candidates::{candidate_pairs, low_similarity_pairs, Spill};
use crate::composite::CompositeCheck;
use crate::error::Error;
use crate::keep::{KeepKey, KeepPolicy};
use crate::partial::PartialCopyCheck;
use crate::rules::{PairRule, Refusal, RuleContext};
use crate::run_spilled::{in_blocks, load_for_rules, SeqLookup, Seqs};
use crate::templates::SiteTemplates;
use crate::verify::{containment, verify_signatures, ShingleSeq, Verifier};

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
                let seq = v.shingles(text, &self.config.method);
                let sig = crate::templates::resketch(m, &seq);
                return (Some(sig), Some(seq));
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

    /// Groups documents, verifying candidate pairs with the method's own
    /// rule on signatures. Deterministic: the same input gives the same
    /// groups whatever the number of threads.
    pub fn cluster(&self, docs: &[DocFingerprint<'_>]) -> Result<Groups, Error> {
        self.cluster_exact(docs, &[])
    }

    /// Groups documents, verifying candidate pairs exactly on their
    /// shingles (from [`Dedup::shingles`]) when both have them and the
    /// verifier is on, with the method's rule otherwise. `shingles` is empty
    /// or has one entry per document.
    pub fn cluster_exact(
        &self,
        docs: &[DocFingerprint<'_>],
        shingles: &[Option<&ShingleSeq>],
    ) -> Result<Groups, Error> {
        if !shingles.is_empty() && shingles.len() != docs.len() {
            return Err(Error::signature(
                "one shingle sequence per document is needed",
            ));
        }
        self.cluster_with(docs, Seqs::Memory(shingles))
    }

    /// [`Dedup::cluster_exact`] with the sequences in memory or spilled.
    pub(crate) fn cluster_with(
        &self,
        docs: &[DocFingerprint<'_>],
        mut seqs_of: Seqs<'_>,
    ) -> Result<Groups, Error> {
        let shingles: &[Option<&ShingleSeq>] = match &seqs_of {
            Seqs::Memory(s) => s,
            Seqs::Spilled(_) => &[],
        };
        let has_shingles = match &seqs_of {
            Seqs::Memory(s) => !s.is_empty(),
            Seqs::Spilled(_) => true,
        };
        let keys: Vec<KeepKey<'_>> = docs
            .iter()
            .map(|d| KeepKey {
                url: d.url,
                text_len: d.text_len,
            })
            .collect();
        let order = self.config.keep.order(&keys);
        // Collapse identical signatures onto their first document in order.
        let sig_keys: Vec<Option<u128>> = docs
            .par_iter()
            .map_init(Vec::new, |scratch, d| {
                Some(signature_key(d.signature?, scratch))
            })
            .collect();
        let mut first_of: HashMap<u128, u32> = HashMap::with_capacity(docs.len());
        let mut copy_of: Vec<Option<u32>> = vec![None; docs.len()];
        let mut with_text = 0;
        for &d in &order {
            if let Some(key) = sig_keys[d as usize] {
                with_text += 1;
                copy_of[d as usize] = Some(*first_of.entry(key).or_insert(d));
            }
        }
        drop((sig_keys, first_of));
        // Distinct signatures, by document index; their visiting order.
        let distinct: Vec<u32> = (0..docs.len() as u32)
            .filter(|&d| copy_of[d as usize] == Some(d))
            .collect();
        let mut slot = vec![u32::MAX; docs.len()];
        for (k, &d) in distinct.iter().enumerate() {
            slot[d as usize] = k as u32;
        }
        let sigs: Vec<&Signature> = distinct
            .iter()
            .filter_map(|&d| docs[d as usize].signature)
            .collect();
        let distinct_order: Vec<u32> = order
            .iter()
            .filter(|&&d| copy_of[d as usize] == Some(d))
            .map(|&d| slot[d as usize])
            .collect();
        let method = &self.config.method;
        let (candidates, spilled_runs) =
            candidate_pairs(method, &sigs, self.config.spill.as_ref())?;
        let mut clusterer = Clusterer::new();
        clusterer.set_threshold(0.0)?;
        let exact = |k: u32| {
            shingles
                .get(distinct[k as usize] as usize)
                .copied()
                .flatten()
        };
        let rules = if !has_shingles || self.config.verifier.is_none() {
            Vec::new()
        } else {
            self.pair_rules()
        };
        // Verified pairs each rule wants to look at.
        let suspects: Vec<Mutex<Vec<(u32, u32)>>> =
            rules.iter().map(|_| Mutex::new(Vec::new())).collect();
        let verify = |pairs: &[(u32, u32)], get: &SeqLookup<'_>| {
            clusterer.verify(pairs, |a, b| {
                if let (Some(v), Some(x), Some(y)) = (&self.config.verifier, get(a), get(b)) {
                    let c = v.check(x, y)?;
                    for (rule, list) in rules.iter().zip(&suspects) {
                        if rule.is_suspect(&c) {
                            list.lock().unwrap_or_else(|e| e.into_inner()).push((a, b));
                        }
                    }
                    return Some(c.jaccard);
                }
                verify_signatures(method, sigs[a as usize], sigs[b as usize])
                    .ok()
                    .flatten()
            })
        };
        let mut verified = match &mut seqs_of {
            Seqs::Memory(_) => verify(&candidates, &exact),
            Seqs::Spilled(spill) => in_blocks(spill, &distinct, &candidates, verify)?,
        };
        let suspects: Vec<Vec<(u32, u32)>> = suspects
            .into_iter()
            .map(|list| list.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect();
        let for_rules = match &mut seqs_of {
            Seqs::Spilled(spill) if !rules.is_empty() => {
                let all: Vec<(u32, u32)> = suspects.iter().flatten().copied().collect();
                let composite = rules
                    .iter()
                    .zip(&suspects)
                    .find(|(rule, _)| rule.name() == "composite")
                    .and_then(|(_, list)| Some((self.config.composite?, &list[..])));
                let k = self.config.verifier.map_or(1, |v| v.k);
                load_for_rules(spill, &distinct, &all, &verified, composite, k)?
            }
            _ => HashMap::new(),
        };
        let seqs: Vec<Option<&ShingleSeq>> = match &seqs_of {
            _ if rules.is_empty() => Vec::new(),
            Seqs::Memory(_) => (0..distinct.len() as u32).map(exact).collect(),
            Seqs::Spilled(_) => distinct.iter().map(|d| for_rules.get(d)).collect(),
        };
        let ctx = RuleContext {
            seqs: &seqs,
            k: self.config.verifier.map_or(1, |v| v.k),
        };
        // Each rule in turn, on the pairs the rules before it kept.
        let mut refused_so_far: Vec<(u32, u32)> = Vec::new();
        let mut refusals = Vec::new();
        for (rule, mut list) in rules.iter().zip(suspects) {
            list.sort_unstable();
            list.retain(|p| refused_so_far.binary_search(p).is_err());
            let refused = rule.refuse(&ctx, &list, &verified);
            verified.retain(|&(a, b, s)| {
                let keep = refused.binary_search(&(a, b)).is_err();
                if !keep {
                    refusals.push(Refusal {
                        a: distinct[a as usize],
                        b: distinct[b as usize],
                        similarity: s,
                        rule: rule.name(),
                    });
                }
                keep
            });
            refused_so_far.extend(refused);
            refused_so_far.sort_unstable();
        }
        let contained_pairs = match self.config.containment {
            Some(t) if has_shingles => {
                clusterer.set_containment_threshold(t)?;
                let low = low_similarity_pairs(&sigs, (t / 4.0).max(0.05))?;
                let reversed: Vec<(u32, u32)> = low.iter().map(|&(a, b)| (b, a)).collect();
                let within = |pairs: &[(u32, u32)], get: &SeqLookup<'_>| {
                    clusterer.verify(pairs, |a, b| Some(containment(get(a)?, get(b)?)))
                };
                let mut both = match &mut seqs_of {
                    Seqs::Memory(_) => {
                        let mut both = within(&low, &exact);
                        both.extend(within(&reversed, &exact));
                        both
                    }
                    Seqs::Spilled(spill) => {
                        let mut both = in_blocks(spill, &distinct, &low, within)?;
                        both.extend(in_blocks(spill, &distinct, &reversed, within)?);
                        both
                    }
                };
                both.retain(|&(_, _, c)| c >= t);
                Some(both)
            }
            _ => None,
        };
        let clustering = clusterer.cluster(
            sigs.len(),
            Some(&distinct_order),
            &verified,
            contained_pairs.as_deref(),
        )?;
        let contained = clustering
            .contained()
            .iter()
            .map(|c| Containment {
                contained: distinct[c.contained as usize],
                container: distinct[c.container as usize],
                ..*c
            })
            .collect();
        let inner = clustering.assignments();
        let assignments = (0..docs.len())
            .map(|d| match copy_of[d] {
                None => kept(d as u32),
                Some(r) => {
                    let a = inner[slot[r as usize] as usize];
                    let map = |k: u32| distinct[k as usize];
                    match a.duplicate_of {
                        None if r as usize == d => kept(r),
                        None => Assignment {
                            representative: r,
                            duplicate_of: Some(r),
                            similarity: 1.0,
                        },
                        Some(o) => Assignment {
                            representative: map(a.representative),
                            duplicate_of: Some(map(o)),
                            similarity: a.similarity,
                        },
                    }
                }
            })
            .collect();
        Ok(Groups {
            assignments,
            with_text,
            distinct: distinct.len(),
            candidates: candidates.len(),
            verified: verified.len(),
            composites: refusals.iter().filter(|r| r.rule == "composite").count(),
            partial_copies: refusals.iter().filter(|r| r.rule == "partial-copy").count(),
            refusals,
            spilled_runs,
            contained,
        })
    }
}

impl Dedup {
    /// The corpus-level rules on verified pairs that are on, in the order
    /// they run. A new rule is one more line here.
    fn pair_rules(&self) -> Vec<&dyn PairRule> {
        let mut rules: Vec<&dyn PairRule> = Vec::new();
        if let Some(c) = &self.config.composite {
            rules.push(c);
        }
        if let Some(p) = &self.config.partial {
            rules.push(p);
        }
        rules
    }
}

/// A key of a signature's bytes: equal for byte-identical signatures (of
/// one method). A MinHash signature is keyed by its values alone, without
/// encoding it (`scratch` holds their bytes).
fn signature_key(sig: &Signature, scratch: &mut Vec<u8>) -> u128 {
    match sig {
        Signature::MinHash(m) => {
            scratch.clear();
            scratch.extend(m.values().iter().flat_map(|v| v.to_le_bytes()));
            xxhash_rust::xxh3::xxh3_128(scratch)
        }
        _ => xxhash_rust::xxh3::xxh3_128(&sig.to_bytes()),
    }
}

fn kept(d: u32) -> Assignment {
    Assignment {
        representative: d,
        duplicate_of: None,
        similarity: 1.0,
    }
}
