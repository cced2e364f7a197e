//! Integration tests of `neardup dedup`, `neardup compare` and `neardup eval`.

mod common;

use common::*;

fn by_id(lines: &[serde_json::Value], suffix: &str) -> serde_json::Value {
    lines
        .iter()
        .find(|l| l["id"].as_str().unwrap().ends_with(suffix))
        .unwrap_or_else(|| panic!("{suffix}"))
        .clone()
}

#[test]
fn dedup_groups_the_bundled_reprints() {
    let out = neardup(&["dedup", "-q", example_pages().to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 7);
    let original = by_id(&lines, "digest-library-reopens.html");
    assert!(original["duplicate_of"].is_null());
    let gazette = by_id(&lines, "gazette-library-reopens.html");
    assert_eq!(gazette["duplicate_of"], original["id"], "{gazette}");
    assert_eq!(gazette["cluster"], original["id"]);
    let edited = by_id(&lines, "portal-library-edited.html");
    assert_eq!(edited["cluster"], original["id"], "{edited}");
    assert!(edited["similarity"].as_f64().unwrap() > 0.5);
    // The excerpt (a partial reprint) and the other article stand alone.
    assert!(by_id(&lines, "digest-library-excerpt.html")["duplicate_of"].is_null());
    assert!(by_id(&lines, "gazette-bridge-delayed.html")["duplicate_of"].is_null());
    // The Chinese article in two charsets.
    let gbk = by_id(&lines, "zh-kitchen-gbk.html");
    assert_eq!(
        by_id(&lines, "zh-kitchen-reprint.html")["duplicate_of"],
        gbk["id"]
    );
}

#[test]
fn dedup_is_deterministic_across_thread_counts_and_keep_policies_work() {
    let dir = example_pages();
    let one = neardup(&["dedup", "-q", "-j", "1", dir.to_str().unwrap()]);
    let three = neardup(&["dedup", "-q", "-j", "3", dir.to_str().unwrap()]);
    assert_eq!(one.stdout, three.stdout);
    let pref = neardup(&[
        "dedup",
        "-q",
        "--keep",
        "url:*gazette-library*",
        dir.to_str().unwrap(),
    ]);
    let lines = json_lines(&pref.stdout);
    let gazette = by_id(&lines, "gazette-library-reopens.html");
    assert!(gazette["duplicate_of"].is_null());
    assert_eq!(
        by_id(&lines, "digest-library-reopens.html")["duplicate_of"],
        gazette["id"]
    );
    let bad = neardup(&["dedup", "--keep", "sometimes", dir.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn every_method_runs_end_to_end() {
    let dir = example_pages();
    for method in [
        "exact",
        "simhash",
        "simhash128",
        "minhash",
        "minhash-oph",
        "supershingle",
        "imatch",
        "long-sentence",
        "feature-code",
        "paragraph",
    ] {
        let out = neardup(&["dedup", "-q", "--method", method, dir.to_str().unwrap()]);
        assert!(
            out.status.success(),
            "{method}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let lines = json_lines(&out.stdout);
        assert_eq!(lines.len(), 7, "{method}");
        // No method calls the other article a copy of the library story.
        let bridge = by_id(&lines, "gazette-bridge-delayed.html");
        assert!(bridge["duplicate_of"].is_null(), "{method}: {bridge}");
    }
}

#[test]
fn empty_documents_are_groups_of_their_own_and_errors_get_lines() {
    let dir = temp_dir("dedup-bad");
    let body = [
        serde_json::json!({"id": "e1", "text": ""}),
        serde_json::json!({"id": "e2", "text": "   "}),
        serde_json::json!({"id": "one", "text": "x"}),
        serde_json::json!({"id": "a", "text": "the same words in the same order make the same document here"}),
        serde_json::json!({"id": "b", "text": "the same words in the same order make the same document here"}),
    ]
    .iter()
    .map(|v| v.to_string())
    .collect::<Vec<_>>()
    .join("\n");
    std::fs::write(dir.join("c.jsonl"), format!("{body}\n{{broken\n")).unwrap();
    let report = dir.join("report.json");
    let out = neardup(&[
        "dedup",
        dir.join("c.jsonl").to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 6, "one line per input document");
    assert_eq!(lines[0]["cluster"], "e1");
    assert_eq!(lines[1]["cluster"], "e2");
    assert_eq!(lines[0]["empty"], true);
    assert_eq!(lines[4]["duplicate_of"], "a");
    assert_eq!(lines[4]["similarity"], 1.0);
    assert!(lines[5]["error"].as_str().unwrap().contains("line 6"));
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(report).unwrap()).unwrap();
    assert_eq!(report["documents"], 6);
    assert_eq!(report["empty"], 2);
    assert_eq!(report["errors"], 1);
    assert_eq!(report["duplicates"], 1);
}

#[test]
fn duplicate_ids_are_an_error_naming_them() {
    let dir = temp_dir("dedup-ids");
    std::fs::write(
        dir.join("c.jsonl"),
        "{\"id\":\"x\",\"text\":\"a b c\"}\n{\"id\":\"x\",\"text\":\"d e f\"}\n",
    )
    .unwrap();
    let out = neardup(&["dedup", dir.join("c.jsonl").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"x\""));
}

#[test]
fn compare_explains_a_pair() {
    let pages = example_pages();
    let a = pages.join("gazette-library-reopens.html");
    let b = pages.join("portal-library-edited.html");
    let out = neardup(&[
        "compare",
        "--json",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The engine's own verdict first, with the numbers `dedup` uses.
    let engine = &v["engine"];
    assert_eq!(engine["method"], "default");
    assert_eq!(engine["duplicate"], true);
    assert_eq!(engine["shingles"]["k"], 3);
    assert!(engine["jaccard"].as_f64().unwrap() > 0.8, "{engine}");
    assert_eq!(engine["runs"]["max_foreign_run"], 160);
    let methods = v["methods"].as_array().unwrap();
    assert_eq!(methods.len(), 9);
    let minhash = methods.iter().find(|m| m["method"] == "minhash").unwrap();
    assert_eq!(minhash["duplicate"], true);
    let exact = methods.iter().find(|m| m["method"] == "exact").unwrap();
    assert_eq!(exact["duplicate"], false);
    let j = v["shingles"]["jaccard"].as_f64().unwrap();
    let est = v["shingles"]["jaccard_estimated"].as_f64().unwrap();
    assert!(j > 0.8 && (j - est).abs() < 0.1, "{j} {est}");
    assert!(!v["paragraphs"]["matched"].as_array().unwrap().is_empty());
    let text = neardup(&[
        "compare",
        a.to_str().unwrap(),
        pages.join("gazette-bridge-delayed.html").to_str().unwrap(),
    ]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("minhash") && text.contains("different"),
        "{text}"
    );
    assert!(
        text.contains("default method") && text.contains("below the threshold 0.5"),
        "{text}"
    );
}

#[test]
fn compare_in_a_corpus_explains_the_dedup_verdict() {
    let pages = example_pages();
    let id = |name: &str| pages.join(name).to_str().unwrap().to_string();
    let (full, excerpt) = (
        id("digest-library-reopens.html"),
        id("digest-library-excerpt.html"),
    );
    let out = neardup(&[
        "compare",
        "--json",
        "--in",
        pages.to_str().unwrap(),
        &full,
        &excerpt,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["engine"]["duplicate"], false, "{v}");
    assert_eq!(v["engine"]["refused_by"], "verification");
    assert_eq!(v["b"]["kept"], true, "the excerpt is a group of its own");
    // The same verdicts as `dedup` over the same corpus.
    let dedup = neardup(&["dedup", "-q", pages.to_str().unwrap()]);
    let rows = String::from_utf8(dedup.stdout).unwrap();
    let row = rows
        .lines()
        .find(|l| l.starts_with(&format!("{{\"id\":{excerpt:?}")))
        .unwrap();
    assert!(row.contains("\"duplicate_of\":null"), "{row}");
    let missing = neardup(&["compare", "--in", pages.to_str().unwrap(), "nope", &full]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("not an id or URL"));
}

#[test]
fn eval_scores_predictions_against_labels() {
    let dir = temp_dir("eval");
    let labels = "{\"url\":\"a\",\"cluster\":\"1\",\"role\":\"original\"}\n{\"url\":\"b\",\"cluster\":\"1\",\"role\":\"template\"}\n{\"url\":\"c\",\"cluster\":\"2\",\"role\":\"original\"}\n{\"url\":\"d\",\"cluster\":\"2\",\"role\":\"edited\"}\n";
    std::fs::write(dir.join("labels.jsonl"), labels).unwrap();
    // a,b right; c,d split; e (unknown) ignored.
    let pred = "{\"id\":\"a\",\"cluster\":\"a\"}\n{\"id\":\"b\",\"cluster\":\"a\"}\n{\"id\":\"c\",\"cluster\":\"c\"}\n{\"id\":\"d\",\"cluster\":\"d\"}\n";
    std::fs::write(dir.join("pred.jsonl"), pred).unwrap();
    let out = neardup(&[
        "eval",
        "--labels",
        dir.join("labels.jsonl").to_str().unwrap(),
        dir.join("pred.jsonl").to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let last: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["precision"], 1.0);
    assert_eq!(last["recall"], 0.5);
    assert!(
        text.contains("edited 0/1") && text.contains("template 1/1"),
        "{text}"
    );
}

/// 300 documents of which 180 copy another, and two without text.
fn spill_corpus(dir: &std::path::Path) -> std::path::PathBuf {
    let mut body = String::new();
    for i in 0..300 {
        let base = i % 120;
        let text: Vec<String> = (0..60)
            .map(|w| format!("w{}", (base * 131 + w * 7 + w * w) % 997))
            .collect();
        body.push_str(
            &serde_json::json!({"id": format!("d{i}"), "text": text.join(" ")}).to_string(),
        );
        body.push('\n');
    }
    // Documents without a signature ("empty"), known without it in memory.
    body.push_str(
        "{\"id\": \"blank\", \"text\": \" \\n \"}\n{\"id\": \"dots\", \"text\": \"... -- !!\"}\n",
    );
    let path = dir.join("c.jsonl");
    std::fs::write(&path, body).unwrap();
    path
}

#[test]
fn spilling_band_tables_to_disk_gives_the_same_groups() {
    let dir = temp_dir("spill");
    spill_corpus(&dir);
    let spill = dir.join("spill");
    std::fs::create_dir_all(&spill).unwrap();
    let input = dir.join("c.jsonl");
    let mem = neardup(&["dedup", "-q", input.to_str().unwrap()]);
    let disk = neardup(&[
        "dedup",
        "-q",
        "--spill-dir",
        spill.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    assert!(
        disk.status.success(),
        "{}",
        String::from_utf8_lossy(&disk.stderr)
    );
    assert_eq!(mem.stdout, disk.stdout);
    let dups = json_lines(&mem.stdout)
        .iter()
        .filter(|l| !l["duplicate_of"].is_null())
        .count();
    assert_eq!(dups, 180);
    let empty = json_lines(&disk.stdout)
        .iter()
        .filter(|l| l["empty"] == true)
        .count();
    assert_eq!(empty, 2);
    assert_eq!(
        std::fs::read_dir(&spill).unwrap().count(),
        0,
        "spill files are removed"
    );
}

/// 240 documents: 60 articles, each with three edited copies (words
/// changed, a line added, a head cut) on hosts with a template line, and a
/// few short ones: near-duplicates verified on their shingles, whose
/// spilled signatures are kept as band keys.
fn near_duplicate_corpus(dir: &std::path::Path) -> std::path::PathBuf {
    let word = |x: usize| format!("w{}", (x * 2_654_435_761) % 5003);
    let mut body = String::new();
    for i in 0..240 {
        let (base, edit) = (i % 60, i / 60);
        let mut words: Vec<String> = (0..120).map(|w| word(base * 1000 + w)).collect();
        match edit {
            1 => words[40] = format!("changed{i}"),
            2 => words.extend((0..8).map(|w| format!("note{i}x{w}"))),
            3 => words.drain(..12).for_each(drop),
            _ => {}
        }
        let host = i % 7;
        let text = format!("site {host} menu home about contact {}", words.join(" "));
        let text = if i % 50 == 49 {
            "two words".into()
        } else {
            text
        };
        let url = format!("http://h{host}.example/{i}");
        let line = serde_json::json!({"id": format!("n{i}"), "url": url, "text": text});
        body.push_str(&line.to_string());
        body.push('\n');
    }
    let path = dir.join("near.jsonl");
    std::fs::write(&path, body).unwrap();
    path
}

#[test]
fn spilled_band_keys_give_the_output_in_memory_for_near_duplicates() {
    let dir = temp_dir("spill-near");
    let input = near_duplicate_corpus(&dir);
    let spill = dir.join("spill");
    std::fs::create_dir_all(&spill).unwrap();
    let (input, spill_s) = (input.to_str().unwrap(), spill.to_str().unwrap());
    let extras = [
        &[][..],
        &["--containment", "0.8"][..],
        &["--verify-sketch"][..],
    ];
    for extra in extras {
        let args = |more: &[&str]| -> Vec<String> {
            let mut a = vec!["dedup", "-q", input];
            a.extend_from_slice(extra);
            a.extend_from_slice(more);
            a.into_iter().map(String::from).collect()
        };
        let run = |a: Vec<String>| neardup(&a.iter().map(String::as_str).collect::<Vec<_>>());
        let mem = run(args(&[]));
        // Band keys sorted in one run, and in runs of 64 entries.
        for runs in [&[][..], &["--spill-run-records", "64"][..]] {
            let mut more = vec!["--spill-dir", spill_s];
            more.extend_from_slice(runs);
            let disk = run(args(&more));
            assert!(
                disk.status.success(),
                "{}",
                String::from_utf8_lossy(&disk.stderr)
            );
            assert_eq!(mem.stdout, disk.stdout, "{extra:?} {runs:?}");
        }
        let near = json_lines(&mem.stdout)
            .iter()
            .filter(|l| l["duplicate_of"].is_string() && l["similarity"].as_f64() < Some(1.0))
            .count();
        assert!(near >= 100, "{near} near-duplicates");
    }
    assert_eq!(std::fs::read_dir(&spill).unwrap().count(), 0);
}

#[test]
fn a_corpus_past_the_memory_budget_moves_to_disk_and_gives_the_same_groups() {
    let dir = temp_dir("memory-budget");
    let input = spill_corpus(&dir);
    let spill = dir.join("spill");
    std::fs::create_dir_all(&spill).unwrap();
    let (input, spill_s) = (input.to_str().unwrap(), spill.to_str().unwrap());
    let mem = neardup(&["dedup", input]);
    assert!(mem.status.success());
    assert!(!String::from_utf8_lossy(&mem.stderr).contains("memory budget"));
    // 64 KiB: the documents pass three fifths of it part-way through.
    let small = neardup(&["dedup", "--memory", "64K", "--spill-dir", spill_s, input]);
    let err = String::from_utf8_lossy(&small.stderr);
    assert!(small.status.success(), "{err}");
    assert_eq!(mem.stdout, small.stdout);
    let (mem_err, small_err) = (String::from_utf8_lossy(&mem.stderr), err);
    let summary = |e: &str| {
        e.lines()
            .find(|l| l.contains("documents,"))
            .map(|l| l.split(';').next().unwrap().to_string())
    };
    assert_eq!(summary(&mem_err), summary(&small_err));
    // Past the budget without --spill-dir: the temporary directory, said so.
    let tmp = neardup(&["dedup", "--memory", "64K", input]);
    let tmp_err = String::from_utf8_lossy(&tmp.stderr);
    assert!(tmp_err.contains("passed the memory budget"), "{tmp_err}");
    // A budget below what the documents need even on disk is said.
    assert!(tmp_err.contains("more than the budget"), "{tmp_err}");
    let roomy = neardup(&["dedup", "--memory", "1G", input]);
    assert!(!String::from_utf8_lossy(&roomy.stderr).contains("budget"));
    assert_eq!(mem.stdout, tmp.stdout);
    assert_eq!(
        std::fs::read_dir(&spill).unwrap().count(),
        0,
        "spill files are removed"
    );
    // Bad budgets and places fail before any work.
    for (args, says) in [
        (vec!["--memory", "lots"], "--memory"),
        (vec!["--memory", "0"], "--memory"),
        (
            vec!["--memory", "1G", "--spill-dir", "/nonexistent/spill"],
            "--spill-dir",
        ),
        (
            vec![
                "--spill-dir",
                spill_s,
                "--report-html",
                "/tmp/neardup-never",
            ],
            "--report-html",
        ),
    ] {
        let mut all = vec!["dedup"];
        all.extend(args);
        all.push(input);
        let out = neardup(&all);
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && e.contains(says), "{all:?}: {e}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn kept_documents_are_written_in_the_inputs_format() {
    let dir = temp_dir("kept");
    // WARC: three records, the second a copy of the first.
    let mut warc = Vec::new();
    for (i, seed) in [(0, 1), (1, 1), (2, 2)] {
        warc.extend(gzip(&warc_record(
            &format!("http://example.com/{i}"),
            &article(seed),
        )));
    }
    let input = dir.join("crawl.warc.gz");
    std::fs::write(&input, &warc).unwrap();
    let kept = dir.join("kept.warc.gz");
    let out = neardup(&[
        "dedup",
        "-q",
        input.to_str().unwrap(),
        "--kept",
        kept.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again = neardup(&["extract", "-q", kept.to_str().unwrap()]);
    let ids: Vec<String> = json_lines(&again.stdout)
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["http://example.com/0", "http://example.com/2"]);
    // JSONL: kept lines verbatim.
    let lines = "{\"id\":\"a\",\"text\":\"one two three four five six seven eight nine ten\"}\n{\"id\":\"b\",\"text\":\"one two three four five six seven eight nine ten\"}\n{\"id\":\"c\",\"text\":\"eleven twelve thirteen fourteen fifteen sixteen\"}\n";
    std::fs::write(dir.join("c.jsonl"), lines).unwrap();
    let kept = dir.join("kept.jsonl");
    let out = neardup(&[
        "dedup",
        "-q",
        dir.join("c.jsonl").to_str().unwrap(),
        "--kept",
        kept.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let written = std::fs::read_to_string(&kept).unwrap();
    let expected: Vec<&str> = lines.lines().filter(|l| !l.contains("\"b\"")).collect();
    assert_eq!(written.lines().collect::<Vec<_>>(), expected);
    // HTML files: copies in a directory.
    let kept_dir = dir.join("kept-pages");
    let out = neardup(&[
        "dedup",
        "-q",
        example_pages().to_str().unwrap(),
        "--kept",
        kept_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let mut names: Vec<String> = std::fs::read_dir(&kept_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "digest-library-excerpt.html",
            "digest-library-reopens.html",
            "gazette-bridge-delayed.html",
            "zh-kitchen-gbk.html"
        ]
    );
}

#[test]
fn partial_reprints_are_reported_separately() {
    let out = neardup(&[
        "dedup",
        "-q",
        "--containment",
        "0.8",
        example_pages().to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stdout);
    let excerpt = by_id(&lines, "digest-library-excerpt.html");
    assert!(excerpt["duplicate_of"].is_null(), "{excerpt}");
    assert!(
        excerpt["contained_in"]
            .as_str()
            .unwrap()
            .contains("library"),
        "{excerpt}"
    );
    assert!(excerpt["containment"].as_f64().unwrap() >= 0.8);
    assert!(by_id(&lines, "gazette-bridge-delayed.html")
        .get("contained_in")
        .is_none());
    // Without the option there is no such field.
    let plain = neardup(&["dedup", "-q", example_pages().to_str().unwrap()]);
    assert!(json_lines(&plain.stdout)
        .iter()
        .all(|l| l.get("contained_in").is_none()));
}

#[test]
fn a_verification_sketch_needs_the_default_methods_verification() {
    let dir = temp_dir("verify-sketch-refused");
    let input = spill_corpus(&dir);
    let input = input.to_str().unwrap();
    for (args, says) in [
        (vec!["--verify-sketch", "--no-exact"], "--no-exact"),
        (
            vec!["--verify-sketch", "--method", "simhash"],
            "--verify-sketch",
        ),
    ] {
        let mut all = vec!["dedup", input];
        all.extend(args);
        let out = neardup(&all);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success() && err.contains(says),
            "{all:?}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
}
