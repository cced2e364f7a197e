//! The stream of documents of the eviction and compaction tests, and the
//! loop that posts it through one or more instances.

use neardup_server::ContentSeen;

use crate::common::{article, edit};
use crate::crawl::text;

/// Steps `from..to` of a stream: an article each step, a light edit of the
/// article `live` steps before every second step, one of the article
/// `gone` steps before every third, a deletion of the last article every
/// 25th. With a document limit between the two, the first edits find
/// their article and the second do not.
pub fn stream(from: u64, to: u64, live: u64, gone: u64) -> Vec<(String, Option<String>)> {
    let body = |a: u64| article(a, 70 + (a as usize % 4) * 10);
    let mut s = Vec::new();
    for a in from..to {
        s.push((format!("a{a}"), Some(body(a))));
        if a % 2 == 0 && a >= live {
            s.push((
                format!("a{a}-live-edit"),
                Some(edit(&body(a - live), 25, 1)),
            ));
        }
        if a % 3 == 0 && a >= gone {
            s.push((
                format!("a{a}-gone-edit"),
                Some(edit(&body(a - gone), 25, 2)),
            ));
        }
        if a % 25 == 24 {
            s.push((format!("a{a}"), None));
        }
    }
    s
}

/// Inserts (or deletes) each step on `at(i)`: the duplicate each verdict
/// names ("deleted" for a deletion).
pub fn run<'a>(
    steps: &[(String, Option<String>)],
    at: impl Fn(usize) -> &'a ContentSeen,
) -> Vec<Option<String>> {
    steps
        .iter()
        .enumerate()
        .map(|(i, (id, t))| match t {
            Some(t) => at(i).insert(text(id, t)).unwrap().duplicate_of,
            None => at(i).delete(id).unwrap().then(|| "deleted".into()),
        })
        .collect()
}
