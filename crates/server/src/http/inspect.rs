//! The routes that show what the service decided: `GET /v1/recent` (the
//! last verdicts, newest first) and `POST /v1/explain` (the verdict of
//! `/v1/check`, nothing stored, with the original's text, the engine's
//! explanation and the shared passages of the two texts).

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use neardup::dedup::{Mark, Segment};
use serde_json::{json, Value};

use super::handlers::{blocking, verdict_json};
use super::request::{json_response, parse_document, query_pairs, read_body, ApiError};
use super::{App, Budget};
use crate::explain::Explained;

/// Characters of a text returned at most by `/v1/explain` (the rest is
/// cut, and `cut` says so).
pub const MAX_EXPLAIN_CHARS: usize = 100_000;

/// `GET /v1/recent?limit=N`.
pub(crate) async fn get_recent(State(app): State<App>, req: Request) -> Response {
    let mut limit = app.recent.capacity();
    for (k, v) in query_pairs(req.uri().query()) {
        if k == "limit" {
            match v.parse::<usize>() {
                Ok(n) => limit = n,
                Err(_) => {
                    return ApiError::bad_request(
                        "bad_limit",
                        format!("limit must be a whole number, not {v:?}"),
                    )
                    .into_response()
                }
            }
        }
    }
    let verdicts: Vec<Value> = app
        .recent
        .latest(limit)
        .iter()
        .map(|r| {
            let mut v = verdict_json(&r.verdict);
            v["at_ms"] = json!(r.at_ms);
            v
        })
        .collect();
    json_response(
        StatusCode::OK,
        &json!({"capacity": app.recent.capacity(), "verdicts": verdicts}),
    )
}

/// The segments of `text` as JSON pieces, cut to [`MAX_EXPLAIN_CHARS`]
/// characters: `[{"text", "mark": "shared"|"only"|"other"}]` and whether
/// it was cut.
fn pieces(text: &str, segments: &[Segment]) -> (Vec<Value>, bool) {
    let (shown, cut) = neardup::dedup::cut_chars(text, MAX_EXPLAIN_CHARS);
    let out = segments
        .iter()
        .take_while(|s| s.range.start < shown.len())
        .map(|s| {
            let mark = match s.mark {
                Mark::Shared => "shared",
                Mark::Only => "only",
                Mark::Other => "other",
            };
            let end = s.range.end.min(shown.len());
            json!({"text": &text[s.range.start..end], "mark": mark})
        })
        .collect();
    (out, cut)
}

fn explained_json(e: &Explained) -> Value {
    let (submitted, cut) = pieces(&e.text, &e.segments);
    let original = e.original.as_ref().map(|o| {
        let (segments, cut) = match &o.text {
            Some(t) => pieces(t, &o.segments),
            None => (Vec::new(), false),
        };
        json!({
            "id": o.id,
            "url": o.url,
            "text_stored": o.text.is_some(),
            "text_length": o.text.as_ref().map(String::len),
            "segments": segments,
            "cut": cut,
        })
    });
    let explanation = e.explanation.as_ref().map(|x| {
        json!({
            "method": x.method,
            "verdict": x.verdict.to_string(),
            "jaccard": x.comparison.map(|c| c.jaccard),
            "signature_similarity": x.signature_similarity,
            "shingles": {"a": x.shingles.0, "b": x.shingles.1},
            "containment": x.containment.map(|(ab, ba)| json!({"a_in_b": ab, "b_in_a": ba})),
            "lines": e.lines,
        })
    });
    json!({
        "verdict": verdict_json(&e.verdict),
        "k": e.k,
        "submitted": {"text_length": e.text.len(), "segments": submitted, "cut": cut},
        "original": original,
        "explanation": explanation,
    })
}

/// `POST /v1/explain`: the body of `/v1/check`.
pub(crate) async fn post_explain(State(app): State<App>, req: Request) -> Response {
    explain(app, req)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn explain(app: App, req: Request) -> Result<Response, ApiError> {
    let (parts, body) = req.into_parts();
    let budget = parts.extensions.get::<Budget>().cloned();
    let bytes = read_body(&parts.headers, body, app.config.max_body_bytes).await?;
    let size = bytes.len();
    let doc = parse_document(&parts.headers, parts.uri.query(), bytes)?;
    let seen = app.seen.clone();
    // The document is extracted twice (the check, then its text).
    let extracting = super::extraction_permit(&app, size.saturating_mul(2)).await;
    let e = blocking(move || {
        let _permit = budget.as_ref().and_then(Budget::take_permit);
        let _extracting = extracting;
        seen.explain(doc)
    })
    .await?;
    app.recent.push(&e.verdict, crate::shared::now_ms());
    Ok(json_response(StatusCode::OK, &explained_json(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_cut_at_the_limit() {
        let text = "ab ".repeat(MAX_EXPLAIN_CHARS);
        let segments = vec![Segment {
            range: 0..text.len(),
            mark: Mark::Shared,
        }];
        let (p, cut) = pieces(&text, &segments);
        assert!(cut);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0]["text"].as_str().unwrap().len(), MAX_EXPLAIN_CHARS);
        assert_eq!(p[0]["mark"], "shared");
        let (p, cut) = pieces("x", &[]);
        assert!(!cut && p.is_empty());
    }
}
