//! The pipeline on small pages: containers, JSON-LD, listings, fallbacks.

use super::*;

fn main_text(html: &str) -> Vec<String> {
    run(html, Mode::Main, 512).paragraphs
}

const PARA: &str = "A sentence of real running text, long enough and with punctuation, \
                    that should be recognised as the article body of this page.";

#[test]
fn picks_the_densest_container() {
    let html = format!(
        "<body><div id=nav><a href=/a>Home</a> <a href=/b>About</a></div>\
         <div id=story><p>{PARA}</p><p>{PARA}</p></div>\
         <div id=side><p>Short note.</p></div></body>"
    );
    assert_eq!(main_text(&html), vec![PARA, PARA]);
}

#[test]
fn json_ld_points_at_the_right_container() {
    let teaser = "A teaser paragraph of another story, long enough and with commas, \
                  which is not the article although it looks like one.";
    let body = "The real article starts here, and it says what the JSON-LD says, word \
                for word, so that the matching block is found by the scorer.";
    let links = "<li><a href=/x>a link to somewhere else</a></li>".repeat(8);
    let html = format!(
        "<script type='application/ld+json'>{{\"articleBody\": \"{body} {body} {body}\"}}</script>\
         <div id=others><p>{teaser}</p><p>{teaser}</p><p>{teaser}</p></div>\
         <ul>{links}</ul><div id=text><p>{body}</p></div>"
    );
    assert_eq!(main_text(&html), vec![body]);
    // Without the JSON-LD the teasers win: they hold more text.
    let plain = html.replace("articleBody", "description");
    assert_eq!(main_text(&plain).len(), 3);
}

#[test]
fn all_text_mode_keeps_everything() {
    let html = "<nav><a href=/>Home</a></nav><p>Body text.</p><footer>Foot</footer>";
    assert_eq!(
        run(html, Mode::AllText, 512).paragraphs,
        vec!["Home", "Body text.", "Foot"]
    );
}

#[test]
fn a_small_page_without_main_text_gets_its_visible_text() {
    assert_eq!(main_text("<p>hi</p>"), vec!["hi"]);
    assert_eq!(main_text("hello you"), vec!["hello you"]);
    assert!(main_text("").is_empty());
}

#[test]
fn a_page_without_content_blocks_gives_the_text_around_its_heading() {
    let menu = "<li><a href=/x>Menu entry</a></li>".repeat(200);
    let html = format!(
        "<body><nav><ul>{menu}</ul></nav><main><div><span>r/technology</span>\
         <h1>Regulator warns satellite providers</h1><a href=/out>pcmag.com</a></div></main>\
         <footer><a href=/a>About</a> <a href=/b>Careers</a></footer></body>"
    );
    // The article reading finds nothing: its headline is no text.
    let dom = parse_tendril(prefilter(&html), 512);
    let a = analyze(&dom);
    let visible = |id: NodeId| !a.invisible.get(id).copied().unwrap_or(true);
    let blocks = segment(&dom, &a, body_of(&dom, &a), &visible);
    assert!(main_blocks(&dom, &a, &blocks, &ld_texts(&dom, &a), false).is_empty());
    // The label before the heading is left out, and so is the link
    // block after it (link-dense blocks are not a page's text).
    assert_eq!(
        main_text(&html),
        vec!["Regulator warns satellite providers"]
    );
}

#[test]
fn text_is_joined_paragraphs() {
    let doc = run(&format!("<p>{PARA}</p><p>{PARA}</p>"), Mode::Main, 512);
    assert_eq!(doc.text, doc.paragraphs.join("\n"));
}

/// A product card: a linked title, then a caption with its maker,
/// number and price (class names that read as boilerplate).
fn card(i: u32) -> String {
    format!(
        "<div><a href=/p{i}><div class=caption><div>Laser projector model {i} with 4K</div>\
         <div>Maker: Brand{i}</div><div>Item number: LP-{i}</div>\
         <div>Price: $1,{i}99.00</div></div></a></div>"
    )
}

#[test]
fn record_items_keep_parts_whose_class_names_look_like_furniture() {
    let grid: String = (0..8).map(card).collect();
    let html = format!(
        "<body><nav><a href=/>Home</a> <a href=/s>Shop</a></nav>\
         <main><div>Products 1-8 of 8</div><div>{grid}</div></main></body>"
    );
    let got = main_text(&html);
    assert!(got.iter().any(|p| p == "Maker: Brand3"), "{got:?}");
    assert!(got.iter().any(|p| p == "Price: $1,799.00"), "{got:?}");
    // In an article, a caption is still furniture.
    let article = format!(
        "<body><article><p>{PARA}</p><div class=caption>Photo: a projector</div>\
         <p>{PARA}</p></article></body>"
    );
    assert_eq!(main_text(&article), vec![PARA, PARA]);
}

#[test]
fn records_outweighing_an_introduction_many_times_make_a_listing() {
    let intro = "<p>Our projectors, chosen by our experts, for every room and every budget.</p>";
    let grid: String = (0..80)
        .map(|i| {
            format!(
                "<li><h3><a href=/p{i}>Laser projector model {i} with 4K</a></h3>\
                 <div>$1,{i}99.00</div></li>"
            )
        })
        .collect();
    let html = format!("<body><main><div>{intro}{intro}</div><ul>{grid}</ul></main></body>");
    let got = main_text(&html);
    assert!(got.len() > 60, "{got:?}");
    assert!(got.iter().any(|p| p == "$1,2999.00"), "{got:?}");
    // Two paragraphs of a story beside a few records: the story.
    let few: String = (0..3)
        .map(|i| {
            format!(
                "<li><h3>Other story {i}</h3><div>By a writer, today</div>\
                 <div>12 comments</div></li>"
            )
        })
        .collect();
    let story = format!("<body><main><p>{PARA}</p><p>{PARA}</p></main><ul>{few}</ul></body>");
    assert_eq!(main_text(&story), vec![PARA, PARA]);
}
