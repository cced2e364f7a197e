//! A document of a corpus after extraction and fingerprinting: what the
//! batch engine keeps of it (never its text).

use neardup_sketch::Signature;

use crate::dedup::{Dedup, DocFingerprint};
use crate::verify::ShingleSeq;

/// One input document, fingerprinted; failures are kept too, so that the
/// output can have one line per input document.
#[derive(Debug, Clone)]
pub struct Fingerprinted {
    /// Its id.
    pub id: String,
    /// Its URL, when the input says.
    pub url: Option<String>,
    /// Main text length in bytes.
    pub text_len: usize,
    /// Its signature; `None` when the text is empty or it failed.
    pub signature: Option<Signature>,
    /// Its shingles, when exact verification is on.
    pub shingles: Option<ShingleSeq>,
    /// Why it failed, if it did.
    pub error: Option<String>,
}

impl Fingerprinted {
    /// The engine's view of the document.
    pub fn as_doc(&self) -> DocFingerprint<'_> {
        DocFingerprint {
            signature: self.signature.as_ref(),
            url: self.url.as_deref().unwrap_or(&self.id),
            text_len: self.text_len,
        }
    }

    /// A document that could not be read or extracted: a group of its own,
    /// with `error` in the output.
    pub fn failed(id: String, url: Option<String>, error: String) -> Fingerprinted {
        Fingerprinted {
            id,
            url,
            text_len: 0,
            signature: None,
            shingles: None,
            error: Some(error),
        }
    }
}

/// The shingles of every document, for [`Dedup::cluster_exact`].
pub fn shingles_of(docs: &[Fingerprinted]) -> Vec<Option<&ShingleSeq>> {
    docs.iter().map(|d| d.shingles.as_ref()).collect()
}

impl Dedup {
    /// Fingerprints one document's main text (and paragraphs): its
    /// signature, and its shingles when exact verification is on. A text
    /// without letters or digits has neither (a group of its own).
    pub fn fingerprint_doc(
        &self,
        id: String,
        url: Option<String>,
        text: &str,
        paragraphs: &[String],
    ) -> Fingerprinted {
        let (signature, shingles) = self.fingerprint_with_shingles(text, paragraphs);
        Fingerprinted {
            id,
            url,
            text_len: text.len(),
            signature,
            shingles,
            error: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_empty_texts_and_failures() {
        let dedup = Dedup::new();
        let f = dedup.fingerprint_doc(
            "a".into(),
            Some("http://x/a".into()),
            "some words of a short text here",
            &[],
        );
        assert!(f.signature.is_some() && f.shingles.is_some() && f.error.is_none());
        assert_eq!(f.as_doc().url, "http://x/a");
        let e = dedup.fingerprint_doc("e".into(), None, " ", &[]);
        assert!(e.signature.is_none() && e.error.is_none() && e.as_doc().url == "e");
        let x = Fingerprinted::failed("x".into(), None, "line 2: bad".into());
        assert!(x.error.unwrap().contains("line 2") && x.signature.is_none());
        assert_eq!(
            shingles_of(&[f, e]).iter().filter(|s| s.is_some()).count(),
            1
        );
    }
}

#[cfg(test)]
mod one_pass_tests {
    use super::*;
    use crate::Verifier;

    #[test]
    fn one_pass_fingerprints_equal_the_two_pass_ones() {
        let texts = [
            "The council approved the new cycle lanes on the high street.",
            "Le « café » — déjà vu, ÉTÉ 2024… l’œuvre",
            "北京大学，清华大学。市图书馆经过两年的改造工程，于本周一重新开放。",
            "two words",
            "one",
            "Mixed 文本 with ＡＢＣ full-width and ﬁ ligatures, 2020年11月",
        ];
        let mut chars = crate::default_method();
        chars
            .set_segmenter(neardup_text::Segmenter::chars())
            .unwrap();
        let four = Verifier {
            k: 4,
            ..Verifier::default()
        };
        let engines = [
            Dedup::new(),
            Dedup::builder().method(chars).build(),
            // Verifier and method shingles of different lengths: two passes.
            Dedup::builder().verifier(Some(four)).build(),
        ];
        for dedup in &engines {
            for t in texts {
                let one = dedup.fingerprint_with_shingles(t, &[]);
                let sig = dedup.fingerprint(t, &[]);
                let seq = sig.as_ref().and_then(|_| dedup.shingles(t));
                assert_eq!(one, (sig, seq), "{t}");
            }
        }
    }
}
