//! The versioned byte format of a method's parameters: what identifies a
//! method for good (a store made with it, a Spark job's settings), where a
//! derived `Debug` string would change with any refactoring.
//!
//! Layout, all integers little-endian:
//!
//! | offset | size | content                                                |
//! |--------|------|--------------------------------------------------------|
//! | 0      | 4    | magic `NDMP`                                           |
//! | 4      | 1    | format version, currently [`PARAMS_VERSION`] (1)       |
//! | 5      | 1    | method tag (see [`crate::MethodKind::tag`])            |
//! | 6      | 4    | body length `n` (u32)                                  |
//! | 10     | n    | body: every parameter of the method, in a fixed order  |
//! | 10+n   | 8    | checksum: `xxh3_64` (seed 0) of bytes `0..10+n`        |
//!
//! Counts are u32, real numbers the bits of an f64, seeds u64; a segmenter
//! is one byte (0 characters, 1 bigrams, 2 dictionary words), an IDF table
//! a presence byte and its content hash. Equal bytes mean the same method
//! with the same parameters: the golden tests pin them.

use xxhash_rust::xxh3::xxh3_64;

use neardup_text::{CjkSegmentation, Segmenter};

use crate::codec::Writer;
use crate::idf::IdfTable;
use crate::method::{Method, Sketcher};

/// Magic at the start of encoded method parameters.
pub const PARAMS_MAGIC: [u8; 4] = *b"NDMP";
/// Current version of the parameter format.
pub const PARAMS_VERSION: u8 = 1;

pub(crate) fn segmenter(w: &mut Writer, s: &Segmenter) {
    w.u8(match s.mode() {
        CjkSegmentation::Chars => 0,
        CjkSegmentation::Bigrams => 1,
        CjkSegmentation::Jieba => 2,
    });
}

pub(crate) fn idf(w: &mut Writer, table: Option<&IdfTable>) {
    match table {
        None => w.u8(0),
        Some(t) => {
            w.u8(1);
            w.u64(t.fingerprint());
        }
    }
}

impl Method {
    /// Every parameter of the method in the versioned format of this
    /// module: two methods give equal bytes exactly when they sketch and
    /// decide alike.
    ///
    /// ```
    /// use neardup_sketch::Method;
    /// let a: Method = "minhash".parse().unwrap();
    /// let mut b = a.clone();
    /// assert_eq!(a.params_bytes(), b.params_bytes());
    /// if let Method::MinHash(m) = &mut b { m.threshold(0.8); }
    /// assert_ne!(a.params_bytes(), b.params_bytes());
    /// assert_eq!(&a.params_bytes()[..4], b"NDMP");
    /// ```
    pub fn params_bytes(&self) -> Vec<u8> {
        let mut body = Writer::default();
        match self {
            Method::Exact(m) => m.encode_params(&mut body),
            Method::SimHash(m) => m.encode_params(&mut body),
            Method::MinHash(m) => m.encode_params(&mut body),
            Method::OphMinHash(m) => m.encode_params(&mut body),
            Method::SuperShingle(m) => m.encode_params(&mut body),
            Method::IMatch(m) => m.encode_params(&mut body),
            Method::LongSentence(m) => m.encode_params(&mut body),
            Method::FeatureCode(m) => m.encode_params(&mut body),
            Method::Paragraph(m) => m.encode_params(&mut body),
        }
        let mut w = Writer::default();
        w.bytes(&PARAMS_MAGIC);
        w.u8(PARAMS_VERSION);
        w.u8(self.kind().tag());
        w.len(body.buf.len());
        w.bytes(&body.buf);
        let sum = xxh3_64(&w.buf);
        w.u64(sum);
        w.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MethodKind;

    /// The parameter bytes of every method with its defaults, as hex: a
    /// change here locks out every store made before it, so it must be
    /// deliberate (and come with a new format version or a migration).
    #[test]
    fn golden_parameter_bytes() {
        let golden = [
            ("exact", "4e444d500101020000000000d840299886f49608"),
            ("simhash", "4e444d5001021200000040010000000300000031687361486d69530019d221c1cf7a0971"),
            ("minhash", "4e444d5001031a00000000050000000031687361486e694d000000000000e03f8000000026146e39af8dacf5"),
            ("minhash-oph", "4e444d5001041a00000000050000000031486e694d48504f80000000000000000000e03fb0007f78f43eb410"),
            ("supershingle", "4e444d5001051a0000000005000000003168537265707553060000000e00000002000000e3a5dc5865cddaa4"),
            ("imatch", "4e444d5001062500000000000000000000e03f000000000000f07f01000000555555555555d53f3130686374614d49768b51c89f8d2564"),
            ("long-sentence", "4e444d50010711000000080000000a00000001000000000000e03f2c51d192d9eda76d"),
            ("feature-code", "4e444d5001081c0000000500000002000000200000009a9999999999f13f000000000000e03f74e8300b9f810e17"),
            ("paragraph", "4e444d5001091c0000001400000002000000030000009a9999999999e93f313048536172615041fbe376cea9311b"),
        ];
        let mut got = Vec::new();
        for kind in MethodKind::ALL {
            let hex: String = Method::with_defaults(kind)
                .params_bytes()
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            got.push((kind.name(), hex));
        }
        for ((name, want), (gname, hex)) in golden.iter().zip(&got) {
            assert_eq!((name, *want), (gname, hex.as_str()), "{name}");
        }
    }

    #[test]
    fn every_parameter_counts() {
        let base: Method = "minhash".parse().unwrap();
        let mut seeds = base.clone();
        if let Method::MinHash(m) = &mut seeds {
            m.seed(7);
        }
        let mut perms = base.clone();
        if let Method::MinHash(m) = &mut perms {
            m.num_perm(64);
        }
        let mut bigrams = base.clone();
        bigrams.set_segmenter(Segmenter::bigrams()).unwrap();
        let wide: Method = "simhash128".parse().unwrap();
        let narrow: Method = "simhash".parse().unwrap();
        let all = [base, seeds, perms, bigrams, wide, narrow];
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert_ne!(a.params_bytes(), b.params_bytes(), "{a:?} vs {b:?}");
            }
        }
    }
}
