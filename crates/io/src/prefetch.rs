//! Reading several sources at once: the next few runs of sources are read
//! (decompressed, parsed) by a few reading threads, ahead of the one being
//! consumed, and the items still come out in input order with the ids
//! [`Inputs::read_all`] gives them. A corpus of many gzip files is then no
//! longer read by one core. A run is one archive, JSON Lines or Parquet
//! file, or up to [`RUN_SOURCES`] files of one page each (a directory of
//! pages): their items go over in a few batches, not one hand-over (and
//! one thread woken) per page.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::Mutex;
use std::thread::Scope;

use crate::document::{Content, Item};
use crate::ids::IdRegistry;
use crate::source::{Inputs, Source, SourceKind};

/// Items a reading thread hands over at a time.
const BATCH_ITEMS: usize = 256;
/// Bytes of content a reading thread hands over at a time, at most.
const BATCH_BYTES: usize = 1 << 20;
/// Files of one page each read as one run, at most.
const RUN_SOURCES: usize = 64;

/// Items with the index of their source and their truncation mark.
type Batch = Vec<(usize, Item, bool)>;

/// The batch in hand and the rest of its run.
type Current = (std::vec::IntoIter<(usize, Item, bool)>, Receiver<Batch>);

/// A run of sources for a reading thread to read, and where its batches go.
type Job = (Range<usize>, SyncSender<Batch>);

fn content_bytes(item: &Item) -> usize {
    match item {
        Item::Document(d) => match &d.content {
            Content::Html { bytes, .. } => bytes.len(),
            Content::Text(t) => t.len(),
        },
        _ => 0,
    }
}

/// Does the source make one item at most (a page, or an error or a skip)?
fn single(source: &Source) -> bool {
    matches!(
        source.kind,
        SourceKind::Html | SourceKind::Other | SourceKind::Unreadable | SourceKind::Unrecognized
    )
}

impl Inputs {
    /// Calls `f` with the items of every source, each with the index of its
    /// source, in input order and with the ids of [`Inputs::read_all`]
    /// (and its sources' truncation marks), while up to `parallel` runs of
    /// sources are read at once, each up to about `ahead_bytes` of content
    /// ahead of the consumer (so at most `parallel * ahead_bytes` wait in
    /// memory, and the batch in hand).
    pub fn with_items_read_ahead<R>(
        &self,
        sources: &[Source],
        parallel: usize,
        ahead_bytes: usize,
        f: impl FnOnce(&mut dyn Iterator<Item = (usize, Item)>) -> R,
    ) -> R {
        let parallel = parallel.max(1);
        let slots = (ahead_bytes / BATCH_BYTES).max(2);
        let (jobs, waiting) = channel::<Job>();
        let waiting = Mutex::new(waiting);
        std::thread::scope(|scope| {
            let mut it = ReadAhead {
                inputs: self,
                sources,
                scope,
                slots,
                parallel,
                started: 0,
                queue: VecDeque::new(),
                current: None,
                ids: IdRegistry::default(),
                jobs: Some(jobs),
                waiting: &waiting,
                readers: 0,
            };
            let r = f(&mut it);
            // A reader still sending ends when its channel closes, and
            // every reader once no more jobs can come.
            it.queue.clear();
            it.current = None;
            it.jobs = None;
            r
        })
    }
}

struct ReadAhead<'a, 'scope, 'env> {
    inputs: &'a Inputs,
    sources: &'a [Source],
    scope: &'scope Scope<'scope, 'env>,
    slots: usize,
    parallel: usize,
    /// Sources handed out so far.
    started: usize,
    queue: VecDeque<Receiver<Batch>>,
    current: Option<Current>,
    ids: IdRegistry,
    /// Runs handed to the reading threads, in input order.
    jobs: Option<Sender<Job>>,
    /// Where the reading threads take the next run from.
    waiting: &'scope Mutex<Receiver<Job>>,
    /// Reading threads started.
    readers: usize,
}

/// Reads the sources of `run` into batches sent on `tx`, until its end or
/// until the consumer is gone.
fn read_run(inputs: &Inputs, sources: &[Source], run: Range<usize>, tx: &SyncSender<Batch>) {
    let mut batch = Vec::with_capacity(BATCH_ITEMS.min(run.len().max(16)));
    let mut bytes = 0;
    for i in run {
        let Some(source) = sources.get(i) else {
            break;
        };
        for (item, truncated) in inputs.read_marked(source) {
            bytes += content_bytes(&item);
            batch.push((i, item, truncated));
            if batch.len() >= BATCH_ITEMS || bytes >= BATCH_BYTES {
                bytes = 0;
                let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH_ITEMS));
                if tx.send(full).is_err() {
                    return;
                }
            }
        }
    }
    let _ = tx.send(batch);
}

impl<'a: 'scope, 'scope, 'env> ReadAhead<'a, 'scope, 'env> {
    /// The next run of sources: one source, or consecutive files of one
    /// page each.
    fn next_run(&self) -> Range<usize> {
        let from = self.started;
        let mut to = from + 1;
        if self.sources.get(from).is_some_and(single) {
            while to - from < RUN_SOURCES && self.sources.get(to).is_some_and(single) {
                to += 1;
            }
        }
        from..to.min(self.sources.len())
    }

    /// Hands the next runs to the reading threads, up to `parallel` waiting
    /// to be consumed. The run being consumed may still be read, so there
    /// is one reading thread more than that at most.
    fn start_more(&mut self) {
        while self.started < self.sources.len() && self.queue.len() < self.parallel {
            let Some(jobs) = &self.jobs else {
                return;
            };
            let run = self.next_run();
            self.started = run.end;
            let (tx, rx) = sync_channel::<Batch>(self.slots);
            if jobs.send((run, tx)).is_err() {
                return;
            }
            self.queue.push_back(rx);
            if self.readers <= self.parallel {
                self.readers += 1;
                let (inputs, sources, waiting) = (self.inputs, self.sources, self.waiting);
                self.scope.spawn(move || loop {
                    let job = match waiting.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    let Ok((run, tx)) = job else {
                        return;
                    };
                    read_run(inputs, sources, run, &tx);
                });
            }
        }
    }
}

impl<'a: 'scope, 'scope, 'env> Iterator for ReadAhead<'a, 'scope, 'env> {
    type Item = (usize, Item);

    fn next(&mut self) -> Option<(usize, Item)> {
        loop {
            if let Some((items, rx)) = &mut self.current {
                if let Some((i, item, truncated)) = items.next() {
                    let strict = self
                        .sources
                        .get(i)
                        .is_some_and(|s| matches!(s.kind, SourceKind::Jsonl | SourceKind::Parquet));
                    let item = self.ids.assign(item, strict);
                    if let (true, Some(log), Item::Document(d)) =
                        (truncated, &self.inputs.config.truncated, &item)
                    {
                        log.insert(&d.id);
                    }
                    return Some((i, item));
                }
                match rx.recv() {
                    Ok(batch) => *items = batch.into_iter(),
                    Err(_) => self.current = None,
                }
                continue;
            }
            self.start_more();
            let rx = self.queue.pop_front()?;
            self.start_more();
            self.current = Some((Vec::new().into_iter(), rx));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_come_in_order_with_the_ids_of_read_all() {
        let dir = std::env::temp_dir().join(format!("neardup-prefetch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut paths = Vec::new();
        for f in 0..5 {
            let p = dir.join(format!("p{f}.jsonl"));
            let lines: String = (0..700)
                .map(|i| format!("{{\"id\":\"f{f}-{i}\",\"text\":\"text {i}\"}}\n"))
                .collect();
            std::fs::write(&p, lines).unwrap();
            paths.push(p);
        }
        // More pages than a run holds, a file of another kind among them
        // (skipped) and a page given twice (its id repeated).
        let pages = dir.join("pages");
        std::fs::create_dir_all(&pages).unwrap();
        for p in 0..150 {
            std::fs::write(
                pages.join(format!("p{p:03}.html")),
                format!("<p>page {p}</p>"),
            )
            .unwrap();
        }
        std::fs::write(pages.join("p070.txt"), "not a page").unwrap();
        paths.push(pages.clone());
        paths.push(pages.join("p001.html"));
        // An archive given twice: its repeated URIs become URI#2.
        let warc = dir.join("a.warc");
        let http = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>hi</p>";
        let rec = format!(
            "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://x/a\r\nContent-Length: {}\r\n\r\n{http}\r\n\r\n",
            http.len()
        );
        std::fs::write(&warc, rec).unwrap();
        paths.push(warc.clone());
        paths.push(warc);
        let inputs = Inputs::new();
        let sources = inputs.sources(&paths).unwrap();
        let want: Vec<(usize, String)> = inputs
            .read_all_sourced(&sources)
            .map(|(s, i)| (s, item_id(&i)))
            .collect();
        for parallel in [1, 2, 3, 8] {
            let got: Vec<(usize, String)> =
                inputs.with_items_read_ahead(&sources, parallel, 1, |it| {
                    it.map(|(s, i)| (s, item_id(&i))).collect()
                });
            assert_eq!(got, want, "parallel {parallel}");
        }
        assert_eq!(want.last().unwrap().1, "http://x/a#2");
        assert_eq!(want.len(), 5 * 700 + 151 + 1 + 2);
        assert!(want.iter().any(|(_, id)| id.ends_with("p001.html#2")));
        // Stopping early leaves no thread behind.
        let first =
            inputs.with_items_read_ahead(&sources, 4, 1, |it| it.next().map(|(_, i)| item_id(&i)));
        assert_eq!(first.as_deref(), Some("f0-0"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn item_id(i: &Item) -> String {
        match i {
            Item::Document(d) => d.id.clone(),
            Item::Error(e) => e.id.clone(),
            Item::Skipped { id, .. } => id.clone(),
        }
    }
}
