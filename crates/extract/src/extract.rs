//! The extraction pipeline: parse, analyse, segment, select, clean.

use html5ever::local_name;

use crate::analyze::{analyze, Analysis};
use crate::dom::{Dom, NodeId, DOCUMENT};
use crate::jsonld::{article_body, Reference};
use crate::parse::parse;
use crate::score::{classify, select_container, Class};
use crate::segment::{segment, Block};
use crate::title::title;
use crate::{Document, Mode};

/// Coverage above which a block counts as confirmed by JSON-LD.
const JSONLD_MATCH: f32 = 0.5;

fn body_of(dom: &Dom, a: &Analysis) -> NodeId {
    a.order
        .iter()
        .copied()
        .find(|&id| dom.local_name(id) == Some(&local_name!("body")))
        .unwrap_or(DOCUMENT)
}

/// Extract a document from already size-checked HTML.
pub(crate) fn run(html: &str, mode: Mode, max_depth: usize) -> Document {
    let dom = parse(html, max_depth);
    let a = analyze(&dom);
    let title = title(&dom, &a);
    let body = body_of(&dom, &a);
    let visible = |id: NodeId| !a.invisible.get(id).copied().unwrap_or(true);
    let blocks = segment(&dom, &a, body, &visible);
    let kept: Vec<&Block> = match mode {
        Mode::AllText => blocks.iter().collect(),
        Mode::Main => main_blocks(&dom, &a, &blocks),
    };
    let paragraphs: Vec<String> = kept.into_iter().map(|b| b.text.clone()).collect();
    let text = paragraphs.join("\n");
    Document {
        title,
        paragraphs,
        text,
    }
}

fn main_blocks<'b>(dom: &Dom, a: &Analysis, blocks: &'b [Block]) -> Vec<&'b Block> {
    let mut classes: Vec<Class> = blocks.iter().map(classify).collect();
    let mut boosts = vec![1.0f32; blocks.len()];
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
    blocks
        .iter()
        .zip(&classes)
        .filter(|(b, c)| a.contains(container, b.owner) && **c != Class::Bad)
        .map(|(b, _)| b)
        .collect()
}
