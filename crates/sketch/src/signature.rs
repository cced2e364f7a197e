//! The [`Signature`] enum: any method's signature, with the versioned byte
//! format of [`crate::codec`].

use crate::codec::{frame, unframe, Reader, Writer};
use crate::error::{ErrorKind, Result};
use crate::exact::ExactSig;
use crate::feature_code::FeatureCodeSig;
use crate::imatch::IMatchSig;
use crate::long_sentence::LongSentenceSig;
use crate::method::MethodKind;
use crate::minhash::{MinHashScheme, MinHashSig};
use crate::paragraph::ParagraphSig;
use crate::simhash::SimHashSig;
use crate::supershingle::SuperShingleSig;

/// A signature of any method.
///
/// ```
/// use neardup_sketch::{DocText, Method, Signature, Sketcher};
/// let m: Method = "simhash".parse().unwrap();
/// let sig = m.sketch(&DocText::from_text("some text to fingerprint"));
/// let bytes = sig.to_bytes();
/// assert_eq!(&bytes[..4], b"NDSG");
/// assert_eq!(Signature::from_bytes(&bytes).unwrap(), sig);
/// assert!(Signature::from_bytes(b"garbage").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Signature {
    /// From [`crate::Exact`].
    Exact(ExactSig),
    /// From [`crate::SimHash`].
    SimHash(SimHashSig),
    /// From [`crate::MinHash`] or [`crate::OphMinHash`].
    MinHash(MinHashSig),
    /// From [`crate::SuperShingle`].
    SuperShingle(SuperShingleSig),
    /// From [`crate::IMatch`].
    IMatch(IMatchSig),
    /// From [`crate::LongSentence`].
    LongSentence(LongSentenceSig),
    /// From [`crate::FeatureCode`].
    FeatureCode(FeatureCodeSig),
    /// From [`crate::Paragraph`].
    Paragraph(ParagraphSig),
}

impl Signature {
    /// The method that made this signature.
    pub fn kind(&self) -> MethodKind {
        match self {
            Signature::Exact(_) => MethodKind::Exact,
            Signature::SimHash(_) => MethodKind::SimHash,
            Signature::MinHash(s) => match s.scheme() {
                MinHashScheme::Classic => MethodKind::MinHash,
                MinHashScheme::OnePermutation => MethodKind::OphMinHash,
            },
            Signature::SuperShingle(_) => MethodKind::SuperShingle,
            Signature::IMatch(_) => MethodKind::IMatch,
            Signature::LongSentence(_) => MethodKind::LongSentence,
            Signature::FeatureCode(_) => MethodKind::FeatureCode,
            Signature::Paragraph(_) => MethodKind::Paragraph,
        }
    }

    /// 64-bit keys for an inverted index: the exact digest folded to 64
    /// bits, the SimHash value (low 64 bits), the MinHash values widened,
    /// super-shingle keys, I-Match fingerprints, long-sentence hashes,
    /// feature-code keys, paragraph fingerprints. Documents that share a key
    /// are candidates; LSH banding of MinHash values is up to the index.
    pub fn index_keys(&self) -> Vec<u64> {
        match self {
            Signature::Exact(s) => {
                let v = s.as_u128();
                vec![v as u64 ^ (v >> 64) as u64]
            }
            Signature::SimHash(s) => vec![s.value64()],
            Signature::MinHash(s) => s.values().iter().map(|&v| v as u64).collect(),
            Signature::SuperShingle(s) => s.keys().to_vec(),
            Signature::IMatch(s) => s.keys().to_vec(),
            Signature::LongSentence(s) => s.hashes().to_vec(),
            Signature::FeatureCode(s) => s.code_keys(),
            Signature::Paragraph(s) => s.fingerprints().collect(),
        }
    }

    /// Encodes the signature (see [`crate::codec`] for the frame and each
    /// signature type for its body).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        match self {
            Signature::Exact(s) => s.encode(&mut w),
            Signature::SimHash(s) => s.encode(&mut w),
            Signature::MinHash(s) => s.encode(&mut w),
            Signature::SuperShingle(s) => s.encode(&mut w),
            Signature::IMatch(s) => s.encode(&mut w),
            Signature::LongSentence(s) => s.encode(&mut w),
            Signature::FeatureCode(s) => s.encode(&mut w),
            Signature::Paragraph(s) => s.encode(&mut w),
        }
        frame(self.kind().tag(), &w.buf)
    }

    /// Decodes bytes made by [`Signature::to_bytes`].
    ///
    /// # Errors
    /// [`ErrorKind::BadMagic`], [`ErrorKind::UnsupportedVersion`],
    /// [`ErrorKind::UnknownTag`], [`ErrorKind::Truncated`],
    /// [`ErrorKind::ChecksumMismatch`] or [`ErrorKind::Malformed`]; never panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<Signature> {
        let (tag, body) = unframe(bytes)?;
        let kind = MethodKind::from_tag(tag).ok_or(ErrorKind::UnknownTag(tag))?;
        let mut r = Reader::new(body);
        let sig = match kind {
            MethodKind::Exact => Signature::Exact(ExactSig::decode(&mut r)?),
            MethodKind::SimHash => Signature::SimHash(SimHashSig::decode(&mut r)?),
            MethodKind::MinHash | MethodKind::OphMinHash => {
                Signature::MinHash(MinHashSig::decode(&mut r)?)
            }
            MethodKind::SuperShingle => Signature::SuperShingle(SuperShingleSig::decode(&mut r)?),
            MethodKind::IMatch => Signature::IMatch(IMatchSig::decode(&mut r)?),
            MethodKind::LongSentence => Signature::LongSentence(LongSentenceSig::decode(&mut r)?),
            MethodKind::FeatureCode => Signature::FeatureCode(FeatureCodeSig::decode(&mut r)?),
            MethodKind::Paragraph => Signature::Paragraph(ParagraphSig::decode(&mut r)?),
        };
        r.finish()?;
        if sig.kind() != kind {
            return Err(ErrorKind::Malformed("tag does not match body").into());
        }
        Ok(sig)
    }
}
