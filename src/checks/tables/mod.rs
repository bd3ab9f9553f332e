//! In-process table tests of the check families (the GPU family's are `src/checks/gpu/tests.rs`):
//! fixture trees from `tests/fixtures` and environment pairs in, each check's findings out,
//! through the harness `crate::checks::testkit`. A fixture root has no PATH, so no tool runs:
//! these rows pin what each check says from files alone (the verdicts that need clang, the
//! assembler or a loaded library are covered by the integration tests on real tools).

mod asm;
mod health;
mod kernel;
mod libs;
mod runtime;
mod targets;
mod toolchain;
