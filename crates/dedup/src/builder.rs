//! [`DedupBuilder`]: the batch engine's settings, each with its default.

use neardup_sketch::Method;

use crate::batch::candidates::Spill;
use crate::dedup::{Config, Dedup};
use crate::keep::KeepPolicy;
use crate::rules::composite::CompositeCheck;
use crate::rules::partial::PartialCopyCheck;
use crate::rules::templates::SiteTemplates;
use crate::verify::Verifier;

/// Configures a [`Dedup`].
#[derive(Debug, Clone)]
pub struct DedupBuilder {
    pub(crate) config: Config,
}

impl DedupBuilder {
    /// The fingerprinting method (default: [`crate::default_method`]).
    pub fn method(&mut self, method: Method) -> &mut DedupBuilder {
        self.config.method = method;
        self
    }

    /// The keep policy (default: [`KeepPolicy::First`]).
    pub fn keep(&mut self, keep: KeepPolicy) -> &mut DedupBuilder {
        self.config.keep = keep;
        self
    }

    /// Sorts MinHash band tables on disk (external sort, for corpora whose
    /// tables do not fit in memory); `None` (the default) keeps them in
    /// memory. The groups are the same either way.
    pub fn spill(&mut self, spill: Option<Spill>) -> &mut DedupBuilder {
        self.config.spill = spill;
        self
    }

    /// Where batch runs say how far their decision has gone (the step and
    /// its counts), for a progress line drawn by another thread; `None`
    /// (the default) counts nothing. The groups are the same either way.
    pub fn progress(
        &mut self,
        progress: Option<std::sync::Arc<crate::RunProgress>>,
    ) -> &mut DedupBuilder {
        self.config.progress = progress;
        self
    }

    /// Exact verification of candidate pairs (default: on, with
    /// [`Verifier::default`]); `None` verifies with signatures only, which
    /// keeps less in memory.
    pub fn verifier(&mut self, verifier: Option<Verifier>) -> &mut DedupBuilder {
        self.config.verifier = verifier;
        self
    }

    /// The site template pass of [`Dedup::strip_site_templates`]; `None`
    /// turns it off. Default: on, with [`SiteTemplates::default`].
    pub fn site_templates(&mut self, templates: Option<SiteTemplates>) -> &mut DedupBuilder {
        self.config.site_templates = templates;
        self
    }

    /// The composite page check of [`CompositeCheck`] on verified pairs
    /// (needs exact verification); `None` turns it off. Default: on, with
    /// [`CompositeCheck::default`].
    pub fn composite(&mut self, check: Option<CompositeCheck>) -> &mut DedupBuilder {
        self.config.composite = check;
        self
    }

    /// The partial copy check of [`PartialCopyCheck`] on verified pairs
    /// (needs exact verification); `None` turns it off. Default: on, with
    /// [`PartialCopyCheck::default`].
    pub fn partial_copies(&mut self, check: Option<PartialCopyCheck>) -> &mut DedupBuilder {
        self.config.partial = check;
        self
    }

    /// Reports partial reprints: pairs in which at least this share of one
    /// document's shingles is in the other although they are not
    /// near-duplicates (a truncated copy). Needs exact verification and a
    /// MinHash method. Default: off.
    pub fn containment(&mut self, threshold: Option<f64>) -> &mut DedupBuilder {
        self.config.containment = threshold;
        self
    }

    /// Builds the engine.
    /// The corpus-level rules (site templates, composite pages, partial
    /// copies) need every shingle: with a verification sketch ([`crate::VerifySketch`]) they
    /// are off.
    pub fn build(&self) -> Dedup {
        let mut config = self.config.clone();
        if config.verifier.is_some_and(|v| v.sketch.is_some()) {
            config.site_templates = None;
            config.composite = None;
            config.partial = None;
        }
        Dedup { config }
    }
}
