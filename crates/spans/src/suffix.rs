//! Repeated windows of a token stream by suffix array: for every position,
//! the earliest position whose window holds the same tokens, when the
//! window occurs more than once.
//!
//! A position's **window** is the shortest run of tokens from it that
//! counts (`min_tokens` tokens and `min_bytes` bytes; see
//! [`crate::substring`]); its length depends only on the tokens it holds.
//! The stream is the corpus's documents in input order, each followed by a
//! separator token of its own, so no common prefix crosses a document's
//! end and no window holds a separator.
//!
//! The suffix array and the LCP array come from libsais (SA-IS, linear
//! time, integer alphabets). The suffixes whose windows hold the same
//! tokens are consecutive in suffix order, joined by LCP values at least
//! the window's length: one pass over the suffix array finds each group,
//! its smallest position (the earliest occurrence: exact, whatever the
//! number of copies) and writes it to every member.
//!
//! Memory: 4 bytes per token for each of the stream, the suffix array, the
//! permuted LCP array (which becomes the result) and the LCP array: 16
//! bytes per token at the peak.

use libsais::SuffixArrayConstruction;

use crate::error::Error;

/// No earlier copy: a position whose window occurs once, or that has no
/// window (too close to its document's end).
pub(crate) const NONE: u32 = u32::MAX;

/// The window lengths of a stream.
pub(crate) enum Windows {
    /// Every window has this many tokens.
    Fixed(u32),
    /// Each position's window length (0: no window), one per token.
    PerPosition(Vec<u32>),
}

impl Windows {
    /// The window length at position `p`.
    #[inline]
    pub fn at(&self, p: usize) -> u32 {
        match self {
            Windows::Fixed(w) => *w,
            Windows::PerPosition(v) => v[p],
        }
    }
}

/// The earliest position holding the window of each position of `tokens`
/// (values below `alphabet`, each separator unique), or [`NONE`] where the
/// window occurs once. `windows` gives the window lengths; it is called
/// once the suffix array is built, with the stream (so that per-position
/// lengths can be computed in the stream's place).
pub(crate) fn earliest_copies(
    mut tokens: Vec<i32>,
    windows: impl FnOnce(Vec<i32>) -> Windows,
) -> Result<(Vec<u32>, Windows), Error> {
    let n = tokens.len();
    if n == 0 {
        return Ok((Vec::new(), windows(tokens)));
    }
    if n >= i32::MAX as usize {
        return Err(Error::option(format!(
            "{n} tokens in one suffix array: more than its limit of 2^31 - 1"
        )));
    }
    let fail = |what: &str, e: libsais::LibsaisError| {
        Error::corrupt(format!("{what} construction failed: {e:?}"))
    };
    let sa = SuffixArrayConstruction::for_text_mut(&mut tokens)
        .in_owned_buffer32()
        .single_threaded()
        .run()
        .map_err(|e| fail("suffix array", e))?;
    let with_plcp = sa
        .plcp_construction()
        .single_threaded()
        .run()
        .map_err(|e| fail("PLCP", e))?;
    let with_lcp = with_plcp
        .lcp_construction()
        .single_threaded()
        .run()
        .map_err(|e| fail("LCP", e))?;
    let (sa, lcp, plcp, _) = with_lcp.into_parts();
    let windows = windows(tokens);
    let mut first: Vec<u32> = plcp.into_iter().map(|_| NONE).collect();
    let mut k = 0;
    while k < n {
        // The group of sa[k]: the following suffixes sharing its window.
        let p = sa[k] as usize;
        let w = windows.at(p);
        let mut end = k + 1;
        if w > 0 {
            while end < n && lcp[end] as u32 >= w {
                end += 1;
            }
        }
        if end - k > 1 {
            let min = sa[k..end].iter().copied().min().unwrap_or(0) as u32;
            for &q in &sa[k..end] {
                first[q as usize] = min;
            }
        }
        k = end;
    }
    Ok((first, windows))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(t: &[i32], w: u32) {
        let first = earliest_copies(t.to_vec(), |_| Windows::Fixed(w))
            .unwrap()
            .0;
        for p in 0..t.len() {
            let fits = p + w as usize <= t.len();
            let same = |q: usize| {
                q + w as usize <= t.len() && t[q..q + w as usize] == t[p..p + w as usize]
            };
            let want = if !fits {
                NONE
            } else {
                let copies = (0..t.len()).filter(|&q| same(q)).count();
                if copies > 1 {
                    (0..t.len()).find(|&q| same(q)).unwrap() as u32
                } else {
                    NONE
                }
            };
            assert_eq!(first[p], want, "position {p} of {t:?}, window {w}");
        }
    }

    #[test]
    fn small_streams_match_brute_force() {
        check(&[1, 2, 1, 2, 1, 2, 0], 2);
        check(&[3, 3, 3, 3, 3, 3, 3, 3], 3);
        check(
            &[1, 2, 3, 9, 1, 2, 3, 4, 10, 2, 3, 4, 11, 1, 2, 3, 4, 12],
            3,
        );
        check(&[5], 1);
        check(&[], 1);
    }

    #[test]
    fn random_streams_match_brute_force() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for round in 0..300 {
            let n = 1 + round % 60;
            let k = 2 + (round % 4) as u64;
            let t: Vec<i32> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x % k) as i32
                })
                .collect();
            check(&t, 1 + (round % 5) as u32);
        }
    }

    #[test]
    fn per_position_windows() {
        // Windows of 2 tokens, but none at position 4.
        let t = [1, 2, 1, 2, 1, 2];
        let first = earliest_copies(t.to_vec(), |_| Windows::PerPosition(vec![2, 2, 2, 2, 0, 0]))
            .unwrap()
            .0;
        assert_eq!(first, [0, 1, 0, 1, NONE, NONE]);
    }
}
