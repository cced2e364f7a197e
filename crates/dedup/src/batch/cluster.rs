//! Batch groups without chaining: [`Dedup::cluster_exact`] over the
//! documents' signatures and shingle sequences (in memory, or spilled for
//! [`Dedup::run_spilled`]): identical signatures collapsed, the method's
//! candidate pairs, exact verification, the corpus-level rules, then
//! groups in the keep policy's order.

use std::collections::HashMap;
use std::sync::Mutex;

use rayon::prelude::*;

use neardup_index::{Assignment, Containment};
use neardup_sketch::Signature;

use crate::batch::candidates::{candidate_pairs, low_similarity_pairs, SigSource};
use crate::batch::components::decision_clusterer;
use crate::batch::progress::{self, RunProgress, RunStep};
use crate::batch::run_spilled::{in_blocks, load_for_rules, SeqLookup, Seqs, Sigs};
use crate::dedup::{Dedup, DocFingerprint, Groups};
use crate::error::Error;
use crate::keep::KeepKey;
use crate::rules::pair_rule::{PairRule, Refusal, RuleContext};
use crate::verify::{containment, verify_signatures, ShingleSeq};

impl Dedup {
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
        let order = self.config.keep.order_by(docs.len(), |d| {
            let doc = &docs[d as usize];
            KeepKey {
                url: doc.url,
                text_len: doc.text_len,
            }
        });
        self.cluster_with(order, Seqs::Memory(shingles), Sigs::Memory(docs))
    }

    /// [`Dedup::cluster_exact`] with the sequences and the signatures in
    /// memory or spilled, the documents visited in `order` (the keep
    /// policy's, a permutation of `0..n`).
    pub(crate) fn cluster_with(
        &self,
        order: Vec<u32>,
        mut seqs_of: Seqs<'_>,
        mut sigs_of: Sigs<'_>,
    ) -> Result<Groups, Error> {
        let n = order.len();
        let progress = self.config.progress.as_deref();
        progress::enter(progress, RunStep::Keys, n as u64);
        let shingles: &[Option<&ShingleSeq>] = match &seqs_of {
            Seqs::Memory(s) => s,
            Seqs::Spilled(_) => &[],
        };
        let has_shingles = match &seqs_of {
            Seqs::Memory(s) => !s.is_empty(),
            Seqs::Spilled(_) => true,
        };
        // Collapse identical signatures onto their first document in order.
        // Each key's documents in keep order, by a parallel sort (a hash
        // map of a million keys is a cache miss per document, on one
        // thread): the first of each run is the one the others copy.
        let mut keyed = keyed_signatures(&order, &mut sigs_of, progress)?;
        keyed.par_sort_unstable();
        let with_text = keyed.len();
        // Per document: the first document (in order) of its signature,
        // NONE without one.
        let mut copy_of: Vec<u32> = vec![NONE; n];
        for run in keyed.chunk_by(|x, y| x.0 == y.0) {
            let first = run[0].2;
            for &(_, _, d) in run {
                copy_of[d as usize] = first;
            }
        }
        drop(keyed);
        // Distinct signatures, by document index; their visiting order.
        let distinct: Vec<u32> = (0..n as u32)
            .filter(|&d| copy_of[d as usize] == d)
            .collect();
        let mut slot = vec![NONE; n];
        for (k, &d) in distinct.iter().enumerate() {
            slot[d as usize] = k as u32;
        }
        let sigs: Vec<&Signature> = match &sigs_of {
            Sigs::Memory(docs) => distinct
                .iter()
                .filter_map(|&d| docs[d as usize].signature)
                .collect(),
            Sigs::Spilled(_) => Vec::new(),
        };
        let distinct_order: Vec<u32> = order
            .iter()
            .filter(|&&d| copy_of[d as usize] == d)
            .map(|&d| slot[d as usize])
            .collect();
        drop(order);
        let method = &self.config.method;
        progress::enter(progress, RunStep::Candidates, 0);
        let (candidates, spilled_runs) = candidate_pairs(
            method,
            source(&mut sigs_of, &sigs, &distinct, &slot),
            self.config.spill.as_ref(),
        )?;
        // Spilled: the signatures of the pairs not verified exactly.
        let has_seq = |d: u32| match &seqs_of {
            Seqs::Memory(s) => s.get(d as usize).is_some_and(Option::is_some),
            Seqs::Spilled(spill) => spill.has(d),
        };
        let by_signature: HashMap<u32, Signature> = match &mut sigs_of {
            Sigs::Memory(_) => HashMap::new(),
            Sigs::Spilled(spill) => {
                let exact = self.config.verifier.is_some();
                let wanted: Vec<u32> = candidates
                    .iter()
                    .map(|&(a, b)| (distinct[a as usize], distinct[b as usize]))
                    .filter(|&(a, b)| !(exact && has_seq(a) && has_seq(b)))
                    .flat_map(|(a, b)| [a, b])
                    .collect();
                spill.load(&wanted)?
            }
        };
        let sig_of = |k: u32| match sigs.get(k as usize) {
            Some(&s) => Some(s),
            None => by_signature.get(&distinct[k as usize]),
        };
        let mut clusterer = decision_clusterer()?;
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
        progress::enter(progress, RunStep::Verifying, candidates.len() as u64);
        let verify = |pairs: &[(u32, u32)], get: &SeqLookup<'_>| {
            let verified = clusterer.verify(pairs, |a, b| {
                if let (Some(v), Some(x), Some(y)) = (&self.config.verifier, get(a), get(b)) {
                    let c = v.check(x, y)?;
                    for (rule, list) in rules.iter().zip(&suspects) {
                        if rule.is_suspect(&c) {
                            list.lock().unwrap_or_else(|e| e.into_inner()).push((a, b));
                        }
                    }
                    return Some(c.jaccard);
                }
                verify_signatures(method, sig_of(a)?, sig_of(b)?)
                    .ok()
                    .flatten()
            });
            progress::advance(progress, pairs.len() as u64);
            verified
        };
        let mut verified = match &mut seqs_of {
            Seqs::Memory(_) => verify(&candidates, &exact),
            Seqs::Spilled(spill) => in_blocks(spill, &distinct, &candidates, verify)?,
        };
        let suspects: Vec<Vec<(u32, u32)>> = suspects
            .into_iter()
            .map(|list| list.into_inner().unwrap_or_else(|e| e.into_inner()))
            .collect();
        progress::enter(progress, RunStep::Rules, 0);
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
        // The rules' sequences are not needed past them: the clustering
        // below is the run's peak.
        drop(seqs);
        drop(for_rules);
        drop(refused_so_far);
        let contained_pairs = match self.config.containment {
            Some(t) if has_shingles => {
                clusterer.set_containment_threshold(t)?;
                let low = low_similarity_pairs(
                    source(&mut sigs_of, &sigs, &distinct, &slot),
                    (t / 4.0).max(0.05),
                )?;
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
        progress::enter(progress, RunStep::Grouping, 0);
        let clustering = clusterer.cluster(
            distinct.len(),
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
        let assignments = (0..n)
            .map(|d| match copy_of[d] {
                NONE => kept(d as u32),
                r => {
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
pub(crate) fn signature_key(sig: &Signature, scratch: &mut Vec<u8>) -> u128 {
    match sig {
        Signature::MinHash(m) => {
            let values = m.values();
            scratch.clear();
            scratch.resize(values.len() * 4, 0);
            for (bytes, v) in scratch.chunks_exact_mut(4).zip(values) {
                bytes.copy_from_slice(&v.to_le_bytes());
            }
            xxhash_rust::xxh3::xxh3_128(scratch)
        }
        _ => xxhash_rust::xxh3::xxh3_128(&sig.to_bytes()),
    }
}

/// `(key, rank, document)` of every document with a signature: the key of
/// its signature ([`signature_key`]) and its rank in `order`. In parallel
/// over the documents in memory, or over the spilled signatures a million
/// at a time.
fn keyed_signatures(
    order: &[u32],
    sigs_of: &mut Sigs<'_>,
    progress: Option<&RunProgress>,
) -> Result<Vec<(u128, u32, u32)>, Error> {
    let mut rank_of = vec![0u32; order.len()];
    for (rank, &d) in order.iter().enumerate() {
        rank_of[d as usize] = rank as u32;
    }
    match sigs_of {
        Sigs::Memory(docs) => Ok(docs
            .par_iter()
            .zip(rank_of.par_iter())
            .enumerate()
            .filter_map(|(d, (doc, &rank))| {
                let key = signature_key(doc.signature?, &mut Vec::new());
                Some((key, rank, d as u32))
            })
            .collect()),
        Sigs::Spilled(spill) => {
            let mut keyed = Vec::new();
            let n = order.len() as u32;
            for start in (0..n).step_by(KEY_CHUNK) {
                let chunk: Vec<u32> = (start..n.min(start + KEY_CHUNK as u32)).collect();
                let keys = spill.keys(&chunk)?;
                keyed.extend(keys.into_iter().map(|(d, k)| (k, rank_of[d as usize], d)));
                progress::advance(progress, chunk.len() as u64);
            }
            Ok(keyed)
        }
    }
}

/// Spilled signatures keyed at once by [`keyed_signatures`].
const KEY_CHUNK: usize = 1 << 20;

/// A document without a signature, in per-document arrays.
const NONE: u32 = u32::MAX;

/// The signatures of the distinct documents for a candidate pass: `sigs`
/// in memory, or the spilled ones of `distinct`.
fn source<'s, 'a>(
    sigs_of: &'s mut Sigs<'_>,
    sigs: &'s [&'a Signature],
    distinct: &'s [u32],
    slot: &'s [u32],
) -> SigSource<'s, 'a> {
    match sigs_of {
        Sigs::Memory(_) => SigSource::Memory(sigs),
        Sigs::Spilled(spill) => SigSource::Spilled {
            spill,
            docs: distinct,
            positions: slot,
        },
    }
}

fn kept(d: u32) -> Assignment {
    Assignment {
        representative: d,
        duplicate_of: None,
        similarity: 1.0,
    }
}
