//! What `Deduplicator.add` / `query` take: HTML, text, or a signature (a
//! `Signature`, a `TextMinHash` / `SimHash`, or a datasketch-style
//! `MinHash` turned into the method's MinHash signature).

use neardup::sketch::{DocText, Method, Signature as Sig, Sketcher};
use pyo3::prelude::*;

use crate::document::HtmlArg;
use crate::errors::err;
use crate::minhash::MinHash;
use crate::signature::Signature;

/// What `add` / `query` were given.
pub enum Input {
    /// HTML, bytes or str.
    Html(HtmlArg),
    /// Plain text.
    Text(String),
    /// A signature of the method.
    Sig(Sig),
}

pub fn input(
    html: Option<HtmlArg>,
    text: Option<String>,
    signature: Option<Sig>,
) -> PyResult<Input> {
    match (html, text, signature) {
        (Some(h), None, None) => Ok(Input::Html(h)),
        (None, Some(t), None) => Ok(Input::Text(t)),
        (None, None, Some(s)) => Ok(Input::Sig(s)),
        _ => Err(err("give exactly one of html=, text= or signature=")),
    }
}

/// The engine signature of `signature=`: a `Signature`, a `TextMinHash` /
/// `SimHash` (their `.signature`), or a `MinHash` of the method's size,
/// whose slots replace those of the method's own MinHash signature (every
/// document of such a deduplicator must then be given as a `MinHash`).
pub fn signature_arg(x: Option<&Bound<'_, PyAny>>, method: &Method) -> PyResult<Option<Sig>> {
    let Some(x) = x else { return Ok(None) };
    if let Ok(s) = x.downcast::<Signature>() {
        return Ok(Some(s.get().sig.clone()));
    }
    if let Ok(m) = x.downcast::<MinHash>() {
        return minhash_signature(&m.borrow().values, method).map(Some);
    }
    if let Ok(inner) = x.getattr("signature") {
        if let Ok(s) = inner.downcast::<Signature>() {
            return Ok(Some(s.get().sig.clone()));
        }
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "signature= takes a neardup Signature, TextMinHash, SimHash or MinHash, not {}",
        x.get_type().name()?
    )))
}

/// The method's MinHash signature with `values` as its slots (neardup's
/// signature byte format: the body ends with the count and the slots).
fn minhash_signature(values: &[u32], method: &Method) -> PyResult<Sig> {
    let template = method.sketch(&DocText::from_text("x"));
    let Sig::MinHash(t) = &template else {
        return Err(err(format!(
            "a MinHash given to a {} deduplicator (use a minhash method)",
            template.kind().name()
        )));
    };
    if t.values().len() != values.len() {
        return Err(err(format!(
            "a MinHash of {} permutations given to a deduplicator of {}",
            values.len(),
            t.values().len()
        )));
    }
    let bytes = template.to_bytes();
    // Header 10 bytes, body, checksum 8 bytes; the slots end the body.
    let body_end = bytes.len() - 8;
    let mut out = bytes[..body_end - 4 * values.len()].to_vec();
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let sum = xxhash_rust::xxh3::xxh3_64(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Sig::from_bytes(&out).map_err(|e| err(format!("cannot convert the MinHash: {e}")))
}
