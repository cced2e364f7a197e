//! The HTTP service on loopback: every route, the token, restarts, and
//! concurrent near-duplicates (error statuses: `http_errors.rs`).

mod common;

use std::sync::{Arc, Barrier};

use neardup_server::client::Client;
use serde_json::{json, Value};

use common::{article, edit, error_code, post_text, start, temp_dir};

#[test]
fn every_route_answers() {
    let dir = temp_dir("routes");
    let server = start(&dir, |_| {});
    let mut c = Client::new(server.addr());
    let a = article(10, 250);

    let r = post_text(&mut c, "/v1/documents", "a", &a);
    assert_eq!(r.status, 200);
    assert_eq!(
        r.json(),
        json!({"id": "a", "verdict": "new", "duplicate": false, "duplicate_of": null, "similarity": null, "stored": true})
    );
    // A near-duplicate, checked first (not stored), then inserted.
    let near = edit(&a, 30, 1);
    let r = post_text(&mut c, "/v1/check", "b", &near);
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(
        (v["duplicate_of"].as_str(), v["stored"].as_bool()),
        (Some("a"), Some(false))
    );
    let r = post_text(&mut c, "/v1/documents", "b", &near);
    let v = r.json();
    assert_eq!(
        (v["duplicate"].as_bool(), v["stored"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(v["verdict"], "duplicate");
    // A page with no text to judge is neither new nor a duplicate.
    let r = post_text(&mut c, "/v1/check", "e", " -- ");
    assert_eq!(
        (r.json()["verdict"].clone(), r.json()["duplicate"].clone()),
        (json!("empty"), json!(false))
    );
    let sim = v["similarity"].as_f64().unwrap();
    assert!(sim > 0.5 && sim < 1.0, "{sim}");
    // The same id with the same content: the same verdict.
    assert_eq!(post_text(&mut c, "/v1/documents", "b", &near).json(), v);

    // Raw HTML with the id and URL in the query, charset in the header.
    let html = format!(
        "<html><head><title>T</title></head><body><article><p>{}</p></article></body></html>",
        a.replace('\n', "</p><p>")
    );
    let r = c
        .request(
            "POST",
            "/v1/documents?id=https%3A%2F%2Fexample.com%2Fx%2Fy&url=https%3A%2F%2Fexample.com%2Fx%2Fy",
            &[("content-type", "text/html; charset=utf-8")],
            html.as_bytes(),
        )
        .unwrap();
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["duplicate_of"], json!("a"));
    // JSON html.
    let r = c
        .post_json(
            "/v1/documents",
            &json!({"id": "h2", "html": html, "url": "u"}),
        )
        .unwrap();
    assert_eq!(r.json()["duplicate_of"], json!("a"));

    // GET with an id holding slashes, raw or percent-encoded.
    for path in [
        "/v1/documents/https://example.com/x/y",
        "/v1/documents/https%3A%2F%2Fexample.com%2Fx%2Fy",
    ] {
        let r = c.get(path).unwrap();
        assert_eq!(r.status, 200, "{path}");
        let d = r.json();
        assert_eq!(d["id"], json!("https://example.com/x/y"));
        assert_eq!(d["url"], json!("https://example.com/x/y"));
        assert_eq!(d["duplicate_of"], json!("a"));
        assert_eq!(d["fingerprint"]["method"], json!("default"));
        assert!(d["stored_at"].as_str().unwrap().ends_with('Z'));
    }
    let d = c.get("/v1/documents/a").unwrap().json();
    assert_eq!(
        (d["duplicate"].clone(), d["url"].clone()),
        (json!(false), Value::Null)
    );

    let s = c.get("/v1/stats").unwrap().json();
    assert_eq!(s["documents"], json!(4));
    assert_eq!(s["originals"], json!(1));
    assert_eq!(s["duplicates"], json!(3));

    let r = c.delete("/v1/documents/b").unwrap();
    assert_eq!((r.status, r.json()["deleted"].clone()), (200, json!(true)));
    assert_eq!(c.delete("/v1/documents/b").unwrap().status, 404);
    assert_eq!(c.get("/v1/documents/b").unwrap().status, 404);
    assert_eq!(error_code(&c.get("/v1/documents/b").unwrap()), "not_found");
    assert_eq!(c.get("/v1/stats").unwrap().json()["documents"], json!(3));

    let r = c.get("/healthz").unwrap();
    assert_eq!((r.status, r.json()["status"].clone()), (200, json!("ok")));
    let r = c.get("/openapi.json").unwrap();
    assert_eq!(r.json()["openapi"], json!("3.0.3"));
    let m = String::from_utf8(c.get("/metrics").unwrap().body).unwrap();
    assert!(
        m.contains(
            "neardup_http_requests_total{method=\"POST\",route=\"/v1/documents\",status=\"200\"} 5"
        ),
        "{m}"
    );
    assert!(m.contains(
        "neardup_http_request_duration_seconds_bucket{method=\"GET\",route=\"/v1/documents/{id}\""
    ));
    assert!(m.contains("neardup_documents 3"));
    server.stop().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn token_guards_v1_only() {
    let dir = temp_dir("token");
    let server = start(&dir, |s| {
        s.token(Some("s3cret".into()));
    });
    let mut anon = Client::new(server.addr());
    for (m, p) in [
        ("GET", "/v1/stats"),
        ("POST", "/v1/documents"),
        ("GET", "/v1/documents/a"),
    ] {
        let r = anon.request(m, p, &[], &[]).unwrap();
        assert_eq!(
            (r.status, error_code(&r)),
            (401, "unauthorized".to_string()),
            "{p}"
        );
        assert_eq!(r.header("www-authenticate"), Some("Bearer"));
    }
    let r = anon
        .request(
            "GET",
            "/v1/stats",
            &[("authorization", "Bearer wrong")],
            &[],
        )
        .unwrap();
    assert_eq!(r.status, 401);
    assert_eq!(anon.get("/healthz").unwrap().status, 200);
    assert_eq!(anon.get("/metrics").unwrap().status, 200);
    let mut c = Client::new(server.addr());
    c.token(Some("s3cret"));
    assert_eq!(c.get("/v1/stats").unwrap().status, 200);
    assert_eq!(
        post_text(&mut c, "/v1/documents", "a", "some text here").status,
        200
    );
    server.stop().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn restart_keeps_the_documents() {
    let dir = temp_dir("restart");
    let a = article(20, 250);
    let server = start(&dir, |_| {});
    let mut c = Client::new(server.addr());
    for i in 0..20u64 {
        assert_eq!(
            post_text(
                &mut c,
                "/v1/documents",
                &format!("d{i}"),
                &article(100 + i, 150)
            )
            .status,
            200
        );
    }
    assert_eq!(post_text(&mut c, "/v1/documents", "a", &a).status, 200);
    server.stop().unwrap();

    let server = start(&dir, |_| {});
    let mut c = Client::new(server.addr());
    assert_eq!(c.get("/v1/stats").unwrap().json()["documents"], json!(21));
    for i in 0..20 {
        assert_eq!(c.get(&format!("/v1/documents/d{i}")).unwrap().status, 200);
    }
    let v = post_text(&mut c, "/v1/documents", "a-again", &edit(&a, 40, 3)).json();
    assert_eq!(v["duplicate_of"], json!("a"));
    server.stop().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn concurrent_near_duplicates_make_one_original() {
    let dir = temp_dir("race");
    let server = start(&dir, |_| {});
    let addr = server.addr();
    let base = Arc::new(article(30, 300));
    let n = 24;
    let barrier = Arc::new(Barrier::new(n));
    let threads: Vec<_> = (0..n)
        .map(|i| {
            let (base, barrier) = (base.clone(), barrier.clone());
            std::thread::spawn(move || {
                let mut c = Client::new(addr);
                let text = edit(&base, 40, i);
                // Connect before the barrier so the posts really overlap.
                assert_eq!(c.get("/healthz").unwrap().status, 200);
                barrier.wait();
                let r = post_text(&mut c, "/v1/documents", &format!("v{i}"), &text);
                assert_eq!(r.status, 200);
                r.json()
            })
        })
        .collect();
    let verdicts: Vec<Value> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let originals: Vec<&Value> = verdicts
        .iter()
        .filter(|v| v["duplicate"] == json!(false))
        .collect();
    assert_eq!(originals.len(), 1, "{verdicts:?}");
    let original = originals[0]["id"].clone();
    for v in &verdicts {
        if v["duplicate"] == json!(true) {
            assert_eq!(v["duplicate_of"], original);
        }
    }
    server.stop().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn backups_over_http_go_to_the_backup_directory() {
    let dir = temp_dir("http-backup");
    let off = start(&dir.join("off"), |_| {});
    let r = Client::new(off.addr())
        .request("POST", "/v1/backup", &[], b"")
        .unwrap();
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"]["code"], "backup_disabled");
    let backups = dir.join("backups");
    let b = backups.clone();
    let server = start(&dir.join("on"), move |s| {
        s.backup_dir(Some(b));
    });
    let mut c = Client::new(server.addr());
    post_text(&mut c, "/v1/documents", "a", &article(1, 100));
    let r = c.request("POST", "/v1/backup", &[], b"").unwrap();
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert_eq!(r.json()["documents"], 1);
    let path = std::path::PathBuf::from(r.json()["path"].as_str().unwrap());
    assert!(path.starts_with(&backups) && path.is_file(), "{path:?}");
}
