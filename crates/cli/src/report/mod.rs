//! The static HTML report of a deduplication (`neardup report`): an index
//! page with the summary, the groups and the refused pairs, and one page per
//! group with its documents side by side. Everything is inline (styles, a
//! small filter script, SVG): the site opens from disk, with no server and
//! no network, and reads without JavaScript.

mod group;
mod highlight;
mod html;
mod index;
mod list;
pub mod spans;

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result};

/// A document as the report shows it.
#[derive(Debug, Clone, Default)]
pub struct Doc {
    /// The document's id.
    pub id: String,
    /// Its URL, when the input gave one.
    pub url: Option<String>,
    /// Its title.
    pub title: String,
    /// Its main text (extracted again for the report).
    pub text: String,
}

/// A duplicate of a group's kept document, with the engine's explanation.
#[derive(Debug, Clone)]
pub struct Duplicate {
    /// The document.
    pub doc: Doc,
    /// The similarity `dedup` gave.
    pub similarity: Option<f64>,
    /// The engine's verdict on the pair (kept, duplicate).
    pub verdict: String,
    /// The explanation's lines (numbers, rules).
    pub explanation: Vec<String>,
}

/// A group rendered on its own page.
#[derive(Debug, Clone)]
pub struct Group {
    /// The group's number (its page is `groups/N.html`), 1 for the largest.
    pub number: usize,
    /// The document kept.
    pub kept: Doc,
    /// Its duplicates, in input order (capped: see `hidden`).
    pub duplicates: Vec<Duplicate>,
    /// Duplicates not shown.
    pub hidden: usize,
}

/// A line of the group list of the index.
#[derive(Debug, Clone)]
pub struct GroupRow {
    /// The kept document's id.
    pub id: String,
    /// Its URL.
    pub url: Option<String>,
    /// Documents in the group.
    pub size: usize,
    /// The group's page number, when it has one.
    pub page: Option<usize>,
}

/// A pair that verification accepted and a corpus-level rule refused.
#[derive(Debug, Clone)]
pub struct RefusedPair {
    /// The earlier document in input order (id, URL).
    pub a: (String, Option<String>),
    /// The other.
    pub b: (String, Option<String>),
    /// The pages of the groups `a` and `b` are in, when they have one.
    pub pages: (Option<usize>, Option<usize>),
    /// Their exact Jaccard similarity.
    pub similarity: f64,
    /// The rule (`composite`, `partial-copy`).
    pub rule: String,
    /// Why, in words (the engine's verdict).
    pub why: String,
}

/// Everything the index page shows.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Documents in the corpus.
    pub documents: usize,
    /// Groups of two or more documents.
    pub groups: usize,
    /// Documents that duplicate a kept one.
    pub duplicates: usize,
    /// Documents that failed to read or extract.
    pub errors: usize,
    /// Documents without text.
    pub empty: usize,
    /// The method and its parameters, in words.
    pub method: String,
    /// Group size -> number of groups of that size.
    pub histogram: BTreeMap<u64, u64>,
    /// Notes on the run (disagreements with the clusters file, caps).
    pub notes: Vec<String>,
    /// The groups of two or more, largest first: all of them, listed in
    /// pages of `page_size`.
    pub rows: Vec<GroupRow>,
    /// Groups per list page.
    pub page_size: usize,
    /// Groups with a page of their own (the largest).
    pub paged: usize,
    /// The refused pairs (capped: see `refusals_hidden`).
    pub refusals: Vec<RefusedPair>,
    /// Refused pairs not listed.
    pub refusals_hidden: usize,
}

/// Writes the site into `dir` (created if needed): `index.html` with the
/// first page of the group list, `list/N.html` with the others,
/// `search.js` for the filter, and `groups/N.html`. Returns the number of
/// bytes written.
pub fn write_site(dir: &Path, summary: &Summary, groups: &[Group]) -> Result<u64> {
    let pages = dir.join("groups");
    std::fs::create_dir_all(&pages)
        .with_context(|| format!("cannot create {}", pages.display()))?;
    let mut written = 0u64;
    let mut write = |path: &Path, body: String| -> Result<()> {
        written += body.len() as u64;
        std::fs::write(path, body).with_context(|| format!("cannot write {}", path.display()))
    };
    remove_stale_pages(&pages, groups.len())?;
    let size = summary.page_size.max(1);
    let list_pages = list::page_count(summary.rows.len(), size);
    let lists = dir.join(list::LIST_DIR);
    if lists.is_dir() {
        remove_stale_pages(&lists, list_pages)?;
    }
    if list_pages > 1 {
        std::fs::create_dir_all(&lists)
            .with_context(|| format!("cannot create {}", lists.display()))?;
    }
    write(&dir.join("index.html"), index::render(summary))?;
    for (n, rows) in summary.rows.chunks(size).enumerate().skip(1) {
        let p = list::ListPage {
            number: n + 1,
            pages: list_pages,
            size,
        };
        let body = format!(
            "<p><a href=\"../index.html\">index</a></p>\n<h1>Groups, largest first: page {}</h1>\n{}",
            n + 1,
            list::section(&p, rows, summary.rows.len(), summary.paged)
        );
        write(
            &lists.join(format!("{}.html", n + 1)),
            html::page(&format!("neardup report: groups, page {}", n + 1), &body),
        )?;
    }
    write(
        &dir.join(list::SEARCH_FILE),
        list::search_index(&summary.rows, summary.paged),
    )?;
    for g in groups {
        write(
            &pages.join(format!("{}.html", g.number)),
            group::render(g, groups.len()),
        )?;
    }
    Ok(written)
}

/// Removes pages `N.html` with `N > pages` left by an earlier report into
/// the same directory (other files are left alone).
fn remove_stale_pages(dir: &Path, pages: usize) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))? {
        let path = entry?.path();
        let stale = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".html"))
            .and_then(|n| n.parse::<usize>().ok())
            .is_some_and(|n| n == 0 || n > pages);
        if stale {
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove {}", path.display()))?;
        }
    }
    Ok(())
}
