//! One module per subcommand.

pub mod extract;
