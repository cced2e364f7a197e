//! The page-level decisions: what kind of page it is (article, listing,
//! product, a site's own page), which container holds its main text, what
//! is cleaned out of it, and its title.

pub(crate) mod clean;
pub(crate) mod extract;
pub(crate) mod jsonld;
pub(crate) mod labels;
pub(crate) mod listing;
pub(crate) mod page_kind;
pub(crate) mod product;
pub(crate) mod records;
pub(crate) mod repeats;
pub(crate) mod score;
pub(crate) mod tail;
pub(crate) mod teaser;
pub(crate) mod thread;
pub(crate) mod title;
