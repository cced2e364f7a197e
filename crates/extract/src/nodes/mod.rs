//! Facts about each node of the DOM: visibility, links, text measures,
//! class/id/role evidence, and the blocks (paragraphs) the text falls into.

pub(crate) mod analyze;
pub(crate) mod chars;
pub(crate) mod evidence;
pub(crate) mod page_hidden;
pub(crate) mod segment;
pub(crate) mod tags;
pub(crate) mod visibility;
