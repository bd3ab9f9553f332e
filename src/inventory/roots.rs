//! ROCm roots: where ROCm is installed, how it is laid out, and who pointed at it.
//!
//! Layout facts (shared/reference/code-objects.md §5-§6): AMD packages install `/opt/rocm-X.Y.Z`
//! with `.info/version` and bitcode in `amdgcn/bitcode` (5.x/6.0) or
//! `lib/llvm/lib/clang/N/lib/amdgcn/bitcode` (6.2+); Debian/Ubuntu distro packages use `/usr`
//! with bitcode in `/usr/lib/<triplet>/amdgcn/bitcode`; TheRock uses `lib/llvm/amdgcn/bitcode`;
//! Nix puts each component in its own store path, or merges them with symlinkJoin.

use crate::config::Config;
use crate::host::Host;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Layout {
    /// AMD's packages: `/opt/rocm-X.Y.Z` (and the `/opt/rocm` link).
    OptRocm,
    /// A distribution's FHS layout (`/usr`, bitcode in `/usr/lib/<triplet>/amdgcn/bitcode`).
    Fhs,
    /// TheRock tarball or wheel: `lib/llvm/amdgcn/bitcode`.
    TheRock,
    /// One Nix store path holding one component (clr, rocm-device-libs, ...).
    NixSplit,
    /// A Nix symlinkJoin tree merging components (entries are links into other store paths).
    NixJoined,
    /// Something else (a custom prefix).
    Custom,
}

impl Layout {
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Layout::OptRocm => "AMD packages (/opt/rocm-X.Y.Z)",
            Layout::Fhs => "distribution FHS layout",
            Layout::TheRock => "TheRock",
            Layout::NixSplit => "Nix store path (one component)",
            Layout::NixJoined => "Nix symlinkJoin tree",
            Layout::Custom => "custom prefix",
        }
    }
}

/// What a root holds (machine paths), found by looking, not by running anything.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct RootParts {
    pub hip_headers: Option<PathBuf>,
    pub bitcode_dirs: Vec<PathBuf>,
    pub clang: Option<PathBuf>,
    pub hipcc: Option<PathBuf>,
    pub hipconfig: Option<PathBuf>,
    pub lib_dirs: Vec<PathBuf>,
}

impl RootParts {
    pub(crate) fn is_empty(&self) -> bool {
        self.hip_headers.is_none()
            && self.bitcode_dirs.is_empty()
            && self.clang.is_none()
            && self.hipcc.is_none()
            && self.lib_dirs.is_empty()
    }
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct RocmRoot {
    /// The path as it was given or found (machine path).
    pub path: PathBuf,
    /// `path` with symlinks resolved, used to tell roots apart.
    pub canonical: PathBuf,
    pub layout: Layout,
    /// Who pointed at this root: `--rocm-path`, `ROCM_PATH`, `PATH (hipcc)`, `/opt/rocm`...
    pub sources: Vec<String>,
    pub parts: RootParts,
    /// Component versions read from files.
    pub versions: super::versions::RootVersions,
}

/// A place some variable or tool pointed at, before deduplication.
struct Candidate {
    path: PathBuf,
    source: String,
}

/// The `lib/<triplet>` directories a distribution may use.
pub(crate) const TRIPLET_LIB_DIRS: &[&str] = &[
    "lib/x86_64-linux-gnu",
    "lib64",
    "lib/aarch64-linux-gnu",
    "lib/powerpc64le-linux-gnu",
];

/// Where a ROCm root may be, most explicit first: `--rocm-path`, the environment, the tools on
/// `PATH` (links followed), `/opt/rocm*`, `/usr`.
fn candidates(host: &Host, cfg: &Config) -> Vec<Candidate> {
    let mut cands: Vec<Candidate> = Vec::new();
    if let Some(p) = &cfg.rocm_path {
        cands.push(Candidate {
            path: p.clone(),
            source: "--rocm-path".into(),
        });
    }
    for var in ["ROCM_PATH", "HIP_PATH", "ROCM_HOME"] {
        if let Some(v) = env_path(host, var) {
            cands.push(Candidate {
                path: v,
                source: var.into(),
            });
        }
    }
    if let Some(v) = env_path(host, "HIP_CLANG_PATH") {
        if let Some(root) = root_of_bin_dir(&v) {
            cands.push(Candidate {
                path: root,
                source: "HIP_CLANG_PATH".into(),
            });
        }
    }
    for var in ["HIP_DEVICE_LIB_PATH", "DEVICE_LIB_PATH"] {
        if let Some(v) = env_path(host, var) {
            if let Some(root) = root_of_bitcode_dir(&v) {
                cands.push(Candidate {
                    path: root,
                    source: var.into(),
                });
            }
        }
    }
    for tool in ["hipcc", "hipconfig", "amdclang++"] {
        if let Some(p) = host.which(tool) {
            // Follow links so /usr/bin/hipcc -> /opt/rocm-6.2.2/bin/hipcc names the real root.
            let real = host.fs.canonicalize(&p).unwrap_or(p);
            if let Some(root) = root_of_tool(&real) {
                cands.push(Candidate {
                    path: root,
                    source: format!("PATH ({tool})"),
                });
            }
        }
    }
    for name in host.fs.list_names(Path::new("/opt")) {
        let n = name.to_string_lossy();
        if n == "rocm" || n.starts_with("rocm-") {
            cands.push(Candidate {
                path: Path::new("/opt").join(&*n),
                source: format!("/opt/{n}"),
            });
        }
    }
    cands.push(Candidate {
        path: PathBuf::from("/usr"),
        source: "/usr".into(),
    });
    cands
}

/// The ROCm roots: each candidate directory once (by its canonical path, with every source
/// that names it), `/opt/rocm*` and `/usr` only when they hold ROCm.
pub(crate) fn discover(host: &Host, cfg: &Config) -> Vec<RocmRoot> {
    let cands = candidates(host, cfg);
    let mut roots: Vec<RocmRoot> = Vec::new();
    for c in cands {
        if !host.fs.is_dir(&c.path) {
            continue; // env values that point nowhere are judged by the env check
        }
        let canonical = host
            .fs
            .canonicalize(&c.path)
            .unwrap_or_else(|_| c.path.clone());
        if let Some(r) = roots.iter_mut().find(|r| r.canonical == canonical) {
            if !r.sources.contains(&c.source) {
                r.sources.push(c.source);
            }
            continue;
        }
        let parts = parts_of(host, &canonical);
        // /opt/rocm* and /usr count only when they hold ROCm; an explicit pointer always counts.
        let implicit = c.source.starts_with('/');
        if implicit && parts.is_empty() {
            continue;
        }
        let layout = layout_of(host, &canonical, &parts);
        let versions = super::versions::read_root_versions(host, &canonical);
        roots.push(RocmRoot {
            path: c.path,
            canonical,
            layout,
            sources: vec![c.source],
            parts,
            versions,
        });
    }
    roots
}

fn env_path(host: &Host, var: &str) -> Option<PathBuf> {
    let v = host.env.get_str(var)?;
    let v = v.trim().trim_matches('"');
    if v.is_empty() || !v.starts_with('/') {
        return None;
    }
    Some(
        PathBuf::from(v.trim_end_matches('/'))
            .components()
            .collect(),
    )
}

/// `/opt/rocm/llvm/bin` -> `/opt/rocm`, `/opt/rocm/lib/llvm/bin` -> `/opt/rocm`, `/x/bin` -> `/x`.
pub(crate) fn root_of_bin_dir(bin: &Path) -> Option<PathBuf> {
    let parent = bin.parent()?;
    if parent.ends_with("lib/llvm") {
        return parent.parent()?.parent().map(Path::to_path_buf);
    }
    if parent.ends_with("llvm") {
        return parent.parent().map(Path::to_path_buf);
    }
    Some(parent.to_path_buf())
}

fn root_of_tool(tool: &Path) -> Option<PathBuf> {
    root_of_bin_dir(tool.parent()?)
}

/// `<root>/amdgcn/bitcode`, `<root>/lib/<triplet>/amdgcn/bitcode`, `<root>/lib/llvm/amdgcn/bitcode`,
/// `<root>/lib/llvm/lib/clang/N/lib/amdgcn/bitcode` -> `<root>`.
pub(crate) fn root_of_bitcode_dir(dir: &Path) -> Option<PathBuf> {
    let mut p = dir.strip_suffix_path("amdgcn/bitcode")?;
    // <llvm>/lib/clang/N/lib -> <llvm>
    let comps: Vec<String> = p
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let n = comps.len();
    if n >= 4 && comps[n - 1] == "lib" && comps[n - 3] == "clang" && comps[n - 4] == "lib" {
        p = p.parent()?.parent()?.parent()?.parent()?.to_path_buf();
    }
    if p.ends_with("lib/llvm") {
        p = p.parent()?.parent()?.to_path_buf();
    } else if p.ends_with("llvm") || p.ends_with("lib") || p.ends_with("lib64") {
        p = p.parent()?.to_path_buf();
    } else if p
        .file_name()
        .is_some_and(|f| f.to_string_lossy().contains("-linux-"))
        && p.parent().is_some_and(|q| q.ends_with("lib"))
    {
        p = p.parent()?.parent()?.to_path_buf();
    }
    Some(p)
}

trait StripSuffixPath {
    fn strip_suffix_path(&self, suffix: &str) -> Option<PathBuf>;
}

impl StripSuffixPath for Path {
    fn strip_suffix_path(&self, suffix: &str) -> Option<PathBuf> {
        if !self.ends_with(suffix) {
            return None;
        }
        let mut p = self.to_path_buf();
        for _ in Path::new(suffix).components() {
            p = p.parent()?.to_path_buf();
        }
        Some(p)
    }
}

/// Where bitcode may live under a root, in the order the layouts use them.
pub(crate) fn bitcode_dir_candidates(host: &Host, root: &Path) -> Vec<PathBuf> {
    let mut v = vec![
        root.join("amdgcn/bitcode"),
        root.join("lib/amdgcn/bitcode"),
        root.join("lib/llvm/amdgcn/bitcode"),
    ];
    for t in TRIPLET_LIB_DIRS {
        v.push(root.join(t).join("amdgcn/bitcode"));
    }
    for base in [
        root.join("lib/llvm/lib/clang"),
        root.join("llvm/lib/clang"),
        root.join("lib/clang"),
    ] {
        for n in host.fs.list_names(&base) {
            v.push(base.join(n).join("lib/amdgcn/bitcode"));
        }
    }
    v
}

fn parts_of(host: &Host, root: &Path) -> RootParts {
    let mut p = RootParts::default();
    let hdr = root.join("include/hip/hip_runtime.h");
    if host.fs.is_file(&hdr) {
        p.hip_headers = Some(root.join("include/hip"));
    }
    for d in bitcode_dir_candidates(host, root) {
        if host.fs.is_file(&d.join("ocml.bc")) || host.fs.is_file(&d.join("ockl.bc")) {
            let canon = host.fs.canonicalize(&d).unwrap_or(d.clone());
            if !p
                .bitcode_dirs
                .iter()
                .any(|x| host.fs.canonicalize(x).ok().as_ref() == Some(&canon))
            {
                p.bitcode_dirs.push(d);
            }
        }
    }
    for c in ["llvm/bin/clang++", "lib/llvm/bin/clang++", "bin/amdclang++"] {
        let path = root.join(c);
        if crate::host::is_executable_at(host, &path) {
            p.clang = Some(path);
            break;
        }
    }
    for (slot, name) in [
        (&mut p.hipcc, "bin/hipcc"),
        (&mut p.hipconfig, "bin/hipconfig"),
    ] {
        let path = root.join(name);
        if crate::host::is_executable_at(host, &path) {
            *slot = Some(path);
        }
    }
    let mut lib_dirs = vec![root.join("lib")];
    lib_dirs.extend(TRIPLET_LIB_DIRS.iter().map(|t| root.join(t)));
    for d in lib_dirs {
        let has_rocm_lib = host.fs.list_names(&d).iter().any(|n| {
            let n = n.to_string_lossy();
            n.starts_with("libamdhip64.so")
                || n.starts_with("libhsa-runtime64.so")
                || n.starts_with("libamd_comgr.so")
        });
        if has_rocm_lib {
            p.lib_dirs.push(d);
        }
    }
    p
}

fn layout_of(host: &Host, root: &Path, parts: &RootParts) -> Layout {
    let s = root.to_string_lossy();
    if s.starts_with("/nix/store/") {
        // symlinkJoin: top-level entries are links into other store paths.
        let links = ["bin", "lib", "include", "amdgcn"]
            .iter()
            .filter(|n| {
                host.fs
                    .symlink_metadata(&root.join(n))
                    .map(|m| m.file_type().is_symlink())
                    .unwrap_or(false)
            })
            .count();
        let nested_links = host
            .fs
            .read_dir(&root.join("lib"))
            .map(|rd| {
                rd.filter_map(|e| e.ok())
                    .take(64)
                    .any(|e| e.file_type().map(|t| t.is_symlink()).unwrap_or(false))
            })
            .unwrap_or(false);
        return if links > 0 || nested_links {
            Layout::NixJoined
        } else {
            Layout::NixSplit
        };
    }
    if host.fs.is_dir(&root.join("lib/llvm/amdgcn/bitcode")) && !s.starts_with("/opt/rocm") {
        return Layout::TheRock;
    }
    if s.starts_with("/opt/rocm") || host.fs.is_file(&root.join(".info/version")) {
        return Layout::OptRocm;
    }
    if root == Path::new("/usr")
        || root == Path::new("/usr/local")
        || parts
            .bitcode_dirs
            .iter()
            .any(|d| d.to_string_lossy().contains("-linux-"))
    {
        return Layout::Fhs;
    }
    Layout::Custom
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_of_bitcode_dirs() {
        let r =
            |s: &str| root_of_bitcode_dir(Path::new(s)).map(|p| p.to_string_lossy().into_owned());
        assert_eq!(
            r("/opt/rocm-6.1.0/amdgcn/bitcode").as_deref(),
            Some("/opt/rocm-6.1.0")
        );
        assert_eq!(
            r("/usr/lib/x86_64-linux-gnu/amdgcn/bitcode").as_deref(),
            Some("/usr")
        );
        assert_eq!(
            r("/opt/rocm-6.2.2/lib/llvm/lib/clang/18/lib/amdgcn/bitcode").as_deref(),
            Some("/opt/rocm-6.2.2")
        );
        assert_eq!(
            r("/x/install/lib/llvm/amdgcn/bitcode").as_deref(),
            Some("/x/install")
        );
        assert_eq!(
            r("/nix/store/abc-rocm-device-libs-6.0.2/amdgcn/bitcode").as_deref(),
            Some("/nix/store/abc-rocm-device-libs-6.0.2")
        );
        assert_eq!(r("/somewhere/else"), None);
    }

    #[test]
    fn roots_of_bin_dirs() {
        let r = |s: &str| {
            root_of_bin_dir(Path::new(s))
                .unwrap()
                .to_string_lossy()
                .into_owned()
        };
        assert_eq!(r("/opt/rocm/llvm/bin"), "/opt/rocm");
        assert_eq!(r("/opt/rocm/lib/llvm/bin"), "/opt/rocm");
        assert_eq!(r("/usr/bin"), "/usr");
    }
}
