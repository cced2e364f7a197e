//! `--cjk` and `--shingle`: dictionary word segmentation of Chinese (cargo
//! feature `jieba`) and the shingle length. Without the feature, `--cjk
//! jieba` is a clear error; with it, word shingles group Chinese reprints
//! and leave other text as it was.

mod common;

use common::*;

/// A Chinese article (written for these tests).
const LIBRARY: &str =
    "市图书馆经过两年的改造工程，于本周一重新向市民开放。新馆增加了三千平方米的阅览空间，\
设置了儿童绘本区、自习室和数字资源中心。馆长在开放仪式上表示，改造期间共整理古籍一万余册，\
并完成了全部藏书的电子编目。读者可以通过手机预约座位，也可以在自助终端借还图书。\
开放首日，不少家长带着孩子早早排队，希望第一时间体验新的儿童阅读区。\
图书馆还计划每月举办两次公益讲座，内容涵盖地方历史、科学普及和传统文化。\
工作人员介绍，周末开放时间将延长到晚上九点，以方便上班族利用业余时间读书学习。";

/// Another article on another subject.
const BRIDGE: &str =
    "横跨城东河道的新大桥原定于今年夏天建成通车，但由于连续降雨和地基加固工程的需要，\
完工日期将推迟到明年春天。交通部门负责人在新闻发布会上解释说，施工方在勘察中发现部分河床土质松软，\
必须增加桩基数量，才能保证桥梁的长期安全。推迟期间，附近居民仍需绕行旧桥，\
早晚高峰时段的拥堵问题预计会持续一段时间。为缓解交通压力，公交公司将临时增开两条接驳线路，\
并在主要路口安排志愿者疏导车辆。市政府表示，将定期公布工程进度，接受市民监督。";

/// `LIBRARY` with a few characters changed, as a reprint edits it.
fn edited() -> String {
    LIBRARY
        .replace("本周一", "本周二")
        .replace("不少家长", "许多家长")
        .replace("晚上九点", "晚上十点")
}

/// A JSONL corpus, `zh.jsonl` in the returned directory: the article, its
/// edited reprint, the other article and an English text.
fn corpus(name: &str) -> TempDir {
    let dir = temp_dir(name);
    let path = dir.join("zh.jsonl");
    let english = article(3);
    let docs = [
        ("library", LIBRARY.to_string()),
        ("library-edited", edited()),
        ("bridge", BRIDGE.to_string()),
        ("english", english),
    ];
    let lines: String = docs
        .iter()
        .map(|(id, text)| format!("{}\n", serde_json::json!({"id": id, "text": text})))
        .collect();
    std::fs::write(&path, lines).unwrap();
    dir
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn unknown_modes_and_misplaced_shingle_lengths_are_errors() {
    let pages = example_pages();
    let pages = pages.to_str().unwrap();
    let out = neardup(&["dedup", "--cjk", "words", pages]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("expected chars, bigrams or jieba"),
        "{}",
        stderr(&out)
    );
    let out = neardup(&["dedup", "--method", "simhash", "--shingle", "4", pages]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--shingle does not apply to simhash"));
    let out = neardup(&["dedup", "--shingle", "0", pages]);
    assert_eq!(out.status.code(), Some(2));
    // Bigrams apply to the MinHash family only.
    let out = neardup(&["dedup", "--method", "simhash", "--cjk", "bigrams", pages]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--cjk bigrams: CJK bigram or word segmentation applies to"),
        "{}",
        stderr(&out)
    );
    // Bigrams are the default method's default, characters the classic
    // methods': naming them changes nothing.
    for (method, cjk) in [("default", "bigrams"), ("minhash", "chars")] {
        let a = neardup(&["dedup", "-q", "--method", method, pages]);
        let b = neardup(&["dedup", "-q", "--method", method, "--cjk", cjk, pages]);
        assert!(a.status.success() && b.status.success());
        assert_eq!(a.stdout, b.stdout, "{method} {cjk}");
    }
}

/// Runs `dedup` on the corpus of [`corpus`] and checks that only the
/// edited reprint is a duplicate (of the article).
fn check_groups(path: &str, options: &[&str]) {
    let mut args = vec!["dedup", "-q"];
    args.extend_from_slice(options);
    args.push(path);
    let out = neardup(&args);
    assert!(out.status.success(), "{options:?}: {}", stderr(&out));
    let lines = json_lines(&out.stdout);
    assert_eq!(lines.len(), 4);
    assert_eq!(
        lines[1]["duplicate_of"], "library",
        "{options:?}: {}",
        lines[1]
    );
    for l in [&lines[0], &lines[2], &lines[3]] {
        assert!(l["duplicate_of"].is_null(), "{options:?}: {l}");
    }
}

#[test]
fn character_shingles_group_chinese_reprints() {
    let dir = corpus("cjk-chars");
    let path = dir.join("zh.jsonl");
    check_groups(path.to_str().unwrap(), &[]);
    check_groups(path.to_str().unwrap(), &["--cjk", "chars"]);
    check_groups(
        path.to_str().unwrap(),
        &["--method", "minhash", "--shingle", "5", "--cjk", "bigrams"],
    );
    check_groups(
        path.to_str().unwrap(),
        &["--method", "minhash", "--shingle", "5"],
    );
}

#[cfg(not(feature = "jieba"))]
#[test]
fn jieba_without_the_feature_is_a_clear_error() {
    let pages = example_pages();
    let pages = pages.to_str().unwrap();
    let dir = temp_dir("cjk-labels");
    let labels = dir.join("labels.jsonl");
    std::fs::write(&labels, "").unwrap();
    let labels = labels.to_str().unwrap();
    for args in [
        vec!["dedup", "--cjk", "jieba", pages],
        vec!["dedup", "--cjk", "jieba", "--method", "minhash", pages],
        vec![
            "eval", "--labels", labels, "--sweep", "--cjk", "jieba", pages,
        ],
    ] {
        let out = neardup(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("--cjk jieba: CJK segmentation jieba is not compiled in")
                && err.contains("--features jieba"),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty());
    }
}

#[cfg(feature = "jieba")]
#[test]
fn jieba_words_group_chinese_reprints() {
    let dir = corpus("cjk-jieba");
    let path = dir.join("zh.jsonl");
    let path = path.to_str().unwrap();
    for method in [
        &["--method", "default"][..],
        &["--method", "minhash", "--shingle", "3"],
        &["--method", "minhash-oph", "--shingle", "2"],
        &["--method", "default", "--no-exact", "--shingle", "2"],
    ] {
        let mut options = vec!["--cjk", "jieba"];
        options.extend_from_slice(method);
        check_groups(path, &options);
    }
}

#[cfg(feature = "jieba")]
#[test]
fn jieba_leaves_other_text_alone_and_is_reported() {
    let pages = example_pages();
    let pages = pages.to_str().unwrap();
    let dir = temp_dir("cjk-report");
    let report = dir.join("report.json");
    let chars = neardup(&["dedup", "-q", pages]);
    let words = neardup(&[
        "dedup",
        "-q",
        "--cjk",
        "jieba",
        "--report",
        report.to_str().unwrap(),
        pages,
    ]);
    assert!(words.status.success(), "{}", stderr(&words));
    let (chars, words) = (json_lines(&chars.stdout), json_lines(&words.stdout));
    for (c, w) in chars.iter().zip(&words) {
        let id = c["id"].as_str().unwrap();
        if id.contains("/zh-") {
            // The Chinese article in two charsets: still one group.
            assert_eq!(c["cluster"], w["cluster"], "{id}");
        } else {
            assert_eq!(c, w, "English pages do not change");
        }
    }
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
    assert_eq!(report["cjk"], "jieba");
}

#[cfg(feature = "jieba")]
#[test]
fn jieba_applies_only_to_shingling_methods() {
    let pages = example_pages();
    for method in ["simhash", "exact", "paragraph"] {
        let out = neardup(&[
            "dedup",
            "--cjk",
            "jieba",
            "--method",
            method,
            pages.to_str().unwrap(),
        ]);
        assert_eq!(out.status.code(), Some(2));
        let err = stderr(&out);
        assert!(
            err.contains("applies to minhash, minhash-oph and supershingle, not"),
            "{err}"
        );
    }
}
