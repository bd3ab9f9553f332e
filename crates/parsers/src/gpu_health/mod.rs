//! The pure half of the GPU health reader (the main crate's `gpu::health` reads sysfs and
//! debugfs through its `Host` and judges):
//!
//! - [`parse`]: the kernel's sysfs formats (each cites the kernel function and the section of the
//!   project's amdgpu health reference);
//! - [`cper`]: the decoder of amdgpu's CPER ring (UEFI appendix N records).

pub mod cper;
pub mod parse;
