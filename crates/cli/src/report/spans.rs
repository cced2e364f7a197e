//! The static HTML report of `neardup spans --report-html DIR`: an index
//! with the counts, the most repeated passages and the leaked reference
//! items, and one page per document with spans (the first `--report-docs`
//! of them) showing its text with every repeated passage marked and the
//! document it repeats. Pages are written as the run gives documents, so
//! the report holds no text in memory; everything is inline and opens
//! from disk.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use neardup::spans::{Emitted, SpanFinder, Stats};

use super::html::{escape, page};

/// What the index lists of a document with its own page.
struct Listed {
    id: String,
    file: String,
    spans: usize,
    span_chars: usize,
    chars: usize,
}

/// The report being written.
pub struct SpanSite {
    dir: PathBuf,
    max_docs: usize,
    listed: Vec<Listed>,
    with_spans: u64,
}

impl SpanSite {
    /// Creates `dir` and `dir/doc`.
    pub fn create(dir: &Path, max_docs: usize) -> Result<SpanSite> {
        std::fs::create_dir_all(dir.join("doc"))
            .with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(SpanSite {
            dir: dir.to_path_buf(),
            max_docs,
            listed: Vec::new(),
            with_spans: 0,
        })
    }

    /// Writes the page of a document with spans (up to the limit).
    pub fn document(&mut self, e: &Emitted<'_>) -> Result<()> {
        if e.spans.is_empty() || e.error.is_some() {
            return Ok(());
        }
        self.with_spans += 1;
        if self.listed.len() >= self.max_docs {
            return Ok(());
        }
        let file = format!("doc/{}.html", self.listed.len() + 1);
        let mut body = String::new();
        let _ = write!(
            body,
            "<p><a href=\"../index.html\">neardup spans report</a></p>\n<h1>{}</h1>\n\
             <p>Repeated passages: {}, marked; hover one for the document (or reference item) it repeats.</p>\n\
             <div class=\"text\" id=\"text\">",
            escape(e.id),
            e.spans.len()
        );
        let mut pos = 0;
        let mut span_chars = 0;
        for s in e.spans {
            body.push_str(&escape(&e.text[pos..s.start]));
            let source = e.source_id(s);
            let what = if s.kind.name() == "reference" {
                format!("leaked from reference item {source}")
            } else {
                format!("{} first seen in {source}", s.kind.name())
            };
            let _ = write!(
                body,
                "<mark class=\"span {}\" title=\"{}\" data-source=\"{}\">{}</mark>",
                s.kind.name(),
                escape(&what),
                escape(source),
                escape(&e.text[s.start..s.end])
            );
            span_chars += s.chars.1 - s.chars.0;
            pos = s.end;
        }
        body.push_str(&escape(&e.text[pos..]));
        body.push_str(
            "</div>\n<h2>Spans</h2>\n<table id=\"spans\" class=\"list\">\
             <colgroup><col class=\"c-rule\"><col class=\"c-size\"><col></colgroup>\
             <thead><tr><th>kind</th><th>characters</th><th>first seen in, or reference item</th>\
             </tr></thead><tbody>\n",
        );
        for s in e.spans {
            let _ = writeln!(
                body,
                "<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
                s.kind.name(),
                s.chars.1 - s.chars.0,
                escape(e.source_id(s))
            );
        }
        body.push_str("</tbody></table>\n");
        let path = self.dir.join(&file);
        std::fs::write(&path, page(&format!("spans of {}", e.id), &body))
            .with_context(|| format!("cannot write {}", path.display()))?;
        self.listed.push(Listed {
            id: e.id.to_string(),
            file,
            spans: e.spans.len(),
            span_chars,
            chars: e.chars,
        });
        Ok(())
    }

    /// Writes `index.html`.
    pub fn finish(self, finder: &SpanFinder, stats: &Stats, top: usize) -> Result<()> {
        let mut b = String::new();
        let share = 100.0 * stats.span_chars_total() as f64 / stats.chars.max(1) as f64;
        let _ = write!(
            b,
            "<h1>neardup spans report</h1>\n<table id=\"summary\"><tbody>\n\
             <tr><th>documents</th><td class=\"num\">{}</td></tr>\n\
             <tr><th>documents with spans</th><td class=\"num\">{}</td></tr>\n\
             <tr><th>characters in spans</th><td class=\"num\">{} of {} ({share:.1}%)</td></tr>\n\
             <tr><th>errors</th><td class=\"num\">{}</td></tr>\n\
             <tr><th>unit, keep</th><td>{}{}, keep {}</td></tr>\n</tbody></table>\n",
            stats.documents,
            stats.documents_with_spans,
            stats.span_chars_total(),
            stats.chars,
            stats.errors,
            finder.unit().name(),
            if finder.fuzzy() { " (fuzzy)" } else { "" },
            finder.keep().name(),
        );
        b.push_str(
            "<h2>Most repeated passages</h2>\n<table id=\"repeated\" class=\"list\">\
             <colgroup><col class=\"c-size\"><col class=\"c-rule\"><col></colgroup>\
             <thead><tr><th>copies</th><th>kind</th><th>passage</th></tr></thead><tbody>\n",
        );
        for r in stats.most_repeated(top) {
            let _ = writeln!(
                b,
                "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
                r.copies,
                r.kind.name(),
                escape(&r.text)
            );
        }
        b.push_str("</tbody></table>\n");
        b.push_str(
            "<h2>Longest spans</h2>\n<table id=\"longest\" class=\"list\">\
             <colgroup><col class=\"c-size\"><col><col class=\"c-rule\"><col></colgroup>\
             <thead><tr><th>characters</th><th>document</th><th>kind</th><th>passage</th></tr>\
             </thead><tbody>\n",
        );
        for r in stats.longest(top) {
            let _ = writeln!(
                b,
                "<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                r.chars,
                escape(&r.id),
                r.kind.name(),
                escape(&r.text)
            );
        }
        b.push_str("</tbody></table>\n");
        if let Some(refs) = finder.reference() {
            b.push_str(
                "<h2>Leaked reference items</h2>\n<table id=\"leaked\" class=\"list\">\
                 <colgroup><col><col class=\"c-size\"></colgroup>\
                 <thead><tr><th>item</th><th>documents</th></tr></thead><tbody>\n",
            );
            let mut v: Vec<(&u32, &u64)> = stats.leaked.iter().collect();
            v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            for (r, n) in v {
                let _ = writeln!(
                    b,
                    "<tr><td>{}</td><td class=\"num\">{n}</td></tr>",
                    escape(refs.id(*r))
                );
            }
            b.push_str("</tbody></table>\n");
        }
        let _ = write!(
            b,
            "<h2>Documents with spans</h2>\n<p>{} documents have spans{}.</p>\n\
             <table id=\"documents\" class=\"list\">\
             <colgroup><col><col class=\"c-size\"><col class=\"c-size\"><col class=\"c-sim\"></colgroup>\
             <thead><tr><th>document</th><th>spans</th><th>characters in spans</th><th>share</th></tr>\
             </thead><tbody>\n",
            self.with_spans,
            if self.with_spans as usize > self.listed.len() {
                format!("; the first {} have a page", self.listed.len())
            } else {
                String::new()
            }
        );
        for l in &self.listed {
            let _ = writeln!(
                b,
                "<tr><td><a href=\"{}\">{}</a></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.0}%</td></tr>",
                escape(&l.file),
                escape(&l.id),
                l.spans,
                l.span_chars,
                100.0 * l.span_chars as f64 / l.chars.max(1) as f64
            );
        }
        b.push_str("</tbody></table>\n");
        let path = self.dir.join("index.html");
        std::fs::write(&path, page("neardup spans report", &b))
            .with_context(|| format!("cannot write {}", path.display()))
    }
}
