//! The batch engine with dictionary words (cargo feature `jieba`): exact
//! verification cuts shingles with the method's segmenter, as the
//! signatures do.
#![cfg(feature = "jieba")]

use neardup_dedup::{default_method, Dedup, ShingleSeq};
use neardup_text::Segmenter;

const TEXT: &str = "市图书馆经过两年的改造工程，于本周一重新向市民开放，新馆增加了阅览空间。";

#[test]
fn verification_shingles_follow_the_method_segmenter() {
    let jieba = Segmenter::jieba();
    let mut method = default_method();
    method.set_segmenter(jieba.clone()).unwrap();
    let words = Dedup::builder().method(method).build();
    let k = words.verifier().unwrap().k;
    let got = words.shingles(TEXT).unwrap();
    assert_eq!(got, ShingleSeq::with_segmenter(TEXT, k, &jieba));
    assert_ne!(got, ShingleSeq::new(TEXT, k));
    assert!(got.len() < ShingleSeq::new(TEXT, k).len());
    // The default engine keeps characters.
    assert_eq!(
        Dedup::new().shingles(TEXT).unwrap(),
        ShingleSeq::new(TEXT, k)
    );
}
