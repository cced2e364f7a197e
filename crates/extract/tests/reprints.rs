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

#[test]
fn escaped_tracking_pixel_is_dropped() {
    let html = format!(
        "<body><article><p>&lt;img height=\"1\" width=\"1\" style=\"display:none\" \
         src=\"https://pixel.example.com/p?c1=2&amp;c2=99\"&gt;</p>{}</article></body>",
        story("gardens", 5)
    );
    let text = main_text(&html);
    assert!(!text.contains("img height"), "{text}");
    assert!(text.starts_with("Paragraph 0 gardens"), "{text}");
}

#[test]
fn text_in_angle_brackets_is_kept() {
    let html = format!(
        "<body><article>{}<p>&lt;The Palace: Tale of a Scribe&gt;</p>{}</article></body>",
        story("gardens", 3),
        story("gardens", 3)
    );
    assert!(main_text(&html).contains("<The Palace: Tale of a Scribe>"));
}

#[test]
fn teaser_section_after_the_article_is_cut() {
    let html = format!(
        "<body><div>{}<h3>More in Local Sport</h3>{}</div></body>",
        story("gardens", 6),
        story("harbours", 2)
    );
    let text = main_text(&html);
    assert!(text.contains("gardens"), "{text}");
    assert!(
        !text.contains("More in") && !text.contains("harbours"),
        "{text}"
    );
}

#[test]
fn chinese_editor_and_disclaimer_lines_are_cut() {
    let para = "<p>今天上午，市政府召开新闻发布会，介绍了今年城市绿化工作的进展情况，\
                各区共新增公园绿地一百多公顷，市民普遍表示满意。</p>";
    let html = format!(
        "<body><div>{para}{para}{para}<p>（责任编辑：王明）</p>\
         <p>版权与免责声明：凡本网注明来源的作品，未经本网授权不得转载、摘编或利用其它方式使用，\
         违者本网将依法追究责任。</p></div></body>"
    );
    let text = main_text(&html);
    assert!(text.contains("市政府"), "{text}");
    assert!(
        !text.contains("责任编辑") && !text.contains("免责声明"),
        "{text}"
    );
}

#[test]
fn marker_words_early_in_the_article_are_kept() {
    let html = format!(
        "<body><article><p>Copyright © law was the subject of the hearing, as the judge said.</p>{}</article></body>",
        story("gardens", 4)
    );
    let text = main_text(&html);
    assert!(text.starts_with("Copyright ©"), "{text}");
}

#[test]
fn author_bio_and_teasers_are_furniture() {
    let teasers: String = (0..6)
        .map(|i| {
            format!(
                "<div class='teaser'><h3><a href=/t{i}>Story {i}</a></h3>\
                 <p>Teaser sentence {i} says something catchy, with a comma, about another story.</p></div>"
            )
        })
        .collect();
    let html = format!(
        "<body><div><div class=story>{}</div>\
         <div class='author-details'><div class=bio>Pat Doe is a freelance writer living in Oslo, writing about towns.</div></div>\
         {teasers}</div></body>",
        story("gardens", 4)
    );
    let text = main_text(&html);
    assert!(text.contains("gardens"), "{text}");
    assert!(
        !text.contains("freelance") && !text.contains("Teaser"),
        "{text}"
    );
}
