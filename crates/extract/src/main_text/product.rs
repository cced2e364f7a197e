//! The product block of a page that declares a product.
//!
//! A product page is built around its product: the heading naming it, its
//! price and options, its description and specifications. Around it stand
//! customer reviews, seller panels, recommendation carousels and policy
//! dialogs, and these often hold more running text than the product's own
//! short lines: read by text mass alone, the page's content would be its
//! reviews. The product's heading is the anchor: the product block is the
//! element around it that holds the most text of its own, counting the
//! text of page furniture (boilerplate-flagged reviews, dialogs, related
//! items) and link lists against it.

use html5ever::local_name;

use crate::analyze::Analysis;
use crate::dom::{Dom, NodeId, NONE};
use crate::score::{mostly_boiler, Class};
use crate::segment::Block;
use crate::tail::opens_with;

/// Weight of short blocks (names, prices, specification lines) in the
/// product block: they are what a product is described with.
const SHORT_WEIGHT: f32 = 0.3;
/// Weight of blocks confirmed by the declared product's description.
const CONFIRMED_WEIGHT: f32 = 3.0;

/// Headings that open the page furniture around a product: recommendation
/// carousels, other sellers' offers, recently viewed items, customer
/// reviews and questions. Matched lowercased at the start of a short block.
const FURNITURE_OPENERS: &[&str] = &[
    "similar items",
    "similar products",
    "similar sponsored",
    "people who viewed",
    "people also viewed",
    "people also bought",
    "customers who viewed",
    "customers who bought",
    "customers also",
    "frequently bought together",
    "you may also like",
    "you might also like",
    "you may also need",
    "related products",
    "related items",
    "recommended for you",
    "recommended products",
    "complete the look",
    "recently viewed",
    "more from this seller",
    "explore more",
    "customer reviews",
    "ratings & reviews",
    "ratings and reviews",
    "reviews for ",
    "questions & answers",
    "questions and answers",
];
/// Furniture headings count in blocks up to this many tokens.
const OPENER_MAX_TOKENS: u32 = 10;

/// Does the block, a heading, open a section of page furniture?
fn opens_furniture(dom: &Dom, b: &Block) -> bool {
    let heading = dom.local_name(b.owner).is_some_and(|n| {
        matches!(
            *n,
            local_name!("h2") | local_name!("h3") | local_name!("h4") | local_name!("h5")
        )
    });
    if !heading || b.tokens > OPENER_MAX_TOKENS {
        return false;
    }
    opens_with(&b.text, FURNITURE_OPENERS, None)
}

/// The blocks of a product's text (`kept`, from `container`) without the
/// sections that furniture headings open: each such heading titles the
/// largest element inside the container that it starts (of which it is
/// the first block of the page), and that element's blocks are left out.
pub(crate) fn without_furniture(
    dom: &Dom,
    a: &Analysis,
    blocks: &[Block],
    container: NodeId,
    kept: Vec<Block>,
) -> Vec<Block> {
    let mut sections = Vec::new();
    for (i, b) in blocks.iter().enumerate() {
        if !a.contains(container, b.owner) || !opens_furniture(dom, b) {
            continue;
        }
        let previous = i.checked_sub(1).and_then(|j| blocks.get(j));
        let mut section = b.owner;
        loop {
            let parent = dom.get(section).map_or(NONE, |n| n.parent);
            if parent == NONE
                || parent == container
                || !a.contains(container, parent)
                || previous.is_some_and(|p| a.contains(parent, p.owner))
            {
                break;
            }
            section = parent;
        }
        sections.push(section);
    }
    if sections.is_empty() {
        return kept;
    }
    kept.into_iter()
        .filter(|b| !sections.iter().any(|&s| a.contains(s, b.owner)))
        .collect()
}

/// Per-element sums of the scores of the blocks below it.
fn subtree_scores(
    dom: &Dom,
    a: &Analysis,
    blocks: &[Block],
    classes: &[Class],
    confirmed: &[bool],
) -> Vec<f32> {
    let n = dom.nodes.len();
    let mut score = vec![0f32; n];
    for (i, (b, c)) in blocks.iter().zip(classes).enumerate() {
        let t = b.tokens as f32;
        let s = if confirmed.get(i).copied().unwrap_or(false) {
            CONFIRMED_WEIGHT * t
        } else if mostly_boiler(b) {
            -t
        } else {
            match c {
                Class::Good => t,
                Class::Neutral => SHORT_WEIGHT * t,
                Class::Bad => -t,
            }
        };
        if let Some(slot) = score.get_mut(b.owner) {
            *slot += s;
        }
    }
    for &id in a.order.iter().rev() {
        let parent = dom.get(id).map_or(NONE, |x| x.parent);
        if parent < n {
            let s = score[id];
            score[parent] += s;
        }
    }
    score
}

/// The product block around the product's heading `h1`: of the elements
/// holding the heading (up to, not including, `<body>`), the one whose
/// blocks score highest. `confirmed` marks the blocks that repeat the
/// declared description.
pub(crate) fn product_block(
    dom: &Dom,
    a: &Analysis,
    blocks: &[Block],
    classes: &[Class],
    confirmed: &[bool],
    h1: NodeId,
) -> Option<NodeId> {
    let score = subtree_scores(dom, a, blocks, classes, confirmed);
    let mut best = None;
    let mut best_score = f32::MIN;
    let mut up = h1;
    while up != NONE {
        if matches!(
            dom.local_name(up).map(|n| &**n),
            Some("body" | "html") | None
        ) {
            break;
        }
        let s = score.get(up).copied().unwrap_or(0.0);
        if s > best_score {
            best_score = s;
            best = Some(up);
        }
        up = dom.get(up).map_or(NONE, |n| n.parent);
    }
    best
}

/// Currency signs that make a number beside them a price.
const CURRENCY: &[char] = &['$', '£', '€', '¥', '₹'];

/// Does the text show a price: a currency sign next to a digit (`$34.99`,
/// `£ 20`, `39,99 €`)? The lines of a buy box (prices, savings, payment
/// plans) show one; a tagline or an introduction under a heading does not.
pub(crate) fn has_price(text: &str) -> bool {
    let mut prev = ' ';
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if CURRENCY.contains(&c) {
            let mut ahead = chars.clone().skip_while(|&n| n == ' ');
            if prev.is_ascii_digit() || ahead.next().is_some_and(|n| n.is_ascii_digit()) {
                return true;
            }
        }
        if c != ' ' {
            prev = c;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::has_price;
    use crate::extract::run;
    use crate::Mode;

    const REVIEW: &str = "I bought this for my daughter and she loves it, although the strap \
                          broke after a week of use, which was a shame, so four stars only.";
    const DESCRIPTION: &str = "A light alder body with a roasted maple neck, three pickups and \
                               a five-way switch, comfortable through a long set.";

    fn page(ld_type: &str) -> String {
        let reviews: String = (0..5).map(|_| format!("<p>{REVIEW}</p>")).collect();
        let links: String = (0..40)
            .map(|i| format!("<li><a href=/{i}>Shop item {i}</a></li>"))
            .collect();
        format!(
            "<head><script type='application/ld+json'>{{\"@type\":\"{ld_type}\",\
             \"name\":\"Guitar\"}}</script></head><body>\
             <nav><a href=/>Home</a> <a href=/shop>Shop</a></nav>\
             <div id=product><h1>Classic Guitar</h1><div>$499</div><div>In stock</div>\
             <p>{DESCRIPTION}</p><ul><li>Body: alder</li><li>Neck: maple</li></ul></div>\
             <section class='product-reviews'><h2>Reviews</h2>{reviews}</section>\
             <footer><ul>{links}</ul></footer></body>"
        )
    }

    #[test]
    fn reviews_outweighing_a_product_are_not_its_text() {
        let got = run(&page("Product"), Mode::Main, 512).paragraphs;
        assert_eq!(
            got,
            vec!["Classic Guitar", DESCRIPTION, "Body: alder", "Neck: maple"]
        );
    }

    #[test]
    fn without_a_declared_product_the_page_is_read_as_before() {
        // Nothing says the page is a product: the reviews are not left out.
        let got = run(&page("Thing"), Mode::Main, 512).paragraphs;
        assert!(got.iter().any(|p| p == REVIEW), "{got:?}");
    }

    fn shop(ld_type: &str) -> String {
        let cards = |n: &str| -> String {
            (0..4)
                .map(|i| {
                    format!("<li><a href=/{n}{i}>Another guitar {i}</a><div>${i}99</div></li>")
                })
                .collect()
        };
        format!(
            "<head><script type='application/ld+json'>{{\"@type\":\"{ld_type}\"}}</script></head>\
             <body><main><section><h2>People who viewed this item also viewed</h2>\
             <ul>{}</ul></section>\
             <h1>Classic Guitar</h1><p>{DESCRIPTION}</p><p>{DESCRIPTION}</p>\
             <section><div><h2>Similar items</h2></div><ul>{}</ul></section>\
             <h3>Specifications</h3><ul><li>Body: alder</li><li>Neck: maple</li></ul>\
             </main></body>",
            cards("a"),
            cards("b")
        )
    }

    #[test]
    fn a_product_starts_at_its_heading_without_recommendations() {
        let got = run(&shop("Product"), Mode::Main, 512).paragraphs;
        assert_eq!(
            got,
            vec![
                "Classic Guitar",
                DESCRIPTION,
                DESCRIPTION,
                "Specifications",
                "Body: alder",
                "Neck: maple"
            ]
        );
        // A page that declares no product keeps its sections.
        let got = run(&shop("Thing"), Mode::Main, 512).paragraphs;
        assert!(got.iter().any(|p| p == "Similar items"), "{got:?}");
    }

    #[test]
    fn prices_are_a_currency_sign_beside_a_number() {
        for t in [
            "$34.99",
            "$34.99$49.99 Save $15",
            "£ 20",
            "39,99 €",
            "From ¥1200",
        ] {
            assert!(has_price(t), "{t}");
        }
        for t in [
            "Made in Maine, less than one mile from the trail",
            "Save money with US$ plans",
            "The $ sign",
            "Record in a few clicks. Share anywhere.",
        ] {
            assert!(!has_price(t), "{t}");
        }
    }
}
