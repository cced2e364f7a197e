//! Counting the bytes read from input files, for progress reports.

use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A shared count of the bytes read from input files (compressed bytes for
/// compressed files), to compare with the inputs' total size.
#[derive(Debug, Clone, Default)]
pub struct ReadCounter(Arc<AtomicU64>);

impl ReadCounter {
    /// A counter at zero.
    pub fn new() -> ReadCounter {
        ReadCounter::default()
    }

    /// Bytes read so far.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    pub(crate) fn add(&self, n: usize) {
        self.0.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// A reader that adds what it reads to a [`ReadCounter`].
pub(crate) struct CountingReader<R> {
    inner: R,
    counter: Option<ReadCounter>,
}

impl<R> CountingReader<R> {
    pub(crate) fn new(inner: R, counter: Option<ReadCounter>) -> Self {
        CountingReader { inner, counter }
    }
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(c) = &self.counter {
            c.add(n);
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_what_is_read() {
        let counter = ReadCounter::new();
        let mut r = CountingReader::new(&b"hello world"[..], Some(counter.clone()));
        let mut buf = [0u8; 4];
        r.read_exact(&mut buf).unwrap();
        assert_eq!(counter.get(), 4);
        let mut rest = Vec::new();
        r.read_to_end(&mut rest).unwrap();
        assert_eq!(counter.get(), 11);
    }
}
