//! From bytes of HTML to the arena DOM: the pre-filter that drops what
//! never becomes text, the tokenizer feed, the tree sink and the DOM, read
//! the way the HTML tokenizer reads markup.

pub(crate) mod attrs;
pub(crate) mod char_refs;
pub(crate) mod dom;
#[cfg(test)]
mod equivalence;
pub(crate) mod feed;
pub(crate) mod foreign;
pub(crate) mod markup;
pub(crate) mod parse;
pub(crate) mod prefilter;
pub(crate) mod sink;
pub(crate) mod space;
