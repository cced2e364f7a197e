//! The `/ui/` page: one self-contained HTML file (inline styles and script,
//! no external request) over the JSON routes of `/v1`.
//!
//! Authentication: without a token the page is open, like `/v1`. With a
//! token, a browser cannot send an `Authorization` header when it
//! navigates, so `/ui/` answers a login form until the token is posted to
//! `POST /ui/login`; a valid token (compared in constant time) sets a
//! cookie holding it (hex-encoded), `HttpOnly` (scripts cannot read it),
//! `SameSite=Strict` (no other site's page can send it) and scoped to the
//! service's paths. The cookie is then accepted for `/ui/` and for the
//! `/v1` calls the page makes, which also carry the header
//! `X-Neardup-UI: 1` (a custom header a cross-site form cannot set, and
//! one that a cross-origin script cannot send without a CORS grant the
//! service never gives). `POST /ui/logout` clears the cookie. Serve the
//! service behind TLS when the token crosses a network.

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Redirect, Response};

use super::request::{query_pairs, read_body};
use super::{same_token, App};

/// The page.
const PAGE: &str = include_str!("../ui/index.html");
/// The login form; `{{error}}` is replaced by the error, if any.
const LOGIN: &str = include_str!("../ui/login.html");
/// The cookie's name.
pub(crate) const COOKIE: &str = "neardup_ui";
/// The header the page's `/v1` calls carry with the cookie.
pub(crate) const UI_HEADER: &str = "x-neardup-ui";
/// The largest login form accepted.
const MAX_LOGIN_BYTES: usize = 16 * 1024;
/// The policy of the page's responses: nothing but the page itself and
/// calls to the service.
const CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
    connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; \
    base-uri 'none'";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The cookie's value in the request, decoded.
fn cookie_token(headers: &HeaderMap) -> Option<Vec<u8>> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .and_then(|(_, value)| unhex(value.trim()))
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Whether the request carries the page's cookie with `token`.
pub(crate) fn cookie_authorized(token: &str, headers: &HeaderMap) -> bool {
    cookie_token(headers).is_some_and(|t| same_token(&t, token.as_bytes()))
}

/// Whether a `/v1` request is the page's call with a valid cookie.
pub(crate) fn ui_call_authorized(token: &str, headers: &HeaderMap) -> bool {
    headers.get(UI_HEADER).is_some_and(|v| v == "1") && cookie_authorized(token, headers)
}

fn html(status: StatusCode, body: String) -> Response {
    let mut r = (status, body).into_response();
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    r
}

fn login_page(status: StatusCode, error: &str) -> Response {
    let error = if error.is_empty() {
        String::new()
    } else {
        format!("<p class=\"error\" role=\"alert\" id=\"login-error\">{error}</p>")
    };
    let mut r = html(status, LOGIN.replace("{{error}}", &error));
    if status == StatusCode::UNAUTHORIZED {
        // The form is the way in (a browser shows no dialog for this scheme).
        r.headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    }
    r
}

/// `GET /ui/`: the page, or the login form when a token is set and the
/// request has no valid cookie.
pub(crate) async fn page(State(app): State<App>, headers: HeaderMap) -> Response {
    match &app.config.token {
        Some(token) if !cookie_authorized(token, &headers) => {
            login_page(StatusCode::UNAUTHORIZED, "")
        }
        _ => html(StatusCode::OK, PAGE.to_string()),
    }
}

/// `GET /ui`: to `/ui/`.
pub(crate) async fn redirect() -> Response {
    Redirect::permanent("/ui/").into_response()
}

fn set_cookie(value: &str, max_age: Option<u32>) -> HeaderValue {
    let age = max_age.map_or(String::new(), |s| format!("; Max-Age={s}"));
    HeaderValue::from_str(&format!(
        "{COOKIE}={value}; Path=/; HttpOnly; SameSite=Strict{age}"
    ))
    .unwrap_or_else(|_| HeaderValue::from_static("neardup_ui=; Path=/; Max-Age=0"))
}

/// `POST /ui/login` (`application/x-www-form-urlencoded`, field `token`):
/// a valid token sets the cookie and goes to `/ui/`; another gets the
/// form again with an error, status `401`.
pub(crate) async fn login(State(app): State<App>, req: Request) -> Response {
    let Some(token) = app.config.token.clone() else {
        return Redirect::to("/ui/").into_response();
    };
    let (parts, body) = req.into_parts();
    let bytes = match read_body(&parts.headers, body, MAX_LOGIN_BYTES).await {
        Ok(b) => b,
        Err(e) => return login_page(e.status, "The form is too large."),
    };
    let form = String::from_utf8_lossy(&bytes);
    let given = query_pairs(Some(&form))
        .into_iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_default();
    if !same_token(given.as_bytes(), token.as_bytes()) {
        return login_page(StatusCode::UNAUTHORIZED, "Wrong token.");
    }
    let mut r = Redirect::to("/ui/").into_response();
    r.headers_mut()
        .insert(header::SET_COOKIE, set_cookie(&hex(token.as_bytes()), None));
    r
}

/// `POST /ui/logout`: clears the cookie and goes to `/ui/`.
pub(crate) async fn logout() -> Response {
    let mut r = Redirect::to("/ui/").into_response();
    r.headers_mut()
        .insert(header::SET_COOKIE, set_cookie("", Some(0)));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_cookie(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::COOKIE, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn the_cookie_holds_the_token_in_hex() {
        let good = with_cookie(&format!("a=b; {COOKIE}={}", hex(b"s3cret; x")));
        assert!(cookie_authorized("s3cret; x", &good));
        assert!(!cookie_authorized("s3cret", &good));
        assert!(!cookie_authorized("s3cret", &with_cookie("neardup_ui=zz")));
        assert!(!cookie_authorized("s3cret", &HeaderMap::new()));
        // The page's /v1 calls also need the header.
        assert!(!ui_call_authorized("s3cret; x", &good));
        let mut call = good.clone();
        call.insert(UI_HEADER, HeaderValue::from_static("1"));
        assert!(ui_call_authorized("s3cret; x", &call));
    }

    #[test]
    fn the_pages_are_self_contained() {
        for p in [PAGE, LOGIN] {
            assert!(p.starts_with("<!DOCTYPE html>"));
            for external in ["src=\"http", "href=\"http", "@import", "url(http"] {
                assert!(!p.contains(external), "{external}");
            }
        }
        assert!(LOGIN.contains("{{error}}"));
        let set = set_cookie("ab", None);
        let set = set.to_str().unwrap();
        assert!(
            set.contains("HttpOnly") && set.contains("SameSite=Strict"),
            "{set}"
        );
    }
}
