//! Sentence and clause splitting (Liu et al.'s "long sentence" features,
//! Peng et al.'s feature codes around periods).
//!
//! Sentence terminators: `。 ！ ？ ； ! ? . ; … ‼ ⁇ ⁈ ⁉ ｡ ．` and line breaks.
//! A `.` between two ASCII digits (`3.14`) does not end a sentence. Clauses
//! additionally break at commas, enumeration commas and colons
//! (`， , 、 ： :`), which is how Liu et al. cut "sentences" for the
//! long-sentence method.
//!
//! The length of a sentence is its number of tokens ([`crate::token_count`]):
//! characters for CJK, words for space-delimited scripts.

/// Returns `true` for characters that end a sentence (see the module docs;
/// the digit rule for `.` is applied by [`sentences`], not here).
#[inline]
pub fn is_sentence_end(c: char) -> bool {
    matches!(
        c,
        '。' | '！'
            | '？'
            | '；'
            | '!'
            | '?'
            | '.'
            | ';'
            | '…'
            | '‼'
            | '⁇'
            | '⁈'
            | '⁉'
            | '｡'
            | '．'
            | '\n'
            | '\r'
    )
}

/// Returns `true` for characters that end a clause but not a sentence.
#[inline]
pub fn is_clause_break(c: char) -> bool {
    matches!(c, '，' | ',' | '、' | '：' | ':' | '﹐' | '﹑')
}

/// Iterator over the sentences of `text`: trimmed, non-empty sub-slices
/// without their terminators.
///
/// ```
/// use neardup_text::sentences;
/// let s: Vec<&str> = sentences("今天天气很好。我们去公园吧！Pi is 3.14. Ok").collect();
/// assert_eq!(s, ["今天天气很好", "我们去公园吧", "Pi is 3.14", "Ok"]);
/// ```
pub fn sentences(text: &str) -> Pieces<'_> {
    Pieces {
        text,
        pos: 0,
        clauses: false,
    }
}

/// Iterator over clauses: like [`sentences`] but also breaking at commas,
/// enumeration commas and colons.
///
/// ```
/// use neardup_text::clauses;
/// let s: Vec<&str> = clauses("首先，该算法对网页进行去杂处理，然后提取长句。").collect();
/// assert_eq!(s, ["首先", "该算法对网页进行去杂处理", "然后提取长句"]);
/// ```
pub fn clauses(text: &str) -> Pieces<'_> {
    Pieces {
        text,
        pos: 0,
        clauses: true,
    }
}

/// Iterator returned by [`sentences`] and [`clauses`].
#[derive(Debug, Clone)]
pub struct Pieces<'a> {
    text: &'a str,
    pos: usize,
    clauses: bool,
}

impl<'a> Pieces<'a> {
    fn is_break(&self, at: usize, c: char) -> bool {
        if c == '.' || (c == ',' && self.clauses) {
            // Decimal point or thousands separator: digit on both sides.
            let bytes = self.text.as_bytes();
            let before = at > 0 && bytes[at - 1].is_ascii_digit();
            let after = bytes.get(at + 1).is_some_and(|b| b.is_ascii_digit());
            return !(before && after);
        }
        is_sentence_end(c) || (self.clauses && is_clause_break(c))
    }
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        while self.pos < self.text.len() {
            let rest = &self.text[self.pos..];
            let mut end = rest.len();
            let mut next_pos = self.text.len();
            for (i, c) in rest.char_indices() {
                if self.is_break(self.pos + i, c) {
                    end = i;
                    next_pos = self.pos + i + c.len_utf8();
                    break;
                }
            }
            let piece = rest[..end].trim();
            self.pos = next_pos;
            if !piece.is_empty() {
                return Some(piece);
            }
        }
        None
    }
}

/// Length of a sentence in tokens: characters for CJK, words otherwise.
///
/// ```
/// assert_eq!(neardup_text::sentence_len("网页去重算法"), 6);
/// assert_eq!(neardup_text::sentence_len("near duplicate detection"), 3);
/// ```
pub fn sentence_len(sentence: &str) -> usize {
    crate::tokens::token_count(sentence)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_terminators_split() {
        let text = "a。b！c？d；e!f?g.h;i…j\nk‼l";
        let got: Vec<&str> = sentences(text).collect();
        assert_eq!(
            got,
            ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]
        );
    }

    #[test]
    fn decimals_and_empty_pieces() {
        assert_eq!(
            sentences("1.5 and 2.0...").collect::<Vec<_>>(),
            ["1.5 and 2.0"]
        );
        assert_eq!(sentences("...!!!").count(), 0);
        assert_eq!(sentences("").count(), 0);
        assert_eq!(
            clauses("1,000 apples, pears").collect::<Vec<_>>(),
            ["1,000 apples", "pears"]
        );
    }

    #[test]
    fn sentences_do_not_split_on_commas() {
        assert_eq!(sentences("a, b. c").collect::<Vec<_>>(), ["a, b", "c"]);
    }
}
