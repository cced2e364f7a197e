//! Long documents of the substring unit: a document of at least
//! `long_document_bytes` keeps no tokens in its analysis
//! (`SpanFinder::analyze_for_run`) and the run tokenizes its text itself.
//! Its spans are those of the ordinary path (tokens kept by
//! `SpanFinder::analyze`), byte for byte: in memory, spilled to disk part
//! way and from the start, with `--keep first` and `--keep none`, with and
//! without a byte minimum.

mod common;

use common::{run, substring_finder};
use neardup_spans::{Keep, SpanFinder};

/// Threshold of the tests: every document but the short ones is long.
const LONG: usize = 64;

/// Documents, some long, some short, one failed, one empty: a long one of
/// one repeated word, long ones copying from short ones and from each
/// other (in several scripts, with case and width variants), and a long
/// one of distinct words at `filler` (past a 64 KiB budget).
fn corpus(filler: usize) -> Vec<Option<String>> {
    let story = "The council approved the new cycle lanes on the high street";
    let zh = "图书馆周一重新开放，市民可以免费借阅图书";
    let mut docs = vec![
        Some(format!("{story}.")),
        Some("word ".repeat(300)),
        None,
        Some(format!(
            "Before it: {}. {zh}! Ｔｈｅ COUNCIL approved the new cycle lanes — on the high street, again.",
            "unique words of the third document"
        )),
        Some(String::new()),
        Some(format!("{zh} {zh} and Word word WORD {story}")),
    ];
    docs.push(Some(format!(
        "After the filler: {story}, and the words of the last document. 世界 {zh}"
    )));
    docs.push(Some("a short one: word word word".into()));
    let words: Vec<String> = (0..3000).map(|i| format!("filler{i}")).collect();
    docs.insert(filler, Some(words.join(" ")));
    docs
}

fn finder(keep: Keep, min_bytes: u64, memory: u64, dir: &std::path::Path) -> SpanFinder {
    substring_finder(3, min_bytes, keep, memory, LONG, dir)
}

#[test]
fn a_long_documents_analysis_leaves_its_tokens_in_its_text() {
    let dir = neardup_testkit::TempDir::new("substring-long-analysis");
    let f = finder(Keep::First, 0, 1 << 30, &dir);
    let long = "word ".repeat(20);
    assert!(long.len() >= LONG);
    assert!(f
        .substring_windows(&f.analyze_for_run(&long, None))
        .is_empty());
    assert_eq!(f.substring_windows(&f.analyze(&long, None)).len(), 18);
    // A short document keeps its tokens either way.
    let short = "word word word word";
    assert_eq!(
        f.substring_windows(&f.analyze_for_run(short, None)),
        f.substring_windows(&f.analyze(short, None))
    );
}

#[test]
fn long_documents_have_the_spans_of_the_ordinary_path() {
    let dir = neardup_testkit::TempDir::new("substring-long");
    for keep in [Keep::First, Keep::None] {
        for min_bytes in [0, 12] {
            // In memory; past a 64 KiB budget at the filler, part way or
            // from the first document.
            for (memory, filler, from) in [
                (1 << 30, 6, None),
                (64 << 10, 6, Some(6)),
                (64 << 10, 0, Some(0)),
            ] {
                let docs = corpus(filler);
                let f = finder(keep, min_bytes, memory, &dir);
                let (ordinary, ordinary_from) = run(&f, &docs, true);
                let (long, long_from) = run(&f, &docs, false);
                let case = format!("keep {keep:?}, min_bytes {min_bytes}, memory {memory}");
                assert_eq!(long, ordinary, "{case}");
                assert_eq!(long_from, ordinary_from, "{case}");
                assert_eq!(long_from, from, "{case}");
                let spans: usize = long.iter().map(|r| r.3.len()).sum();
                assert!(spans >= 4, "{case}: {spans} spans");
                // The long document of one word repeats itself.
                let word = "word ".repeat(300);
                let at = docs.iter().position(|d| d.as_deref() == Some(&word));
                assert!(!long[at.unwrap()].3.is_empty(), "{case}");
            }
        }
    }
}

#[test]
fn one_long_document_on_disk_from_the_start_has_its_own_repeats() {
    // The only document, past the budget with its own tokens: 20,000
    // tokens of a few words.
    let dir = neardup_testkit::TempDir::new("substring-long-alone");
    let text = "one two three four ".repeat(5000);
    for keep in [Keep::First, Keep::None] {
        let f = finder(keep, 0, 64 << 10, &dir);
        let docs = [Some(text.clone())];
        let (long, from) = run(&f, &docs, false);
        assert_eq!(from, Some(0));
        let in_memory = finder(keep, 0, 1 << 30, &dir);
        let (want, want_from) = run(&in_memory, &docs, true);
        assert_eq!(want_from, None);
        assert_eq!(long, want);
        // Keep first: everything from the second "one" (the first window
        // that is a copy); keep none: all of it.
        let start = if keep == Keep::First { 19 } else { 0 };
        let spans: Vec<(usize, usize)> = long[0].3.iter().map(|s| (s.0, s.1)).collect();
        assert_eq!(spans, [(start, text.len() - 1)]);
    }
}
