//! The deduplication engine of neardup: every decision about which page
//! duplicates which, written once, for every frontend.
//!
//! - [`Verifier`]: exact verification of a candidate pair on token shingles
//!   (Jaccard and the run rules), or the same rule on a small sample of them
//!   ([`VerifySketch`]).
//! - Candidate search per method ([`neardup_sketch::CandidateRule`], the
//!   method's own rule): LSH bands, permuted SimHash tables, inverted keys.
//! - Corpus-level rules, one file each: [`SiteTemplates`] (a pre-pass),
//!   [`CompositeCheck`] and [`PartialCopyCheck`] (refusals of verified
//!   pairs).
//! - Groups without chaining, in a [`KeepPolicy`]'s order.
//! - Two engines: the batch [`Dedup`] (a whole corpus, [`Dedup::run`]) and
//!   the [`Online`] first-seen engine (one document at a time, check then
//!   insert), which the service and Python's `Deduplicator` wrap.
//!
//! The CLI, the service, the Python bindings and the Spark kernels call
//! these; none of them decides anything itself.
//!
//! ```
//! use neardup_dedup::Dedup;
//!
//! let dedup = Dedup::new();
//! let texts = [
//!     "The council approved the new cycle lanes on the high street after a long debate on Monday evening.",
//!     "The council approved the new cycle lanes on the high street after a long debate on Monday night.",
//!     "A completely different story about the harbour festival and its fireworks, which drew large crowds.",
//! ];
//! let mut docs: Vec<_> = texts
//!     .iter()
//!     .enumerate()
//!     .map(|(i, t)| dedup.fingerprint_doc(format!("doc{i}"), None, t, &[]))
//!     .collect();
//! let outcome = dedup.run(&mut docs)?;
//! assert_eq!(outcome.groups.assignments[1].duplicate_of, Some(0));
//! assert_eq!(outcome.groups.assignments[2].duplicate_of, None);
//! # Ok::<(), neardup_dedup::Error>(())
//! ```

#![deny(missing_docs)]

mod batch;
mod builder;
mod dedup;
mod error;
mod explain;
mod host;
mod keep;
mod method;
mod online;
mod passages;
mod refusal;
mod rules;
mod shingle_set;
mod verify;
mod verify_sketch;

pub use batch::budget::{
    default_memory_budget, machine_memory, spilled_floor, DOCS_SHARE, SPILLED_BYTES_PER_DOC,
    SPILLED_FIXED_BYTES,
};
pub use batch::candidates::Spill;
pub use batch::components::{keep_first_by_component, ComponentEdge, DuplicateOf};
pub use batch::corpus::{held_bytes, BatchCorpus};
pub use batch::doc_table::DocTable;
pub use batch::fingerprinted::{shingles_of, Fingerprinted};
pub use batch::progress::{RunProgress, RunStep};
pub use batch::run::Outcome;
pub use batch::seq_spill::SeqSpill;
pub use batch::sig_spill::SigSpill;
pub use builder::DedupBuilder;
pub use dedup::{default_method, Dedup, DocFingerprint, Groups};
pub use error::{Error, ErrorKind};
pub use explain::{PairExplanation, PairVerdict};
pub use host::host_of;
pub use keep::{glob_match, KeepKey, KeepPolicy};
pub use method::{build_method, engine_description, method_name};
pub use online::candidate_keys::{CandidateKeys, KeyRule};
pub use online::decisions::{Judgement, OnlineCore};
pub use online::docs::{Kind, OnlineDocs};
pub use online::memory::{signature_key, MemoryDocs, Online, Role, Slot};
pub use online::postings_store::{FrozenPostings, MemoryPostings, PostingsStore};
pub use online::snapshot::{check_snapshot, FrozenCore, SnapshotRefusal, SNAPSHOT_VERSION};
pub use passages::{cut_chars, shared_passages, Mark, Segment};
pub use refusal::VerifyRefusal;
pub use rules::composite::{CompositeCheck, PostingFilter};
pub use rules::pair_rule::{PairRule, Refusal, RuleContext};
pub use rules::partial::PartialCopyCheck;
pub use rules::templates::{SiteTemplates, TemplateStats};
pub use verify::{
    compare as compare_shingles, verify_signatures, Comparison, ShingleSeq, Verifier,
};
pub use verify_sketch::VerifySketch;
