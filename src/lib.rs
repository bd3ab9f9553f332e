//! rocm-doctor: tells whether an AMD ROCm toolchain and its GPUs work, and if not, what to fix.
//!
//! The flow: argv -> [`config::Config`] -> [`host::Host`] -> [`inventory::Inventory`] ->
//! [`checks`] -> [`report`] -> render -> exit code. See docs/architecture.md.

pub mod app;
pub mod checks;
pub mod cli;
pub mod config;
pub mod host;
pub mod inventory;
pub mod isa;
pub mod report;
pub mod runner;
pub mod probe;
pub mod gpu;
pub mod codeobj;
pub mod inspect;
