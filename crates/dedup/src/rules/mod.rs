//! The corpus-level rules over verified pairs: the rule trait
//! ([`pair_rule`]), composite pages ([`composite`]), partial copies
//! ([`partial`]) and site templates ([`templates`]).

pub(crate) mod composite;
pub(crate) mod pair_rule;
pub(crate) mod partial;
pub(crate) mod templates;
#[cfg(test)]
pub(crate) mod test_text;
