//! Tensile kernel libraries (`rocblas/library`, `hipblaslt/library`): which ISAs the catalog
//! files name and which the code objects really carry.
//!
//! Naming (ROCm/Tensile `Tensile/TensileCreateLibrary.py`): `TensileLibrary_lazy_<gfx>.dat`
//! (per-arch catalog), `TensileLibrary_Type_..._<gfx>.dat` + `.co` (assembly kernels),
//! `..._fallback_<gfx>.hsaco` and `Kernels.so-000-<gfx>[-xnack±].hsaco` (source kernels),
//! monolithic `TensileLibrary.dat` / `.yaml` on old releases; hipBLASLt adds `extop_<gfx>.co`.
//! `.co`/`.hsaco` files may be raw code objects, bundles or CCOB.

use super::file::{inspect_file, Candidate, FileKind};
use crate::codeobj::blob::Options;
use crate::host::Host;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct TensileDir {
    pub path: PathBuf,
    /// `rocblas`, `hipblaslt`, or `tensile` for another directory holding Tensile files.
    pub component: String,
    /// The library's version: from a versioned directory (`rocblas/4.4.1/library`, Debian) or
    /// from the library the directory belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// How many files name each ISA (`TensileLibrary_lazy_gfx90a.dat`, `..._gfx90a.co`).
    pub files_by_isa: std::collections::BTreeMap<String, usize>,
    pub dat_files: usize,
    /// ISAs named by `TensileLibrary*_<gfx>.dat` files.
    pub dat_isas: BTreeSet<String>,
    /// ISAs with a per-arch lazy catalog (`TensileLibrary_lazy_<gfx>.dat`).
    pub lazy_isas: BTreeSet<String>,
    /// A monolithic `TensileLibrary.dat`/`.yaml` exists.
    pub monolithic: bool,
    pub code_object_files: usize,
    /// Files among them that are compressed bundles.
    pub compressed_files: usize,
    /// Target ids the code objects really carry.
    pub code_object_isas: BTreeSet<String>,
    #[serde(skip)]
    pub candidates: Vec<Candidate>,
    /// Files that could not be read, with why (at most 20).
    pub errors: Vec<String>,
}

impl TensileDir {
    pub(crate) fn is_empty(&self) -> bool {
        self.dat_files == 0 && self.code_object_files == 0 && !self.monolithic
    }

    /// `rocblas 4.4.1 Tensile library`.
    pub(crate) fn label(&self) -> String {
        match &self.version {
            Some(v) => format!("{} {v} Tensile library", self.component),
            None => format!("{} Tensile library", self.component),
        }
    }

    /// The processors the directory has catalogs or code objects for, in ISA order.
    pub(crate) fn covered(&self) -> Vec<String> {
        let mut v: BTreeSet<String> = self.dat_isas.clone();
        for c in &self.candidates {
            v.insert(c.target.processor.clone());
        }
        let mut v: Vec<String> = v.into_iter().collect();
        v.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
        v
    }
}

/// The component a directory is the Tensile library of, from its path: `.../rocblas/library`,
/// Debian's versioned `.../rocblas/<version>/library`, the same for hipBLASLt. With the version
/// when the path carries one.
pub(crate) fn component_of_path(p: &Path) -> Option<(&'static str, Option<String>)> {
    if p.file_name()? != "library" {
        return None;
    }
    let parent = p.parent()?;
    let name = |q: &Path| -> Option<&'static str> {
        match q.file_name()?.to_str()? {
            "rocblas" => Some("rocblas"),
            "hipblaslt" => Some("hipblaslt"),
            _ => None,
        }
    };
    if let Some(c) = name(parent) {
        return Some((c, None));
    }
    let version = parent.file_name()?.to_str()?;
    if version.starts_with(|c: char| c.is_ascii_digit()) {
        return name(parent.parent()?).map(|c| (c, Some(version.to_string())));
    }
    None
}

/// Whether a directory holds Tensile catalogs (for a `library` directory found by content).
pub(crate) fn holds_catalogs(host: &Host, dir: &Path) -> bool {
    host.fs.list_names(dir).iter().any(|n| {
        let n = n.to_string_lossy();
        n.starts_with("TensileLibrary") && (n.ends_with(".dat") || n.ends_with(".yaml"))
    })
}

/// The `gfx...` token of a Tensile file name (`TensileLibrary_lazy_gfx90a.dat` -> `gfx90a`,
/// `Kernels.so-000-gfx90a-xnack+.hsaco` -> `gfx90a`).
pub(crate) fn gfx_of_name(name: &str) -> Option<String> {
    let stem = name.rsplit_once('.').map(|(s, _)| s).unwrap_or(name);
    let at = stem.rfind("gfx")?;
    let tok: String = stem[at..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    crate::isa::is_processor_syntax(&tok).then_some(tok)
}

pub(crate) fn is_tensile_file(name: &str) -> bool {
    name.starts_with("TensileLibrary")
        || name.ends_with(".co")
        || name.ends_with(".hsaco")
        || name == "TensileManifest.txt"
}

/// Reads a Tensile library directory (not recursive: Tensile writes it flat).
pub(crate) fn inspect_dir(host: &Host, dir: &Path, component: &str, opts: &Options) -> TensileDir {
    let mut t = TensileDir {
        path: dir.to_path_buf(),
        component: component.to_string(),
        ..Default::default()
    };
    if let Some((_, v)) = component_of_path(dir) {
        t.version = v;
    }
    // Tensile writes the directory flat; newer rocBLAS/hipBLASLt also accept a `<processor>`
    // sub-directory (tensile_host.cpp: `path + "/" + processor`), read one level deep.
    let mut entries: Vec<(PathBuf, String)> = Vec::new();
    for name in host
        .fs
        .list_names(dir)
        .into_iter()
        .filter_map(|n| n.into_string().ok())
    {
        let path = dir.join(&name);
        if name.starts_with("gfx") && host.fs.is_dir(&path) {
            for sub in host
                .fs
                .list_names(&path)
                .into_iter()
                .filter_map(|n| n.into_string().ok())
            {
                entries.push((path.join(&sub), sub));
            }
        } else {
            entries.push((path, name));
        }
    }
    for (path, name) in entries {
        if let Some(g) = gfx_of_name(&name) {
            if is_tensile_file(&name) {
                *t.files_by_isa.entry(g).or_default() += 1;
            }
        }
        if name.starts_with("TensileLibrary") && (name.ends_with(".dat") || name.ends_with(".yaml"))
        {
            t.dat_files += 1;
            if name == "TensileLibrary.dat" || name == "TensileLibrary.yaml" {
                t.monolithic = true;
            }
            if let Some(g) = gfx_of_name(&name) {
                if name.starts_with("TensileLibrary_lazy_") {
                    t.lazy_isas.insert(g.clone());
                }
                t.dat_isas.insert(g);
            }
        } else if name.ends_with(".co") || name.ends_with(".hsaco") {
            t.code_object_files += 1;
            let r = inspect_file(host, &path, opts);
            if r.kind == FileKind::Bundle && r.ccob_bundles().next().is_some() {
                t.compressed_files += 1;
            }
            let err = r
                .error
                .clone()
                .or_else(|| r.bundles.iter().find_map(|b| b.error.clone()));
            if let Some(e) = err {
                if t.errors.len() < 20 {
                    t.errors.push(format!("{}: {e}", path.display()));
                }
            }
            for c in r.candidates() {
                t.code_object_isas.insert(c.target.to_string());
                if !t.candidates.contains(&c) {
                    t.candidates.push(c);
                }
            }
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gfx_from_tensile_names() {
        assert_eq!(
            gfx_of_name("TensileLibrary_lazy_gfx90a.dat").as_deref(),
            Some("gfx90a")
        );
        assert_eq!(
            gfx_of_name("TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_gfx1030.dat")
                .as_deref(),
            Some("gfx1030")
        );
        assert_eq!(
            gfx_of_name("Kernels.so-000-gfx90a-xnack+.hsaco").as_deref(),
            Some("gfx90a")
        );
        assert_eq!(gfx_of_name("TensileLibrary.dat"), None);
    }
}
