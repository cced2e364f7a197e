//! Helpers shared by the integration tests.
#![allow(dead_code)]

use neardup_server::client::{Client, Response};
use neardup_server::http::{Running, Server};
use neardup_server::{Config, ContentSeen};
use serde_json::json;

pub use neardup_testkit::TempDir;

/// A fresh temporary directory for one test, removed when dropped.
pub fn temp_dir(name: &str) -> TempDir {
    TempDir::new(&format!("server-{name}"))
}

const WORDS: [&str; 64] = [
    "council",
    "river",
    "budget",
    "station",
    "festival",
    "harbour",
    "school",
    "library",
    "market",
    "bridge",
    "museum",
    "garden",
    "theatre",
    "hospital",
    "police",
    "weather",
    "storm",
    "election",
    "minister",
    "village",
    "summer",
    "winter",
    "concert",
    "football",
    "report",
    "science",
    "energy",
    "housing",
    "transport",
    "tourism",
    "farmers",
    "water",
    "approved",
    "rejected",
    "opened",
    "closed",
    "visited",
    "planned",
    "built",
    "moved",
    "quickly",
    "slowly",
    "today",
    "yesterday",
    "again",
    "finally",
    "early",
    "late",
    "north",
    "south",
    "east",
    "west",
    "old",
    "new",
    "small",
    "large",
    "red",
    "green",
    "blue",
    "quiet",
    "busy",
    "local",
    "famous",
    "public",
];

/// A deterministic article of `n` words, different for every `seed`.
pub fn article(seed: u64, n: usize) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = String::new();
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if i > 0 {
            out.push(if i % 12 == 0 { '\n' } else { ' ' });
        }
        out.push_str(WORDS[(x % 64) as usize]);
    }
    out
}

/// `text` with every `every`-th word replaced.
pub fn edit(text: &str, every: usize, tag: usize) -> String {
    text.split(' ')
        .enumerate()
        .map(|(i, w)| {
            if i % every == every / 2 {
                format!("edit{tag}x{i}")
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A server on a loopback port over a store in `dir`.
pub fn start(dir: &std::path::Path, setup: impl FnOnce(&mut Server)) -> Running {
    start_with(dir, &Config::new(), setup)
}

/// As [`start`], with a store configuration.
pub fn start_with(
    dir: &std::path::Path,
    config: &Config,
    setup: impl FnOnce(&mut Server),
) -> Running {
    let seen = ContentSeen::open(dir, config).unwrap();
    let mut server = Server::new(seen);
    setup(&mut server);
    server.spawn("127.0.0.1:0".parse().unwrap()).unwrap()
}

/// Posts `{"id", "text"}` to `path`.
pub fn post_text(c: &mut Client, path: &str, id: &str, text: &str) -> Response {
    c.post_json(path, &json!({"id": id, "text": text})).unwrap()
}

/// The error code of an error response.
pub fn error_code(r: &Response) -> String {
    r.json()["error"]["code"].as_str().unwrap_or("").to_string()
}
