//! The shared store over TLS (`rediss://`, a redis-server that speaks
//! only TLS, a throwaway CA made by the `openssl` CLI) and behind
//! sentinels that require their own password or their own ACL user: the single-node verdicts,
//! and refusals that say why without showing a password.

mod common;
mod redis_server;

use common::{article, edit, temp_dir};
use neardup::io::{Content, RawDocument};
use neardup_server::redis::StoreUrl;
use neardup_server::{Config, ContentSeen, Verdict};
use redis_server::sentinel::{Sentinels, MASTER};
use redis_server::tls::{self, Certs, TlsRedis};

fn text(id: &str, t: &str) -> RawDocument {
    RawDocument {
        id: id.into(),
        url: Some(format!("https://example.com/{id}")),
        content: Content::Text(t.into()),
    }
}

/// About 120 inserts and checks: originals, light edits, copies.
fn run(seen: &ContentSeen) -> Vec<Result<Verdict, String>> {
    let mut got = Vec::new();
    for a in 0..40u64 {
        let base = article(a, 150);
        got.push(seen.insert(text(&format!("a{a}"), &base)));
        got.push(seen.insert(text(&format!("a{a}-edit"), &edit(&base, 25, 1))));
        if a % 2 == 0 {
            got.push(seen.check(text(&format!("a{a}-check"), &base)));
        }
    }
    got.into_iter()
        .map(|v| v.map_err(|e| e.to_string()))
        .collect()
}

fn read(path: std::path::PathBuf) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

#[test]
fn a_tls_store_gets_the_single_node_verdicts() {
    if !tls::available("a_tls_store_gets_the_single_node_verdicts") {
        return;
    }
    let certs = Certs::make("lib");
    let redis = TlsRedis::start("lib", &certs, Some("Lib-Secr3t"), true);
    let config = Config::new();
    let single_dir = temp_dir("redis-tls-single");
    let expected = run(&ContentSeen::open(&single_dir, &config).unwrap());
    assert!(expected
        .iter()
        .any(|v| v.as_ref().is_ok_and(Verdict::is_duplicate)));

    let mut url = StoreUrl::parse(&redis.url()).unwrap();
    url.tls_ca(read(certs.ca()))
        .unwrap()
        .tls_client(read(certs.client_cert()), read(certs.client_key()))
        .unwrap();
    let dir = temp_dir("redis-tls-a");
    let shared = ContentSeen::open_shared(&url, &dir, &config).unwrap();
    let shown = shared.shared_store().unwrap();
    assert!(shown.starts_with("rediss://default:***@"), "{shown}");
    assert_eq!(run(&shared), expected);
    drop(shared);

    // A late instance replays the log over TLS.
    let late_dir = temp_dir("redis-tls-b");
    let late = ContentSeen::open_shared(&url, &late_dir, &config).unwrap();
    assert_eq!(
        late.check(text("x", &article(3, 150)))
            .unwrap()
            .duplicate_of,
        Some("a3".into())
    );
    drop(late);

    // Another CA, and no client certificate: refused, saying why.
    let other = Certs::make("lib-other");
    let mut wrong = StoreUrl::parse(&redis.url()).unwrap();
    wrong.tls_ca(read(other.ca())).unwrap();
    let mut anonymous = StoreUrl::parse(&redis.url()).unwrap();
    anonymous.tls_ca(read(certs.ca())).unwrap();
    for (url, says) in [(&wrong, "certificate"), (&anonymous, "")] {
        let dir = temp_dir("redis-tls-refused");
        let Err(e) = ContentSeen::open_shared(url, &dir, &config) else {
            panic!("not refused");
        };
        let e = e.to_string();
        assert!(
            e.contains(says) && e.contains("rediss://default:***@"),
            "{e}"
        );
        assert!(!e.contains("Lib-Secr3t"), "{e}");
    }
    // TLS files for a store without TLS, and files that hold no PEM.
    let mut plain = StoreUrl::parse("redis://127.0.0.1:1").unwrap();
    let e = plain.tls_ca(read(certs.ca())).err().unwrap().to_string();
    assert!(e.contains("rediss://"), "{e}");
    let mut url = StoreUrl::parse(&redis.url()).unwrap();
    assert!(url.tls_ca(b"not a certificate".to_vec()).is_err());
    assert!(url
        .tls_client(read(certs.client_cert()), Vec::new())
        .is_err());
}

#[test]
fn sentinels_with_their_own_password() {
    if !redis_server::available("sentinels_with_their_own_password") {
        return;
    }
    let s = Sentinels::start_with_passwords("auth", Some("Data-pw-1"), Some("Sentinel-pw-2"));
    let with_data = s.url().replacen(
        "redis+sentinel://",
        "redis+sentinel://default:Data-pw-1@",
        1,
    );
    assert!(with_data.ends_with(&format!("/{MASTER}")));
    let config = Config::new();
    // Without the sentinels' password, or with a wrong one: refused.
    for sentinel_password in [None, Some("wrong-Sentinel-pw")] {
        let mut url = StoreUrl::parse(&with_data).unwrap();
        url.sentinel_password_if_missing(sentinel_password.map(str::to_string));
        let dir = temp_dir("redis-sentinel-auth-refused");
        let Err(e) = ContentSeen::open_shared(&url, &dir, &config) else {
            panic!("not refused");
        };
        let e = e.to_string();
        assert!(e.contains("no primary found"), "{e}");
        for secret in ["Data-pw-1", "Sentinel-pw-2", "wrong-Sentinel-pw"] {
            assert!(!e.contains(secret), "{e}");
        }
    }
    let mut url = StoreUrl::parse(&with_data).unwrap();
    url.sentinel_password_if_missing(Some("Sentinel-pw-2".into()));
    assert!(!format!("{url} {url:?}").contains("pw-"));
    keeps_the_first_and_logs_both(&s, &url, &config, "redis-sentinel-auth", 7);
}

#[test]
fn sentinels_with_an_acl_user_of_their_own() {
    if !redis_server::available("sentinels_with_an_acl_user_of_their_own") {
        return;
    }
    let s = Sentinels::start_with_acl_user("acl", "crawler", "Sentinel-pw-3");
    let config = Config::new();
    // Their default user is off: the password alone, or the user with a
    // wrong password, is refused, and no message shows a password.
    for (user, password) in [(None, "Sentinel-pw-3"), (Some("crawler"), "wrong-pw-3")] {
        let mut url = StoreUrl::parse(&s.url()).unwrap();
        url.sentinel_username_if_missing(user.map(str::to_string))
            .sentinel_password_if_missing(Some(password.to_string()));
        let dir = temp_dir("redis-sentinel-acl-refused");
        let Err(e) = ContentSeen::open_shared(&url, &dir, &config) else {
            panic!("not refused");
        };
        let e = e.to_string();
        assert!(e.contains("no primary found"), "{e}");
        assert!(!e.contains("pw-3"), "{e}");
    }
    let mut url = StoreUrl::parse(&s.url()).unwrap();
    url.sentinel_username_if_missing(Some("crawler".into()))
        .sentinel_password_if_missing(Some("Sentinel-pw-3".into()));
    assert!(!format!("{url} {url:?}").contains("pw-3"));
    keeps_the_first_and_logs_both(&s, &url, &config, "redis-sentinel-acl", 8);
}

/// An instance joined through the sentinels keeps a first article, marks
/// its copy, and both are in the log of the master the sentinels name.
fn keeps_the_first_and_logs_both(
    s: &Sentinels,
    url: &StoreUrl,
    config: &Config,
    dir: &str,
    seed: u64,
) {
    let dir = temp_dir(dir);
    let seen = ContentSeen::open_shared(url, &dir, config).unwrap();
    let base = article(seed, 150);
    assert!(!seen.insert(text("first", &base)).unwrap().is_duplicate());
    assert_eq!(
        seen.insert(text("copy", &base)).unwrap().duplicate_of,
        Some("first".into())
    );
    let master = s.master();
    assert_eq!(s.data[master].logged_ids(), ["first", "copy"]);
}
