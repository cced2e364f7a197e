//! [`ContentSeen::explain`]: the verdict [`ContentSeen::check`] gives, with
//! the engine's explanation against the matched original and the passages
//! the two texts share, for showing them side by side (`POST /v1/explain`,
//! the `/ui/` page). Nothing is stored.

use neardup::dedup::{shared_passages, PairExplanation, Segment};
use neardup::io::RawDocument;
use neardup::sketch::Signature;
use neardup::{Fingerprinted, Page, ShingleSeq};

use crate::answers::Verdict;
use crate::error::{Error, ErrorKind};
use crate::seen::ContentSeen;

/// Shingle length of the shared passages when exact verification is off
/// (with it on, the verifier's `k`).
pub const PASSAGE_K: usize = 3;

/// The first line of an explanation whose original is stored by its band
/// keys (a verification sketch and a MinHash method keep no signature).
pub(crate) const BAND_KEYS_ONLY: &str = "The original is stored by its LSH band keys and verification sketch, without its signature (sketch mode): the pair is explained by its sketches only.";

/// The stored original a document was matched with.
#[derive(Debug, Clone, PartialEq)]
pub struct Original {
    /// Its id.
    pub id: String,
    /// Its URL, when it was given.
    pub url: Option<String>,
    /// Its main text: stored for originals when exact verification is on,
    /// else `None`.
    pub text: Option<String>,
    /// The segments of its text, what it shares with the document marked.
    pub segments: Vec<Segment>,
}

/// What [`ContentSeen::explain`] answers.
#[derive(Debug, Clone)]
pub struct Explained {
    /// The verdict, as [`ContentSeen::check`] gives it.
    pub verdict: Verdict,
    /// The document's main text, as extracted.
    pub text: String,
    /// The segments of that text, what it shares with the original marked
    /// (one unmarked piece without an original).
    pub segments: Vec<Segment>,
    /// The original it duplicates, when it does and the original is still
    /// stored.
    pub original: Option<Original>,
    /// The engine's explanation of the pair (A the original, B the
    /// document), when there is an original and its signature is stored
    /// (not for one kept by its band keys: then `lines` say so).
    pub explanation: Option<PairExplanation>,
    /// The explanation as lines of text.
    pub lines: Vec<String>,
    /// The shingle length of the marked passages.
    pub k: usize,
}

impl ContentSeen {
    /// The verdict of [`ContentSeen::check`] on `doc` (nothing is stored),
    /// explained against the original it matches.
    ///
    /// # Errors
    /// As [`ContentSeen::check`], and a store that cannot be read.
    pub fn explain(&self, doc: RawDocument) -> Result<Explained, Error> {
        let shared = self.shared();
        let verdict = self.check(doc.clone())?;
        let page = Page::from_raw(doc, &shared.extractor)
            .map_err(|e| Error::with_source(ErrorKind::Extract(e.to_string()), e))?;
        let dedup = &shared.dedup;
        let k = dedup.verifier().map_or(PASSAGE_K, |v| v.k);
        let stored = match &verdict.duplicate_of {
            Some(id) => shared.store.get(id)?.map(|r| (id.clone(), r)),
            None => None,
        };
        let Some((id, record)) = stored else {
            let whole = vec![Segment {
                range: 0..page.text.len(),
                mark: neardup::dedup::Mark::Other,
            }];
            return Ok(Explained {
                verdict,
                segments: if page.text.is_empty() {
                    Vec::new()
                } else {
                    whole
                },
                text: page.text,
                original: None,
                explanation: None,
                lines: Vec::new(),
                k,
            });
        };
        let doc = dedup.fingerprint_doc(
            page.id.clone(),
            page.url.clone(),
            &page.text,
            &page.paragraphs,
        );
        let original = match &record.text {
            Some(t) => dedup.fingerprint_doc(id.clone(), record.url.clone(), t, &[]),
            // Without its text, the original is known by its signature.
            None => Fingerprinted {
                id: id.clone(),
                url: record.url.clone(),
                text_len: record.text_len as usize,
                signature: match &record.signature {
                    Some(b) => Some(
                        Signature::from_bytes(b)
                            .map_err(|e| Error::corrupt(format!("signature of {id:?}: {e}")))?,
                    ),
                    None => None,
                },
                shingles: None,
                error: None,
            },
        };
        let (explanation, lines) = if record.signature.is_none() && record.band_keys.is_some() {
            // A sketch-mode store keeps band keys, not the signature: the
            // pair is shown as it was verified, on the two sketches.
            let sketch = record
                .sketch
                .as_deref()
                .and_then(ShingleSeq::from_sketch_bytes);
            let line = match (dedup.verifier(), sketch, &doc.shingles) {
                (Some(v), Some(a), Some(b)) => match v.check(&a, b) {
                    Some(c) => format!(
                        "verification sketch: Jaccard {:.3} (threshold {}): a near-duplicate",
                        c.jaccard, v.threshold
                    ),
                    None => "verification sketch: not a near-duplicate".to_string(),
                },
                _ => "verification sketch: not stored".to_string(),
            };
            (None, vec![BAND_KEYS_ONLY.to_string(), line])
        } else {
            let explanation = dedup.explain(&original, &doc);
            let lines = explanation.lines(dedup.verifier());
            (Some(explanation), lines)
        };
        let (of_original, of_doc) = match &record.text {
            Some(t) => shared_passages(t, &page.text, k),
            None => (Vec::new(), shared_passages("", &page.text, k).1),
        };
        Ok(Explained {
            lines,
            explanation,
            verdict,
            text: page.text,
            segments: of_doc,
            original: Some(Original {
                id,
                url: record.url,
                text: record.text,
                segments: of_original,
            }),
            k,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use neardup::dedup::Mark;
    use neardup::io::Content;
    use neardup_testkit::TempDir;

    fn text(id: &str, t: &str) -> RawDocument {
        RawDocument {
            id: id.into(),
            url: None,
            content: Content::Text(t.into()),
        }
    }

    const STORY: &str = "The council approved the new cycle lanes on the high street after a \
        long debate on Monday evening, and work will start in the spring when the weather allows.";

    #[test]
    fn a_near_duplicate_is_explained_against_its_original_text() {
        let dir = TempDir::new("explain-dup");
        let seen = ContentSeen::open(&dir, &Config::new()).unwrap();
        seen.insert(text("a", STORY)).unwrap();
        let e = seen
            .explain(text("b", &format!("{STORY} Reporting by the desk.")))
            .unwrap();
        assert_eq!(e.verdict.duplicate_of.as_deref(), Some("a"));
        assert!(!e.verdict.stored);
        let o = e.original.as_ref().unwrap();
        assert_eq!(o.text.as_deref(), Some(STORY));
        assert!(o.segments.iter().any(|s| s.mark == Mark::Shared));
        let only: Vec<&str> = e
            .segments
            .iter()
            .filter(|s| s.mark == Mark::Only)
            .map(|s| &e.text[s.range.clone()])
            .collect();
        assert_eq!(only, ["Reporting by the desk"]);
        assert!(e.lines[0].contains("near-duplicate"), "{:?}", e.lines);
        assert_eq!(e.k, 3);
        // Nothing was stored.
        assert_eq!(seen.stats().documents, 1);
    }

    #[test]
    fn a_new_document_has_no_original() {
        let dir = TempDir::new("explain-new");
        let seen = ContentSeen::open(&dir, &Config::new()).unwrap();
        let e = seen.explain(text("n", STORY)).unwrap();
        assert_eq!(e.verdict.kind(), "new");
        assert!(e.original.is_none() && e.explanation.is_none());
        assert_eq!(e.segments.len(), 1);
        let empty = seen.explain(text("e", " -- ")).unwrap();
        assert_eq!(empty.verdict.kind(), "empty");
        assert!(empty.original.is_none() && empty.lines.is_empty());
    }
}

#[cfg(test)]
mod sketch_tests {
    use super::*;
    use crate::config::Config;
    use neardup::io::Content;
    use neardup::Verifier;
    use neardup_testkit::TempDir;

    #[test]
    fn an_original_kept_by_band_keys_is_said_so() {
        let dir = TempDir::new("explain-band-keys");
        let mut config = Config::new();
        config.verifier(Some(Verifier::default().sketched()));
        let seen = ContentSeen::open(&dir, &config).unwrap();
        let story: String = (0..300)
            .map(|i| format!("w{} ", (i * 7919) % 10_007))
            .collect();
        let doc = |id: &str, t: String| RawDocument {
            id: id.into(),
            url: None,
            content: Content::Text(t),
        };
        seen.insert(doc("a", story.clone())).unwrap();
        let e = seen.explain(doc("b", format!("{story} tail"))).unwrap();
        assert_eq!(e.verdict.duplicate_of.as_deref(), Some("a"));
        assert_eq!(e.lines[0], BAND_KEYS_ONLY, "{:?}", e.lines);
        assert!(e.lines[1].contains("a near-duplicate"), "{:?}", e.lines);
        assert!(e.explanation.is_none() && e.original.is_some());
        let info = seen.get("a").unwrap().unwrap();
        assert_eq!(info.signature_bytes, 0);
        assert!(info.signature_hash.is_some());
    }
}
