//! Site templates: text a site repeats on unrelated pages.
//!
//! Extraction keeps some page furniture (a "key points" box left over from
//! another story, a feed of teasers under the article, an author's profile),
//! and the same furniture then stands around every article the site
//! publishes. Two copies of one article on two sites differ by their sites'
//! furniture, which can outweigh a short article and hide the copy.
//!
//! This pass finds that furniture from the corpus itself, as template
//! detection by frequent passages does: a passage of at least
//! [`SiteTemplates::min_passage`] tokens of a page is template text when
//! [`SiteTemplates::witnesses`] other pages of the same host carry it too,
//! and those pages are unrelated to the page and to each other (exact
//! Jaccard below [`SiteTemplates::max_similarity`], or each page with a
//! good share of text the other lacks, see [`SiteTemplates::min_own_text`]:
//! when the furniture outweighs the articles, two pages of different
//! articles are more alike than not). Requiring unrelated
//! witnesses keeps an article's own text safe when a host publishes it
//! several times (a copy, a partial reprint). Each page is compared with
//! its [`SiteTemplates::neighbours`] nearest pages of the same host on each
//! side in input order, so the pass costs a bounded number of comparisons
//! per page and its result does not depend on the number of threads.

use std::cell::RefCell;
use std::collections::HashMap;

use rayon::prelude::*;

use neardup_sketch::{Method, MinHash, Signature};

use crate::batch::fingerprinted::Fingerprinted;
use crate::dedup::Dedup;
use crate::verify::ShingleSeq;

/// Settings of the site template pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SiteTemplates {
    /// Pages of the same host compared with each page, on each side of it
    /// in input order.
    pub neighbours: usize,
    /// Shortest shared passage, in tokens, that can be template text.
    pub min_passage: usize,
    /// Pages at least this similar (exact Jaccard) are related: they never
    /// witness each other's templates.
    pub max_similarity: f64,
    /// Unrelated pages that must carry a passage for it to be template text.
    pub witnesses: usize,
    /// Pages at least [`SiteTemplates::max_similarity`] similar are still
    /// unrelated when each has at least this share of its shingles that the
    /// other lacks: two different articles under furniture that outweighs
    /// them. A copy, a partial reprint or a merged page lies (almost) all
    /// inside another page, so it stays related to it.
    pub min_own_text: f64,
}

impl Default for SiteTemplates {
    fn default() -> SiteTemplates {
        SiteTemplates {
            neighbours: 8,
            min_passage: 10,
            max_similarity: 0.3,
            witnesses: 3,
            min_own_text: 0.2,
        }
    }
}

/// What the template pass removed from a document: one flag per shingle
/// (empty when nothing was).
pub(crate) type Removed = Vec<bool>;

impl SiteTemplates {
    /// For each document, which of its shingles belong to its site's
    /// template text (empty for most). `hosts[i]` is document `i`'s host,
    /// `seqs[i]` its shingles (k-grams of `k` tokens).
    pub(crate) fn find(
        &self,
        hosts: &[Option<&str>],
        seqs: &[Option<&ShingleSeq>],
        k: usize,
    ) -> Vec<Removed> {
        let mut by_host: HashMap<&str, Vec<u32>> = HashMap::new();
        for (i, (h, s)) in hosts.iter().zip(seqs).enumerate() {
            if let (Some(h), Some(s)) = (h, s) {
                if !s.is_empty() {
                    by_host.entry(h).or_default().push(i as u32);
                }
            }
        }
        let mut hosts: Vec<Vec<u32>> = by_host
            .into_values()
            .filter(|d| d.len() > self.witnesses)
            .collect();
        hosts.sort_unstable_by_key(|d| d[0]);
        let found: Vec<Vec<(u32, Removed)>> = hosts
            .par_iter()
            .map(|docs| {
                let seqs: Vec<&ShingleSeq> =
                    docs.iter().filter_map(|&d| seqs[d as usize]).collect();
                HostPass::new(self, &seqs, k)
                    .run()
                    .into_iter()
                    .map(|(local, removed)| (docs[local], removed))
                    .collect()
            })
            .collect();
        let mut removed = vec![Removed::new(); seqs.len()];
        for (d, r) in found.into_iter().flatten() {
            removed[d as usize] = r;
        }
        removed
    }
}

/// The pages of one host.
struct HostPass<'a> {
    cfg: &'a SiteTemplates,
    seqs: &'a [&'a ShingleSeq],
    sets: Vec<Vec<u32>>,
    k: usize,
    similar: HashMap<(u32, u32), bool>,
}

impl<'a> HostPass<'a> {
    fn new(cfg: &'a SiteTemplates, seqs: &'a [&'a ShingleSeq], k: usize) -> HostPass<'a> {
        let sets = seqs.iter().map(|s| s.sorted_set()).collect();
        HostPass {
            cfg,
            seqs,
            sets,
            k: k.max(1),
            similar: HashMap::new(),
        }
    }

    /// Whether pages `a` and `b` are related (cached).
    fn related(&mut self, a: u32, b: u32) -> bool {
        let key = (a.min(b), a.max(b));
        if let Some(&r) = self.similar.get(&key) {
            return r;
        }
        let (x, y) = (&self.sets[a as usize], &self.sets[b as usize]);
        let shared = neardup_sketch::intersection_size(x, y) as f64;
        let union = (x.len() + y.len()) as f64 - shared;
        // The larger share of a page that the other page has too.
        let inside = (shared / x.len().max(1) as f64).max(shared / y.len().max(1) as f64);
        let r = shared / union.max(1.0) >= self.cfg.max_similarity
            && 1.0 - inside < self.cfg.min_own_text;
        self.similar.insert(key, r);
        r
    }

    fn neighbours(&self, i: usize) -> Vec<u32> {
        let n = self.seqs.len();
        let reach = self.cfg.neighbours.min(n - 1);
        let mut out: Vec<u32> = (1..=reach)
            .flat_map(|d| [(i + n - d) % n, (i + d) % n])
            .map(|j| j as u32)
            .collect();
        out.sort_unstable();
        out.dedup();
        out.retain(|&j| j as usize != i);
        out
    }

    fn run(mut self) -> Vec<(usize, Removed)> {
        let mut out = Vec::new();
        for i in 0..self.seqs.len() {
            let removed = self.template_of(i);
            if !removed.is_empty() {
                out.push((i, removed));
            }
        }
        out
    }

    /// The template shingle positions of page `i`.
    fn template_of(&mut self, i: usize) -> Removed {
        let seq = self.seqs[i].hashes();
        let mut witnesses: Vec<Vec<u32>> = vec![Vec::new(); seq.len()];
        for v in self.neighbours(i) {
            if self.related(i as u32, v) {
                continue;
            }
            let other = &self.sets[v as usize];
            let mut p = 0;
            while p < seq.len() {
                let mut q = p;
                while q < seq.len() && other.binary_search(&seq[q]).is_ok() {
                    q += 1;
                }
                if q == p {
                    p += 1;
                    continue;
                }
                if q - p + self.k > self.cfg.min_passage {
                    for w in &mut witnesses[p..q] {
                        w.push(v);
                    }
                }
                p = q;
            }
        }
        let mut verdicts: HashMap<Vec<u32>, bool> = HashMap::new();
        let mut template = vec![false; seq.len()];
        for (p, w) in witnesses.iter().enumerate() {
            if w.len() < self.cfg.witnesses {
                continue;
            }
            let ok = match verdicts.get(w) {
                Some(&ok) => ok,
                None => {
                    let ok = self.unrelated_among(w);
                    verdicts.insert(w.clone(), ok);
                    ok
                }
            };
            if ok {
                // The passage's tokens go, and with them every shingle
                // that touches one of them.
                let lo = p.saturating_sub(self.k - 1);
                let hi = (p + self.k).min(seq.len());
                template[lo..hi].iter_mut().for_each(|t| *t = true);
            }
        }
        if template.contains(&true) {
            template
        } else {
            Removed::new()
        }
    }

    /// Whether `cfg.witnesses` pages of `w` are pairwise unrelated (picked
    /// greedily in host order).
    fn unrelated_among(&mut self, w: &[u32]) -> bool {
        let mut chosen: Vec<u32> = Vec::with_capacity(self.cfg.witnesses);
        for &v in w {
            let fits = chosen.iter().all(|&c| !self.related(v, c));
            if fits {
                chosen.push(v);
                if chosen.len() >= self.cfg.witnesses {
                    return true;
                }
            }
        }
        false
    }
}

/// What [`Dedup::strip_site_templates`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TemplateStats {
    /// Documents that had template text.
    pub documents: usize,
    /// Shingles removed from them.
    pub shingles: usize,
}

impl Dedup {
    /// The pass's settings, shingle length and MinHash, when the pass
    /// applies: on, with exact verification and a MinHash method.
    fn template_setup(&self) -> Option<(&SiteTemplates, usize, &MinHash)> {
        match (self.site_templates(), self.verifier(), self.method()) {
            (Some(cfg), Some(v), Method::MinHash(m)) => Some((cfg, v.k, m)),
            _ => None,
        }
    }

    /// Removes site template text (see [`SiteTemplates`]) from the
    /// documents' shingles and recomputes their signatures, before
    /// [`Dedup::cluster_exact`]. Runs only with exact verification and a
    /// MinHash method over the verifier's token shingles (the default
    /// method), whose signatures can be recomputed from the shingles; does
    /// nothing otherwise. A document that is template text through and
    /// through is left as it was.
    pub fn strip_site_templates(&self, docs: &mut [Fingerprinted]) -> TemplateStats {
        let mut stats = TemplateStats::default();
        let Some((cfg, k, m)) = self.template_setup() else {
            return stats;
        };
        // The method must be the one the sequences were made for.
        let sample = docs
            .iter()
            .find_map(|d| Some((d.signature.as_ref()?, d.shingles.as_ref()?)));
        match sample {
            Some((sig, seq)) if *sig == resketch(m, seq) => {}
            _ => return stats,
        }
        let hosts: Vec<Option<String>> = docs
            .iter()
            .map(|d| crate::host::host_of(d.url.as_deref().unwrap_or(&d.id)))
            .collect();
        let host_refs: Vec<Option<&str>> = hosts.iter().map(Option::as_deref).collect();
        let seqs: Vec<Option<&ShingleSeq>> = docs.iter().map(|d| d.shingles.as_ref()).collect();
        let removed = cfg.find(&host_refs, &seqs, k);
        for (d, r) in docs.iter_mut().zip(removed) {
            let Some((seq, sig)) = d.shingles.as_ref().and_then(|s| strip(m, k, s, &r)) else {
                continue;
            };
            stats.documents += 1;
            stats.shingles += d.shingles.as_ref().map_or(0, ShingleSeq::len) - seq.len();
            d.signature = Some(sig);
            d.shingles = Some(seq);
        }
        stats
    }

    /// The signature the pass would recompute from `seq`, when it applies:
    /// a document's own signature is this one when the method is the one
    /// the sequences were made for.
    pub(crate) fn template_resketch(&self, seq: &ShingleSeq) -> Option<Signature> {
        self.template_setup().map(|(_, _, m)| resketch(m, seq))
    }

    /// The pass on the pages of one host, given in input order (what a
    /// distributed run does per host group, with the same result as
    /// [`Dedup::strip_site_templates`] on the whole corpus): for each page
    /// with template text, its shingles and signature without it; `None`
    /// for a page left as it was (and for all when the pass does not apply).
    pub fn strip_host_templates(
        &self,
        seqs: &[&ShingleSeq],
    ) -> Vec<Option<(ShingleSeq, Signature)>> {
        let mut out = vec![None; seqs.len()];
        let Some((cfg, k, m)) = self.template_setup() else {
            return out;
        };
        let pages: Vec<usize> = (0..seqs.len()).filter(|&i| !seqs[i].is_empty()).collect();
        if pages.len() <= cfg.witnesses {
            return out;
        }
        let host: Vec<&ShingleSeq> = pages.iter().map(|&i| seqs[i]).collect();
        for (local, removed) in HostPass::new(cfg, &host, k).run() {
            let i = pages[local];
            out[i] = strip(m, k, seqs[i], &removed);
        }
        out
    }
}

/// The MinHash signature of a shingle sequence: the same as the
/// signature of its text (MinHash reads the high 32 bits of each 64-bit
/// shingle hash, which the sequence keeps).
pub(crate) fn resketch(m: &MinHash, seq: &ShingleSeq) -> Signature {
    thread_local! {
        /// The widened hashes (the thread's buffer, not one per document).
        static WIDE: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
    }
    WIDE.with(|wide| {
        let mut wide = wide.borrow_mut();
        wide.clear();
        wide.extend(seq.hashes().iter().map(|&h| u64::from(h) << 32));
        let sig = Signature::MinHash(m.signature_of_shingles(&wide));
        shrink_large(&mut wide);
        sig
    })
}

/// Lets go of a thread's buffer after a very long document.
pub(crate) fn shrink_large<T>(buf: &mut Vec<T>) {
    if buf.capacity() > 1 << 20 {
        *buf = Vec::new();
    }
}

/// `seq` without its `removed` shingles, and its new signature; `None` when
/// nothing, or everything, would go.
fn strip(
    m: &MinHash,
    k: usize,
    seq: &ShingleSeq,
    removed: &[bool],
) -> Option<(ShingleSeq, Signature)> {
    let n = removed.iter().filter(|&&d| d).count();
    if n == 0 || n >= seq.len() {
        return None;
    }
    let kept = seq.without(removed, k);
    let sig = resketch(m, &kept);
    Some((kept, sig))
}
