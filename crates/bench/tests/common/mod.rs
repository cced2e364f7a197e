//! What the bench crate's tests share: the paragraph pools of the shared
//! evaluation data, or a note that the tests skip.

use std::path::Path;

use neardup_bench::paragraphs::Pools;

/// The pools of `../shared/eval/extraction`, or `None` (saying so) when the
/// shared evaluation data is absent.
pub fn shared_pools() -> Option<Pools> {
    let eval = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/eval/extraction");
    if !eval.is_dir() {
        eprintln!(
            "skipped: {} is absent (the shared evaluation data)",
            eval.display()
        );
        return None;
    }
    Some(Pools::load(&eval).unwrap())
}
