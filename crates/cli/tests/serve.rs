//! `neardup serve` as a process: start-up checks, and a crash (SIGKILL)
//! in the middle of a load after which every acknowledged document is there.

mod common;

use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::serve::{text, Serve};
use neardup_server::client::Client;
use serde_json::json;

#[test]
fn every_acknowledged_document_survives_sigkill() {
    let dir = common::temp_dir("serve-crash");
    let server = Serve::start(&dir);
    let addr = server.addr;
    let acked = Arc::new(Mutex::new(Vec::<String>::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = (0..4u64)
        .map(|t| {
            let (acked, stop) = (acked.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut c = Client::new(addr);
                c.timeout(Duration::from_secs(10));
                for i in 0..100_000u64 {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let id = format!("t{t}-{i}");
                    let body = json!({"id": id, "text": text(t * 1_000_000 + i)});
                    match c.post_json("/v1/documents", &body) {
                        Ok(r) if r.status == 200 => acked.lock().unwrap().push(id),
                        Ok(r) => panic!("status {} for {id}", r.status),
                        // The server was killed.
                        Err(_) => break,
                    }
                }
            })
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    while acked.lock().unwrap().len() < 300 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    // SIGKILL while the clients are still posting.
    drop(server);
    stop.store(true, Ordering::Relaxed);
    for c in clients {
        c.join().unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    assert!(acked.len() >= 300, "only {} acknowledged", acked.len());

    let server = Serve::start(&dir);
    let mut c = Client::new(server.addr);
    let stats = c.get("/v1/stats").unwrap().json();
    let stored = stats["documents"].as_u64().unwrap() as usize;
    assert!(stored >= acked.len(), "{stored} < {}", acked.len());
    for id in &acked {
        let r = c.get(&format!("/v1/documents/{id}")).unwrap();
        assert_eq!(r.status, 200, "{id} lost");
    }
    // The store still takes writes after recovery.
    let r = c
        .post_json("/v1/documents", &json!({"id": "after", "text": text(7)}))
        .unwrap();
    assert_eq!(r.status, 200);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn token_from_a_file_and_a_private_store() {
    let dir = common::temp_dir("serve-token-file");
    let token_file = dir.join("token");
    std::fs::write(&token_file, "f1le-t0ken\n").unwrap();
    let data = dir.join("data");
    let serve = Serve::start_with(&data, &["--token-file", token_file.to_str().unwrap()]);
    let mut c = Client::new(serve.addr);
    assert_eq!(c.get("/v1/stats").unwrap().status, 401);
    let mut c = Client::new(serve.addr);
    c.token(Some("f1le-t0ken"));
    let stats = c.get("/v1/stats").unwrap();
    assert_eq!(stats.status, 200);
    assert_eq!(stats.json()["method"], "minhash");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(data.join(neardup_server::FILE_NAME))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "the store is private: {mode:o}");
    }
    drop(serve);
    std::fs::write(&token_file, "\n").unwrap();
    let out = common::neardup(&[
        "serve",
        "--token-file",
        token_file.to_str().unwrap(),
        "--data-dir",
        data.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no token"));
}

#[test]
fn refuses_unsafe_or_broken_start() {
    let dir = common::temp_dir("serve-refuse");
    let out = common::neardup(&[
        "serve",
        "--listen",
        "0.0.0.0:0",
        "--data-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("without a token"), "{err}");

    std::fs::write(dir.join(neardup_server::FILE_NAME), vec![7u8; 50_000]).unwrap();
    let out = common::neardup(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--data-dir",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("opening the store"), "{err}");
    // Never a silent reset: the file is as it was.
    assert_eq!(
        std::fs::read(dir.join(neardup_server::FILE_NAME)).unwrap(),
        vec![7u8; 50_000]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_stops_cleanly_and_keeps_the_data() {
    let dir = common::temp_dir("serve-term");
    let mut server = Serve::start(&dir);
    let mut c = Client::new(server.addr);
    let r = c
        .post_json("/v1/documents", &json!({"id": "kept", "text": text(11)}))
        .unwrap();
    assert_eq!(r.status, 200);
    let pid = server.child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    // Graceful: the process finishes and exits with status 0.
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = server.child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "no exit after SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    drop(server);
    // The stop wrote an index snapshot; a damaged one is reported (the
    // service would rebuild the index), not an error.
    let d = dir.to_str().unwrap();
    let verify = || {
        let out = common::neardup(&["store", "verify", "--data-dir", d, "--json"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let v = verify();
    assert!(v["snapshot"]["bytes"].as_u64().unwrap() > 0, "{v}");
    let snap = dir.join(neardup_server::SNAPSHOT_FILE);
    let mut bytes = std::fs::read(&snap).unwrap();
    let at = bytes.len() / 2;
    bytes[at] ^= 1;
    std::fs::write(&snap, &bytes).unwrap();
    let v = verify();
    assert!(
        v["snapshot"]["refused"]
            .as_str()
            .unwrap()
            .contains("damaged"),
        "{v}"
    );
    // The store was released and holds the document.
    let server = Serve::start(&dir);
    let mut c = Client::new(server.addr);
    assert_eq!(c.get("/v1/documents/kept").unwrap().status, 200);
    drop(server);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn store_commands_check_a_stopped_store() {
    let dir = common::temp_dir("serve-store-cmds");
    let data = dir.join("data");
    {
        let serve = Serve::start(&data);
        let mut c = Client::new(serve.addr);
        for i in 0..5 {
            let r = c
                .post_json(
                    "/v1/documents",
                    &json!({"id": format!("d{i}"), "text": text(i)}),
                )
                .unwrap();
            assert_eq!(r.status, 200);
        }
    }
    let d = data.to_str().unwrap();
    let out = common::neardup(&["store", "verify", "--data-dir", d, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["documents"], 5);
    assert!(v["method"].as_str().unwrap().starts_with("minhash"), "{v}");
    // Killed: no index snapshot (the index is rebuilt at start).
    assert!(v["snapshot"].is_null(), "{v}");
    let out = common::neardup(&["store", "stats", "--data-dir", d]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("5 documents"));
    let out = common::neardup(&["store", "compact", "--data-dir", d]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A file that is no store: exit status 2 and a message, no panic.
    let bad = dir.join("bad");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(
        bad.join(neardup_server::FILE_NAME),
        b"not a database at all",
    )
    .unwrap();
    let out = common::neardup(&["store", "verify", "--data-dir", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a neardup store"));
}
