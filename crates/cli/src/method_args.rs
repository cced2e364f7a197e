//! Choosing and tuning a fingerprinting method from command-line options,
//! shared by `dedup`, `compare` and `eval`.

use anyhow::{anyhow, bail, Result};
use clap::Args;
use neardup::sketch::{Method, Sketcher};
use neardup::text::{CjkSegmentation, Segmenter, ShingleUnit};
use neardup::{CompositeCheck, Dedup, DedupBuilder, PartialCopyCheck, SiteTemplates, Verifier};

/// Options that pick a method and set its decision rule.
#[derive(Debug, Clone, Args)]
pub struct MethodArgs {
    /// Fingerprinting method: `default` (MinHash over word 3-grams with
    /// exact verification, the best measured), or one of the literature's
    /// methods with its paper's parameters: minhash, minhash-oph, simhash,
    /// simhash128, exact, supershingle, imatch, long-sentence, feature-code,
    /// paragraph.
    #[arg(long, default_value = "default")]
    pub method: String,
    /// Similarity threshold of the method's decision (minhash, minhash-oph,
    /// long-sentence: Jaccard; feature-code: share of matched codes;
    /// paragraph: share of matched paragraphs).
    #[arg(long, value_name = "T")]
    pub threshold: Option<f64>,
    /// Largest Hamming distance of a near-duplicate (simhash, paragraph).
    #[arg(long, value_name = "K")]
    pub max_distance: Option<u32>,
    /// With the default method: decide on signatures only, without exact
    /// verification (keeps 4 bytes less per token in memory).
    #[arg(long)]
    pub no_exact: bool,
    /// With the default method: the longest run of tokens one document may
    /// have that the other lacks (default 160); longer means a page glued to
    /// other content, not a copy.
    #[arg(long, value_name = "N")]
    pub max_foreign_run: Option<usize>,
    /// With the default method: the longest such run at the head of a
    /// document (default 60).
    #[arg(long, value_name = "N")]
    pub max_head_run: Option<usize>,
    /// With the default method: keep text that a site repeats on unrelated
    /// pages (by default such site template text, found by comparing each
    /// page with its neighbours of the same host, is left out of the
    /// comparison).
    #[arg(long)]
    pub no_site_templates: bool,
    /// With the default method: accept a pair that passes verification even
    /// when one page has a run of text that is a good share of a third,
    /// unrelated document (by default such a page is taken for one glued
    /// together from two articles, and is not a copy of either).
    #[arg(long)]
    pub no_composite_check: bool,
    /// With the default method: accept a pair in which one page lacks a
    /// large part of the other that the other's near-duplicates confirm
    /// as its text (by default such a page is a partial copy, not a
    /// duplicate). Batch only: the service has no such check.
    #[arg(long)]
    pub no_partial_check: bool,
    /// How runs of Chinese, Japanese and Korean characters are tokenized:
    /// `chars` (one token per character; the classic methods' default),
    /// `bigrams` (overlapping character bigrams; the default method's
    /// default) or `jieba` (dictionary words for Han runs; needs a build
    /// with the cargo feature `jieba`). Bigrams and words apply to default,
    /// minhash, minhash-oph and supershingle.
    #[arg(long, value_name = "MODE")]
    pub cjk: Option<CjkSegmentation>,
    /// Shingle length in tokens (default, minhash, minhash-oph,
    /// supershingle); the default method uses 3, the others 5.
    #[arg(long, value_name = "K")]
    pub shingle: Option<usize>,
}

impl MethodArgs {
    /// The method these options describe.
    pub fn method(&self) -> Result<Method> {
        self.method_at(
            self.threshold,
            self.max_distance,
            self.segmenter()?.as_ref(),
        )
    }

    /// The segmenter of `--cjk` (loads its dictionary: make it once);
    /// `None` without `--cjk`: the method's own.
    pub fn segmenter(&self) -> Result<Option<Segmenter>> {
        let Some(mode) = self.cjk else {
            return Ok(None);
        };
        Segmenter::new(mode).map(Some).map_err(|e| match e {
            neardup::text::SegmentationError::NotCompiledIn(_) => {
                anyhow!("--cjk {mode}: {e} (e.g. cargo build --release --features {mode})")
            }
            _ => anyhow!("--cjk {mode}: {e}"),
        })
    }

    /// The method with this threshold and distance (a sweep point), the
    /// shingle length of `--shingle` and tokens cut by `segmenter` (the
    /// method's own when `None`).
    pub fn method_at(
        &self,
        threshold: Option<f64>,
        max_distance: Option<u32>,
        segmenter: Option<&Segmenter>,
    ) -> Result<Method> {
        let mut method = build_method(&self.method, threshold, max_distance)?;
        if let Some(k) = self.shingle {
            if k == 0 {
                bail!("--shingle must be at least 1");
            }
            match &mut method {
                Method::MinHash(m) => {
                    m.shingles(ShingleUnit::Token, k);
                }
                Method::OphMinHash(m) => {
                    m.shingles(ShingleUnit::Token, k);
                }
                Method::SuperShingle(m) => {
                    m.shingles(ShingleUnit::Token, k);
                }
                other => bail!("--shingle does not apply to {}", other.kind()),
            }
        }
        if let Some(segmenter) = segmenter {
            method
                .set_segmenter(segmenter.clone())
                .map_err(|e| anyhow!("--cjk {}: {e}", segmenter.mode()))?;
        }
        Ok(method)
    }

    /// Exact verification for the `default` method (`None` for the others,
    /// which decide with their paper's rule on signatures).
    pub fn verifier(&self) -> Option<Verifier> {
        (self.method == "default" && !self.no_exact).then(|| {
            let mut v = Verifier::default();
            if let Some(t) = self.threshold {
                v.threshold = t;
            }
            if let Some(r) = self.max_foreign_run {
                v.max_foreign_run = r;
            }
            if let Some(r) = self.max_head_run {
                v.max_head_run = r;
            }
            if let Some(k) = self.shingle {
                v.k = k;
            }
            v
        })
    }

    /// The site template pass of these options (`None` when off).
    pub fn site_templates(&self) -> Option<SiteTemplates> {
        (!self.no_site_templates).then(SiteTemplates::default)
    }

    /// The partial copy check of these options (`None` when off).
    pub fn partial_copies(&self) -> Option<PartialCopyCheck> {
        (!self.no_partial_check).then(PartialCopyCheck::default)
    }

    /// The composite page check of these options (`None` when off).
    pub fn composite(&self) -> Option<CompositeCheck> {
        (!self.no_composite_check).then(CompositeCheck::default)
    }

    /// An engine builder for `method` with every decision option of these
    /// arguments (exact verification, the corpus-level rules): what
    /// `dedup`, `eval --sweep` and `compare` share.
    pub fn dedup_builder(&self, method: Method) -> DedupBuilder {
        let mut b = Dedup::builder();
        b.method(method)
            .verifier(self.verifier())
            .site_templates(self.site_templates())
            .composite(self.composite())
            .partial_copies(self.partial_copies());
        b
    }
}

/// A method by name with an optional threshold and Hamming distance.
fn build_method(name: &str, threshold: Option<f64>, max_distance: Option<u32>) -> Result<Method> {
    Ok(neardup::build_method(name, threshold, max_distance)?)
}
