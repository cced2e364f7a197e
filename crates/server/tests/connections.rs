//! Slow, idle and too many clients: a connection that sends no request head
//! in time is closed, new or idle between requests; connections past the
//! limit get a JSON `503` and are closed; the service keeps answering.
//! (The waits below are upper bounds for a close that must happen, not
//! timings.)

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use neardup_server::client::Client;

use common::{start, temp_dir};

/// Reads until the server closes the connection (or `limit` passes); what
/// was read and whether it closed.
fn read_until_closed(s: &mut TcpStream, limit: Duration) -> (Vec<u8>, bool) {
    s.set_read_timeout(Some(limit)).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return (out, true),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return (out, true),
            Err(_) => return (out, false),
        }
    }
}

#[test]
fn idle_and_slow_connections_are_closed() {
    let dir = temp_dir("conn-idle");
    let server = start(&dir, |s| {
        s.header_timeout(Duration::from_millis(300));
    });
    // A new connection that sends nothing.
    let mut idle = TcpStream::connect(server.addr()).unwrap();
    // A slow client: half a request head, then nothing.
    let mut slow = TcpStream::connect(server.addr()).unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    // A keep-alive connection, idle after one request.
    let mut kept = TcpStream::connect(server.addr()).unwrap();
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    for s in [&mut idle, &mut slow] {
        let (_, closed) = read_until_closed(s, Duration::from_secs(10));
        assert!(closed, "the server closed the connection");
    }
    let (answer, closed) = read_until_closed(&mut kept, Duration::from_secs(10));
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"));
    assert!(closed, "the idle keep-alive connection was closed");
    // The service still answers.
    let r = Client::new(server.addr()).get("/healthz").unwrap();
    assert_eq!(r.status, 200);
}

#[test]
fn connections_past_the_limit_get_a_json_503() {
    let dir = temp_dir("conn-limit");
    let server = start(&dir, |s| {
        s.max_connections(2).header_timeout(Duration::from_secs(30));
    });
    let held: Vec<TcpStream> = (0..2)
        .map(|_| TcpStream::connect(server.addr()).unwrap())
        .collect();
    // Both are accepted before the third arrives.
    std::thread::sleep(Duration::from_millis(200));
    let mut third = TcpStream::connect(server.addr()).unwrap();
    let (answer, closed) = read_until_closed(&mut third, Duration::from_secs(10));
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("\"too_many_connections\""), "{answer}");
    assert!(closed);
    drop(held);
    // Once they are gone, connections are served again.
    let mut ok = false;
    for _ in 0..50 {
        if Client::new(server.addr())
            .get("/healthz")
            .is_ok_and(|r| r.status == 200)
        {
            ok = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(ok, "served again after the held connections closed");
}

#[test]
fn the_bearer_scheme_is_case_insensitive() {
    let dir = temp_dir("conn-bearer");
    let server = start(&dir, |s| {
        s.token(Some("s3cret".into()));
    });
    for (auth, status) in [
        ("Bearer s3cret", "200"),
        ("bearer s3cret", "200"),
        ("BEARER s3cret", "200"),
        ("Bearer wrong", "401"),
        ("Basic s3cret", "401"),
    ] {
        let mut s = TcpStream::connect(server.addr()).unwrap();
        write!(
            s,
            "GET /v1/stats HTTP/1.1\r\nHost: x\r\nAuthorization: {auth}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let (answer, _) = read_until_closed(&mut s, Duration::from_secs(10));
        let answer = String::from_utf8_lossy(&answer);
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{auth}: {answer}"
        );
    }
}

#[test]
fn a_request_past_its_timeout_stores_nothing() {
    let dir = temp_dir("conn-timeout");
    let server = start(&dir, |s| {
        s.request_timeout(Duration::from_millis(1))
            .max_body_bytes(50_000_000);
    });
    // Megabytes of text: extracting them takes far longer than 1 ms.
    let big: String = (0..400_000).map(|i| format!("word{} ", i % 9973)).collect();
    let mut c = Client::new(server.addr());
    match c.post_json(
        "/v1/documents",
        &serde_json::json!({"id": "big", "text": big}),
    ) {
        Ok(r) => {
            assert_eq!(r.status, 503);
            assert_eq!(r.json()["error"]["code"], "timeout");
        }
        // On a loaded machine the millisecond passes while the body is
        // still on its way: the server answers and closes, and the client's
        // write fails before it reads the answer. Nothing may be stored
        // either way (below).
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
            ) => {}
        Err(e) => panic!("{e}"),
    }
    // The work goes on after the answer, and is cancelled before it stores.
    for _ in 0..15 {
        std::thread::sleep(Duration::from_millis(100));
        let mut c = Client::new(server.addr());
        let got = c.get("/v1/documents/big");
        // Every request times out at 1 ms here, or finds nothing.
        if let Ok(r) = got {
            assert!(r.status == 404 || r.status == 503, "{}", r.status);
        }
    }
    drop(server);
    let seen = neardup_server::ContentSeen::open(&dir, &neardup_server::Config::new()).unwrap();
    assert_eq!(seen.stats().documents, 0, "nothing was stored");
}

#[test]
fn long_targets_and_large_headers_get_json_errors() {
    let dir = temp_dir("conn-414");
    let server = start(&dir, |_| {});
    let long = "a".repeat(20_000);
    let big = "b".repeat(70_000);
    for (request, status, code) in [
        (
            format!("GET /v1/documents/{long} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
            "414",
            "uri_too_long",
        ),
        (
            format!(
                "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {big}\r\nConnection: close\r\n\r\n"
            ),
            "431",
            "headers_too_large",
        ),
    ] {
        let mut s = TcpStream::connect(server.addr()).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let (answer, _) = read_until_closed(&mut s, Duration::from_secs(10));
        let answer = String::from_utf8_lossy(&answer);
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{answer}"
        );
        assert!(answer.contains("application/json"), "{answer}");
        assert!(answer.contains(&format!("\"{code}\"")), "{answer}");
    }
}

#[test]
fn the_extraction_budget_queues_large_pages_without_losing_any() {
    let dir = temp_dir("conn-extract-budget");
    // A budget of one largest page: large pages are extracted one at a time.
    let server = start(&dir, |s| {
        s.max_body_bytes(200_000).max_extracting_bytes(0);
    });
    let addr = server.addr();
    let handles: Vec<_> = (0..6)
        .map(|i| {
            std::thread::spawn(move || {
                let text: String = (0..20_000).map(|w| format!("w{i}x{w} ")).collect();
                let mut c = Client::new(addr);
                c.post_json(
                    "/v1/documents",
                    &serde_json::json!({"id": format!("big{i}"), "text": text}),
                )
                .unwrap()
                .status
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), 200);
    }
    let r = Client::new(addr).get("/v1/stats").unwrap();
    assert_eq!(r.json()["documents"], 6);
}
