//! The partial copy check in the batch engine: a truncated reprint that
//! keeps enough of an article to pass verification is refused once another
//! copy of the article shows that the missing part is the article's text.

use neardup::{shingles_of, Dedup, Fingerprinted};

/// `n` distinct pseudo-words of text `seed`.
fn words(n: usize, seed: usize) -> String {
    (0..n)
        .map(|i| format!("w{}x{}", seed, (i * 7919) % 100_003))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whom each document duplicates, with `dedup`, and the refused pairs.
fn duplicate_of(dedup: &Dedup, texts: &[String]) -> (Vec<Option<u32>>, usize) {
    let docs: Vec<Fingerprinted> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| Fingerprinted {
            id: format!("d{i}"),
            url: None,
            text_len: t.len(),
            signature: dedup.fingerprint(t, &[]),
            shingles: dedup.shingles(t),
            error: None,
        })
        .collect();
    let views: Vec<_> = docs.iter().map(Fingerprinted::as_doc).collect();
    let groups = dedup.cluster_exact(&views, &shingles_of(&docs)).unwrap();
    let dups = groups.assignments.iter().map(|a| a.duplicate_of).collect();
    (dups, groups.partial_copies)
}

fn corpus() -> Vec<String> {
    let article = words(300, 1);
    let truncated: String = article.split(' ').take(180).collect::<Vec<_>>().join(" ");
    vec![
        article.clone(),
        truncated,
        format!("{article} {}", words(6, 2)),
        words(200, 3),
    ]
}

#[test]
fn a_truncated_reprint_is_not_a_duplicate() {
    let (dups, refused) = duplicate_of(&Dedup::new(), &corpus());
    assert_eq!(dups, vec![None, None, Some(0), None]);
    assert_eq!(refused, 2, "the truncated copy against both full copies");
}

#[test]
fn without_the_check_or_another_full_copy_it_joins() {
    let off = Dedup::builder().partial_copies(None).build();
    let (dups, refused) = duplicate_of(&off, &corpus());
    assert_eq!(dups, vec![None, Some(0), Some(0), None]);
    assert_eq!(refused, 0);
    // With the full article alone, nothing shows the rest is its text.
    let mut alone = corpus();
    alone.remove(2);
    let (dups, _) = duplicate_of(&Dedup::new(), &alone);
    assert_eq!(dups, vec![None, Some(0), None]);
}
