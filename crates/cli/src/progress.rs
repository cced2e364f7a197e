//! Progress lines on standard error, drawn only when standard error is a
//! terminal: while the input is read (documents, documents/s, share of the
//! input read, time left), then while the batch engine decides (its step,
//! and for a counted step its share done and time left).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use neardup::io::ReadCounter;
use neardup::{RunProgress, RunStep};

/// A thread redrawing one line on standard error every 200 ms, when
/// enabled and standard error is a terminal; [`Drawing::finish`] stops it
/// and clears the line.
struct Drawing {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Drawing {
    /// Starts redrawing what `line` gives (nothing while it gives `None`).
    fn start(enabled: bool, mut line: impl FnMut() -> Option<String> + Send + 'static) -> Drawing {
        let stop = Arc::new(AtomicBool::new(false));
        let handle = (enabled && std::io::stderr().is_terminal()).then(|| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(200));
                    let Some(line) = line() else { continue };
                    let mut err = std::io::stderr().lock();
                    let _ = write!(err, "\r\x1b[2K{line}");
                    let _ = err.flush();
                }
            })
        });
        Drawing { stop, handle }
    }

    /// Stops drawing and clears the line.
    fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
            eprint!("\r\x1b[2K");
        }
    }
}

impl Drop for Drawing {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// A running progress line; [`Progress::finish`] clears it.
pub struct Progress {
    docs: Arc<AtomicU64>,
    drawing: Drawing,
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
        let counted = docs.clone();
        let start = Instant::now();
        let drawing = Drawing::start(enabled, move || {
            let done = counted.load(Ordering::Relaxed);
            Some(render(
                label,
                total_bytes,
                read.get(),
                done,
                start.elapsed(),
            ))
        });
        Progress { docs, drawing }
    }

    /// Counts `n` more documents done.
    pub fn add(&self, n: u64) {
        self.docs.fetch_add(n, Ordering::Relaxed);
    }

    /// Stops drawing and clears the line.
    pub fn finish(self) {
        self.drawing.finish();
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

/// A running line of the batch engine's steps; [`StepProgress::finish`]
/// clears it.
pub struct StepProgress {
    drawing: Drawing,
}

impl StepProgress {
    /// Starts drawing `run`'s steps when `enabled` and standard error is a
    /// terminal.
    pub fn start(label: &'static str, run: Arc<RunProgress>, enabled: bool) -> StepProgress {
        let (mut step, mut since) = (None, Instant::now());
        let drawing = Drawing::start(enabled, move || {
            let now = run.step();
            if now != step {
                (step, since) = (now, Instant::now());
            }
            let (done, total) = run.counts();
            Some(render_step(label, step?, done, total, since.elapsed()))
        });
        StepProgress { drawing }
    }

    /// Stops drawing and clears the line.
    pub fn finish(self) {
        self.drawing.finish();
    }
}

/// One line of a step: its name, and for a counted step the share done,
/// the counts and the time left at the step's pace so far.
pub fn render_step(label: &str, step: RunStep, done: u64, total: u64, elapsed: Duration) -> String {
    let secs = elapsed.as_secs();
    let clock = |s: u64| format!("{}:{:02}", s / 60, s % 60);
    if total == 0 {
        return format!("{label}: {} ({})", step.describe(), clock(secs));
    }
    let frac = (done as f64 / total as f64).min(1.0);
    let eta = if frac > 0.0 && frac < 1.0 {
        let left = elapsed.as_secs_f64() * (1.0 - frac) / frac;
        format!(" ETA {}", clock(left as u64))
    } else {
        String::new()
    };
    format!(
        "{label}: {} {:>3.0}% {done}/{total} ({}){eta}",
        step.describe(),
        frac * 100.0,
        clock(secs)
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

    #[test]
    fn renders_a_step_with_its_share_and_time_left() {
        let line = render_step(
            "dedup",
            RunStep::Verifying,
            250,
            1000,
            Duration::from_secs(30),
        );
        assert_eq!(line, "dedup: verifying pairs  25% 250/1000 (0:30) ETA 1:30");
        let uncounted = render_step("dedup", RunStep::Grouping, 0, 0, Duration::from_secs(75));
        assert_eq!(uncounted, "dedup: grouping (1:15)");
        let done = render_step("dedup", RunStep::Keys, 10, 10, Duration::from_secs(1));
        assert!(!done.contains("ETA") && done.contains("100%"), "{done}");
    }
}
