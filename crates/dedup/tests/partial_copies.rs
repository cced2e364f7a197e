//! The partial copy check in the batch engine: a truncated reprint that
//! keeps enough of an article to pass verification is refused once another
//! copy of the article shows that the missing part is the article's text.

mod common;

use neardup_dedup::Dedup;

use common::{duplicate_of, words};

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
    let (dups, groups) = duplicate_of(&Dedup::new(), &corpus());
    let refused = groups.partial_copies;
    assert_eq!(dups, vec![None, None, Some(0), None]);
    assert_eq!(refused, 2, "the truncated copy against both full copies");
}

#[test]
fn without_the_check_or_another_full_copy_it_joins() {
    let off = Dedup::builder().partial_copies(None).build();
    let (dups, groups) = duplicate_of(&off, &corpus());
    let refused = groups.partial_copies;
    assert_eq!(dups, vec![None, Some(0), Some(0), None]);
    assert_eq!(refused, 0);
    // With the full article alone, nothing shows the rest is its text.
    let mut alone = corpus();
    alone.remove(2);
    let (dups, _) = duplicate_of(&Dedup::new(), &alone);
    assert_eq!(dups, vec![None, Some(0), None]);
}
