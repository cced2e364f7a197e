//! The routes behind the `/ui/` page over HTTP on loopback: `/v1/explain`,
//! `/v1/recent`, the page, and its login with a token (the page in a real
//! browser: `crates/cli/tests/browser/test_ui.py`).

mod common;

use neardup_server::client::{Client, Response};
use neardup_server::Config;
use serde_json::{json, Value};

use common::{article, edit, error_code, post_text, start, start_with, temp_dir};

/// The pieces of `segments` marked `mark`, joined by `|`.
fn marked(segments: &Value, mark: &str) -> String {
    segments
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["mark"] == mark)
        .map(|s| s["text"].as_str().unwrap())
        .collect::<Vec<_>>()
        .join("|")
}

fn joined(segments: &Value) -> String {
    segments
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["text"].as_str().unwrap())
        .collect()
}

#[test]
fn explain_shows_the_original_text_and_the_shared_passages() {
    let dir = temp_dir("ui-explain");
    let server = start(&dir, |_| {});
    let mut c = Client::new(server.addr());
    let a = article(21, 300);
    assert_eq!(post_text(&mut c, "/v1/documents", "a", &a).status, 200);
    let near = format!("{} The end of the story", edit(&a, 40, 7));
    let r = post_text(&mut c, "/v1/explain", "b", &near);
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    let x = r.json();
    assert_eq!(x["verdict"]["verdict"], "duplicate");
    assert_eq!(x["verdict"]["duplicate_of"], "a");
    assert_eq!(x["verdict"]["stored"], false);
    assert_eq!(x["k"], 3);
    let o = &x["original"];
    assert_eq!(o["id"], "a");
    assert_eq!(o["text_stored"], true);
    // The segments give back the texts whole: the original's as stored
    // (its extracted text), the submitted one as extracted.
    assert_eq!(
        joined(&o["segments"])
            .split_whitespace()
            .collect::<Vec<_>>(),
        a.split_whitespace().collect::<Vec<_>>()
    );
    assert!(joined(&x["submitted"]["segments"]).ends_with("The end of the story"));
    // What only the copy has is not marked shared; most of it is.
    let only = marked(&x["submitted"]["segments"], "only");
    assert!(
        only.contains("edit7x") && only.contains("The end of the story"),
        "{only}"
    );
    assert!(!marked(&x["submitted"]["segments"], "shared").contains("edit7x"));
    assert!(marked(&o["segments"], "shared").len() > a.len() / 2);
    let e = &x["explanation"];
    assert_eq!(e["method"], "default");
    assert!(
        e["verdict"].as_str().unwrap().starts_with("near-duplicate"),
        "{e}"
    );
    assert!(e["jaccard"].as_f64().unwrap() > 0.5);
    assert!(e["lines"][0].as_str().unwrap().contains("near-duplicate"));
    // Nothing was stored.
    assert_eq!(c.get("/v1/documents/b").unwrap().status, 404);
    assert_eq!(c.get("/v1/stats").unwrap().json()["documents"], 1);

    // A new page: no original, its text whole.
    let x = post_text(&mut c, "/v1/explain", "n", &article(99, 200)).json();
    assert_eq!(x["verdict"]["verdict"], "new");
    assert!(x["original"].is_null() && x["explanation"].is_null());
    assert_eq!(marked(&x["submitted"]["segments"], "shared"), "");
    // The same errors as /v1/check.
    let r = c
        .post_json("/v1/explain", &json!({"text": "no id"}))
        .unwrap();
    assert_eq!((r.status, error_code(&r)), (400, "bad_json".to_string()));
}

#[test]
fn without_exact_verification_the_original_is_explained_by_its_signature() {
    let dir = temp_dir("ui-explain-sig");
    let mut config = Config::new();
    config.verifier(None);
    let server = start_with(&dir, &config, |_| {});
    let mut c = Client::new(server.addr());
    let a = article(5, 300);
    post_text(&mut c, "/v1/documents", "a", &a);
    let x = post_text(&mut c, "/v1/explain", "b", &edit(&a, 50, 1)).json();
    assert_eq!(x["verdict"]["duplicate_of"], "a");
    assert_eq!(x["original"]["text_stored"], false);
    assert_eq!(x["original"]["segments"], json!([]));
    assert!(x["explanation"]["signature_similarity"].as_f64().unwrap() > 0.5);
}

#[test]
fn recent_lists_the_last_verdicts_newest_first() {
    let dir = temp_dir("ui-recent");
    let server = start(&dir, |s| {
        s.recent_verdicts(3);
    });
    let mut c = Client::new(server.addr());
    let a = article(1, 200);
    post_text(&mut c, "/v1/documents", "a", &a);
    post_text(&mut c, "/v1/documents", "b", &edit(&a, 30, 1));
    post_text(&mut c, "/v1/check", "c", &article(2, 200));
    let batch = format!(
        "{}\n{}\n",
        json!({"id": "d", "text": article(3, 200)}),
        json!({"id": "e", "text": article(4, 200)})
    );
    let r = c
        .request(
            "POST",
            "/v1/batch",
            &[("content-type", "application/x-ndjson")],
            batch.as_bytes(),
        )
        .unwrap();
    assert_eq!(r.status, 200);
    let r = c.get("/v1/recent").unwrap().json();
    assert_eq!(r["capacity"], 3);
    let ids: Vec<&str> = r["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["e", "d", "c"]);
    assert_eq!(r["verdicts"][2]["stored"], false);
    assert!(r["verdicts"][0]["at_ms"].as_u64().unwrap() > 1_600_000_000_000);
    let r = c.get("/v1/recent?limit=1").unwrap().json();
    assert_eq!(r["verdicts"].as_array().unwrap().len(), 1);
    let r = c.get("/v1/recent?limit=x").unwrap();
    assert_eq!((r.status, error_code(&r)), (400, "bad_limit".to_string()));
    // A duplicate's entry names its original.
    post_text(&mut c, "/v1/documents", "b", &edit(&a, 30, 1));
    let v = &c.get("/v1/recent?limit=1").unwrap().json()["verdicts"][0];
    assert_eq!(
        (v["id"].as_str(), v["duplicate_of"].as_str()),
        (Some("b"), Some("a"))
    );
}

fn text(r: &Response) -> String {
    String::from_utf8_lossy(&r.body).into_owned()
}

#[test]
fn without_a_token_the_page_is_open() {
    let dir = temp_dir("ui-open");
    let server = start(&dir, |_| {});
    let mut c = Client::new(server.addr());
    let r = c.get("/ui/").unwrap();
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    assert!(r
        .header("content-security-policy")
        .unwrap()
        .contains("default-src 'none'"));
    assert!(text(&r).contains("<h2 id=\"recent-h\">Recent verdicts</h2>"));
    let r = c.get("/ui").unwrap();
    assert_eq!((r.status, r.header("location")), (308, Some("/ui/")));
}

fn cookie_of(r: &Response) -> String {
    let set = r.header("set-cookie").expect("a cookie");
    set.split(';').next().unwrap().to_string()
}

fn form(c: &mut Client, token: &str) -> Response {
    c.request(
        "POST",
        "/ui/login",
        &[("content-type", "application/x-www-form-urlencoded")],
        format!("token={token}").as_bytes(),
    )
    .unwrap()
}

#[test]
fn with_a_token_the_page_asks_for_it_and_its_cookie_opens_v1() {
    let dir = temp_dir("ui-token");
    let server = start(&dir, |s| {
        s.token(Some("s3cret+x".into()));
    });
    let mut c = Client::new(server.addr());
    let r = c.get("/ui/").unwrap();
    assert_eq!(r.status, 401);
    assert_eq!(r.header("www-authenticate"), Some("Bearer"));
    assert!(text(&r).contains("action=\"/ui/login\""));
    assert!(!text(&r).contains("Recent verdicts"));

    // A wrong token: the form again, with the error, and no cookie.
    let r = form(&mut c, "nope");
    assert_eq!(r.status, 401);
    assert!(text(&r).contains("Wrong token."));
    assert!(r.header("set-cookie").is_none());

    // The right one (form-encoded: `+` is `%2B`).
    let r = form(&mut c, "s3cret%2Bx");
    assert_eq!((r.status, r.header("location")), (303, Some("/ui/")));
    let set = r.header("set-cookie").unwrap();
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Strict"),
        "{set}"
    );
    let cookie = cookie_of(&r);
    let r = c
        .request("GET", "/ui/", &[("cookie", &cookie)], &[])
        .unwrap();
    assert_eq!(r.status, 200);
    assert!(text(&r).contains("Recent verdicts"));

    // The cookie opens /v1 with the page's header, not without it.
    let r = c
        .request(
            "GET",
            "/v1/stats",
            &[("cookie", &cookie), ("x-neardup-ui", "1")],
            &[],
        )
        .unwrap();
    assert_eq!(r.status, 200);
    let r = c
        .request("GET", "/v1/stats", &[("cookie", &cookie)], &[])
        .unwrap();
    assert_eq!(r.status, 401);
    let forged = "neardup_ui=733363726574";
    let r = c
        .request(
            "GET",
            "/v1/stats",
            &[("cookie", forged), ("x-neardup-ui", "1")],
            &[],
        )
        .unwrap();
    assert_eq!(r.status, 401);
    // The bearer header still works, and the new routes need it.
    assert_eq!(c.get("/v1/recent").unwrap().status, 401);
    c.token(Some("s3cret+x"));
    assert_eq!(c.get("/v1/recent").unwrap().status, 200);

    // Logging out clears the cookie.
    let r = c.request("POST", "/ui/logout", &[], &[]).unwrap();
    assert_eq!(r.status, 303);
    assert!(r.header("set-cookie").unwrap().contains("Max-Age=0"));
}
