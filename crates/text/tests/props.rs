//! Property tests of the text features.

use neardup_text::{
    is_cjk, is_word_char, normalize, sentence_len, sentences, tokens, NormalizeOptions, Segmenter,
    ShingleUnit, Shingler,
};
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            "[a-zA-Z0-9_]{1,8}",
            "[\u{4E00}-\u{4E20}\u{3040}-\u{3050}]{1,4}",
            "[ .,;!?。，\n\t\u{3000}]{1,3}",
            "[ＡＢａｂ０-９éÉ]{1,3}",
            "[A-Z]{20,40}",
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn normalizing_shingler_equals_normalize_then_shingle(t in text(), k in 1usize..6) {
        for unit in [ShingleUnit::Token, ShingleUnit::Char] {
            let mut s = Shingler::new(unit, k);
            let mut fast = Vec::new();
            s.for_each_normalizing(&t, |h| fast.push(h));
            let slow = s.shingles(&normalize(&t, NormalizeOptions::default()));
            prop_assert_eq!(fast, slow);
        }
        let mut s = Shingler::with_segmenter(ShingleUnit::Token, k, Segmenter::bigrams());
        let mut fast = Vec::new();
        s.for_each_normalizing(&t, |h| fast.push(h));
        prop_assert_eq!(fast, s.shingles(&normalize(&t, NormalizeOptions::default())));
    }

    #[test]
    fn bigrams_replace_each_run_of_n_cjk_characters_by_n_minus_1(t in text()) {
        // Runs of consecutive CJK tokens (separators do not break a run).
        let mut want = Vec::new();
        let mut run: Vec<&str> = Vec::new();
        let flush = |run: &mut Vec<&str>, want: &mut Vec<String>| {
            if run.len() == 1 {
                want.push(run[0].to_string());
            }
            want.extend(run.windows(2).map(|w| w.concat()));
            run.clear();
        };
        for tok in tokens(&t) {
            let mut cs = tok.chars();
            if matches!((cs.next(), cs.next()), (Some(c), None) if is_cjk(c)) {
                run.push(tok);
            } else {
                flush(&mut run, &mut want);
                want.push(tok.to_string());
            }
        }
        flush(&mut run, &mut want);
        prop_assert_eq!(Segmenter::bigrams().tokens(&t), want);
    }

    #[test]
    fn tokens_are_words_or_single_cjk(t in text()) {
        for tok in tokens(&t) {
            prop_assert!(!tok.is_empty());
            let cs: Vec<char> = tok.chars().collect();
            if cs.len() == 1 && is_cjk(cs[0]) {
                continue;
            }
            prop_assert!(cs.iter().all(|&c| is_word_char(c)), "{:?}", tok);
        }
    }

    #[test]
    fn shingle_count_matches_token_count(t in text(), k in 1usize..6) {
        let n = tokens(&t).count();
        let got = Shingler::new(ShingleUnit::Token, k).shingles(&t).len();
        let want = if n == 0 { 0 } else if n < k { 1 } else { n - k + 1 };
        prop_assert_eq!(got, want);
    }

    #[test]
    fn sentences_cover_all_tokens(t in text()) {
        let total: usize = sentences(&t).map(sentence_len).sum();
        prop_assert_eq!(total, tokens(&t).count());
    }
}
