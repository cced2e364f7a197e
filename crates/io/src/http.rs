//! Parsing of the HTTP response stored in a WARC `response` record:
//! status line, headers, transfer and content codings.

use std::io::Read;

use flate2::read::{MultiGzDecoder, ZlibDecoder};

/// A parsed HTTP response.
#[derive(Debug)]
pub(crate) struct HttpResponse {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
}

impl HttpResponse {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Parses an HTTP/1.x response message; `limit` bounds the decoded body.
///
/// Lenient the way archive readers must be: `HTTPX/1.1` status lines (some
/// old crawlers wrote them), lines ended by LF, CR LF or CR CR LF. A body
/// whose declared content coding does not decode is kept as stored (ClueWeb09
/// declares `gzip` on bodies it stored decoded); a gzip body cut short keeps
/// what it decoded.
pub(crate) fn parse_response(block: &[u8], limit: u64) -> Result<HttpResponse, String> {
    let Some((head_len, body_start)) = head_end(block) else {
        return Err("HTTP headers do not end".into());
    };
    let head = String::from_utf8_lossy(&block[..head_len]);
    let mut lines = head.split('\n').map(|l| l.trim_end_matches('\r'));
    let status_line = lines.next().unwrap_or_default();
    if !is_status_line(status_line.as_bytes()) {
        return Err(format!("not an HTTP response: {:?}", truncate(status_line)));
    }
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad HTTP status line: {:?}", truncate(status_line)))?;
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in lines {
        if line.starts_with([' ', '\t']) {
            if let Some(last) = headers.last_mut() {
                last.1.push(' ');
                last.1.push_str(line.trim());
            }
        } else if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let mut resp = HttpResponse {
        status,
        headers,
        body: Vec::new(),
    };
    let raw = &block[body_start..];
    let chunked = resp
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    let body = if chunked {
        dechunk(raw).unwrap_or_else(|| raw.to_vec())
    } else {
        raw.to_vec()
    };
    let coding = resp
        .header("content-encoding")
        .map(|v| v.trim().to_ascii_lowercase());
    resp.body = match coding.as_deref() {
        Some("gzip" | "x-gzip") => decode_or_raw(MultiGzDecoder::new(&body[..]), &body, limit)?,
        Some("deflate") => decode_or_raw(ZlibDecoder::new(&body[..]), &body, limit)?,
        None | Some("" | "identity") => body,
        // A coding not decoded here: the body as stored when it is plainly
        // HTML (the declaration is wrong), an error otherwise.
        Some(_) if is_html(None, &body) => body,
        Some(other) => return Err(format!("unsupported Content-Encoding {other:?}")),
    };
    Ok(resp)
}

/// Whether a line is an HTTP status line (`HTTP/1.1 200`, `HTTPX/1.1 200`).
pub(crate) fn is_status_line(line: &[u8]) -> bool {
    // A block of only the first bytes of one is a record cut inside it.
    let cut = !line.is_empty() && (b"HTTP/".starts_with(line) || b"HTTPX/".starts_with(line));
    line.starts_with(b"HTTP/") || line.starts_with(b"HTTPX/") || cut
}

/// The end of an HTTP head: (length of the head, start of the body). The
/// head ends at the first empty line, whatever its line ending.
fn head_end(block: &[u8]) -> Option<(usize, usize)> {
    let mut start = 0;
    while let Some(nl) = block[start..].iter().position(|&c| c == b'\n') {
        let line_end = start + nl;
        let line = &block[start..line_end];
        if start > 0 && line.iter().all(|&c| c == b'\r') {
            return Some((start, line_end + 1));
        }
        start = line_end + 1;
    }
    None
}

/// Decodes a content-coded body: the decoded bytes when they decode (or
/// decoded partly before the data ended), the raw body when nothing decodes.
fn decode_or_raw(r: impl Read, raw: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    match r.take(limit.saturating_add(1)).read_to_end(&mut out) {
        Ok(_) if out.len() as u64 > limit => {
            Err(format!("decoded body exceeds the limit of {limit} bytes"))
        }
        Ok(_) => Ok(out),
        Err(_) if !out.is_empty() => Ok(out),
        Err(_) => Ok(raw.to_vec()),
    }
}

/// Removes chunked transfer coding; `None` if the body is not validly chunked.
fn dechunk(mut raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(raw.len());
    loop {
        let eol = find(raw, b"\r\n")?;
        let size_str = std::str::from_utf8(&raw[..eol]).ok()?;
        let size_str = size_str.split(';').next()?.trim();
        let size = usize::from_str_radix(size_str, 16).ok()?;
        raw = &raw[eol + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(raw.get(..size)?);
        raw = raw.get(size..)?;
        raw = raw.strip_prefix(b"\r\n").unwrap_or(raw);
    }
}

/// Whether a response carries an HTML page: by its `Content-Type`, or, when
/// that is missing, by sniffing its first bytes.
pub(crate) fn is_html(content_type: Option<&str>, body: &[u8]) -> bool {
    match content_type {
        Some(ct) => {
            let mime = ct
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            mime == "text/html" || mime == "application/xhtml+xml"
        }
        None => {
            let mut head = Vec::new();
            let _ = (&body[..body.len().min(512)]).read_to_end(&mut head);
            let text = String::from_utf8_lossy(&head).to_ascii_lowercase();
            let t = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
            [
                "<!doctype html",
                "<html",
                "<head",
                "<body",
                "<p",
                "<div",
                "<title",
            ]
            .iter()
            .any(|p| t.starts_with(p))
        }
    }
}

pub(crate) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn truncate(s: &str) -> String {
    s.chars().take(60).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_plain_response() {
        let r = parse_response(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>x</p>",
            100,
        )
        .unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-type"), Some("text/html"));
        assert_eq!(r.body, b"<p>x</p>");
    }

    #[test]
    fn dechunks_and_gunzips() {
        let r = parse_response(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n<p>\r\n4;x=y\r\nhey<\r\n3\r\n/p>\r\n0\r\n\r\n",
            100,
        )
        .unwrap();
        assert_eq!(r.body, b"<p>hey</p>");
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b"<p>zipped</p>").unwrap();
        let mut msg = b"HTTP/1.0 200 OK\nContent-Encoding: gzip\n\n".to_vec();
        msg.extend(e.finish().unwrap());
        assert_eq!(parse_response(&msg, 100).unwrap().body, b"<p>zipped</p>");
    }

    #[test]
    fn lenient_status_lines_and_line_ends() {
        let r = parse_response(
            b"HTTPX/1.1 200 OK\r\r\nContent-Type: text/html\r\r\n\r\r\n<p>x</p>",
            100,
        )
        .unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-type"), Some("text/html"));
        assert_eq!(r.body, b"<p>x</p>");
    }

    #[test]
    fn undecodable_content_coding_keeps_the_raw_body() {
        let msg = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n<html><p>plain</p>";
        assert_eq!(
            parse_response(msg, 100).unwrap().body,
            b"<html><p>plain</p>"
        );
        let msg = b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n<html><p>plain</p>";
        assert_eq!(
            parse_response(msg, 100).unwrap().body,
            b"<html><p>plain</p>"
        );
        assert!(parse_response(
            b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\n\r\n\x8b\x00",
            100
        )
        .is_err());
    }

    #[test]
    fn gzip_body_without_trailer_keeps_decoded_bytes() {
        use std::io::Write;
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(b"<p>zipped and cut</p>").unwrap();
        let gz = e.finish().unwrap();
        let mut msg = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
        msg.extend_from_slice(&gz[..gz.len() - 8]);
        assert_eq!(
            parse_response(&msg, 100).unwrap().body,
            b"<p>zipped and cut</p>"
        );
    }

    #[test]
    fn rejects_non_http() {
        assert!(parse_response(b"garbage\r\n\r\n", 10).is_err());
        assert!(parse_response(b"HTTP/1.1 200 OK\r\nX: y", 10).is_err());
        assert!(parse_response(b"HTTP/1.1 abc\r\n\r\n", 10).is_err());
    }

    #[test]
    fn html_detection() {
        assert!(is_html(Some("text/html; charset=utf-8"), b""));
        assert!(is_html(Some("application/xhtml+xml"), b""));
        assert!(!is_html(Some("image/png"), b"<html>"));
        assert!(is_html(None, b"  <!DOCTYPE html><html>"));
        assert!(!is_html(None, b"\x89PNG"));
    }
}
