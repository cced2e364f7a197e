//! The gzip members of an archive read one after another, resynchronising
//! after a member cut short. A `.warc.gz` or `.arc.gz` holds one gzip member
//! per record (as warcio, Heritrix and wget write them); a file damaged in
//! the middle (a download resumed at the wrong offset, partial files glued
//! together) has a member cut short followed directly by the next member.
//! A multi-member decoder reads the next member's bytes as more of the cut
//! one and fails, losing every later record.
//!
//! Here a member that fails (its deflate data corrupt, its CRC wrong, or the
//! input ending inside it) is cut where the next member starts: a `1f 8b 08`
//! header whose flags and extra fields are plausible and whose first decoded
//! bytes start a record (a `WARC/` version line with a `WARC-` field, or an
//! ARC record line), so that random bytes of compressed data never pass for
//! one. The stream gives the cut member's decoded bytes (only those decoded
//! from before the next member) and then the next member's, as if the
//! archive were plain and its record cut short there: the archive readers'
//! own rule for records cut short then flags the record and reads on.
//!
//! While a member is decoded past a possible next member's start, its output
//! is held back until the member ends well (or fails), at most
//! [`HOLD_MAX`] bytes of output or compressed input: memory stays bounded
//! whatever the input. A member cut before any of its bytes were decoded
//! gives a [`MemberCut`] error at that point of the stream (one record lost,
//! said so), and the stream goes on.

use std::io::{self, BufRead, Read};

use flate2::{Crc, Decompress, FlushDecompress, Status};
use memchr::memmem;

/// The first three bytes of a gzip member (the last is the method, deflate).
const MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];
/// The fixed part of a gzip header.
const HEADER_MIN: usize = 10;
/// The longest file name or comment accepted in a gzip header.
const MAX_NAME: usize = 64 * 1024;
/// The most output (and compressed input) held back while a member is
/// decoded past a possible start of the next member.
pub(crate) const HOLD_MAX: usize = 1 << 20;
/// Compressed bytes read ahead to check a possible member start.
const VERIFY_INPUT: u64 = 16 * 1024;
/// Decoded bytes of a possible member start that are checked.
const VERIFY_OUTPUT: usize = 1024;
/// Output decoded at a time.
const OUT_CHUNK: usize = 64 * 1024;
/// Compressed bytes read at a time.
const READ_CHUNK: usize = 256 * 1024;

/// A gzip member cut short (or bytes that are not gzip data) before any of
/// its record was decoded; the stream goes on at the next member.
#[derive(Debug)]
pub(crate) struct MemberCut {
    at: u64,
    /// Where reading resumed; `None` at the end of the file.
    resumed: Option<u64>,
}

impl std::fmt::Display for MemberCut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.resumed {
            Some(next) => write!(
                f,
                "gzip data cut short or corrupt at byte {} of the file, nothing of its record \
                 decoded; reading resumed at the next gzip member (byte {next})",
                self.at
            ),
            None => write!(
                f,
                "gzip member at byte {} of the file cut short by the end of the file, nothing \
                 of its record decoded",
                self.at
            ),
        }
    }
}

fn member_cut(at: u64, resumed: Option<u64>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, MemberCut { at, resumed })
}

impl std::error::Error for MemberCut {}

/// Whether `e` is a [`MemberCut`]: the stream goes on after it.
pub(crate) fn is_member_cut(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|inner| inner.is::<MemberCut>())
}

enum Header {
    Incomplete,
    Invalid,
    Complete(usize),
}

/// The length of the gzip header at the start of `b`.
fn parse_header(b: &[u8]) -> Header {
    let n = b.len().min(HEADER_MIN);
    if b[..n.min(3)] != MAGIC[..n.min(3)] || (n > 3 && b[3] & 0xe0 != 0) {
        return Header::Invalid;
    }
    if n < HEADER_MIN {
        return Header::Incomplete;
    }
    let flags = b[3];
    let mut at = HEADER_MIN;
    if flags & 0x04 != 0 {
        let Some(x) = b.get(at..at + 2) else {
            return Header::Incomplete;
        };
        at += 2 + usize::from(u16::from_le_bytes([x[0], x[1]]));
    }
    for field in [0x08, 0x10] {
        if flags & field != 0 {
            let rest = b.get(at..).unwrap_or_default();
            match memchr::memchr(0, &rest[..rest.len().min(MAX_NAME)]) {
                Some(p) => at += p + 1,
                None if rest.len() < MAX_NAME => return Header::Incomplete,
                None => return Header::Invalid,
            }
        }
    }
    if flags & 0x02 != 0 {
        at += 2;
    }
    if b.len() < at {
        Header::Incomplete
    } else {
        Header::Complete(at)
    }
}

/// Whether the ten bytes at the start of `b` read as a gzip header as
/// writers make them: magic, no reserved flag, a known `XFL` and `OS`.
fn plausible(b: &[u8]) -> bool {
    b.len() >= HEADER_MIN
        && b[..3] == MAGIC
        && b[3] & 0xe0 == 0
        && matches!(b[8], 0 | 2 | 4)
        && (b[9] <= 13 || b[9] == 255)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Header,
    Body,
    Trailer,
    Done,
}

/// Decoding past a possible start of the next member at `at`, output from
/// `out_at` held back.
struct Held {
    at: u64,
    out_at: usize,
    decoded: u64,
}

/// A [`BufRead`] of the decoded bytes of every gzip member of `inner`.
pub(crate) struct GzipMembers<R> {
    inner: R,
    eof: bool,
    /// Compressed bytes from offset `base` of the input.
    win: Vec<u8>,
    base: u64,
    /// The next compressed byte to parse or decode.
    pos: u64,
    /// Possible member starts before this offset were looked at.
    scanned: u64,
    member_at: u64,
    inflate: Decompress,
    crc: Crc,
    /// Bytes of the current member given out (not held back).
    decoded: u64,
    state: State,
    held: Option<Held>,
    out: Vec<u8>,
    out_pos: usize,
    /// `out[..released]` may be given out.
    released: usize,
    pending: Option<io::Error>,
    starts_record: fn(&[u8]) -> bool,
}

impl<R: BufRead> GzipMembers<R> {
    /// The members of `inner` (which starts with a gzip member);
    /// `starts_record` tells whether decoded bytes start a record.
    pub(crate) fn new(inner: R, starts_record: fn(&[u8]) -> bool) -> GzipMembers<R> {
        GzipMembers {
            inner,
            eof: false,
            win: Vec::new(),
            base: 0,
            pos: 0,
            scanned: 0,
            member_at: 0,
            inflate: Decompress::new(false),
            crc: Crc::new(),
            decoded: 0,
            state: State::Header,
            held: None,
            out: Vec::new(),
            out_pos: 0,
            released: 0,
            pending: None,
            starts_record,
        }
    }

    fn end(&self) -> u64 {
        self.base + self.win.len() as u64
    }

    fn at(&self, offset: u64) -> &[u8] {
        &self.win[(offset - self.base) as usize..]
    }

    /// Reads more compressed bytes, dropping those no longer needed;
    /// `false` at the end of the input.
    fn more(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        let keep = self.held.as_ref().map_or(self.pos, |h| h.at.min(self.pos));
        let drop = (keep - self.base) as usize;
        if drop > 0 {
            self.win.drain(..drop);
            self.base = keep;
        }
        let buf = loop {
            match self.inner.fill_buf() {
                Ok(b) => break b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        if buf.is_empty() {
            self.eof = true;
            return Ok(false);
        }
        let n = buf.len().min(READ_CHUNK);
        self.win.extend_from_slice(&buf[..n]);
        self.inner.consume(n);
        Ok(true)
    }

    fn ensure(&mut self, end: u64) -> io::Result<()> {
        while self.end() < end && self.more()? {}
        Ok(())
    }

    /// The first plausible member start in `from..to` of the window.
    fn candidate(&self, from: u64, to: u64) -> Option<u64> {
        if from >= to {
            return None;
        }
        let start = (from - self.base) as usize;
        let stop = ((to - self.base) as usize + MAGIC.len() - 1).min(self.win.len());
        memmem::find_iter(&self.win[start..stop], &MAGIC)
            .map(|p| from + p as u64)
            .find(|&c| plausible(self.at(c)))
    }

    /// Whether a member starts at `c` whose first decoded bytes start a
    /// record.
    fn verify(&mut self, c: u64) -> io::Result<bool> {
        self.ensure(c + VERIFY_INPUT)?;
        let header = loop {
            match parse_header(self.at(c)) {
                Header::Complete(n) => break n,
                Header::Incomplete if self.more()? => {}
                _ => return Ok(false),
            }
        };
        let mut probe = Decompress::new(false);
        let mut out = Vec::with_capacity(VERIFY_OUTPUT);
        let input = &self.at(c)[header..];
        if probe
            .decompress_vec(input, &mut out, FlushDecompress::None)
            .is_err()
        {
            return Ok(false);
        }
        Ok((self.starts_record)(&out))
    }

    fn start_member(&mut self, at: u64) {
        self.pos = at;
        self.scanned = at;
        self.member_at = at;
        self.state = State::Header;
        self.inflate.reset(false);
        self.crc.reset();
        self.decoded = 0;
        self.held = None;
    }

    /// Gives out the held-back output: the member did not end at the
    /// possible start it was decoded past.
    fn release(&mut self) {
        if let Some(h) = self.held.take() {
            self.decoded = h.decoded + (self.out.len() - h.out_at) as u64;
        }
        self.released = self.out.len();
    }

    /// The current member failed with `err` at `from` or later: cut it where
    /// the next member starts, or end the stream with `err`.
    fn failed(&mut self, err: io::Error, from: u64) -> io::Result<()> {
        let (resume, decoded) = match self.held.take() {
            Some(h) => {
                self.out.truncate(h.out_at);
                (Some(h.at), h.decoded)
            }
            None => (self.search(from)?, self.decoded),
        };
        self.released = self.out.len();
        match resume {
            Some(next) => {
                if decoded == 0 {
                    self.pending = Some(member_cut(self.member_at, Some(next)));
                }
                self.start_member(next);
            }
            None => {
                self.state = State::Done;
                self.pending = Some(match err.kind() {
                    io::ErrorKind::UnexpectedEof if decoded == 0 => {
                        member_cut(self.member_at, None)
                    }
                    _ => err,
                });
            }
        }
        Ok(())
    }

    /// The next member start at `from` or later whose first bytes start a
    /// record.
    fn search(&mut self, from: u64) -> io::Result<Option<u64>> {
        self.pos = from.max(self.base);
        loop {
            let end = self.end();
            let to = if self.eof {
                end
            } else {
                end.saturating_sub(HEADER_MIN as u64 - 1)
            };
            if let Some(c) = self.candidate(self.pos, to) {
                if self.verify(c)? {
                    return Ok(Some(c));
                }
                self.pos = c + 1;
                continue;
            }
            self.pos = self.pos.max(to);
            if !self.more()? && self.pos >= self.end() {
                return Ok(None);
            }
        }
    }

    fn header(&mut self) -> io::Result<()> {
        let at = self.pos;
        loop {
            match parse_header(self.at(at)) {
                Header::Complete(n) => {
                    // A member cut inside its header: the next starts in it.
                    let mut from = at + 1;
                    while let Some(c) = self.candidate(from, at + n as u64) {
                        if self.verify(c)? {
                            return self.failed(io::ErrorKind::InvalidData.into(), c);
                        }
                        from = c + 1;
                    }
                    self.pos = at + n as u64;
                    self.scanned = self.pos;
                    self.state = State::Body;
                    return Ok(());
                }
                Header::Incomplete if self.more()? => {}
                Header::Incomplete if self.at(at).is_empty() => {
                    self.state = State::Done;
                    return Ok(());
                }
                Header::Incomplete => {
                    // Cut inside its header by the end of the file, or by the
                    // next member (read as its extra fields).
                    let err = io::Error::from(io::ErrorKind::UnexpectedEof);
                    return self.failed(err, at + 1);
                }
                Header::Invalid => {
                    let err = io::Error::new(io::ErrorKind::InvalidData, "invalid gzip header");
                    return self.failed(err, at + 1);
                }
            }
        }
    }

    /// Decodes until output can be given out, the member's deflate data
    /// ends, or it fails.
    fn body(&mut self) -> io::Result<()> {
        loop {
            let end = self.end();
            let feedable = if self.eof {
                end
            } else {
                end.saturating_sub(HEADER_MIN as u64 - 1)
            };
            let mut limit = feedable;
            if self.held.is_none() {
                if let Some(c) = self.candidate(self.scanned.max(self.pos), feedable) {
                    if c == self.pos {
                        self.scanned = c + 1;
                        if self.verify(c)? {
                            self.held = Some(Held {
                                at: c,
                                out_at: self.out.len(),
                                decoded: self.decoded,
                            });
                        }
                        continue;
                    }
                    limit = c;
                }
                self.scanned = limit;
            }
            if self.pos >= limit {
                if self.more()? || self.pos < self.end() {
                    continue;
                }
                let err = io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "gzip member cut short by the end of the file",
                );
                return self.failed(err, self.pos);
            }
            let from = self.pos;
            let input = &self.win[(from - self.base) as usize..(limit - self.base) as usize];
            let (in_before, out_before) = (self.inflate.total_in(), self.inflate.total_out());
            // At most a chunk at a time: held-back output stays within
            // its bound.
            let start = self.out.len();
            self.out.resize(start + OUT_CHUNK, 0);
            let status =
                self.inflate
                    .decompress(input, &mut self.out[start..], FlushDecompress::None);
            let produced = (self.inflate.total_out() - out_before) as usize;
            self.out.truncate(start + produced);
            let out_before = start;
            self.pos += self.inflate.total_in() - in_before;
            self.crc.update(&self.out[out_before..]);
            match &self.held {
                None => {
                    self.decoded += (self.out.len() - out_before) as u64;
                    self.released = self.out.len();
                }
                Some(h) => {
                    if self.out.len() - h.out_at > HOLD_MAX || self.pos - h.at > HOLD_MAX as u64 {
                        self.release();
                        self.scanned = self.pos;
                    }
                }
            }
            match status {
                Err(e) => return self.failed(io::Error::new(io::ErrorKind::InvalidData, e), from),
                Ok(Status::StreamEnd) => {
                    self.state = State::Trailer;
                    return Ok(());
                }
                Ok(_) if self.released > self.out_pos => return Ok(()),
                Ok(_) => {}
            }
        }
    }

    fn trailer(&mut self) -> io::Result<()> {
        let at = self.pos;
        self.ensure(at + 8)?;
        if self.end() < at + 8 {
            if self.held.is_some() {
                return self.failed(io::ErrorKind::UnexpectedEof.into(), at);
            }
            // The member's data is whole, only its check is lost (warcio
            // reads it so too).
            self.release();
            self.state = State::Done;
            return Ok(());
        }
        let t = &self.at(at)[..8];
        let crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
        let size = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
        if crc != self.crc.sum() || size != self.crc.amount() {
            let err = io::Error::new(io::ErrorKind::InvalidData, "gzip member's CRC is wrong");
            return self.failed(err, at);
        }
        self.release();
        self.start_member(at + 8);
        Ok(())
    }
}

impl<R: BufRead> Read for GzipMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let got = self.fill_buf()?;
            let n = got.len().min(buf.len());
            buf[..n].copy_from_slice(&got[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for GzipMembers<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.out_pos >= self.released {
            // Output given out is dropped (held-back output moves down).
            if self.out_pos > 0 {
                self.out.drain(..self.out_pos);
                self.released -= self.out_pos;
                if let Some(h) = &mut self.held {
                    h.out_at -= self.out_pos;
                }
                self.out_pos = 0;
            }
            if let Some(e) = self.pending.take() {
                return Err(e);
            }
            match self.state {
                State::Done => return Ok(&[]),
                State::Header => self.header()?,
                State::Body => self.body()?,
                State::Trailer => self.trailer()?,
            }
        }
        Ok(&self.out[self.out_pos..self.released])
    }

    fn consume(&mut self, amt: usize) {
        self.out_pos = (self.out_pos + amt).min(self.released);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::GzEncoder;
    use flate2::{Compression, GzBuilder};
    use std::io::Write;

    fn gz(data: &[u8], level: Compression) -> Vec<u8> {
        let mut e = GzEncoder::new(Vec::new(), level);
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn record(n: usize, body: &[u8]) -> Vec<u8> {
        let head = format!(
            "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Target-URI: http://x/{n}\r\n\
             Content-Length: {}\r\n\r\n",
            body.len()
        );
        [head.as_bytes(), body, b"\r\n\r\n"].concat()
    }

    fn read_all(bytes: &[u8]) -> (Vec<u8>, Vec<String>, GzipMembers<&[u8]>) {
        let mut r = GzipMembers::new(bytes, crate::warc_resync::starts_record);
        let (mut out, mut errors) = (Vec::new(), Vec::new());
        loop {
            match r.fill_buf() {
                Ok([]) => break,
                Ok(b) => {
                    let n = b.len();
                    out.extend_from_slice(b);
                    r.consume(n);
                }
                Err(e) => errors.push(e.to_string()),
            }
        }
        (out, errors, r)
    }

    #[test]
    fn whole_members_read_as_a_multi_member_decoder_reads_them() {
        let a = record(1, &b"<p>one two three</p>".repeat(5000));
        let b = record(2, b"<p>b</p>");
        // Headers with a name, a comment, extra fields and a header CRC.
        let mut named = GzBuilder::new()
            .filename("b.warc")
            .comment("c")
            .extra(vec![1, 2, 3])
            .write(Vec::new(), Compression::best());
        named.write_all(&b).unwrap();
        let stream = [gz(&a, Compression::fast()), named.finish().unwrap()].concat();
        let (out, errors, _) = read_all(&stream);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(out, [a, b].concat());
    }

    #[test]
    fn a_member_start_inside_a_whole_member_is_not_a_cut() {
        // A record whose content is a .warc.gz, stored (not compressed):
        // its member start and record are in the outer member's bytes. The
        // output held back past it is given out when the member ends well,
        // also when the member goes on past the held-back bound.
        for filler in [1_000, 3 << 20] {
            let inner = gz(&record(9, b"<p>inner</p>"), Compression::default());
            let mut content = inner.clone();
            content.extend((0..filler).map(|i| (i * 7 % 251) as u8));
            let outer = record(1, &content);
            let stream = [
                gz(&outer, Compression::none()),
                gz(&record(2, b"<p>b</p>"), Compression::default()),
            ]
            .concat();
            let (out, errors, r) = read_all(&stream);
            assert!(errors.is_empty(), "{errors:?}");
            assert!(out == [outer, record(2, b"<p>b</p>")].concat());
            assert!(r.out.capacity() <= 3 * HOLD_MAX, "{}", r.out.capacity());
            assert!(r.win.capacity() <= 3 * HOLD_MAX, "{}", r.win.capacity());
        }
    }

    #[test]
    fn corrupt_data_without_a_next_member_ends_in_an_error_in_bounded_memory() {
        let a = gz(&record(1, &b"<p>a</p>".repeat(100)), Compression::default());
        let mut x: u32 = 1;
        let junk: Vec<u8> = (0..8 << 20)
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 24) as u8
            })
            .collect();
        // The member cut short and followed by junk (no member start): what
        // it decoded, then an error; the junk is scanned, not kept.
        let stream = [&a[..a.len() / 2], &junk[..]].concat();
        let (out, errors, r) = read_all(&stream);
        assert!(out.starts_with(b"WARC/1.0\r\n"));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(r.win.capacity() <= 3 * HOLD_MAX, "{}", r.win.capacity());
        // Junk where a member should start.
        let stream = [&a[..], &junk[..1000]].concat();
        let (_, errors, _) = read_all(&stream);
        assert_eq!(errors, ["invalid gzip header"]);
    }

    #[test]
    fn a_member_cut_before_its_first_byte_is_an_error_and_reading_goes_on() {
        let a = gz(&record(1, &b"<p>a</p>".repeat(100)), Compression::default());
        let b = gz(&record(2, b"<p>b</p>"), Compression::default());
        // Its header only: nothing of it decoded.
        let (out, errors, _) = read_all(&[&a[..10], &b[..]].concat());
        assert_eq!(out, record(2, b"<p>b</p>"));
        assert_eq!(errors.len(), 1);
        assert!(errors[0].contains("resumed at the next gzip member (byte 10)"));
        // At the end of the file.
        let (out, errors, _) = read_all(&[&b[..], &a[..5]].concat());
        assert_eq!(out, record(2, b"<p>b</p>"));
        assert!(
            errors[0].contains("cut short by the end of the file"),
            "{errors:?}"
        );
    }
}
