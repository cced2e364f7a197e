//! A document of a corpus after extraction and fingerprinting: what the
//! batch engine keeps of it (never its text).

use neardup_extract::Extractor;
use neardup_io::Item;
use neardup_sketch::Signature;

use crate::dedup::{Dedup, DocFingerprint};
use crate::page::Page;
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

    fn failed(id: String, url: Option<String>, error: String) -> Fingerprinted {
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
    /// Decodes, extracts and fingerprints one input item; `None` for a
    /// record that is not a document (skipped on purpose).
    pub fn fingerprint_item(&self, item: Item, extractor: &Extractor) -> Option<Fingerprinted> {
        match item {
            Item::Document(raw) => {
                let (id, url) = (raw.id.clone(), raw.url.clone());
                Some(match Page::from_raw(raw, extractor) {
                    Ok(page) => {
                        let signature = self.fingerprint(&page.text, &page.paragraphs);
                        let shingles = signature.as_ref().and_then(|_| self.shingles(&page.text));
                        Fingerprinted {
                            id,
                            url,
                            text_len: page.text.len(),
                            signature,
                            shingles,
                            error: None,
                        }
                    }
                    Err(e) => Fingerprinted::failed(id, url, e.to_string()),
                })
            }
            Item::Error(e) => Some(Fingerprinted::failed(e.id, None, e.kind.to_string())),
            Item::Skipped { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_io::{Content, DocError, DocErrorKind, RawDocument};

    #[test]
    fn documents_failures_and_skips() {
        let dedup = Dedup::new();
        let ex = Extractor::new();
        let doc = Item::Document(RawDocument {
            id: "a".into(),
            url: Some("http://x/a".into()),
            content: Content::Text("some words of a short text here".into()),
        });
        let f = dedup.fingerprint_item(doc, &ex).unwrap();
        assert!(f.signature.is_some() && f.shingles.is_some() && f.error.is_none());
        assert_eq!(f.as_doc().url, "http://x/a");
        let empty = Item::Document(RawDocument {
            id: "e".into(),
            url: None,
            content: Content::Text(" ".into()),
        });
        let e = dedup.fingerprint_item(empty, &ex).unwrap();
        assert!(e.signature.is_none() && e.error.is_none() && e.as_doc().url == "e");
        let err = Item::Error(DocError {
            id: "x".into(),
            kind: DocErrorKind::Json("line 2: bad".into()),
        });
        assert!(dedup
            .fingerprint_item(err, &ex)
            .unwrap()
            .error
            .unwrap()
            .contains("line 2"));
        assert!(dedup
            .fingerprint_item(
                Item::Skipped {
                    id: "s".into(),
                    reason: "r".into()
                },
                &ex
            )
            .is_none());
        assert_eq!(
            shingles_of(&[f, e]).iter().filter(|s| s.is_some()).count(),
            1
        );
    }
}
