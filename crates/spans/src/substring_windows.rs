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

use std::collections::VecDeque;

use crate::analysis::Analysis;
use crate::options::SpanFinder;

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

/// The window rule token by token, for one document at a time: a
/// position's window ends at the first token where it holds `min_tokens`
/// tokens and more than `min_bytes` bytes (each token's normalized bytes
/// plus one). Only the tokens of the window being cut are kept (4 bytes
/// each), not the document's.
#[derive(Debug, Default)]
pub(crate) struct Cutter {
    min_tokens: u32,
    min_bytes: u64,
    /// Bytes of the tokens from the first position without its window yet.
    pending: VecDeque<u32>,
    /// Their bytes plus one each, summed.
    acc: u64,
    /// Position in the document of the first of them.
    first: u32,
}

impl Cutter {
    /// A cutter of windows of `min_tokens` tokens and `min_bytes` bytes.
    pub fn new(min_tokens: u32, min_bytes: u64) -> Cutter {
        Cutter {
            min_tokens,
            min_bytes,
            ..Cutter::default()
        }
    }

    /// Takes the document's next token (its normalized bytes) and calls
    /// `emit(position, length)` for each window that ends with it, in order
    /// of position.
    #[inline]
    pub fn push(&mut self, bytes: u32, mut emit: impl FnMut(u32, u32)) {
        self.pending.push_back(bytes);
        self.acc += u64::from(bytes) + 1;
        while self.pending.len() as u64 >= u64::from(self.min_tokens) && self.acc > self.min_bytes {
            emit(self.first, self.pending.len() as u32);
            let b = self.pending.pop_front().unwrap_or(0);
            self.acc -= u64::from(b) + 1;
            self.first += 1;
        }
    }

    /// Ends the document: returns how many of its last positions have no
    /// window (their document ends first), and starts the next document.
    pub fn end(&mut self) -> usize {
        let left = self.pending.len();
        self.pending.clear();
        if self.pending.capacity() > KEPT_SCRATCH_TOKENS {
            self.pending = VecDeque::new();
        }
        self.acc = 0;
        self.first = 0;
        left
    }
}

/// Tokens of scratch kept between documents (a longer window's are freed).
const KEPT_SCRATCH_TOKENS: usize = 1 << 16;

/// One document's windows with their fingerprints, token by token: the
/// prefix hashes of the tokens of the window being cut are kept (16 bytes
/// each, with the cutter's 4), and the powers of the bases up to the
/// longest window, not the document's tokens.
#[derive(Debug, Default)]
pub(crate) struct WindowStream {
    cutter: Cutter,
    /// Both prefix hashes before each pending token.
    before: VecDeque<[u64; 2]>,
    /// Both prefix hashes of the tokens so far.
    head: [u64; 2],
    powers: [Vec<u64>; 2],
}

impl WindowStream {
    /// A stream of the windows of `min_tokens` tokens and `min_bytes`
    /// bytes.
    pub fn new(min_tokens: u32, min_bytes: u64) -> WindowStream {
        WindowStream {
            cutter: Cutter::new(min_tokens, min_bytes),
            powers: [vec![1], vec![1]],
            ..WindowStream::default()
        }
    }

    /// Takes the document's next token (hash, normalized bytes) and calls
    /// `emit` with each window that ends with it, in order of position.
    #[inline]
    pub fn push(&mut self, hash: u64, bytes: u32, mut emit: impl FnMut(Window)) {
        self.before.push_back(self.head);
        for (k, base) in BASES.iter().enumerate() {
            self.head[k] = addmod(mulmod(self.head[k], *base), hash % PRIME + 1);
        }
        let (before, head, powers) = (&mut self.before, self.head, &mut self.powers);
        self.cutter.push(bytes, |position, length| {
            let from = before.pop_front().unwrap_or_default();
            let w = length as usize;
            let mut fp = [0u64; 2];
            for (k, base) in BASES.iter().enumerate() {
                let pow = &mut powers[k];
                while pow.len() <= w {
                    let last = pow[pow.len() - 1];
                    pow.push(mulmod(last, *base));
                }
                fp[k] = addmod(head[k], PRIME - mulmod(from[k], pow[w]));
            }
            emit(Window {
                position,
                length,
                fingerprint: (fp[0], fp[1]),
            });
        });
    }

    /// Ends the document and starts the next.
    pub fn end(&mut self) {
        self.cutter.end();
        self.before.clear();
        if self.before.capacity() > KEPT_SCRATCH_TOKENS {
            self.before = VecDeque::new();
        }
        self.head = [0, 0];
    }
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
        let mut stream = WindowStream::new(c.min_tokens as u32, c.min_bytes);
        let mut out = Vec::new();
        // (A long document's tokens left in its text are not here.)
        for t in &a.tokens {
            stream.push(t.key, t.bytes, |w| out.push(w));
        }
        out
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
        let fingerprints = |w: u32| {
            let mut s = WindowStream::new(w, 0);
            let mut out = Vec::new();
            for h in [1u64, 2, 3, 1, 2, 3, 4, u64::MAX] {
                s.push(h, 1, |w| out.push((w.position, w.length, w.fingerprint)));
            }
            s.end();
            out
        };
        let three = fingerprints(3);
        assert_eq!(three.len(), 6);
        assert!(three
            .iter()
            .enumerate()
            .all(|(p, w)| w.0 == p as u32 && w.1 == 3));
        assert_eq!(three[0].2, three[3].2);
        assert_ne!(three[0].2, three[1].2);
        let four = fingerprints(4);
        assert_ne!(four[0].2, four[3].2);
    }

    #[test]
    fn the_cutter_ends_each_window_at_its_first_token_with_enough_bytes() {
        // Bytes 4, 4, 2, 10; windows of at least one token and more than 8
        // bytes (each token counts one more).
        let mut c = Cutter::new(1, 8);
        let mut got = Vec::new();
        for b in [4, 4, 2, 10] {
            c.push(b, |p, w| got.push((p, w)));
        }
        assert_eq!(got, [(0, 2), (1, 3), (2, 2), (3, 1)]);
        assert_eq!(c.end(), 0);
        // Windows of three tokens: the last two positions have none, and
        // the next document starts at position 0.
        let mut c = Cutter::new(3, 0);
        got.clear();
        for b in [1, 1, 1, 1] {
            c.push(b, |p, w| got.push((p, w)));
        }
        assert_eq!(got, [(0, 3), (1, 3)]);
        assert_eq!(c.end(), 2);
        c.push(1, |p, w| got.push((p, w)));
        c.push(1, |p, w| got.push((p, w)));
        c.push(1, |p, w| got.push((p, w)));
        assert_eq!(got[2..], [(0, 3)]);
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
