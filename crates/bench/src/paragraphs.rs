//! Real paragraphs for `neardup-bench realtext`: the main texts of the
//! ground truth of the shared extraction datasets
//! (`../shared/eval/extraction/*/ground-truth.json`), cut into pieces of a
//! few sentences and sorted into two pools: spaced scripts and CJK.
//!
//! The data is read at run time and never copied into the repository; when
//! it is absent the generator says where it looked and how to point it
//! elsewhere.

use std::path::Path;

use anyhow::{bail, Context, Result};
use neardup::text::is_cjk;

/// Pieces are cut after a sentence end once they hold this many bytes...
const PIECE_MIN: usize = 150;
/// ...and anywhere (at a character boundary) once they hold this many.
const PIECE_MAX: usize = 500;
/// Lines shorter than this (bytes) are dropped: captions, bylines, menus.
const LINE_MIN: usize = 40;

/// Paragraph pieces of real text, by script.
#[derive(Debug, Default, Clone)]
pub struct Pools {
    /// Pieces of space-delimited text (mostly English; curly quotes,
    /// dashes and accented letters as written).
    pub spaced: Vec<String>,
    /// Pieces of which at least a third of the characters are CJK.
    pub cjk: Vec<String>,
}

impl Pools {
    /// Reads every `DIR/*/ground-truth.json` (`{ID: {"articleBody": text}}`)
    /// in name order.
    ///
    /// # Errors
    /// When `dir` is missing or holds no ground truth with text, or a file
    /// cannot be read or parsed.
    pub fn load(dir: &Path) -> Result<Pools> {
        let entries = std::fs::read_dir(dir).with_context(|| {
            format!(
                "realtext builds its documents from real paragraphs: the ground truth of the \
                 shared evaluation data, DIR/*/ground-truth.json; cannot read {} (pass \
                 --eval DIR, e.g. ../shared/eval/extraction)",
                dir.display()
            )
        })?;
        let mut files: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path().join("ground-truth.json")))
            .filter(|p| p.is_file())
            .collect();
        files.sort();
        let mut pools = Pools::default();
        for file in &files {
            let raw = std::fs::read_to_string(file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let truth: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&raw)
                .with_context(|| format!("{} is not a JSON object", file.display()))?;
            for page in truth.values() {
                if let Some(body) = page["articleBody"].as_str() {
                    pools.add_article(body);
                }
            }
        }
        if pools.spaced.is_empty() || pools.cjk.is_empty() {
            bail!(
                "{} holds no ground truth with both spaced and CJK text ({} files read): \
                 expected DIR/*/ground-truth.json as in ../shared/eval/extraction",
                dir.display(),
                files.len()
            );
        }
        Ok(pools)
    }

    /// Cuts the lines of an article into pieces and sorts them into pools.
    pub fn add_article(&mut self, body: &str) {
        for line in body.lines().map(str::trim).filter(|l| l.len() >= LINE_MIN) {
            for piece in pieces(line) {
                let (mut cjk, mut all) = (0usize, 0usize);
                for c in piece.chars().filter(|c| !c.is_whitespace()) {
                    all += 1;
                    cjk += is_cjk(c) as usize;
                }
                if cjk * 3 >= all {
                    self.cjk.push(piece.to_string());
                } else {
                    self.spaced.push(piece.to_string());
                }
            }
        }
    }
}

/// Whether a piece may end after `c`.
fn is_sentence_end(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '。' | '！' | '？' | '；')
}

/// Pieces of a line: after the first sentence end past [`PIECE_MIN`]
/// bytes, or at [`PIECE_MAX`] bytes (after a space when there is one);
/// pieces are trimmed, a short tail joins the piece before it.
fn pieces(line: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let mut start = 0;
    let mut last_space = None;
    for (i, c) in line.char_indices() {
        let end = i + c.len_utf8();
        let len = end - start;
        if c == ' ' {
            last_space = Some(end);
        }
        let cut = if len >= PIECE_MIN && is_sentence_end(c) {
            Some(end)
        } else if len >= PIECE_MAX {
            Some(last_space.filter(|&s| s > start).unwrap_or(end))
        } else {
            None
        };
        if let Some(at) = cut {
            out.push(line[start..at].trim());
            start = at;
            last_space = None;
        }
    }
    let tail = line[start..].trim();
    match out.last_mut() {
        Some(prev) if tail.len() < LINE_MIN => {
            // Re-slice the previous piece up to the end of the line.
            let from = prev.as_ptr() as usize - line.as_ptr() as usize;
            *prev = line[from..].trim();
        }
        _ if !tail.is_empty() => out.push(tail),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_line_at_sentence_ends() {
        let s = "This is one sentence of a real paragraph, long enough to count. ".repeat(8);
        let line = s.trim();
        let p = pieces(line);
        assert!(p.len() > 1);
        assert_eq!(p.concat().replace(' ', ""), line.replace(' ', ""));
        for piece in &p {
            assert!(piece.len() <= PIECE_MAX + PIECE_MIN, "{}", piece.len());
            assert!(piece.ends_with('.'), "{piece}");
        }
        // No sentence end: cut after a space, or anywhere in CJK text.
        let words = "word ".repeat(300);
        assert!(pieces(words.trim()).iter().all(|p| p.len() <= PIECE_MAX));
        let han = "中".repeat(400);
        assert_eq!(pieces(&han).concat(), han);
    }

    #[test]
    fn articles_are_sorted_by_script() {
        let mut pools = Pools::default();
        pools.add_article(
            "Short.\n\nA “real” paragraph — with curly quotes, accents (café) and enough words.\n\n\
             这是一个中文段落，里面有足够多的汉字，用来测试分类是否正确。这是第二句话。",
        );
        assert_eq!(pools.spaced.len(), 1);
        assert_eq!(pools.cjk.len(), 1);
        assert!(pools.spaced[0].contains('“'));
    }

    #[test]
    fn load_reads_ground_truth_and_explains_absence() {
        let missing = Pools::load(Path::new("/nonexistent/eval/extraction")).unwrap_err();
        assert!(format!("{missing:#}").contains("--eval DIR"), "{missing:#}");
        let dir = neardup_testkit::TempDir::new("bench-paragraphs");
        std::fs::create_dir_all(dir.join("en")).unwrap();
        std::fs::create_dir_all(dir.join("zh")).unwrap();
        let en = serde_json::json!({"1": {"articleBody": "An English paragraph that is long enough to be kept."}});
        let zh = serde_json::json!({"1": {"articleBody": "一个足够长的中文段落，用来测试读取真实数据的代码是否正确。"}});
        std::fs::write(dir.join("en/ground-truth.json"), en.to_string()).unwrap();
        let only_en = Pools::load(&dir).unwrap_err();
        assert!(
            only_en.to_string().contains("both spaced and CJK"),
            "{only_en}"
        );
        std::fs::write(dir.join("zh/ground-truth.json"), zh.to_string()).unwrap();
        let pools = Pools::load(&dir).unwrap();
        assert_eq!((pools.spaced.len(), pools.cjk.len()), (1, 1));
    }
}
