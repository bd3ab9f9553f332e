//! Facts about binaries, one layer above the inventory: what a file really carries (`file`:
//! the one reader of host ELF files, bundles and code objects, memory-mapped), whether the
//! runtime would load a code object on an agent (`matching`), Tensile kernel libraries
//! (`tensile`) and where their loaders look (`tensile_path`), `--symbols` (`symbols`), the
//! installed component versions the known issues are judged against (`runtime`), and the
//! typed flags a file sets for them (`flags`). `inspect`, the `libs.code-objects` check, the
//! packs' `code-objects` probe and the known issues all read them; none of them is a report.

pub mod file;
pub(crate) mod flags;
pub(crate) mod matching;
pub(crate) mod pyenv;
pub(crate) mod runtime;
pub(crate) mod symbols;
pub(crate) mod tensile;
pub(crate) mod tensile_path;
