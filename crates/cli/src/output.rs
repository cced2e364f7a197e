//! Where results go: a file given with `-o`, or standard output; buffered,
//! and a closed pipe ends the run quietly.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result};

/// Opens `path` for writing, or standard output when it is `None` or `-`.
pub fn open(path: Option<&Path>) -> Result<Box<dyn Write>> {
    match path {
        Some(p) if p != Path::new("-") => {
            let f = File::create(p).with_context(|| format!("cannot create {}", p.display()))?;
            Ok(Box::new(BufWriter::with_capacity(1 << 20, f)))
        }
        _ => Ok(Box::new(BufWriter::with_capacity(
            1 << 16,
            std::io::stdout().lock(),
        ))),
    }
}

/// Whether an error chain is a closed pipe (`neardup ... | head`).
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// An error chain as one line, each cause after a colon, leaving out a
/// cause whose message an outer one already says (library errors name
/// their source in their own message and give it as `source()` too).
pub fn error_message(err: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        let m = cause.to_string();
        if out.contains(&m) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::error_message;

    #[derive(Debug)]
    struct Wrap(std::io::Error);

    impl std::fmt::Display for Wrap {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "spill i/o: {}", self.0)
        }
    }

    impl std::error::Error for Wrap {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_cause_said_by_an_outer_message_is_said_once() {
        let e =
            anyhow::Error::new(Wrap(std::io::Error::other("disk full"))).context("writing run 3");
        assert_eq!(error_message(&e), "writing run 3: spill i/o: disk full");
        let plain = anyhow::anyhow!("bad option").context("reading options");
        assert_eq!(error_message(&plain), "reading options: bad option");
    }
}
