//! CJK segmentation chosen at run time: single characters, overlapping
//! character bigrams, or dictionary words for runs of Han characters.
//!
//! [`tokens`] cuts CJK text one character at a time, which needs no
//! dictionary and is what the classic methods' signatures use.
//! [`CjkSegmentation::Bigrams`] (what the default method uses) turns each
//! run of consecutive CJK characters into its overlapping character
//! bigrams: `天气很好` gives `天气`, `气很`, `很好`, so that a k-gram of
//! tokens spans k + 1 characters. A Chinese character carries less than a
//! word does: 3-grams of characters recur by chance between unrelated
//! articles far more often than 3-grams of words, and bigrams give CJK text
//! shingles as specific as those of spaced scripts. Separators between two
//! CJK characters do not break a run (re-flowed text puts line breaks
//! anywhere); any other token does, and a run of one character stays that
//! character. A [`Segmenter`]
//! made with [`CjkSegmentation::Jieba`] (cargo feature `jieba`) instead cuts
//! every maximal run of Han characters (see [`crate::is_han`]) into
//! dictionary words with jieba-rs and its embedded dictionary (the most
//! probable path through the dictionary's word graph; characters the
//! dictionary does not join stay single). Everything else is tokenized as
//! [`tokens`] does: words of space-delimited scripts, single kana and
//! Hangul, so mixed text is handled run by run (`"用Rust写代码"` gives `用`,
//! `Rust`, `写`, `代码`).
//!
//! The dictionary is loaded once, by [`Segmenter::new`], and shared by the
//! clones of the segmenter. Word boundaries follow jieba-rs's dictionary, so
//! signatures made with words are only comparable between builds of the
//! same jieba-rs version.

use std::fmt;
use std::str::FromStr;

use crate::script::is_han;
use crate::shingle::ShingleUnit;
use crate::tokens::tokens;

/// How runs of Han characters are tokenized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CjkSegmentation {
    /// One token per character (no dictionary).
    #[default]
    Chars,
    /// Overlapping character bigrams of every run of CJK characters (no
    /// dictionary); see the module documentation.
    Bigrams,
    /// Dictionary words (jieba-rs); needs the cargo feature `jieba`.
    Jieba,
}

impl CjkSegmentation {
    /// Every mode, compiled in or not.
    pub const ALL: [CjkSegmentation; 3] = [
        CjkSegmentation::Chars,
        CjkSegmentation::Bigrams,
        CjkSegmentation::Jieba,
    ];

    /// The name [`FromStr`] accepts: `chars`, `bigrams` or `jieba`.
    pub fn name(self) -> &'static str {
        match self {
            CjkSegmentation::Chars => "chars",
            CjkSegmentation::Bigrams => "bigrams",
            CjkSegmentation::Jieba => "jieba",
        }
    }

    /// Whether this build can segment this way (`Jieba` needs the cargo
    /// feature `jieba`).
    pub fn is_available(self) -> bool {
        match self {
            CjkSegmentation::Chars | CjkSegmentation::Bigrams => true,
            CjkSegmentation::Jieba => cfg!(feature = "jieba"),
        }
    }
}

impl fmt::Display for CjkSegmentation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CjkSegmentation {
    type Err = SegmentationError;

    /// Parses `chars`, `bigrams` or `jieba` (case-insensitive). A known mode parses
    /// even when it is not compiled in: [`Segmenter::new`] tells.
    fn from_str(s: &str) -> Result<Self, SegmentationError> {
        let s = s.trim();
        CjkSegmentation::ALL
            .into_iter()
            .find(|m| m.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| SegmentationError::UnknownMode(s.to_string()))
    }
}

/// Why a [`Segmenter`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SegmentationError {
    /// A name that is not a [`CjkSegmentation`].
    UnknownMode(String),
    /// A mode that this build does not include (its cargo feature is off).
    NotCompiledIn(CjkSegmentation),
}

impl fmt::Display for SegmentationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SegmentationError::UnknownMode(name) => {
                write!(
                    f,
                    "unknown CJK segmentation {name:?}: expected chars, bigrams or jieba"
                )
            }
            SegmentationError::NotCompiledIn(mode) => write!(
                f,
                "CJK segmentation {mode} is not compiled in: rebuild with the cargo feature `{mode}`"
            ),
        }
    }
}

impl std::error::Error for SegmentationError {}

/// Tokenizes text with a [`CjkSegmentation`]; cheap to clone (the
/// dictionary is shared). See the module documentation.
///
/// ```
/// use neardup_text::{CjkSegmentation, Segmenter};
/// let chars = Segmenter::chars();
/// assert_eq!(chars.tokens("用Rust写代码"), ["用", "Rust", "写", "代", "码"]);
/// let bigrams = Segmenter::bigrams();
/// assert_eq!(bigrams.tokens("用Rust写代码"), ["用", "Rust", "写代", "代码"]);
/// let jieba = Segmenter::new(CjkSegmentation::Jieba);
/// if cfg!(feature = "jieba") {
///     assert_eq!(jieba.unwrap().tokens("用Rust写代码"), ["用", "Rust", "写", "代码"]);
/// } else {
///     assert!(jieba.unwrap_err().to_string().contains("feature `jieba`"));
/// }
/// ```
#[derive(Clone, Default)]
pub struct Segmenter {
    mode: CjkSegmentation,
    #[cfg(feature = "jieba")]
    jieba: Option<std::sync::Arc<crate::jieba::Dictionary>>,
}

impl Segmenter {
    /// One token per CJK character, as [`tokens`].
    pub const fn chars() -> Segmenter {
        Segmenter {
            mode: CjkSegmentation::Chars,
            #[cfg(feature = "jieba")]
            jieba: None,
        }
    }

    /// Overlapping character bigrams for runs of CJK characters (see the
    /// module documentation).
    pub const fn bigrams() -> Segmenter {
        Segmenter {
            mode: CjkSegmentation::Bigrams,
            #[cfg(feature = "jieba")]
            jieba: None,
        }
    }

    /// A segmenter for `mode`, loading its dictionary (for `Jieba`, a few
    /// hundred milliseconds: make one and clone it).
    ///
    /// # Errors
    /// [`SegmentationError::NotCompiledIn`] when `mode` needs a cargo
    /// feature that is off.
    pub fn new(mode: CjkSegmentation) -> Result<Segmenter, SegmentationError> {
        match mode {
            CjkSegmentation::Chars => Ok(Segmenter::chars()),
            CjkSegmentation::Bigrams => Ok(Segmenter::bigrams()),
            #[cfg(feature = "jieba")]
            CjkSegmentation::Jieba => Ok(Segmenter::jieba()),
            #[cfg(not(feature = "jieba"))]
            CjkSegmentation::Jieba => Err(SegmentationError::NotCompiledIn(mode)),
        }
    }

    /// Dictionary words for Han runs, with jieba-rs's embedded dictionary
    /// (loaded now).
    #[cfg(feature = "jieba")]
    pub fn jieba() -> Segmenter {
        Segmenter {
            mode: CjkSegmentation::Jieba,
            jieba: Some(std::sync::Arc::new(crate::jieba::Dictionary::load())),
        }
    }

    /// The mode of this segmenter.
    pub fn mode(&self) -> CjkSegmentation {
        self.mode
    }

    /// The unit of the shingles that `unit` shingles are with this
    /// segmenter: token shingles ([`ShingleUnit::Token`],
    /// [`ShingleUnit::Bigram`] or [`ShingleUnit::Word`]) are what the
    /// segmenter cuts (`Token` for characters, `Bigram` for bigrams,
    /// `Word` for a dictionary); `Char` stays `Char`.
    pub fn unit_for(&self, unit: ShingleUnit) -> ShingleUnit {
        match (unit, self.mode) {
            (ShingleUnit::Char, _) => ShingleUnit::Char,
            (_, CjkSegmentation::Chars) => ShingleUnit::Token,
            (_, CjkSegmentation::Bigrams) => ShingleUnit::Bigram,
            (_, CjkSegmentation::Jieba) => ShingleUnit::Word,
        }
    }

    /// Calls `f` with every token of `text`, in order. Tokenize normalized
    /// text (see [`crate::normalize`]).
    pub fn for_each_token(&self, text: &str, f: impl FnMut(&str)) {
        if self.mode == CjkSegmentation::Bigrams {
            for_each_bigram_token(text, f);
            return;
        }
        #[cfg(feature = "jieba")]
        if let Some(dict) = &self.jieba {
            let mut f = f;
            let mut from = 0;
            for_each_han_run(text, |start, end| {
                tokens(&text[from..start]).for_each(&mut f);
                dict.cut(&text[start..end], &mut f);
                from = end;
            });
            tokens(&text[from..]).for_each(f);
            return;
        }
        tokens(text).for_each(f);
    }

    /// Every token of `text`, in order.
    pub fn tokens(&self, text: &str) -> Vec<String> {
        let mut out = Vec::new();
        self.for_each_token(text, |t| out.push(t.to_string()));
        out
    }
}

impl fmt::Debug for Segmenter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Segmenter({})", self.mode)
    }
}

/// Segmenters are equal when they cut text the same way.
impl PartialEq for Segmenter {
    fn eq(&self, other: &Segmenter) -> bool {
        self.mode == other.mode
    }
}

impl Eq for Segmenter {}

/// The tokens of `text` with every run of consecutive CJK characters (one
/// character tokens of [`tokens`], whatever separates them) replaced by its
/// overlapping bigrams; a run of one character stays as it is.
fn for_each_bigram_token(text: &str, mut f: impl FnMut(&str)) {
    let offset = |t: &str| t.as_ptr() as usize - text.as_ptr() as usize;
    // The previous CJK character of the current run, and the run's length.
    let mut prev: Option<&str> = None;
    let mut run = 0usize;
    let mut joined = String::new();
    let mut it = tokens(text);
    while let Some((t, cjk)) = it.next_token() {
        if cjk {
            if let Some(p) = prev {
                let (start, end) = (offset(p), offset(t) + t.len());
                if start + p.len() == offset(t) {
                    f(&text[start..end]);
                } else {
                    joined.clear();
                    joined.push_str(p);
                    joined.push_str(t);
                    f(&joined);
                }
            }
            prev = Some(t);
            run += 1;
            continue;
        }
        if run == 1 {
            f(prev.unwrap_or_default());
        }
        (prev, run) = (None, 0);
        f(t);
    }
    if run == 1 {
        f(prev.unwrap_or_default());
    }
}

/// Calls `f(start, end)` with the byte range of every maximal run of Han
/// characters of `text`, in order.
#[cfg_attr(not(feature = "jieba"), allow(dead_code))]
fn for_each_han_run(text: &str, mut f: impl FnMut(usize, usize)) {
    if text.is_ascii() {
        return;
    }
    let mut run = None;
    for (i, c) in text.char_indices() {
        match (is_han(c), run) {
            (true, None) => run = Some(i),
            (false, Some(start)) => {
                f(start, i);
                run = None;
            }
            _ => {}
        }
    }
    if let Some(start) = run {
        f(start, text.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        for_each_han_run(text, |a, b| out.push(&text[a..b]));
        out
    }

    #[test]
    fn han_runs_stop_at_everything_else() {
        assert_eq!(runs("用Rust写代码，真好。"), ["用", "写代码", "真好"]);
        assert_eq!(runs("ひらがなと漢字カタカナ한국어中文"), ["漢字", "中文"]);
        assert_eq!(runs("中 文"), ["中", "文"]);
        assert!(runs("").is_empty());
        assert!(runs("plain ascii, no han").is_empty());
        assert!(runs("café ünïcode").is_empty());
    }

    #[test]
    fn names_parse_and_print() {
        for m in CjkSegmentation::ALL {
            assert_eq!(m.name().parse::<CjkSegmentation>(), Ok(m));
            assert_eq!(m.to_string(), m.name());
        }
        assert_eq!(" JIEBA ".parse(), Ok(CjkSegmentation::Jieba));
        let e = "words".parse::<CjkSegmentation>().unwrap_err();
        assert_eq!(e, SegmentationError::UnknownMode("words".into()));
        assert!(e.to_string().contains("expected chars, bigrams or jieba"));
        assert_eq!(CjkSegmentation::default(), CjkSegmentation::Chars);
    }

    #[test]
    fn chars_segmenter_is_the_plain_tokenizer() {
        let s = Segmenter::new(CjkSegmentation::Chars).unwrap();
        assert_eq!(s, Segmenter::chars());
        assert_eq!(s.unit_for(ShingleUnit::Word), ShingleUnit::Token);
        assert_eq!(s.unit_for(ShingleUnit::Char), ShingleUnit::Char);
        for text in [
            "",
            "。，！",
            "我们中出了一个叛徒",
            "用Rust写代码, café 한국",
        ] {
            assert_eq!(s.tokens(text), tokens(text).collect::<Vec<_>>(), "{text}");
        }
        assert_eq!(format!("{s:?}"), "Segmenter(chars)");
    }

    #[test]
    fn bigrams_cover_runs_of_cjk_characters() {
        let s = Segmenter::new(CjkSegmentation::Bigrams).unwrap();
        assert_eq!(s, Segmenter::bigrams());
        assert_eq!(s.unit_for(ShingleUnit::Token), ShingleUnit::Bigram);
        assert_eq!(s.unit_for(ShingleUnit::Word), ShingleUnit::Bigram);
        assert_eq!(s.unit_for(ShingleUnit::Char), ShingleUnit::Char);
        let cases: [(&str, &[&str]); 8] = [
            ("", &[]),
            ("。，！", &[]),
            ("中", &["中"]),
            ("天气很好", &["天气", "气很", "很好"]),
            // Separators join the run; the joined bigram is built.
            ("天气 很好。", &["天气", "气很", "很好"]),
            // Other tokens cut it; one character stays one.
            ("2020年11月", &["2020", "年", "11", "月"]),
            ("用Rust写代码", &["用", "Rust", "写代", "代码"]),
            ("ひらがな한국", &["ひら", "らが", "がな", "な한", "한국"]),
        ];
        for (text, want) in cases {
            assert_eq!(s.tokens(text), want, "{text}");
        }
        // Spaced scripts are untouched.
        let spaced = "café au lait, s'il vous plaît";
        assert_eq!(s.tokens(spaced), tokens(spaced).collect::<Vec<_>>());
        assert_eq!(format!("{s:?}"), "Segmenter(bigrams)");
    }

    #[test]
    fn jieba_availability_matches_the_build() {
        let made = Segmenter::new(CjkSegmentation::Jieba);
        assert_eq!(made.is_ok(), cfg!(feature = "jieba"));
        assert_eq!(
            CjkSegmentation::Jieba.is_available(),
            cfg!(feature = "jieba")
        );
        assert!(CjkSegmentation::Chars.is_available());
        assert!(CjkSegmentation::Bigrams.is_available());
        match made {
            Ok(s) => {
                assert_eq!(s.mode(), CjkSegmentation::Jieba);
                assert_eq!(s.unit_for(ShingleUnit::Token), ShingleUnit::Word);
                assert_eq!(s.unit_for(ShingleUnit::Char), ShingleUnit::Char);
                assert_ne!(s, Segmenter::chars());
            }
            Err(e) => {
                assert_eq!(e, SegmentationError::NotCompiledIn(CjkSegmentation::Jieba));
                assert_eq!(
                    e.to_string(),
                    "CJK segmentation jieba is not compiled in: rebuild with the cargo feature `jieba`"
                );
            }
        }
    }
}
