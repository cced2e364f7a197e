//! Golden signatures: fixed inputs must give fixed bytes, so a signature
//! never changes silently between versions. The expected values live in
//! `tests/golden.txt` (`<method> <script> <hex>` per line). After an
//! intended format or algorithm change, regenerate with
//! `NEARDUP_UPDATE_GOLDEN=1 cargo test -p neardup-sketch --test golden`,
//! bump [`neardup_sketch::codec::FORMAT_VERSION`] if old signatures can no
//! longer be compared, and review the diff.

use std::fmt::Write as _;

use neardup_sketch::{DocText, Method, MethodKind, Signature, Sketcher};

const ENGLISH: &str =
    "Near-duplicate detection finds web pages whose main text is almost the same. \
Search engines drop such copies before indexing, which saves storage and keeps results diverse. \
A page may be copied with a new header, a changed date, or a few edited words; the methods here \
are meant to notice that the bulk of the text is shared.";

const CHINESE: &str = "互联网上存在大量重复网页，主要原因是网站之间的相互转载。\
转载时有的网站直接复制原文，有的会调整段落顺序、替换部分词汇。\
因此，搜索引擎需要高效的去重算法，以节省存储空间并提高检索质量。";

fn inputs() -> Vec<(&'static str, &'static str, Vec<String>)> {
    let split = |t: &str, sep: &str| -> Vec<String> {
        t.split_inclusive(sep).map(str::to_string).collect()
    };
    vec![
        ("english", ENGLISH, split(ENGLISH, ". ")),
        ("chinese", CHINESE, split(CHINESE, "。")),
    ]
}

fn names() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = MethodKind::ALL.iter().map(|k| k.name()).collect();
    v.push("simhash128");
    v
}

fn render() -> String {
    let mut out = String::new();
    for name in names() {
        let m: Method = name.parse().unwrap();
        for (script, text, paragraphs) in inputs() {
            let sig = m.sketch(&DocText::new(text, &paragraphs));
            let hex: String = sig.to_bytes().iter().map(|b| format!("{b:02x}")).collect();
            writeln!(out, "{name} {script} {hex}").unwrap();
        }
    }
    out
}

#[test]
fn signatures_match_golden_file() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden.txt");
    let got = render();
    if std::env::var_os("NEARDUP_UPDATE_GOLDEN").is_some() {
        std::fs::write(path, &got).unwrap();
    }
    let want = std::fs::read_to_string(path).expect("tests/golden.txt is checked in");
    for (g, w) in got.lines().zip(want.lines()) {
        assert_eq!(g, w, "signature changed");
    }
    assert_eq!(got.lines().count(), want.lines().count());
}

#[test]
fn golden_bytes_decode_to_the_same_signature() {
    let want = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden.txt"))
        .expect("tests/golden.txt is checked in");
    for line in want.lines() {
        let hex = line.rsplit(' ').next().unwrap();
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let sig = Signature::from_bytes(&bytes).unwrap();
        assert_eq!(sig.to_bytes(), bytes, "{line}");
        let name = line.split(' ').next().unwrap();
        let kind = if name == "simhash128" {
            MethodKind::SimHash
        } else {
            name.parse::<Method>().unwrap().kind()
        };
        assert_eq!(sig.kind(), kind);
    }
}

#[test]
fn raw_values_are_stable() {
    // A few raw values spelled out, independent of the byte format.
    let doc = DocText::from_text(ENGLISH);
    let mh = neardup_sketch::MinHash::new().signature(&doc);
    let sh = neardup_sketch::SimHash::new().signature(&doc);
    let got = format!(
        "{:08x} {:08x} {:016x}",
        mh.values()[0],
        mh.values()[127],
        sh.value64()
    );
    assert_eq!(got, GOLDEN_RAW);
}

const GOLDEN_RAW: &str = "0100ea9d 0016dd34 25c2af51efcadad0";
