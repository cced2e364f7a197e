//! A document with its spans removed.
//!
//! The characters of every span go; a line that held a span and is left
//! with nothing but whitespace goes with its line break; other lines keep
//! what is left of them, with the whitespace at their ends trimmed.

use crate::span::Span;

/// `text` without `spans` (sorted, not overlapping, byte offsets).
///
/// ```
/// use neardup_spans::{clean, Source, Span, SpanKind};
/// let text = "Keep this line.\nCookie notice of the site.\nAnd this one.";
/// let span = Span { start: 16, end: 42, chars: (16, 42), kind: SpanKind::Line, source: Source::First(0), key: 0 };
/// assert_eq!(clean(text, &[span]), "Keep this line.\nAnd this one.");
/// ```
pub fn clean(text: &str, spans: &[Span]) -> String {
    if spans.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut spans = spans.iter().peekable();
    let mut line_start = 0usize;
    let bytes = text.as_bytes();
    while line_start <= text.len() {
        let line_end =
            memchr::memchr(b'\n', &bytes[line_start..]).map_or(text.len(), |i| line_start + i);
        let mut kept = String::new();
        let mut cut = false;
        let mut pos = line_start;
        while let Some(s) = spans.peek() {
            if s.start >= line_end {
                break;
            }
            let (s_start, s_end) = (s.start.max(pos), s.end.min(line_end));
            if s_start > pos {
                kept.push_str(&text[pos..s_start]);
            }
            cut = true;
            pos = pos.max(s_end);
            if s.end <= line_end {
                spans.next();
            } else {
                break;
            }
        }
        if pos < line_end {
            kept.push_str(&text[pos..line_end]);
        }
        let has_newline = line_end < text.len();
        if cut {
            let t = kept.trim();
            if !t.is_empty() {
                out.push_str(t);
                if has_newline {
                    out.push('\n');
                }
            }
        } else {
            out.push_str(&kept);
            if has_newline {
                out.push('\n');
            }
        }
        if !has_newline {
            break;
        }
        line_start = line_end + 1;
    }
    if out.ends_with('\n') && !text.ends_with('\n') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::{Source, SpanKind};

    fn span(start: usize, end: usize) -> Span {
        Span {
            start,
            end,
            chars: (start, end),
            kind: SpanKind::Sentence,
            source: Source::First(0),
            key: 0,
        }
    }

    #[test]
    fn spans_go_and_emptied_lines_with_them() {
        let t = "one. two. three.\nfour.\nfive.";
        assert_eq!(clean(t, &[span(5, 9)]), "one.  three.\nfour.\nfive.");
        assert_eq!(clean(t, &[span(17, 22)]), "one. two. three.\nfive.");
        assert_eq!(clean(t, &[span(23, 28)]), "one. two. three.\nfour.");
        assert_eq!(clean(t, &[span(0, 16), span(17, 22), span(23, 28)]), "");
        assert_eq!(clean(t, &[]), t);
    }

    #[test]
    fn a_span_across_lines() {
        let t = "a\nbb\ncc\nd";
        assert_eq!(clean(t, &[span(2, 7)]), "a\nd");
        assert_eq!(clean("x\n\ny", &[span(0, 1)]), "\ny");
    }
}
