//! The site template pass (`Dedup::strip_site_templates`) on small
//! corpora: furniture repeated on unrelated pages of a host goes, an
//! article a host publishes twice stays.

use neardup_sketch::{Method, Signature};
mod common;

use neardup_dedup::{build_method, Dedup, Fingerprinted, TemplateStats};

use common::{cluster, doc, words};

#[test]
fn signatures_recomputed_from_shingles_equal_the_text_ones() {
    let dedup = Dedup::new();
    let Method::MinHash(m) = dedup.method() else {
        panic!("default method is MinHash")
    };
    for text in [
        words(200, 1),
        "Ünïcode ＦＵＬＬ width, 中文字符混合 text!".to_string(),
    ] {
        let seq = dedup.shingles(&text).unwrap();
        let wide: Vec<u64> = seq.hashes().iter().map(|&h| u64::from(h) << 32).collect();
        let again = Signature::MinHash(m.signature_of_shingles(&wide));
        assert_eq!(Some(again), dedup.fingerprint(&text, &[]));
    }
}

#[test]
fn a_feed_repeated_on_unrelated_pages_of_a_site_is_removed() {
    let dedup = Dedup::new();
    // A feed shorter than the stories: pages whose template outweighs
    // their own text look related, and are not witnesses.
    let feed = words(120, 99);
    let story = words(300, 7);
    let mut docs = vec![doc(&dedup, "https://news.example/story", &story)];
    for i in 0..4 {
        let text = format!("{feed} {}", words(300, 10 + i));
        docs.push(doc(&dedup, &format!("https://site.example/{i}"), &text));
    }
    // The story reprinted by the site, under its feed: too much
    // foreign text at the head for a copy, until the feed is known.
    docs.push(doc(
        &dedup,
        "https://site.example/copy",
        &format!("{feed} {story}"),
    ));
    let docs_before = docs.clone();
    let before = cluster(&dedup, &docs_before);
    assert_eq!(before.assignments[5].duplicate_of, None);
    let stats = dedup.strip_site_templates(&mut docs);
    assert_eq!(stats.documents, 5, "{stats:?}");
    // The feed is gone; the stories are left whole.
    let copy = docs[5].shingles.as_ref().unwrap();
    assert!((290..=300).contains(&copy.len()), "{}", copy.len());
    assert_eq!(docs[0].shingles, docs_before[0].shingles);
    let groups = cluster(&dedup, &docs);
    assert_eq!(groups.assignments[5].duplicate_of, Some(0));
    for i in 1..5 {
        assert_eq!(groups.assignments[i].duplicate_of, None, "{i}");
    }
}

#[test]
fn a_feed_heavier_than_the_stories_is_removed_too() {
    let dedup = Dedup::new();
    // 400 words of teasers around stories of 150: two pages of different
    // stories share most of their text (Jaccard about 0.57), yet each has
    // its own story, so they still witness each other's template.
    let feed = words(400, 98);
    let story = words(150, 7);
    let mut docs = vec![doc(&dedup, "https://news.example/story", &story)];
    for i in 0..4 {
        let text = format!("{} {feed}", words(150, 20 + i));
        docs.push(doc(&dedup, &format!("https://heavy.example/{i}"), &text));
    }
    docs.push(doc(
        &dedup,
        "https://heavy.example/copy",
        &format!("{story} {feed}"),
    ));
    let stats = dedup.strip_site_templates(&mut docs);
    assert_eq!(stats.documents, 5, "{stats:?}");
    let copy = docs[5].shingles.as_ref().unwrap();
    assert!((140..=150).contains(&copy.len()), "{}", copy.len());
    let groups = cluster(&dedup, &docs);
    assert_eq!(groups.assignments[5].duplicate_of, Some(0));
}

#[test]
fn text_a_site_publishes_twice_is_not_a_template() {
    let dedup = Dedup::new();
    let story = words(300, 3);
    let half: String = story.split(' ').take(150).collect::<Vec<_>>().join(" ");
    let mut docs = vec![
        doc(&dedup, "https://site.example/a", &story),
        doc(
            &dedup,
            "https://site.example/b",
            &format!("{story} {}", words(20, 4)),
        ),
        doc(&dedup, "https://site.example/c", &half),
        doc(
            &dedup,
            "https://site.example/d",
            &format!("{half} {}", words(300, 5)),
        ),
        doc(&dedup, "https://site.example/e", &words(300, 6)),
    ];
    // Related pages never witness each other, and the two unrelated
    // ones that share the half story are too few.
    assert_eq!(
        dedup.strip_site_templates(&mut docs),
        TemplateStats::default()
    );
}

#[test]
fn off_for_other_methods_and_without_hosts() {
    let feed = words(100, 9);
    let make = |dedup: &Dedup, host: bool| -> Vec<Fingerprinted> {
        (0..5)
            .map(|i| {
                let id = if host {
                    format!("https://s.example/{i}")
                } else {
                    format!("{i}.html")
                };
                doc(dedup, &id, &format!("{} {feed}", words(300, i)))
            })
            .collect()
    };
    let dedup = Dedup::new();
    assert_eq!(
        dedup
            .strip_site_templates(&mut make(&dedup, true))
            .documents,
        5
    );
    assert_eq!(
        dedup
            .strip_site_templates(&mut make(&dedup, false))
            .documents,
        0
    );
    let off = Dedup::builder().site_templates(None).build();
    assert_eq!(off.strip_site_templates(&mut make(&off, true)).documents, 0);
    let simhash = Dedup::builder()
        .method(build_method("simhash", None, None).unwrap())
        .build();
    assert_eq!(
        simhash
            .strip_site_templates(&mut make(&simhash, true))
            .documents,
        0
    );
}

#[test]
fn one_host_at_a_time_gives_the_corpus_result() {
    let dedup = Dedup::new();
    let (feed, bar) = (words(120, 97), words(60, 96));
    // Two hosts interleaved, a page without a host, and an empty page.
    let mut docs = Vec::new();
    for i in 0..12 {
        let (host, furniture) = if i % 3 == 0 {
            ("b", &bar)
        } else {
            ("a", &feed)
        };
        let text = format!("{} {furniture}", words(200, 40 + i));
        docs.push(doc(&dedup, &format!("https://{host}.example/{i}"), &text));
    }
    docs.push(doc(
        &dedup,
        "no-host",
        &format!("{} {feed}", words(200, 90)),
    ));
    docs.push(doc(&dedup, "https://a.example/empty", ""));
    let mut whole = docs.clone();
    let stats = dedup.strip_site_templates(&mut whole);
    assert_eq!(stats.documents, 12, "{stats:?}");
    let mut changed = 0;
    for host in ["https://a.example/", "https://b.example/"] {
        let members: Vec<usize> = (0..docs.len())
            .filter(|&i| docs[i].id.starts_with(host))
            .collect();
        let empty = neardup_dedup::ShingleSeq::default();
        let seqs: Vec<&neardup_dedup::ShingleSeq> = members
            .iter()
            .map(|&i| docs[i].shingles.as_ref().unwrap_or(&empty))
            .collect();
        for (&i, got) in members.iter().zip(dedup.strip_host_templates(&seqs)) {
            match got {
                Some((seq, sig)) => {
                    changed += 1;
                    assert_eq!(Some(&seq), whole[i].shingles.as_ref(), "{i}");
                    assert_eq!(Some(&sig), whole[i].signature.as_ref(), "{i}");
                }
                None => assert_eq!(whole[i].shingles, docs[i].shingles, "{i}"),
            }
        }
    }
    assert_eq!(changed, 12);
    assert_eq!(whole[12].shingles, docs[12].shingles, "no host, no pass");
}
