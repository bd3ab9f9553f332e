//! rocm-doctor: tells whether an AMD ROCm toolchain and its GPUs work, and if not, what to fix.
//!
//! The flow: argv -> [`config::Config`] -> [`host::Host`] -> [`inventory::Inventory`] ->
//! [`checks`] -> [`report`] -> render -> exit code. See docs/architecture.md.

pub mod app;
pub mod asm;
pub mod binfacts;
pub mod bugreport;
pub mod checkdoc;
pub mod checks;
pub mod cli;
pub mod codeobj;
pub mod commands;
pub mod config;
pub mod data;
pub mod diag;
pub mod fleet;
pub mod glob;
pub mod gpu;
pub mod gpuproc;
pub mod host;
pub mod inspect;
pub mod inventory;
pub mod isa;
pub mod kernlog;
pub mod known_issues;
pub mod logscan;
pub mod packaging;
pub mod packs;
pub mod policy;
pub mod probe;
pub mod registry;
pub mod report;
pub mod runner;
pub mod version;
