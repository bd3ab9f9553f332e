//! rocm-doctor: tells whether an AMD ROCm toolchain and its GPUs work, and if not, what to fix.
//!
//! The flow: argv -> [`config::Config`] -> [`host::Host`] -> [`inventory::Inventory`] ->
//! [`checks`] -> [`report`] -> render -> exit code. See docs/architecture.md.

pub mod app;
pub mod asm;
pub mod binfacts;
pub(crate) mod bugreport;
pub mod checkdoc;
pub(crate) mod checks;
pub mod cli;
pub mod codeobj;
pub(crate) mod commands;
pub mod config;
pub mod data;
pub mod diag;
pub mod fleet;
pub(crate) mod glob;
pub mod gpu;
pub(crate) mod gpuproc;
pub mod host;
pub(crate) mod inspect;
pub mod inventory;
pub mod isa;
pub mod kernlog;
pub(crate) mod known_issues;
pub mod logscan;
pub mod packaging;
pub mod packs;
pub(crate) mod policy;
pub(crate) mod probe;
pub mod registry;
pub mod report;
pub(crate) mod runner;
pub mod version;
