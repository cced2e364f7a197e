//! Reprinted articles inside other sites' templates: the article must come
//! out without the template's leftovers.

use neardup_extract::Extractor;

fn main_text(html: &str) -> String {
    Extractor::new()
        .extract(html)
        .expect("extraction succeeds")
        .text
}

/// Running-text paragraphs about one subject; stories on different
/// subjects share no three words in a row.
fn story(subject: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "<p>Paragraph {i} {subject} one, {subject} two {subject} three {subject} \
                 four, {subject} five {subject} six {subject} seven. {subject} eight {subject} \
                 nine {subject} ten {subject} eleven.</p>"
            )
        })
        .collect()
}

#[test]
fn hidden_declared_body_beats_visible_leftover() {
    let html = format!(
        "<body><article>{}</article>\
         <div style='display:none' itemscope><div itemprop='articleBody'>{}</div></div></body>",
        story("gardens", 6),
        story("harbours", 6)
    );
    let text = main_text(&html);
    assert!(text.contains("harbours"), "{text}");
    assert!(!text.contains("gardens"), "{text}");
}

#[test]
fn hidden_copy_of_the_visible_article_changes_nothing() {
    let visible = story("gardens", 6);
    let html = format!(
        "<body><div id=nav><a href=/>Home</a></div><article>{visible}</article>\
         <div style='display:none'><div itemprop='articleBody'>{visible}</div></div></body>"
    );
    let text = main_text(&html);
    assert_eq!(text.matches("Paragraph 0 gardens one").count(), 1, "{text}");
}

#[test]
fn short_hidden_body_is_ignored() {
    let html = format!(
        "<body><article>{}</article>\
         <div style='display:none'><div itemprop='articleBody'>A short teaser.</div></div></body>",
        story("gardens", 6)
    );
    let text = main_text(&html);
    assert!(
        text.contains("gardens") && !text.contains("teaser"),
        "{text}"
    );
}
