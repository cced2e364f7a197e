//! A buffered reader that bytes can be pushed back into: archive readers
//! that find the next record inside the content of a record cut short give
//! those bytes back and read them again as the next record.

use std::io::{BufRead, Read};

/// A [`BufRead`] with a push-back buffer in front of it.
pub(crate) struct Rewind<R> {
    front: Vec<u8>,
    pos: usize,
    inner: R,
}

impl<R: BufRead> Rewind<R> {
    pub(crate) fn new(inner: R) -> Rewind<R> {
        Rewind {
            front: Vec::new(),
            pos: 0,
            inner,
        }
    }

    /// Makes `bytes` the next bytes read, before anything not yet read.
    pub(crate) fn unread(&mut self, bytes: &[u8]) {
        let mut front = Vec::with_capacity(bytes.len() + self.front.len() - self.pos);
        front.extend_from_slice(bytes);
        front.extend_from_slice(&self.front[self.pos..]);
        self.front = front;
        self.pos = 0;
    }

    /// Whether bytes pushed back or peeked at are still to be read.
    pub(crate) fn has_unread(&self) -> bool {
        self.pos < self.front.len()
    }

    /// The next `n` bytes (fewer at the end of the stream), not consumed.
    pub(crate) fn peek(&mut self, n: usize) -> std::io::Result<&[u8]> {
        while self.front.len() - self.pos < n {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            let take = buf.len().min(n - (self.front.len() - self.pos));
            self.front.extend_from_slice(&buf[..take]);
            self.inner.consume(take);
        }
        let end = (self.pos + n).min(self.front.len());
        Ok(&self.front[self.pos..end])
    }
}

impl<R: BufRead> Read for Rewind<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = {
            let buf = self.fill_buf()?;
            let n = buf.len().min(out.len());
            out[..n].copy_from_slice(&buf[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Rewind<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos < self.front.len() {
            Ok(&self.front[self.pos..])
        } else {
            self.inner.fill_buf()
        }
    }

    fn consume(&mut self, amt: usize) {
        if self.pos < self.front.len() {
            self.pos = (self.pos + amt).min(self.front.len());
            if self.pos == self.front.len() {
                self.front.clear();
                self.pos = 0;
            }
        } else {
            self.inner.consume(amt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unread_bytes_come_first_then_the_stream() {
        let mut r = Rewind::new(&b"line one\nline two\n"[..]);
        let mut line = Vec::new();
        r.read_until(b'\n', &mut line).unwrap();
        assert_eq!(line, b"line one\n");
        r.unread(b"again\nhalf ");
        assert_eq!(r.peek(3).unwrap(), b"aga");
        let mut rest = String::new();
        r.read_to_string(&mut rest).unwrap();
        assert_eq!(rest, "again\nhalf line two\n");
    }

    #[test]
    fn peek_past_the_end_returns_what_there_is() {
        let mut r = Rewind::new(&b"ab"[..]);
        assert_eq!(r.peek(5).unwrap(), b"ab");
        let mut all = Vec::new();
        r.read_to_end(&mut all).unwrap();
        assert_eq!(all, b"ab");
        assert_eq!(r.peek(5).unwrap(), b"");
    }
}
