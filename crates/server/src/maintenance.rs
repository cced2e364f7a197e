//! Offline maintenance of a store (`neardup store stats|verify|compact`):
//! with the service stopped, look at what a store holds, check every
//! record, or give the space of deleted documents back.

use std::path::Path;

use neardup::sketch::Signature;

use crate::error::{Error, ErrorKind};
use crate::record::Record;
use crate::store::Store;

/// What a store holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreReport {
    /// The store file's format version.
    pub format: u32,
    /// The engine the store was made with (see
    /// `neardup::dedup::engine_description`).
    pub method: String,
    /// Stored documents.
    pub documents: u64,
    /// Of which duplicates (linked to an original).
    pub duplicates: u64,
    /// Of which without text (no signature).
    pub empty: u64,
    /// Bytes of stored main texts (originals keep theirs).
    pub text_bytes: u64,
    /// The file's size in bytes.
    pub file_bytes: u64,
    /// The index snapshot: its size, or why it would not be used (`None`:
    /// there is none). A snapshot is a cache: without a usable one the
    /// service rebuilds the index from the store.
    pub snapshot: Option<Result<u64, String>>,
    /// Postings segment files (the composite check's), whole.
    pub postings_segments: usize,
    /// Damaged postings segment files (a snapshot naming one is refused).
    pub postings_damaged: Vec<String>,
    /// Bytes of postings segment files.
    pub postings_bytes: u64,
}

impl StoreReport {
    /// The report of `store` before anything is counted.
    fn empty(store: &Store, format: u32, method: String) -> StoreReport {
        StoreReport {
            format,
            method,
            documents: 0,
            duplicates: 0,
            empty: 0,
            text_bytes: 0,
            file_bytes: std::fs::metadata(store.path()).map_or(0, |m| m.len()),
            snapshot: None,
            postings_segments: 0,
            postings_damaged: Vec::new(),
            postings_bytes: 0,
        }
    }
}

/// The index snapshot and the postings segments of `dir`, checked whole.
fn side_files(dir: &Path, report: &mut StoreReport) {
    let path = dir.join(crate::recover::SNAPSHOT_FILE);
    report.snapshot = std::fs::File::open(&path).ok().map(|f| {
        neardup::dedup::check_snapshot(&mut std::io::BufReader::new(f)).map_err(|e| e.to_string())
    });
    let (sound, damaged, bytes) = crate::postings::verify_dir(&dir.join(crate::POSTINGS_DIR));
    report.postings_segments = sound;
    report.postings_damaged = damaged;
    report.postings_bytes = bytes;
}

/// What a store holds, from its metadata alone (fast at any size):
/// format, method, documents and file size (the per-kind counts are 0;
/// [`verify`] reads them).
pub fn stats(dir: &Path) -> Result<StoreReport, Error> {
    let (store, format, method) = Store::open_existing(dir)?;
    Ok(StoreReport {
        documents: store.count()?,
        ..StoreReport::empty(&store, format, method)
    })
}

/// Reads every record of the store in `dir` and checks it: the order
/// table and the documents agree, every record and every signature
/// decodes, and every duplicate names an id. The first problem is the
/// error; a healthy store gives its report.
pub fn verify(dir: &Path) -> Result<StoreReport, Error> {
    let (store, format, method) = Store::open_existing(dir)?;
    let mut report = StoreReport::empty(&store, format, method);
    side_files(dir, &mut report);
    store.load_from(0, |id, r: Record| {
        report.documents += 1;
        match &r.signature {
            Some(b) => {
                Signature::from_bytes(b)
                    .map_err(|e| Error::corrupt(format!("signature of {id:?}: {e}")))?;
            }
            // Kept by its band keys instead of its signature.
            None if r.has_text() => {}
            None => report.empty += 1,
        }
        if let Some((of, similarity)) = &r.duplicate_of {
            if of.is_empty() || !(0.0..=1.0).contains(similarity) {
                return Err(Error::corrupt(format!("duplicate link of {id:?}")));
            }
            report.duplicates += 1;
        }
        report.text_bytes += r.text.as_ref().map_or(0, |t| t.len() as u64);
        Ok(())
    })?;
    let counted = store.count()?;
    if counted != report.documents {
        return Err(Error::corrupt(format!(
            "{counted} documents but {} in the order table",
            report.documents
        )));
    }
    Ok(report)
}

/// Compacts the store in `dir`; its size before and after, in bytes.
pub fn compact(dir: &Path) -> Result<(u64, u64), Error> {
    let (store, _, _) = Store::open_existing(dir)?;
    let path = store.path().to_path_buf();
    let size = || {
        std::fs::metadata(&path)
            .map(|m| m.len())
            .map_err(|e| Error::with_source(ErrorKind::Io(format!("{}: {e}", path.display())), e))
    };
    let before = size()?;
    store.compact()?;
    Ok((before, size()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Config, ContentSeen};
    use neardup::io::{Content, RawDocument};
    use neardup_testkit::TempDir;

    fn text(id: &str, t: String) -> RawDocument {
        RawDocument {
            id: id.into(),
            url: None,
            content: Content::Text(t),
        }
    }

    #[test]
    fn verify_counts_and_compact_shrinks() {
        let dir = TempDir::new("maintenance");
        {
            let seen = ContentSeen::open(&dir, &Config::new()).unwrap();
            let body = |i: usize| {
                (0..300)
                    .map(|w| format!("w{}x{i} ", w * 7 + i))
                    .collect::<String>()
            };
            for i in 0..40 {
                seen.insert(text(&format!("d{i}"), body(i))).unwrap();
            }
            seen.insert(text("copy", body(3))).unwrap();
            seen.insert(text("empty", " ".into())).unwrap();
            for i in 0..30 {
                seen.delete(&format!("d{i}")).unwrap();
            }
        }
        assert_eq!(stats(&dir).unwrap().documents, 12);
        let r = verify(&dir).unwrap();
        assert_eq!((r.documents, r.duplicates, r.empty), (12, 1, 1));
        assert!(r.method.starts_with("default+exact"), "{}", r.method);
        let (before, after) = compact(&dir).unwrap();
        assert!(after <= before, "{before} -> {after}");
        assert_eq!(verify(&dir).unwrap().documents, 12);
        let missing = verify(&dir.join("nope")).unwrap_err();
        assert!(missing.to_string().contains("no store here"), "{missing}");
    }
}
