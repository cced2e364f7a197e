//! `POST /v1/batch`: many documents in one request, as NDJSON: one JSON
//! document per line in (`{"id", "url"?, "html" or "text"}`), one verdict
//! per line out, in the same order. A line that cannot be read or judged
//! gets an error line (`{"line", "id"?, "error": {"code", "message"}}`);
//! the others are judged as if posted one by one, in order, and stored in
//! shared transactions. `?check=true` judges without storing.

use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::handlers::{blocking, verdict_json};
use super::request::{json_document, query_pairs, read_body, ApiError};
use super::{App, Budget};
use crate::error::{Error, ErrorKind};
use crate::seen::ContentSeen;

/// The most documents one batch may hold (a `413` past it).
pub const MAX_BATCH_DOCUMENTS: usize = 10_000;

fn error_line(line: usize, id: Option<&str>, e: ApiError) -> Value {
    json!({"line": line, "id": id, "error": {"code": e.code, "message": e.message}})
}

/// `POST /v1/batch`.
pub(crate) async fn post_batch(State(app): State<App>, req: Request) -> Response {
    batch(app, req)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn batch(app: App, req: Request) -> Result<Response, ApiError> {
    let (parts, body) = req.into_parts();
    let budget = parts.extensions.get::<Budget>().cloned();
    let check = query_pairs(parts.uri.query())
        .into_iter()
        .any(|(k, v)| k == "check" && (v == "true" || v == "1"));
    let bytes = read_body(&parts.headers, body, app.config.max_body_bytes).await?;
    let lines: Vec<(usize, &[u8])> = bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
        .filter(|(_, l)| l.iter().any(|b| !b.is_ascii_whitespace()))
        .collect();
    if lines.len() > MAX_BATCH_DOCUMENTS {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "batch_too_large",
            format!(
                "{} documents, more than {MAX_BATCH_DOCUMENTS} in one batch",
                lines.len()
            ),
        ));
    }
    let parsed: Vec<(usize, Result<_, ApiError>)> = lines
        .into_iter()
        .map(|(n, l)| (n, json_document(l)))
        .collect();
    let seen: ContentSeen = app.seen.clone();
    let recent = app.recent.clone();
    // The whole batch counts against the extraction budget (its documents
    // are extracted one after the other, but their texts are kept).
    let extracting = super::extraction_permit(&app, bytes.len()).await;
    let out = blocking(move || {
        let _extracting = extracting;
        let _permit = budget.as_ref().and_then(Budget::take_permit);
        let mut ids = Vec::with_capacity(parsed.len());
        let mut prepared = Vec::with_capacity(parsed.len());
        for (n, doc) in parsed {
            match doc {
                Ok(d) => {
                    ids.push((n, Some(d.id.clone()), None));
                    prepared.push(seen.prepare(d));
                }
                Err(e) => ids.push((n, None, Some(e))),
            }
        }
        if budget.as_ref().is_some_and(Budget::expired) {
            return Err(Error::from(ErrorKind::Cancelled));
        }
        let verdicts = if check {
            // With a shared store, one catching up for the whole batch.
            let caught_up = seen.catch_up();
            prepared
                .into_iter()
                .map(|p| {
                    let p = p?;
                    match &caught_up {
                        Ok(()) => seen.check_local(&p),
                        Err(e) => Err(Error::from(e.kind().clone())),
                    }
                })
                .collect()
        } else {
            seen.insert_many(prepared)
        };
        let mut verdicts = verdicts.into_iter();
        let mut out = Vec::new();
        for (n, id, parse_error) in ids {
            let value = match parse_error {
                Some(e) => error_line(n, None, e),
                None => match verdicts.next() {
                    Some(Ok(v)) => {
                        recent.push(&v, crate::shared::now_ms());
                        verdict_json(&v)
                    }
                    Some(Err(e)) => error_line(n, id.as_deref(), ApiError::from(e)),
                    None => error_line(n, id.as_deref(), Error::from(ErrorKind::Failed).into()),
                },
            };
            serde_json::to_writer(&mut out, &value)
                .map_err(|e| Error::from(ErrorKind::Io(e.to_string())))?;
            out.push(b'\n');
        }
        Ok(out)
    })
    .await?;
    Ok((
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        out,
    )
        .into_response())
}
