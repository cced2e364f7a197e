//! Neither the pre-filter nor handing plain tokens past the tokenizer
//! ([`crate::feed`]) changes what the extractor sees: pages built from the
//! pieces that switch the tokenizer's states (raw text, script escapes,
//! comments of every ending, foreign content and its ways back to HTML,
//! quotes, bogus comments, character references) extract the same as
//! when html5ever's tokenizer reads them as written.

use html5ever::tendril::StrTendril;
use proptest::prelude::*;

use crate::extract::document;
use crate::parse::{parse_slowly, parse_tendril};
use crate::prefilter::prefilter;
use crate::{Document, Mode};

/// Pieces of markup and text, joined at random.
const PIECES: &[&str] = &[
    "<title>",
    "</title>",
    "<TEXTAREA>",
    "</textarea >",
    "<xmp>",
    "</xmp>",
    "<iframe>",
    "</iframe>",
    "<noembed>",
    "<noframes>",
    "</noframes>",
    "<plaintext>",
    "<script>",
    "</script>",
    "<script type=application/ld+json>",
    "<style>",
    "</style>",
    "<svg>",
    "<svg/>",
    "</svg>",
    "<math>",
    "</math>",
    "<mi>",
    "<desc>",
    "<foreignObject>",
    "<g>",
    "</g>",
    "<![CDATA[",
    "]]>",
    "<!--",
    "-->",
    "--!>",
    "<!-->",
    "<!--->",
    "<!x",
    "<?",
    "</",
    "</a title=\"",
    "<",
    ">",
    "/>",
    "'",
    "\"",
    "=",
    "&amp;",
    " ",
    "\n  ",
    "Some words of text",
    "<p>",
    "</p>",
    "<div>",
    "</div>",
    "<b>",
    "</b>",
    "<br>",
    "<table>",
    "<td>",
    "<select>",
    "<option>",
    "<noscript>",
    "</noscript>",
    "<iframe src=x />",
    "</iframe>",
    "<style/>",
    "<title />",
    "<p class='site-footer'>",
    "<div id=main-content>",
    "<div class=\"flex px-4\" data-x=1>",
    "<p style='display: none'>",
    "<div data-nosnippet>",
    "<div DATA-NOSNIPPET=\"\" class=x>",
    "<span style=color:red>",
    "<a href=/x title=\"a>b\">",
    "</a>",
    "<head>",
    "<body>",
    "&amp",
    "&",
    "&nbsp;",
    "&#39;",
    "&#x1F600;",
    "&#128;",
    "&#0;",
    "&not",
    "&notin;",
    "&NotEqualTilde;",
    "AT&T ",
    "&bogus;",
    "<!-- c -->",
    "\0",
    "\r\n",
    "\u{feff}",
    "<P CLASS=x ID=y>",
    "<a b=1 b=2 c>",
    "</p >",
    "<br/>",
    "<img alt='&lt;'>",
    "<custom-el x_y=z>",
];

/// The page as extracted (pre-filtered, fed), unfiltered but fed, and
/// as the tokenizer reads it.
fn three(html: &str, mode: Mode) -> [Document; 3] {
    [
        parse_tendril(prefilter(html), 512),
        parse_tendril(StrTendril::from_slice(html), 512),
        parse_slowly(html, 512),
    ]
    .map(|dom| document(&dom, html.len(), mode))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn pre_filtering_changes_no_text(
        picks in proptest::collection::vec(0..PIECES.len(), 0..40),
    ) {
        let html: String = picks.iter().filter_map(|&k| PIECES.get(k).copied()).collect();
        for mode in [Mode::AllText, Mode::Main] {
            let [filtered, fed, read] = three(&html, mode);
            prop_assert_eq!(&fed, &read, "{:?}", html);
            prop_assert_eq!(&filtered, &read, "{:?}", html);
        }
    }
}

#[test]
fn known_pages_extract_the_same() {
    for html in [
        "<title>a <p class=x>b</title><p>c</p>",
        "<script><!-- <script>a</script> <p>b</p> --></script><p>c</p>",
        "<!--><title>a --> <p class=x></title>",
        "<svg><path/><div class=x>Top</div>",
        "</a title=\"<p title='\">TEXT<br class='\"'>",
        "</style><svg/><svg><title>--></svg>",
        "<noscript><iframe src=x /><script>a</iframe><p>b</p></noscript><p>c",
        "<noscript><style/><p>a</p></noscript><iframe/><p>b</p>",
    ] {
        let [filtered, fed, read] = three(html, Mode::AllText);
        assert_eq!(filtered, read, "{html}");
        assert_eq!(fed, read, "{html}");
    }
}
