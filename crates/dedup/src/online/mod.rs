//! The online first-seen engine: its decisions ([`decisions`]) over a
//! candidate index ([`index`]) by a document's keys ([`candidate_keys`]), the documents it judged ([`docs`],
//! [`memory`]), the composite check's sampled postings ([`sampled`],
//! [`postings_store`]) and its snapshots ([`snapshot`]).

pub(crate) mod candidate_keys;
pub(crate) mod decisions;
pub(crate) mod docs;
pub(crate) mod index;
pub(crate) mod memory;
pub(crate) mod postings_store;
pub(crate) mod sampled;
pub(crate) mod snapshot;
