//! One module per subcommand.

pub mod dedup;
pub mod extract;
