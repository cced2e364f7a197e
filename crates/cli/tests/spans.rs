//! `neardup spans` end to end: output snapshots, the same output for any
//! thread count and memory budget, the side outputs, bad input.

mod common;

use common::{json_lines, neardup, temp_dir};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/spans")
        .join(name)
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn spans(args: &[&str]) -> String {
    let out = neardup(&[&["spans", "-q"], args].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn output_snapshots() {
    let corpus = data("corpus.jsonl");
    let reference = data("reference.jsonl");
    for (args, snapshot) in [
        (vec![], "paragraph.jsonl"),
        (vec!["--unit", "sentence"], "sentence.jsonl"),
        (vec!["--keep", "none"], "keep-none.jsonl"),
        (
            vec!["--unit", "substring", "--min-tokens", "6"],
            "substring.jsonl",
        ),
        (
            vec!["--unit", "substring", "--min-bytes", "30", "--keep", "none"],
            "substring-bytes.jsonl",
        ),
        (
            vec!["--reference", path(&reference), "--ref-ngram", "8"],
            "reference-out.jsonl",
        ),
    ] {
        let got = spans(&[&[path(&corpus)], args.as_slice()].concat());
        let want = std::fs::read_to_string(data(snapshot)).unwrap();
        assert_eq!(got, want, "{snapshot}");
    }
}

#[test]
fn offsets_are_code_points_of_the_users_text() {
    let out = spans(&[path(&data("corpus.jsonl"))]);
    let docs: Vec<serde_json::Value> = std::fs::read_to_string(data("corpus.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (line, doc) in json_lines(out.as_bytes()).iter().zip(&docs) {
        let chars: Vec<char> = doc["text"].as_str().unwrap().chars().collect();
        assert_eq!(line["chars"], chars.len());
        for s in line["spans"].as_array().unwrap() {
            let (a, b) = (
                s["start"].as_u64().unwrap() as usize,
                s["end"].as_u64().unwrap() as usize,
            );
            let piece: String = chars[a..b].iter().collect();
            assert_eq!(piece, piece.trim(), "spans are trimmed");
            assert!(!piece.is_empty());
        }
    }
    let b = &json_lines(out.as_bytes())[1];
    let text: Vec<char> = docs[1]["text"].as_str().unwrap().chars().collect();
    let s = &b["spans"][1];
    let piece: String = text
        [s["start"].as_u64().unwrap() as usize..s["end"].as_u64().unwrap() as usize]
        .iter()
        .collect();
    assert_eq!(piece, "图书馆周一重新开放，市民可以免费借阅图书！");
}

/// A corpus of articles sharing boilerplate lines and pasted paragraphs.
fn corpus(dir: &Path, docs: usize) -> PathBuf {
    let mut s = String::new();
    for d in 0..docs {
        let mut lines = vec![common::article(d)];
        if d % 3 == 0 {
            lines.push("Subscribe to our newsletter — the latest stories every morning.".into());
        }
        if d % 7 == 1 && d > 7 {
            lines.push(common::article(d - 7));
        }
        if d % 11 == 0 {
            lines.push("本网站所有内容均受版权保护，未经许可不得转载。".into());
        }
        lines.push(format!(
            "Published on day {d} of the year, in the morning edition."
        ));
        let text = lines.join("\n");
        s.push_str(&serde_json::json!({"id": format!("d{d}"), "text": text}).to_string());
        s.push('\n');
    }
    let p = dir.join("corpus.jsonl");
    std::fs::write(&p, s).unwrap();
    p
}

#[test]
fn same_spans_for_any_thread_count_memory_budget_and_keep_policy() {
    let dir = temp_dir("spans-threads");
    let c = corpus(&dir, 3000);
    let spill = dir.join("spill");
    std::fs::create_dir(&spill).unwrap();
    for mode in [
        vec!["--unit", "paragraph"],
        vec!["--unit", "sentence"],
        vec!["--fuzzy", "--ngram", "5"],
        vec!["--keep", "none"],
        vec!["--unit", "substring", "--min-tokens", "8"],
        vec!["--unit", "substring", "--min-tokens", "8", "--keep", "none"],
        vec!["--unit", "substring", "--min-bytes", "60"],
    ] {
        let base = spans(&[&[path(&c), "-j", "1"], mode.as_slice()].concat());
        assert!(base.contains("\"first\":\"d0\""), "{mode:?}");
        let two = spans(&[&[path(&c), "-j", "2"], mode.as_slice()].concat());
        assert_eq!(base, two, "{mode:?}: threads");
        // Budgets past which each path goes to disk: the substring unit's
        // stream of this corpus needs about 2 MB in memory.
        let budget = if mode.contains(&"substring") {
            "1M"
        } else {
            "64K"
        };
        let small = spans(
            &[
                &[
                    path(&c),
                    "-j",
                    "2",
                    "--memory",
                    budget,
                    "--spill-dir",
                    path(&spill),
                ],
                mode.as_slice(),
            ]
            .concat(),
        );
        assert_eq!(base, small, "{mode:?}: memory budget");
    }
    assert_eq!(std::fs::read_dir(&spill).unwrap().count(), 0);
}

#[test]
fn clean_attributes_and_report() {
    let dir = temp_dir("spans-outputs");
    let c = corpus(&dir, 50);
    let (clean, attrs, report) = (
        dir.join("clean.jsonl"),
        dir.join("attrs"),
        dir.join("report.json"),
    );
    let out = spans(&[
        path(&c),
        "--clean",
        path(&clean),
        "--attributes",
        path(&attrs),
        "--report",
        path(&report),
    ]);
    let lines = json_lines(out.as_bytes());
    let cleaned = json_lines(&std::fs::read(&clean).unwrap());
    assert_eq!(cleaned.len(), 50);
    let d3 = cleaned.iter().find(|l| l["id"] == "d3").unwrap();
    assert!(!d3["text"].as_str().unwrap().contains("Subscribe"));
    let d0 = cleaned.iter().find(|l| l["id"] == "d0").unwrap();
    assert!(
        d0["text"].as_str().unwrap().contains("Subscribe"),
        "the first copy stays"
    );
    // dolma attributes: one file named as the input, the same spans.
    let a = json_lines(&std::fs::read(attrs.join("corpus.jsonl")).unwrap());
    assert_eq!(a.len(), 50);
    for (line, attr) in lines.iter().zip(&a) {
        assert_eq!(line["id"], attr["id"]);
        let spans = line["spans"].as_array().unwrap();
        let got = attr["attributes"]["neardup_repeated_spans"]
            .as_array()
            .unwrap();
        assert_eq!(spans.len(), got.len());
        for (s, g) in spans.iter().zip(got) {
            assert_eq!(
                (s["start"].clone(), s["end"].clone(), g[2].as_f64()),
                (g[0].clone(), g[1].clone(), Some(1.0))
            );
        }
    }
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(r["documents"], 50);
    let top = &r["most_repeated"][0];
    assert_eq!(top["copies"], 17);
    assert!(top["text"]
        .as_str()
        .unwrap()
        .starts_with("Subscribe to our newsletter"));
    assert!(r["by_kind"]["paragraph"]["spans"].as_u64().unwrap() > 16);
    let longest: Vec<u64> = r["longest"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["chars"].as_u64().unwrap())
        .collect();
    assert!(!longest.is_empty() && longest.windows(2).all(|w| w[0] >= w[1]));
    assert!(
        longest[0] > 60,
        "the pasted articles are the longest: {longest:?}"
    );
}

#[test]
fn substring_report_counts_tokens_compared() {
    let dir = temp_dir("spans-substring-report");
    let (c, report) = (dir.join("c.jsonl"), dir.join("report.json"));
    let text = "one two three four five six seven eight nine ten";
    std::fs::write(
        &c,
        format!(
            "{{\"id\":\"a\",\"text\":\"{text}\"}}\n{{\"id\":\"b\",\"text\":\"Eleven, {text}.\"}}\n"
        ),
    )
    .unwrap();
    let out = spans(&[
        path(&c),
        "--unit",
        "substring",
        "--min-tokens",
        "5",
        "--report",
        path(&report),
    ]);
    let lines = json_lines(out.as_bytes());
    assert_eq!(
        lines[1]["spans"],
        serde_json::json!([{"start": 8, "end": 56, "kind": "substring", "first": "a"}])
    );
    let r: serde_json::Value = serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(r["units_compared"], 21, "tokens of both documents");
    assert_eq!(r["by_kind"]["substring"]["spans"], 1);
}

#[test]
fn bad_input_is_a_document_error_and_the_run_goes_on() {
    let dir = temp_dir("spans-bad");
    let p = dir.join("bad.jsonl");
    let mut bytes =
        b"{\"id\":\"ok1\",\"text\":\"A line that is long enough to count here.\"}\n".to_vec();
    bytes.extend_from_slice(b"{\"id\":\"bad\",\"text\":\"\xff\xfe not UTF-8\"}\n");
    bytes.extend_from_slice(b"not json at all\n");
    bytes.extend_from_slice(b"{\"id\":\"empty\",\"text\":\"\"}\n");
    // One document of 200,000 identical lines, and one giant line.
    let repeated = "The same boilerplate line, again and again.\n".repeat(200_000);
    bytes.extend_from_slice(
        serde_json::json!({"id": "rep", "text": repeated})
            .to_string()
            .as_bytes(),
    );
    bytes.push(b'\n');
    let giant = "word ".repeat(2_000_000);
    bytes.extend_from_slice(
        serde_json::json!({"id": "giant", "text": giant})
            .to_string()
            .as_bytes(),
    );
    bytes.push(b'\n');
    bytes.extend_from_slice(
        b"{\"id\":\"ok2\",\"text\":\"A line that is long enough to count here!\"}\n",
    );
    std::fs::write(&p, bytes).unwrap();
    let out = neardup(&["spans", "-q", path(&p)]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stdout);
    let ids: Vec<&str> = lines.iter().map(|l| l["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 7, "{ids:?}");
    assert!(lines[1]["error"].is_string() && lines[2]["error"].is_string());
    let rep = lines.iter().find(|l| l["id"] == "rep").unwrap();
    assert_eq!(rep["spans"].as_array().unwrap().len(), 199_999);
    assert_eq!(rep["spans"][0]["first"], "rep");
    let giant = lines.iter().find(|l| l["id"] == "giant").unwrap();
    assert_eq!(giant["chars"], 10_000_000);
    let ok2 = lines.iter().find(|l| l["id"] == "ok2").unwrap();
    assert_eq!(ok2["spans"][0]["first"], "ok1");
}

#[test]
fn hostile_documents_for_the_substring_unit() {
    let dir = temp_dir("spans-substring-hostile");
    let p = dir.join("hostile.jsonl");
    let binary: String = (0..60_000u32)
        .map(|i| char::from_u32(i % 0x2FF).unwrap_or('?'))
        .collect();
    let docs = [
        ("empty", String::new()),
        (
            "rep",
            "The same boilerplate line, again and again.\n".repeat(50_000),
        ),
        ("giant", "word ".repeat(1_000_000)),
        ("one-char", "好".repeat(300_000)),
        ("binary", binary),
        ("tail", "The same boilerplate line, again and again.".into()),
    ];
    let mut s = String::new();
    for (id, text) in &docs {
        s.push_str(&serde_json::json!({"id": id, "text": text}).to_string());
        s.push('\n');
    }
    std::fs::write(&p, s).unwrap();
    let spill = dir.join("spill");
    std::fs::create_dir(&spill).unwrap();
    let args = ["--unit", "substring", "--min-tokens", "5", path(&p)];
    let base = spans(&[&args[..], &["-j", "1"]].concat());
    assert_eq!(base, spans(&[&args[..], &["-j", "2"]].concat()));
    // 2.6 million tokens need about 40 MB in memory: 16M takes the disk.
    let small = ["--memory", "16M", "--spill-dir", path(&spill)];
    assert_eq!(base, spans(&[&args[..], &small[..]].concat()));
    assert_eq!(std::fs::read_dir(&spill).unwrap().count(), 0);
    let lines = json_lines(base.as_bytes());
    let get = |id: &str| lines.iter().find(|l| l["id"] == id).unwrap().clone();
    assert_eq!(get("empty")["spans"], serde_json::json!([]));
    // Every window after the first line repeats one of the first line.
    assert_eq!(
        get("rep")["spans"],
        serde_json::json!([{"start": 44, "end": 50_000 * 44 - 2, "kind": "substring", "first": "rep"}])
    );
    assert_eq!(
        get("giant")["spans"],
        serde_json::json!([{"start": 5, "end": 4_999_999, "kind": "substring", "first": "giant"}])
    );
    assert_eq!(
        get("one-char")["spans"],
        serde_json::json!([{"start": 1, "end": 300_000, "kind": "substring", "first": "one-char"}])
    );
    assert!(get("binary")["error"].is_null());
    assert_eq!(get("tail")["spans"][0]["first"], "rep");
}

#[test]
fn bad_options_fail_before_any_work() {
    let c = data("corpus.jsonl");
    for (args, says) in [
        (vec!["--unit", "word"], "--unit"),
        (vec!["--unit", "line", "--fuzzy"], "fuzzy"),
        (vec!["--keep", "longest"], "--keep"),
        (vec!["--fuzzy", "--overlap", "1.5"], "overlap must be"),
        (vec!["--overlap", "0.5"], "--fuzzy"),
        (
            vec!["--unit", "substring", "--min-chars", "5"],
            "--min-chars",
        ),
        (vec!["--memory", "lots"], "--memory"),
        (vec!["-o", "/nonexistent/dir/out.jsonl"], "cannot write"),
        (vec!["--spill-dir", "/nonexistent/spill"], "--spill-dir"),
        (vec!["--reference", "/nonexistent/ref.jsonl"], "reference"),
        (vec!["--unit", "line", "--min-tokens", "5"], "--min-tokens"),
        (
            vec!["--unit", "substring", "--min-tokens", "0"],
            "minimum run",
        ),
    ] {
        let out = neardup(&[&["spans", path(&c)], args.as_slice()].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn substring_side_outputs_with_failed_and_empty_documents_in_memory_and_on_disk() {
    let dir = temp_dir("spans-substring-outputs");
    let c = corpus(&dir, 600);
    // Documents that fail, and documents without a token, in the middle.
    let mut lines: Vec<Vec<u8>> = std::fs::read(&c)
        .unwrap()
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(<[u8]>::to_vec)
        .collect();
    lines.insert(300, b"not json at all".to_vec());
    lines.insert(
        150,
        b"{\"id\":\"bad\",\"text\":\"\xff\xfe not UTF-8\"}".to_vec(),
    );
    lines.insert(100, b"{\"id\":\"empty\",\"text\":\"\"}".to_vec());
    lines.insert(50, b"{\"id\":\"dots\",\"text\":\"... -- !!\"}".to_vec());
    let p = dir.join("mixed.jsonl");
    std::fs::write(&p, lines.join(&b'\n')).unwrap();
    let spill = dir.join("spill");
    std::fs::create_dir(&spill).unwrap();
    let outputs = |name: &str, extra: &[&str]| {
        let (clean, attrs, report) = (
            dir.join(format!("{name}-clean.jsonl")),
            dir.join(format!("{name}-attrs")),
            dir.join(format!("{name}-report.json")),
        );
        let out = spans(
            &[
                &[
                    path(&p),
                    "--unit",
                    "substring",
                    "--min-tokens",
                    "8",
                    "--clean",
                    path(&clean),
                    "--attributes",
                    path(&attrs),
                    "--report",
                    path(&report),
                ],
                extra,
            ]
            .concat(),
        );
        let r: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        (
            out,
            std::fs::read_to_string(&clean).unwrap(),
            std::fs::read_to_string(attrs.join("mixed.jsonl")).unwrap(),
            r,
        )
    };
    let (out, clean, attrs, report) = outputs("mem", &[]);
    let small = ["--memory", "64K", "--spill-dir", path(&spill)];
    let (d_out, d_clean, d_attrs, d_report) = outputs("disk", &small);
    assert_eq!(out, d_out);
    assert_eq!(clean, d_clean);
    assert_eq!(attrs, d_attrs);
    let from = d_report["partitioned_from_document"].as_u64().unwrap();
    assert!(from > 5 && from < 600, "switched to disk part way: {from}");
    assert!(report["partitioned_from_document"].is_null());
    for k in ["documents", "most_repeated", "longest", "by_kind"] {
        assert_eq!(report[k], d_report[k], "report: {k}");
    }
    assert_eq!(std::fs::read_dir(&spill).unwrap().count(), 0);

    let lines = json_lines(out.as_bytes());
    assert_eq!(lines.len(), 604);
    let errors: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i]["error"].is_string())
        .collect();
    assert_eq!(errors, [152, 303]);
    for (i, id) in [(50, "dots"), (101, "empty")] {
        assert_eq!(lines[i]["id"], id);
        assert_eq!(lines[i]["spans"], serde_json::json!([]));
    }
    // Ids stay aligned with the documents after the failed ones: the
    // articles' lines are those of the corpus without the added documents.
    let plain = spans(&[path(&c), "--unit", "substring", "--min-tokens", "8"]);
    let kept: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| {
            l["id"]
                .as_str()
                .is_some_and(|id| id.starts_with('d') && id != "dots")
        })
        .collect();
    let plain = json_lines(plain.as_bytes());
    assert_eq!(kept.len(), plain.len());
    for (a, b) in kept.iter().zip(&plain) {
        assert_eq!(*a, b);
    }
    // The cleaned documents lose at least their spans' text; attributes
    // carry the same spans.
    let cleaned = json_lines(clean.as_bytes());
    let attrs = json_lines(attrs.as_bytes());
    let input: Vec<serde_json::Value> = json_lines(&std::fs::read(&c).unwrap());
    for line in &lines {
        let Some(id) = line["id"]
            .as_str()
            .filter(|id| id.starts_with('d') && *id != "dots")
        else {
            continue;
        };
        let d: usize = id[1..].parse().unwrap();
        let text: Vec<char> = input[d]["text"].as_str().unwrap().chars().collect();
        let spans = line["spans"].as_array().unwrap();
        let got = cleaned.iter().find(|l| l["id"] == id).unwrap()["text"]
            .as_str()
            .unwrap()
            .to_string();
        let mut span_chars = 0;
        for s in spans {
            assert_eq!(s["kind"], "substring");
            let (a, b) = (s["start"].as_u64().unwrap(), s["end"].as_u64().unwrap());
            span_chars += (b - a) as usize;
        }
        if spans.is_empty() {
            assert_eq!(got.chars().count(), text.len(), "{id}");
        } else {
            assert!(got.chars().count() <= text.len() - span_chars, "{id}");
        }
        let attr = attrs.iter().find(|l| l["id"] == id).unwrap();
        let got = attr["attributes"]["neardup_repeated_spans"]
            .as_array()
            .unwrap();
        assert_eq!(got.len(), spans.len(), "{id}");
    }
    assert_eq!(report["documents"], 604);
    assert!(report["by_kind"]["substring"]["spans"].as_u64().unwrap() > 100);
}

#[test]
fn attributes_directory_parents_are_created() {
    // dolma's layout: `attributes/NAME`, with `attributes/` not there yet,
    // given relative to the working directory.
    let dir = temp_dir("spans-attributes-parents");
    let c = corpus(&dir, 20);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_neardup"))
        .current_dir(&dir)
        .args(["spans", "-q", "corpus.jsonl", "--attributes"])
        .arg(Path::new("attributes").join("neardup_spans"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines = json_lines(&out.stdout);
    let attrs = json_lines(
        &std::fs::read(
            dir.join("attributes/neardup_spans")
                .join(c.file_name().unwrap()),
        )
        .unwrap(),
    );
    assert_eq!(attrs.len(), 20);
    for (line, attr) in lines.iter().zip(&attrs) {
        assert_eq!(line["id"], attr["id"]);
        let got = attr["attributes"]["neardup_repeated_spans"]
            .as_array()
            .unwrap();
        assert_eq!(got.len(), line["spans"].as_array().unwrap().len());
    }
    assert!(attrs
        .iter()
        .any(|a| !a["attributes"]["neardup_repeated_spans"]
            .as_array()
            .unwrap()
            .is_empty()));
    // Deeper, by absolute path.
    let deep = dir.join("a/b/c/attrs");
    spans(&[path(&c), "--attributes", path(&deep)]);
    assert!(deep.join("corpus.jsonl").is_file());
}

#[test]
fn attributes_directory_under_a_file_fails_before_any_work_naming_the_file() {
    let dir = temp_dir("spans-attributes-file");
    let c = corpus(&dir, 5);
    let blocker = dir.join("attributes");
    std::fs::write(&blocker, "not a directory").unwrap();
    let output = dir.join("out.jsonl");
    for target in [blocker.join("neardup_spans"), blocker.join("x/y")] {
        let out = neardup(&[
            "spans",
            path(&c),
            "-o",
            path(&output),
            "--attributes",
            path(&target),
        ]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("{} is a file, not a directory", blocker.display())),
            "{err}"
        );
        assert!(out.stdout.is_empty());
        assert!(!output.exists(), "no work was done");
    }
    assert_eq!(
        std::fs::read_to_string(&blocker).unwrap(),
        "not a directory"
    );
}
