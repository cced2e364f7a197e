//! `neardup serve --store redis+sentinel://...` as a process over a real
//! Sentinel deployment (skipped, saying so, when redis-server is not
//! installed) whose sentinels take only their own ACL user: the user from
//! `--store-sentinel-user` and the password from
//! `--store-sentinel-password-file` find the primary; without the user
//! the start is refused, naming neither secret.

mod common;

#[path = "../../server/tests/redis_server/launcher.rs"]
mod redis_server;
/// The server tests' Sentinel deployment, which takes the launcher's items
/// from here (its `super`).
#[path = "../../server/tests/redis_server/sentinel.rs"]
mod sentinel;

use common::serve::{text, Serve};
use neardup_server::client::Client;
use redis_server::{free_port, wait_until, RedisServer};
use sentinel::Sentinels;
use serde_json::json;

const USER: &str = "crawler";
const PASSWORD: &str = "Sentinel-acl-Pw7";

#[test]
fn sentinels_with_an_acl_user_are_joined_with_the_user_and_its_password_file() {
    if !redis_server::available(
        "sentinels_with_an_acl_user_are_joined_with_the_user_and_its_password_file",
    ) {
        return;
    }
    let dir = common::temp_dir("serve-store-sentinel-acl");
    std::fs::create_dir_all(&dir).unwrap();
    let password_file = dir.join("sentinel-password");
    std::fs::write(&password_file, format!("{PASSWORD}\n")).unwrap();
    let s = Sentinels::start_with_acl_user("cli-acl", USER, PASSWORD);
    let url = s.url();
    let file = password_file.to_str().unwrap();

    // The password alone logs in as the sentinels' default user, which is
    // off: refused at start, and the message shows no password.
    let out = common::neardup(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--data-dir",
        dir.join("refused").to_str().unwrap(),
        "--store",
        &url,
        "--store-sentinel-password-file",
        file,
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no primary found"), "{err}");
    assert!(!err.contains(PASSWORD), "{err}");

    let args = [
        "--store",
        url.as_str(),
        "--store-sentinel-user",
        USER,
        "--store-sentinel-password-file",
        file,
    ];
    let a = Serve::start_with(&dir.join("a"), &args);
    let t = text(3);
    let r = Client::new(a.addr)
        .post_json("/v1/documents", &json!({"id": "first", "text": t}))
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["duplicate"], json!(false));
    let r = Client::new(a.addr)
        .post_json("/v1/documents", &json!({"id": "copy", "text": t}))
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["duplicate_of"], json!("first"));
    let master = s.master();
    assert_eq!(s.data[master].logged_ids(), ["first", "copy"]);
    drop((a, s));
    let _ = std::fs::remove_dir_all(&dir);
}
