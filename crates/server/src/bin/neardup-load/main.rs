//! neardup-load: a bounded load test of the ContentSeen service on loopback.
//!
//! ```text
//! neardup-load text  [--requests N] [--clients C] [--size BYTES] [--dup-share F] [--report-every N] [--offset I]
//! neardup-load warc  --warc PAGES.warc.gz [--clients C] [--repeat R]
//! neardup-load crawl --warc PAGES.warc.gz --labels LABELS.jsonl [--clients C]
//! neardup-load index --documents N --dir DIR [--dup-share F] [--report-every N]
//! common: [--addr 127.0.0.1:PORT] [--data-dir DIR] [--max-seconds S] [--token T]
//! ```
//!
//! Without `--addr` it starts the service in-process on a fresh data
//! directory (loopback, any port). Only loopback addresses are accepted.
//! Every run stops after `--requests` documents or `--max-seconds`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use neardup::io::{Content, Inputs, Item, RawDocument};
use neardup_server::http::{Running, Server};
use neardup_server::{Config, ContentSeen};
use serde_json::{json, Value};

mod index;
mod runner;

use runner::{run_jobs, run_made, summary, Job, Maker};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

struct Opts {
    mode: String,
    args: HashMap<String, String>,
}

impl Opts {
    fn parse() -> Res<Opts> {
        let mut it = std::env::args().skip(1);
        let mode = it
            .next()
            .ok_or("usage: neardup-load text|warc|crawl [--option value]...")?;
        let mut args = HashMap::new();
        while let Some(k) = it.next() {
            let k = k
                .strip_prefix("--")
                .ok_or(format!("unexpected argument {k}"))?;
            let v = it.next().ok_or(format!("--{k} needs a value"))?;
            args.insert(k.to_string(), v);
        }
        Ok(Opts { mode, args })
    }

    fn num(&self, k: &str, default: f64) -> Res<f64> {
        match self.args.get(k) {
            Some(v) => Ok(v.parse().map_err(|_| format!("--{k}: not a number: {v}"))?),
            None => Ok(default),
        }
    }

    fn path(&self, k: &str) -> Res<PathBuf> {
        Ok(self.args.get(k).ok_or(format!("--{k} is required"))?.into())
    }
}

/// A pseudo-random text of about `size` bytes, distinct for every seed:
/// words `w0 ` to `w49999 `, a line break after every twentieth. The
/// digits are written straight into the buffer (a `format!` per word was
/// two fifths of the load tool's CPU, on the cores the service uses).
fn text(seed: u64, size: usize) -> String {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut s = Vec::with_capacity(size + 16);
    let mut words = 0;
    while s.len() < size {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut n = x % 50_000;
        let mut digits = [0u8; 5];
        let mut i = digits.len();
        loop {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        s.push(b'w');
        s.extend_from_slice(&digits[i..]);
        s.push(b' ');
        words += 1;
        if words % 20 == 0 {
            s.push(b'\n');
        }
    }
    String::from_utf8(s).expect("ASCII")
}

fn read_warc(path: &PathBuf) -> Res<Vec<RawDocument>> {
    let inputs = Inputs::new();
    let sources = inputs.sources(&[path])?;
    Ok(inputs
        .read_all(&sources)
        .filter_map(|i| match i {
            Item::Document(d) => Some(d),
            _ => None,
        })
        .collect())
}

fn html_job(d: &RawDocument, id: String) -> Job {
    match &d.content {
        Content::Html {
            bytes,
            content_type,
        } => Job {
            id,
            content_type: content_type
                .clone()
                .filter(|c| c.to_ascii_lowercase().starts_with("text/html"))
                .unwrap_or_else(|| "text/html".into()),
            body: bytes.clone(),
        },
        Content::Text(t) => Job {
            id,
            content_type: "text/plain".into(),
            body: t.clone().into_bytes(),
        },
    }
}

fn main() {
    if let Err(e) = real_main() {
        eprintln!("neardup-load: {e}");
        std::process::exit(2);
    }
}

fn real_main() -> Res<()> {
    let o = Opts::parse()?;
    if o.mode == "index" {
        // The in-RAM index alone: no server, no store.
        let n = o.num("documents", 1_000_000.0)? as usize;
        let every = (o.num("report-every", n as f64)? as usize).max(1);
        return index::run(n, o.num("dup-share", 0.3)?, &o.path("dir")?, every);
    }
    let clients = o.num("clients", 16.0)? as usize;
    let max_seconds = o.num("max-seconds", 600.0)?;
    let deadline = Instant::now() + Duration::from_secs_f64(max_seconds);
    let token = o.args.get("token").cloned();
    // The target: an external loopback server, or one started here.
    let mut running: Option<Running> = None;
    let mut seen_handle: Option<ContentSeen> = None;
    // The data directory this run made for itself, removed at the end.
    let mut own_dir: Option<PathBuf> = None;
    let addr: SocketAddr = match o.args.get("addr") {
        Some(a) => {
            let a: SocketAddr = a.parse()?;
            if !a.ip().is_loopback() {
                return Err("only loopback addresses are load-tested".into());
            }
            a
        }
        None => {
            let dir = match o.args.get("data-dir") {
                Some(d) => PathBuf::from(d),
                None => {
                    let d =
                        std::env::temp_dir().join(format!("neardup-load-{}", std::process::id()));
                    own_dir = Some(d.clone());
                    d
                }
            };
            let _ = std::fs::remove_dir_all(&dir);
            let seen = ContentSeen::open(&dir, &Config::new())?;
            let mut server = Server::new(seen.clone());
            server.token(token.clone());
            let r = server.spawn("127.0.0.1:0".parse()?)?;
            let a = r.addr();
            running = Some(r);
            seen_handle = Some(seen);
            eprintln!(
                "neardup-load: in-process server on {a}, data in {}",
                dir.display()
            );
            a
        }
    };
    let rss = || neardup_server_rss().map(|b| b / (1 << 20));
    match o.mode.as_str() {
        "text" => {
            let requests = o.num("requests", 20_000.0)? as usize;
            let size = o.num("size", 5000.0)? as usize;
            let dup_share = o.num("dup-share", 0.1)?;
            let every = (o.num("report-every", requests as f64)? as usize).max(1);
            // Documents `offset..offset + requests` (ids `doc-I`): a second
            // run continues the first.
            let offset = o.num("offset", 0.0)? as usize;
            let mut done = 0;
            while done < requests && Instant::now() < deadline {
                let n = every.min(requests - done);
                let base = offset + done;
                let make: Maker = Arc::new(move |k: usize| {
                    let i = base + k;
                    // Every (1/dup_share)-th document repeats the one before
                    // it with an edit: a near-duplicate.
                    let period = if dup_share > 0.0 {
                        (1.0 / dup_share).round() as usize
                    } else {
                        0
                    };
                    let body = if period > 0 && i > 0 && i % period == 0 {
                        let mut t = text((i - 1) as u64, size);
                        t.push_str("edited tail");
                        t
                    } else {
                        text(i as u64, size)
                    };
                    Job {
                        id: format!("doc-{i}"),
                        content_type: "text/plain".into(),
                        body: body.into_bytes(),
                    }
                });
                let mut out = run_made(addr, token.as_deref(), n, make, clients, deadline);
                done += n;
                let mut v = summary(
                    &format!("text {}..{}", offset + done - n, offset + done),
                    &mut out,
                );
                let dups = out
                    .verdicts
                    .iter()
                    .filter(|(_, v)| v["duplicate"] == json!(true))
                    .count();
                v["duplicates"] = json!(dups);
                if let Some(seen) = &seen_handle {
                    let s = seen.stats();
                    v["stored"] = json!(s.documents);
                    v["index_mib"] = json!(s.index_bytes >> 20);
                    v["commits"] = json!(s.commits);
                    v["rss_mib"] = json!(rss());
                }
                println!("{v}");
            }
        }
        "warc" => {
            let docs = read_warc(&o.path("warc")?)?;
            let repeat = o.num("repeat", 1.0)? as usize;
            let jobs: Vec<Job> = (0..repeat)
                .flat_map(|r| docs.iter().map(move |d| (r, d)))
                .map(|(r, d)| html_job(d, format!("{r}:{}", d.id)))
                .collect();
            let bytes: usize = jobs.iter().map(|j| j.body.len()).sum();
            eprintln!("neardup-load: {} pages, {} MiB", jobs.len(), bytes >> 20);
            let mut out = run_jobs(addr, token.as_deref(), jobs, clients, deadline);
            summary("warc pages", &mut out);
        }
        "crawl" => crawl(&o, addr, token.as_deref(), deadline)?,
        m => return Err(format!("unknown mode {m}").into()),
    }
    drop(seen_handle);
    if let Some(r) = running {
        r.stop()?;
    }
    if let Some(d) = own_dir {
        let _ = std::fs::remove_dir_all(d);
    }
    Ok(())
}

fn neardup_server_rss() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// The shared benchmark: originals first, then every other page from
/// `--clients` (default 8) concurrent clients; verdict shares by role.
fn crawl(o: &Opts, addr: SocketAddr, token: Option<&str>, deadline: Instant) -> Res<()> {
    let clients = o.num("clients", 8.0)? as usize;
    let labels = std::fs::read_to_string(o.path("labels")?)?;
    let mut role_of: HashMap<String, (String, String)> = HashMap::new();
    let mut original_of: HashMap<String, String> = HashMap::new();
    for line in labels.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line)?;
        let (Some(url), Some(cluster), Some(role)) =
            (v["url"].as_str(), v["cluster"].as_str(), v["role"].as_str())
        else {
            continue;
        };
        if role == "original" {
            original_of.insert(cluster.to_string(), url.to_string());
        }
        role_of.insert(url.to_string(), (cluster.to_string(), role.to_string()));
    }
    let docs = read_warc(&o.path("warc")?)?;
    let (originals, rest): (Vec<_>, Vec<_>) = docs
        .iter()
        .partition(|d| role_of.get(&d.id).is_some_and(|(_, r)| r == "original"));
    let jobs = |ds: &[&RawDocument]| {
        ds.iter()
            .map(|d| html_job(d, d.id.clone()))
            .collect::<Vec<_>>()
    };
    let mut first = run_jobs(addr, token, jobs(&originals), clients, deadline);
    summary("crawl originals", &mut first);
    let mut second = run_jobs(addr, token, jobs(&rest), clients, deadline);
    summary("crawl others", &mut second);
    // Verdict shares by role.
    let mut by_role: HashMap<String, [usize; 3]> = HashMap::new();
    for (id, v) in first.verdicts.iter().chain(&second.verdicts) {
        let Some((cluster, role)) = role_of.get(id) else {
            continue;
        };
        let e = by_role.entry(role.clone()).or_default();
        e[0] += 1;
        if v["duplicate"] == json!(true) {
            e[1] += 1;
            if original_of.get(cluster).map(String::as_str) == v["duplicate_of"].as_str() {
                e[2] += 1;
            }
        }
    }
    let mut roles: Vec<_> = by_role.into_iter().collect();
    roles.sort();
    let share = |a: usize, b: usize| (a as f64 / b.max(1) as f64 * 1000.0).round() / 1000.0;
    let (mut rp, mut rp_ok, mut neg, mut neg_dup) = (0, 0, 0, 0);
    for (role, [n, dup, of_original]) in &roles {
        println!(
            "{}",
            json!({"role": role, "pages": n, "duplicate": share(*dup, *n), "duplicate_of_original": share(*of_original, *n)})
        );
        if ["template", "edited", "reflowed", "encoding"].contains(&role.as_str()) {
            rp += n;
            rp_ok += of_original;
        }
        if ["truncated", "merged", "template-own"].contains(&role.as_str()) {
            neg += n;
            neg_dup += dup;
        }
    }
    println!(
        "{}",
        json!({
            "reprints_found_as_duplicate_of_original": share(rp_ok, rp),
            "false_duplicates_on_truncated_merged": share(neg_dup, neg),
            "reprints": rp, "negatives": neg,
        })
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The texts as they were made before (one `format!` a word): the
    /// load must stay the same requests.
    fn text_before(seed: u64, size: usize) -> String {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut s = String::with_capacity(size + 16);
        let mut words = 0;
        while s.len() < size {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s.push_str(&format!("w{} ", x % 50_000));
            words += 1;
            if words % 20 == 0 {
                s.push('\n');
            }
        }
        s
    }

    #[test]
    fn texts_are_the_same_as_before() {
        for seed in (0..2_000).chain([1_000_000, 9_999_999, u64::MAX]) {
            for size in [0, 1, 7, 2_000, 5_000] {
                assert_eq!(
                    super::text(seed, size),
                    text_before(seed, size),
                    "{seed} {size}"
                );
            }
        }
    }
}
