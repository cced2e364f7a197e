//! Dictionary word segmentation in the methods (cargo feature `jieba`):
//! word signatures differ from character ones, record their unit and never
//! compare with them.
#![cfg(feature = "jieba")]

use neardup_sketch::{
    DocText, ErrorKind, Method, MethodKind, MinHash, OphMinHash, Signature, Sketcher, SuperShingle,
};
use neardup_text::{Segmenter, ShingleUnit};

const A: &str = "国务院总理在北京主持召开会议，研究部署进一步扩大内需的政策措施。\
                 会议指出，要坚持稳中求进工作总基调，推动经济持续回升向好。";
const B: &str = "国务院总理在北京主持召开会议，研究部署进一步扩大内需的政策措施。\
                 会议强调，要坚持稳中求进工作总基调，推动经济持续回升向好。";

fn with_jieba(name: &str) -> Method {
    let mut m: Method = name.parse().unwrap();
    m.set_segmenter(Segmenter::jieba()).unwrap();
    m
}

#[test]
fn word_signatures_do_not_compare_with_character_ones() {
    for name in ["minhash", "minhash-oph", "supershingle"] {
        let chars: Method = name.parse().unwrap();
        let words = with_jieba(name);
        let doc = DocText::from_text(A);
        let (c, w) = (chars.sketch(&doc), words.sketch(&doc));
        assert_ne!(c, w, "{name}");
        let back = Signature::from_bytes(&w.to_bytes()).unwrap();
        assert_eq!(back, w);
        assert_eq!(words.similarity(&w, &w).unwrap(), 1.0);
        let e = words.similarity(&c, &w).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::ParameterMismatch, "{name}");
    }
}

#[test]
fn one_edited_character_changes_a_few_word_shingles() {
    let mut mh = MinHash::new();
    mh.shingles(ShingleUnit::Token, 3)
        .num_perm(256)
        .segmenter(Segmenter::jieba());
    let (a, b) = (
        mh.signature(&DocText::from_text(A)),
        mh.signature(&DocText::from_text(B)),
    );
    let j = a.jaccard(&b).unwrap();
    assert!(j > 0.6 && j < 1.0, "{j}");
    // Latin text is shingled exactly as without a segmenter.
    let en = DocText::from_text("the same English words shingled the same way");
    let plain = MinHash::new().signature(&en);
    let mut words = MinHash::new();
    words.segmenter(Segmenter::jieba());
    assert_eq!(words.signature(&en).values(), plain.values());
}

#[test]
fn oph_and_supershingle_take_the_segmenter() {
    let mut oph = OphMinHash::new();
    oph.segmenter(Segmenter::jieba());
    assert_eq!(oph.get_segmenter(), &Segmenter::jieba());
    let mut ss = SuperShingle::new();
    ss.segmenter(Segmenter::jieba());
    let doc = DocText::from_text(A);
    assert_ne!(
        ss.signature(&doc),
        SuperShingle::new().signature(&doc),
        "supershingle keys record the unit"
    );
    assert!(format!("{ss:?}").contains("segmenter: Segmenter(jieba)"));
    assert!(!format!("{:?}", SuperShingle::new()).contains("segmenter"));
}

#[test]
fn other_methods_refuse_a_dictionary_segmenter() {
    for kind in MethodKind::ALL {
        let mut m = Method::with_defaults(kind);
        let r = m.set_segmenter(Segmenter::jieba());
        let supported = matches!(
            kind,
            MethodKind::MinHash | MethodKind::OphMinHash | MethodKind::SuperShingle
        );
        assert_eq!(r.is_ok(), supported, "{kind}");
        if let Err(e) = r {
            assert_eq!(e.kind(), &ErrorKind::SegmenterNotSupported(kind));
            assert!(e.to_string().ends_with(&format!("not {kind}")), "{e}");
        } else {
            assert_eq!(m.segmenter(), &Segmenter::jieba());
        }
    }
}
