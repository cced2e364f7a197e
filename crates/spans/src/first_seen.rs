//! The streaming index of `--keep first`: every distinct key with the
//! document and unit of its first occurrence, looked up and filled in input
//! order, so a document's spans are known as soon as it arrives.

use std::collections::HashMap;

use crate::analysis::Analysis;
use crate::decide::KeyMatch;
use crate::hashmap::IdentityBuild;

/// Bytes of memory per slot of the table: key (8), document (4), unit (4),
/// one control byte, and the table's 1/8 of free slots.
pub const BYTES_PER_KEY: u64 = 20;

/// Where a key was first seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct First {
    pub doc: u32,
    pub unit: u32,
}

/// Distinct keys and their first occurrences.
#[derive(Debug, Default)]
pub(crate) struct FirstSeen {
    map: HashMap<u64, First, IdentityBuild>,
}

impl FirstSeen {
    /// Looks up and records the keys of document `doc`: a key is seen when
    /// an earlier unit has it (a repeat inside the same unit is not).
    pub fn observe(&mut self, doc: u32, a: &Analysis, out: &mut Vec<KeyMatch>) {
        out.clear();
        out.reserve(a.keys.len());
        for (&key, &unit) in a.keys.iter().zip(&a.key_unit) {
            let first = *self.map.entry(key).or_insert(First { doc, unit });
            out.push((first != First { doc, unit }).then_some(first.doc));
        }
    }

    /// Memory the table would take at its peak while adding `more` keys,
    /// in bytes: when it must grow, the old table and the new one (twice
    /// as large) are both held while the keys move over.
    pub fn memory_after(&self, more: usize) -> u64 {
        let needed = self.map.len() + more;
        let cap = self.map.capacity().max(1);
        let peak = if needed > cap {
            cap + needed.next_power_of_two().max(cap * 2)
        } else {
            cap
        };
        peak as u64 * BYTES_PER_KEY
    }

    /// Number of distinct keys.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Takes every key and its first occurrence out of the table.
    pub fn drain(&mut self) -> impl Iterator<Item = (u64, First)> + '_ {
        self.map.drain()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_occurrences_win() {
        let a = Analysis {
            units: vec![(0, 1), (2, 3)],
            keys: vec![5, 6, 6],
            key_unit: vec![0, 1, 1],
            ..Analysis::default()
        };
        let mut fs = FirstSeen::default();
        let mut out = Vec::new();
        fs.observe(0, &a, &mut out);
        // The repeat of 6 inside unit 1 is not a repeat of another unit.
        assert_eq!(out, [None, None, None]);
        fs.observe(3, &a, &mut out);
        assert_eq!(out, [Some(0), Some(0), Some(0)]);
        assert_eq!(fs.len(), 2);
        assert!(fs.memory_after(10) >= 12 * BYTES_PER_KEY);
    }
}
