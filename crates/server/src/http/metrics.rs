//! Prometheus counters and latency histograms, written by hand: request
//! counts by route and status, latency by route, the index size and the
//! process's resident memory.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::time::Duration;

use crate::answers::Stats;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

#[derive(Debug, Default, Clone)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

#[derive(Debug, Default)]
struct Inner {
    requests: BTreeMap<(&'static str, &'static str, u16), u64>,
    latency: BTreeMap<(&'static str, &'static str), Histogram>,
}

/// The service's request metrics.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    inner: Mutex<Inner>,
}

impl Metrics {
    /// Counts one request.
    pub fn observe(&self, method: &'static str, route: &'static str, status: u16, took: Duration) {
        let mut m = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        *m.requests.entry((method, route, status)).or_insert(0) += 1;
        let h = m.latency.entry((method, route)).or_default();
        let s = took.as_secs_f64();
        for (c, &b) in h.counts.iter_mut().zip(&BUCKETS) {
            if s <= b {
                *c += 1;
            }
        }
        h.count += 1;
        h.sum += s;
    }

    /// The Prometheus text exposition.
    pub fn render(&self, stats: &Stats, healthy: bool) -> String {
        let m = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = String::new();
        out.push_str(
            "# HELP neardup_http_requests_total HTTP requests by method, route and status.\n",
        );
        out.push_str("# TYPE neardup_http_requests_total counter\n");
        for ((method, route, status), n) in &m.requests {
            let _ = writeln!(
                out,
                "neardup_http_requests_total{{method=\"{method}\",route=\"{route}\",status=\"{status}\"}} {n}"
            );
        }
        out.push_str(
            "# HELP neardup_http_request_duration_seconds Request latency by method and route.\n",
        );
        out.push_str("# TYPE neardup_http_request_duration_seconds histogram\n");
        for ((method, route), h) in &m.latency {
            let labels = format!("method=\"{method}\",route=\"{route}\"");
            for (c, b) in h.counts.iter().zip(&BUCKETS) {
                let _ = writeln!(
                    out,
                    "neardup_http_request_duration_seconds_bucket{{{labels},le=\"{b}\"}} {c}"
                );
            }
            let _ = writeln!(
                out,
                "neardup_http_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {}",
                h.count
            );
            let _ = writeln!(
                out,
                "neardup_http_request_duration_seconds_sum{{{labels}}} {}",
                h.sum
            );
            let _ = writeln!(
                out,
                "neardup_http_request_duration_seconds_count{{{labels}}} {}",
                h.count
            );
        }
        drop(m);
        let gauges = [
            (
                "neardup_documents",
                "Stored documents.",
                stats.documents as u64,
            ),
            (
                "neardup_originals",
                "Stored originals.",
                stats.originals as u64,
            ),
            (
                "neardup_duplicates",
                "Stored duplicates.",
                stats.duplicates as u64,
            ),
            (
                "neardup_index_bytes",
                "Approximate heap bytes of the in-memory index.",
                stats.index_bytes as u64,
            ),
            (
                "neardup_healthy",
                "1 while the store accepts writes.",
                u64::from(healthy),
            ),
        ];
        for (name, help, v) in gauges {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {v}");
        }
        let counters = [
            (
                "neardup_commits_total",
                "Store transactions committed.",
                stats.commits,
            ),
            (
                "neardup_committed_operations_total",
                "Operations in those transactions.",
                stats.committed_ops,
            ),
            (
                "neardup_evicted_total",
                "Documents evicted by the document or age limit.",
                stats.evicted,
            ),
        ];
        for (name, help, v) in counters {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {v}"
            );
        }
        if let Some(rss) = resident_bytes() {
            let _ = writeln!(
                out,
                "# HELP process_resident_memory_bytes Resident memory size in bytes.\n# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes {rss}"
            );
        }
        out
    }
}

/// The process's resident set size (Linux), from `/proc/self/statm`.
pub(crate) fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_buckets_are_cumulative() {
        let m = Metrics::default();
        m.observe("POST", "/v1/check", 200, Duration::from_micros(1500));
        m.observe("POST", "/v1/check", 400, Duration::from_millis(30));
        let stats = Stats {
            documents: 3,
            originals: 2,
            duplicates: 1,
            empty: 0,
            index_bytes: 10,
            commits: 1,
            committed_ops: 3,
            evicted: 0,
            method: "minhash",
        };
        let text = m.render(&stats, true);
        assert!(text.contains(
            "neardup_http_requests_total{method=\"POST\",route=\"/v1/check\",status=\"400\"} 1"
        ));
        assert!(text.contains("route=\"/v1/check\",le=\"0.001\"} 0"));
        assert!(text.contains("route=\"/v1/check\",le=\"0.002\"} 1"));
        assert!(text.contains("route=\"/v1/check\",le=\"0.05\"} 2"));
        assert!(text.contains("neardup_documents 3"));
    }
}
