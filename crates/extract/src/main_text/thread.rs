//! Discussion threads declared in JSON-LD.
//!
//! Forum and question-and-answer pages often declare their posts with
//! schema.org types (`DiscussionForumPosting` with its `comment`s, a
//! `QAPage` with its `Question` and `Answer`s): the `text` of each post.
//! Like an `articleBody`, that text is never emitted (it is often cut
//! short or stripped of quotes and code), but the blocks of the page that
//! repeat it are the posts, and the thread is their container, not a help
//! card, an app prompt or a list of other topics beside it.

use html5ever::local_name;

use crate::analyze::Analysis;
use crate::dom::{Dom, NodeId};
use crate::jsonld::{string_values, type_in};
use crate::page_kind::with_heading;
use crate::score::Class;
use crate::segment::Block;

/// Declared posts shorter than this many characters in all are ignored.
const MIN_POSTS_CHARS: usize = 200;

/// The schema.org types of a discussion: a forum thread or a question
/// with its answers (not an `FAQPage`, whose questions and answers are a
/// section of an article or a service page).
fn discussion_type(name: &str) -> bool {
    matches!(name, "DiscussionForumPosting" | "QAPage")
}

/// The `text` of the posts the page declares in JSON-LD (`texts` are its
/// scripts, [`crate::jsonld::ld_texts`]): every `text` string of a script
/// that declares a discussion (its question, answers and comments
/// included), joined.
pub(crate) fn declared_posts(texts: &[&str]) -> Option<String> {
    let mut posts = String::new();
    for t in texts {
        if type_in(t, discussion_type) {
            string_values(t, "\"text\"", &mut posts);
        }
    }
    (posts.chars().count() >= MIN_POSTS_CHARS).then_some(posts)
}

/// Do the page's JSON-LD scripts declare replies as well as the first
/// post (two `text` strings or more in its discussion scripts)? Then the
/// declared posts are the thread, and other text is not.
pub(crate) fn declares_replies(texts: &[&str]) -> bool {
    let posts: usize = texts
        .iter()
        .filter(|t| type_in(t, discussion_type))
        .map(|t| t.matches("\"text\"").count())
        .sum();
    posts >= 2
}

/// Does the page declare itself a discussion: a JSON-LD script of a
/// discussion type among `ld` (its JSON-LD scripts), or an element whose
/// microdata `itemtype` is one
/// (`https://schema.org/DiscussionForumPosting`)?
pub(crate) fn declares_discussion(dom: &Dom, a: &Analysis, ld: &[&str]) -> bool {
    if ld.iter().any(|t| type_in(t, discussion_type)) {
        return true;
    }
    a.order.iter().any(|&id| {
        dom.attr(id, &local_name!("itemtype")).is_some_and(|t| {
            t.split_ascii_whitespace()
                .any(|u| discussion_type(u.rsplit('/').next().unwrap_or("")))
        })
    })
}

/// The container of a discussion widened to hold its first post: on a
/// page that declares a discussion, when the main heading (the thread's
/// title) comes before the container chosen, the first good block after
/// the heading is the first post (the question), and the thread is the
/// smallest element holding it and the container (the replies alone
/// outweigh a short question whose author card reads as furniture).
/// `None` when the container already holds the heading or the first post,
/// or when only the whole page (`<body>`, `<html>`) holds both.
pub(crate) fn with_first_post(
    dom: &Dom,
    a: &Analysis,
    blocks: &[Block],
    classes: &[Class],
    container: NodeId,
    h1: NodeId,
) -> Option<NodeId> {
    let pos = |id: NodeId| a.pos.get(id).copied().unwrap_or(u32::MAX);
    if a.contains(container, h1) || pos(h1) >= pos(container) {
        return None;
    }
    let first = blocks
        .iter()
        .zip(classes)
        .find(|(b, c)| **c == Class::Good && pos(b.owner) > pos(h1))
        .map(|(b, _)| b.owner)?;
    if pos(first) >= pos(container) {
        return None;
    }
    // The climb that takes in a page's heading takes in its first post.
    with_heading(dom, a, container, first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze;
    use crate::jsonld::ld_texts;
    use crate::parse::parse;

    const POST: &str = "My router drops the connection every evening, and restarting it \
                        only helps for an hour or so. Has anyone seen this before?";
    const REPLY: &str = "Check the firmware version first, older releases had exactly this \
                         bug with the scheduled channel scan at night.";

    fn posts_of(html: &str) -> Option<String> {
        let dom = parse(html, 512);
        let a = analyze(&dom);
        declared_posts(&ld_texts(&dom, &a))
    }

    #[test]
    fn a_forum_posting_gives_its_post_and_comments() {
        let html = format!(
            "<script type=application/ld+json>{{\"headline\":\"Router\",\"text\":\"{POST}\",\
             \"comment\":[{{\"@type\":\"Comment\",\"text\":\"{REPLY}\"}}],\
             \"@type\":\"DiscussionForumPosting\"}}</script>"
        );
        let got = posts_of(&html).expect("posts found");
        assert!(got.contains("drops the connection") && got.contains("firmware version"));
        let dom = parse(&html, 512);
        let a = analyze(&dom);
        assert!(declares_replies(&ld_texts(&dom, &a)));
        // The first post alone declares no replies.
        let first = html.replace(&format!("\"text\":\"{REPLY}\""), "\"name\":\"x\"");
        let dom = parse(&first, 512);
        let a = analyze(&dom);
        assert!(!declares_replies(&ld_texts(&dom, &a)));
    }

    #[test]
    fn a_question_page_gives_its_question_and_answers() {
        let html = format!(
            "<script type=application/ld+json>{{\"@type\":\"QAPage\",\"mainEntity\":\
             {{\"@type\":\"Question\",\"text\":\"{POST}\",\"acceptedAnswer\":\
             {{\"@type\":\"Answer\",\"text\":\"{REPLY}\"}}}}}}</script>"
        );
        assert!(posts_of(&html).is_some_and(|p| p.contains("firmware")));
    }

    #[test]
    fn declared_posts_pick_the_thread_over_a_longer_card() {
        let card = "Install our app on your home screen for push notifications, badges \
                    and a full-screen view, then tap the share icon to add it.";
        let other = "Same here, it started after the last update and nothing I changed \
                     in the settings made any difference at all.";
        let links = "<li><a href=/t>Another topic of this forum</a></li>".repeat(20);
        let html = format!(
            "<script type=application/ld+json>{{\"@type\":\"DiscussionForumPosting\",\
             \"text\":\"{POST} {POST}\"}}</script>\
             <body><div><p>{card}</p><p>{card}</p><p>{card}</p></div><ul>{links}</ul>\
             <div><article><p>{POST}</p></article><article><p>{REPLY}</p></article>\
             <article><p>{other}</p></article></div></body>"
        );
        let text = |html: &str| crate::extract::run(html, crate::Mode::Main, 512).paragraphs;
        // The declared first post finds the thread; the replies it does
        // not declare stay.
        assert_eq!(text(&html), vec![POST, REPLY, other]);
        // Declared as an article's text, it is no thread: the card stays.
        let article = html.replace("DiscussionForumPosting", "NewsArticle");
        assert!(text(&article).contains(&card.to_string()));
    }

    #[test]
    fn a_page_declares_a_discussion_in_json_ld_or_microdata() {
        let declares = |html: &str| {
            let dom = parse(html, 512);
            let a = analyze(&dom);
            declares_discussion(&dom, &a, &ld_texts(&dom, &a))
        };
        assert!(declares(
            "<script type=application/ld+json>{\"@type\":\"QAPage\"}</script><p>x</p>"
        ));
        assert!(declares(
            "<div itemscope itemtype='https://schema.org/DiscussionForumPosting'><p>x</p></div>"
        ));
        assert!(!declares(
            "<div itemscope itemtype='https://schema.org/Article'><p>x</p></div>\
             <script type=application/ld+json>{\"@type\":\"FAQPage\"}</script>"
        ));
    }

    #[test]
    fn other_types_and_short_posts_are_no_thread() {
        // An article's `text`, or an FAQ's questions and answers, declare
        // no posts.
        let html = format!(
            "<script type=application/ld+json>{{\"@type\":\"NewsArticle\",\"text\":\"{POST} {REPLY}\"}}</script>"
        );
        assert!(posts_of(&html).is_none());
        let html = format!(
            "<script type=application/ld+json>{{\"@type\":\"FAQPage\",\"mainEntity\":\
             [{{\"@type\":\"Question\",\"name\":\"Why?\",\"acceptedAnswer\":\
             {{\"@type\":\"Answer\",\"text\":\"{POST} {REPLY}\"}}}}]}}</script>"
        );
        assert!(posts_of(&html).is_none());
        let html = "<script type=application/ld+json>{\"@type\":\"DiscussionForumPosting\",\
                    \"text\":\"Thanks!\"}</script>";
        assert!(posts_of(html).is_none());
    }

    #[test]
    fn a_declared_thread_keeps_its_first_post() {
        let card = "<div class=post-signature><a href=/u/1>asked May 2 by someone</a></div>";
        let answers: String = (0..4)
            .map(|_| format!("<div class=answer><p>{REPLY} {REPLY}</p>{card}</div>"))
            .collect();
        let side = "<li><a href=/q>Another question of this site</a></li>".repeat(10);
        let page = |itemtype: &str| {
            format!(
                "<body itemscope itemtype='https://schema.org/{itemtype}'><div id=content>\
                 <h1>Router drops the connection</h1><div id=mainbar>\
                 <div class=question><p>{POST}</p>{card}</div>\
                 <div id=answers>{answers}</div></div><ul>{side}</ul></div></body>"
            )
        };
        let text = |html: &str| crate::extract::run(html, crate::Mode::Main, 512).paragraphs;
        // The question is kept with its answers, the side list is not.
        let got = text(&page("QAPage"));
        assert!(got.iter().any(|p| p == POST), "{got:?}");
        assert!(got.iter().any(|p| p.contains("firmware")));
        assert!(!got.iter().any(|p| p.contains("Another question")));
    }
}
