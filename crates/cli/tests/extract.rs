//! Integration tests of `neardup extract` over real files, WARC and JSONL,
//! including bad input: every document gets a line, the run goes on.

mod common;

use common::*;

#[test]
fn extracts_the_bundled_examples_in_path_order() {
    let out = neardup(&["extract", "-q", example_pages().to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stdout);
    let ids: Vec<&str> = lines.iter().map(|l| l["id"].as_str().unwrap()).collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted);
    assert_eq!(lines.len(), 7);
    let gbk = lines
        .iter()
        .find(|l| l["id"].as_str().unwrap().ends_with("zh-kitchen-gbk.html"))
        .unwrap();
    assert_eq!(gbk["charset"], "GBK");
    assert!(gbk["text"].as_str().unwrap().contains("共享厨房"));
    let article = lines
        .iter()
        .find(|l| {
            l["id"]
                .as_str()
                .unwrap()
                .ends_with("gazette-library-reopens.html")
        })
        .unwrap();
    let text = article["text"].as_str().unwrap();
    assert!(
        text.starts_with("The Millbrook public library will reopen"),
        "{text}"
    );
    assert!(!text.contains("cookies"), "{text}");
    assert!(!text.contains("All rights reserved"), "{text}");
    let paragraphs: Vec<&str> = article["paragraphs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(paragraphs.join("\n"), text);
}

#[test]
fn output_does_not_depend_on_thread_count() {
    let dir = example_pages();
    let one = neardup(&["extract", "-q", "--threads", "1", dir.to_str().unwrap()]);
    let two = neardup(&["extract", "-q", "--threads", "3", dir.to_str().unwrap()]);
    assert!(one.status.success() && two.status.success());
    assert_eq!(one.stdout, two.stdout);
}

#[test]
fn text_format_prints_the_text_of_one_page() {
    let out = neardup(&[
        "extract",
        "-q",
        "--format",
        "text",
        example_pages()
            .join("gazette-library-reopens.html")
            .to_str()
            .unwrap(),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("The Millbrook public library"), "{text}");
    assert!(text.trim_end().ends_with("digital archive."), "{text}");
}

#[test]
fn all_text_keeps_boilerplate() {
    let out = neardup(&[
        "extract",
        "-q",
        "--all-text",
        example_pages()
            .join("gazette-library-reopens.html")
            .to_str()
            .unwrap(),
    ]);
    let lines = json_lines(&out.stdout);
    assert!(lines[0]["text"]
        .as_str()
        .unwrap()
        .contains("All rights reserved"));
}

#[test]
fn missing_input_is_fatal_and_named() {
    let out = neardup(&["extract", "/nonexistent/page.html"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/page.html"));
}

#[test]
fn bad_files_get_error_lines_and_the_run_goes_on() {
    let dir = temp_dir("bad");
    let gz = gzip(article(1).as_bytes());
    std::fs::write(dir.join("a-truncated.html.gz"), &gz[..gz.len() / 2]).unwrap();
    std::fs::write(dir.join("b-empty.html"), b"").unwrap();
    let garbage: Vec<u8> = (0..200_000u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 11) as u8)
        .collect();
    std::fs::write(dir.join("c-binary.html"), garbage).unwrap();
    std::fs::write(
        dir.join("d-unclosed.html"),
        "<div><p>unclosed <b>tags <i>everywhere <table><tr><td>cell",
    )
    .unwrap();
    std::fs::write(dir.join("e-good.html"), article(2)).unwrap();
    let out = neardup(&["extract", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert!(
        lines[0]["error"].as_str().unwrap().contains("compressed"),
        "{}",
        lines[0]
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("a-truncated.html.gz"));
    assert!(lines[4]["text"]
        .as_str()
        .unwrap()
        .contains("end of the paragraph."));
    assert!(lines[3].get("error").is_none() || lines[3]["error"].is_string());
}

#[test]
fn deep_nesting_finishes() {
    let dir = temp_dir("deep");
    let html = format!(
        "<html><body>{}<p>deep text inside</p>{}</body></html>",
        "<div>".repeat(100_000),
        "</div>".repeat(100_000)
    );
    std::fs::write(dir.join("deep.html"), html).unwrap();
    let out = neardup(&[
        "extract",
        "-q",
        "--all-text",
        dir.join("deep.html").to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let lines = json_lines(&out.stdout);
    assert!(
        lines[0]["text"]
            .as_str()
            .unwrap()
            .contains("deep text inside"),
        "{}",
        lines[0]
    );
}

#[test]
fn truncated_warc_keeps_the_records_before_the_cut() {
    let dir = temp_dir("warc");
    let mut warc = Vec::new();
    for i in 0..3 {
        warc.extend(gzip(&warc_record(
            &format!("http://example.com/{i}"),
            &article(i),
        )));
    }
    let cut = warc.len() - 40;
    std::fs::write(dir.join("crawl.warc.gz"), &warc[..cut]).unwrap();
    let out = neardup(&["extract", dir.join("crawl.warc.gz").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert_eq!(lines[0]["id"], "http://example.com/0");
    assert_eq!(lines[0]["url"], "http://example.com/0");
    assert_eq!(lines[1]["id"], "http://example.com/1");
    assert_eq!(lines[2]["id"], "http://example.com/2");
    // The cut record keeps what its gzip member decoded, flagged.
    assert_eq!(lines[2]["truncated"], true, "{}", lines[2]);
    assert!(lines[1].get("truncated").is_none());
}

#[test]
fn jsonl_invalid_lines_are_reported_with_line_numbers() {
    let dir = temp_dir("jsonl");
    let body = format!(
        "{}\n{{not json\n{}\n",
        serde_json::json!({"id": "h", "html": article(3)}),
        serde_json::json!({"id": "t", "text": "plain text\nsecond paragraph"})
    );
    std::fs::write(dir.join("docs.jsonl"), body).unwrap();
    let out = neardup(&["extract", dir.join("docs.jsonl").to_str().unwrap()]);
    assert!(out.status.success());
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["id"], "h");
    assert!(
        lines[1]["error"].as_str().unwrap().contains("line 2"),
        "{}",
        lines[1]
    );
    assert_eq!(
        lines[2]["paragraphs"],
        serde_json::json!(["plain text", "second paragraph"])
    );
}

#[test]
fn huge_page_is_an_error_not_a_crash() {
    // A 100 MB page, stored gzipped (a few hundred KB) so that the test
    // does not need 100 MB of free disk: the limit applies to what the page
    // decompresses to.
    let dir = temp_dir("huge");
    let path = dir.join("huge.html");
    let mut html = String::with_capacity(100 << 20);
    html.push_str("<html><body>");
    while html.len() < 100 << 20 {
        html.push_str("<p>lorem ipsum dolor sit amet</p>");
    }
    std::fs::write(&path, gzip(html.as_bytes())).unwrap();
    let out = neardup(&["extract", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let lines = json_lines(&out.stdout);
    assert!(
        lines[0]["error"].as_str().unwrap().contains("exceeds"),
        "{}",
        lines[0]
    );
}
