//! Marking what two texts share, as HTML: the engine's shared passages
//! ([`neardup::dedup::shared_passages`]) get `<mark>`, words of a text in
//! no shared shingle get `<span class="only">`. Everything else is copied,
//! escaped.

use neardup::dedup::{cut_chars, shared_passages, Mark};

use super::html::escape;

/// Characters of a text shown at most; the rest is cut with a note.
pub const MAX_CHARS: usize = 100_000;

/// `a` and `b` as HTML, each with what it shares with the other marked.
pub fn pair(a: &str, b: &str, k: usize) -> (String, String) {
    let (a, cut_a) = cut_chars(a, MAX_CHARS);
    let (b, cut_b) = cut_chars(b, MAX_CHARS);
    let (sa, sb) = shared_passages(a, b, k);
    (render(a, &sa, cut_a), render(b, &sb, cut_b))
}

/// `text` with its segments marked.
fn render(text: &str, segments: &[neardup::dedup::Segment], cut: bool) -> String {
    let mut out = String::with_capacity(text.len() * 5 / 4);
    for s in segments {
        let piece = escape(&text[s.range.clone()]);
        match s.mark {
            Mark::Shared => {
                out.push_str("<mark>");
                out.push_str(&piece);
                out.push_str("</mark>");
            }
            Mark::Only => {
                out.push_str("<span class=\"only\">");
                out.push_str(&piece);
                out.push_str("</span>");
            }
            Mark::Other => out.push_str(&piece),
        }
    }
    if cut {
        out.push_str(&format!(
            "\n<span class=\"note\">[cut after {MAX_CHARS} characters]</span>"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_runs_are_marked_and_the_rest_is_not() {
        let (a, b) = pair(
            "The library reopens on Monday after repairs.",
            "the LIBRARY reopens on monday, says <b>the mayor</b>",
            3,
        );
        assert!(
            a.starts_with("<mark>The library reopens on Monday</mark>"),
            "{a}"
        );
        assert!(
            a.contains("<span class=\"only\">after repairs</span>."),
            "{a}"
        );
        assert!(b.contains("&lt;b&gt;"), "{b}");
        assert!(!b.contains("<b>"), "{b}");
    }

    #[test]
    fn cjk_characters_are_words() {
        let (a, _) = pair("图书馆周一重新开放", "图书馆周一重新开放了", 3);
        assert_eq!(a, "<mark>图书馆周一重新开放</mark>");
    }

    #[test]
    fn long_texts_are_cut_with_a_note() {
        let long = "word ".repeat(MAX_CHARS / 4);
        let (a, _) = pair(&long, "other", 3);
        assert!(
            a.ends_with("[cut after 100000 characters]</span>"),
            "{}",
            &a[a.len() - 80..]
        );
    }
}
