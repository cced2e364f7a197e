//! Real archives and hostile inputs through the `dedup` command: ids,
//! counts, fail-fast checks and `--kept`.

mod common;

use std::path::{Path, PathBuf};

use common::{article, json_lines, neardup, temp_dir};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../io/tests/data")
        .join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_crawl_that_fetched_a_url_twice_is_not_an_error() {
    let dir = temp_dir("inputs-repeat");
    let report = dir.join("report.json");
    let out = neardup(&[
        "dedup",
        "-q",
        s(&fixture("repeated_uri.warc.gz")),
        "--report",
        s(&report),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ids: Vec<String> = json_lines(&out.stdout)
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        ids,
        [
            "http://example.com/a",
            "http://example.com/a#2",
            "http://example.com/r.html"
        ]
    );
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(report["records_skipped"], 6);
    let by = &report["records_skipped_by_reason"];
    assert_eq!(by["HTTP status 404"], 1, "{by}");
    assert_eq!(by["revisit record"], 1, "{by}");
    assert_eq!(by["not HTML"], 1, "{by}");
}

#[test]
fn truncated_documents_are_flagged() {
    let out = neardup(&["dedup", "-q", s(&fixture("cut_in_middle.warc"))]);
    assert!(out.status.success());
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["truncated"], true);
    assert!(lines[1].get("truncated").is_none());
    // A warning names it.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("http://cut.example.com/1: warning: record cut short"),
        "{err}"
    );
    assert!(!err.contains("http://cut.example.com/2"), "{err}");
}

#[test]
fn unwritable_output_fails_before_reading() {
    let dir = temp_dir("inputs-unwritable");
    // A broken input that would be reported if it were read.
    std::fs::write(dir.join("broken.warc"), "WARC/1.0\r\nnonsense\r\n").unwrap();
    for flag in ["-o", "--report"] {
        let out = neardup(&[
            "dedup",
            s(&dir.join("broken.warc")),
            flag,
            s(&dir.join("no/such/dir/out.json")),
        ]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("no/such/dir/out.json"), "{err}");
        assert!(!err.contains("broken.warc"), "read before failing: {err}");
    }
}

#[test]
fn dangling_links_are_counted_and_the_run_goes_on() {
    let dir = temp_dir("inputs-links");
    let pages = dir.join("pages");
    std::fs::create_dir_all(pages.join("sub")).unwrap();
    std::fs::write(pages.join("a.html"), format!("<p>{}</p>", article(1))).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(dir.join("nowhere"), pages.join("dangling.html")).unwrap();
        std::os::unix::fs::symlink(pages.join("loop"), pages.join("loop")).unwrap();
        std::os::unix::fs::symlink(&pages, pages.join("sub/up")).unwrap();
    }
    let report = dir.join("r.json");
    let out = neardup(&["dedup", "-q", s(&pages), "--report", s(&report)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(json_lines(&out.stdout).len(), 1);
    #[cfg(unix)]
    {
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        let by = &report["records_skipped_by_reason"];
        assert_eq!(by["dangling or looping symbolic link"], 2, "{by}");
        assert_eq!(by["symbolic link to a directory"], 1, "{by}");
    }
}

#[test]
fn kept_copies_keep_relative_paths_and_refuse_non_empty_directories() {
    let dir = temp_dir("inputs-kept");
    let pages = dir.join("pages");
    for (sub, seed) in [("d1", 1), ("d2", 2)] {
        std::fs::create_dir_all(pages.join(sub)).unwrap();
        std::fs::write(
            pages.join(sub).join("page.html"),
            format!("<p>{}</p>", article(seed)),
        )
        .unwrap();
    }
    let kept = dir.join("kept");
    let out = neardup(&["dedup", "-q", s(&pages), "--kept", s(&kept)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(kept.join("d1/page.html").is_file());
    assert!(kept.join("d2/page.html").is_file());
    // Again into the now non-empty directory: refused before the work ...
    let out = neardup(&["dedup", s(&pages), "--kept", s(&kept)]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--force"), "{err}");
    assert!(out.stdout.is_empty());
    // ... unless forced, and the run says what it wrote.
    let out = neardup(&["dedup", s(&pages), "--kept", s(&kept), "--force"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("wrote 2 kept documents (HTML files)"), "{err}");
}

#[test]
fn kept_warc_keeps_both_fetches_of_a_url_and_jsonl_only_valid_lines() {
    let dir = temp_dir("inputs-kept-warc");
    let kept = dir.join("kept.warc");
    let out = neardup(&[
        "dedup",
        "-q",
        s(&fixture("repeated_uri.warc.gz")),
        "--kept",
        s(&kept),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again = neardup(&["dedup", "-q", s(&kept)]);
    let ids: Vec<String> = json_lines(&again.stdout)
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        ids,
        [
            "http://example.com/a",
            "http://example.com/a#2",
            "http://example.com/r.html"
        ]
    );
    let lines = format!(
        "{}\n{{broken\n[1]\n{}\n",
        serde_json::json!({"id": "a", "text": article(1)}),
        serde_json::json!({"id": "b", "text": article(2)})
    );
    std::fs::write(dir.join("c.jsonl"), &lines).unwrap();
    let kept = dir.join("kept.jsonl");
    let out = neardup(&["dedup", "-q", s(&dir.join("c.jsonl")), "--kept", s(&kept)]);
    assert!(out.status.success());
    let written = std::fs::read_to_string(&kept).unwrap();
    assert_eq!(written.lines().count(), 2, "{written}");
    assert!(!written.contains("broken"));
}

#[test]
fn arc_and_wet_inputs() {
    let out = neardup(&[
        "dedup",
        "-q",
        s(&fixture("v1.arc.gz")),
        s(&fixture("arc_without_extension")),
        s(&fixture("wet.warc.wet.gz")),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ids: Vec<String> = json_lines(&out.stdout)
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        ids,
        [
            "http://arc.example.com/",
            "http://arc.example.com/b",
            "http://arc.example.com/#2",
            "http://arc.example.com/b#2",
            "http://wet.example.com/"
        ]
    );
}

#[test]
fn mislabelled_cjk_pages_and_tiny_pages_are_extracted() {
    let out = neardup(&[
        "extract",
        "-q",
        s(&fixture("sjis_as_windows-1252.html")),
        s(&fixture("gb18030_as_iso-8859-1.html")),
        s(&fixture("real_windows-1252.html")),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stdout);
    assert!(
        lines[0]["text"]
            .as_str()
            .unwrap()
            .contains("東京都の天気は晴れ"),
        "{}",
        lines[0]
    );
    assert_eq!(lines[0]["charset"], "Shift_JIS");
    assert!(
        lines[1]["text"]
            .as_str()
            .unwrap()
            .contains("北京今天天气晴朗"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2]["charset"], "windows-1252");
    let dir = temp_dir("inputs-tiny");
    std::fs::write(dir.join("tiny.html"), "<p>hi</p>").unwrap();
    let out = neardup(&["extract", "-q", s(&dir.join("tiny.html"))]);
    assert_eq!(json_lines(&out.stdout)[0]["text"], "hi");
}

#[test]
fn standard_input_is_read_by_its_content() {
    use std::process::{Command, Stdio};
    for (name, first) in [
        ("v1.arc.gz", "http://arc.example.com/"),
        ("repeated_id.jsonl", "a"),
        ("sjis_as_windows-1252.html", "stdin"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_neardup"))
            .args(["extract", "-q", "-"])
            .stdin(Stdio::from(std::fs::File::open(fixture(name)).unwrap()))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(json_lines(&out.stdout)[0]["id"], first, "{name}");
    }
}
