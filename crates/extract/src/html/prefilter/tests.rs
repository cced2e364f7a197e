//! Tests of the pre-filter: what it passes on, rewrites and leaves out.
use super::*;

#[test]
fn strips_script_style_svg() {
    let got = prefilter(
        "<p>a</p><SCRIPT type=x>if (a<b) {}</script ><style>p{}</STYLE><svg><path d='1'/></svg><p>b</p>",
    );
    assert_eq!(
        &*got,
        "<p>a</p><SCRIPT type=x></script ><style></STYLE><svg></svg><p>b</p>"
    );
}

#[test]
fn keeps_json_ld_and_empties_comments() {
    let ld = "<script type='application/ld+json'>{\"a\":1}</script>";
    let html = format!("{ld}<!-- <script>x</script> --><p>t</p>");
    assert_eq!(&*prefilter(&html), format!("{ld}<!----><p>t</p>"));
    assert_eq!(&*prefilter("<p>plain</p>"), "<p>plain</p>");
}

#[test]
fn drops_unused_attributes() {
    assert_eq!(
        &*prefilter("<div data-x=\"1\" class='a nav' onclick=go()>t</div><img src=x />"),
        "<div class='nav'>t</div><img />"
    );
    assert_eq!(
        &*prefilter("<a href=/x data-y title=\"a>b\">l</a> 1 < 2 <p id=nav\nlang=en>"),
        "<a href>l</a> 1 < 2 <p id=nav>"
    );
    assert_eq!(
        &*prefilter("<a href=\"/x\"target=_blank class=nav>l</a><a href=/y class=menu>"),
        "<a href=\"\" class=nav>l</a><a href class=nav>"
    );
    assert_eq!(&*prefilter("<p title='open>"), "<p title='open>");
}

#[test]
fn keeps_attributes_only_where_read() {
    assert_eq!(
        &*prefilter("<A HREF='/long/url?a=1'>x</A><link href=/s.css><area href=/m>"),
        "<A HREF=''>x</A><link><area>"
    );
    assert_eq!(
        &*prefilter("<input type=hidden name=q><button type=submit>"),
        "<input type=hidden><button>"
    );
    assert_eq!(
        &*prefilter("<meta property=og:title content='T'><div name=x content=y role=main itemprop=articleBody>"),
        "<meta property=og:title content='T'><div role=main itemprop=articleBody>"
    );
}

#[test]
fn attributes_written_without_separators() {
    assert_eq!(
        &*prefilter("<div style=\"\"class=nav><p data-x='1'id=main title=t>x"),
        "<div class=nav><p id=main>x"
    );
}

#[test]
fn class_and_id_only_with_evidence() {
    assert_eq!(
        &*prefilter("<div class='flex px-4' id=x9><div class=sidebar id=content>"),
        "<div><div class=nav id=main>"
    );
    // Each value with a verdict becomes the shortest one judged the
    // same; negative and positive at once is no verdict.
    assert_eq!(
        &*prefilter("<div class=\"Site-Footer wide\" id = entry-body><p class='post-footer'>"),
        "<div class=\"nav\" id = main><p>"
    );
    assert_eq!(
        &*prefilter("<div class=sidebar&amp;x ID=Story/>"),
        "<div class=sidebar&amp;x ID=main>"
    );
    // A dropped first class never lets a later one take its place.
    assert_eq!(
        &*prefilter("<div class=flex class=nav id=main id=footer>"),
        "<div id=main>"
    );
}

#[test]
fn formatting_elements_keep_what_they_had() {
    assert_eq!(
        &*prefilter("<font style='font-size:14px' color=red>a</font><B href=x data-y=1>b</B>"),
        "<font style='font-size:14px'>a</font><B href=x>b</B>"
    );
    assert_eq!(
        &*prefilter("<body style='color:red' onload=f()><body style='display:none'>"),
        "<body style='color:red'><body style='display:none'>"
    );
}

#[test]
fn keeps_styles_that_hide() {
    assert_eq!(
        &*prefilter("<p style='color:red'>a</p><p style='display: NONE'>b</p><p style=\"x:&#110;one\">c</p>"),
        "<p>a</p><p style='display:none'>b</p><p style=\"x:&#110;one\">c</p>"
    );
    assert_eq!(
        &*prefilter("<p style='border:none'>a</p><p style=visibility:hidden>b</p>"),
        "<p>a</p><p style=display:none>b</p>"
    );
    // The tokenizer keeps the first style: a later one never replaces it.
    assert_eq!(
        &*prefilter("<p style='color:red' style='display:none'>a</p>"),
        "<p>a</p>"
    );
    assert_eq!(
        &*prefilter("<p style='visibility:hidden' style='color:red'>a</p>"),
        "<p style='display:none'>a</p>"
    );
}

#[test]
fn strips_json_data_but_not_json_ld() {
    let ld = "<script type=\"application/LD+json\">{\"articleBody\": \"x\"}</script>";
    assert_eq!(&*prefilter(ld), ld);
    assert_eq!(
        &*prefilter(
            "<script id=__NEXT_DATA__ type=\"application/json\">{\"props\": 1}</script><p>t</p>"
        ),
        "<script type=\"application/json\"></script><p>t</p>"
    );
}

#[test]
fn white_space_runs_in_text_become_one_space() {
    assert_eq!(
        &*prefilter("<p>\n    a  b\t</p>\r\n<pre>\n x</pre> <p role='nav  menu'\n>\u{a0}\n"),
        "<p> a b </p> <pre> x</pre> <p role='nav  menu'\n>\u{a0} "
    );
    assert_eq!(&*prefilter("a \x0b b"), "a \x0b b");
}

#[test]
fn json_ld_is_passed_on_as_written() {
    let ld = "<script type=application/ld+json>\n{\"articleBody\": \"<p  class=x data-y=1>a</p>\"}</script>";
    assert_eq!(&*prefilter(ld), ld);
    let open = "<script type=application/ld+json>{\"a\":\n <b data-x=1>";
    assert_eq!(&*prefilter(open), open);
}

#[test]
fn quoted_gt_in_start_tag() {
    assert_eq!(
        &*prefilter("<script type=\"a>b\">code</script>"),
        "<script type=\"a>b\"></script>"
    );
}

#[test]
fn raw_text_is_passed_on_as_written() {
    for html in [
        "<title>a  <p class=x data-y=1>b</title><p>c</p>",
        "<TEXTAREA><div style='color:red'>  x</textarea >",
        "<xmp><script>x</script></xmp>",
        "<noembed><style>p{}</style></noembed><noframes><svg>a</svg></noframes>",
        "<iframe><a href=/x>in</a></iframe>",
        "<plaintext><p class=x>  a</p>",
    ] {
        assert_eq!(&*prefilter(html), html);
    }
    // Only its own end tag ends raw text.
    assert_eq!(
        &*prefilter("<title></titles><b data-x=1></title><b data-x=1>"),
        "<title></titles><b data-x=1></title><b>"
    );
}

#[test]
fn script_data_escapes() {
    // After `<!--`, `<script>` escapes again: its `</script>` does not
    // end the script.
    assert_eq!(
        &*prefilter("<script><!-- <script>a</script> <p>b</p> --></script><p class=z>c</p>"),
        "<script></script><p>c</p>"
    );
    assert_eq!(
        &*prefilter("<script><!-- x --> <script>y</script><p>c</p>"),
        "<script></script><p>c</p>"
    );
}

#[test]
fn comments_end_where_the_tokenizer_ends_them() {
    // Each comment ends at once, so `-->` is text of the title.
    for open in ["<!-->", "<!--->", "<!-- c --!>"] {
        let html = format!("{open}<title>a --> <p class=x></title>");
        let open = if open.len() > 7 { "<!---->" } else { open };
        assert_eq!(
            &*prefilter(&html),
            format!("{open}<title>a --> <p class=x></title>")
        );
    }
    // A comment left open runs to the end: the rest is passed on as written.
    assert_eq!(
        &*prefilter("<p class=x><!-- <p class=x>"),
        "<p><!-- <p class=x>"
    );
    assert_eq!(&*prefilter("<!-->  <p class=x>"), "<!--> <p>");
}

#[test]
fn end_tags_and_bogus_comments_are_read_as_wholes() {
    // A quote inside an end tag or a bogus comment opens no value.
    assert_eq!(
        &*prefilter("</a title=\"<p title='\">TEXT<br class='\"'>"),
        "</a title=\"<p title='\">TEXT<br>"
    );
    assert_eq!(
        &*prefilter("<!x <p title=\"> TEXT <b title=\"x\">"),
        "<!x <p title=\"> TEXT <b>"
    );
    assert_eq!(&*prefilter("<?x <p title=\">a\">"), "<?x <p title=\">a\">");
    assert_eq!(&*prefilter("</><p id=q>"), "</><p>");
    // A MathML root keeps its attributes: dropping one could make it
    // self-closing (`<math /a="x"b>` is not).
    let math = "<math /a=\"x\"b><mi>x</mi></math>";
    assert_eq!(&*prefilter(math), math);
}

#[test]
fn foreign_content_that_may_break_out_is_kept() {
    // `<p>` in SVG or MathML content takes the parser back to HTML.
    for html in [
        "<svg><p class=x>a</p></svg>",
        "<math><style><p class=x>a</p></style></math><p data-x>",
        "<svg><g></div>after</svg>",
    ] {
        assert_eq!(&*prefilter(html), html);
    }
    assert_eq!(
        &*prefilter("<svg><svg></svg>b</svg><p class=x>c"),
        "<svg></svg><p>c"
    );
    assert_eq!(
        &*prefilter("<math><mi>x</mi></math> <p data-x>"),
        "<math><mi>x</mi></math> <p>"
    );
    assert_eq!(
        &*prefilter("<svg a=b/><g id=q>x</svg><p id=q>"),
        "<svg></svg><p>"
    );
}

#[test]
fn unterminated_is_left_alone() {
    assert_eq!(&*prefilter("<script>never closed"), "<script>never closed");
    assert_eq!(&*prefilter("<script"), "<script");
    assert_eq!(&*prefilter("<!-- open"), "<!-- open");
    assert_eq!(&*prefilter("é<style>ü</style>ö"), "é<style></style>ö");
}
