//! Pages that are not articles: a listing of record items and a product
//! page (small pages written for these tests).

use neardup_extract::{Document, Extractor};

fn extract(name: &str) -> Document {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let html = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    Extractor::new()
        .extract(&html)
        .expect("extraction succeeds")
}

fn assert_kept(doc: &Document, wanted: &[&str], unwanted: &[&str]) {
    for w in wanted {
        assert!(doc.text.contains(w), "missing {w:?} in {:?}", doc.text);
    }
    for u in unwanted {
        assert!(!doc.text.contains(u), "kept {u:?} in {:?}", doc.text);
    }
}

#[test]
fn a_listing_keeps_its_items_not_the_one_sentence_beside_them() {
    let doc = extract("listing.html");
    assert_kept(
        &doc,
        &[
            "Ridge Runner 3 trail shoe - Men's",
            "$119.95",
            "212 reviews, average rating 4.6 out of 5 stars",
            "Long Haul ultra trail shoe - Men's",
            "Drop: 6 mm, Weight: 300 g",
        ],
        &[
            "browser is no longer supported",
            "Filter by",
            "Brand A (12)",
            "Next",
            "All rights reserved",
            "Kids",
        ],
    );
    // Every item, in reading order.
    let pos = |s: &str| doc.text.find(s).expect(s);
    assert!(pos("Ridge Runner") < pos("Canyon Grip") && pos("Canyon Grip") < pos("Long Haul"));
}

#[test]
fn a_product_page_keeps_its_description_and_specifications_not_its_reviews() {
    let doc = extract("product.html");
    assert_eq!(doc.title, "Alder Stratus electric guitar");
    assert_kept(
        &doc,
        &[
            "roasted maple neck",
            "five-way switch",
            "Frets: 22 medium jumbo",
        ],
        &[
            "best neck of all",
            "practice amplifier",
            "What players say",
            "Copyright",
        ],
    );
}

#[test]
fn without_its_items_the_listing_page_is_read_as_before() {
    // The same page with a single item is no listing: the article reading
    // stands (one sentence is all the running text it has).
    let html = std::fs::read_to_string(format!(
        "{}/tests/data/listing.html",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture");
    let start = html.find("<li><a href=\"/p/2\">").expect("second item");
    let end = html.find("    </ul>\n    <nav").expect("end of items");
    let single = format!("{}{}", &html[..start], &html[end..]);
    let doc = Extractor::new()
        .extract(&single)
        .expect("extraction succeeds");
    assert!(!doc.text.contains("Canyon Grip"));
    assert!(
        doc.text.contains("browser is no longer supported"),
        "{:?}",
        doc.text
    );
}

#[test]
fn a_service_page_starts_at_its_heading() {
    let doc = extract("service.html");
    assert_kept(
        &doc,
        &[
            "Bookkeeping that keeps up with your business",
            "Monthly books, payroll and tax filings for firms of 1 to 50 people",
            "Books closed every month",
            "so that you never have to chase a deadline again",
            "with every receipt matched to its transaction",
        ],
        &["Pricing", "All rights reserved", "Privacy"],
    );
    assert!(doc
        .text
        .starts_with("Bookkeeping that keeps up with your business\n"));
}

#[test]
fn a_dated_story_in_the_same_layout_does_not() {
    let html = std::fs::read_to_string(format!(
        "{}/tests/data/service.html",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture");
    // The same page with a dateline under its heading is a story: its
    // headline is the title, not part of the text.
    let story = html.replace(
        "<div><a href=\"/start\">Get started</a></div>",
        "<div>Published 12 March 2025</div>",
    );
    let doc = Extractor::new()
        .extract(&story)
        .expect("extraction succeeds");
    assert_kept(
        &doc,
        &["Books closed every month", "with every receipt matched"],
        &["Bookkeeping that keeps up"],
    );
    // ... and so is one that declares no kind at all.
    let plain = html.replace("<meta property=\"og:type\" content=\"website\">", "");
    let doc = Extractor::new()
        .extract(&plain)
        .expect("extraction succeeds");
    assert!(
        !doc.text.contains("Bookkeeping that keeps up"),
        "{}",
        doc.text
    );
}
