//! Integration tests of `neardup report` and `neardup dedup --report-html`.

mod common;

use std::path::Path;

use common::*;

fn run_ok(args: &[&str]) {
    let out = neardup(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `dedup` then `report` on `inputs`; returns the site's directory.
fn report(dir: &TempDir, inputs: &Path, extra: &[&str]) -> std::path::PathBuf {
    let clusters = dir.join("clusters.jsonl");
    let site = dir.join("site");
    let (c, i, s) = (
        clusters.to_str().unwrap(),
        inputs.to_str().unwrap(),
        site.to_str().unwrap(),
    );
    run_ok(&["dedup", "-q", i, "-o", c]);
    let mut args = vec!["report", "-q", c, i, "-o", s];
    args.extend_from_slice(extra);
    run_ok(&args);
    site
}

fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The values of `attr="..."` in `html`.
fn attr_values<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let pat = format!("{attr}=\"");
    html.match_indices(&pat)
        .map(|(i, _)| {
            let rest = &html[i + pat.len()..];
            &rest[..rest.find('"').unwrap()]
        })
        .collect()
}

/// No page loads anything from the network: no external `src`, no
/// stylesheet or import, and the only external links are `allowed`.
fn assert_self_contained(site: &Path, allowed: &[&str]) {
    for f in files(site) {
        let html = std::fs::read_to_string(&f).unwrap();
        for v in attr_values(&html, "src") {
            assert!(!v.contains("//"), "{}: src={v}", f.display());
        }
        for v in attr_values(&html, "href") {
            if v.starts_with("http://") || v.starts_with("https://") || v.starts_with("//") {
                assert!(allowed.contains(&v), "{}: href={v}", f.display());
            }
        }
        assert!(!html.contains("<link") && !html.contains("@import") && !html.contains("url("));
    }
}

#[test]
fn report_of_the_bundled_examples() {
    let dir = temp_dir("report-examples");
    let site = report(&dir, &example_pages(), &[]);
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert_eq!(
        attr_values(&index, "href")
            .iter()
            .filter(|h| h.starts_with("groups/"))
            .count(),
        2
    );
    assert!(
        index.contains("<svg") && index.contains("same groups"),
        "{index}"
    );
    assert!(index.contains("digest-library-reopens.html") && index.contains("zh-kitchen-gbk.html"));
    assert!(site.join("groups/2.html").exists() && !site.join("groups/3.html").exists());
    let g1 = std::fs::read_to_string(site.join("groups/1.html")).unwrap();
    assert!(g1.contains("<mark>The Millbrook public library"), "{g1}");
    assert!(g1.contains("<span class=\"only\">"), "{g1}");
    assert!(g1.contains("portal-library-edited.html") && g1.contains("exact Jaccard"));
    // The excerpt is in no group.
    assert!(!g1.contains("digest-library-excerpt") && !index.contains("digest-library-excerpt"));
    assert_self_contained(&site, &[]);
}

#[test]
fn page_text_is_escaped_and_urls_are_plain_links() {
    let dir = temp_dir("report-escape");
    let body = article(3).replacen(
        "<p>",
        "<p>Readers wrote &lt;script&gt;alert(1)&lt;/script&gt; in the comments. ",
        1,
    );
    let mut warc = warc_record("https://a.example/x", &body);
    warc.extend(warc_record("https://b.example/y?a=1&b=2", &body));
    warc.extend(warc_record("https://c.example/z", &article(5)));
    let input = dir.join("in.warc");
    std::fs::write(&input, warc).unwrap();
    let site = report(&dir, &input, &[]);
    let g1 = std::fs::read_to_string(site.join("groups/1.html")).unwrap();
    assert!(g1.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "{g1}");
    assert!(!g1.contains("<script>alert"), "{g1}");
    assert!(g1.contains("href=\"https://a.example/x\""), "{g1}");
    assert!(
        g1.contains("href=\"https://b.example/y?a=1&amp;b=2\""),
        "{g1}"
    );
    assert_self_contained(
        &site,
        &["https://a.example/x", "https://b.example/y?a=1&amp;b=2"],
    );
}

#[test]
fn max_groups_bounds_the_site() {
    let dir = temp_dir("report-max");
    report(&dir, &example_pages(), &[]);
    // Again into the same directory: the pages of the first run go.
    let site = report(&dir, &example_pages(), &["--max-groups", "1"]);
    assert!(site.join("groups/1.html").exists() && !site.join("groups/2.html").exists());
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(
        index.contains("Pages for the 1 largest groups of 2"),
        "{index}"
    );
    let size: u64 = files(&site)
        .iter()
        .map(|f| f.metadata().unwrap().len())
        .sum();
    assert!(size < 40_000, "{size} bytes");
}

#[test]
fn the_group_list_is_paginated_and_searchable_as_a_whole() {
    let dir = temp_dir("report-pages");
    let site = report(&dir, &example_pages(), &["--page-size", "1"]);
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("Groups 1–1 of 2, page 1 of 2"), "{index}");
    assert!(
        index.contains("<a href=\"list/2.html\" rel=\"next\">next</a>"),
        "{index}"
    );
    assert!(index.contains("<a href=\"groups/1.html\">"));
    assert!(
        !index.contains("<a href=\"groups/2.html\">"),
        "group 2 is on page 2"
    );
    let second = std::fs::read_to_string(site.join("list/2.html")).unwrap();
    assert!(second.contains("Groups 2–2 of 2, page 2 of 2"), "{second}");
    assert!(second.contains("<a href=\"../groups/2.html\">"), "{second}");
    assert!(second.contains("<a href=\"../index.html\" rel=\"prev\">previous</a>"));
    // The search index has every group, largest first.
    let search = std::fs::read_to_string(site.join("search.js")).unwrap();
    assert!(search.starts_with("neardupSearch({"), "{search}");
    assert!(search.contains("digest-library-reopens") && search.contains("zh-kitchen-gbk"));
    assert_self_contained(&site, &[]);
    // Again with one page: the second goes.
    let site = report(&dir, &example_pages(), &[]);
    assert!(!site.join("list/2.html").exists());
    let out = neardup(&["report", "x", "y", "-o", "z", "--page-size", "0"]);
    assert!(!out.status.success());
}

#[test]
fn dedup_report_html_writes_the_same_site() {
    let dir = temp_dir("report-dedup");
    let site = report(&dir, &example_pages(), &[]);
    let other = dir.join("other");
    let pages = example_pages();
    run_ok(&[
        "dedup",
        "-q",
        pages.to_str().unwrap(),
        "-o",
        dir.join("c2.jsonl").to_str().unwrap(),
        "--report-html",
        other.to_str().unwrap(),
    ]);
    for f in ["index.html", "groups/1.html", "groups/2.html"] {
        assert_eq!(
            std::fs::read_to_string(site.join(f)).unwrap(),
            std::fs::read_to_string(other.join(f)).unwrap(),
            "{f}"
        );
    }
}

/// The dev corpus, when it is there (slow in a debug build: run with
/// `cargo test --release -p neardup-cli --test report -- --ignored`).
#[test]
#[ignore]
fn report_of_the_dev_corpus_is_bounded() {
    let warc = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/eval/neardup/dev/pages.warc.gz");
    if !warc.exists() {
        eprintln!("skipped: {} is absent", warc.display());
        return;
    }
    let dir = temp_dir("report-dev");
    let site = report(&dir, &warc, &[]);
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("same groups"), "{index}");
    let size: u64 = files(&site)
        .iter()
        .map(|f| f.metadata().unwrap().len())
        .sum();
    assert!(size < 50 << 20, "{size} bytes");
}

#[test]
fn a_file_in_place_of_the_directory_is_refused_before_work() {
    let dir = temp_dir("report-file");
    let file = dir.write("site", "x");
    let pages = example_pages();
    let out = neardup(&[
        "dedup",
        "-q",
        pages.to_str().unwrap(),
        "-o",
        dir.join("c.jsonl").to_str().unwrap(),
        "--report-html",
        file.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a directory"));
    assert!(!dir.join("c.jsonl").exists());
}
