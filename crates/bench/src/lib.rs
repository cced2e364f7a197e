//! Corpus generators of `neardup-bench`, shared by its binary and by the
//! tests that measure neardup on the corpora they make.

pub mod mix;
pub mod paragraphs;
pub mod rng;
pub mod spancorpus;
pub mod substrcorpus;
