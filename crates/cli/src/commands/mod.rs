//! One module per subcommand.

pub mod compare;
pub mod dedup;
pub mod eval;
pub mod extract;
pub mod report;
pub mod serve;
pub mod spans;
pub mod store;
