//! The composite page check in the batch engine: a page glued together
//! from half of a short article A and all of article B passes verification
//! against B (high Jaccard similarity, short foreign run), and is refused
//! once a copy of A in the corpus shows where the foreign run comes from.

mod common;

use neardup_dedup::{CompositeCheck, Dedup};

use common::{duplicate_of, words};

fn corpus() -> Vec<String> {
    let a = words(100, 1);
    let b = words(500, 2);
    let half_a: String = a.split(' ').take(50).collect::<Vec<_>>().join(" ");
    vec![
        // The composite comes first, so B's copies would join it.
        format!("{half_a} {b}"),
        b.clone(),
        format!("{b} {}", words(8, 3)),
        a,
        words(300, 4),
    ]
}

#[test]
fn a_composite_page_is_not_a_copy_of_either_article() {
    let (dups, groups) = duplicate_of(&Dedup::new(), &corpus());
    let refused = groups.composites;
    assert_eq!(dups, vec![None, None, Some(1), None, None]);
    assert_eq!(refused, 2, "the composite against each copy of B");
}

#[test]
fn without_the_check_or_without_a_copy_of_the_other_article_it_joins() {
    let off = Dedup::builder().composite(None).build();
    let (dups, groups) = duplicate_of(&off, &corpus());
    let refused = groups.composites;
    assert_eq!(dups, vec![None, Some(0), Some(0), None, None]);
    assert_eq!(refused, 0);
    // Nothing in the corpus shows where the first 50 words come from.
    let mut alone = corpus();
    alone.remove(3);
    let (dups, _) = duplicate_of(&Dedup::new(), &alone);
    assert_eq!(dups, vec![None, Some(0), Some(0), None]);
}

#[test]
fn an_editors_note_is_not_another_article() {
    let b = words(500, 2);
    let note = words(40, 5);
    // The note's words are half of a short page elsewhere in the corpus,
    // which is shorter than a document can be to count.
    let short = format!("{note} {}", words(10, 6));
    let texts = vec![format!("{note} {b}"), b.clone(), short];
    let (dups, groups) = duplicate_of(&Dedup::new(), &texts);
    let refused = groups.composites;
    assert_eq!(dups, vec![None, Some(0), None]);
    assert_eq!(refused, 0);
    // With a lower limit on the third document, the note counts.
    let strict = Dedup::builder()
        .composite(Some(CompositeCheck {
            min_other_len: 10,
            ..CompositeCheck::default()
        }))
        .build();
    let (dups, groups) = duplicate_of(&strict, &texts);
    let refused = groups.composites;
    assert_eq!((dups, refused), (vec![None, None, None], 1));
}
