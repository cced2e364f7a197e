//! The substring unit joined with reference matches (`--reference` with
//! `--unit substring`): the reference match is kept whole, the copied run
//! is cut around it, and the pieces keep the unit's shape (from a token's
//! start to a token's end, `first` naming the earliest copy), whether the
//! documents' tokens are kept by their analysis or left in their text for
//! the run (long documents).

use neardup_spans::{Emitted, Keep, ReferenceIndex, SpanFinder, SpanKind, Unit};

type Row = (u32, SpanKind, String, (usize, usize), String);

/// The rows of a run; documents of at least `long` bytes are tokenized by
/// the run.
fn run(keep: Keep, docs: &[&str], long: usize) -> Vec<Row> {
    let mut r = ReferenceIndex::new(3);
    r.add("ref", "alpha beta gamma delta");
    let f = SpanFinder::builder()
        .unit(Unit::Substring)
        .min_tokens(3)
        .keep(keep)
        .reference(r)
        .long_document_bytes(long)
        .build()
        .unwrap();
    let mut out = Vec::new();
    let mut sink = |e: &Emitted<'_>| {
        for s in e.spans {
            assert_eq!(s.chars.0, e.text[..s.start].chars().count());
            assert_eq!(s.chars.1, e.text[..s.end].chars().count());
            let t = e.text[s.start..s.end].to_string();
            out.push((e.index, s.kind, t, s.chars, e.source_id(s).to_string()));
        }
        Ok(())
    };
    let mut run = f.run().unwrap();
    for (i, d) in docs.iter().enumerate() {
        let body = Ok((d.to_string(), f.analyze_for_run(d, None)));
        run.push(&format!("d{i}"), body, &mut sink).unwrap();
    }
    run.finish(&mut sink).unwrap();
    out
}

#[test]
fn pieces_of_a_copied_run_cut_around_a_reference_match_stay_on_tokens() {
    let docs = [
        "One two three, alpha beta gamma delta — seven eight nine.",
        "Zéro: one two three, alpha beta gamma delta — seven eight nine...",
    ];
    let sub = |d: u32, t: &str, c: (usize, usize), first: &str| -> Row {
        (d, SpanKind::Substring, t.into(), c, first.into())
    };
    let reference = |d: u32, c: (usize, usize)| -> Row {
        (
            d,
            SpanKind::Reference,
            "alpha beta gamma delta".into(),
            c,
            "ref".into(),
        )
    };
    for long in [usize::MAX, 0] {
        assert_eq!(
            run(Keep::First, &docs, long),
            [
                reference(0, (15, 37)),
                sub(1, "one two three", (6, 19), "d0"),
                reference(1, (21, 43)),
                sub(1, "seven eight nine", (46, 62), "d0"),
            ]
        );
        assert_eq!(
            run(Keep::None, &docs, long),
            [
                sub(0, "One two three", (0, 13), "d0"),
                reference(0, (15, 37)),
                sub(0, "seven eight nine", (40, 56), "d0"),
                sub(1, "one two three", (6, 19), "d0"),
                reference(1, (21, 43)),
                sub(1, "seven eight nine", (46, 62), "d0"),
            ]
        );
    }
}
