//! Pure parsers for HIP device code: bytes in, a typed result or a precise error out. No I/O.
//!
//! Layers, outermost first (formats: docs/inspect.md and the sources cited in each module):
//! - [`hostelf`]: a host ELF's `.hip_fatbin` section and `.hipFatBinSegment` wrappers;
//! - [`bundle`]: uncompressed `__CLANG_OFFLOAD_BUNDLE__` bundles;
//! - [`ccob`]: compressed bundles (`CCOB` v1/v2/v3, zlib or zstd), with a hard size cap;
//! - [`entry_id`]: bundle entry ids (`hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`);
//! - [`amdgpu`]: AMDGPU code-object ELF headers (`e_flags`) and the `NT_AMDGPU_METADATA` note;
//! - [`blob`]: one bundle (either kind) down to its code objects;
//! - [`elf`], [`msgpack`], [`mach`]: the small readers and tables they share.

pub mod amdgpu;
pub mod blob;
pub mod elf;
pub mod entry_id;
pub mod hostelf;
pub(crate) mod mach;

// The error type, the readers they share and the container parsers live in the parsers crate
// (crates/parsers, docs/architecture.md "The parsers crate"); these keep their paths here.
pub(crate) use rocm_doctor_parsers::codeobj::{
    align_up, hex_prefix, invalid, slice, u32_at, u64_at,
};
pub use rocm_doctor_parsers::codeobj::{bundle, ccob, msgpack, sniff, Error, Magic, Result};
