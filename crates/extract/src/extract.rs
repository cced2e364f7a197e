//! The extraction pipeline: parse, analyse, segment, select, clean.

use html5ever::local_name;

use crate::analyze::{analyze, Analysis};
use crate::dom::{Dom, NodeId, DOCUMENT};
use crate::jsonld::{article_body, Reference};
use crate::parse::parse_tendril;
use crate::prefilter::prefilter;
use crate::score::{classify, mostly_boiler, select_container, Class};
use crate::segment::{segment, Block};
use crate::title::title;
use crate::{Document, Mode};

/// Coverage above which a block counts as confirmed by JSON-LD.
const JSONLD_MATCH: f32 = 0.5;
/// Scoring weight of good-looking text inside boilerplate-flagged elements.
const BOILER_WEIGHT: f32 = 0.25;
/// Share of the container's good text that boilerplate removal must keep.
const KEEP_GOOD_SHARE: f32 = 0.4;
/// ... unless at least this many good tokens remain anyway.
const KEEP_GOOD_MIN: u32 = 100;
/// A container whose good blocks hold less than this share of its tokens is
/// list-like: its link-dense blocks are content, not furniture.
const LISTING_GOOD_SHARE: f32 = 0.6;
/// Short blocks before the first or after the last running-text block of an
/// article-like container are notes (bylines, dates, tags) below this size.
const NOTE_MAX_TOKENS: u32 = 20;
/// Link-dense blocks of a list-like container are kept from this size.
const LISTING_MIN_TOKENS: u32 = 4;

fn body_of(dom: &Dom, a: &Analysis) -> NodeId {
    a.order
        .iter()
        .copied()
        .find(|&id| dom.local_name(id) == Some(&local_name!("body")))
        .unwrap_or(DOCUMENT)
}

/// Extract a document from already size-checked HTML.
pub(crate) fn run(html: &str, mode: Mode, max_depth: usize) -> Document {
    let dom = parse_tendril(prefilter(html), max_depth);
    let a = analyze(&dom);
    let title = title(&dom, &a);
    let body = body_of(&dom, &a);
    let visible = |id: NodeId| !a.invisible.get(id).copied().unwrap_or(true);
    let blocks = segment(&dom, &a, body, &visible);
    let kept = match mode {
        Mode::AllText => blocks,
        Mode::Main => main_blocks(&dom, &a, &blocks),
    };
    let paragraphs: Vec<String> = kept.into_iter().map(|b| b.text).collect();
    let text = paragraphs.join("\n");
    Document {
        title,
        paragraphs,
        text,
    }
}

/// Is the block an item of a list or table (content, not a tail note)?
fn in_list(dom: &Dom, owner: NodeId) -> bool {
    dom.local_name(owner).is_some_and(|n| {
        matches!(
            *n,
            local_name!("li") | local_name!("td") | local_name!("th") | local_name!("dd")
        )
    })
}

fn main_blocks(dom: &Dom, a: &Analysis, blocks: &[Block]) -> Vec<Block> {
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
    if let Some(body) = article_body(dom, a) {
        let reference = Reference::new(&body);
        for ((b, c), w) in blocks.iter().zip(classes.iter_mut()).zip(boosts.iter_mut()) {
            if b.tokens >= 8 && reference.coverage(&b.text) > JSONLD_MATCH {
                *c = Class::Good;
                *w = 3.0;
            }
        }
    }
    let container = select_container(dom, a, blocks, &classes, &boosts);
    let local = a.boiler_within(dom, container);
    let visible = |id: NodeId| {
        !a.invisible.get(id).copied().unwrap_or(true) && !local.get(id).copied().unwrap_or(true)
    };
    let mut inner = segment(dom, a, container, &visible);
    // Class names are only hints: when they would remove most of the
    // container's running text, they are wrong about this page.
    let good_before: u32 = blocks
        .iter()
        .zip(&classes)
        .filter(|(b, c)| **c == Class::Good && a.contains(container, b.owner))
        .map(|(b, _)| b.tokens)
        .sum();
    let good_after: u32 = inner
        .iter()
        .filter(|b| classify(b) == Class::Good)
        .map(|b| b.tokens)
        .sum();
    if (good_after as f32) < KEEP_GOOD_SHARE * good_before as f32 && good_after < KEEP_GOOD_MIN {
        let visible = |id: NodeId| !a.invisible.get(id).copied().unwrap_or(true);
        inner = segment(dom, a, container, &visible);
    }
    let classes: Vec<Class> = inner.iter().map(classify).collect();
    let total: u32 = inner.iter().map(|b| b.tokens).sum();
    let good: u32 = inner
        .iter()
        .zip(&classes)
        .filter(|(_, c)| **c == Class::Good)
        .map(|(b, _)| b.tokens)
        .sum();
    // In a list-like container (little running text), links are the content.
    let listing = (good as f32) < LISTING_GOOD_SHARE * total as f32;
    let mut kept: Vec<Block> = inner
        .into_iter()
        .zip(classes)
        .filter(|(b, c)| *c != Class::Bad || (listing && b.tokens >= LISTING_MIN_TOKENS))
        .map(|(b, _)| b)
        .collect();
    if kept
        .first()
        .is_some_and(|b| dom.local_name(b.owner) == Some(&local_name!("h1")))
    {
        kept.remove(0);
    }
    if !listing {
        // Head and tail notes: bylines, dates, share prompts, tag lines.
        let first_good = kept
            .iter()
            .position(|b| classify(b) == Class::Good)
            .unwrap_or(0);
        let cut = kept
            .iter()
            .take(first_good)
            .take_while(|b| b.tokens < NOTE_MAX_TOKENS)
            .count();
        kept.drain(..cut);
        while kept.last().is_some_and(|b| {
            classify(b) != Class::Good && b.tokens < NOTE_MAX_TOKENS && !in_list(dom, b.owner)
        }) {
            kept.pop();
        }
    }
    kept
}
