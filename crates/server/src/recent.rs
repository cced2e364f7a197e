//! The last verdicts the service gave, newest first: a bounded ring
//! buffer that the HTTP layer feeds with every verdict of
//! `POST /v1/documents`, `/v1/check` and `/v1/batch`, and `GET /v1/recent`
//! reads (the `/ui/` page's list of recent verdicts). Memory stays bounded
//! by the capacity and the longest id accepted.

use std::collections::VecDeque;
use std::sync::Mutex;

use crate::answers::Verdict;

/// How many verdicts are kept by default.
pub const DEFAULT_RECENT: usize = 100;

/// One verdict, as the list of recent verdicts keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecentVerdict {
    /// The verdict.
    pub verdict: Verdict,
    /// When it was given, in milliseconds since the Unix epoch.
    pub at_ms: u64,
}

/// The last `capacity` verdicts; cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct Recent {
    capacity: usize,
    ring: Mutex<VecDeque<RecentVerdict>>,
}

impl Recent {
    /// A list that keeps the last `capacity` verdicts (none for 0).
    pub fn new(capacity: usize) -> Recent {
        Recent {
            capacity,
            ring: Mutex::new(VecDeque::with_capacity(capacity.min(1024))),
        }
    }

    /// Adds a verdict given at `at_ms`, forgetting the oldest past the
    /// capacity.
    pub fn push(&self, verdict: &Verdict, at_ms: u64) {
        if self.capacity == 0 {
            return;
        }
        let mut ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        if ring.len() == self.capacity {
            ring.pop_back();
        }
        ring.push_front(RecentVerdict {
            verdict: verdict.clone(),
            at_ms,
        });
    }

    /// The newest `limit` verdicts, newest first.
    pub fn latest(&self, limit: usize) -> Vec<RecentVerdict> {
        let ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        ring.iter().take(limit).cloned().collect()
    }

    /// How many verdicts are kept at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(id: &str) -> Verdict {
        Verdict {
            id: id.into(),
            duplicate_of: None,
            similarity: None,
            stored: true,
            empty: false,
        }
    }

    #[test]
    fn keeps_the_newest_first_and_forgets_past_the_capacity() {
        let r = Recent::new(3);
        for (i, id) in ["a", "b", "c", "d"].iter().enumerate() {
            r.push(&verdict(id), i as u64);
        }
        let ids: Vec<String> = r.latest(10).into_iter().map(|v| v.verdict.id).collect();
        assert_eq!(ids, ["d", "c", "b"]);
        assert_eq!(r.latest(1)[0].at_ms, 3);
        assert_eq!(r.capacity(), 3);
    }

    #[test]
    fn capacity_zero_keeps_nothing() {
        let r = Recent::new(0);
        r.push(&verdict("a"), 1);
        assert!(r.latest(10).is_empty());
    }
}
