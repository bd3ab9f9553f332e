//! The library behind `rocm-doctor log FILE|-` (`commands::log`): summarises a HIP runtime
//! AMD_LOG_LEVEL log in one streaming pass.
//!
//! `line` parses the prefix, `msg` recognises messages, `summary` folds them (bounded), `read`
//! does the I/O (compression, parallel regions), `verdict` attaches the doctor's knowledge,
//! `render` prints. Formats and sources: docs/log.md.

pub(crate) mod gen;
pub(crate) mod kernel;
pub(crate) mod nodes;
pub mod read;
pub(crate) mod render;
pub(crate) mod verdict;

// The pure parsers (line prefixes, messages, the bounded summary) live in the parsers crate
// (crates/parsers, docs/architecture.md "The parsers crate"); they keep their paths here.
pub use rocm_doctor_parsers::logscan::{keyed, line, msg, summary};
