//! Choosing and tuning a fingerprinting method from command-line options,
//! shared by `dedup`, `compare` and `eval`.

use anyhow::{bail, Result};
use clap::Args;
use neardup::sketch::{Method, MethodKind};

/// Options that pick a method and set its decision rule.
#[derive(Debug, Clone, Args)]
pub struct MethodArgs {
    /// Fingerprinting method: minhash (default), minhash-oph, simhash,
    /// simhash128, exact, supershingle, imatch, long-sentence, feature-code,
    /// paragraph.
    #[arg(long, default_value = "minhash")]
    pub method: String,
    /// Similarity threshold of the method's decision (minhash, minhash-oph,
    /// long-sentence: Jaccard; feature-code: share of matched codes;
    /// paragraph: share of matched paragraphs).
    #[arg(long, value_name = "T")]
    pub threshold: Option<f64>,
    /// Largest Hamming distance of a near-duplicate (simhash, paragraph).
    #[arg(long, value_name = "K")]
    pub max_distance: Option<u32>,
}

impl MethodArgs {
    /// The method these options describe.
    pub fn method(&self) -> Result<Method> {
        build_method(&self.method, self.threshold, self.max_distance)
    }
}

/// A method by name with an optional threshold and Hamming distance.
pub fn build_method(
    name: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
) -> Result<Method> {
    let mut method: Method = name.parse()?;
    if let Some(t) = threshold {
        if !(0.0..=1.0).contains(&t) {
            bail!("--threshold must lie in [0, 1], not {t}");
        }
        match &mut method {
            Method::MinHash(m) => {
                m.threshold(t);
            }
            Method::OphMinHash(m) => {
                m.threshold(t);
            }
            Method::LongSentence(m) => {
                m.threshold(t);
            }
            Method::FeatureCode(m) => {
                m.min_overlap(t);
            }
            Method::Paragraph(m) => {
                m.min_share(t);
            }
            other => bail!("--threshold does not apply to {}", kind_name(other)),
        }
    }
    if let Some(k) = max_distance {
        match &mut method {
            Method::SimHash(m) => {
                m.max_distance(k);
            }
            Method::Paragraph(m) => {
                m.max_distance(k);
            }
            other => bail!("--max-distance does not apply to {}", kind_name(other)),
        }
    }
    Ok(method)
}

fn kind_name(method: &Method) -> &'static str {
    use neardup::sketch::Sketcher;
    let kind: MethodKind = method.kind();
    kind.name()
}
