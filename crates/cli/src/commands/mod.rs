//! One module per subcommand.

pub mod dedup;
pub mod eval;
pub mod extract;
