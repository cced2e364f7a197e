//! Clones of a run of blocks: marquees, tickers and looping carousels
//! repeat their items (logos, taglines, testimonials) once or more right
//! after the first copy so that the animation never shows a gap. A reader
//! sees one copy; the others are layout.

use html5ever::local_name;

use crate::dom::Dom;
use crate::segment::Block;

/// Runs of up to this many blocks are looked for.
const MAX_RUN: usize = 64;
/// A run is at least this many blocks, not all the same: one block said
/// again and again (a table's "Yes", a price, a repeated label or
/// paragraph) is content.
const MIN_RUN: usize = 2;
/// Blocks of a run hold at least this many tokens each: a run of numbers
/// or marks ("0 0 0 0", "✓ ✓") is data.
const MIN_TOKENS: u32 = 2;

/// May the block be part of a clone: text of a few words, not a table
/// cell (a table's cells repeat their values by design)?
fn clonable(dom: &Dom, b: &Block) -> bool {
    b.tokens >= MIN_TOKENS
        && !matches!(
            dom.local_name(b.owner),
            Some(&local_name!("td") | &local_name!("th"))
        )
}

/// `blocks` without the copies of a run of blocks that repeats the run
/// right before it, block for block (`A B C A B C A B C` is `A B C`; `A A`
/// stays).
pub(crate) fn without_clones(dom: &Dom, blocks: Vec<Block>) -> Vec<Block> {
    let mut kept: Vec<Block> = Vec::with_capacity(blocks.len());
    for b in blocks {
        kept.push(b);
        let len = kept.len();
        for n in MIN_RUN..=MAX_RUN.min(len / 2) {
            let (first, second) = kept[len - 2 * n..].split_at(n);
            if first.last().map(|b| &b.text) != second.last().map(|b| &b.text) {
                continue;
            }
            if first.windows(2).any(|w| w[0].text != w[1].text)
                && first
                    .iter()
                    .zip(second)
                    .all(|(x, y)| x.text == y.text && clonable(dom, x))
            {
                kept.truncate(len - n);
                break;
            }
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use crate::extract::run;
    use crate::Mode;

    const PARA: &str = "Our studio designs packaging for cosmetics brands, with research, \
                        strategy and print-ready files delivered in six weeks.";

    #[test]
    fn a_marquee_is_read_once() {
        let items = "<li>Bespoke designs</li><li>Sustainable materials</li><li>Proven record</li>";
        let html =
            format!("<main><p>{PARA}</p><ul>{items}{items}{items}</ul><p>{PARA} Again.</p></main>");
        let got = run(&html, Mode::Main, 512).paragraphs;
        assert_eq!(
            got,
            vec![
                PARA.to_string(),
                "Bespoke designs".into(),
                "Sustainable materials".into(),
                "Proven record".into(),
                format!("{PARA} Again."),
            ]
        );
    }

    #[test]
    fn a_block_said_twice_and_separate_repeats_stay() {
        let html = format!(
            "<article><p>{PARA}</p><table><tr><td>Waterproof</td><td>Yes</td><td>Yes</td></tr>\
             <tr><td>0 kg</td><td>0 kg</td><td>0 kg</td><td>0 kg</td></tr></table>\
             <p>{PARA} One.</p><p>Call us</p><p>{PARA} Two.</p><p>Call us</p>\
             <p>{PARA} Three.</p><p>4</p><p>0</p><p>4</p><p>0</p><p>{PARA} Four.</p>\
             <p>{PARA}</p><p>{PARA}</p><p>{PARA}</p><p>{PARA}</p></article>"
        );
        let got = run(&html, Mode::Main, 512).paragraphs;
        assert_eq!(got.iter().filter(|p| *p == "Yes").count(), 2, "{got:?}");
        assert_eq!(got.iter().filter(|p| *p == "Call us").count(), 2, "{got:?}");
        assert_eq!(got.iter().filter(|p| *p == "0 kg").count(), 4, "{got:?}");
        assert_eq!(got.iter().filter(|p| *p == "0").count(), 2, "{got:?}");
        assert_eq!(got.iter().filter(|p| *p == PARA).count(), 5, "{got:?}");
    }
}
