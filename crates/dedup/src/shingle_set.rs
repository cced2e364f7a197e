//! The distinct shingles of a document as a small hash set, for exact
//! comparisons: filling one is linear in the document's length, where
//! sorting a copy is not, and a lookup is one probe or two instead of a
//! binary search. Each verifying thread keeps two sets and refills them
//! for every pair, so a comparison allocates nothing.

use std::cell::RefCell;

/// A set of shingle hashes: open addressing with linear probing in a table
/// at most half full; 0 marks an empty slot, and the hash 0 itself is kept
/// aside.
#[derive(Debug, Default)]
pub(crate) struct ShingleSet {
    slots: Vec<u32>,
    /// Right shift that turns a multiplied hash into a slot index.
    shift: u32,
    /// Distinct hashes held.
    len: usize,
    has_zero: bool,
}

impl ShingleSet {
    /// Makes the set hold exactly the distinct values of `seq`, reusing its
    /// table.
    pub(crate) fn fill(&mut self, seq: &[u32]) {
        self.reset(seq.len());
        for &h in seq {
            self.insert(h);
        }
    }

    /// Empties the set, with a table for up to `n` distinct values (kept
    /// at most half full).
    pub(crate) fn reset(&mut self, n: usize) {
        let size = (n * 2).next_power_of_two().max(16);
        self.slots.clear();
        self.slots.resize(size, 0);
        self.shift = 32 - size.trailing_zeros();
        self.len = 0;
        self.has_zero = false;
    }

    fn slot(&self, h: u32) -> usize {
        // Shingle hashes are well mixed already; the multiplication only
        // guards the index against structured ones.
        (h.wrapping_mul(0x9E37_79B9) >> self.shift) as usize
    }

    /// Adds `h` (the set must have been [`ShingleSet::reset`] for at least
    /// as many values as it is given); whether it was new.
    #[inline]
    pub(crate) fn insert(&mut self, h: u32) -> bool {
        if h == 0 {
            let new = !self.has_zero;
            self.len += usize::from(new);
            self.has_zero = true;
            return new;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.slot(h);
        loop {
            match self.slots[i] {
                0 => {
                    self.slots[i] = h;
                    self.len += 1;
                    return true;
                }
                x if x == h => return false,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Whether `h` is in the set.
    #[inline]
    pub(crate) fn contains(&self, h: u32) -> bool {
        if h == 0 {
            return self.has_zero;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.slot(h);
        loop {
            match self.slots[i] {
                0 => return false,
                x if x == h => return true,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// The number of distinct hashes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// How many hashes of this set `other` holds too.
    #[cfg(test)]
    pub(crate) fn shared_with(&self, other: &ShingleSet) -> usize {
        let zero = usize::from(self.has_zero && other.has_zero);
        zero + self
            .slots
            .iter()
            .filter(|&&h| h != 0 && other.contains(h))
            .count()
    }
}

thread_local! {
    /// Two sets per thread, refilled for each comparison.
    static PAIR: RefCell<(ShingleSet, ShingleSet)> = RefCell::default();
}

/// Runs `f` with two empty sets (the thread's scratch sets, which `f`
/// fills): a comparison allocates nothing.
pub(crate) fn with_sets<R>(f: impl FnOnce(&mut ShingleSet, &mut ShingleSet) -> R) -> R {
    PAIR.with(|pair| match pair.try_borrow_mut() {
        Ok(mut pair) => {
            let (sa, sb) = &mut *pair;
            f(sa, sb)
        }
        // Re-entered on this thread (f compared another pair): own sets.
        Err(_) => f(&mut ShingleSet::default(), &mut ShingleSet::default()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sorted(v: &[u32]) -> Vec<u32> {
        let mut s = v.to_vec();
        s.sort_unstable();
        s.dedup();
        s
    }

    proptest! {
        #[test]
        fn the_set_is_the_sorted_distinct_values(
            a in proptest::collection::vec(prop_oneof![0u32..40, any::<u32>()], 0..300),
            b in proptest::collection::vec(prop_oneof![0u32..40, any::<u32>()], 0..300),
            probes in proptest::collection::vec(0u32..60, 0..50),
        ) {
            let (sa, sb) = (sorted(&a), sorted(&b));
            with_sets(|x, y| {
                x.fill(&a);
                y.fill(&b);
                let x: &ShingleSet = x;
                let y: &ShingleSet = y;
                prop_assert_eq!(x.len(), sa.len());
                prop_assert_eq!(y.len(), sb.len());
                for &p in probes.iter().chain(&a).chain(&b) {
                    prop_assert_eq!(x.contains(p), sa.binary_search(&p).is_ok());
                    prop_assert_eq!(y.contains(p), sb.binary_search(&p).is_ok());
                }
                let shared = sa.iter().filter(|h| sb.binary_search(h).is_ok()).count();
                prop_assert_eq!(x.shared_with(y), shared);
                prop_assert_eq!(y.shared_with(x), shared);
                Ok(())
            })?;
        }
    }

    #[test]
    fn refilling_forgets_the_last_values() {
        let mut s = ShingleSet::default();
        s.fill(&[0, 5, 5, 9]);
        assert_eq!(s.len(), 3);
        s.fill(&[7]);
        assert!(s.contains(7) && !s.contains(5) && !s.contains(0));
        assert_eq!(s.len(), 1);
        s.fill(&[]);
        assert_eq!(s.len(), 0);
    }
}
