//! The pure half of `rocm-doctor log`: [`line`] parses a HIP runtime log line's prefix, [`msg`]
//! recognises its message, [`summary`] folds them (bounded, [`keyed`] counts). The main crate's
//! `logscan` reads files (compression, parallel regions), judges and prints. Formats and
//! sources: docs/log.md.

pub mod feed;
pub mod keyed;
pub mod line;
pub mod msg;
pub mod summary;
