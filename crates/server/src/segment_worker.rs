//! The background thread of [`DiskPostings`](crate::DiskPostings): it
//! writes flushed postings as segment files and merges segments, so that
//! the single writer thread of the service never waits for that I/O.
//!
//! Jobs are done one at a time, in the order sent; each is answered with a
//! [`Done`] that the writer applies when it next inserts (or waits for, to
//! bound the postings in flight). A job's inputs are immutable (`Arc`s of
//! frozen postings and of open segments), so lookups go on reading them
//! while the job runs.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use neardup::dedup::Error as EngineError;
use neardup::index::CompactPostings;

use crate::segment::{merge, write_segment, Segment};

/// Which originals a merge keeps: one bit per dense id, taken from the
/// engine when the merge is sent (ids past the end are kept).
#[derive(Debug, Default)]
pub(crate) struct AliveBits(Vec<u64>, u32);

impl AliveBits {
    /// The bits of ids `0..end` as `alive` says.
    pub fn new(end: u32, alive: &dyn Fn(u32) -> bool) -> AliveBits {
        let mut bits = vec![0u64; (end as usize).div_ceil(64)];
        for d in 0..end {
            if alive(d) {
                bits[(d / 64) as usize] |= 1 << (d % 64);
            }
        }
        AliveBits(bits, end)
    }

    /// Whether `d` is kept.
    pub fn get(&self, d: u32) -> bool {
        d >= self.1 || self.0[(d / 64) as usize] & (1 << (d % 64)) != 0
    }
}

/// Work for the thread.
pub(crate) enum Job {
    /// Write frozen postings as a new segment.
    Write(String, Arc<CompactPostings>),
    /// Merge segments into a new one, dropping removed originals.
    Merge(String, Vec<Arc<Segment>>, AliveBits),
}

/// A finished job.
pub(crate) enum Done {
    /// The segment of the oldest postings sent to be written.
    Written(Result<Segment, EngineError>),
    /// The segment that replaces the named inputs.
    Merged(Vec<String>, Result<Segment, EngineError>),
}

/// The thread and its channels; dropping it waits for the job under way.
#[derive(Debug)]
pub(crate) struct SegmentWorker {
    jobs: Option<Sender<Job>>,
    /// In a mutex only so that the postings are `Sync` (one thread uses it).
    done: Mutex<Receiver<Done>>,
    thread: Option<JoinHandle<()>>,
    /// Jobs sent and not yet received back.
    pub pending: usize,
}

impl SegmentWorker {
    /// Starts the thread for segments in `dir`.
    pub fn start(dir: &Path) -> std::io::Result<SegmentWorker> {
        let (jobs, rx) = channel::<Job>();
        let (tx, done) = channel::<Done>();
        let dir: PathBuf = dir.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("neardup-segments".into())
            .spawn(move || {
                while let Ok(job) = rx.recv() {
                    let done = match job {
                        Job::Write(name, postings) => {
                            Done::Written(write_segment(&dir, &name, postings.iter().map(Ok)))
                        }
                        Job::Merge(name, inputs, alive) => {
                            let keep = |d: u32| alive.get(d);
                            let names = inputs.iter().map(|s| s.name.clone()).collect();
                            Done::Merged(names, write_segment(&dir, &name, merge(&inputs, &keep)))
                        }
                    };
                    if tx.send(done).is_err() {
                        return;
                    }
                }
            })?;
        Ok(SegmentWorker {
            jobs: Some(jobs),
            done: Mutex::new(done),
            thread: Some(thread),
            pending: 0,
        })
    }

    /// Sends a job.
    pub fn send(&mut self, job: Job) -> Result<(), EngineError> {
        let sent = self.jobs.as_ref().is_some_and(|j| j.send(job).is_ok());
        if !sent {
            return Err(crate::segment::err("the segment thread has stopped"));
        }
        self.pending += 1;
        Ok(())
    }

    /// A finished job: waiting for one when `wait`, else only when one is
    /// ready; `None` when nothing is pending (or ready).
    pub fn next(&mut self, wait: bool) -> Option<Done> {
        if self.pending == 0 {
            return None;
        }
        let done = self.done.get_mut().unwrap_or_else(|p| p.into_inner());
        let got = if wait {
            done.recv().ok()
        } else {
            done.try_recv().ok()
        };
        if got.is_some() {
            self.pending -= 1;
        } else if wait {
            // The thread is gone (it panicked): nothing more will come.
            self.pending = 0;
        }
        got
    }
}

impl Drop for SegmentWorker {
    fn drop(&mut self) {
        self.jobs = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alive_bits_follow_the_rule_and_keep_later_ids() {
        let bits = AliveBits::new(200, &|d| d % 3 != 0);
        for d in 0..200 {
            assert_eq!(bits.get(d), d % 3 != 0, "{d}");
        }
        assert!(bits.get(200) && bits.get(u32::MAX));
        assert!(AliveBits::new(0, &|_| false).get(0));
    }
}
