//! rocm-doctor's pure parsers of untrusted input: bytes or text in, a typed value or a typed
//! error out. No I/O, no `Host`, no child processes, no data tables: the main crate
//! (`rocm_doctor`) re-exports each module at its old path, and the fuzz targets of these parsers
//! link this crate alone (docs/architecture.md, "The parsers crate").

pub mod codeobj;
pub mod fdinfo;
pub mod gfx;
pub mod gpu_health;
pub mod kernlog;
pub mod kfd_props;
pub mod logscan;
