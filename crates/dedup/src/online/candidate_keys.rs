//! [`CandidateKeys`]: what the online engine reads of a document's
//! signature, and the rule that says when the full signature can be left
//! out.
//!
//! The engine needs three things of a signature: the keys of the candidate
//! index (for MinHash methods, one folded 32-bit key a LSH band,
//! [`KeyRule::band_keys`]), its [`signature_key`](crate::signature_key)
//! for exact copies, and the signature itself for the fallback
//! verification on signatures ([`verify_signatures`](crate::verify_signatures))
//! of a pair that cannot be verified on shingles.
//!
//! **The rule for a pair without shingles.** A candidate pair is confirmed
//! on shingles ([`Verifier::check`](crate::Verifier::check)) when
//! exact verification is on and both documents have them. Otherwise it is
//! confirmed on signatures when both documents keep their full signature,
//! and is not a duplicate when either keeps only band keys. A document
//! may keep only band keys when [`KeyRule::keeps_signature`] says so:
//! its method's index is LSH bands and its shingles are a verification
//! sketch (which is kept, and every document with text has one under a
//! sketch verifier). So with a sketch verifier every pair of documents
//! with text is verified on sketches and the fallback never runs: an
//! instance that keeps band keys gives the verdicts of one that keeps
//! every signature. Without a sketch every signature is kept, as before.
//!
//! A batch run with its documents on disk ([`KeyRule::with_kept_shingles`])
//! keeps every document's shingle sequence, exact or a sketch, whenever
//! verification is on: the same argument then holds for any document with
//! shingles, so such a document keeps its band keys alone.

use neardup_index::{folded_band_keys, LshParams};
use neardup_sketch::{CandidateRule, Method, Signature, LSH_WEIGHTS};

use crate::error::Error;
use crate::online::decisions::OnlineCore;
use crate::online::docs::{Kind, OnlineDocs};
use crate::verify::{ShingleSeq, Verifier};

/// What the online engine reads of a document with text: the key of its
/// signature, and its full signature, its band keys, or both.
#[derive(Debug, Clone, Copy)]
pub struct CandidateKeys<'a> {
    /// [`signature_key`](crate::signature_key) of the signature's bytes:
    /// documents with equal keys are copies.
    pub key: u128,
    /// The full signature, when kept.
    pub signature: Option<&'a Signature>,
    /// The folded band keys ([`KeyRule::band_keys`]), for a MinHash
    /// method: what the candidate index inserts and queries, computed from
    /// the signature when absent.
    pub band_keys: Option<&'a [u32]>,
}

impl<'a> CandidateKeys<'a> {
    /// A full signature and its key.
    pub fn full(signature: &'a Signature, key: u128) -> CandidateKeys<'a> {
        CandidateKeys {
            key,
            signature: Some(signature),
            band_keys: None,
        }
    }

    /// Band keys alone, and the signature's key.
    pub fn bands(band_keys: &'a [u32], key: u128) -> CandidateKeys<'a> {
        CandidateKeys {
            key,
            signature: None,
            band_keys: Some(band_keys),
        }
    }
}

impl<'a> From<(&'a Signature, u128)> for CandidateKeys<'a> {
    fn from((signature, key): (&'a Signature, u128)) -> CandidateKeys<'a> {
        CandidateKeys::full(signature, key)
    }
}

/// The bands and rows of the LSH index of a method whose candidate index
/// is LSH bands (the S-curve centred on its rule's threshold); `None` for
/// other methods.
pub(crate) fn lsh_params(method: &Method) -> Result<Option<LshParams>, Error> {
    let CandidateRule::Lsh { threshold } = method.candidate_rule() else {
        return Ok(None);
    };
    let num_perm = match method {
        Method::MinHash(m) => m.get_num_perm(),
        Method::OphMinHash(m) => m.get_num_bins(),
        _ => return Err(Error::signature("LSH bands for a method without MinHash")),
    };
    let (fp, fn_) = LSH_WEIGHTS;
    Ok(Some(LshParams::optimal(threshold, num_perm, fp, fn_)?))
}

/// The folded band keys of a MinHash signature under `params`: what the
/// candidate index ([`neardup_index::CompactLsh`]) keys it by.
pub(crate) fn band_keys_of(params: LshParams, sig: &Signature) -> Result<Vec<u32>, Error> {
    let values = match sig {
        Signature::MinHash(m) if !m.values().is_empty() => m.values(),
        _ => return Err(Error::signature("expected a MinHash signature with values")),
    };
    Ok(folded_band_keys(params, values)?)
}

/// The rule of the module documentation for one engine's method and
/// verifier: what a document keeps of its signature, and its band keys.
/// Cheap to copy, so that a service fingerprints documents on many threads
/// without the engine's lock ([`OnlineCore::key_rule`]).
#[derive(Debug, Clone, Copy)]
pub struct KeyRule {
    params: Option<LshParams>,
    kept: Kept,
}

/// Which documents' shingles are sure to be kept for verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kept {
    /// None are (no verification, or the shingles may be left out).
    Neither,
    /// Verification sketches are.
    Sketches,
    /// Every document's shingles are (a batch run's).
    All,
}

impl KeyRule {
    /// The rule for `method` and `verifier`.
    ///
    /// # Errors
    /// A method whose LSH bands cannot be made.
    pub fn new(method: &Method, verifier: Option<&Verifier>) -> Result<KeyRule, Error> {
        Ok(KeyRule {
            params: lsh_params(method)?,
            kept: match verifier {
                Some(v) if v.sketch.is_some() => Kept::Sketches,
                _ => Kept::Neither,
            },
        })
    }

    /// The rule for a store that keeps every document's shingles (exact or
    /// a sketch) whenever `verifier` is on, as a batch run with its
    /// documents on disk does: then a document with shingles may keep band
    /// keys alone.
    ///
    /// # Errors
    /// As [`KeyRule::new`].
    pub fn with_kept_shingles(
        method: &Method,
        verifier: Option<&Verifier>,
    ) -> Result<KeyRule, Error> {
        Ok(KeyRule {
            params: lsh_params(method)?,
            kept: if verifier.is_some() {
                Kept::All
            } else {
                Kept::Neither
            },
        })
    }

    /// The folded LSH band keys of `sig` that the candidate index inserts
    /// and queries, for a method whose index is LSH bands (MinHash);
    /// `None` for other methods.
    ///
    /// # Errors
    /// A signature that is not the method's MinHash signature.
    pub fn band_keys(&self, sig: &Signature) -> Result<Option<Vec<u32>>, Error> {
        self.params.map(|p| band_keys_of(p, sig)).transpose()
    }

    /// Whether some documents may keep band keys instead of their
    /// signature under this rule (a method with LSH bands and a
    /// verification sketch): what a format that carries them records.
    pub fn may_leave_signatures_out(&self) -> bool {
        self.params.is_some() && self.kept != Kept::Neither
    }

    /// Whether a document with `shingles` must keep its full signature
    /// (see the module documentation): false only for a method whose
    /// candidate index is LSH bands when its shingles are a verification
    /// sketch (or any shingles, under [`KeyRule::with_kept_shingles`]); a
    /// document that may leave it out keeps its band keys instead.
    pub fn keeps_signature(&self, shingles: Option<&ShingleSeq>) -> bool {
        let kept = match self.kept {
            Kept::Neither => false,
            Kept::Sketches => shingles.is_some_and(ShingleSeq::is_sketch),
            Kept::All => shingles.is_some(),
        };
        !(self.params.is_some() && kept)
    }
}

impl OnlineCore {
    /// The engine's [`KeyRule`].
    pub fn key_rule(&self) -> KeyRule {
        self.key_rule
    }

    /// [`KeyRule::band_keys`] of the engine's rule.
    ///
    /// # Errors
    /// As there.
    pub fn band_keys(&self, sig: &Signature) -> Result<Option<Vec<u32>>, Error> {
        self.key_rule.band_keys(sig)
    }

    /// [`KeyRule::keeps_signature`] of the engine's rule.
    pub fn keeps_signature(&self, shingles: Option<&ShingleSeq>) -> bool {
        self.key_rule.keeps_signature(shingles)
    }

    /// The original a document with signature key `key` duplicates
    /// exactly: a live original with that key, else what the earliest live
    /// duplicate with that key duplicates, when that original is live.
    pub(crate) fn same_signature(
        &self,
        docs: &impl OnlineDocs,
        key: u128,
        live: &impl Fn(u32, Kind) -> bool,
    ) -> Result<Option<(u32, f64)>, Error> {
        let mut holders = Vec::new();
        self.exact.get(key as u32, &mut holders);
        holders.sort_unstable();
        holders.dedup();
        let mut via_duplicate = None;
        for d in holders {
            let original = live(d, Kind::Original);
            if !(original || live(d, Kind::Duplicate)) || docs.key(d)? != Some(key) {
                continue;
            }
            if original {
                return Ok(Some((d, 1.0)));
            }
            if via_duplicate.is_none() {
                via_duplicate = docs
                    .duplicate_of(d)?
                    .filter(|&(of, _)| live(of, Kind::Original));
            }
        }
        Ok(via_duplicate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{signature_key, Online, OnlineDocs, VerifySketch};
    use neardup_sketch::{DocText, Sketcher};

    /// A document's key, kept signature, shingles and verdict.
    type Doc = (
        u128,
        Option<Signature>,
        Option<ShingleSeq>,
        Option<(u32, f64)>,
    );

    /// Documents that keep band keys only when the engine allows it.
    #[derive(Default)]
    struct BandDocs(Vec<Doc>);

    impl OnlineDocs for BandDocs {
        type Shingles = ShingleSeq;

        fn with_original<R>(
            &self,
            d: u32,
            f: impl FnOnce(Option<&Signature>, Option<&ShingleSeq>) -> R,
        ) -> Result<Option<R>, Error> {
            Ok(self
                .0
                .get(d as usize)
                .filter(|x| x.3.is_none())
                .map(|(_, sig, seq, _)| f(sig.as_ref(), seq.as_ref())))
        }

        fn shingles(&self, d: u32) -> Result<Option<ShingleSeq>, Error> {
            Ok(self.0.get(d as usize).and_then(|x| x.2.clone()))
        }

        fn key(&self, d: u32) -> Result<Option<u128>, Error> {
            Ok(self.0.get(d as usize).map(|x| x.0))
        }

        fn duplicate_of(&self, d: u32) -> Result<Option<(u32, f64)>, Error> {
            Ok(self.0.get(d as usize).and_then(|x| x.3))
        }
    }

    #[test]
    fn band_keys_give_the_verdicts_of_full_signatures_with_a_sketch() {
        let m: Method = "minhash".parse().unwrap();
        let v = Verifier {
            sketch: Some(VerifySketch::default()),
            ..Verifier::default()
        };
        let mut online = Online::new(m.clone(), Some(v), None).unwrap();
        let mut core = OnlineCore::new(m.clone(), Some(v), None).unwrap();
        let mut docs = BandDocs::default();
        let base: Vec<String> = (0..30)
            .map(|i| {
                (0..60 + i * 7)
                    .map(|j| format!("w{} ", (j * 31 + i * 1009) % 997))
                    .collect()
            })
            .collect();
        let mut duplicates = 0;
        for i in 0..90usize {
            let mut t = base[i % 30].clone();
            if i >= 30 {
                t.push_str(&format!("edit {i} "));
            }
            if i % 11 == 0 {
                t = format!("short {i}");
            }
            let sig = m.sketch(&DocText::from_text(&t));
            let key = signature_key(&sig.to_bytes());
            let seq = v.shingles(&t, &m);
            let want = online.judge(Some((&sig, key)), Some(&seq)).unwrap();
            online
                .add(
                    &i.to_string(),
                    Some((sig.clone(), key)),
                    Some(seq.clone()),
                    want,
                )
                .unwrap();
            let keys = core.band_keys(&sig).unwrap().unwrap();
            let kept = core.keeps_signature(Some(&seq)).then_some(&sig);
            assert!(kept.is_none());
            let doc = CandidateKeys {
                key,
                signature: kept,
                band_keys: Some(&keys),
            };
            let got = core.judge(&docs, Some(doc), Some(&seq), None).unwrap();
            assert_eq!(got, want, "document {i}");
            core.add(i as u32, Some(doc), Some(&seq), got).unwrap();
            docs.0
                .push((key, kept.cloned(), Some(seq), got.duplicate_of));
            duplicates += usize::from(got.duplicate_of.is_some());
        }
        assert!(duplicates >= 50, "{duplicates}");
    }

    #[test]
    fn a_store_that_keeps_every_documents_shingles_leaves_their_signatures_out() {
        let text = "The council approved the new cycle lanes after a long debate.";
        let exact = Verifier::default();
        for (name, verifier, leaves_out) in [
            ("minhash", Some(exact), true),
            ("minhash", None, false),
            ("simhash", Some(exact), false),
        ] {
            let m: Method = name.parse().unwrap();
            let rule = KeyRule::with_kept_shingles(&m, verifier.as_ref()).unwrap();
            let seq = exact.shingles(text, &m);
            assert_eq!(rule.may_leave_signatures_out(), leaves_out, "{name}");
            assert_eq!(rule.keeps_signature(Some(&seq)), !leaves_out, "{name}");
            assert!(rule.keeps_signature(None), "{name}: without shingles");
            // The online engine's rule keeps exact shingles' signatures.
            let online = KeyRule::new(&m, verifier.as_ref()).unwrap();
            assert!(online.keeps_signature(Some(&seq)));
        }
    }

    #[test]
    fn only_a_sketched_minhash_document_leaves_its_signature_out() {
        let text = "The council approved the new cycle lanes on the high street after a long debate on Monday evening.";
        let sketch = Verifier {
            sketch: Some(VerifySketch::default()),
            ..Verifier::default()
        };
        for (name, verifier, keeps) in [
            ("minhash", Some(sketch), false),
            ("minhash", Some(Verifier::default()), true),
            ("minhash", None, true),
            ("simhash", Some(sketch), true),
        ] {
            let m: Method = name.parse().unwrap();
            let core = OnlineCore::new(m.clone(), verifier, None).unwrap();
            let seq = verifier.map(|v| v.shingles(text, &m));
            assert_eq!(core.keeps_signature(seq.as_ref()), keeps, "{name}");
            let sig = m.sketch(&DocText::from_text(text));
            let keys = core.band_keys(&sig).unwrap();
            assert_eq!(keys.is_some(), name == "minhash");
            if let Some(k) = &keys {
                assert!(k.len() > 8 && k.len() < 64, "{}", k.len());
                let c = CandidateKeys::bands(k, signature_key(&sig.to_bytes()));
                assert!(c.signature.is_none());
            }
        }
    }
}
