//! The crawler scenario of the service tests: about 700 steps of a crawl
//! (originals, light and heavy edits, exact copies, re-posts, checks,
//! deletions and texts without letters), each insertion and check
//! labelled with its family (the article it copies, `None` for content
//! of its own), and precision, recall and F1 of verdicts against those
//! labels.
#![allow(dead_code)]

use std::collections::HashMap;

use crate::common::{article, edit};
use neardup::io::{Content, RawDocument};
use neardup_server::{ContentSeen, Verdict};

/// A document with a URL under example.com.
pub fn text(id: &str, t: &str) -> RawDocument {
    RawDocument {
        id: id.into(),
        url: Some(format!("https://example.com/{id}")),
        content: Content::Text(t.into()),
    }
}

/// One step of a stream: insert a text, check one, or delete an id.
#[derive(Clone)]
pub enum Step {
    Insert(String, String),
    Check(String, String),
    Delete(String),
}

impl Step {
    /// The id it names.
    pub fn id(&self) -> &str {
        match self {
            Step::Insert(id, _) | Step::Check(id, _) | Step::Delete(id) => id,
        }
    }
}

/// The steps, each with its family: the article a text copies (light
/// edits and copies of article `a` are near-duplicates of each other),
/// `None` for a text of its own (a heavy edit, another article, no
/// letters) and for deletions.
pub fn labelled_stream() -> Vec<(Step, Option<u64>)> {
    let mut s = Vec::new();
    for a in 0..235u64 {
        let base = article(a, 120 + (a as usize % 5) * 40);
        s.push((Step::Insert(format!("a{a}"), base.clone()), Some(a)));
        if a % 2 == 0 {
            s.push((
                Step::Insert(format!("a{a}-edit"), edit(&base, 25, 1)),
                Some(a),
            ));
        }
        if a % 3 == 0 {
            s.push((Step::Insert(format!("a{a}-copy"), base.clone()), Some(a)));
            s.push((
                Step::Check(format!("a{a}-check"), edit(&base, 30, 7)),
                Some(a),
            ));
        }
        if a % 5 == 0 {
            s.push((Step::Insert(format!("a{a}-heavy"), edit(&base, 4, 2)), None));
            s.push((Step::Insert(format!("a{a}"), base.clone()), Some(a)));
        }
        if a % 7 == 0 {
            s.push((Step::Delete(format!("a{a}")), None));
            s.push((
                Step::Insert(format!("a{a}-after"), edit(&base, 30, 3)),
                Some(a),
            ));
        }
        if a % 11 == 0 {
            s.push((
                Step::Insert(format!("a{a}-edit"), article(a + 1000, 90)),
                None,
            ));
            s.push((Step::Insert(format!("e{a}"), " -- ".into()), None));
        }
    }
    s
}

/// The steps alone.
pub fn stream() -> Vec<Step> {
    labelled_stream().into_iter().map(|(s, _)| s).collect()
}

/// A step's answer: its verdict (a deletion's: its id, `empty` when it
/// deleted something) or its error's text.
pub type Outcome = Result<Verdict, String>;

/// Runs the steps on `seen`, in order.
pub fn run(seen: &ContentSeen, steps: &[Step]) -> Vec<Outcome> {
    run_on(&[seen], steps)
}

/// Runs the steps in order, step `i` on instance `i % instances.len()`.
pub fn run_on(instances: &[&ContentSeen], steps: &[Step]) -> Vec<Outcome> {
    steps
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let seen = instances[i % instances.len()];
            match s {
                Step::Insert(id, t) => seen.insert(text(id, t)).map_err(|e| e.to_string()),
                Step::Check(id, t) => seen.check(text(id, t)).map_err(|e| e.to_string()),
                Step::Delete(id) => seen
                    .delete(id)
                    .map(|d| Verdict {
                        id: id.clone(),
                        empty: d,
                        duplicate_of: None,
                        similarity: None,
                        stored: false,
                    })
                    .map_err(|e| e.to_string()),
            }
        })
        .collect()
}

/// Precision, recall and F1 of duplicate verdicts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    pub tp: usize,
    pub fp: usize,
    pub fn_: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

/// Scores the outcomes of [`labelled_stream`]'s steps by keep-first
/// without chaining: a text is truly a duplicate when another stored id
/// holds its family's original (the first text of the family stored while
/// no other original of it was); a duplicate verdict is right when its
/// original is of that family (a wrong original counts as a false positive
/// and a false negative). A re-post of the stored content (its stored
/// verdict) is not scored.
pub fn score(steps: &[(Step, Option<u64>)], outcomes: &[Outcome]) -> Score {
    // Stored ids: family, text, whether it is its family's original.
    let mut live: HashMap<String, (Option<u64>, String, bool)> = HashMap::new();
    let (mut tp, mut fp, mut fn_) = (0, 0, 0);
    for ((step, family), outcome) in steps.iter().zip(outcomes) {
        let (id, t, store) = match step {
            Step::Delete(id) => {
                live.remove(id);
                continue;
            }
            Step::Insert(id, t) => (id, t, true),
            Step::Check(id, t) => (id, t, false),
        };
        let Ok(v) = outcome else { continue };
        if live.get(id).is_some_and(|(_, stored, _)| stored == t) {
            continue;
        }
        let truth = family.is_some_and(|f| {
            live.iter()
                .any(|(other, (g, _, original))| other != id && *g == Some(f) && *original)
        });
        let right = v
            .duplicate_of
            .as_ref()
            .is_some_and(|o| family.is_some() && live.get(o).is_some_and(|(g, ..)| g == family));
        match (truth, v.duplicate_of.is_some(), right) {
            (true, true, true) => tp += 1,
            (true, true, false) => {
                fp += 1;
                fn_ += 1;
            }
            (true, false, _) => fn_ += 1,
            (false, true, _) => fp += 1,
            (false, false, _) => {}
        }
        if store {
            live.insert(id.clone(), (*family, t.clone(), family.is_some() && !truth));
        }
    }
    let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
    let (precision, recall) = (ratio(tp, tp + fp), ratio(tp, tp + fn_));
    let f1 = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    Score {
        tp,
        fp,
        fn_,
        precision,
        recall,
        f1,
    }
}
