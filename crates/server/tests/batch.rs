//! `POST /v1/batch`: NDJSON in, one verdict per line out, in order, the
//! same verdicts as posting the documents one by one.

mod common;

use neardup_server::client::Client;
use serde_json::{json, Value};

use common::{article, edit, post_text, start, temp_dir};

fn lines(body: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(body)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn ndjson(docs: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for d in docs {
        out.extend(serde_json::to_vec(d).unwrap());
        out.push(b'\n');
    }
    out
}

#[test]
fn a_batch_answers_line_by_line_as_single_posts_do() {
    let (a, b) = (article(1, 200), article(2, 200));
    let docs = vec![
        json!({"id": "a", "text": a}),
        json!({"id": "a2", "text": edit(&a, 30, 1)}),
        json!({"id": "e", "text": " -- "}),
        json!({"id": "b", "url": "https://example.com/b", "text": b}),
        json!({"id": "b2", "html": format!("<article><p>{}</p></article>", edit(&b, 25, 2))}),
    ];
    let mut body = ndjson(&docs[..2]);
    body.extend(b"{not json\n\n");
    body.extend(ndjson(&docs[2..]));

    let dir = temp_dir("batch");
    let server = start(&dir.join("batch"), |_| {});
    let mut c = Client::new(server.addr());
    let ct = [("content-type", "application/x-ndjson")];
    // Checked first: verdicts, nothing stored.
    let r = c
        .request("POST", "/v1/batch?check=true", &ct, &body)
        .unwrap();
    assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.body));
    assert!(lines(&r.body).iter().all(|v| v["stored"] != json!(true)));
    let r = c.request("POST", "/v1/batch", &ct, &body).unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/x-ndjson"));
    let got = lines(&r.body);
    assert_eq!(got.len(), 6);
    assert_eq!(got[2]["line"], 3);
    assert_eq!(got[2]["error"]["code"], "bad_json");
    let verdicts: Vec<&str> = got
        .iter()
        .map(|v| v["verdict"].as_str().unwrap_or("error"))
        .collect();
    assert_eq!(
        verdicts,
        ["new", "duplicate", "error", "empty", "new", "duplicate"]
    );
    assert_eq!(got[1]["duplicate_of"], "a");
    assert_eq!(got[5]["duplicate_of"], "b");

    // The same documents one by one, on another store: the same answers.
    let single = start(&dir.join("single"), |_| {});
    let mut s = Client::new(single.addr());
    let mut one_by_one = Vec::new();
    for d in &docs {
        let r = s.post_json("/v1/documents", d).unwrap();
        one_by_one.push(r.json());
    }
    let batch_verdicts: Vec<Value> = got
        .into_iter()
        .filter(|v| v.get("error").is_none())
        .collect();
    assert_eq!(batch_verdicts, one_by_one);
    // Stored: reposting the batch gives the stored verdicts.
    let again = c.request("POST", "/v1/batch", &ct, &body).unwrap();
    assert!(lines(&again.body)
        .iter()
        .filter(|v| v.get("error").is_none())
        .all(|v| v["stored"] == json!(true)));
    assert_eq!(
        post_text(&mut c, "/v1/check", "x", &a).json()["duplicate_of"],
        "a"
    );
}

#[test]
fn too_many_documents_is_413() {
    let dir = temp_dir("batch-413");
    let server = start(&dir, |s| {
        s.max_body_bytes(50_000_000);
    });
    let docs: Vec<Value> = (0..=neardup_server::http::MAX_BATCH_DOCUMENTS)
        .map(|i| json!({"id": format!("d{i}"), "text": "x"}))
        .collect();
    let mut c = Client::new(server.addr());
    let r = c
        .request(
            "POST",
            "/v1/batch",
            &[("content-type", "application/x-ndjson")],
            &ndjson(&docs),
        )
        .unwrap();
    assert_eq!(r.status, 413);
    assert_eq!(r.json()["error"]["code"], "batch_too_large");
}
