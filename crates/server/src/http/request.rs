//! Reading requests: the body within its limit, the query string, and a
//! document from raw HTML, plain text or JSON; and the JSON error answer.

use axum::body::Body;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use neardup::io::{Content, RawDocument};
use serde::Deserialize;

use crate::error::{Error, ErrorKind};

/// An error answer: a status and `{"error": {"code", "message"}}`.
#[derive(Debug)]
pub(crate) struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
        }
    }

    pub fn bad_request(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, code, message)
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> ApiError {
        let (status, code) = match e.kind() {
            ErrorKind::InvalidId(_) => (StatusCode::BAD_REQUEST, "invalid_id"),
            ErrorKind::Conflict(_) => (StatusCode::CONFLICT, "conflict"),
            ErrorKind::Extract(_) => (StatusCode::UNPROCESSABLE_ENTITY, "extraction_failed"),
            ErrorKind::Failed | ErrorKind::Closed => {
                (StatusCode::SERVICE_UNAVAILABLE, "unavailable")
            }
            ErrorKind::Cancelled => (StatusCode::SERVICE_UNAVAILABLE, "timeout"),
            ErrorKind::SharedStore(_) => (StatusCode::SERVICE_UNAVAILABLE, "store_unavailable"),
            _ => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
        };
        ApiError::new(status, code, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({
            "error": { "code": self.code, "message": self.message }
        });
        json_response(self.status, &body)
    }
}

/// A JSON answer.
pub(crate) fn json_response(status: StatusCode, body: &serde_json::Value) -> Response {
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    (status, [(header::CONTENT_TYPE, "application/json")], bytes).into_response()
}

/// The whole body, at most `limit` bytes (413 past it).
pub(crate) async fn read_body(
    headers: &HeaderMap,
    body: Body,
    limit: usize,
) -> Result<Vec<u8>, ApiError> {
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("the body is larger than {limit} bytes"),
        )
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large());
    }
    match Limited::new(body, limit).collect().await {
        Ok(c) => Ok(c.to_bytes().to_vec()),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large()),
        Err(e) => Err(ApiError::bad_request(
            "bad_body",
            format!("could not read the body: {e}"),
        )),
    }
}

/// The decoded `key=value` pairs of a query string.
pub(crate) fn query_pairs(query: Option<&str>) -> Vec<(String, String)> {
    query
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

/// Decodes `%XX` escapes and `+` as a space; invalid escapes stay as they
/// are, invalid UTF-8 is replaced.
pub(crate) fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JsonDocument {
    id: String,
    url: Option<String>,
    html: Option<String>,
    text: Option<String>,
}

/// The document of a `POST /v1/documents` or `/v1/check` request.
/// A document given as JSON: `{"id", "url"?, "html" or "text"}`.
pub(crate) fn json_document(body: &[u8]) -> Result<RawDocument, ApiError> {
    let d: JsonDocument = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request("bad_json", format!("invalid JSON document: {e}")))?;
    let content = match (d.html, d.text) {
        (Some(html), None) => Content::Html {
            bytes: html.into_bytes(),
            content_type: Some("text/html; charset=utf-8".into()),
        },
        (None, Some(text)) => Content::Text(text),
        _ => {
            return Err(ApiError::bad_request(
                "bad_json",
                "exactly one of \"html\" and \"text\" is required",
            ))
        }
    };
    Ok(RawDocument {
        id: d.id,
        url: d.url,
        content,
    })
}

pub(crate) fn parse_document(
    headers: &HeaderMap,
    query: Option<&str>,
    body: Vec<u8>,
) -> Result<RawDocument, ApiError> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().map(str::to_string))
        .transpose()
        .map_err(|_| ApiError::bad_request("bad_content_type", "the Content-Type is not ASCII"))?
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "a Content-Type is required: application/json, text/html or text/plain",
            )
        })?;
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match mime.as_str() {
        "application/json" => json_document(&body),
        "text/html" | "application/xhtml+xml" | "text/plain" => {
            let mut id = None;
            let mut url = None;
            for (k, v) in query_pairs(query) {
                match k.as_str() {
                    "id" => id = Some(v),
                    "url" => url = Some(v),
                    _ => {}
                }
            }
            let id = id.ok_or_else(|| {
                ApiError::bad_request("missing_id", "the query parameter \"id\" is required")
            })?;
            let content = if mime == "text/plain" {
                let text = String::from_utf8(body).map_err(|_| {
                    ApiError::bad_request("bad_text", "a text/plain body must be UTF-8")
                })?;
                Content::Text(text)
            } else {
                Content::Html {
                    bytes: body,
                    content_type: Some(content_type),
                }
            };
            Ok(RawDocument { id, url, content })
        }
        _ => Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            format!(
                "unsupported Content-Type {mime:?}: use application/json, text/html or text/plain"
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(ct: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_str(ct).unwrap());
        h
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%2Fb+c%zz%4"), "a/b c%zz%4");
        assert_eq!(percent_decode("%E2%82%AC"), "€");
        assert_eq!(
            query_pairs(Some("id=x%26y&url=http%3A%2F%2Fe.com&flag")),
            [
                ("id".to_string(), "x&y".to_string()),
                ("url".to_string(), "http://e.com".to_string()),
                ("flag".to_string(), String::new())
            ]
        );
    }

    #[test]
    fn json_and_html_documents() {
        let d = parse_document(
            &headers("application/json"),
            None,
            br#"{"id":"a","text":"hello"}"#.to_vec(),
        )
        .unwrap();
        assert_eq!(d.content, Content::Text("hello".into()));
        let d = parse_document(
            &headers("text/html; charset=latin1"),
            Some("id=p1&url=u"),
            b"<p>x</p>".to_vec(),
        )
        .unwrap();
        assert_eq!((d.id.as_str(), d.url.as_deref()), ("p1", Some("u")));
        assert!(
            matches!(d.content, Content::Html { content_type: Some(ref c), .. } if c.contains("latin1"))
        );
    }

    #[test]
    fn malformed_documents_name_the_problem() {
        let cases: [(&str, Option<&str>, &[u8], &str); 5] = [
            ("application/json", None, b"{", "bad_json"),
            ("application/json", None, br#"{"id":"a"}"#, "bad_json"),
            (
                "application/json",
                None,
                br#"{"id":"a","text":"t","x":1}"#,
                "bad_json",
            ),
            ("text/html", None, b"<p>", "missing_id"),
            ("image/png", Some("id=a"), b"", "unsupported_media_type"),
        ];
        for (ct, q, body, code) in cases {
            let e = parse_document(&headers(ct), q, body.to_vec()).unwrap_err();
            assert_eq!(e.code, code, "{ct} {body:?}: {}", e.message);
        }
    }
}
