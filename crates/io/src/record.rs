//! What the content of an archive record becomes, shared by the WARC and
//! ARC readers: an HTML page, a text (WET `conversion` records), or a
//! record skipped for a stated reason.
//!
//! Skip reasons start with a fixed phrase so that callers can count them by
//! kind: `HTTP status N`, `not HTML`, `revisit record`, `TYPE record`.

use crate::document::{Content, Item, RawDocument};
use crate::error::{DocError, DocErrorKind};
use crate::http::{is_html, is_status_line, parse_response};

/// What an archive record says about itself.
pub(crate) struct RecordHead<'a> {
    /// The record type, lower case (`response`, `resource`, ...).
    pub(crate) kind: &'a str,
    /// The record's `Content-Type`, if any.
    pub(crate) content_type: Option<&'a str>,
    /// The target URI, if any.
    pub(crate) uri: Option<String>,
    /// The name to use when there is no URI.
    pub(crate) name: String,
}

/// Turns a record's content block into an item; `limit` bounds decoded
/// HTTP bodies.
pub(crate) fn classify(head: RecordHead<'_>, block: Vec<u8>, limit: u64) -> Item {
    let ctype = head.content_type.unwrap_or("").to_ascii_lowercase();
    let id = head.uri.clone().unwrap_or_else(|| head.name.clone());
    let skip = |reason: String| Item::Skipped {
        id: id.clone(),
        reason,
    };
    let page = |bytes: Vec<u8>, content_type: Option<String>| {
        Item::Document(RawDocument {
            id: id.clone(),
            url: head.uri.clone(),
            content: Content::Html {
                bytes,
                content_type,
            },
        })
    };
    match head.kind {
        // An HTTP response: `application/http` in WARC 1.x, but WARC/0.17
        // writers typed the record with the payload's type and ARC records
        // have the payload's type: the status line tells.
        "response" if is_status_line(&block) || ctype.starts_with("application/http") => {
            match parse_response(&block, limit) {
                Err(m) => Item::Error(DocError {
                    id,
                    kind: DocErrorKind::Warc(m),
                }),
                Ok(resp) => {
                    let ct = resp.header("content-type").map(str::to_string);
                    if !(200..300).contains(&resp.status) {
                        skip(format!("HTTP status {}", resp.status))
                    } else if !is_html(ct.as_deref(), &resp.body) {
                        skip(format!(
                            "not HTML ({})",
                            ct.as_deref().unwrap_or("no Content-Type")
                        ))
                    } else {
                        page(resp.body, ct)
                    }
                }
            }
        }
        "response" | "resource" if is_html(head.content_type, &block) => {
            page(block, head.content_type.map(str::to_string))
        }
        "response" | "resource" => skip(format!("not HTML ({})", non_empty(&ctype))),
        // WET: text already extracted by the archive's writer, used as is.
        "conversion" if ctype.is_empty() || ctype.starts_with("text/plain") => {
            Item::Document(RawDocument {
                id: id.clone(),
                url: head.uri.clone(),
                content: Content::Text(String::from_utf8_lossy(&block).into_owned()),
            })
        }
        "conversion" if is_html(head.content_type, &block) => {
            page(block, head.content_type.map(str::to_string))
        }
        "conversion" => skip(format!("not HTML ({})", non_empty(&ctype))),
        "" => skip("record without WARC-Type".into()),
        other => skip(format!("{other} record")),
    }
}

fn non_empty(ctype: &str) -> &str {
    if ctype.is_empty() {
        "no Content-Type"
    } else {
        ctype
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head<'a>(kind: &'a str, ctype: Option<&'a str>) -> RecordHead<'a> {
        RecordHead {
            kind,
            content_type: ctype,
            uri: Some("http://a/".into()),
            name: "f#record-1".into(),
        }
    }

    #[test]
    fn warc_017_response_typed_html_has_its_http_head_removed() {
        let block = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>x</p>".to_vec();
        match classify(head("response", Some("text/html")), block, 100) {
            Item::Document(d) => {
                assert!(matches!(d.content, Content::Html { bytes, .. } if bytes == b"<p>x</p>"))
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn conversion_records_are_text_and_status_is_a_skip_reason() {
        let item = classify(head("conversion", Some("text/plain")), b"plain".to_vec(), 9);
        assert!(matches!(item, Item::Document(d) if d.content == Content::Text("plain".into())));
        let block = b"HTTP/1.1 404 Not Found\r\n\r\n<p>x</p>".to_vec();
        let item = classify(head("response", Some("application/http")), block, 100);
        assert!(matches!(item, Item::Skipped { reason, .. } if reason == "HTTP status 404"));
        let item = classify(head("revisit", None), Vec::new(), 100);
        assert!(matches!(item, Item::Skipped { reason, .. } if reason == "revisit record"));
    }
}
