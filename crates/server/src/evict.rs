//! Eviction (`--max-documents`, `--max-age`): the one rule, evaluated by
//! the writer after each operation it applies (not once a commit), so
//! that which documents a verdict is judged against depends only on the
//! sequence of operations and their times ([`At`]), never on how the
//! writer grouped them into transactions. A single-node service times an
//! operation by its own clock; an instance over a shared store by the
//! log time of the entry ([`At::Log`]), the same on every instance: every
//! replica evicts the same documents at the same position of the log.

use std::sync::atomic::Ordering;

use crate::error::Error;
use crate::shared::{now_ms, Shared};
use crate::store::Tables;

/// The time an operation happens at: what an inserted document records
/// as its storing time, and the "now" of the age limit after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum At {
    /// The writer's clock when it applies the operation (a single-node
    /// service, or a shared store without an age limit).
    Now,
    /// A time that comes with the operation, in milliseconds since the
    /// Unix epoch: a shared store's log time.
    Log(u64),
    /// No time: an operation that is no log entry (a barrier); the age
    /// limit is not evaluated after it, the document limit is.
    Untimed,
}

impl At {
    /// The time in milliseconds since the epoch, if any.
    pub fn ms(self) -> Option<u64> {
        match self {
            At::Now => Some(now_ms()),
            At::Log(t) => Some(t),
            At::Untimed => None,
        }
    }
}

/// After an operation at `now` (see [`At::ms`]): deletes the oldest
/// documents while there are more than the document limit, or, with a
/// time, while the oldest was stored more than the age limit before it.
/// In the operation's transaction.
pub(crate) fn evict(shared: &Shared, t: &mut Tables<'_>, now: Option<u64>) -> Result<(), Error> {
    let (max_docs, max_age) = (
        shared.config.get_max_documents(),
        shared.config.get_max_age().zip(now),
    );
    if max_docs.is_none() && max_age.is_none() {
        return Ok(());
    }
    let over = |n: usize| max_docs.is_some_and(|m| n as u64 > m);
    // The count alone settles it without reading the store, unless an age
    // limit applies.
    if max_age.is_none() && !over(shared.read_state().len()) {
        return Ok(());
    }
    while let Some((id, at, seq)) = t.oldest()? {
        let mut state = shared.write_state();
        let old = max_age.is_some_and(|(a, now)| now.saturating_sub(at) > a.as_millis() as u64);
        if !(over(state.len()) || old) {
            break;
        }
        if let Ok(d) = u32::try_from(seq) {
            state.remove(d);
        }
        drop(state);
        t.delete(&id)?;
        shared.evicted.fetch_add(1, Ordering::Relaxed);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writer::{Op, Reply};
    use crate::{Config, ContentSeen, Verdict};
    use neardup::io::{Content, RawDocument};
    use neardup_testkit::TempDir;
    use std::sync::mpsc;
    use std::time::Duration;

    fn article(seed: u64) -> String {
        (0..90)
            .map(|i| format!("w{} ", (seed * 7919 + i * 104_729) % 50_021))
            .collect()
    }

    /// 120 steps: an article, or every third step a near-duplicate of
    /// the article 8 steps before (live under both tests' limits) or 13
    /// steps before (evicted by then); whether it is, by its id.
    fn stream() -> Vec<(String, String)> {
        (0..120u64)
            .map(|i| match (i % 3, (i / 3) % 2) {
                (2, b) if i >= 13 => {
                    let back = if b == 0 { 8 } else { 13 };
                    let mut t = article(i - back);
                    t.push_str(" edited");
                    (format!("d{i}-{back}"), t)
                }
                _ => (format!("a{i}"), article(i)),
            })
            .collect()
    }

    /// Sends the stream to a new store in groups of `group` operations
    /// (each group sent before any answer is awaited, so the writer may
    /// commit several in one transaction), the operation `i` at log time
    /// `i * 100` ms; the verdicts.
    fn run(config: &Config, group: usize, name: &str) -> (Vec<Verdict>, u64) {
        let dir = TempDir::new(name);
        let seen = ContentSeen::open(&dir, config).unwrap();
        let steps = stream();
        let mut out = Vec::new();
        for (g, chunk) in steps.chunks(group).enumerate() {
            let pending: Vec<_> = chunk
                .iter()
                .enumerate()
                .map(|(j, (id, t))| {
                    let p = seen
                        .prepare(RawDocument {
                            id: id.clone(),
                            url: None,
                            content: Content::Text(t.clone()),
                        })
                        .unwrap();
                    let at = At::Log(((g * group + j) as u64) * 100);
                    let (tx, rx) = mpsc::sync_channel(1);
                    seen.send_local(Op::Insert(seen.pack(p), Reply::Thread(tx), at))
                        .unwrap();
                    rx
                })
                .collect();
            out.extend(pending.into_iter().map(|rx| rx.recv().unwrap().unwrap()));
        }
        let evicted = seen.stats().evicted;
        (out, evicted)
    }

    /// The near-duplicates of live articles are duplicates, the others
    /// not, with every grouping of the operations into commits.
    fn same_for_every_grouping(config: &Config, name: &str) {
        let ids: Vec<String> = stream().into_iter().map(|(id, _)| id).collect();
        let (one, evicted) = run(config, 1, &format!("{name}-1"));
        assert!(evicted > 90, "{evicted}");
        for (id, v) in ids.iter().zip(&one) {
            assert_eq!(v.is_duplicate(), id.ends_with("-8"), "{id}");
        }
        for group in [7, 120] {
            let (got, e) = run(config, group, &format!("{name}-{group}"));
            assert_eq!(e, evicted, "group {group}");
            for ((id, a), b) in ids.iter().zip(&one).zip(&got) {
                assert_eq!(a.duplicate_of, b.duplicate_of, "{id}, group {group}");
            }
        }
    }

    #[test]
    fn the_document_limit_does_not_depend_on_commit_grouping() {
        let mut config = Config::new();
        config.max_documents(Some(10));
        same_for_every_grouping(&config, "evict-docs");
    }

    #[test]
    fn the_age_limit_uses_the_operations_times() {
        // 100 ms a step (in 1970: by the wall clock, every document would
        // be too old at once): the article 8 steps before is live, the
        // one 13 steps before is not, whatever the commits.
        let mut config = Config::new();
        config.max_age(Some(Duration::from_millis(950)));
        same_for_every_grouping(&config, "evict-age");
    }
}
