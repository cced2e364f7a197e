//! The batch engine's passes over a whole corpus: candidate pairs
//! ([`candidates`]), the chaining-free groups ([`cluster`],
//! [`components`]), and the whole decision in memory ([`run`]) or with the
//! shingle sequences on disk ([`run_spilled`], [`seq_spill`]).

pub(crate) mod band_keys;
pub(crate) mod budget;
pub(crate) mod candidates;
pub(crate) mod cluster;
pub(crate) mod components;
pub(crate) mod corpus;
pub(crate) mod doc_table;
pub(crate) mod fingerprinted;
pub(crate) mod progress;
pub(crate) mod run;
pub(crate) mod run_spilled;
pub(crate) mod seq_spill;
pub(crate) mod sig_slot;
pub(crate) mod sig_spill;
pub(crate) mod slot_file;
