//! Sending jobs to the service from client threads, and summarizing the
//! latencies and verdicts of a phase.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use neardup_server::client::Client;
use serde_json::{json, Value};

/// One request to send: path, content type, body; plus a label to group
/// the answers by.
#[derive(Clone)]
pub struct Job {
    pub id: String,
    pub content_type: String,
    pub body: Vec<u8>,
}

/// Latencies and verdicts of one phase.
pub struct Outcome {
    pub latencies: Vec<Duration>,
    pub verdicts: Vec<(String, Value)>,
    pub errors: usize,
    pub elapsed: Duration,
}

pub fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

pub fn summary(name: &str, o: &mut Outcome) -> Value {
    o.latencies.sort_unstable();
    let n = o.latencies.len();
    let rps = n as f64 / o.elapsed.as_secs_f64().max(1e-9);
    let v = json!({
        "phase": name,
        "requests": n,
        "errors": o.errors,
        "seconds": (o.elapsed.as_secs_f64() * 100.0).round() / 100.0,
        "requests_per_second": rps.round(),
        "p50_ms": (percentile(&o.latencies, 0.5) * 100.0).round() / 100.0,
        "p99_ms": (percentile(&o.latencies, 0.99) * 100.0).round() / 100.0,
        "max_ms": (percentile(&o.latencies, 1.0) * 100.0).round() / 100.0,
    });
    println!("{v}");
    v
}

/// Posts `jobs` to `/v1/documents` from `clients` threads, until done or
/// `deadline`.
pub fn run_jobs(
    addr: SocketAddr,
    token: Option<&str>,
    jobs: Vec<Job>,
    clients: usize,
    deadline: Instant,
) -> Outcome {
    let n = jobs.len();
    let jobs = Arc::new(jobs);
    run_made(
        addr,
        token,
        n,
        Arc::new(move |i: usize| jobs[i].clone()),
        clients,
        deadline,
    )
}

/// Makes a request body when it is sent.
pub type Maker = Arc<dyn Fn(usize) -> Job + Send + Sync>;

/// Sends requests `0..n`, each made by `make` in the client thread (so
/// bodies are not all held in memory), from `clients` threads, until done
/// or `deadline`.
pub fn run_made(
    addr: SocketAddr,
    token: Option<&str>,
    n: usize,
    make: Maker,
    clients: usize,
    deadline: Instant,
) -> Outcome {
    let jobs = make;
    let next = Arc::new(AtomicUsize::new(0));
    let out = Arc::new(Mutex::new(Outcome {
        latencies: Vec::new(),
        verdicts: Vec::new(),
        errors: 0,
        elapsed: Duration::ZERO,
    }));
    let start = Instant::now();
    let threads: Vec<_> = (0..clients.max(1))
        .map(|_| {
            let (jobs, next, out) = (jobs.clone(), next.clone(), out.clone());
            let token = token.map(str::to_string);
            std::thread::spawn(move || {
                let mut c = Client::new(addr);
                c.token(token.as_deref());
                let mut local = Vec::new();
                let mut verdicts = Vec::new();
                let mut errors = 0;
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n || Instant::now() > deadline {
                        break;
                    }
                    let j = jobs(i);
                    let path = format!("/v1/documents?id={}", encode(&j.id));
                    let t = Instant::now();
                    let r = c.request("POST", &path, &[("content-type", &j.content_type)], &j.body);
                    local.push(t.elapsed());
                    match r {
                        Ok(r) if r.status == 200 => verdicts.push((j.id.clone(), r.json())),
                        _ => errors += 1,
                    }
                }
                let mut o = out.lock().unwrap_or_else(|p| p.into_inner());
                o.latencies.extend(local);
                o.verdicts.extend(verdicts);
                o.errors += errors;
            })
        })
        .collect();
    for t in threads {
        let _ = t.join();
    }
    let mut o = std::mem::replace(
        &mut *out.lock().unwrap_or_else(|p| p.into_inner()),
        Outcome {
            latencies: Vec::new(),
            verdicts: Vec::new(),
            errors: 0,
            elapsed: Duration::ZERO,
        },
    );
    o.elapsed = start.elapsed();
    o
}

/// `s` percent-encoded for a query string.
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
