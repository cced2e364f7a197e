//! What the substring tests share: a finder of the substring unit, and a
//! run's rows.

use neardup_spans::{Emitted, Keep, Source, SpanFinder, Unit};

/// One emitted document: index, id, error, spans (bytes, code points,
/// the id named).
pub type Row = (
    u32,
    String,
    Option<String>,
    Vec<(usize, usize, usize, usize, String)>,
);

/// A substring finder: runs of `min_tokens` (and `min_bytes`, when not
/// 0), keeping `keep`, in a budget of `memory`, documents of `long` bytes
/// and more tokenized by the run, spilling under `dir`.
pub fn substring_finder(
    min_tokens: usize,
    min_bytes: u64,
    keep: Keep,
    memory: u64,
    long: usize,
    dir: &std::path::Path,
) -> SpanFinder {
    let mut b = SpanFinder::builder()
        .unit(Unit::Substring)
        .keep(keep)
        .min_tokens(min_tokens)
        .memory(memory)
        .long_document_bytes(long)
        .spill_dir(dir);
    if min_bytes > 0 {
        b = b.min_bytes(min_bytes);
    }
    b.build().unwrap()
}

/// The rows of a run of `f` over `docs` (`None`: a document that could not
/// be read), and the document it went to disk from. Documents are analysed
/// for the run (a long one keeps no tokens: the run tokenizes it), or fully
/// with `ordinary`.
pub fn run(f: &SpanFinder, docs: &[Option<String>], ordinary: bool) -> (Vec<Row>, Option<u32>) {
    let mut rows = Vec::new();
    let mut sink = |e: &Emitted<'_>| {
        let spans = e
            .spans
            .iter()
            .map(|s| {
                assert!(matches!(s.source, Source::First(_)));
                let id = e.source_id(s).to_string();
                (s.start, s.end, s.chars.0, s.chars.1, id)
            })
            .collect();
        rows.push((
            e.index,
            e.id.to_string(),
            e.error.map(str::to_string),
            spans,
        ));
        Ok(())
    };
    let mut r = f.run().unwrap();
    for (d, text) in docs.iter().enumerate() {
        let body = match text {
            Some(t) if ordinary => Ok((t.clone(), f.analyze(t, None))),
            Some(t) => Ok((t.clone(), f.analyze_for_run(t, None))),
            None => Err(format!("document {d} could not be read")),
        };
        r.push(&format!("d{d}"), body, &mut sink).unwrap();
    }
    let stats = r.finish(&mut sink).unwrap();
    (rows, stats.partitioned_from)
}
