//! The shared driver of batch commands: a reader thread pulls items from the
//! inputs in order and hands them over in chunks; each chunk is processed in
//! parallel on a rayon pool and its results come back in input order, so
//! output never depends on the thread count.
//!
//! With several input files, as many as there are worker threads are read
//! (decompressed, parsed) at once, each up to 8 MiB ahead. What waits to be
//! processed stays a few chunks, each a few MiB per worker thread: memory
//! freed by one chunk is reused by the next instead of new memory being
//! touched (and faulted in) for every page.
//!
//! A repeated id in JSON Lines or Parquet input stops the run as soon as it
//! is read: the output names documents by id.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::Mutex;

use anyhow::{bail, Result};
use neardup::io::{Content, DocError, DocErrorKind, Inputs, Item, Source};
use rayon::prelude::*;

/// Items per chunk handed to the pool.
const CHUNK_ITEMS: usize = 512;
/// Bytes of content per chunk and worker thread at most (a few large
/// pages make a chunk)...
const CHUNK_BYTES_PER_THREAD: usize = 4 << 20;
/// ... and per chunk at most, whatever the thread count.
const CHUNK_BYTES: usize = 64 << 20;
/// Content each input file being read ahead may hold in memory: with
/// several inputs, as many files as worker threads are read at once.
const READ_AHEAD_BYTES: usize = 8 << 20;

/// Builds the rayon pool for `--threads` (0: one per core).
pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool> {
    Ok(rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("neardup-{i}"))
        .build()?)
}

fn item_bytes(item: &Item) -> usize {
    match item {
        Item::Document(d) => match &d.content {
            Content::Html { bytes, .. } => bytes.len(),
            Content::Text(t) => t.len(),
        },
        _ => 0,
    }
}

/// Maps every item of `sources` with `map` in parallel and feeds the results
/// to `sink` in input order. Stops at the first error of `sink`.
pub fn map_ordered<T, M, S>(
    inputs: &Inputs,
    sources: &[Source],
    pool: &rayon::ThreadPool,
    map: M,
    sink: S,
) -> Result<()>
where
    T: Send,
    M: Fn(Item) -> T + Sync + Send,
    S: FnMut(T) -> Result<()>,
{
    map_ordered_sourced(inputs, sources, pool, |(_, item)| map(item), sink)
}

/// As [`map_ordered`], each item with the index of its source in
/// `sources`.
pub fn map_ordered_sourced<T, M, S>(
    inputs: &Inputs,
    sources: &[Source],
    pool: &rayon::ThreadPool,
    map: M,
    mut sink: S,
) -> Result<()>
where
    T: Send,
    M: Fn((usize, Item)) -> T + Sync + Send,
    S: FnMut(T) -> Result<()>,
{
    let stop = AtomicBool::new(false);
    let repeated: Mutex<Option<DocError>> = Mutex::new(None);
    let result = std::thread::scope(|scope| {
        let (tx, rx) = sync_channel::<Vec<(usize, Item)>>(2);
        let (stop, repeated) = (&stop, &repeated);
        let parallel = pool.current_num_threads().min(sources.len()).max(1);
        let chunk_bytes = CHUNK_BYTES.min(CHUNK_BYTES_PER_THREAD * pool.current_num_threads());
        scope.spawn(move || {
            inputs.with_items_read_ahead(sources, parallel, READ_AHEAD_BYTES, |items| {
                let mut chunk = Vec::with_capacity(CHUNK_ITEMS);
                let mut bytes = 0usize;
                for (source, item) in items {
                    if let Item::Error(
                        e @ DocError {
                            kind: DocErrorKind::DuplicateId(_),
                            ..
                        },
                    ) = &item
                    {
                        if let Ok(mut r) = repeated.lock() {
                            *r = Some(e.clone());
                        }
                        stop.store(true, Ordering::SeqCst);
                        return;
                    }
                    bytes += item_bytes(&item);
                    chunk.push((source, item));
                    if chunk.len() >= CHUNK_ITEMS || bytes >= chunk_bytes {
                        bytes = 0;
                        let full = std::mem::replace(&mut chunk, Vec::with_capacity(CHUNK_ITEMS));
                        if tx.send(full).is_err() {
                            return;
                        }
                    }
                }
                if !chunk.is_empty() {
                    let _ = tx.send(chunk);
                }
            });
        });
        // Each chunk is mapped on the pool while this thread feeds the
        // results of the chunk before it to the sink.
        let mut pending: Vec<T> = Vec::new();
        for chunk in rx {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let mut next: Vec<T> = Vec::new();
            let map = &map;
            let sunk = pool.in_place_scope(|s| {
                let next = &mut next;
                s.spawn(move |_| *next = chunk.into_par_iter().map(map).collect());
                pending.drain(..).try_for_each(&mut sink)
            });
            sunk?;
            pending = next;
        }
        pending.into_iter().try_for_each(&mut sink)
    });
    if let Some(e) = repeated.into_inner().ok().flatten() {
        if let DocErrorKind::DuplicateId(id) = &e.kind {
            bail!(
                "document ids must be unique in JSON Lines and Parquet input: {id:?} occurs more than once (stopped at its second occurrence)"
            );
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_is_kept_whatever_the_thread_count() {
        let dir = neardup_testkit::TempDir::new("pipeline-order");
        let lines: String = (0..2000)
            .map(|i| format!("{{\"id\":\"d{i}\",\"text\":\"t{i}\"}}\n"))
            .collect();
        std::fs::write(dir.join("c.jsonl"), lines).unwrap();
        let inputs = Inputs::new();
        let sources = inputs.sources(&[dir.join("c.jsonl")]).unwrap();
        let mut seen = Vec::new();
        for threads in [1, 2, 4] {
            let pool = thread_pool(threads).unwrap();
            let mut ids = Vec::new();
            map_ordered(
                &inputs,
                &sources,
                &pool,
                |item| match item {
                    Item::Document(d) => d.id,
                    _ => String::new(),
                },
                |id| {
                    ids.push(id);
                    Ok(())
                },
            )
            .unwrap();
            seen.push(ids);
        }
        assert_eq!(seen[0].len(), 2000);
        assert_eq!(seen[0][1999], "d1999");
        assert!(seen.iter().all(|s| *s == seen[0]));
    }

    #[test]
    fn a_repeated_jsonl_id_stops_the_run() {
        let dir = neardup_testkit::TempDir::new("pipeline-repeat");
        let mut lines: String = (0..3000)
            .map(|i| format!("{{\"id\":\"d{i}\",\"text\":\"t\"}}\n"))
            .collect();
        lines.push_str("{\"id\":\"d7\",\"text\":\"again\"}\n");
        lines.push_str(&lines.clone());
        std::fs::write(dir.join("c.jsonl"), lines).unwrap();
        let inputs = Inputs::new();
        let sources = inputs.sources(&[dir.join("c.jsonl")]).unwrap();
        let mut seen = 0;
        let err = map_ordered(
            &inputs,
            &sources,
            &thread_pool(1).unwrap(),
            |_| (),
            |_| {
                seen += 1;
                Ok(())
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("\"d7\""), "{err}");
        assert!(seen <= 3000, "{seen}");
    }
}
