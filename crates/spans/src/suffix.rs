//! Repeated runs of tokens by suffix array: for every position of a token
//! stream, the longest run starting there that also starts at an earlier
//! position (the *longest previous factor*), the earliest position that
//! run occurs at, and (for `--keep none`) the longest run starting there
//! that occurs anywhere else.
//!
//! The stream is the corpus's documents in input order, each followed by a
//! separator token of its own (so no common prefix crosses a document's
//! end). The suffix array and the LCP array come from libsais (SA-IS,
//! linear time, integer alphabets). From them:
//!
//! * **longest previous factor** `lpf[p]` and a source `src[p] < p` with
//!   that common prefix: for each suffix, the nearest suffixes before and
//!   after it in suffix order that start earlier in the text hold the
//!   longest common prefix with any earlier suffix; one stack pass finds
//!   both (Crochemore, Ilie and Smyth's method);
//! * **earliest occurrence** of the run `p..p + lpf[p]`: follow sources
//!   while the source's own previous factor is at least as long; each step
//!   lands on the earliest occurrence of a strictly longer-matched run, so
//!   the walk ends at the first position holding the run (exact, no
//!   sampling). Written over `src`, in text order, in place;
//! * **longest repeat** `max(lcp[k], lcp[k + 1])` at `sa[k]`, written over
//!   the permuted LCP array in place.
//!
//! Memory: 4 bytes per token for each of the stream, the suffix array, the
//! (permuted) LCP arrays and the sources: 20 bytes per token at the peak
//! (24 with `--keep none`), plus the stack of the previous-factor pass.

use libsais::SuffixArrayConstruction;

use crate::error::Error;

/// No source: a position whose run occurs nowhere earlier.
pub(crate) const NONE: u32 = u32::MAX;

/// What the suffix array tells about every position of a token stream.
#[derive(Debug)]
pub(crate) struct Repeats {
    /// Longest run from each position that also starts earlier.
    pub lpf: Vec<u32>,
    /// Earliest position of the run `p..p + lpf[p]` (for `lpf[p]` at least
    /// the `min_len` given), [`NONE`] when `lpf[p]` is 0.
    pub earliest: Vec<u32>,
    /// Longest run from each position that occurs anywhere else (only when
    /// asked for).
    pub longest: Option<Vec<u32>>,
}

/// Finds the repeats of `tokens` (values below `alphabet`; each separator
/// unique). `min_len`: the shortest run whose earliest occurrence is
/// needed. `longest`: whether to compute the longest repeat of each
/// position (`--keep none`).
pub(crate) fn repeats(tokens: &mut [i32], min_len: u32, longest: bool) -> Result<Repeats, Error> {
    let n = tokens.len();
    if n == 0 {
        return Ok(Repeats {
            lpf: Vec::new(),
            earliest: Vec::new(),
            longest: longest.then(Vec::new),
        });
    }
    if n >= i32::MAX as usize {
        return Err(Error::option(format!(
            "{n} tokens in one suffix array: more than its limit of 2^31 - 1"
        )));
    }
    let sa = SuffixArrayConstruction::for_text_mut(tokens)
        .in_owned_buffer32()
        .single_threaded()
        .run()
        .map_err(|e| Error::corrupt(format!("suffix array construction failed: {e:?}")))?;
    let with_plcp = sa
        .plcp_construction()
        .single_threaded()
        .run()
        .map_err(|e| Error::corrupt(format!("PLCP construction failed: {e:?}")))?;
    let with_lcp = with_plcp
        .lcp_construction()
        .single_threaded()
        .run()
        .map_err(|e| Error::corrupt(format!("LCP construction failed: {e:?}")))?;
    let (sa, lcp, plcp, _) = with_lcp.into_parts();
    let sa: Vec<u32> = into_u32(sa);
    let lcp: Vec<u32> = into_u32(lcp);
    let mut plcp: Vec<u32> = into_u32(plcp);
    let (mut lpf, longest) = if longest {
        // plcp[sa[k]] is lcp[k]; raise it to lcp[k + 1] where that is longer.
        for (k, &p) in sa.iter().enumerate() {
            let next = lcp.get(k + 1).copied().unwrap_or(0);
            let p = p as usize;
            plcp[p] = plcp[p].max(next);
        }
        (vec![0u32; n], Some(plcp))
    } else {
        (plcp, None)
    };
    let mut src = vec![NONE; n];
    previous_factors(&sa, &lcp, &mut lpf, &mut src);
    drop(sa);
    drop(lcp);
    earliest_in_place(&lpf, &mut src, min_len.max(1));
    Ok(Repeats {
        lpf,
        earliest: src,
        longest,
    })
}

fn into_u32(v: Vec<i32>) -> Vec<u32> {
    // Every value is a position or a length below 2^31.
    v.into_iter().map(|x| x as u32).collect()
}

/// The longest previous factor of each position and a source of it, from
/// the suffix array and its LCP array (`lcp[k]`: common prefix of
/// `sa[k - 1]` and `sa[k]`).
fn previous_factors(sa: &[u32], lcp: &[u32], lpf: &mut [u32], src: &mut [u32]) {
    // The stack holds suffixes in increasing text position, each with the
    // common prefix it shares with the one below it (its nearest earlier-
    // starting predecessor in suffix order).
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for (k, &cur) in sa.iter().enumerate() {
        // Common prefix of the stack's top (sa[k - 1]) and this suffix.
        let mut m = if k == 0 { 0 } else { lcp[k] };
        while let Some(&(top, top_prev)) = stack.last() {
            if top < cur {
                break;
            }
            stack.pop();
            // `cur` starts earlier and follows `top` in suffix order; the
            // entry below starts earlier and precedes it.
            let t = top as usize;
            if m > top_prev {
                lpf[t] = m;
                src[t] = cur;
            } else {
                lpf[t] = top_prev;
                src[t] = if top_prev == 0 {
                    NONE
                } else {
                    stack.last().map_or(NONE, |e| e.0)
                };
            }
            m = m.min(top_prev);
        }
        let prev = if stack.is_empty() { 0 } else { m };
        stack.push((cur, prev));
    }
    while let Some((top, top_prev)) = stack.pop() {
        let t = top as usize;
        lpf[t] = top_prev;
        src[t] = if top_prev == 0 {
            NONE
        } else {
            stack.last().map_or(NONE, |e| e.0)
        };
    }
}

/// Turns the sources into earliest occurrences, in text order: for each
/// position whose previous factor is at least `min_len`, the first
/// position holding its run.
fn earliest_in_place(lpf: &[u32], src: &mut [u32], min_len: u32) {
    for x in 0..lpf.len() {
        let l = lpf[x];
        if l < min_len {
            if l == 0 {
                src[x] = NONE;
            }
            continue;
        }
        // src[x] < x, and every position visited holds the run; its
        // `src` is already its earliest occurrence.
        let mut j = src[x] as usize;
        while lpf[j] >= l {
            j = src[j] as usize;
        }
        src[x] = j as u32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcp(t: &[i32], a: usize, b: usize) -> u32 {
        t[a..]
            .iter()
            .zip(&t[b..])
            .take_while(|(x, y)| x == y)
            .count() as u32
    }

    fn check(t: &[i32]) {
        let mut tokens = t.to_vec();
        let r = repeats(&mut tokens, 1, true).unwrap();
        assert_eq!(tokens, t, "the stream is given back");
        for p in 0..t.len() {
            let want = (0..p).map(|j| lcp(t, p, j)).max().unwrap_or(0);
            assert_eq!(r.lpf[p], want, "lpf at {p} of {t:?}");
            let longest = (0..t.len())
                .filter(|&j| j != p)
                .map(|j| lcp(t, p, j))
                .max()
                .unwrap_or(0);
            assert_eq!(r.longest.as_ref().unwrap()[p], longest, "longest at {p}");
            if want > 0 {
                let first = (0..p).find(|&j| lcp(t, p, j) >= want).unwrap();
                assert_eq!(r.earliest[p] as usize, first, "earliest at {p} of {t:?}");
            } else {
                assert_eq!(r.earliest[p], NONE);
            }
        }
    }

    #[test]
    fn small_streams_match_brute_force() {
        check(&[1, 2, 1, 2, 1, 2, 0]);
        check(&[3, 3, 3, 3, 3, 3, 3, 3]);
        check(&[1, 2, 3, 9, 1, 2, 3, 4, 10, 2, 3, 4, 11, 1, 2, 3, 4, 12]);
        check(&[5]);
        check(&[]);
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
            check(&t);
        }
    }
}
