//! The ids of a run's documents, in one arena: spans name the document of
//! a first occurrence by id, which may be any earlier document.

/// Document ids in input order: their bytes in one buffer and an offset
/// per document (about 8 bytes plus the id per document).
#[derive(Debug, Default, Clone)]
pub struct IdTable {
    bytes: String,
    ends: Vec<u64>,
}

impl IdTable {
    /// Appends the next document's id; returns its index.
    pub(crate) fn push(&mut self, id: &str) -> usize {
        self.bytes.push_str(id);
        self.ends.push(self.bytes.len() as u64);
        self.ends.len() - 1
    }

    /// The id of document `index` (empty when out of range).
    pub fn get(&self, index: u32) -> &str {
        let i = index as usize;
        let Some(&end) = self.ends.get(i) else {
            return "";
        };
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.bytes.get(start as usize..end as usize).unwrap_or("")
    }

    /// Number of documents.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Bytes of memory held.
    pub fn memory_bytes(&self) -> u64 {
        (self.bytes.capacity() + 8 * self.ends.capacity()) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_by_index() {
        let mut t = IdTable::default();
        assert_eq!(t.push("a"), 0);
        t.push("");
        t.push("網頁-3");
        assert_eq!(
            (t.get(0), t.get(1), t.get(2), t.get(9)),
            ("a", "", "網頁-3", "")
        );
        assert_eq!(t.len(), 3);
    }
}
