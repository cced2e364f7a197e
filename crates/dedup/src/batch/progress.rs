//! [`RunProgress`]: how far a batch run's decision has gone, for a progress
//! line drawn by another thread (the engine prints nothing itself). The
//! run sets the step it is in and, for the long steps, how much of it is
//! done; a frontend reads both whenever it likes.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// A step of a batch run's decision, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[repr(u8)]
pub enum RunStep {
    /// The site template pass (per host).
    Templates,
    /// Identical signatures keyed and collapsed (per document).
    Keys,
    /// Candidate pairs from the method's index (the band tables).
    Candidates,
    /// Candidate pairs verified (per pair).
    Verifying,
    /// The corpus-level rules on verified pairs.
    Rules,
    /// The chaining-free groups in keep order.
    Grouping,
}

impl RunStep {
    /// Every step, in declaration order (their `u8` values).
    const ALL: [RunStep; 6] = [
        RunStep::Templates,
        RunStep::Keys,
        RunStep::Candidates,
        RunStep::Verifying,
        RunStep::Rules,
        RunStep::Grouping,
    ];

    /// What the step does, in a few words.
    pub fn describe(self) -> &'static str {
        match self {
            RunStep::Templates => "site templates",
            RunStep::Keys => "identical signatures",
            RunStep::Candidates => "candidate pairs",
            RunStep::Verifying => "verifying pairs",
            RunStep::Rules => "corpus rules",
            RunStep::Grouping => "grouping",
        }
    }
}

/// How far a batch run's decision has gone: shared between the run (which
/// updates it) and a frontend (which reads it); see
/// [`DedupBuilder::progress`](crate::DedupBuilder::progress).
#[derive(Debug, Default)]
pub struct RunProgress {
    /// 0 before the first step, else the step's index plus one.
    step: AtomicU8,
    done: AtomicU64,
    total: AtomicU64,
}

impl RunProgress {
    /// A progress before any step.
    pub fn new() -> RunProgress {
        RunProgress::default()
    }

    /// The step the run is in, `None` before the first.
    pub fn step(&self) -> Option<RunStep> {
        let s = self.step.load(Ordering::Relaxed) as usize;
        s.checked_sub(1).and_then(|i| RunStep::ALL.get(i).copied())
    }

    /// Units of the step done and in all (documents, pairs); a total of 0
    /// when the step does not count.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }

    /// Enters `step`, of `total` units (0: not counted).
    pub(crate) fn enter(&self, step: RunStep, total: u64) {
        self.done.store(0, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
        self.step.store(step as u8 + 1, Ordering::Relaxed);
    }

    /// Counts `n` more units of the step done.
    pub(crate) fn advance(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
    }
}

/// Enters `step` on `progress`, if there is one.
pub(crate) fn enter(progress: Option<&RunProgress>, step: RunStep, total: u64) {
    if let Some(p) = progress {
        p.enter(step, total);
    }
}

/// Counts `n` more units on `progress`, if there is one.
pub(crate) fn advance(progress: Option<&RunProgress>, n: u64) {
    if let Some(p) = progress {
        p.advance(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_and_counts_are_read_as_set() {
        let p = RunProgress::new();
        assert_eq!(p.step(), None);
        for step in RunStep::ALL {
            p.enter(step, 10);
            assert_eq!(p.step(), Some(step));
            assert_eq!(p.counts(), (0, 10));
            p.advance(3);
            p.advance(4);
            assert_eq!(p.counts(), (7, 10));
            assert!(!step.describe().is_empty());
        }
        enter(None, RunStep::Keys, 1);
        advance(None, 1);
    }

    #[test]
    fn a_run_goes_through_its_steps_and_decides_the_same() {
        use crate::{BatchCorpus, Dedup};
        use std::sync::Arc;
        let dir = neardup_testkit::TempDir::new("run-progress");
        let progress = Arc::new(RunProgress::new());
        let watched = Dedup::builder().progress(Some(progress.clone())).build();
        let plain = Dedup::new();
        let text = |i: usize| {
            format!(
                "a story about the river and the town number {} told twice over",
                i / 2
            )
        };
        let mut runs = Vec::new();
        for dedup in [&watched, &plain] {
            let mut corpus = BatchCorpus::spilled(dedup, &*dir).unwrap();
            for i in 0..40 {
                let url = Some(format!("http://h{}.example/{i}", i % 3));
                corpus
                    .push(dedup.fingerprint_doc(format!("d{i}"), url, &text(i), &[]))
                    .unwrap();
            }
            runs.push(corpus.run(dedup).unwrap().groups.assignments);
        }
        assert_eq!(runs[0], runs[1]);
        assert!(runs[0].iter().filter(|a| a.duplicate_of.is_some()).count() >= 20);
        assert_eq!(progress.step(), Some(RunStep::Grouping));
    }
}
