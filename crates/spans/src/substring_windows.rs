//! One document's windows for the substring unit, and their fingerprints:
//! what the disk path of a run ([`crate::substring_spill`]) writes and
//! what a driver that shuffles windows by fingerprint (Spark) keys them by.
//!
//! A position's **window** is the shortest run of tokens from it that
//! counts (`min_tokens` tokens and `min_bytes` bytes, see
//! [`crate::substring`]); positions too close to the document's end have
//! none. A window's **fingerprint** is two polynomial hashes modulo the
//! Mersenne prime 2^61 - 1 with fixed bases over its tokens' 64-bit
//! hashes, from prefix hashes (any window length costs the same). Windows
//! holding the same tokens have the same fingerprint. Two different
//! windows of `w` tokens share the first hash with probability about
//! `w / 2^61`, both with about `w^2 / 2^122`; with the window length also
//! compared, the chance of any collision among the pairs of 10^10 windows
//! of 50 tokens is below 10^-13 for both hashes (the disk path keeps 32
//! bits of the second: below 10^-8 for 10^9 windows).

use crate::analysis::Analysis;
use crate::options::SpanFinder;
use crate::substring_docs::window_lengths;

const PRIME: u64 = (1 << 61) - 1;
const BASES: [u64; 2] = [0x1F2E_3D4C_5B6A_7988 % PRIME, 0x0DEC_AF0C_0FFE_E123 % PRIME];

#[inline]
fn mulmod(a: u64, b: u64) -> u64 {
    let x = u128::from(a) * u128::from(b);
    let lo = (x as u64) & PRIME;
    let hi = (x >> 61) as u64;
    let s = lo + hi;
    if s >= PRIME {
        s - PRIME
    } else {
        s
    }
}

#[inline]
fn addmod(a: u64, b: u64) -> u64 {
    let s = a + b;
    if s >= PRIME {
        s - PRIME
    } else {
        s
    }
}

/// Prefix hashes of one document's tokens.
#[derive(Default)]
pub(crate) struct Prefix {
    prefix: [Vec<u64>; 2],
    powers: [Vec<u64>; 2],
}

impl Prefix {
    /// Takes the tokens' hashes of one document.
    pub fn fill(&mut self, hashes: &[u64]) {
        for (k, base) in BASES.iter().enumerate() {
            let (pre, pow) = (&mut self.prefix[k], &mut self.powers[k]);
            pre.clear();
            pre.push(0);
            if pow.is_empty() {
                pow.push(1);
            }
            while pow.len() <= hashes.len() {
                let last = pow[pow.len() - 1];
                pow.push(mulmod(last, *base));
            }
            let mut h = 0u64;
            for &t in hashes {
                h = addmod(mulmod(h, *base), t % PRIME + 1);
                pre.push(h);
            }
        }
    }

    /// The fingerprint of the `w` tokens at `p`: both hashes, each below
    /// 2^61.
    #[inline]
    pub fn fingerprint(&self, p: usize, w: usize) -> (u64, u64) {
        let h = |k: usize| {
            let pre = &self.prefix[k];
            addmod(pre[p + w], PRIME - mulmod(pre[p], self.powers[k][w]))
        };
        (h(0), h(1))
    }
}

/// The window length at each token of one document (0: no window), from
/// its tokens' normalized bytes, into `out`.
pub(crate) fn document_lengths(bytes: &[u32], min_tokens: u32, min_bytes: u64, out: &mut Vec<u32>) {
    out.clear();
    let n = bytes.len();
    if min_bytes == 0 {
        let m = min_tokens as usize;
        out.extend((0..n).map(|p| if p + m <= n { m as u32 } else { 0 }));
        return;
    }
    let stream: Vec<i32> = (0..n as i32).chain([-1]).collect();
    let lens = |t: i32| (t >= 0).then(|| bytes[t as usize]);
    *out = window_lengths(stream, lens, min_tokens, min_bytes);
    out.pop();
}

/// One window of a document (the substring unit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Index of its first token in the document.
    pub position: u32,
    /// Its tokens.
    pub length: u32,
    /// Its fingerprint (module docs): equal for windows holding the same
    /// tokens.
    pub fingerprint: (u64, u64),
}

impl SpanFinder {
    /// The windows of a document analysed with the substring unit, in
    /// order of position: a window occurs elsewhere when another window
    /// has the same fingerprint and length. Their copies, decided over the
    /// corpus, give the document's spans with
    /// [`substring_spans`](Self::substring_spans). Empty for other units.
    pub fn substring_windows(&self, a: &Analysis) -> Vec<Window> {
        let c = &self.config;
        let hashes: Vec<u64> = a.tokens.iter().map(|t| t.key).collect();
        let bytes: Vec<u32> = a.tokens.iter().map(|t| t.bytes).collect();
        let mut lengths = Vec::new();
        document_lengths(&bytes, c.min_tokens as u32, c.min_bytes, &mut lengths);
        let mut prefix = Prefix::default();
        prefix.fill(&hashes);
        lengths
            .iter()
            .enumerate()
            .filter(|&(_, &w)| w > 0)
            .map(|(p, &w)| Window {
                position: p as u32,
                length: w,
                fingerprint: prefix.fingerprint(p, w as usize),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Unit;

    #[test]
    fn mulmod_is_modular_multiplication() {
        for &(a, b) in &[
            (3u64, 5u64),
            (PRIME - 1, PRIME - 1),
            (1 << 60, 12345),
            (0, 7),
        ] {
            let want = (u128::from(a) * u128::from(b) % u128::from(PRIME)) as u64;
            assert_eq!(mulmod(a, b), want);
        }
    }

    #[test]
    fn equal_windows_have_equal_fingerprints() {
        let mut pre = Prefix::default();
        pre.fill(&[1u64, 2, 3, 1, 2, 3, 4, u64::MAX]);
        assert_eq!(pre.fingerprint(0, 3), pre.fingerprint(3, 3));
        assert_ne!(pre.fingerprint(0, 3), pre.fingerprint(1, 3));
        assert_ne!(pre.fingerprint(0, 4), pre.fingerprint(3, 4));
    }

    #[test]
    fn windows_of_a_document() {
        let f = SpanFinder::builder()
            .unit(Unit::Substring)
            .min_tokens(3)
            .build()
            .unwrap();
        let a = f.analyze("One two three. ONE, two three four", None);
        let w = f.substring_windows(&a);
        assert_eq!(
            w.iter().map(|w| w.position).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4]
        );
        assert!(w.iter().all(|w| w.length == 3));
        assert_eq!(w[0].fingerprint, w[3].fingerprint);
        assert_ne!(w[0].fingerprint, w[1].fingerprint);
        // With a byte minimum, windows grow to hold it and the last go.
        let f = SpanFinder::builder()
            .unit(Unit::Substring)
            .min_tokens(1)
            .min_bytes(8)
            .build()
            .unwrap();
        let w = f.substring_windows(&f.analyze("aaaa bbbb cc dddddddddd", None));
        let got: Vec<(u32, u32)> = w.iter().map(|w| (w.position, w.length)).collect();
        assert_eq!(got, [(0, 2), (1, 3), (2, 2), (3, 1)]);
        let other = SpanFinder::new();
        assert!(other
            .substring_windows(&other.analyze("a b c", None))
            .is_empty());
    }
}
