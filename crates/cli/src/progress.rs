//! A progress line on standard error (documents, documents/s, share of the
//! input read, time left), drawn only when standard error is a terminal.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use neardup::io::ReadCounter;

/// A running progress line; [`Progress::finish`] clears it.
pub struct Progress {
    docs: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Progress {
    /// Starts drawing when `enabled` and standard error is a terminal;
    /// otherwise only counts.
    pub fn start(
        label: &'static str,
        total_bytes: u64,
        read: ReadCounter,
        enabled: bool,
    ) -> Progress {
        let docs = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let handle = (enabled && std::io::stderr().is_terminal()).then(|| {
            let (docs, stop) = (docs.clone(), stop.clone());
            std::thread::spawn(move || draw_loop(label, total_bytes, &read, &docs, &stop))
        });
        Progress { docs, stop, handle }
    }

    /// Counts `n` more documents done.
    pub fn add(&self, n: u64) {
        self.docs.fetch_add(n, Ordering::Relaxed);
    }

    /// Stops drawing and clears the line.
    pub fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
            eprint!("\r\x1b[2K");
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn draw_loop(label: &str, total: u64, read: &ReadCounter, docs: &AtomicU64, stop: &AtomicBool) {
    let start = Instant::now();
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(200));
        let line = render(
            label,
            total,
            read.get(),
            docs.load(Ordering::Relaxed),
            start.elapsed(),
        );
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[2K{line}");
        let _ = err.flush();
    }
}

/// One progress line.
pub fn render(label: &str, total: u64, read: u64, docs: u64, elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64().max(1e-3);
    let frac = if total > 0 {
        (read as f64 / total as f64).min(1.0)
    } else {
        0.0
    };
    let width = 24;
    let filled = (frac * width as f64).round() as usize;
    let bar: String = "=".repeat(filled) + &" ".repeat(width - filled);
    let eta = if frac > 0.0 && frac < 1.0 {
        let left = secs * (1.0 - frac) / frac;
        format!(" ETA {}:{:02}", (left / 60.0) as u64, (left % 60.0) as u64)
    } else {
        String::new()
    };
    format!(
        "{label} [{bar}] {:>3.0}% {docs} docs {:.0} docs/s{eta}",
        frac * 100.0,
        docs as f64 / secs
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_rate_share_and_eta() {
        let line = render("dedup", 1000, 250, 500, Duration::from_secs(10));
        assert!(line.contains(" 25%"), "{line}");
        assert!(line.contains("500 docs 50 docs/s"), "{line}");
        assert!(line.contains("ETA 0:30"), "{line}");
        let done = render("dedup", 1000, 1000, 10, Duration::from_secs(1));
        assert!(!done.contains("ETA") && done.contains("100%"), "{done}");
        assert!(render("x", 0, 5, 0, Duration::ZERO).contains("0%"));
    }
}
