//! ROCm-bearing Python environments, found and read by file reads only (nothing found is run or
//! imported): PyTorch ROCm wheels, TheRock's `rocm` / `rocm-sdk-*` wheels, and the kernel
//! libraries they bundle, with the ISAs each ships kernels for. The `libs.python-envs` check
//! judges them against the GPUs.
//!
//! Where (bounded, no walk): the site directories of the `python3` on `PATH`
//! (`inventory::python::site_dirs`), plus the prefixes of `$VIRTUAL_ENV` and `$CONDA_PREFIX`,
//! `/usr`, `/usr/local`, the usual environment places below `$HOME` and `/opt` (`~/venv`,
//! `~/.venv`, `~/.virtualenvs/*`, `~/<dir>/{venv,.venv}`, conda and pyenv installs and their
//! `envs/*` / `versions/*`, `/opt/*` and `/opt/*/{venv,.venv}`), each directory listed at most
//! [`MAX_LISTING`] entries.
//!
//! What (formats):
//! - PyTorch: `torch/version.py` as `tools/generate_torch_version.py` writes it
//!   (`__version__ = '2.5.1+rocm6.2'`, `hip: Optional[str] = '6.2.41133-dd7f95766'` or
//!   `hip = None` for a CUDA or CPU build, `rocm` on newer ones); the classic wheel bundles
//!   rocBLAS and hipBLASLt kernel libraries in `torch/lib/{rocblas,hipblaslt}/library/` and
//!   MIOpen's databases in `torch/share/miopen/db/` (pytorch `.ci/manywheel/build_rocm.sh`); a
//!   TheRock-based wheel has `torch/_rocm_init.py` and takes ROCm from the `rocm_sdk` packages
//!   (TheRock `external-builds/pytorch/build_prod_wheels.py`).
//! - TheRock wheels (`build_tools/packaging/python/templates/rocm/src/rocm_sdk/_dist_info.py`,
//!   lines appended by `build_tools/_therock_utils/py_packaging.py`): `rocm_sdk/_dist_info.py`
//!   (`__version__`, `PY_PACKAGE_SUFFIX_NONCE`, `AVAILABLE_TARGET_FAMILIES.append(...)`,
//!   `DEFAULT_TARGET_FAMILY`), the platform packages `_rocm_sdk_core<nonce>/`,
//!   `_rocm_sdk_libraries[_<family>]<nonce>/` (its `lib/{rocblas,hipblaslt}/library/`),
//!   `_rocm_sdk_core*/share/therock/dist_info.json` (`{"dist_amdgpu_targets": "gfx1100;..."}`,
//!   TheRock `base/aux-overlay/CMakeLists.txt`), and the dists' `*.dist-info` directory names
//!   (`rocm_sdk_core-7.15.0a20260630.dist-info`, `rocm_sdk_device_gfx1100-...`; the packaging
//!   guide's "Recording installed projects": `{name}-{version}.dist-info`, `-` in the name
//!   escaped as `_`). Wheels of different dates installed together break soname links
//!   (TheRock#1057): every `rocm*` dist should carry one version.
//! - Kernel ISAs from file names (ROCm/Tensile `TensileCreateLibrary.py`: `TensileLibrary_lazy_
//!   <gfx>.dat`, `..._<gfx>.co`, `Kernels.so-000-<gfx>[-xnack±].hsaco`; hipBLASLt `..._<gfx>.co`;
//!   `binfacts::tensile::gfx_of_name`), and MIOpen's kernel databases named after the device
//!   (`<gfx><compute units>.kdb`, e.g. `gfx90a6e.kdb`, `gfx1030_36.kdb`): the longest known
//!   processor name that starts the file name.

use crate::host::Host;
use crate::inventory::python;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Entries read of any one directory (a site directory, a kernel library, `$HOME`).
pub(crate) const MAX_LISTING: usize = 20_000;
/// Entries of `$HOME` and `/opt` looked into for an environment one level down.
const MAX_CHILDREN: usize = 256;
/// Bytes read of one small metadata file (`version.py`, `_dist_info.py`, `dist_info.json`).
const MAX_META: u64 = 256 << 10;

/// What one site directory holds of ROCm.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct PyEnv {
    /// The environment's prefix (`<prefix>/lib/python3.X/site-packages`), else the site dir.
    pub prefix: PathBuf,
    pub site: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub torch: Option<Torch>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub therock: Option<TheRock>,
    /// Installed `rocm*` dists: (name, version) from their `.dist-info` directory names.
    pub rocm_dists: Vec<(String, String)>,
    /// Kernel libraries found, with the ISAs their file names name.
    pub kernels: Vec<Kernels>,
    /// What could not be read, and why.
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Torch {
    pub version: Option<String>,
    pub hip: Option<String>,
    pub rocm: Option<String>,
    /// `torch/_rocm_init.py`: ROCm comes from TheRock's `rocm_sdk` packages.
    pub therock_based: bool,
}

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct TheRock {
    pub version: Option<String>,
    pub nonce: Option<String>,
    pub target_families: Vec<String>,
    pub default_family: Option<String>,
    /// `dist_amdgpu_targets` of `share/therock/dist_info.json`.
    pub dist_targets: Vec<String>,
    /// ISAs of the installed `rocm-sdk-device-<gfx>` packages.
    pub device_packages: Vec<String>,
}

/// One kernel library directory.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Kernels {
    /// `rocBLAS`, `hipBLASLt` or `MIOpen`.
    pub component: &'static str,
    pub dir: PathBuf,
    pub files: usize,
    pub isas: BTreeSet<String>,
    /// The listing stopped at [`MAX_LISTING`] entries.
    pub truncated: bool,
}

impl PyEnv {
    /// `torch in /home/u/venv (2.5.1+rocm6.2)`, `TheRock rocm wheels in ... (7.15.0a20260630)`,
    /// `torch in ... (2.9.1, on TheRock rocm 7.15.0a20260630)`.
    pub(crate) fn describe(&self) -> String {
        let place = self.prefix.display();
        let v = |o: &Option<String>| o.clone().unwrap_or_else(|| "version unknown".into());
        match (&self.torch, &self.therock) {
            (Some(t), Some(r)) => format!(
                "torch in {place} ({}, on TheRock rocm {})",
                v(&t.version),
                v(&r.version)
            ),
            (Some(t), None) => format!("torch in {place} ({})", v(&t.version)),
            (None, Some(r)) => format!("TheRock rocm wheels in {place} ({})", v(&r.version)),
            (None, None) => format!("Python environment {place}"),
        }
    }

    /// The kernels of `component`, if the environment has that library.
    pub(crate) fn kernels_of(&self, component: &str) -> Option<&Kernels> {
        self.kernels.iter().find(|k| k.component == component)
    }

    /// The `rocm*` dists' distinct versions (more than one: wheels of different builds mixed).
    pub(crate) fn dist_versions(&self) -> BTreeSet<&str> {
        self.rocm_dists.iter().map(|(_, v)| v.as_str()).collect()
    }
}

/// Every ROCm-bearing environment found, and how many site directories were looked at.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Scan {
    pub envs: Vec<PyEnv>,
    pub site_dirs: usize,
    /// Places that could not be read (a loop of links, a directory refused).
    pub problems: Vec<String>,
}

/// Finds and reads the environments.
pub(crate) fn scan(host: &Host) -> Scan {
    let mut out = Scan::default();
    let mut sites: Vec<PathBuf> = python::site_dirs(host).unwrap_or_default();
    for prefix in prefixes(host) {
        for pat in python::PREFIX_SITES {
            sites.extend(crate::inventory::expand::expand(host, &prefix.join(pat)));
        }
    }
    // One entry per real directory (a venv's `lib64` is a link to `lib`): by device and inode,
    // one `stat` each (a loop of links answers ELOOP here).
    let mut seen: BTreeSet<(u64, u64)> = BTreeSet::new();
    sites.sort();
    sites.dedup();
    for site in sites {
        use std::os::unix::fs::MetadataExt;
        let meta = match host.fs.metadata(&site) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                out.problems.push(format!(
                    "{}: {}",
                    site.display(),
                    crate::host::io_error_text(&e)
                ));
                continue;
            }
        };
        if !meta.is_dir() || !seen.insert((meta.dev(), meta.ino())) {
            continue;
        }
        out.site_dirs += 1;
        if let Some(env) = read_site(host, &site) {
            out.envs.push(env);
        }
    }
    out
}

/// The environment prefixes beyond the interpreter's own (module doc).
fn prefixes(host: &Host) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = vec!["/usr".into(), "/usr/local".into()];
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(p) = host.env.get_os(var).map(PathBuf::from) {
            if p.is_absolute() {
                v.push(p);
            }
        }
    }
    let conda_like = [
        "miniconda3",
        "anaconda3",
        "miniforge3",
        "mambaforge",
        "conda",
    ];
    let mut bases: Vec<PathBuf> = vec![PathBuf::from("/opt")];
    if let Some(home) = host.env.get_os("HOME").map(PathBuf::from) {
        if home.is_absolute() && home != Path::new("/") {
            for d in [
                ".virtualenvs",
                ".pyenv/versions",
                ".local/share/virtualenvs",
            ] {
                v.extend(children(host, &home.join(d)));
            }
            for d in [".conda", ".local"] {
                v.push(home.join(d));
            }
            for d in conda_like.iter().chain([".conda"].iter()) {
                v.extend(children(host, &home.join(d).join("envs")));
            }
            bases.push(home);
        }
    }
    // One level down, only what says it is an environment: PEP 405's `pyvenv.cfg`, or conda's
    // `conda-meta/` (one `stat` each, so a large `$HOME` costs little).
    let is_env =
        |p: &Path| host.fs.exists(&p.join("pyvenv.cfg")) || host.fs.is_dir(&p.join("conda-meta"));
    for base in bases {
        for child in children(host, &base) {
            for sub in ["", "venv", ".venv", "env"] {
                let p = if sub.is_empty() {
                    child.clone()
                } else {
                    child.join(sub)
                };
                if is_env(&p) {
                    v.push(p);
                }
            }
            let name = child.file_name().map(|n| n.to_string_lossy().into_owned());
            if name.is_some_and(|n| conda_like.contains(&n.as_str())) {
                v.extend(children(host, &child.join("envs")));
            }
        }
    }
    v.sort();
    v.dedup();
    v
}

/// The subdirectories of `dir` (at most [`MAX_CHILDREN`], hidden ones included).
fn children(host: &Host, dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = host.fs.read_dir(dir) else {
        return Vec::new();
    };
    rd.filter_map(|e| e.ok())
        .take(MAX_CHILDREN)
        // Links too (`~/venv -> /data/venv`): what they name is checked by the caller.
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir() || t.is_symlink()))
        .map(|e| dir.join(e.file_name()))
        .collect()
}

/// The names in a directory, at most `MAX_LISTING`; whether it stopped there.
fn listing(host: &Host, dir: &Path) -> std::io::Result<(Vec<String>, bool)> {
    let rd = host.fs.read_dir(dir)?;
    let mut names = Vec::new();
    let mut truncated = false;
    for e in rd.filter_map(|e| e.ok()) {
        if names.len() == MAX_LISTING {
            truncated = true;
            break;
        }
        names.push(e.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok((names, truncated))
}

/// `<prefix>` of `<prefix>/lib*/python3*/site-packages` (and `local/...`), else the site dir.
fn prefix_of(site: &Path) -> PathBuf {
    let comps: Vec<_> = site.components().collect();
    let n = comps.len();
    if n >= 3 {
        let lib = comps[n - 3].as_os_str().to_string_lossy();
        if lib.starts_with("lib") {
            let p: PathBuf = comps[..n - 3].iter().collect();
            return p;
        }
    }
    site.to_path_buf()
}

/// The torch package of an environment (`t`, its directory): its version and HIP, whether it
/// is TheRock's, its kernel libraries. A CUDA or CPU build is left out.
fn read_torch(host: &Host, t: &Path, env: &mut PyEnv) {
    match host.fs.read_bytes_limited(&t.join("version.py"), MAX_META) {
        Ok(b) => {
            let torch = torch_version(&String::from_utf8_lossy(&b));
            let therock_based = host.fs.exists(&t.join("_rocm_init.py"));
            // A CUDA or CPU build (`hip = None`) carries no ROCm.
            if torch.hip.is_some() || therock_based {
                env.torch = Some(Torch {
                    therock_based,
                    ..torch
                });
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            // Reported, not guessed: a torch whose version cannot be read (a FIFO, a
            // directory, a file too large) is listed with the reason.
            env.problems.push(format!(
                "{}: {}",
                t.join("version.py").display(),
                crate::host::io_error_text(&e)
            ));
            env.torch = Some(Torch::default());
        }
    }
    if env.torch.is_some() {
        kernel_dirs(host, t, env);
    }
}

fn read_site(host: &Host, site: &Path) -> Option<PyEnv> {
    let (names, _) = listing(host, site).ok()?;
    let has = |n: &str| names.iter().any(|x| x == n);
    let core: Vec<&String> = names
        .iter()
        .filter(|n| n.starts_with("_rocm_sdk_core"))
        .collect();
    let libs: Vec<&String> = names
        .iter()
        .filter(|n| n.starts_with("_rocm_sdk_libraries"))
        .collect();
    let rocm_dists: Vec<(String, String)> = names
        .iter()
        .filter_map(|n| n.strip_suffix(".dist-info"))
        .filter_map(|n| n.split_once('-'))
        .filter(|(name, _)| *name == "rocm" || name.starts_with("rocm_sdk"))
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    if !has("torch") && core.is_empty() && libs.is_empty() && !has("rocm_sdk") {
        return None;
    }
    let mut env = PyEnv {
        prefix: prefix_of(site),
        site: site.to_path_buf(),
        rocm_dists,
        ..Default::default()
    };
    if has("torch") {
        read_torch(host, &site.join("torch"), &mut env);
    }
    if !core.is_empty() || !libs.is_empty() || has("rocm_sdk") {
        let mut r = TheRock::default();
        if let Ok(b) = host
            .fs
            .read_bytes_limited(&site.join("rocm_sdk/_dist_info.py"), MAX_META)
        {
            dist_info_py(&String::from_utf8_lossy(&b), &mut r);
        }
        for c in &core {
            let p = site.join(c).join("share/therock/dist_info.json");
            if let Ok(b) = host.fs.read_bytes_limited(&p, MAX_META) {
                r.dist_targets = dist_targets(&String::from_utf8_lossy(&b));
            }
        }
        r.device_packages = env
            .rocm_dists
            .iter()
            .filter_map(|(n, _)| n.strip_prefix("rocm_sdk_device_"))
            .filter(|g| crate::isa::is_processor_syntax(g))
            .map(str::to_string)
            .collect();
        for l in &libs {
            kernel_dirs(host, &site.join(l), &mut env);
        }
        env.therock = Some(r);
    }
    (env.torch.is_some() || env.therock.is_some()).then_some(env)
}

/// Reads the kernel library directories below `root` (`torch/` or a `_rocm_sdk_libraries*`).
fn kernel_dirs(host: &Host, root: &Path, env: &mut PyEnv) {
    // TheRock's libraries packages have held the Tensile files below `bin/` as well as `lib/`
    // (vladmandic/sdnext#4737: `_rocm_sdk_libraries_gfx120X_all/bin/rocblas/library`).
    for (component, rel) in [
        ("rocBLAS", "lib/rocblas/library"),
        ("rocBLAS", "bin/rocblas/library"),
        ("hipBLASLt", "lib/hipblaslt/library"),
        ("hipBLASLt", "bin/hipblaslt/library"),
        ("MIOpen", "share/miopen/db"),
    ] {
        let dir = root.join(rel);
        let (names, truncated) = match listing(host, &dir) {
            Ok(l) => l,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                env.problems.push(format!(
                    "{}: {}",
                    dir.display(),
                    crate::host::io_error_text(&e)
                ));
                continue;
            }
        };
        let isas: BTreeSet<String> = names
            .iter()
            .filter_map(|n| {
                if component == "MIOpen" {
                    n.ends_with(".kdb").then(|| miopen_isa(n)).flatten()
                } else {
                    super::tensile::gfx_of_name(n)
                }
            })
            .collect();
        if let Some(k) = env.kernels.iter_mut().find(|k| k.component == component) {
            // A TheRock install with several libraries packages: one set per component.
            k.isas.extend(isas);
            k.files += names.len();
            k.truncated |= truncated;
        } else {
            env.kernels.push(Kernels {
                component,
                dir,
                files: names.len(),
                isas,
                truncated,
            });
        }
    }
}

/// The value of `key = '...'` / `key: Optional[str] = "..."` on a line of Python (pure).
fn py_string(line: &str, key: &str) -> Option<Option<String>> {
    let rest = line.trim_start().strip_prefix(key)?;
    let rest = rest.trim_start();
    let rest = match rest.strip_prefix(':') {
        Some(r) => r.split_once('=')?.1,
        None => rest.strip_prefix('=')?,
    }
    .trim();
    if rest.starts_with("None") {
        return Some(None);
    }
    let q = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let body = &rest[1..];
    let end = body.find(q)?;
    Some(Some(body[..end].chars().take(80).collect()))
}

/// `torch/version.py` (pure).
pub(crate) fn torch_version(text: &str) -> Torch {
    let mut t = Torch::default();
    for line in text.lines().take(200) {
        if let Some(v) = py_string(line, "__version__") {
            t.version = v;
        } else if let Some(v) = py_string(line, "hip") {
            t.hip = v;
        } else if let Some(v) = py_string(line, "rocm") {
            t.rocm = v;
        }
    }
    t
}

/// `rocm_sdk/_dist_info.py`'s generated lines (pure).
fn dist_info_py(text: &str, r: &mut TheRock) {
    for line in text.lines().take(2000) {
        if let Some(v) = py_string(line, "__version__") {
            r.version = v;
        } else if let Some(v) = py_string(line, "PY_PACKAGE_SUFFIX_NONCE") {
            r.nonce = v;
        } else if let Some(v) = py_string(line, "DEFAULT_TARGET_FAMILY") {
            r.default_family = v;
        } else if let Some(arg) = line
            .trim_start()
            .strip_prefix("AVAILABLE_TARGET_FAMILIES.append(")
        {
            let a = arg.trim_end().trim_end_matches(')').trim();
            let a = a.trim_matches(|c| c == '\'' || c == '"');
            if !a.is_empty() && r.target_families.len() < 64 {
                r.target_families.push(a.chars().take(40).collect());
            }
        }
    }
}

/// `dist_amdgpu_targets` of `dist_info.json` (pure): CMake's list, `;`-separated.
fn dist_targets(text: &str) -> Vec<String> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    v["dist_amdgpu_targets"]
        .as_str()
        .unwrap_or("")
        .split([';', ',', ' '])
        .map(str::trim)
        .filter(|s| crate::isa::is_processor_syntax(s))
        .map(str::to_string)
        .collect()
}

/// The processor an MIOpen `.kdb` file is named after (pure): the longest known processor name
/// that begins it.
fn miopen_isa(name: &str) -> Option<String> {
    crate::isa::processors()
        .iter()
        .filter(|p| !p.is_generic && name.starts_with(p.name.as_str()))
        .max_by_key(|p| p.name.len())
        .map(|p| p.name.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torch_version_files_of_both_generations() {
        // tools/generate_torch_version.py: typed assignments (torch >= 1.10) and plain ones.
        let t = torch_version(
            "from typing import Optional\n__version__ = '2.5.1+rocm6.2'\ndebug = False\n\
             cuda: Optional[str] = None\nhip: Optional[str] = '6.2.41133-dd7f95766'\n",
        );
        assert_eq!(t.version.as_deref(), Some("2.5.1+rocm6.2"));
        assert_eq!(t.hip.as_deref(), Some("6.2.41133-dd7f95766"));
        let t = torch_version("__version__ = \"2.4.0+cu121\"\nhip = None\ncuda = '12.1'\n");
        assert_eq!(t.hip, None);
        assert_eq!(t.version.as_deref(), Some("2.4.0+cu121"));
        // `hipify` or `hip_version` are other keys.
        assert_eq!(torch_version("hipify = 'x'\n").hip, None);
    }

    #[test]
    fn therock_dist_info_lines_and_targets() {
        let mut r = TheRock::default();
        dist_info_py(
            "__version__ = \"7.15.0a20260630\"\nPY_PACKAGE_SUFFIX_NONCE = \"\"\n\
             AVAILABLE_TARGET_FAMILIES.append(\"gfx110X-all\")\n\
             AVAILABLE_TARGET_FAMILIES.append('gfx94X-dcgpu')\nDEFAULT_TARGET_FAMILY = \"gfx110X-all\"\n",
            &mut r,
        );
        assert_eq!(r.version.as_deref(), Some("7.15.0a20260630"));
        assert_eq!(r.nonce.as_deref(), Some(""));
        assert_eq!(r.target_families, ["gfx110X-all", "gfx94X-dcgpu"]);
        assert_eq!(r.default_family.as_deref(), Some("gfx110X-all"));
        assert_eq!(
            dist_targets(r#"{"dist_amdgpu_targets": "gfx1100;gfx1101;gfx1102;gfx1103"}"#),
            ["gfx1100", "gfx1101", "gfx1102", "gfx1103"]
        );
        assert!(dist_targets("not json").is_empty());
    }

    #[test]
    fn miopen_databases_name_their_processor() {
        assert_eq!(miopen_isa("gfx90a6e.kdb").as_deref(), Some("gfx90a"));
        assert_eq!(miopen_isa("gfx1030_36.kdb").as_deref(), Some("gfx1030"));
        assert_eq!(miopen_isa("gfx942130.kdb").as_deref(), Some("gfx942"));
        assert_eq!(miopen_isa("readme.kdb"), None);
    }

    #[test]
    fn prefixes_of_site_directories() {
        assert_eq!(
            prefix_of(Path::new("/home/u/venv/lib/python3.12/site-packages")),
            Path::new("/home/u/venv")
        );
        assert_eq!(
            prefix_of(Path::new("/usr/lib/python3/dist-packages")),
            Path::new("/usr")
        );
        assert_eq!(prefix_of(Path::new("/x/site")), Path::new("/x/site"));
    }
}
