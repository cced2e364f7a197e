//! Segmentation of common structures and title rules.

use neardup_extract::{Extractor, Mode};

fn all_text(html: &str) -> Vec<String> {
    Extractor::builder()
        .mode(Mode::AllText)
        .build()
        .extract(html)
        .expect("extraction succeeds")
        .paragraphs
}

#[test]
fn br_separated_text() {
    let p = all_text("<div>line one<br>line two<br><br>next block<br/><br/>last</div>");
    assert_eq!(p, vec!["line one\nline two", "next block", "last"]);
}

#[test]
fn tables_cells_are_blocks() {
    let p = all_text(
        "<table><tr><th>Name</th><th>Age</th></tr><tr><td>Alice</td><td>30</td></tr></table>",
    );
    assert_eq!(p, vec!["Name", "Age", "Alice", "30"]);
}

#[test]
fn lists_items_are_blocks() {
    let p = all_text("<ul><li>first <b>item</b></li><li>second</li></ul><ol><li>third</li></ol>");
    assert_eq!(p, vec!["first item", "second", "third"]);
}

#[test]
fn unclosed_tags_are_repaired() {
    let p = all_text("<p>one <b>bold <i>both<p>two<li>three<div>four");
    assert_eq!(p, vec!["one bold both", "two", "three", "four"]);
}

#[test]
fn entities_and_whitespace() {
    let p = all_text("<p>  fish &amp; chips \n\t&lt;tag&gt;&nbsp;done </p>");
    assert_eq!(p, vec!["fish & chips <tag> done"]);
}

#[test]
fn hidden_and_raw_text_are_skipped() {
    let p = all_text(
        "<p>shown</p><div style='visibility: hidden'>no</div><div style='display:none'>no</div>\
         <template><p>no</p></template><svg><text>no</text></svg><script>no</script>",
    );
    assert_eq!(p, vec!["shown"]);
}

#[test]
fn title_rules() {
    let title = |html: &str| Extractor::new().extract(html).expect("ok").title;
    assert_eq!(
        title("<title>Plain headline here</title>"),
        "Plain headline here"
    );
    assert_eq!(
        title("<title>Storm hits the coast | Daily Paper</title><h1>Storm hits the coast</h1>"),
        "Storm hits the coast"
    );
    assert_eq!(
        title("<meta property='og:title' content='From OG'><title>Other - Site</title>"),
        "From OG"
    );
    assert_eq!(
        title("<h1>Only a heading</h1><p>text</p>"),
        "Only a heading"
    );
    assert_eq!(title("<p>nothing</p>"), "");
}

#[test]
fn main_mode_prefers_the_text_block_over_link_lists() {
    let links: String = (0..30)
        .map(|i| format!("<li><a href='/{i}'>Link number {i}</a></li>"))
        .collect();
    let body = "<p>This is a long paragraph of real running text, with commas, full stops and \
                enough words to look like the main content of a page.</p>"
        .repeat(4);
    let html =
        format!("<ul class='menu'>{links}</ul><div class='story'>{body}</div><ul>{links}</ul>");
    let doc = Extractor::new().extract(&html).expect("ok");
    assert_eq!(doc.paragraphs.len(), 4);
    assert!(!doc.text.contains("Link number"));
}
