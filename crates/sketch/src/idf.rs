//! Inverse document frequencies over feature hashes, built in a first pass
//! over a collection (or supplied by the caller) and used by TF-IDF SimHash
//! and I-Match.

use std::collections::HashMap;

use neardup_text::{ShingleUnit, Shingler};

use crate::doc::DocText;

/// Document frequencies of features (token k-gram hashes) over a collection.
///
/// `idf(f) = ln((N + 1) / (df(f) + 1))`, so a feature present in every
/// document has IDF 0 and an unseen feature has the largest IDF, `ln(N + 1)`.
///
/// ```
/// use neardup_sketch::{DocText, IdfTable};
/// let mut b = IdfTable::builder();
/// for t in ["the cat sat", "the dog ran", "the end"] {
///     b.add_document(&DocText::from_text(t));
/// }
/// let idf = b.build();
/// assert_eq!(idf.documents(), 3);
/// assert!(idf.idf_of_token("the") < idf.idf_of_token("cat"));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct IdfTable {
    unit: ShingleUnit,
    k: usize,
    docs: u64,
    df: HashMap<u64, u32>,
    fp: u64,
}

/// Builder of an [`IdfTable`]: add documents, then [`IdfTableBuilder::build`].
#[derive(Debug, Clone)]
pub struct IdfTableBuilder {
    table: IdfTable,
    shingler: Shingler,
    scratch: Vec<u64>,
}

impl IdfTable {
    /// A builder over single tokens (the features of I-Match and the default
    /// SimHash).
    pub fn builder() -> IdfTableBuilder {
        Self::builder_for(ShingleUnit::Token, 1)
    }

    /// A builder over `k`-grams of `unit`.
    pub fn builder_for(unit: ShingleUnit, k: usize) -> IdfTableBuilder {
        let k = k.max(1);
        IdfTableBuilder {
            table: IdfTable {
                unit,
                k,
                docs: 0,
                df: HashMap::new(),
                fp: 0,
            },
            shingler: Shingler::new(unit, k),
            scratch: Vec::new(),
        }
    }

    /// A table from supplied statistics: `documents` in the collection and
    /// `(feature hash, document frequency)` pairs for features that are
    /// `k`-grams of `unit`.
    pub fn from_frequencies(
        unit: ShingleUnit,
        k: usize,
        documents: u64,
        frequencies: impl IntoIterator<Item = (u64, u32)>,
    ) -> Self {
        let mut t = IdfTable {
            unit,
            k: k.max(1),
            docs: documents,
            df: frequencies.into_iter().collect(),
            fp: 0,
        };
        t.fp = t.compute_fingerprint();
        t
    }

    /// Number of documents the table was built from.
    pub fn documents(&self) -> u64 {
        self.docs
    }

    /// Shingle unit and length of the features.
    pub fn features(&self) -> (ShingleUnit, usize) {
        (self.unit, self.k)
    }

    /// Document frequency of a feature hash.
    pub fn df(&self, feature: u64) -> u32 {
        self.df.get(&feature).copied().unwrap_or(0)
    }

    /// IDF of a feature hash.
    pub fn idf(&self, feature: u64) -> f64 {
        ((self.docs as f64 + 1.0) / (self.df(feature) as f64 + 1.0)).ln()
    }

    /// IDF of one (normalized) token, for tables over single tokens.
    pub fn idf_of_token(&self, token: &str) -> f64 {
        let mut s = Shingler::new(self.unit, self.k);
        s.shingles(token)
            .first()
            .map_or(self.idf(0), |&h| self.idf(h))
    }

    /// A content hash of the table (documents and frequencies), stored in
    /// signatures so that signatures made with different tables are not
    /// compared by mistake.
    pub fn fingerprint(&self) -> u64 {
        self.fp
    }

    fn compute_fingerprint(&self) -> u64 {
        let mut entries: Vec<(u64, u32)> = self.df.iter().map(|(&f, &d)| (f, d)).collect();
        entries.sort_unstable();
        let mut acc = crate::hash::mix64(
            self.docs,
            (self.k as u64) << 8 | crate::minhash::unit_tag(self.unit) as u64,
        );
        for (f, d) in entries {
            acc = crate::hash::mix64(acc ^ f, d as u64);
        }
        acc
    }
}

impl IdfTableBuilder {
    /// Counts the distinct features of a document.
    pub fn add_document(&mut self, doc: &DocText<'_>) -> &mut Self {
        self.add_normalized(&doc.normalized())
    }

    /// Counts the distinct features of an already normalized text.
    pub fn add_normalized(&mut self, text: &str) -> &mut Self {
        self.scratch.clear();
        self.shingler.extend(text, &mut self.scratch);
        self.scratch.sort_unstable();
        self.scratch.dedup();
        for &f in &self.scratch {
            *self.table.df.entry(f).or_insert(0) += 1;
        }
        self.table.docs += 1;
        self
    }

    /// Finishes the table.
    pub fn build(self) -> IdfTable {
        let mut t = self.table;
        t.fp = t.compute_fingerprint();
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idf_values() {
        let mut b = IdfTable::builder();
        b.add_normalized("a b")
            .add_normalized("a c")
            .add_normalized("a a");
        let t = b.build();
        assert_eq!(t.idf_of_token("a"), 0.0);
        assert!((t.idf_of_token("b") - 2f64.ln()).abs() < 1e-12);
        assert!((t.idf_of_token("zzz") - 4f64.ln()).abs() < 1e-12);
        let again = IdfTable::from_frequencies(
            ShingleUnit::Token,
            1,
            3,
            t.df.iter().map(|(&f, &d)| (f, d)),
        );
        assert_eq!(again.fingerprint(), t.fingerprint());
    }
}
