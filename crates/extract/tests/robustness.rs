//! Hostile and degenerate inputs: no panic, bounded time.

use std::time::{Duration, Instant};

use neardup_extract::{ErrorKind, Extractor};

#[test]
fn empty_input() {
    let doc = Extractor::new().extract("").expect("empty input is fine");
    assert!(doc.paragraphs.is_empty());
    assert_eq!(doc.text, "");
    assert_eq!(doc.title, "");
    let doc = Extractor::new()
        .extract("   \n ")
        .expect("whitespace is fine");
    assert!(doc.paragraphs.is_empty());
}

#[test]
fn binary_garbage_is_rejected() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let bytes: Vec<u8> = (0..20_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect();
    let text = String::from_utf8_lossy(&bytes);
    let err = Extractor::new().extract(&text).expect_err("garbage");
    assert_eq!(err.kind(), &ErrorKind::NotHtml);
    assert!(!err.to_string().is_empty());
}

#[test]
fn control_characters_inside_html_do_not_panic() {
    let html = "<p>a\u{0}b\u{1}c</p>\u{feff}<p>\u{fffd}</p>";
    assert!(Extractor::new().extract(html).is_ok());
}

#[test]
fn hundred_thousand_nested_divs() {
    let n = 100_000;
    let mut html = String::with_capacity(n * 11 + 64);
    for _ in 0..n {
        html.push_str("<div>");
    }
    html.push_str("deep text at the bottom");
    for _ in 0..n {
        html.push_str("</div>");
    }
    html.push_str("<p>after the tower</p>");
    let start = Instant::now();
    let doc = Extractor::new().extract(&html).expect("deep input is fine");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
    let all = neardup_extract::Extractor::builder()
        .mode(neardup_extract::Mode::AllText)
        .build()
        .extract(&html)
        .expect("ok");
    assert!(all.text.contains("deep text at the bottom"));
    assert!(all.text.contains("after the tower"));
    drop(doc);
}

#[test]
fn deeply_nested_unclosed_inline_and_tables() {
    let html = "<b><i><a href=x><table><tr><td>".repeat(3_000) + "x";
    let start = Instant::now();
    assert!(Extractor::new().extract(&html).is_ok());
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
}

#[test]
fn hundred_megabyte_page_hits_the_cap() {
    let size = 100 << 20;
    let html = "<p>".to_string() + &"x".repeat(size - 3);
    let start = Instant::now();
    let err = Extractor::new().extract(&html).expect_err("too large");
    assert_eq!(
        err.kind(),
        &ErrorKind::TooLarge {
            size,
            limit: 64 << 20
        }
    );
    assert!(start.elapsed() < Duration::from_secs(2));
}

#[test]
fn custom_limits_apply() {
    let ex = Extractor::builder()
        .max_input_bytes(1 << 10)
        .max_depth(8)
        .build();
    assert!(ex.extract(&"a".repeat(2048)).is_err());
    let html = "<div>".repeat(50) + "<p>still here</p>";
    let doc = Extractor::builder()
        .max_depth(8)
        .mode(neardup_extract::Mode::AllText)
        .build()
        .extract(&html)
        .expect("ok");
    assert_eq!(doc.paragraphs, vec!["still here"]);
}

#[test]
fn unclosed_constructs_at_end_of_input() {
    for html in [
        "<p>text <a href='unterminated",
        "<script>never closed",
        "<!-- never closed",
        "<style>p{}",
        "<div class=\"x",
        "<",
        "</",
        "<![CDATA[ x",
        "<svg><p>in svg",
        "<table><td>cell<select><option>o",
    ] {
        assert!(Extractor::new().extract(html).is_ok(), "{html:?}");
    }
}

#[test]
fn millions_of_tiny_elements_keep_their_text() {
    // Over the DOM node cap (50,000 + 1 per 64 bytes): the elements past it
    // are flattened, the text stays.
    let mut html = String::from("<html><body><p>Opening words of the page.</p>");
    for i in 0..400_000 {
        html.push_str("<a>");
        if i % 1000 == 0 {
            html.push_str(&format!("marker{i} "));
        }
    }
    html.push_str("<p>Closing words of the page.</p></body></html>");
    let doc = Extractor::builder()
        .mode(neardup_extract::Mode::AllText)
        .build()
        .extract(&html)
        .expect("extracts");
    assert!(doc.text.contains("Opening words"), "{}", &doc.text[..200]);
    assert!(doc.text.contains("marker399000"));
    assert!(doc.text.contains("Closing words"));
}

#[test]
fn a_page_in_shift_jis_read_as_windows_1252_is_not_binary() {
    // What a mislabelled page looks like when decoded with its label: C1
    // controls among letters. It is a page, not garbage.
    let html = "<p>\u{83}E\u{83}F\u{83}u\u{90}\u{9d}a \u{8f}\u{81}</p>".repeat(200);
    assert!(Extractor::new().extract(&html).is_ok());
}
