//! Table-driven behaviour of every method: identical documents are
//! duplicates, lightly edited ones (a share of tokens replaced) are
//! duplicates for the methods robust to that edit rate, unrelated ones are
//! not; paragraph reordering plus one added paragraph is a duplicate for the
//! methods built for it.
//!
//! Measured on these corpora (5 paragraphs, ~2 KB): 64-bit SimHash at
//! Hamming <= 3 misses some 3% edits (distance 4-5) but not 1% ones;
//! super-shingles (J^14 per group), I-Match without an IDF table and
//! long sentences (m = 10, Jaccard >= 0.5) are not edit-tolerant by design.

mod common;

use neardup_sketch::{DocText, Method, Sketcher};

struct Case {
    name: &'static str,
    /// Token edit rate that must still be detected as duplicate.
    survives_edit: Option<f64>,
    /// Whether reordered paragraphs plus one new paragraph must be detected.
    survives_reorder: bool,
}

const fn case(name: &'static str, survives_edit: Option<f64>, survives_reorder: bool) -> Case {
    Case {
        name,
        survives_edit,
        survives_reorder,
    }
}

const CASES: &[Case] = &[
    case("exact", None, false),
    case("simhash", Some(0.01), false),
    case("simhash128", Some(0.03), false),
    case("minhash", Some(0.03), true),
    case("minhash-oph", Some(0.03), true),
    case("supershingle", None, false),
    case("imatch", None, false),
    case("long-sentence", Some(0.005), true),
    case("feature-code", Some(0.03), false),
    case("paragraph", None, true),
];

fn corpora() -> Vec<(&'static str, Vec<String>, Vec<String>)> {
    let mut out = Vec::new();
    for seed in 0..6u64 {
        out.push((
            "english",
            common::english(seed, 5),
            common::english(1000 + seed, 5),
        ));
        out.push((
            "chinese",
            common::chinese(seed, 5),
            common::chinese(1000 + seed, 5),
        ));
    }
    out
}

fn check(case: &Case) {
    let name = case.name;
    let m: Method = name.parse().unwrap();
    for (i, (script, base, other)) in corpora().into_iter().enumerate() {
        let rate = case.survives_edit.unwrap_or(0.03);
        let edited = common::edit(&base, rate, 77 + i as u64);
        let (tb, te, to) = (
            common::join(&base),
            common::join(&edited),
            common::join(&other),
        );
        let sb = m.sketch(&DocText::new(&tb, &base));
        let sb2 = m.sketch(&DocText::new(&tb, &base));
        let se = m.sketch(&DocText::new(&te, &edited));
        let so = m.sketch(&DocText::new(&to, &other));
        assert_eq!(sb, sb2, "{name}/{script}: sketching is deterministic");
        assert!(
            m.is_duplicate(&sb, &sb2).unwrap(),
            "{name}/{script}: identical"
        );
        assert_eq!(m.similarity(&sb, &sb2).unwrap(), 1.0, "{name}/{script}");
        if case.survives_edit.is_some() {
            assert!(
                m.is_duplicate(&sb, &se).unwrap(),
                "{name}/{script} #{i}: light edit missed (similarity {})",
                m.similarity(&sb, &se).unwrap()
            );
        }
        assert!(
            !m.is_duplicate(&sb, &so).unwrap(),
            "{name}/{script} #{i}: unrelated flagged (similarity {})",
            m.similarity(&sb, &so).unwrap()
        );
        if case.survives_reorder {
            let mut moved: Vec<String> = base.iter().rev().cloned().collect();
            moved.push(other[0].clone());
            let tm = common::join(&moved);
            let sm = m.sketch(&DocText::new(&tm, &moved));
            assert!(
                m.is_duplicate(&sb, &sm).unwrap(),
                "{name}/{script} #{i}: reorder missed (similarity {})",
                m.similarity(&sb, &sm).unwrap()
            );
        }
        let s_edit = m.similarity(&sb, &se).unwrap();
        let s_other = m.similarity(&sb, &so).unwrap();
        assert!(
            s_edit >= s_other,
            "{name}/{script} #{i}: edit {s_edit} < unrelated {s_other}"
        );
    }
}

#[test]
fn every_method_behaves() {
    for case in CASES {
        check(case);
    }
}

#[test]
fn table_covers_every_method() {
    use neardup_sketch::MethodKind;
    for k in MethodKind::ALL {
        assert!(
            CASES.iter().any(|c| c.name == k.name()),
            "{k} missing from the table"
        );
    }
}

#[test]
fn exact_ignores_case_and_width_only() {
    let m: Method = "exact".parse().unwrap();
    let a = m.sketch(&DocText::from_text("Ｈｅｌｌｏ  World"));
    let b = m.sketch(&DocText::from_text("hello world"));
    let c = m.sketch(&DocText::from_text("hello world!"));
    assert!(m.is_duplicate(&a, &b).unwrap());
    assert!(!m.is_duplicate(&a, &c).unwrap());
}

/// I-Match with a collection lexicon ignores changes of common words (low
/// IDF) but not of distinctive ones.
#[test]
fn imatch_with_idf_table_ignores_common_words() {
    use neardup_sketch::{IMatch, IdfTable};
    use std::sync::Arc;

    let docs: Vec<String> = (0..40)
        .map(|s| common::join(&common::english(s, 3)))
        .collect();
    let mut builder = IdfTable::builder();
    for d in &docs {
        builder.add_document(&DocText::from_text(d));
    }
    let table = Arc::new(builder.build());
    let mut im = IMatch::new();
    im.idf(Some(table.clone()))
        .idf_range(0.5, f64::INFINITY)
        .lexicons(3);
    let m = Method::IMatch(im);

    // The most common word of the collection (rank 0) has IDF below 0.5.
    let common_word = common::word(0);
    assert!(table.idf_of_token(&common_word) < 0.5);
    for d in docs.iter().take(10) {
        let base = m.sketch(&DocText::from_text(d));
        let padded = format!("{common_word} {d} {common_word}");
        let same = m.sketch(&DocText::from_text(&padded));
        assert!(
            m.is_duplicate(&base, &same).unwrap(),
            "common words changed the fingerprint"
        );
        let changed = format!("{d} zzqxv");
        let other = m.sketch(&DocText::from_text(&changed));
        assert!(m.similarity(&base, &other).unwrap() < 1.0);
    }
    let a = m.sketch(&DocText::from_text(&docs[0]));
    let b = m.sketch(&DocText::from_text(&docs[1]));
    assert!(!m.is_duplicate(&a, &b).unwrap());
}
