//! GPU health from amdgpu sysfs, without amd-smi (issue 20, item 3): RAS error counters, retired
//! VRAM pages against `amdgpu.bad_page_threshold`, the PCIe link to the platform, XGMI hives,
//! firmware versions, temperatures and throttling, partition modes; and (issue 26) the PCIe AER
//! counters of each GPU and the ports above it, replay counts, and throttle bits judged with the
//! temperatures and activity of their own sample; per-link XGMI state, the PCIe counters of
//! `gpu_metrics` v1_6 to v1_8, and amdgpu's CPER records where debugfs is readable.
//!
//! - [`parse`]: pure parsers of the kernel's formats (each cites the kernel function and the
//!   section of the project's amdgpu health reference).
//! - [`read`]: the only I/O, through `&Host` (rooted at `--sysroot`, fixture deny rules
//!   honoured, bounded reads); absent files are None, unreadable ones are recorded by errno.
//! - [`cper`]: the pure decoder of amdgpu's CPER ring (UEFI appendix N records).
//! - [`judge`]: pure judgements returning [`judge::Problem`]s for the checks to report.

pub mod judge;
pub mod read;

// The pure parsers (sysfs texts, gpu_metrics, the CPER ring) live in the parsers crate
// (crates/parsers, docs/architecture.md "The parsers crate"); they keep their paths here.
pub use rocm_doctor_parsers::gpu_health::{cper, parse};

pub use judge::{Limits, Problem, Severity};
pub use read::{read_health, DeviceHealth, Health};
