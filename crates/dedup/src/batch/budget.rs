//! The memory budget of a batch run, decided once for every frontend (the
//! CLI's `neardup dedup --memory`, Python's `neardup.dedup(memory=...)`,
//! the datatrove cluster stage): its default, the share of it the
//! documents may take in memory before they move to disk, and the least a
//! spilled run needs.

use std::path::{Path, PathBuf};

use crate::batch::corpus::BatchCorpus;
use crate::dedup::Dedup;
use crate::error::Error;

/// Bytes of memory a spilled run keeps per document beyond
/// [`SPILLED_FIXED_BYTES`], measured at 10^7 real-text documents (peak
/// 2,077 MiB: 191 bytes a document over the fixed part, 218 with it;
/// BENCHMARKS.md, "A memory budget"): what no budget goes below yet.
pub const SPILLED_BYTES_PER_DOC: u64 = 200;

/// Bytes a spilled run keeps whatever the corpus (the band sort's runs,
/// the readers' buffers, the heaps' reserve), about.
pub const SPILLED_FIXED_BYTES: u64 = 256 << 20;

/// Share of a memory budget the documents may take in memory before they
/// move to disk: the in-memory decision needs about a third more on top.
pub const DOCS_SHARE: f64 = 0.6;

/// Budget where the system does not say how much memory it has.
const FALLBACK_BUDGET: u64 = 8 << 30;

/// The machine's memory in bytes (`MemTotal` of `/proc/meminfo`), if the
/// system says.
pub fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    memtotal_of(&info)
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
fn memtotal_of(info: &str) -> Option<u64> {
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The default memory budget of a batch run: half of the machine's
/// memory, 8 GiB where the system does not say.
pub fn default_memory_budget() -> u64 {
    machine_memory().map_or(FALLBACK_BUDGET, |m| m / 2)
}

/// The least memory a spilled run of `docs` documents needs
/// ([`SPILLED_FIXED_BYTES`] plus [`SPILLED_BYTES_PER_DOC`] a document): a
/// budget below it is exceeded.
pub fn spilled_floor(docs: usize) -> u64 {
    SPILLED_FIXED_BYTES.saturating_add(SPILLED_BYTES_PER_DOC.saturating_mul(docs as u64))
}

impl BatchCorpus {
    /// A corpus for a run within a memory budget of `budget` bytes (the
    /// whole run's): its documents stay in memory until they take
    /// [`DOCS_SHARE`] of it, then move into `dir`.
    pub fn with_memory(dedup: &Dedup, budget: u64, dir: impl Into<PathBuf>) -> BatchCorpus {
        BatchCorpus::within(dedup, (budget as f64 * DOCS_SHARE) as u64, dir)
    }

    /// The corpus a batch run's options ask for: with `spill_dir` alone, on
    /// disk from the first document; otherwise within `memory` bytes
    /// ([`default_memory_budget`] when `None`, see [`Self::with_memory`]),
    /// moving into `spill_dir` or else the system's temporary directory.
    ///
    /// # Errors
    /// When `spill_dir` alone is given and the files cannot be created in
    /// it.
    pub fn for_run(
        dedup: &Dedup,
        memory: Option<u64>,
        spill_dir: Option<&Path>,
    ) -> Result<BatchCorpus, Error> {
        match (memory, spill_dir) {
            (None, Some(dir)) => BatchCorpus::spilled(dedup, dir),
            (memory, dir) => Ok(BatchCorpus::with_memory(
                dedup,
                memory.unwrap_or_else(default_memory_budget),
                dir.map_or_else(std::env::temp_dir, Path::to_path_buf),
            )),
        }
    }

    /// The least memory a spilled run of this corpus needs
    /// ([`spilled_floor`] of its length).
    pub fn spilled_floor(&self) -> u64 {
        spilled_floor(self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::fingerprinted::Fingerprinted;
    use crate::held_bytes;

    #[test]
    fn memtotal_is_read_in_kibibytes_and_nonsense_is_none() {
        let info = "MemTotal:       24594816 kB\nMemFree:  100 kB\n";
        assert_eq!(memtotal_of(info), Some(24_594_816 * 1024));
        assert_eq!(memtotal_of("MemFree: 1 kB\n"), None);
        assert_eq!(memtotal_of("MemTotal: lots kB\n"), None);
        assert_eq!(memtotal_of("MemTotal: 99999999999999999999 kB\n"), None);
        let budget = default_memory_budget();
        match machine_memory() {
            Some(m) => assert_eq!(budget, m / 2),
            None => assert_eq!(budget, FALLBACK_BUDGET),
        }
    }

    #[test]
    fn the_floor_is_the_fixed_part_plus_a_share_per_document() {
        assert_eq!(spilled_floor(0), SPILLED_FIXED_BYTES);
        assert_eq!(spilled_floor(1_000_000), SPILLED_FIXED_BYTES + 200_000_000);
        assert_eq!(spilled_floor(usize::MAX), u64::MAX);
    }

    #[test]
    fn documents_take_three_fifths_of_the_budget_before_they_spill() {
        let dir = neardup_testkit::TempDir::new("batch-budget");
        let dedup = Dedup::new();
        let doc = |i: usize| -> Fingerprinted {
            let text = format!("document number {i} of a small corpus about budgets");
            dedup.fingerprint_doc(format!("d{i}"), None, &text, &[])
        };
        let one = held_bytes(&doc(0));
        // A budget of 10 documents: 6 fit, the 7th spills.
        let mut corpus = BatchCorpus::with_memory(&dedup, one * 10, &*dir);
        for i in 0..6 {
            corpus.push(doc(i)).unwrap();
            assert!(!corpus.is_spilled(), "{i}");
        }
        corpus.push(doc(6)).unwrap();
        assert!(corpus.is_spilled());
        assert_eq!(corpus.spilled_floor(), spilled_floor(7));

        let spilled = BatchCorpus::for_run(&dedup, None, Some(&*dir)).unwrap();
        assert!(
            spilled.is_spilled(),
            "a spill directory alone spills at once"
        );
        let within = BatchCorpus::for_run(&dedup, Some(0), Some(&*dir)).unwrap();
        assert!(!within.is_spilled(), "a budget spills when it is passed");
        let default = BatchCorpus::for_run(&dedup, None, None).unwrap();
        assert!(!default.is_spilled());
        assert!(BatchCorpus::for_run(&dedup, None, Some("/nonexistent/x".as_ref())).is_err());
    }
}
