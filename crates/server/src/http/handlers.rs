//! The route handlers. Extraction, fingerprinting and the wait for the
//! writer's commit run on tokio's blocking pool, never on the async
//! workers.

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

use super::request::{json_response, parse_document, read_body, ApiError};
use super::App;
use super::Budget;
use crate::answers::Verdict;
use crate::seen::ContentSeen;
use neardup::io::Content;

/// The hand-written OpenAPI document.
pub(crate) const OPENAPI: &str = include_str!("../openapi.json");

pub(crate) fn verdict_json(v: &Verdict) -> Value {
    json!({
        "id": v.id,
        "verdict": v.kind(),
        "duplicate": v.is_duplicate(),
        "duplicate_of": v.duplicate_of,
        "similarity": v.similarity,
        "stored": v.stored,
    })
}

pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, crate::Error> + Send + 'static,
) -> Result<T, ApiError> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r.map_err(ApiError::from),
        Err(e) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            format!("worker failed: {e}"),
        )),
    }
}

/// Plain texts up to this size are prepared on the request's task rather
/// than on the blocking pool.
const INLINE_TEXT_BYTES: usize = 8 * 1024;

/// A verdict, or one the writer will send.
enum Judged {
    Done(crate::Verdict),
    Pending(tokio::sync::oneshot::Receiver<Result<crate::Verdict, crate::Error>>),
}

async fn judge(app: App, req: Request, insert: bool) -> Result<Response, ApiError> {
    let (parts, body) = req.into_parts();
    let budget = parts.extensions.get::<Budget>().cloned();
    let bytes = read_body(&parts.headers, body, app.config.max_body_bytes).await?;
    let size = bytes.len();
    let doc = parse_document(&parts.headers, parts.uri.query(), bytes)?;
    let seen: ContentSeen = app.seen.clone();
    let extracting = super::extraction_permit(&app, size).await;
    // A short plain text to insert is prepared on this task: tens of
    // microseconds, less than handing it to a blocking thread and back
    // costs (the writer answers this task directly). Pages, long texts
    // and checks (which read the index under its lock) go to the
    // blocking pool.
    // With a shared store, an insertion waits for a round trip to it:
    // never on this task.
    let inline = insert
        && !app.seen.is_shared()
        && size <= INLINE_TEXT_BYTES
        && matches!(doc.content, Content::Text(_));
    let work = move || {
        let permit = budget.as_ref().and_then(Budget::take_permit);
        let p = seen.prepare(doc);
        drop(extracting);
        let p = p?;
        // Past the deadline the client has its 503 already: store nothing.
        if budget.as_ref().is_some_and(Budget::expired) {
            return Err(crate::ErrorKind::Cancelled.into());
        }
        if insert {
            // The writer answers this task directly (and ends the permit).
            seen.submit(p, permit).map(Judged::Pending)
        } else {
            seen.check_prepared(&p).map(Judged::Done)
        }
    };
    let judged = if inline {
        work()?
    } else {
        blocking(work).await?
    };
    let v = match judged {
        Judged::Done(v) => v,
        Judged::Pending(rx) => rx
            .await
            .unwrap_or_else(|_| Err(crate::ErrorKind::Failed.into()))?,
    };
    app.recent.push(&v, crate::shared::now_ms());
    Ok(json_response(StatusCode::OK, &verdict_json(&v)))
}

/// `POST /v1/documents`: check and insert.
pub(crate) async fn post_document(State(app): State<App>, req: Request) -> Response {
    judge(app, req, true)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

/// `POST /v1/backup`: a consistent copy of the store in the backup
/// directory, while the service goes on.
pub(crate) async fn post_backup(State(app): State<App>) -> Response {
    let Some(dir) = app.config.backup_dir.clone() else {
        return ApiError::new(
            StatusCode::NOT_FOUND,
            "backup_disabled",
            "backups are off: start the service with --backup-dir DIR",
        )
        .into_response();
    };
    let seen = app.seen.clone();
    let done = blocking(move || {
        std::fs::create_dir_all(&dir).map_err(|e| {
            crate::Error::from(crate::ErrorKind::Io(format!("{}: {e}", dir.display())))
        })?;
        let path = dir.join(format!("neardup-backup-{}.redb", crate::shared::now_ms()));
        let documents = seen.backup(&path)?;
        Ok((path, documents))
    })
    .await;
    match done {
        Ok((path, documents)) => json_response(
            StatusCode::OK,
            &json!({"path": path.display().to_string(), "documents": documents}),
        ),
        Err(e) => e.into_response(),
    }
}

/// `POST /v1/check`: the verdict without inserting.
pub(crate) async fn post_check(State(app): State<App>, req: Request) -> Response {
    judge(app, req, false)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

fn not_found(id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no document {id:?}"),
    )
}

fn path_id(path: Result<Path<String>, PathRejection>) -> Result<String, ApiError> {
    path.map(|Path(id)| id).map_err(|e| {
        ApiError::bad_request("bad_id", format!("the id in the path is not valid: {e}"))
    })
}

/// `GET /v1/documents/{id}`.
pub(crate) async fn get_document(
    State(app): State<App>,
    path: Result<Path<String>, PathRejection>,
) -> Response {
    let id = match path_id(path) {
        Ok(id) => id,
        Err(e) => return e.into_response(),
    };
    let seen = app.seen.clone();
    let key = id.clone();
    match blocking(move || seen.get(&key)).await {
        Ok(Some(d)) => json_response(
            StatusCode::OK,
            &json!({
                "id": d.id,
                "url": d.url,
                "duplicate": d.duplicate_of.is_some(),
                "duplicate_of": d.duplicate_of.as_ref().map(|(o, _)| o),
                "similarity": d.duplicate_of.as_ref().map(|(_, s)| s),
                "stored_at": rfc3339(d.stored_at_ms),
                "stored_at_ms": d.stored_at_ms,
                "text_length": d.text_len,
                "fingerprint": d.method.map(|m| json!({
                    "method": m,
                    "bytes": d.signature_bytes,
                    "hash": d.signature_hash,
                })),
            }),
        ),
        Ok(None) => not_found(&id).into_response(),
        Err(e) => e.into_response(),
    }
}

/// `DELETE /v1/documents/{id}`.
pub(crate) async fn delete_document(
    State(app): State<App>,
    path: Result<Path<String>, PathRejection>,
) -> Response {
    let id = match path_id(path) {
        Ok(id) => id,
        Err(e) => return e.into_response(),
    };
    let seen = app.seen.clone();
    let key = id.clone();
    match blocking(move || seen.delete(&key)).await {
        Ok(true) => json_response(StatusCode::OK, &json!({"id": id, "deleted": true})),
        Ok(false) => not_found(&id).into_response(),
        Err(e) => e.into_response(),
    }
}

/// `GET /v1/stats`.
pub(crate) async fn stats(State(app): State<App>) -> Response {
    let s = app.seen.stats();
    let mut body = json!({
            "documents": s.documents,
            "originals": s.originals,
            "duplicates": s.duplicates,
            "empty": s.empty,
            "index_bytes": s.index_bytes,
            "commits": s.commits,
            "committed_operations": s.committed_ops,
            "evicted": s.evicted,
            "method": s.method,
            "store_duplicates": app.store_duplicates,
            "format_version": crate::FORMAT_VERSION,
            "healthy": app.seen.is_healthy(),
    });
    if let Some(url) = app.seen.shared_store() {
        body["shared_store"] = json!(url);
    }
    json_response(StatusCode::OK, &body)
}

/// `GET /healthz`.
pub(crate) async fn healthz(State(app): State<App>) -> Response {
    if app.seen.is_healthy() {
        json_response(StatusCode::OK, &json!({"status": "ok"}))
    } else {
        json_response(
            StatusCode::SERVICE_UNAVAILABLE,
            &json!({"status": "failed", "message": "a commit failed; restart the service"}),
        )
    }
}

/// `GET /metrics`.
pub(crate) async fn metrics(State(app): State<App>) -> Response {
    let text = app.metrics.render(&app.seen.stats(), app.seen.is_healthy());
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response()
}

/// `GET /openapi.json`.
pub(crate) async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

/// A known path with another method.
pub(crate) async fn method_not_allowed(req: Request) -> Response {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{} is not allowed on {}", req.method(), req.uri().path()),
    )
    .into_response()
}

/// Any other path.
pub(crate) async fn fallback(req: Request) -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "no_route",
        format!("no route {} {}", req.method(), req.uri().path()),
    )
    .into_response()
}

/// Milliseconds since the epoch as an RFC 3339 UTC time.
fn rfc3339(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        ms % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400_123), "2000-02-29T00:00:00.123Z");
        assert_eq!(rfc3339(1_795_000_000_000), "2026-11-18T11:06:40.000Z");
    }

    #[test]
    fn openapi_is_json_and_lists_every_route() {
        let v: Value = serde_json::from_str(OPENAPI).unwrap();
        let paths = v["paths"].as_object().unwrap();
        for p in [
            "/v1/documents",
            "/v1/check",
            "/v1/batch",
            "/v1/documents/{id}",
            "/v1/stats",
            "/v1/explain",
            "/v1/recent",
            "/ui/",
            "/healthz",
            "/metrics",
        ] {
            assert!(paths.contains_key(p), "{p}");
        }
    }
}
