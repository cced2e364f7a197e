//! One interface over every method: the [`Sketcher`] trait, the
//! [`MethodKind`] names and tags, and the [`Method`] enum that a caller picks
//! by name.

use std::fmt;
use std::str::FromStr;

use neardup_text::Segmenter;

use crate::doc::DocText;
use crate::error::{Error, ErrorKind, Result};
use crate::signature::Signature;
use crate::{
    Exact, FeatureCode, IMatch, LongSentence, MinHash, OphMinHash, Paragraph, SimHash, SuperShingle,
};

/// Sketch documents and compare their signatures, uniformly across methods.
pub trait Sketcher {
    /// Which method this is.
    fn kind(&self) -> MethodKind;
    /// The signature of a document.
    fn sketch(&self, doc: &DocText<'_>) -> Signature;
    /// Similarity of two signatures of this method, in `[0, 1]`, symmetric,
    /// 1 for identical documents.
    ///
    /// # Errors
    /// [`ErrorKind::MethodMismatch`] when a signature is from another method,
    /// [`ErrorKind::ParameterMismatch`] when the two are not comparable.
    fn similarity(&self, a: &Signature, b: &Signature) -> Result<f64>;
    /// Whether two signatures are near-duplicates under this method's rule.
    ///
    /// # Errors
    /// As [`Sketcher::similarity`].
    fn is_duplicate(&self, a: &Signature, b: &Signature) -> Result<bool>;
}

/// The methods, with their names (for [`FromStr`]) and byte-format tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MethodKind {
    /// `exact`, tag 1.
    Exact,
    /// `simhash` (`simhash128` for 128 bits), tag 2.
    SimHash,
    /// `minhash`, tag 3.
    MinHash,
    /// `minhash-oph` (alias `oph`), tag 4.
    OphMinHash,
    /// `supershingle`, tag 5.
    SuperShingle,
    /// `imatch`, tag 6.
    IMatch,
    /// `long-sentence`, tag 7.
    LongSentence,
    /// `feature-code`, tag 8.
    FeatureCode,
    /// `paragraph`, tag 9.
    Paragraph,
}

impl MethodKind {
    /// Every method, in tag order.
    pub const ALL: [MethodKind; 9] = [
        MethodKind::Exact,
        MethodKind::SimHash,
        MethodKind::MinHash,
        MethodKind::OphMinHash,
        MethodKind::SuperShingle,
        MethodKind::IMatch,
        MethodKind::LongSentence,
        MethodKind::FeatureCode,
        MethodKind::Paragraph,
    ];

    /// The canonical name.
    pub fn name(self) -> &'static str {
        match self {
            MethodKind::Exact => "exact",
            MethodKind::SimHash => "simhash",
            MethodKind::MinHash => "minhash",
            MethodKind::OphMinHash => "minhash-oph",
            MethodKind::SuperShingle => "supershingle",
            MethodKind::IMatch => "imatch",
            MethodKind::LongSentence => "long-sentence",
            MethodKind::FeatureCode => "feature-code",
            MethodKind::Paragraph => "paragraph",
        }
    }

    /// The tag of the byte format.
    pub fn tag(self) -> u8 {
        self as u8 + 1
    }

    /// The kind of a byte-format tag.
    pub fn from_tag(tag: u8) -> Option<MethodKind> {
        Self::ALL.get((tag as usize).checked_sub(1)?).copied()
    }
}

impl fmt::Display for MethodKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Any method with its parameters; pick one by name:
///
/// ```
/// use neardup_sketch::{DocText, Method, Sketcher};
/// for name in ["exact", "simhash", "simhash128", "minhash", "minhash-oph", "supershingle",
///              "imatch", "long-sentence", "feature-code", "paragraph"] {
///     let m: Method = name.parse().unwrap();
///     let doc = DocText::from_text("Near-duplicate detection. It finds copies of pages.");
///     let s = m.sketch(&doc);
///     assert_eq!(m.similarity(&s, &s).unwrap(), 1.0);
///     assert!(m.is_duplicate(&s, &s).unwrap());
/// }
/// assert!("nope".parse::<Method>().is_err());
/// ```
///
/// Names are case-insensitive and `_` equals `-`; aliases: `oph`,
/// `fast-minhash`, `super-shingle`, `i-match`, `longsentence`,
/// `featurecode`, `paragraphs`. To tune parameters, build the method struct
/// and wrap it: `Method::MinHash(MinHash::new().num_perm(64).clone())`.
#[derive(Debug, Clone, PartialEq)]
pub enum Method {
    /// [`Exact`].
    Exact(Exact),
    /// [`SimHash`].
    SimHash(SimHash),
    /// [`MinHash`].
    MinHash(MinHash),
    /// [`OphMinHash`].
    OphMinHash(OphMinHash),
    /// [`SuperShingle`].
    SuperShingle(SuperShingle),
    /// [`IMatch`].
    IMatch(IMatch),
    /// [`LongSentence`].
    LongSentence(LongSentence),
    /// [`FeatureCode`].
    FeatureCode(FeatureCode),
    /// [`Paragraph`].
    Paragraph(Paragraph),
}

impl Method {
    /// The method of `kind` with default parameters.
    pub fn with_defaults(kind: MethodKind) -> Method {
        match kind {
            MethodKind::Exact => Method::Exact(Exact::new()),
            MethodKind::SimHash => Method::SimHash(SimHash::new()),
            MethodKind::MinHash => Method::MinHash(MinHash::new()),
            MethodKind::OphMinHash => Method::OphMinHash(OphMinHash::new()),
            MethodKind::SuperShingle => Method::SuperShingle(SuperShingle::new()),
            MethodKind::IMatch => Method::IMatch(IMatch::new()),
            MethodKind::LongSentence => Method::LongSentence(LongSentence::new()),
            MethodKind::FeatureCode => Method::FeatureCode(FeatureCode::new()),
            MethodKind::Paragraph => Method::Paragraph(Paragraph::new()),
        }
    }

    /// Cuts the tokens of the method's shingles with `segmenter` (see
    /// [`MinHash::segmenter`]). Bigram and dictionary segmenters apply to
    /// minhash, minhash-oph and supershingle; [`Segmenter::chars`], the
    /// default, applies to every method.
    ///
    /// # Errors
    /// [`ErrorKind::SegmenterNotSupported`] for a bigram or dictionary
    /// segmenter and another method.
    pub fn set_segmenter(&mut self, segmenter: Segmenter) -> Result<()> {
        match self {
            Method::MinHash(m) => {
                m.segmenter(segmenter);
            }
            Method::OphMinHash(m) => {
                m.segmenter(segmenter);
            }
            Method::SuperShingle(m) => {
                m.segmenter(segmenter);
            }
            _ if segmenter == Segmenter::chars() => {}
            other => return Err(ErrorKind::SegmenterNotSupported(other.kind()).into()),
        }
        Ok(())
    }

    /// The segmenter of the method's token shingles ([`Segmenter::chars`]
    /// for methods without one).
    pub fn segmenter(&self) -> &Segmenter {
        static CHARS: Segmenter = Segmenter::chars();
        match self {
            Method::MinHash(m) => m.get_segmenter(),
            Method::OphMinHash(m) => m.get_segmenter(),
            Method::SuperShingle(m) => m.get_segmenter(),
            _ => &CHARS,
        }
    }

    fn inner(&self) -> &dyn Sketcher {
        match self {
            Method::Exact(m) => m,
            Method::SimHash(m) => m,
            Method::MinHash(m) => m,
            Method::OphMinHash(m) => m,
            Method::SuperShingle(m) => m,
            Method::IMatch(m) => m,
            Method::LongSentence(m) => m,
            Method::FeatureCode(m) => m,
            Method::Paragraph(m) => m,
        }
    }
}

impl FromStr for Method {
    type Err = Error;

    fn from_str(name: &str) -> Result<Method> {
        let n = name.trim().to_ascii_lowercase().replace('_', "-");
        let kind = match n.as_str() {
            "exact" => MethodKind::Exact,
            "simhash" | "simhash64" => MethodKind::SimHash,
            "simhash128" | "simhash-128" => {
                return Ok(Method::SimHash(SimHash::new().wide(true).clone()));
            }
            "minhash" => MethodKind::MinHash,
            "minhash-oph" | "oph" | "fast-minhash" | "minhash-fast" => MethodKind::OphMinHash,
            "supershingle" | "super-shingle" => MethodKind::SuperShingle,
            "imatch" | "i-match" => MethodKind::IMatch,
            "long-sentence" | "longsentence" => MethodKind::LongSentence,
            "feature-code" | "featurecode" => MethodKind::FeatureCode,
            "paragraph" | "paragraphs" => MethodKind::Paragraph,
            _ => return Err(ErrorKind::UnknownMethod(name.to_string()).into()),
        };
        Ok(Method::with_defaults(kind))
    }
}

impl Sketcher for Method {
    fn kind(&self) -> MethodKind {
        self.inner().kind()
    }
    fn sketch(&self, doc: &DocText<'_>) -> Signature {
        self.inner().sketch(doc)
    }
    fn similarity(&self, a: &Signature, b: &Signature) -> Result<f64> {
        self.inner().similarity(a, b)
    }
    fn is_duplicate(&self, a: &Signature, b: &Signature) -> Result<bool> {
        self.inner().is_duplicate(a, b)
    }
}

/// Implements [`Sketcher`] for a method struct from three expressions over
/// the typed signatures `$a`, `$b`.
macro_rules! sketcher {
    ($ty:ty, $kind:expr, $variant:ident, |$m:ident, $a:ident, $b:ident| sim: $sim:expr, dup: $dup:expr) => {
        #[allow(unused_variables)]
        impl Sketcher for $ty {
            fn kind(&self) -> MethodKind {
                $kind
            }
            fn sketch(&self, doc: &DocText<'_>) -> Signature {
                Signature::$variant(self.signature(doc))
            }
            fn similarity(&self, a: &Signature, b: &Signature) -> Result<f64> {
                let ($m, $a, $b) = (
                    self,
                    unwrap_sig!(a, $variant, $kind),
                    unwrap_sig!(b, $variant, $kind),
                );
                $sim
            }
            fn is_duplicate(&self, a: &Signature, b: &Signature) -> Result<bool> {
                let ($m, $a, $b) = (
                    self,
                    unwrap_sig!(a, $variant, $kind),
                    unwrap_sig!(b, $variant, $kind),
                );
                $dup
            }
        }
    };
}

macro_rules! unwrap_sig {
    ($s:expr, $variant:ident, $kind:expr) => {
        match $s {
            Signature::$variant(x) if $s.kind() == $kind => x,
            _ => return Err(ErrorKind::MethodMismatch.into()),
        }
    };
}

fn share(shared: usize, total: usize) -> f64 {
    if total == 0 {
        1.0
    } else {
        shared as f64 / total as f64
    }
}

sketcher!(Exact, MethodKind::Exact, Exact, |_m, a, b|
    sim: Ok(if a.same(b)? { 1.0 } else { 0.0 }),
    dup: a.same(b));
sketcher!(SimHash, MethodKind::SimHash, SimHash, |m, a, b|
    sim: Ok(1.0 - a.distance(b)? as f64 / a.bits() as f64),
    dup: Ok(a.distance(b)? <= m.get_max_distance()));
sketcher!(MinHash, MethodKind::MinHash, MinHash, |m, a, b|
    sim: a.jaccard(b),
    dup: Ok(a.jaccard(b)? >= m.get_threshold()));
sketcher!(OphMinHash, MethodKind::OphMinHash, MinHash, |m, a, b|
    sim: a.jaccard(b),
    dup: Ok(a.jaccard(b)? >= m.get_threshold()));
sketcher!(SuperShingle, MethodKind::SuperShingle, SuperShingle, |m, a, b|
    sim: Ok(share(a.shared(b)?, a.keys().len())),
    dup: Ok(a.shared(b)? >= m.get_min_shared().min(a.keys().len())));
sketcher!(IMatch, MethodKind::IMatch, IMatch, |_m, a, b|
sim: {
    let shared = a.shared(b)?;
    Ok(if a.keys().is_empty() != b.keys().is_empty() { 0.0 } else { share(shared, a.keys().len()) })
},
dup: {
    let shared = a.shared(b)?;
    Ok(shared > 0 || (a.keys().is_empty() && b.keys().is_empty()))
});
sketcher!(LongSentence, MethodKind::LongSentence, LongSentence, |m, a, b|
    sim: a.jaccard(b),
    dup: Ok(a.jaccard(b)? >= m.get_threshold()));
sketcher!(FeatureCode, MethodKind::FeatureCode, FeatureCode, |m, a, b|
    sim: m.similarity(a, b),
    dup: m.is_duplicate(a, b));
sketcher!(Paragraph, MethodKind::Paragraph, Paragraph, |m, a, b|
    sim: m.similarity(a, b),
    dup: m.is_duplicate(a, b));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_tags_round_trip() {
        for k in MethodKind::ALL {
            assert_eq!(MethodKind::from_tag(k.tag()), Some(k));
            let m: Method = k.name().parse().unwrap();
            assert_eq!(m.kind(), k);
        }
        assert_eq!(MethodKind::from_tag(0), None);
        assert_eq!(MethodKind::from_tag(10), None);
        let e = "bogus".parse::<Method>().unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::UnknownMethod("bogus".into()));
        assert_eq!(
            "Long_Sentence".parse::<Method>().unwrap().kind(),
            MethodKind::LongSentence
        );
    }

    #[test]
    fn every_method_takes_the_character_segmenter() {
        for k in MethodKind::ALL {
            let mut m = Method::with_defaults(k);
            let before = m.clone();
            m.set_segmenter(Segmenter::chars()).unwrap();
            assert_eq!(m, before, "{k}");
            assert_eq!(m.segmenter(), &Segmenter::chars());
        }
    }

    #[test]
    fn cross_method_comparison_is_an_error() {
        let doc = DocText::from_text("one two three four five six");
        let mh: Method = "minhash".parse().unwrap();
        let oph: Method = "oph".parse().unwrap();
        let (a, b) = (mh.sketch(&doc), oph.sketch(&doc));
        assert_eq!(
            mh.similarity(&a, &b).unwrap_err().kind(),
            &ErrorKind::MethodMismatch
        );
        assert_eq!(
            oph.similarity(&a, &b).unwrap_err().kind(),
            &ErrorKind::MethodMismatch
        );
    }
}
