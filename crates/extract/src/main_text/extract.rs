//! The extraction pipeline: pre-filter, parse, analyse, segment, score,
//! select the container, clean it.

use html5ever::local_name;

use crate::analyze::{analyze, Analysis};
use crate::clean::{clean, good_tokens, Kind, Start};
use crate::dom::{Dom, NodeId, DOCUMENT};
use crate::jsonld::{declared_body, declares_product, ld_texts, Reference};
use crate::labels::without_repeated_labels;
use crate::listing::{enclosing, good_in, in_place_candidate, listing_blocks, listing_in_place};
use crate::page_kind::{dateline, declares_page, is_article, main_heading, with_heading};
use crate::parse::parse_tendril;
use crate::prefilter::prefilter;
use crate::product::{product_block, without_furniture};
use crate::records::records;
use crate::score::{classify, mostly_boiler, select_container, Class, Furniture};
use crate::segment::{segment, segment_hidden, Block};
use crate::thread::{declared_posts, declares_discussion, declares_replies, with_first_post};
use crate::title::title;
use crate::{Document, Mode};

/// Coverage above which a block counts as confirmed by JSON-LD.
const JSONLD_MATCH: f32 = 0.5;
/// Scoring weight of blocks not confirmed by a JSON-LD body that exists.
const JSONLD_OTHER_WEIGHT: f32 = 0.2;
/// Scoring weight of good-looking text inside boilerplate-flagged elements.
const BOILER_WEIGHT: f32 = 0.25;
/// A hidden microdata `articleBody` counts from this many tokens.
const HIDDEN_BODY_MIN_TOKENS: u32 = 80;
/// ... and is the article when less than this share of it is on screen.
const HIDDEN_BODY_SHOWN: f32 = 0.3;
/// Record regions count from this many tokens.
const MIN_RECORD_TOKENS: u32 = 30;
/// Running text of this many tokens makes the page an article whatever
/// else it lists (teasers, tables of contents, category text above a grid).
const ARTICLE_MIN_TOKENS: u32 = 300;
/// ... and so do this many paragraphs of running text, unless records
/// outweigh them (`LISTING_RATIO_OVER_TEXT`)...
const ARTICLE_MIN_PARAGRAPHS: usize = 2;
/// ... or one paragraph of this many tokens.
const ARTICLE_LONG_PARAGRAPH: u32 = 100;
/// A page is a listing when its largest record region holds this many
/// times the running text of the container the article reading found...
const LISTING_RATIO: u32 = 2;
/// ... or this many times when that text is paragraphs of running text
/// (an introduction above a grid, not a story beside a list of links;
/// lower, more pages read as listings and near-duplicate detection of
/// edited pages loses recall).
const LISTING_RATIO_OVER_TEXT: u32 = 16;
/// Pages up to this size whose main text is empty get their visible text.
const SMALL_PAGE_BYTES: usize = 4096;

/// A microdata `articleBody` hidden by an inline style whose text the page
/// does not show anywhere: the page declares it as its article while the
/// visible layout holds something else (a stale or leftover story). Its
/// blocks are the article.
fn hidden_declared_body(dom: &Dom, a: &Analysis, blocks: &[Block]) -> Option<Vec<Block>> {
    for &id in &a.order {
        if !a.invisible.get(id).copied().unwrap_or(false) {
            continue;
        }
        let declared = dom.attr(id, &local_name!("itemprop")).is_some_and(|v| {
            v.split_ascii_whitespace()
                .any(|w| w.eq_ignore_ascii_case("articleBody"))
        });
        if !declared {
            continue;
        }
        let hb = segment_hidden(dom, a, id);
        let total: u32 = hb.iter().map(|b| b.tokens).sum();
        if total < HIDDEN_BODY_MIN_TOKENS {
            continue;
        }
        let joined = hb
            .iter()
            .map(|b| b.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let reference = Reference::new(&joined);
        let shown: u32 = blocks
            .iter()
            .filter(|b| b.tokens >= 8 && reference.coverage(&b.text) > JSONLD_MATCH)
            .map(|b| b.tokens)
            .sum();
        if (shown as f32) < HIDDEN_BODY_SHOWN * total as f32 {
            return Some(hb);
        }
    }
    None
}

fn body_of(dom: &Dom, a: &Analysis) -> NodeId {
    a.order
        .iter()
        .copied()
        .find(|&id| dom.local_name(id) == Some(&local_name!("body")))
        .unwrap_or(DOCUMENT)
}

/// Extract a document from already size-checked HTML.
pub(crate) fn run(html: &str, mode: Mode, max_depth: usize) -> Document {
    document(&parse_tendril(prefilter(html), max_depth), html.len(), mode)
}

/// The document of a parsed page of `html_len` bytes.
pub(crate) fn document(dom: &Dom, html_len: usize, mode: Mode) -> Document {
    let a = analyze(dom);
    let title = title(dom, &a);
    let body = body_of(dom, &a);
    let visible = |id: NodeId| !a.invisible.get(id).copied().unwrap_or(true);
    let blocks = segment(dom, &a, body, &visible);
    let kept = match mode {
        Mode::AllText => blocks,
        Mode::Main => {
            let ld = ld_texts(dom, &a);
            let discussion = declares_discussion(dom, &a, &ld);
            let mut main = main_blocks(dom, &a, &blocks, &ld, discussion);
            if discussion {
                without_repeated_labels(dom, &mut main);
            }
            // A small page with no main text (`<p>hi</p>`, a stub): its
            // visible text is what the user sees and expects.
            if main.is_empty() && html_len <= SMALL_PAGE_BYTES {
                blocks
            } else if main.is_empty() {
                heading_block(dom, &a, &blocks)
            } else {
                main
            }
        }
    };
    let paragraphs: Vec<String> = kept.into_iter().map(|b| b.text).collect();
    let text = paragraphs.join("\n");
    Document {
        title,
        paragraphs,
        text,
    }
}

/// The main text of a page whose JSON-LD scripts are `ld`; `discussion`:
/// the page declares a discussion ([`declares_discussion`]).
fn main_blocks(
    dom: &Dom,
    a: &Analysis,
    blocks: &[Block],
    ld: &[&str],
    discussion: bool,
) -> Vec<Block> {
    if let Some(hidden) = hidden_declared_body(dom, a, blocks) {
        return hidden;
    }
    let mut classes: Vec<Class> = blocks.iter().map(classify).collect();
    let mut boosts = vec![1.0f32; blocks.len()];
    for ((b, c), w) in blocks.iter().zip(classes.iter_mut()).zip(boosts.iter_mut()) {
        if mostly_boiler(b) {
            *w = BOILER_WEIGHT;
            if *c == Class::Neutral {
                *c = Class::Bad;
            }
        }
    }
    let mut confirmed = false;
    let mut matched = vec![false; blocks.len()];
    // A thread's declared posts confirm the posts they repeat, but often
    // declare only the first: then other text keeps its weight.
    let (body, thread) = match declared_body(ld) {
        Some(body) => (Some(body), false),
        None => (declared_posts(ld), !declares_replies(ld)),
    };
    if let Some(body) = body {
        let reference = Reference::new(&body);
        for (((b, c), w), m) in blocks
            .iter()
            .zip(classes.iter_mut())
            .zip(boosts.iter_mut())
            .zip(matched.iter_mut())
        {
            if b.tokens >= 8 && reference.coverage(&b.text) > JSONLD_MATCH {
                *c = Class::Good;
                *w = 3.0;
                *m = true;
            }
        }
        // The page says which text is its article: other text counts less.
        confirmed = matched.iter().any(|&m| m);
        if confirmed && !thread {
            for (w, m) in boosts.iter_mut().zip(&matched) {
                if !m {
                    *w *= JSONLD_OTHER_WEIGHT;
                }
            }
        }
    }
    let mut container = select_container(dom, a, blocks, &classes, &boosts, Furniture::Fallback);
    // A thread's replies may outweigh its short first post: the thread
    // holds the post its heading opens.
    if let Some(wider) = main_heading(dom, a)
        .filter(|_| discussion)
        .and_then(|h1| with_first_post(dom, a, blocks, &classes, container, h1))
    {
        container = wider;
    }
    let good_before = good_in(a, container, blocks, &classes);
    // Running text the article reading found: two paragraphs, or a long
    // one, make the page an article whatever else it lists.
    let native = || {
        blocks
            .iter()
            .zip(&classes)
            .filter(|(b, c)| **c == Class::Good && a.contains(container, b.owner))
    };
    // Running text of two paragraphs or more makes the page an article
    // unless its records outweigh it many times over (a category page's
    // introduction above its grid).
    let paragraphs = native().count();
    let short_text = native().all(|(b, _)| b.tokens < ARTICLE_LONG_PARAGRAPH);
    let weak = !confirmed && good_before < ARTICLE_MIN_TOKENS && short_text;
    // The container holds a large listing of short texts: is it a record
    // region read as an article (a section front whose lead cards carry
    // summaries)?
    let large = !confirmed && short_text && in_place_candidate(a, container);
    let regions = if weak || large {
        records(dom, a, blocks)
    } else {
        Vec::new()
    };
    if weak {
        let ratio = if paragraphs < ARTICLE_MIN_PARAGRAPHS {
            LISTING_RATIO
        } else {
            LISTING_RATIO_OVER_TEXT
        };
        // Item blocks outweigh the running text the article reading found:
        // the page is a listing, and its items are the content.
        if let Some(region) = regions
            .iter()
            .max_by_key(|r| r.mass)
            .filter(|r| r.mass >= MIN_RECORD_TOKENS && r.mass > ratio * good_before)
        {
            return listing_blocks(dom, a, blocks, &classes, &boosts, &regions, &[region]);
        }
    }
    // The container is itself a large record region holding many times
    // the good text found in it: the page is that region's listing, and
    // its items are kept whole (the article cleaning would drop them as
    // link-dense cards). Not when the container holds a long paragraph of
    // running text (a story above its related-stories cards).
    if large {
        let chosen = enclosing(dom, &regions, container, good_before);
        if !chosen.is_empty() {
            return listing_in_place(dom, a, blocks, &classes, &regions, &chosen);
        }
    }
    if declares_product(ld) {
        let most_text = select_container(dom, a, blocks, &classes, &boosts, Furniture::Anywhere);
        if a.boiler.get(most_text).copied().unwrap_or(false) {
            if let Some(h1) = main_heading(dom, a) {
                if let Some(block) = product_block(dom, a, blocks, &classes, &matched, h1) {
                    return clean(dom, a, block, good_before, Kind::Product, None);
                }
            }
        }
        // The product's heading starts its text: what comes before it in
        // the container (recommendations, breadcrumbs, a gallery) is not
        // the product's.
        let start = main_heading(dom, a)
            .filter(|&h1| a.contains(container, h1))
            .map(|h1| Start {
                heading: h1,
                core: h1,
            });
        let kept = clean(dom, a, container, good_before, Kind::Product, start);
        return without_furniture(dom, a, blocks, container, kept);
    }
    // A site's own page that is not a dated story starts at its main
    // heading: the heading, and what stands between it and the text found
    // (a tagline, a price, an introduction above a grid), are its content.
    let heading = if declares_page(dom, a, ld) && !is_article(dom, a, ld) {
        main_heading(dom, a).filter(|&h| !dateline(a, blocks, h))
    } else {
        None
    };
    let Some(h1) = heading else {
        return clean(dom, a, container, good_before, Kind::Article, None);
    };
    match with_heading(dom, a, container, h1) {
        Some(widened) => {
            let start = Start {
                heading: h1,
                core: container,
            };
            clean(dom, a, widened, good_before, Kind::Page, Some(start))
        }
        None => clean(dom, a, container, good_before, Kind::Page, None),
    }
}

/// The text around the main heading of a page where no block reads as
/// content (a link post, a page of a title and a few labels): the
/// smallest element holding the heading and at least as much text again,
/// never `<body>`, without the blocks before the heading.
fn heading_block(dom: &Dom, a: &Analysis, blocks: &[Block]) -> Vec<Block> {
    let Some(h1) = main_heading(dom, a) else {
        return Vec::new();
    };
    let own = a.tokens.get(h1).copied().unwrap_or(0);
    let mut up = h1;
    loop {
        let parent = dom.get(up).map_or(DOCUMENT, |n| n.parent);
        match dom.local_name(parent) {
            Some(&local_name!("body") | &local_name!("html")) | None => break,
            Some(_) => up = parent,
        }
        if a.tokens.get(up).copied().unwrap_or(0) >= 2 * own {
            break;
        }
    }
    let start = Start {
        heading: h1,
        core: h1,
    };
    let good = good_tokens(blocks.iter().filter(|b| a.contains(up, b.owner)));
    clean(dom, a, up, good, Kind::Page, Some(start))
}

#[cfg(test)]
mod tests;
