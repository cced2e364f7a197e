//! Where the next WARC record starts inside bytes that belong to a record
//! cut short: a file damaged in the middle (a download resumed at the wrong
//! offset, two partial files glued together) has a record shorter than its
//! `Content-Length` followed directly by the next record, often in the
//! middle of a line.
//!
//! A record start is a version line, `WARC/` then `digits.digits` and the
//! line end, followed by a header line named `WARC-...:`. The search runs
//! only where framing already failed, so a page that quotes a WARC record in
//! its text is never cut when its record is whole.

use memchr::memmem;

/// How far past a version line the first `WARC-` header line is looked for.
const HEADER_WINDOW: usize = 8 * 1024;

/// The length of the version line at the start of `bytes` (`WARC/1.0` and
/// its line end), if `bytes` starts with one.
fn version_line(bytes: &[u8]) -> Option<usize> {
    let rest = bytes.strip_prefix(b"WARC/")?;
    let major = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    if major == 0 || rest.get(major) != Some(&b'.') {
        return None;
    }
    let rest = &rest[major + 1..];
    let minor = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    if minor == 0 {
        return None;
    }
    let eol = match &rest[minor..] {
        [b'\n', ..] => 1,
        [b'\r', b'\n', ..] => 2,
        _ => return None,
    };
    Some(5 + major + 1 + minor + eol)
}

/// Whether the header block starting at `bytes` has a `WARC-` named field
/// before its blank line (a record's own headers: `WARC-Type`,
/// `WARC-Record-ID`, `WARC-Date`).
fn has_warc_field(bytes: &[u8]) -> bool {
    let window = &bytes[..bytes.len().min(HEADER_WINDOW)];
    for line in window.split(|&c| c == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            return false;
        }
        if line.len() > 5 && line[..5].eq_ignore_ascii_case(b"WARC-") && line.contains(&b':') {
            return true;
        }
    }
    false
}

/// Whether `bytes` start with a record: a version line and a `WARC-` field
/// before the header's blank line (the first bytes of a gzip member that
/// may follow one cut short, `gzip_members.rs`).
pub(crate) fn starts_record(bytes: &[u8]) -> bool {
    version_line(bytes).is_some_and(|n| has_warc_field(&bytes[n..]))
}

/// Where the next record starts inside `block` (the claimed content of a
/// record whose framing failed), at a line start or in the middle of a line.
pub(crate) fn next_record_start(block: &[u8]) -> Option<usize> {
    memmem::find_iter(block, b"WARC/").find(|&p| starts_record(&block[p..]))
}

/// Where the next record starts inside `block` when the records from there
/// fill the rest of `block` exactly (by their own `Content-Length`s): a
/// record cut short whose claimed length happens to end where a later
/// record ends, so that its framing looks whole. A page that quotes a
/// record in its text does not end with that record's exact content.
pub(crate) fn records_filling_the_end(block: &[u8]) -> Option<usize> {
    let p = next_record_start(block)?;
    let mut at = p;
    while at < block.len() {
        at += version_line(&block[at..])?;
        let mut len = None;
        loop {
            let line_end = memchr::memchr(b'\n', &block[at..])?;
            let line = &block[at..at + line_end];
            at += line_end + 1;
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                break;
            }
            let text = String::from_utf8_lossy(line);
            if let Some((k, v)) = text.split_once(':') {
                if k.trim().eq_ignore_ascii_case("content-length") {
                    len = v.trim().parse::<usize>().ok();
                }
            }
        }
        at = at.checked_add(len?)?;
        if at > block.len() {
            return None;
        }
        while block.get(at).is_some_and(|&c| c == b'\r' || c == b'\n') {
            at += 1;
        }
    }
    Some(p)
}

/// Where a record's version line starts inside one header line read from
/// the stream (`WARC-Type: respoWARC/1.0\r\n` when the header was cut after
/// `respo`): the version line must end the line.
pub(crate) fn record_start_in_line(line: &[u8]) -> Option<usize> {
    memmem::find_iter(line, b"WARC/").find(|&p| version_line(&line[p..]) == Some(line.len() - p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_record_start_at_or_inside_a_line() {
        let b = b"<p>cut\r\nWARC/x\r\nWARC/1.0\r\nWARC-Type: response\r\n";
        assert_eq!(next_record_start(b), Some(16));
        let b = b"<p>cut in the midWARC/1.1\nwarc-record-id: <urn:x>\n\n";
        assert_eq!(next_record_start(b), Some(17));
        assert_eq!(next_record_start(b"WARC/1.0\r\nWARC-Date: x"), Some(0));
    }

    #[test]
    fn quoted_version_lines_are_not_record_starts() {
        // No WARC- field before the blank line, or no line end.
        assert_eq!(
            next_record_start(b"x\nWARC/1.0\r\nHost: a\r\n\r\nWARC-Type: y"),
            None
        );
        assert_eq!(next_record_start(b"see WARC/1.0 and WARC/1.1 specs"), None);
        assert_eq!(next_record_start(b"WARC/1.\r\nWARC-Type: x"), None);
    }

    #[test]
    fn finds_whole_records_at_the_end_of_a_block() {
        let rec = b"WARC/1.0\r\nWARC-Type: x\r\nContent-Length: 3\r\n\r\nabc\r\n\r\n";
        let block = [&b"<p>cut in the mid"[..], rec, rec].concat();
        assert_eq!(records_filling_the_end(&block), Some(17));
        assert_eq!(records_filling_the_end(&block[..block.len() - 5]), None);
        let quoted = [&b"<pre>"[..], rec, b"</pre>"].concat();
        assert_eq!(records_filling_the_end(&quoted), None);
    }

    #[test]
    fn finds_a_version_line_ending_a_header_line() {
        assert_eq!(
            record_start_in_line(b"WARC-Type: respWARC/1.0\r\n"),
            Some(15)
        );
        assert_eq!(record_start_in_line(b"WARC/1.0\n"), Some(0));
        assert_eq!(record_start_in_line(b"X-Note: WARC/1.0 is old\r\n"), None);
    }
}
