//! Teaser lists after an article: a heading ("Read this next", "More to
//! explore") followed by link-led items, a linked title above each
//! summary. The summaries read as running text and may outweigh a short
//! article, so the share of running text before the heading cannot tell
//! them apart from the article; their linked titles, seen before cleaning
//! removed them, can.

use html5ever::local_name;

use crate::analyze::Analysis;
use crate::dom::Dom;
use crate::segment::Block;
use crate::tail::{opens_with, TAIL_MARKER_MAX_TOKENS, TAIL_OPENERS};

/// Headings of teaser lists that end the article only when link-led items
/// follow them (see [`Following`]); as prose openers they are too common.
const TEASER_OPENERS: &[&str] = &[
    "explore more",
    "all reads",
    "related topics",
    "related reads",
    "related guides",
    "related resources",
    "from our blog",
    "more articles",
    "more reads",
    "more to explore",
    "more on this",
    "latest news",
    "latest articles",
    "latest stories",
    "keep reading",
    "up next",
    "don't miss",
    "don’t miss",
    "editor's picks",
    "editors' picks",
    "popular articles",
    "recent articles",
    "recommended reading",
    "recommended articles",
    "you might like",
    "you may like",
    "you might be interested",
    "you may be interested",
    "what to read next",
    "other articles",
    "similar articles",
    "similar posts",
];

/// A teaser-list heading ends the article once this share of its running
/// text lies before it...
pub(crate) const TEASER_AFTER_SHARE: f32 = 0.2;
/// ... when at least this many link-led blocks (titles of teasers) follow
/// it before cleaning...
const TEASER_MIN_LINKED: u32 = 3;
/// ... and at least one for every this many blocks of prose (summaries).
const TEASER_PROSE_PER_LINK: u32 = 2;
/// More blocks of prose than this in a row after a teaser heading: the
/// article resumes after a box of links.
const RESUMED_PROSE: u32 = 2;
/// Blocks of prose have this many tokens.
const PROSE_MIN_TOKENS: u32 = 10;

/// What follows each block of a container before cleaning removed its
/// link-dense blocks: the evidence that a heading opens a teaser list.
#[derive(Debug, Default)]
pub(crate) struct Following {
    /// Per block of the uncleaned container, in document order: the
    /// position of its owner, its tokens, its link tokens.
    blocks: Vec<(u32, u32, u32)>,
}

impl Following {
    /// The evidence of `blocks`, the container before cleaning.
    pub(crate) fn new(a: &Analysis, blocks: &[Block]) -> Following {
        Following {
            blocks: blocks
                .iter()
                .map(|b| {
                    let pos = a.pos.get(b.owner).copied().unwrap_or(u32::MAX);
                    (pos, b.tokens, b.link_tokens)
                })
                .collect(),
        }
    }

    /// Are the blocks after `b` link-led: several linked titles, one for
    /// every summary or two (not running text with a link here and there,
    /// nor a box of links the article resumes after: a run of paragraphs
    /// with no title between them)?
    fn link_led(&self, a: &Analysis, b: &Block) -> bool {
        let Some(&from) = a.pos.get(b.owner) else {
            return false;
        };
        let (mut linked, mut prose, mut run) = (0u32, 0u32, 0u32);
        for &(pos, t, l) in &self.blocks {
            if pos <= from {
                continue;
            }
            if l.saturating_mul(2) > t {
                linked += 1;
                run = 0;
            } else if t >= PROSE_MIN_TOKENS {
                prose += 1;
                run += 1;
                if run > RESUMED_PROSE {
                    return false;
                }
            }
        }
        linked >= TEASER_MIN_LINKED && linked * TEASER_PROSE_PER_LINK >= prose
    }
}

/// Does the block open a teaser list, with link-led items after it? It is
/// a heading or a label of its own, not a line of prose (a paragraph or a
/// list item that introduces further reading of the article itself).
pub(crate) fn teaser_heading(dom: &Dom, a: &Analysis, following: &Following, b: &Block) -> bool {
    let prose = dom.local_name(b.owner).is_some_and(|n| {
        matches!(
            *n,
            local_name!("p") | local_name!("li") | local_name!("td") | local_name!("dd")
        )
    });
    !prose
        && b.tokens <= TAIL_MARKER_MAX_TOKENS
        && (opens_with(&b.text, TAIL_OPENERS, None) || opens_with(&b.text, TEASER_OPENERS, None))
        && following.link_led(a, b)
}

#[cfg(test)]
mod tests {
    use crate::Extractor;

    /// A short story and the teaser cards below it: a linked title over
    /// each summary.
    fn with_cards(opener_html: &str, resume: &str) -> String {
        let para = "<p>The ferry resumed its winter timetable on Monday, after a month \
                    in dry dock that left the island's commuters taking the long road.</p>";
        let card = |i: u32| {
            format!(
                "<div><h4><a href=/s{i}>Another story number {i} of the site</a></h4>\
                 <p>A summary of that other story, long enough and with commas, to read \
                 like running text of the page number {i}.</p></div>"
            )
        };
        let cards: String = (0..4).map(card).collect();
        format!(
            "<html><body><article><h1>Ferry back</h1>{para}{para}{opener_html}{cards}{resume}\
             </article></body></html>"
        )
    }

    #[test]
    fn a_teaser_heading_with_linked_titles_after_it_ends_a_short_article() {
        let ex = Extractor::new();
        for opener in ["<h3>Read this next</h3>", "<div>More to explore</div>"] {
            let doc = ex.extract(&with_cards(opener, "")).expect("extracts");
            assert_eq!(doc.text.matches("ferry resumed").count(), 2, "{opener}");
            assert!(
                !doc.text.contains("summary of that other"),
                "{opener}: {}",
                doc.text
            );
        }
    }

    #[test]
    fn a_teaser_heading_does_not_end_the_article_when_prose_follows() {
        let ex = Extractor::new();
        // The opener is a line of the article's own prose.
        let doc = ex
            .extract(&with_cards("<p>Explore more of our ferry guides:</p>", ""))
            .expect("extracts");
        assert!(doc.text.contains("summary of that other"), "{}", doc.text);
        // A box of links inside the article, which then resumes.
        let box_only = "<h3>Recommended reading</h3>\
                        <div><a href=/a>First linked story title</a></div>\
                        <div><a href=/b>Second linked story title</a></div>\
                        <div><a href=/c>Third linked story title</a></div>";
        let resume = "<p>Back on the island, the harbour master said the timetable would \
                      hold until spring, weather permitting, and thanked the crews.</p>"
            .repeat(5);
        let html = with_cards(box_only, &resume);
        let doc = ex.extract(&html).expect("extracts");
        assert!(doc.text.contains("harbour master"), "{}", doc.text);
    }
}
