//! Exact set measures over shingle sets, used by `neardup compare` and to
//! verify candidate pairs: Jaccard similarity and containment both ways.

use neardup_text::{ShingleUnit, Shingler};

use crate::doc::DocText;

/// Size of the intersection of two sorted, duplicate-free slices.
pub fn intersection_size<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Jaccard similarity `|A∩B| / |A∪B|` of two sorted, duplicate-free slices;
/// 1 when both are empty.
///
/// ```
/// assert_eq!(neardup_sketch::jaccard(&[1, 2, 3], &[2, 3, 4]), 0.5);
/// ```
pub fn jaccard<T: Ord>(a: &[T], b: &[T]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let i = intersection_size(a, b);
    i as f64 / (a.len() + b.len() - i) as f64
}

/// Containment `|A∩B| / |A|` (how much of A is in B) of two sorted,
/// duplicate-free slices; 1 when A is empty.
///
/// ```
/// assert_eq!(neardup_sketch::containment(&[1, 2], &[1, 2, 3, 4]), 1.0);
/// assert_eq!(neardup_sketch::containment(&[1, 2, 3, 4], &[1, 2]), 0.5);
/// ```
pub fn containment<T: Ord>(a: &[T], b: &[T]) -> f64 {
    if a.is_empty() {
        return 1.0;
    }
    intersection_size(a, b) as f64 / a.len() as f64
}

/// Exact overlap of two documents' shingle sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overlap {
    /// Number of distinct shingles of A.
    pub shingles_a: usize,
    /// Number of distinct shingles of B.
    pub shingles_b: usize,
    /// Number of shingles in both.
    pub shared: usize,
    /// Jaccard similarity.
    pub jaccard: f64,
    /// Share of A's shingles found in B.
    pub a_in_b: f64,
    /// Share of B's shingles found in A.
    pub b_in_a: f64,
}

/// Exact Jaccard and containment of two documents over `k`-grams of `unit`
/// (texts normalized first).
///
/// ```
/// use neardup_sketch::{overlap, DocText};
/// use neardup_text::ShingleUnit;
/// let a = DocText::from_text("one two three four");
/// let b = DocText::from_text("one two three four five six");
/// let o = overlap(&a, &b, ShingleUnit::Token, 2);
/// assert_eq!((o.shared, o.a_in_b, o.b_in_a), (3, 1.0, 0.6));
/// ```
pub fn overlap(a: &DocText<'_>, b: &DocText<'_>, unit: ShingleUnit, k: usize) -> Overlap {
    let mut s = Shingler::new(unit, k);
    let sa = s.shingle_set(&a.normalized());
    let sb = s.shingle_set(&b.normalized());
    let shared = intersection_size(&sa, &sb);
    Overlap {
        shingles_a: sa.len(),
        shingles_b: sb.len(),
        shared,
        jaccard: jaccard(&sa, &sb),
        a_in_b: containment(&sa, &sb),
        b_in_a: containment(&sb, &sa),
    }
}
