//! The online first-seen engine: verdicts one document at a time, and the
//! same groups as the batch engine given the same documents in order.

mod common;

use neardup_dedup::{
    default_method, signature_key, Dedup, Fingerprinted, Judgement, Online, Verifier,
};
use neardup_sketch::{DocText, Method, Signature, Sketcher};

use common::words;

fn sig(m: &Method, text: &str) -> (Signature, u128) {
    let s = m.sketch(&DocText::from_text(text));
    let k = signature_key(&s.to_bytes());
    (s, k)
}

const A: &str = "The council approved the new cycle lanes on the high street after a long debate on Monday evening, and work starts in spring.";
const A2: &str = "The council approved the new cycle lanes on the high street after a long debate on Monday night, and work starts in spring.";
const B: &str = "A completely different story about the harbour festival and its fireworks, which drew large crowds to the old docks this weekend.";

fn put(st: &mut Online, id: &str, s: (Signature, u128)) -> Judgement {
    let j = st.judge(Some((&s.0, s.1)), None).unwrap();
    st.add(id, Some(s), None, j).unwrap();
    j
}

#[test]
fn first_seen_is_kept_and_copies_point_to_it() {
    let m = default_method();
    let mut st = Online::new(m.clone(), None, None).unwrap();
    assert_eq!(put(&mut st, "a", sig(&m, A)).duplicate_of, None);
    let j = put(&mut st, "a2", sig(&m, A2));
    let (of, s) = j.duplicate_of.unwrap();
    assert_eq!(of, 0);
    assert!(s > 0.5 && s < 1.0);
    assert_eq!(put(&mut st, "b", sig(&m, B)).duplicate_of, None);
    // An exact copy of the duplicate joins its original, with its similarity.
    assert_eq!(
        put(&mut st, "a2-copy", sig(&m, A2)).duplicate_of,
        Some((0, s))
    );
    assert_eq!((st.originals(), st.duplicates(), st.len()), (2, 2, 4));
}

#[test]
fn deleted_original_is_no_target() {
    let m = default_method();
    let mut st = Online::new(m.clone(), None, None).unwrap();
    put(&mut st, "a", sig(&m, A));
    assert!(st.remove("a"));
    assert!(!st.remove("a"));
    assert_eq!(put(&mut st, "a-again", sig(&m, A)).duplicate_of, None);
    assert_eq!(put(&mut st, "a2", sig(&m, A2)).duplicate_of.unwrap().0, 1);
    assert_eq!(st.judge(None, None).unwrap().duplicate_of, None);
}

#[test]
fn online_verdicts_equal_the_batch_groups() {
    // Originals, edits, exact copies, copies of edits, unrelated texts.
    let (a, b, c) = (words(300, 1), words(250, 2), words(200, 3));
    let edit = |t: &str, k: usize| -> String {
        t.split(' ')
            .enumerate()
            .map(|(i, w)| {
                if i % k == 0 {
                    format!("{w}x")
                } else {
                    w.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let texts = vec![
        a.clone(),
        edit(&a, 40),
        b.clone(),
        a.clone(),
        edit(&a, 40),
        c.clone(),
        format!("{b} an editor's note at the end"),
        edit(&c, 9),
        " ".to_string(),
        edit(&b, 3),
    ];
    let batch = Dedup::builder()
        .site_templates(None)
        .composite(None)
        .partial_copies(None)
        .build();
    let mut docs: Vec<Fingerprinted> = texts
        .iter()
        .enumerate()
        .map(|(i, t)| batch.fingerprint_doc(format!("d{i}"), None, t, &[]))
        .collect();
    let outcome = batch.run(&mut docs).unwrap();
    let method = default_method();
    let mut online = Online::new(method, Some(Verifier::default()), None).unwrap();
    for (i, d) in docs.iter().enumerate() {
        let sig = d.signature.clone().map(|s| {
            let key = signature_key(&s.to_bytes());
            (s, key)
        });
        let j = online
            .judge(sig.as_ref().map(|(s, k)| (s, *k)), d.shingles.as_ref())
            .unwrap();
        let want = outcome.groups.assignments[i];
        assert_eq!(
            j.duplicate_of.map(|(o, s)| (o, (s * 1e9).round())),
            want.duplicate_of
                .map(|o| (o, (want.similarity * 1e9).round())),
            "document {i}"
        );
        online.add(&d.id, sig, d.shingles.clone(), j).unwrap();
    }
    assert!(outcome.duplicates() >= 5, "the corpus has copies");
}
