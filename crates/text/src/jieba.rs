//! The jieba-rs dictionary behind [`crate::CjkSegmentation::Jieba`] (cargo
//! feature `jieba`).
//!
//! Only runs of Han characters reach it (see [`crate::Segmenter`]): jieba's
//! own handling of Latin letters, digits and punctuation is never used, so
//! the rest of the text is tokenized exactly as without the feature.
//!
//! Cutting is jieba's default mode with its hidden Markov model off: the
//! most probable path through the dictionary's word graph, and characters
//! the dictionary does not join stay single. The model would guess new
//! words from character statistics; without it a word depends only on the
//! dictionary and its neighbours, which keeps an edited character from
//! changing the cut of distant ones, and cutting is faster.

/// Whether jieba's hidden Markov model joins unknown characters (part of
/// the format of `ShingleUnit::Word` signatures: do not change lightly).
const HMM: bool = false;

/// jieba-rs with its embedded dictionary.
pub(crate) struct Dictionary {
    jieba: jieba_rs::Jieba,
}

impl Dictionary {
    /// Loads the embedded dictionary.
    pub(crate) fn load() -> Dictionary {
        Dictionary {
            jieba: jieba_rs::Jieba::new(),
        }
    }

    /// Calls `f` with the words of `run`, a run of Han characters, in order;
    /// the words are sub-slices of `run` and cover it.
    pub(crate) fn cut<'t>(&self, run: &'t str, f: &mut impl FnMut(&'t str)) {
        for token in self.jieba.cut(run, HMM) {
            f(token.word);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{normalize, NormalizeOptions, Segmenter};

    fn words(text: &str) -> Vec<String> {
        thread_local! {
            static SEGMENTER: Segmenter = Segmenter::jieba();
        }
        SEGMENTER.with(|s| s.tokens(text))
    }

    #[test]
    fn known_sentences_give_dictionary_words() {
        assert_eq!(
            words("我来到北京清华大学"),
            ["我", "来到", "北京", "清华大学"]
        );
        assert_eq!(
            words("我们中出了一个叛徒"),
            ["我们", "中", "出", "了", "一个", "叛徒"]
        );
        assert_eq!(
            words("小明硕士毕业于中国科学院计算所"),
            ["小", "明", "硕士", "毕业", "于", "中国科学院", "计算所"]
        );
    }

    #[test]
    fn unknown_words_stay_single_characters() {
        // No hidden Markov model: 杭研 is not in the dictionary.
        assert_eq!(
            words("他来到了网易杭研大厦"),
            ["他", "来到", "了", "网易", "杭", "研", "大厦"]
        );
    }

    #[test]
    fn mixed_text_is_cut_run_by_run() {
        assert_eq!(
            words("用Rust写代码, café au lait; 2024年北京"),
            ["用", "Rust", "写", "代码", "café", "au", "lait", "2024", "年", "北京"]
        );
        // Kana and Hangul stay single characters; kanji runs go to the
        // (Chinese) dictionary.
        let t = words("ひらがな東京大学한국");
        assert_eq!(t[..4], ["ひ", "ら", "が", "な"]);
        assert_eq!(t[t.len() - 2..], ["한", "국"]);
        assert_eq!(t[4..t.len() - 2].concat(), "東京大学");
    }

    #[test]
    fn punctuation_and_spaces_split_runs_and_vanish() {
        assert_eq!(
            words("北京，上海。“广州”！ 深圳"),
            ["北京", "上海", "广州", "深圳"]
        );
        assert!(words("").is_empty());
        assert!(words("，。！？、 ").is_empty());
        let text = normalize("中华人民共和国成立了。", NormalizeOptions::default());
        assert_eq!(words(&text), ["中华人民共和国", "成立", "了"]);
    }

    #[test]
    fn words_cover_every_han_character() {
        let text = "今天天气不错，我们去公园散步吧。明天可能会下雨。";
        let joined: String = words(text).concat();
        let han: String = text.chars().filter(|&c| crate::is_han(c)).collect();
        assert_eq!(joined, han);
        assert!(words(text).len() < han.chars().count());
    }
}
