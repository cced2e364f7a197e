//! The HTTP service on loopback: every error status, with its code, on
//! one connection that survives them all.

mod common;

use neardup_server::client::Client;

use common::{article, error_code, post_text, start, start_with, temp_dir};

/// Method, path, headers, body, expected status and error code.
type Case<'a> = (
    &'a str,
    &'a str,
    Vec<(&'a str, &'a str)>,
    Vec<u8>,
    u16,
    &'a str,
);

#[test]
fn every_error_status() {
    let dir = temp_dir("errors");
    let server = start(&dir, |s| {
        s.max_body_bytes(2000);
    });
    let mut c = Client::new(server.addr());
    let json_ct = [("content-type", "application/json")];
    let cases: Vec<Case<'_>> = vec![
        (
            "POST",
            "/v1/documents",
            json_ct.to_vec(),
            b"{not json".to_vec(),
            400,
            "bad_json",
        ),
        (
            "POST",
            "/v1/documents",
            json_ct.to_vec(),
            br#"{"id":"x"}"#.to_vec(),
            400,
            "bad_json",
        ),
        (
            "POST",
            "/v1/documents",
            json_ct.to_vec(),
            br#"{"id":"x","text":"a","html":"b"}"#.to_vec(),
            400,
            "bad_json",
        ),
        (
            "POST",
            "/v1/documents",
            json_ct.to_vec(),
            br#"{"id":"","text":"a"}"#.to_vec(),
            400,
            "invalid_id",
        ),
        (
            "POST",
            "/v1/check",
            json_ct.to_vec(),
            br#"{"id":5,"text":"a"}"#.to_vec(),
            400,
            "bad_json",
        ),
        (
            "POST",
            "/v1/documents",
            vec![("content-type", "text/html")],
            b"<p>x</p>".to_vec(),
            400,
            "missing_id",
        ),
        (
            "POST",
            "/v1/documents?id=x",
            vec![("content-type", "text/plain")],
            vec![0xff, 0xfe],
            400,
            "bad_text",
        ),
        (
            "POST",
            "/v1/documents?id=x",
            vec![],
            b"<p>x</p>".to_vec(),
            415,
            "unsupported_media_type",
        ),
        (
            "POST",
            "/v1/documents?id=x",
            vec![("content-type", "image/png")],
            b"x".to_vec(),
            415,
            "unsupported_media_type",
        ),
        (
            "POST",
            "/v1/documents?id=x",
            vec![("content-type", "text/html")],
            vec![b'a'; 2001],
            413,
            "body_too_large",
        ),
        (
            "GET",
            "/v1/documents/nope",
            vec![],
            vec![],
            404,
            "not_found",
        ),
        (
            "DELETE",
            "/v1/documents/nope",
            vec![],
            vec![],
            404,
            "not_found",
        ),
        ("GET", "/v2/anything", vec![], vec![], 404, "no_route"),
        (
            "PUT",
            "/v1/documents",
            vec![],
            vec![],
            405,
            "method_not_allowed",
        ),
        (
            "GET",
            "/v1/check",
            vec![],
            vec![],
            405,
            "method_not_allowed",
        ),
        ("GET", "/v1/documents/%FF%FE", vec![], vec![], 400, "bad_id"),
    ];
    for (method, path, headers, body, status, code) in cases {
        let r = c.request(method, path, &headers, &body).unwrap();
        assert_eq!(
            r.status,
            status,
            "{method} {path}: {}",
            String::from_utf8_lossy(&r.body)
        );
        assert_eq!(error_code(&r), code, "{method} {path}");
        assert_eq!(r.header("content-type"), Some("application/json"));
    }
    // The connection survived every error.
    assert_eq!(c.get("/healthz").unwrap().status, 200);
    server.stop().unwrap();
    // 409: the same id with other content, when changes are conflicts.
    let mut strict = neardup_server::Config::new();
    strict.replace_changed(false);
    let server = start_with(&dir.join("strict"), &strict, |_| {});
    let mut c = Client::new(server.addr());
    assert_eq!(
        post_text(&mut c, "/v1/documents", "x", &article(1, 100)).status,
        200
    );
    let r = post_text(&mut c, "/v1/documents", "x", &article(2, 100));
    assert_eq!((r.status, error_code(&r)), (409, "conflict".to_string()));
    assert_eq!(r.header("content-type"), Some("application/json"));
    server.stop().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
