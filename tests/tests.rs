//! The integration tests, built as one binary (like ripgrep's `tests/tests.rs`): linking one
//! test executable instead of one per file is what makes `cargo test` builds fast on small
//! machines. Each module is one area; shared helpers are in `common`. Run one area with
//! `cargo test --test integration MODULE::`.

mod common;

mod actions;
mod architecture;
mod asm_cli;
mod asm_equivalence;
mod bad_input;
mod baseline;
mod broken_setups;
mod bundle;
mod cli;
mod corpus_machine;
mod corpus_recall;
mod discovery_fixtures;
mod doctor_death;
mod fleet_merge;
mod fuzz_regressions;
mod gpu_fixtures;
mod gpu_isa_table;
mod gpu_layers;
mod health;
mod host_root;
mod hostile;
mod inspect_props;
mod inspect_real;
mod inspect_stream;
mod kernlog;
mod log_cli;
mod logscan_props;
mod new_check;
mod nix_sandbox;
mod npd_plugin;
mod npd_real;
mod origins_harvest;
mod packaging;
mod packs_engine;
mod packs_real;
mod parsers_props;
mod progress;
mod ps_cli;
mod python_envs;
mod real_roots;
mod report_cmd;
mod rusage;
mod slurm_contrib;
mod slurm_real;
mod snapshots;
mod targets_vs_gpus;
mod telemetry;
mod toolchain_real;
mod why_cli;
mod why_machine;
