//! Ingest joined with extraction and the engine: one input item in, one
//! fingerprinted document out.

use neardup_dedup::{Dedup, Fingerprinted};
use neardup_extract::Extractor;
use neardup_io::{Content, Item, RawDocument};

use crate::page::Page;

/// Decodes, extracts and fingerprints one input item with `dedup`'s
/// method; `None` for a record that is not a document (skipped on
/// purpose). A document that cannot be decoded or extracted comes back
/// with its error, so that the output keeps one line per input document.
pub fn fingerprint_item(dedup: &Dedup, item: Item, extractor: &Extractor) -> Option<Fingerprinted> {
    match item {
        Item::Document(RawDocument {
            id,
            url,
            content: Content::Text(text),
        }) => {
            // Plain text needs no page: its paragraphs are its lines, which
            // every method reads from the text itself when given none.
            Some(crate::page::with_plain_text(&text, |text| {
                dedup.fingerprint_doc(id, url, text, &[])
            }))
        }
        Item::Document(raw) => {
            let (id, url) = (raw.id.clone(), raw.url.clone());
            Some(match Page::from_raw(raw, extractor) {
                Ok(page) => dedup.fingerprint_doc(id, url, &page.text, &page.paragraphs),
                Err(e) => Fingerprinted::failed(id, url, e.to_string()),
            })
        }
        Item::Error(e) => Some(Fingerprinted::failed(e.id, None, e.kind.to_string())),
        Item::Skipped { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use neardup_io::{DocError, DocErrorKind};

    #[test]
    fn documents_failures_and_skips() {
        let dedup = Dedup::new();
        let ex = Extractor::new();
        let doc = Item::Document(RawDocument {
            id: "a".into(),
            url: Some("http://x/a".into()),
            content: Content::Text("some words of a short text here".into()),
        });
        let f = fingerprint_item(&dedup, doc, &ex).unwrap();
        assert!(f.signature.is_some() && f.shingles.is_some() && f.error.is_none());
        assert_eq!(f.as_doc().url, "http://x/a");
        let empty = Item::Document(RawDocument {
            id: "e".into(),
            url: None,
            content: Content::Text(" ".into()),
        });
        let e = fingerprint_item(&dedup, empty, &ex).unwrap();
        assert!(e.signature.is_none() && e.error.is_none());
        let err = Item::Error(DocError {
            id: "x".into(),
            kind: DocErrorKind::Json("line 2: bad".into()),
        });
        let x = fingerprint_item(&dedup, err, &ex).unwrap();
        assert!(x.error.unwrap().contains("line 2"));
        let skipped = Item::Skipped {
            id: "s".into(),
            reason: "r".into(),
        };
        assert!(fingerprint_item(&dedup, skipped, &ex).is_none());
    }
}
