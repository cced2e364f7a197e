//! Ingest joined with extraction and the span stage: one input item in,
//! one analysed document out.

use neardup_extract::Extractor;
use neardup_io::{Content, Item, RawDocument};
use neardup_spans::{Analysis, SpanFinder};

use crate::page::Page;

/// A document read for the span stage: its id, and its text with its
/// analysis or the reason it could not be read.
pub type SpanDoc = (String, Result<(String, Analysis), String>);

/// Decodes, extracts and analyses one input item; `None` for a record that
/// is not a document. Plain text (JSON Lines, text files) is taken as it
/// is, so that span offsets index the user's own text; HTML becomes its
/// main text (the paragraphs `neardup extract` gives, joined by line
/// breaks).
pub fn span_item(finder: &SpanFinder, item: Item, extractor: &Extractor) -> Option<SpanDoc> {
    item_with(item, extractor, |text, paragraphs| {
        finder.analyze(text, paragraphs)
    })
}

/// [`span_item`] for [`SpanRun::push`](neardup_spans::SpanRun::push)
/// alone: the analysis is [`SpanFinder::analyze_for_run`]'s, which leaves
/// a long document's substring tokens in its text for the run to take.
pub fn span_item_for_run(
    finder: &SpanFinder,
    item: Item,
    extractor: &Extractor,
) -> Option<SpanDoc> {
    item_with(item, extractor, |text, paragraphs| {
        finder.analyze_for_run(text, paragraphs)
    })
}

fn item_with(
    item: Item,
    extractor: &Extractor,
    analyze: impl Fn(&str, Option<&[String]>) -> Analysis,
) -> Option<SpanDoc> {
    match item {
        Item::Document(RawDocument {
            id,
            content: Content::Text(text),
            ..
        }) => {
            let a = analyze(&text, None);
            Some((id, Ok((text, a))))
        }
        Item::Document(raw) => {
            let id = raw.id.clone();
            Some(match Page::from_raw(raw, extractor) {
                Ok(page) => {
                    let a = analyze(&page.text, Some(&page.paragraphs));
                    (id, Ok((page.text, a)))
                }
                Err(e) => (id, Err(e.to_string())),
            })
        }
        Item::Error(e) => Some((e.id, Err(e.kind.to_string()))),
        Item::Skipped { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_its_main_text_and_plain_text_is_itself() {
        let finder = SpanFinder::builder().min_chars(5).build().unwrap();
        let ex = Extractor::new();
        let html = Item::Document(RawDocument {
            id: "h".into(),
            url: None,
            content: Content::Html {
                bytes: b"<html><body><nav><a href=/>Home page link</a></nav><article><p>First paragraph of the story.</p><p>Second one, with<br>a break.</p></article></body></html>".to_vec(),
                content_type: None,
            },
        });
        let (id, body) = span_item(&finder, html, &ex).unwrap();
        let (text, a) = body.unwrap();
        assert_eq!(id, "h");
        assert!(text.contains("First paragraph of the story."));
        assert!(!text.contains("Home page"));
        assert_eq!(a.units(), 2);
        let plain = Item::Document(RawDocument {
            id: "t".into(),
            url: None,
            content: Content::Text("  kept as it is  \n\nsecond line".into()),
        });
        let (_, body) = span_item(&finder, plain, &ex).unwrap();
        assert_eq!(body.unwrap().0, "  kept as it is  \n\nsecond line");
    }
}
