//! Short labels repeated through a container.
//!
//! A thread repeats the same furniture around every post: its actions
//! ("Reply", "Link to comment", "Share on other sites"), the fields of its
//! author's card ("Joined", "Messages", "Reaction score", a rank such as
//! "Full Member"). Each is a short block whose exact text comes back post
//! after post, while what people write differs from post to post (labels
//! are often list items or small headings of a post's menus). Running
//! text and table cells never count as labels: a table's repeated values
//! are content.
//!
//! Articles repeat short texts of their own (a roundup's "Pros", "Cons"
//! and "Battery life" under every product), so labels are only looked for
//! on pages that declare themselves a discussion
//! ([`crate::thread::declares_discussion`]).

use std::collections::HashMap;

use html5ever::local_name;

use crate::dom::{Dom, NodeId};
use crate::score::{classify, Class};
use crate::segment::Block;

/// Blocks of at most this many tokens may be labels.
const LABEL_MAX_TOKENS: u32 = 5;
/// A short text is a label when it comes back this many times.
const LABEL_MIN_COPIES: usize = 3;

/// Is the block a cell of a table (or a value of a definition list)?
fn tabular(dom: &Dom, owner: NodeId) -> bool {
    dom.local_name(owner).is_some_and(|n| {
        matches!(
            *n,
            local_name!("td") | local_name!("th") | local_name!("dd")
        )
    })
}

/// May the block be a label: short, no running text, not in a table?
fn label_like(dom: &Dom, b: &Block) -> bool {
    b.tokens <= LABEL_MAX_TOKENS && classify(b) != Class::Good && !tabular(dom, b.owner)
}

/// `kept` without the short labels it repeats [`LABEL_MIN_COPIES`] times
/// or more.
pub(crate) fn without_repeated_labels(dom: &Dom, kept: &mut Vec<Block>) {
    let mut copies: HashMap<&str, usize> = HashMap::new();
    for b in kept.iter().filter(|b| label_like(dom, b)) {
        *copies.entry(b.text.as_str()).or_default() += 1;
    }
    let labels: Vec<String> = copies
        .into_iter()
        .filter(|&(_, n)| n >= LABEL_MIN_COPIES)
        .map(|(t, _)| t.to_string())
        .collect();
    if labels.is_empty() {
        return;
    }
    kept.retain(|b| !(label_like(dom, b) && labels.contains(&b.text)));
}

#[cfg(test)]
mod tests {
    use crate::Mode;

    fn main_text(html: &str) -> Vec<String> {
        crate::extract::run(html, Mode::Main, 512).paragraphs
    }

    const POSTS: [&str; 4] = [
        "My router drops the connection every evening, and restarting it only helps \
         for an hour or so. Has anyone seen this before?",
        "Check the firmware version first, older releases had exactly this bug with the \
         scheduled channel scan at night.",
        "Same here, it started after the last update and nothing I changed in the \
         settings made any difference at all.",
        "Thanks, updating the firmware fixed it: no more drops for a week now, and the \
         scan still runs at night without trouble.",
    ];

    #[test]
    fn a_thread_loses_the_labels_of_every_post() {
        let posts: String = POSTS
            .iter()
            .enumerate()
            .map(|(i, p)| {
                format!(
                    "<article><div>Member</div><div>Joined</div><div>Mar {i}, 2020</div>\
                     <p>{p}</p><h5>Link to comment</h5><ul><li>Quote</li></ul></article>"
                )
            })
            .collect();
        let declared = "<script type=application/ld+json>{\"@type\":\"QAPage\"}</script>";
        let html = format!("{declared}<body><main>{posts}</main></body>");
        let got = main_text(&html);
        for label in ["Member", "Joined", "Link to comment", "Quote"] {
            assert!(!got.iter().any(|t| t == label), "{label}: {got:?}");
        }
        // What differs from post to post stays.
        assert!(got.iter().any(|t| t == "Mar 1, 2020"), "{got:?}");
        assert_eq!(got.iter().filter(|t| t.len() > 60).count(), 4);
        // A page that declares no discussion keeps its repeated texts.
        let plain = main_text(&html.replace(declared, ""));
        assert!(plain.iter().filter(|t| *t == "Joined").count() >= 3);
    }

    #[test]
    fn repeated_table_values_stay() {
        let para = POSTS.join(" ");
        let rows = "<tr><td>Yes</td><td>Included</td></tr>".repeat(4);
        let html = format!(
            "<script type=application/ld+json>{{\"@type\":\"QAPage\"}}</script>\
             <body><article><p>{para}</p><table>{rows}</table>\
             <p>{para} More.</p></article></body>"
        );
        let got = main_text(&html);
        assert_eq!(got.iter().filter(|t| *t == "Yes").count(), 4, "{got:?}");
        assert_eq!(got.iter().filter(|t| *t == "Included").count(), 4);
    }
}
