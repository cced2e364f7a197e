//! ASCII runs inside text that is not pure ASCII (the words between curly
//! quotes and accented letters), written to the normalized output eight
//! bytes at a time where nothing needs collapsing.
//!
//! The rules are those of the ASCII-only path of [`crate::normalize`]:
//! separators (whitespace and controls; with [`Punctuation::Strip`] also
//! punctuation) collapse to one space, never at the start of the output,
//! and a space is pending after a separator until a kept byte follows.
//! Prose is mostly words separated by single spaces: an 8-byte block with
//! no control character, no two spaces in a row (and, when punctuation is
//! stripped, no punctuation) is its own output (lowercased), except that a
//! space in its last byte stays pending. Other blocks go through the byte
//! loop, which has no data-dependent branch per byte. Pure ASCII text takes
//! this path too ([`crate::normalize`]).

use crate::ascii::in_range;
use crate::normalize::{
    NormalizeOptions, Punctuation, IDENTITY, IS_SEPARATOR_KEEP, IS_SEPARATOR_STRIP, LOWER,
};

/// Appends the normalized form of the ASCII bytes `run` to `buf`, whose
/// output for this call starts at `start`; `pending` is whether a space is
/// pending before `run`, and after it on return.
pub(crate) fn write_ascii_run(
    buf: &mut Vec<u8>,
    start: usize,
    pending: &mut bool,
    options: NormalizeOptions,
    run: &[u8],
) {
    if run.is_empty() {
        return;
    }
    let strip = options.punctuation == Punctuation::Strip;
    let sep = if strip {
        &IS_SEPARATOR_STRIP
    } else {
        &IS_SEPARATOR_KEEP
    };
    let map = if options.lowercase { &LOWER } else { &IDENTITY };
    let mut n = buf.len();
    // At most one space more than bytes (a space is only written after a
    // separator, which itself writes nothing), and a block writes all its
    // eight bytes before the index moves back over a pending space.
    buf.resize(n + run.len() + 9, 0);
    let out = &mut buf[..];
    let mut p = *pending;
    let slow = |out: &mut [u8], bytes: &[u8], n: &mut usize, p: &mut bool| {
        for &b in bytes {
            let is_sep = sep[b as usize];
            out[*n] = b' ';
            *n += (*p & !is_sep & (*n > start)) as usize;
            out[*n] = map[b as usize];
            *n += (!is_sep) as usize;
            *p = is_sep;
        }
    };
    let mut blocks = run.chunks_exact(8);
    for block in &mut blocks {
        let mut b8 = [0u8; 8];
        b8.copy_from_slice(block);
        let x = u64::from_le_bytes(b8);
        let control = in_range(x, 0x00, 0x1F) | in_range(x, 0x7F, 0x7F);
        let space = in_range(x, b' ', b' ');
        let first_is_space = space & 0x80 != 0;
        if (strip && punctuation(x) != 0)
            || control != 0
            || space & (space << 8) != 0
            || (first_is_space && (p || n == start))
        {
            slow(out, block, &mut n, &mut p);
            continue;
        }
        if p {
            out[n] = b' ';
            n += (n > start) as usize;
        }
        let lower = if options.lowercase {
            x | (in_range(x, b'A', b'Z') >> 2)
        } else {
            x
        };
        out[n..n + 8].copy_from_slice(&lower.to_le_bytes());
        p = space >> 63 != 0;
        n += 8 - p as usize;
    }
    slow(out, blocks.remainder(), &mut n, &mut p);
    buf.truncate(n);
    *pending = p;
}

/// Per byte of `x` (all bytes < 0x80): high bit set iff the byte is ASCII
/// punctuation other than `_` (the separators that stripping adds).
#[inline(always)]
fn punctuation(x: u64) -> u64 {
    in_range(x, 0x21, 0x2F)
        | in_range(x, 0x3A, 0x40)
        | in_range(x, 0x5B, 0x5E)
        | in_range(x, 0x60, 0x60)
        | in_range(x, 0x7B, 0x7E)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const ALL_OPTIONS: [NormalizeOptions; 4] = NormalizeOptions::ALL;

    /// The byte-at-a-time rules.
    fn reference(prefix: &str, pending: bool, o: NormalizeOptions, run: &[u8]) -> (String, bool) {
        let sep = if o.punctuation == Punctuation::Strip {
            &IS_SEPARATOR_STRIP
        } else {
            &IS_SEPARATOR_KEEP
        };
        let mut out = prefix.to_string();
        let mut p = pending;
        for &b in run {
            if sep[b as usize] {
                p = true;
                continue;
            }
            if p && out.len() > 1 {
                out.push(' ');
            }
            p = false;
            out.push(if o.lowercase {
                b.to_ascii_lowercase()
            } else {
                b
            } as char);
        }
        (out, p)
    }

    fn check(prefix: &str, pending: bool, run: &str) {
        for o in ALL_OPTIONS {
            let mut buf = prefix.as_bytes().to_vec();
            let mut p = pending;
            // The output of this call starts after one byte of `prefix`.
            write_ascii_run(&mut buf, 1, &mut p, o, run.as_bytes());
            let want = reference(prefix, pending, o, run.as_bytes());
            assert_eq!(
                (String::from_utf8(buf).unwrap(), p),
                want,
                "{prefix:?} {pending} {run:?} {o:?}"
            );
        }
    }

    #[test]
    fn punctuation_is_the_stripped_separators() {
        for b in 0u8..0x80 {
            let x = u64::from_le_bytes([b, b'a', b'a', b'a', b'a', b'a', b'a', b'a']);
            let want = IS_SEPARATOR_STRIP[b as usize] && !IS_SEPARATOR_KEEP[b as usize];
            assert_eq!(punctuation(x) != 0, want, "{b:#x}");
        }
    }

    #[test]
    fn blocks_and_bytes_agree_on_samples() {
        for run in [
            "The quick brown fox jumps over the lazy dog. ",
            "  Two  spaces\tand\ncontrols\x7f here ",
            "ABCDEFG HIJKLMN OPQRSTU VWXYZ!!",
            "12345678 ",
            "        ",
            "Prose, with commas; and (brackets) and under_scores too: end.",
            "abcdefgh, ijklmnop-qrstuvwx/yz ~{|}` @[\\]^ done",
        ] {
            for (prefix, pending) in [("x", false), ("x", true), ("xy", false), ("xy", true)] {
                check(prefix, pending, run);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn blocks_and_bytes_agree(
            run in "[ -~\t\n\x01\x7f]{0,80}|[a-zA-Z .,]{0,80}",
            long_prefix in any::<bool>(),
            pending in any::<bool>(),
        ) {
            check(if long_prefix { "xy" } else { "x" }, pending, &run);
        }
    }
}
