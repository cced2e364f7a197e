//! The page furniture that follows an article inside its container:
//! teaser-list headings, share and subscription prompts, comment
//! sections, source lists, feedback prompts, post navigation, editor and
//! copyright lines. The first such block, once most
//! of the article's running text lies before it, ends the article. A
//! teaser-list heading followed by link-led items (a linked title above
//! each summary) ends it earlier: the summaries read as running text and
//! may outweigh a short article, but their titles are links.

use html5ever::local_name;

use crate::analyze::Analysis;
use crate::clean::good_tokens;
use crate::dom::Dom;
use crate::score::{classify, Class};
use crate::segment::Block;

/// Phrases that open the page furniture following an article: section
/// headings of teaser lists, share and subscription prompts, comment
/// sections, source lists, feedback prompts ("was this helpful"), post
/// navigation, editor and copyright lines. Matched lowercased at the start of
/// a short block.
const TAIL_OPENERS: &[&str] = &[
    "more in ",
    "also in ",
    "about the author",
    "about the reviewer",
    "more from ",
    "more stories",
    "more great ",
    "more news",
    "most popular",
    "most read",
    "related articles",
    "related stories",
    "related posts",
    "related news",
    "related coverage",
    "recommended for you",
    "recommended stories",
    "you may also like",
    "you might also like",
    "also read",
    "read next",
    "read this next",
    "recent posts",
    "popular posts",
    "latest posts",
    "you may also enjoy",
    "more like this",
    "related reading",
    "related content",
    "trending now",
    "share this article",
    "share this story",
    "subscribe to ",
    "sign up for ",
    "leave a comment",
    "leave a reply",
    "post navigation",
    "trackback",
    "all rights reserved",
    "copyright ©",
    "© copyright",
    "article sources",
    "sources:",
    "how we reviewed this",
    "reviewed by",
    "was this article helpful",
    "was this page helpful",
    "was this helpful",
    "how was this",
    "found this interesting",
    "recent blogs",
    "recommended posts",
    "recommend posts",
    "similar seminars",
    "explore more articles",
    "share this post",
    "join our newsletter",
    "comments are closed",
    "previous post",
    "next post",
    "related products",
    "related items",
    "related services",
    "related case studies",
    "related insights",
    "责任编辑",
    "编辑：",
    "编辑:",
    "声明：",
    "声明:",
    "免责声明",
    "版权声明",
    "版权与免责声明",
    "版权所有",
    "反侵权公告",
    "发表评论",
    "相关新闻",
    "相关阅读",
    "相关文章",
    "相关链接",
    "热点专题",
    "精彩回顾",
    "更多精彩",
    "推荐阅读",
];
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
/// Phrases that mark a short block as legal or editorial furniture wherever
/// they occur in it.
const TAIL_ANYWHERE: &[&str] = &[
    "all rights reserved",
    "未经本网授权",
    "不得转载",
    "转载此文",
    "经营许可证",
    "icp备",
    "icp证",
    "版权所有",
    "责任编辑",
];
/// Tail markers count in blocks up to this many tokens.
const TAIL_MARKER_MAX_TOKENS: u32 = 60;
/// ... and only once this share of the article's running text lies before
/// them.
const TAIL_MARKER_AFTER_SHARE: f32 = 0.5;

/// A teaser-list heading ends the article once this share of its running
/// text lies before it...
const TEASER_AFTER_SHARE: f32 = 0.2;
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

/// Does `text`, from its first letter, digit or `also_from` character on
/// and lowercased, start with one of `phrases` (lowercase, at most 80
/// characters)?
pub(crate) fn opens_with(text: &str, phrases: &[&str], also_from: Option<char>) -> bool {
    let head: String = text
        .chars()
        .skip_while(|&c| !c.is_alphanumeric() && Some(c) != also_from)
        .take(80)
        .flat_map(char::to_lowercase)
        .collect();
    phrases.iter().any(|m| head.starts_with(m))
}

/// Does the block open the furniture after an article?
fn tail_marker(b: &Block) -> bool {
    if b.tokens > TAIL_MARKER_MAX_TOKENS {
        return false;
    }
    if opens_with(&b.text, TAIL_OPENERS, Some('©')) {
        return true;
    }
    let lower = b.text.to_lowercase();
    TAIL_ANYWHERE.iter().any(|m| lower.contains(m))
}

/// Does the block open a teaser list, with link-led items after it? It is
/// a heading or a label of its own, not a line of prose (a paragraph or a
/// list item that introduces further reading of the article itself).
fn teaser_heading(dom: &Dom, a: &Analysis, following: &Following, b: &Block) -> bool {
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

/// Index of the first block that opens the page furniture after the
/// article, if any. `following` holds the container's blocks before
/// cleaning.
pub(crate) fn tail_cut(
    dom: &Dom,
    a: &Analysis,
    kept: &[Block],
    following: &Following,
) -> Option<usize> {
    let total = good_tokens(kept.iter()) as f32;
    let mut before = 0u32;
    for (i, b) in kept.iter().enumerate() {
        let share = before as f32;
        if i > 0
            && ((share >= TAIL_MARKER_AFTER_SHARE * total && tail_marker(b))
                || (share >= TEASER_AFTER_SHARE * total && teaser_heading(dom, a, following, b)))
        {
            return Some(i);
        }
        if classify(b) == Class::Good {
            before += b.tokens;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::Extractor;

    fn article(after: &str) -> String {
        let para = "<p>The council voted on Tuesday to fund the new library, after a debate \
                    that ran for most of the evening and drew a crowd of residents.</p>";
        format!(
            "<html><body><article><h1>Library funded</h1>{}{after}</article></body></html>",
            para.repeat(6)
        )
    }

    #[test]
    fn furniture_after_the_article_ends_it() {
        let ex = Extractor::new();
        for (opener, rest) in [
            (
                "About the Author",
                "Jane Doe is the paper's city reporter and has covered the council for a decade.",
            ),
            (
                "Also in the news",
                "The harbour reopened after repairs that took most of the winter to finish.",
            ),
            (
                "Related articles",
                "Council budget passes after a long night of debate among the members.",
            ),
            (
                "Was this article helpful?",
                "Tell us what you think, and we will use it to improve our reporting.",
            ),
            (
                "Article sources",
                "City council minutes, vol. 12, and the library board's annual report.",
            ),
        ] {
            let html = article(&format!("<h3>{opener}</h3><p>{rest}</p>"));
            let doc = ex.extract(&html).expect("extracts");
            assert!(doc.text.contains("fund the new library"), "{opener}");
            assert!(!doc.text.contains(rest), "{opener}: {}", doc.text);
        }
    }

    #[test]
    fn an_opener_before_most_of_the_article_does_not_end_it() {
        let html = article("").replace(
            "<h1>Library funded</h1>",
            "<h1>Library funded</h1><p>About the author of the plan: a retired teacher.</p>",
        );
        let doc = Extractor::new().extract(&html).expect("extracts");
        assert_eq!(doc.text.matches("fund the new library").count(), 6);
    }

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
