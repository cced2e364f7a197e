//! Extraction on small realistic pages written for these tests.

use neardup_extract::{Document, Extractor, Mode};

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn main_text(html: &str) -> Document {
    Extractor::new().extract(html).expect("extraction succeeds")
}

#[test]
fn news_keeps_article_and_drops_furniture() {
    let doc = main_text(&fixture("news.html"));
    assert_eq!(doc.title, "Harbour bridge reopens after two-year repair");
    for wanted in [
        "reopened to traffic on Monday morning",
        "new drainage system",
        "Relief for commuters",
        "another hundred years",
        "Total cost: 41 million pounds",
        "railings are painted",
    ] {
        assert!(
            doc.text.contains(wanted),
            "missing {wanted:?} in {:?}",
            doc.text
        );
    }
    for unwanted in [
        "Sport",
        "Accept all cookies",
        "Share on Facebook",
        "Council approves new cycle lanes",
        "detour was a nightmare",
        "Storm warning",
        "daily newsletter",
        "Copyright",
        "Privacy policy",
        "not text",
        "dataLayer",
    ] {
        assert!(
            !doc.text.contains(unwanted),
            "kept {unwanted:?} in {:?}",
            doc.text
        );
    }
    assert_eq!(doc.text, doc.paragraphs.join("\n"));
}

#[test]
fn news_paragraphs_in_reading_order() {
    let doc = main_text(&fixture("news.html"));
    let pos = |s: &str| doc.paragraphs.iter().position(|p| p.contains(s));
    let first = pos("reopened to traffic").expect("first paragraph");
    let heading = pos("Relief for commuters").expect("heading");
    let last = pos("railings are painted").expect("last paragraph");
    assert!(first < heading && heading < last);
    assert_eq!(doc.paragraphs[heading], "Relief for commuters");
    assert!(doc
        .paragraphs
        .iter()
        .all(|p| !p.contains("  ") && p.trim() == p));
}

#[test]
fn all_text_mode_keeps_everything_visible() {
    let html = fixture("news.html");
    let doc = Extractor::builder()
        .mode(Mode::AllText)
        .build()
        .extract(&html)
        .expect("extraction succeeds");
    for wanted in [
        "Sport",
        "Copyright 2024",
        "detour was a nightmare",
        "new drainage system",
    ] {
        assert!(doc.text.contains(wanted), "missing {wanted:?}");
    }
    assert!(!doc.text.contains("dataLayer"));
    assert!(!doc.text.contains("font-family"));
    assert!(!doc.text.contains("articleBody"));
}

#[test]
fn forum_posts_split_on_double_br() {
    let doc = main_text(&fixture("forum.html"));
    assert!(doc.text.contains("going away for three weeks"));
    assert!(doc.text.contains("The fridge is fine for three weeks"));
    assert!(doc.text.contains("a dried starter keeps for months"));
    assert!(!doc.text.contains("Powered by"));
    let p = doc
        .paragraphs
        .iter()
        .find(|p| p.starts_with("Any experience"))
        .expect("double <br> starts a new paragraph");
    assert!(p.ends_with("thanks in advance!"));
    assert!(doc
        .paragraphs
        .iter()
        .any(|p| p.contains("while I am gone.\nShould I keep it")));
}

#[test]
fn chinese_page() {
    let doc = main_text(&fixture("zh.html"));
    assert_eq!(doc.title, "城市公园完成改造重新开放");
    assert!(doc.text.contains("人民公园于本周六正式重新向市民开放"));
    assert!(doc.text.contains("现在走起来舒服多了"));
    assert!(!doc.text.contains("版权所有"));
    assert!(!doc.text.contains("地铁三号线"));
    assert!(!doc.text.contains("财经"));
}

#[test]
fn extractor_is_shareable_across_threads() {
    let ex = Extractor::new();
    let html = fixture("news.html");
    let expected = ex.extract(&html).expect("ok");
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let ex = ex.clone();
                let html = &html;
                s.spawn(move || ex.extract(html).expect("ok"))
            })
            .collect();
        for h in handles {
            assert_eq!(h.join().expect("thread"), expected);
        }
    });
}
