//! Parsing of the HTTP response stored in a WARC `response` record:
//! status line, headers, transfer and content codings.

use std::io::Read;

use flate2::read::{MultiGzDecoder, ZlibDecoder};

use crate::compressed::read_limited;

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
pub(crate) fn parse_response(block: &[u8], limit: u64) -> Result<HttpResponse, String> {
    let (head_len, sep_len) = match find(block, b"\r\n\r\n") {
        Some(p) => (p, 4),
        None => match find(block, b"\n\n") {
            Some(p) => (p, 2),
            None => return Err("HTTP headers do not end".into()),
        },
    };
    let head = String::from_utf8_lossy(&block[..head_len]);
    let mut lines = head.lines();
    let status_line = lines.next().unwrap_or_default();
    if !status_line.starts_with("HTTP/") {
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
    let raw = &block[head_len + sep_len..];
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
        None | Some("" | "identity") => body,
        Some("gzip" | "x-gzip") => {
            read_limited(MultiGzDecoder::new(&body[..]), limit, true).map_err(|e| e.to_string())?
        }
        Some("deflate") => {
            read_limited(ZlibDecoder::new(&body[..]), limit, true).map_err(|e| e.to_string())?
        }
        Some(other) => return Err(format!("unsupported Content-Encoding {other:?}")),
    };
    Ok(resp)
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
