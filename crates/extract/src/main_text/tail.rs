//! The page furniture that follows an article inside its container:
//! teaser-list headings, share and subscription prompts, comment
//! sections, source lists, feedback prompts, post navigation, editor and
//! copyright lines. The first such block, once most of the article's
//! running text lies before it, ends the article; a teaser-list heading
//! (see [`crate::teaser`]) ends it earlier.

use crate::analyze::Analysis;
use crate::clean::good_tokens;
use crate::dom::Dom;
use crate::score::{classify, Class};
use crate::segment::Block;
use crate::teaser::{teaser_heading, Following, TEASER_AFTER_SHARE};

/// Phrases that open the page furniture following an article: section
/// headings of teaser lists, share and subscription prompts, comment
/// sections, source lists, feedback prompts ("was this helpful"), post
/// navigation, editor and copyright lines. Matched lowercased at the start of
/// a short block.
pub(crate) const TAIL_OPENERS: &[&str] = &[
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
pub(crate) const TAIL_MARKER_MAX_TOKENS: u32 = 60;
/// ... and only once this share of the article's running text lies before
/// them.
const TAIL_MARKER_AFTER_SHARE: f32 = 0.5;

/// Does `text`, from its first letter, digit or `also_from` character on
/// and lowercased, start with one of `phrases` (lowercase, at most 80
/// characters)?
pub(crate) fn opens_with(text: &str, phrases: &[&str], also_from: Option<char>) -> bool {
    // The lowercased head, as far as the longest phrase reaches, on the
    // stack: this runs on every block, several times.
    let reach = phrases.iter().map(|m| m.len()).max().unwrap_or(0);
    let mut buf = [0u8; HEAD_BYTES];
    let mut len = 0;
    let head = text
        .chars()
        .skip_while(|&c| !c.is_alphanumeric() && Some(c) != also_from)
        .take(80);
    'head: for c in head {
        if c.is_ascii() {
            // Most heads are ASCII: a byte, without case tables.
            let Some(dst) = buf.get_mut(len).filter(|_| len < reach) else {
                break;
            };
            *dst = c.to_ascii_lowercase() as u8;
            len += 1;
            continue;
        }
        for l in c.to_lowercase() {
            let Some(dst) = buf.get_mut(len..len + 4).filter(|_| len < reach) else {
                break 'head;
            };
            len += l.encode_utf8(dst).len();
        }
    }
    let head = buf.get(..len).unwrap_or_default();
    // The first byte rules out most phrases without a comparison call.
    phrases.iter().any(|m| {
        let m = m.as_bytes();
        m.first().is_none_or(|f| head.first() == Some(f)) && head.starts_with(m)
    })
}

/// Room for the lowercased head [`opens_with`] compares: 80 characters of
/// up to 4 bytes each.
const HEAD_BYTES: usize = 80 * 4;

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

    proptest::proptest! {
        /// The stack-buffer head compares as the whole lowercased head
        /// would, whatever the text and the phrases' lengths.
        #[test]
        fn opens_with_reads_the_lowercased_head(
            text in "[ -~İÀ-ÿ中文ẞ\\-©]{0,90}",
            mut phrases in proptest::collection::vec("[a-z ià-ÿ中文ß̇©]{0,12}", 0..4),
            cut in 0usize..100,
        ) {
            let head: String = text
                .chars()
                .skip_while(|&c| !c.is_alphanumeric() && c != '©')
                .take(80)
                .flat_map(char::to_lowercase)
                .collect();
            // A phrase the head starts with, or one character past it.
            let mut own: String = head.chars().take(cut).collect();
            if cut % 3 == 0 {
                own.push('x');
            }
            phrases.push(own);
            let phrases: Vec<&str> = phrases.iter().map(String::as_str).collect();
            let want = phrases.iter().any(|m| head.starts_with(m));
            proptest::prop_assert_eq!(super::opens_with(&text, &phrases, Some('©')), want);
        }
    }

    #[test]
    fn opens_with_finds_long_phrases() {
        let long = "相".repeat(80);
        assert!(super::opens_with(&format!("  {long}。"), &[&long], None));
        assert!(super::opens_with(
            "— Related Articles:",
            &["related articles"],
            None
        ));
        assert!(!super::opens_with("Relate", &["related"], None));
    }
}
