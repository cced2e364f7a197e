//! The help texts: what `neardup --help` says each command does.

mod common;

use common::neardup;

fn help(args: &[&str]) -> String {
    let out = neardup(args);
    assert!(out.status.success(), "{args:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// The summary of `spans` in `neardup --help` (its line and the indented
/// lines that continue it) and the first paragraph of `neardup spans
/// --help` name every unit `--unit` takes.
#[test]
fn the_spans_summary_names_every_unit() {
    let top = help(&["--help"]);
    let mut lines = top
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("spans "));
    let first = lines.next().expect("spans in neardup --help");
    let indent = first.len() - first.trim_start().len();
    let mut summary = first.trim_start()["spans ".len()..].to_string();
    for l in lines.take_while(|l| l.len() - l.trim_start().len() > indent) {
        summary.push(' ');
        summary.push_str(l.trim());
    }
    let own = help(&["spans", "--help"]);
    let about = own.split("\n\n").next().unwrap().replace('\n', " ");
    for text in [&summary, &about] {
        for unit in [
            "paragraphs",
            "lines",
            "sentences",
            "substrings",
            "reference",
        ] {
            assert!(text.contains(unit), "{unit} missing from {text:?}");
        }
    }
    // The units are the ones `--unit` takes.
    for unit in ["`paragraph`", "`line`", "`sentence`", "`substring`"] {
        assert!(own.contains(unit), "{unit} missing from spans --help");
    }
}
