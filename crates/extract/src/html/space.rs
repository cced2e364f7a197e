//! White space in the text between tags, for the pre-filter: each run
//! becomes one space, found eight bytes at a time.

use crate::prefilter::Output;

/// HTML white space.
pub(crate) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')
}

/// Write each run of white space of the text `html[from..to]` as one space.
/// The extractor collapses white space wherever it reads text and the tree
/// builder treats all of it alike: the tree is the same but for its length,
/// and the tokenizer meets one token where a line break and an indentation
/// were two. `copied` (at most `from`) is how far `html` was written.
pub(crate) fn collapse_space(
    html: &str,
    from: usize,
    to: usize,
    copied: &mut usize,
    out: &mut Output,
) {
    let bytes = html.as_bytes();
    let mut k = from;
    while k < to {
        // Eight bytes at a time up to the first one that may start a run
        // to rewrite (most text has single spaces only).
        if let Some(w) = bytes.get(k..k + 9).filter(|_| k + 9 <= to) {
            match run_start(w) {
                None => {
                    k += 8;
                    continue;
                }
                Some(p) => k += p,
            }
        }
        if !bytes.get(k).copied().is_some_and(is_space) {
            k += 1;
            continue;
        }
        let start = k;
        while k < to && bytes.get(k).copied().is_some_and(is_space) {
            k += 1;
        }
        if k - start > 1 || bytes.get(start) != Some(&b' ') {
            // Both ends sit at ASCII bytes, hence char boundaries.
            out.push_str(html.get(*copied..start).unwrap_or_default());
            out.push_str(" ");
            *copied = k;
        }
    }
}

/// Byte `0x01` in every lane of a word.
const LANES: u64 = 0x0101_0101_0101_0101;
/// The top bit of every lane.
const TOPS: u64 = 0x8080_8080_8080_8080;

/// The top bit of each byte of `x` that is below `n` (at most `0x80`).
/// Exact: no lane carries into the next.
fn below(x: u64, n: u8) -> u64 {
    let t = (x & !TOPS) + LANES * u64::from(0x80 - n);
    !(t | x) & TOPS
}

/// In the first 8 of the 9 bytes `w`, the first that may start a run of
/// white space other than a lone `' '`: a control byte (tab, line feed,
/// form feed, carriage return...) or a space before a byte up to `' '`.
/// `None` when there is none; a position found may still be nothing.
fn run_start(w: &[u8]) -> Option<usize> {
    let word = |at: usize| -> u64 {
        let mut b = [0u8; 8];
        if let Some(s) = w.get(at..at + 8) {
            b.copy_from_slice(s);
        }
        u64::from_le_bytes(b)
    };
    let (x, next) = (word(0), word(1));
    let space = below(x ^ (LANES * u64::from(b' ')), 1);
    let hits = below(x, b' ') | (space & below(next, b' ' + 1));
    (hits != 0).then(|| hits.trailing_zeros() as usize / 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first position of `w[..8]` where the byte-wise scan starts a
    /// run to rewrite, or a control byte.
    fn naive_run_start(w: &[u8]) -> Option<usize> {
        (0..8).find(|&i| w[i] < b' ' || (w[i] == b' ' && w[i + 1] <= b' '))
    }

    proptest::proptest! {
        #[test]
        fn word_scan_is_the_byte_scan(
            w in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::prelude::Just(b' '),
                    proptest::prelude::Just(b'\n'),
                    0u8..=255,
                ],
                9,
            ),
            n in 1u8..=0x80,
        ) {
            proptest::prop_assert_eq!(run_start(&w), naive_run_start(&w));
            let x = u64::from_le_bytes(w[..8].try_into().unwrap_or_default());
            let want = (0..8)
                .filter(|&i| w[i] < n)
                .fold(0u64, |m, i| m | 0x80 << (8 * i));
            proptest::prop_assert_eq!(below(x, n), want);
        }

        #[test]
        fn white_space_collapsing_matches_the_byte_scan(
            text in "[ a\t\n\r\x0b\x0cé]{0,40}",
        ) {
            let mut want = String::new();
            let mut chars = text.chars().peekable();
            while let Some(c) = chars.next() {
                if is_space_char(c) {
                    while chars.peek().copied().is_some_and(is_space_char) {
                        chars.next();
                    }
                    want.push(' ');
                } else {
                    want.push(c);
                }
            }
            let (mut out, mut copied) = (Output::with_capacity(0), 0);
            collapse_space(&text, 0, text.len(), &mut copied, &mut out);
            out.push_str(text.get(copied..).unwrap_or_default());
            proptest::prop_assert_eq!(out.written(), want);
        }
    }

    fn is_space_char(c: char) -> bool {
        u8::try_from(c).is_ok_and(is_space)
    }

    #[test]
    fn only_the_given_range_is_written() {
        let html = "ab  cd\n\n  efgh ijkl\tmnop qrstuvwx  z";
        let (mut out, mut copied) = (Output::with_capacity(0), 0);
        // Text is written up to the last run rewritten, `copied` says how
        // far: the rest is the caller's to copy.
        collapse_space(html, 0, 6, &mut copied, &mut out);
        assert_eq!((out.written().as_str(), copied), ("ab ", 4));
        collapse_space(html, 6, html.len(), &mut copied, &mut out);
        out.push_str(html.get(copied..).unwrap_or_default());
        assert_eq!(out.written().as_str(), "ab cd efgh ijkl mnop qrstuvwx z");
    }
}
