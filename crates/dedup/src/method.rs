//! Methods by name with their decision parameters, as the CLI's `--method`,
//! `--threshold` and `--max-distance` (and the Python bindings) choose them.

use neardup_sketch::{Method, Sketcher};

use crate::dedup::default_method;
use crate::error::Error;
use crate::verify::Verifier;

/// The method called `name` (`default`, or any name [`Method`] parses), its
/// decision threshold set to `threshold` (Jaccard for minhash, minhash-oph
/// and long-sentence; share of matched codes for feature-code; share of
/// matched paragraphs for paragraph) and its largest Hamming distance to
/// `max_distance` (simhash, paragraph). An option that does not apply to
/// the method is an error, not silently ignored.
///
/// ```
/// let m = neardup_dedup::build_method("minhash", Some(0.7), None)?;
/// assert!(matches!(m, neardup_sketch::Method::MinHash(_)));
/// assert!(neardup_dedup::build_method("exact", Some(0.7), None).is_err());
/// assert!(neardup_dedup::build_method("simhash", None, Some(5)).is_ok());
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
pub fn build_method(
    name: &str,
    threshold: Option<f64>,
    max_distance: Option<u32>,
) -> Result<Method, Error> {
    let mut method: Method = if name == "default" {
        default_method()
    } else {
        name.parse()
            .map_err(|e| Error::method(format!("{e}; known: default, {}", known())))?
    };
    if let Some(t) = threshold {
        if !(0.0..=1.0).contains(&t) {
            return Err(Error::method(format!(
                "the threshold must lie in [0, 1], not {t}"
            )));
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
            other => return Err(not_for("a threshold", other)),
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
            other => return Err(not_for("a maximum distance", other)),
        }
    }
    Ok(method)
}

/// The name a method goes by everywhere (the CLI's `--method`, the
/// service's stats and store, Python): `default` for the default method,
/// whatever its threshold and CJK segmentation, else its kind's name.
///
/// ```
/// use neardup_dedup::{build_method, method_name};
/// assert_eq!(method_name(&build_method("default", Some(0.7), None)?), "default");
/// assert_eq!(method_name(&build_method("minhash", None, None)?), "minhash");
/// # Ok::<(), neardup_dedup::Error>(())
/// ```
pub fn method_name(method: &Method) -> &'static str {
    if let Method::MinHash(m) = method {
        let mut m = m.clone();
        m.threshold(Verifier::default().threshold)
            .segmenter(neardup_text::Segmenter::bigrams());
        if Method::MinHash(m).params_bytes() == default_method().params_bytes() {
            return "default";
        }
    }
    method.kind().name()
}

/// What identifies an engine's decisions for good: its method's name and
/// a hash of the versioned bytes of the method's parameters
/// ([`Method::params_bytes`]) and of the exact verifier's
/// ([`Verifier::params_bytes`]), e.g. `default+exact (parameters
/// 1f0c...)`. A store records it, and is never read by an engine with
/// another.
pub fn engine_description(method: &Method, verifier: Option<&Verifier>) -> String {
    let mut bytes = method.params_bytes();
    if let Some(v) = verifier {
        bytes.extend(v.params_bytes());
    }
    let params = xxhash_rust::xxh3::xxh3_64(&bytes);
    let exact = if verifier.is_some() { "+exact" } else { "" };
    format!("{}{exact} (parameters {params:016x})", method_name(method))
}

fn not_for(what: &str, method: &Method) -> Error {
    Error::method(format!("{what} does not apply to {}", method.kind().name()))
}

fn known() -> String {
    neardup_sketch::MethodKind::ALL
        .iter()
        .map(|k| k.name())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_apply_only_where_they_mean_something() {
        let cases: [(&str, Option<f64>, Option<u32>, bool); 9] = [
            ("default", Some(0.6), None, true),
            ("minhash", Some(0.6), None, true),
            ("minhash-oph", Some(0.6), None, true),
            ("long-sentence", Some(0.6), None, true),
            ("feature-code", Some(0.6), None, true),
            ("paragraph", Some(0.6), Some(2), true),
            ("simhash", None, Some(4), true),
            ("simhash", Some(0.6), None, false),
            ("exact", None, Some(1), false),
        ];
        for (name, t, k, ok) in cases {
            assert_eq!(build_method(name, t, k).is_ok(), ok, "{name}");
        }
        assert!(build_method("minhash", Some(1.5), None).is_err());
        let e = build_method("nope", None, None).unwrap_err().to_string();
        assert!(e.contains("known: default, exact"), "{e}");
    }

    #[test]
    fn names_and_descriptions() {
        let mut chars = default_method();
        chars
            .set_segmenter(neardup_text::Segmenter::chars())
            .unwrap();
        assert_eq!(method_name(&chars), "default");
        for name in ["minhash", "minhash-oph", "simhash", "exact", "paragraph"] {
            assert_eq!(method_name(&build_method(name, None, None).unwrap()), name);
        }
        let v = Verifier::default();
        let d = engine_description(&default_method(), Some(&v));
        assert!(d.starts_with("default+exact (parameters "), "{d}");
        // Golden: a change locks every store out, so it must be deliberate.
        assert_eq!(d, "default+exact (parameters c251d45375ad85a6)");
        let strict = Verifier {
            threshold: 0.6,
            ..v
        };
        assert_ne!(engine_description(&default_method(), Some(&strict)), d);
        assert_ne!(engine_description(&default_method(), None), d);
    }
}
