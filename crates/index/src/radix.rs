//! LSD radix sort of `(key, id)` entries by key, used to build the band
//! tables. Stable: entries created in id order keep ids ascending within a
//! key, which is the order [`slice::sort_unstable`] gives on the tuples.

/// Digit width in bits; 6 passes cover 64-bit keys.
const BITS: u32 = 11;
const BUCKETS: usize = 1 << BITS;

/// Sorts `v` by key (stably). Below a few thousand entries, a comparison
/// sort is faster and is used instead.
pub(crate) fn sort_entries(v: &mut Vec<(u64, u32)>) {
    if v.len() < 4096 {
        v.sort_unstable();
        return;
    }
    let mut buf: Vec<(u64, u32)> = vec![(0, 0); v.len()];
    let mut shift = 0;
    while shift < 64 {
        let mut count = [0usize; BUCKETS];
        for e in v.iter() {
            count[digit(e.0, shift)] += 1;
        }
        // A digit shared by every entry leaves the order unchanged.
        if count.contains(&v.len()) {
            shift += BITS;
            continue;
        }
        let mut sum = 0;
        for c in count.iter_mut() {
            let here = *c;
            *c = sum;
            sum += here;
        }
        for &e in v.iter() {
            let d = digit(e.0, shift);
            buf[count[d]] = e;
            count[d] += 1;
        }
        std::mem::swap(v, &mut buf);
        shift += BITS;
    }
}

fn digit(key: u64, shift: u32) -> usize {
    ((key >> shift) as usize) & (BUCKETS - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_comparison_sort() {
        let mut x = 0x1234_5678u64;
        for n in [0usize, 1, 100, 5000, 20_000] {
            let v: Vec<(u64, u32)> = (0..n as u32)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // Few distinct keys in some runs, to exercise stability.
                    (if n == 20_000 { x % 50 } else { x }, i)
                })
                .collect();
            let mut a = v.clone();
            let mut b = v;
            sort_entries(&mut a);
            b.sort_unstable();
            assert_eq!(a, b);
        }
    }
}
