//! The paths an error text names (compilers, hipcc, linkers, ROCm roots, device-library
//! directories, ROCm libraries, and versioned tool names such as `clang-17`), and which of them
//! a run of the doctor did not examine. A cause is ruled out only when every path the error
//! names was checked: a pass for the clang the doctor picked says nothing about another clang
//! the error came from. Pure: the caller gives what the run examined
//! ([`crate::inventory::Examined`]) and how to resolve and test a path on the machine.

use crate::inventory::Examined;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// At most this many paths are taken from one text (a whole build log names many copies of
/// the same few; the first ones are the ones shown).
pub(crate) const MAX_NAMED: usize = 32;

/// What a named path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PathKind {
    /// A clang driver: `/usr/lib/llvm-17/bin/clang++`, `/opt/rocm/llvm/bin/amdclang++`, or a
    /// versioned name alone (`clang-17: error: ...`, clang's diagnostics start with argv[0]).
    Compiler,
    Hipcc,
    /// `ld.lld` (clang's AMDGPU toolchain runs the one beside itself first).
    Linker,
    /// `--rocm-path=`, `--hip-path=`, or the `/opt/rocm-X.Y.Z` a named file lives under.
    RocmRoot,
    /// `--rocm-device-lib-path=` / `--hip-device-lib-path=`.
    DeviceLibs,
    /// A ROCm library file (`libamdhip64.so.6`, `librocblas.so`).
    Library,
}

impl PathKind {
    /// The check families whose verdict depends on this path: a `gpu.*` pass (device access,
    /// the driver) holds whatever compiler the text names, a `toolchain.*` pass does not.
    fn matters_to(self, family: &str) -> bool {
        const TOOLS: &[&str] = &["toolchain", "targets", "cmake", "nix", "asm"];
        const LIBS: &[&str] = &["runtime", "libs", "known-issues", "pytorch"];
        match self {
            PathKind::Compiler | PathKind::Hipcc | PathKind::Linker | PathKind::DeviceLibs => {
                TOOLS.contains(&family)
            }
            PathKind::Library => LIBS.contains(&family),
            PathKind::RocmRoot => TOOLS.contains(&family) || LIBS.contains(&family),
        }
    }
}
/// One path the text names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedPath {
    pub kind: PathKind,
    /// Absolute, or a versioned tool name (`clang-17`) when the text gives no directory.
    pub path: String,
}

/// The ROCm libraries whose files are worth following (ROCm's runtime and math libraries, as
/// their packages name them; `lib<name>.so[.N...]`).
const ROCM_LIBS: &[&str] = &[
    "amdhip64",
    "hsa-runtime64",
    "hsakmt",
    "amd_comgr",
    "hiprtc",
    "rocblas",
    "hipblas",
    "hipblaslt",
    "rocsolver",
    "hipsolver",
    "rocsparse",
    "hipsparse",
    "rocfft",
    "hipfft",
    "rocrand",
    "hiprand",
    "MIOpen",
    "rccl",
    "rocm_smi64",
    "amd_smi",
    "roctracer64",
    "rocprofiler-register",
    "amdocl64",
];

/// The flags clang and hipcc take a ROCm root or a device-library directory with (clang's
/// Options.td: `--rocm-path=`, `--hip-path=`, `--rocm-device-lib-path=`,
/// `--hip-device-lib-path=`; each also as a separate argument).
const PATH_FLAGS: &[(&str, PathKind)] = &[
    ("--rocm-path", PathKind::RocmRoot),
    ("--hip-path", PathKind::RocmRoot),
    ("--rocm-device-lib-path", PathKind::DeviceLibs),
    ("--hip-device-lib-path", PathKind::DeviceLibs),
];

/// The paths `text` names, in the order first seen, each once (at most [`MAX_NAMED`]).
/// Linear in the text: one pass over its tokens, no pattern search per path.
pub fn named_paths(text: &str) -> Vec<NamedPath> {
    let mut out: Vec<NamedPath> = Vec::new();
    let push = |out: &mut Vec<NamedPath>, kind: PathKind, path: &str| {
        if out.len() < MAX_NAMED && !out.iter().any(|n| n.kind == kind && n.path == path) {
            out.push(NamedPath {
                kind,
                path: path.to_string(),
            });
        }
    };
    let mut flag_wants: Option<PathKind> = None;
    let tokens = text.split(|c: char| {
        c.is_whitespace()
            || matches!(
                c,
                '\'' | '"' | '`' | '(' | ')' | '[' | ']' | ',' | ';' | '|' | '<' | '>'
            )
    });
    for raw in tokens {
        if out.len() >= MAX_NAMED {
            break;
        }
        if raw.is_empty() {
            continue;
        }
        if let Some(kind) = flag_wants.take() {
            if let Some(p) = absolute(raw) {
                push(&mut out, kind, &p);
                continue;
            }
        }
        if raw.starts_with("--") {
            let (flag, value) = raw.split_once('=').unwrap_or((raw, ""));
            if let Some((_, kind)) = PATH_FLAGS.iter().find(|(f, _)| *f == flag) {
                if value.is_empty() {
                    flag_wants = Some(*kind);
                } else if let Some(p) = absolute(value) {
                    push(&mut out, *kind, &p);
                }
            }
            continue;
        }
        let tok = trim(raw);
        if versioned_clang(tok).is_some() {
            push(&mut out, PathKind::Compiler, tok);
            continue;
        }
        let Some(p) = absolute(raw) else { continue };
        let name = p.rsplit('/').next().unwrap_or("");
        if is_clang_name(name) {
            push(&mut out, PathKind::Compiler, &p);
        } else if matches!(name, "hipcc" | "hipcc.pl" | "hipcc.bin") {
            push(&mut out, PathKind::Hipcc, &p);
        } else if name == "ld.lld" || name == "lld" {
            push(&mut out, PathKind::Linker, &p);
        } else if is_rocm_library(name) {
            push(&mut out, PathKind::Library, &p);
        } else if let Some(root) = rocm_root_of(&p) {
            push(&mut out, PathKind::RocmRoot, &root);
        }
    }
    out
}

/// The absolute path in a token (after a `prefix:` such as `execute:` or a `-L`), with the
/// punctuation around it removed; None for anything else.
fn absolute(tok: &str) -> Option<String> {
    let t = trim(tok);
    let start = t.find('/')?;
    let head = &t[..start];
    if !(head.is_empty() || head.ends_with(':') && !head.contains('/') || head == "-L") {
        return None;
    }
    let p = &t[start..];
    // A URL's path (`https://...`) or a bare `/` is not a file the doctor could examine.
    if p.starts_with("//") || p.len() < 2 || head.ends_with("s:") && head.contains("http") {
        return None;
    }
    Some(normalise(p))
}

/// Lexical normalisation: `//` and `/./` collapse, `..` pops, a trailing `/` goes.
pub fn normalise(p: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    format!("/{}", parts.join("/"))
}

fn trim(tok: &str) -> &str {
    tok.trim_start_matches(['{', '*'])
        .trim_end_matches([':', '.', '!', '?', '}', '*', '\\'])
}

/// `clang`, `clang++`, `clang-17`, `clang++-17`, `amdclang`, `amdclang++`.
fn is_clang_name(name: &str) -> bool {
    matches!(name, "clang" | "clang++" | "amdclang" | "amdclang++")
        || versioned_clang(name).is_some()
}

/// The major of `clang-N` / `clang++-N`.
pub(crate) fn versioned_clang(name: &str) -> Option<u32> {
    let rest = name
        .strip_prefix("clang++-")
        .or_else(|| name.strip_prefix("clang-"))?;
    if rest.is_empty() || rest.len() > 3 || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    rest.parse().ok()
}

fn is_rocm_library(name: &str) -> bool {
    let Some(stem) = name.strip_prefix("lib") else {
        return false;
    };
    let Some((base, rest)) = stem.split_once(".so") else {
        return false;
    };
    (rest.is_empty() || rest.starts_with('.')) && ROCM_LIBS.contains(&base)
}

/// The ROCm root a path lives under: the prefix through its first `rocm` or `rocm-X.Y.Z`
/// component (`/opt/rocm-6.2.0/lib/...` -> `/opt/rocm-6.2.0`).
pub(crate) fn rocm_root_of(p: &str) -> Option<String> {
    let mut end = 0;
    for c in p.split('/').skip(1) {
        end += 1 + c.len();
        let is_root = c == "rocm"
            || c.strip_prefix("rocm-").is_some_and(|v| {
                !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            });
        if is_root {
            return Some(p[..end].to_string());
        }
    }
    None
}

/// A path the text names that the run did not examine, and how to make the doctor examine it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Unexamined {
    pub kind: PathKind,
    pub path: String,
    /// The path exists on the machine diagnosed (a versioned name: a clang of that version
    /// was found here).
    pub present: bool,
    /// What the run examined instead (the judged clang, the ROCm roots ...), for the message.
    pub examined: Vec<String>,
    /// The command-line option (or variable) that makes the doctor examine it, when it exists
    /// here.
    pub how: Option<String>,
}

/// The named paths of the kinds `families` depend on that `ex` does not cover. `resolve`
/// gives a path's canonical form on the machine (symlinks followed), `exists` whether it is
/// there.
pub(crate) fn unexamined(
    named: &[NamedPath],
    ex: &Examined,
    families: &[&str],
    resolve: &dyn Fn(&Path) -> Option<PathBuf>,
    exists: &dyn Fn(&Path) -> bool,
) -> Vec<Unexamined> {
    let same = |a: &Path, b: &Path| -> bool {
        a == b || resolve(a).is_some_and(|x| x == b || resolve(b).is_some_and(|y| x == y))
    };
    let dir_of = |p: &Path| p.parent().map(Path::to_path_buf).unwrap_or_default();
    let under_root = |p: &Path| {
        ex.roots
            .iter()
            .any(|r| p.starts_with(r) || resolve(p).is_some_and(|x| x.starts_with(r)))
    };
    let mut out = Vec::new();
    for n in named {
        if !families.iter().any(|f| n.kind.matters_to(f)) {
            continue;
        }
        let p = Path::new(&n.path);
        let (covered, examined_list): (bool, Vec<&PathBuf>) = match n.kind {
            PathKind::Compiler if !n.path.starts_with('/') => {
                let major = versioned_clang(&n.path);
                (
                    major.is_some_and(|m| ex.compiler_majors.contains(&m)),
                    ex.compilers.iter().collect(),
                )
            }
            // One installation's drivers share a directory (clang++ and clang-N are links to
            // the same binary): the directory is what was judged.
            PathKind::Compiler | PathKind::Hipcc => (
                ex.compilers
                    .iter()
                    .chain(&ex.hipccs)
                    .any(|c| same(&dir_of(p), &dir_of(c)) || same(p, c)),
                ex.compilers.iter().chain(&ex.hipccs).collect(),
            ),
            PathKind::Linker => (
                ex.linkers
                    .iter()
                    .chain(&ex.compilers)
                    .any(|c| same(&dir_of(p), &dir_of(c))),
                ex.linkers.iter().collect(),
            ),
            PathKind::RocmRoot => (
                ex.roots.iter().any(|r| same(p, r)),
                ex.roots.iter().collect(),
            ),
            PathKind::DeviceLibs => (
                ex.device_lib_dirs.iter().any(|d| same(p, d)),
                ex.device_lib_dirs.iter().collect(),
            ),
            PathKind::Library => (
                under_root(p)
                    || ex
                        .libraries
                        .iter()
                        .any(|l| same(p, l) || same(&dir_of(p), &dir_of(l))),
                ex.libraries.iter().collect(),
            ),
        };
        if covered {
            continue;
        }
        let (present, how) = how_to_examine(n, ex, exists);
        out.push(Unexamined {
            kind: n.kind,
            path: n.path.clone(),
            present,
            examined: examined_list
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
            how,
        });
    }
    out
}

/// Whether the path is on the machine, and the option that makes the doctor judge it.
fn how_to_examine(
    n: &NamedPath,
    ex: &Examined,
    exists: &dyn Fn(&Path) -> bool,
) -> (bool, Option<String>) {
    let p = Path::new(&n.path);
    let root_option = |p: &str| rocm_root_of(p).map(|r| format!("--rocm-path {r}"));
    match n.kind {
        PathKind::Compiler if !n.path.starts_with('/') => {
            // A clang of that version found here (`clang-19`, `/usr/lib/llvm-19/bin/clang`).
            let Some(m) = versioned_clang(&n.path) else {
                return (false, None);
            };
            let found = ex.other_compilers.iter().find(|o| {
                let s = o.display().to_string();
                o.file_name()
                    .and_then(|f| f.to_str())
                    .and_then(versioned_clang)
                    == Some(m)
                    || s.contains(&format!("/llvm-{m}/"))
            });
            match found {
                Some(o) => (true, Some(format!("--clang {}", o.display()))),
                None => (false, None),
            }
        }
        _ if !exists(p) => (false, None),
        PathKind::Compiler => (true, Some(format!("--clang {}", n.path))),
        PathKind::Linker => {
            let dir = p.parent().unwrap_or(Path::new("/"));
            let clang = ["clang", "clang++"]
                .iter()
                .map(|c| dir.join(c))
                .find(|c| exists(c));
            (
                true,
                clang
                    .map(|c| format!("--clang {}", c.display()))
                    .or_else(|| {
                        Some(format!(
                            "PATH={}:$PATH (the ld.lld clang finds)",
                            dir.display()
                        ))
                    }),
            )
        }
        PathKind::Hipcc => (
            true,
            root_option(&n.path).or_else(|| {
                p.parent()
                    .map(|d| format!("PATH={}:$PATH (the hipcc found first)", d.display()))
            }),
        ),
        PathKind::RocmRoot => (true, Some(format!("--rocm-path {}", n.path))),
        PathKind::DeviceLibs => (true, Some(format!("HIP_DEVICE_LIB_PATH={}", n.path))),
        PathKind::Library => (
            true,
            root_option(&n.path).or_else(|| {
                p.parent()
                    .map(|d| format!("LD_LIBRARY_PATH={}", d.display()))
            }),
        ),
    }
}

/// The human line for one unexamined path.
pub(crate) fn describe(u: &Unexamined) -> String {
    let what = match u.kind {
        PathKind::Compiler => "the compiler",
        PathKind::Hipcc => "the hipcc",
        PathKind::Linker => "the linker",
        PathKind::RocmRoot => "the ROCm root",
        PathKind::DeviceLibs => "the device-library directory",
        PathKind::Library => "the library",
    };
    let instead = if u.examined.is_empty() {
        String::new()
    } else {
        format!(" (judged: {})", u.examined.join(", "))
    };
    match (&u.how, u.present) {
        (Some(how), _) => format!(
            "{what} the text names, {}, was not checked{instead}: rerun as `rocm-doctor {how} why \
                ...`",
            u.path
        ),
        (None, true) => format!(
            "{what} the text names, {}, was not checked{instead}",
            u.path
        ),
        (None, false) => format!(
            "{what} the text names, {}, is not on this machine, so it was not checked{instead}: \
             run rocm-doctor where the error came from (or with --sysroot at that system's root)",
            u.path
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(PathKind, String)> {
        named_paths(text)
            .into_iter()
            .map(|n| (n.kind, n.path))
            .collect()
    }

    // tests/corpus/build.toml, build-ce-miscbuilder-86-devlibs-not-in-zip.
    const CE_86: &str = "  cd /root/ROCm-CompilerSupport-rocm-6.1.2/build/test && \
        /opt/compiler-explorer/clang-rocm-6.1.2/bin/clang-17 -c -emit-llvm -target \
        amdgcn-amd-amdhsa -mcpu=gfx900 \
        /root/ROCm-CompilerSupport-rocm-6.1.2/lib/comgr/test/source/source1.cl -o \
        source/source1.bc\n  clang-17: error: cannot find ROCm device library; provide its path \
        via '--rocm-path' or '--rocm-device-lib-path', or pass '-nogpulib' to build without ROCm \
        device library";

    #[test]
    fn a_compiler_and_its_versioned_name_from_a_real_build_line() {
        assert_eq!(
            kinds(CE_86),
            vec![
                (
                    PathKind::Compiler,
                    "/opt/compiler-explorer/clang-rocm-6.1.2/bin/clang-17".into()
                ),
                (PathKind::Compiler, "clang-17".into()),
            ]
        );
    }

    #[test]
    fn hipcc_and_its_clang_from_a_perl_error() {
        // tests/corpus/build.toml, the Gentoo hipcc case (justxi/rocm#131).
        let t = "Can't exec \"/usr/llvm/bin/clang\": No such file or directory at \
            /usr/lib/hip/bin/hipcc line 192.";
        assert_eq!(
            kinds(t),
            vec![
                (PathKind::Compiler, "/usr/llvm/bin/clang".into()),
                (PathKind::Hipcc, "/usr/lib/hip/bin/hipcc".into()),
            ]
        );
    }

    #[test]
    fn a_nix_linker_and_a_rocm_root_with_a_double_slash() {
        // tests/corpus/thin.toml (nix ld.lld line) and build.toml (`/opt/rocm-5.3.0//hip/bin/hipcc`).
        let t = " \"/nix/store/w653fib3igij3jb517rdihjry6cmdfhk-rocm-llvm-binutils-wrapper-6.2.2/bin/ld.lld\" \
            --no-undefined -shared\nsh: /opt/rocm-5.3.0//hip/bin/hipcc: not found";
        assert_eq!(
            kinds(t),
            vec![
                (
                    PathKind::Linker,
                    "/nix/store/w653fib3igij3jb517rdihjry6cmdfhk-rocm-llvm-binutils-wrapper-6.2.2/bin/ld.lld".into()
                ),
                (PathKind::Hipcc, "/opt/rocm-5.3.0/hip/bin/hipcc".into()),
            ]
        );
    }

    #[test]
    fn flags_libraries_and_roots_of_other_files() {
        // tests/corpus/libs-benign.toml (ROCm/pytorch#1340, TheRock#474) and clang's flags.
        let t = "rocBLAS error: Could not load /opt/rocm-6.0.0/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat\n\
                 ` /usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1.11.0\n`\n\
                 clang --rocm-path=/opt/rocm-6.2.0 --hip-device-lib-path /opt/rocm-6.2.0/amdgcn/bitcode x.hip\n\
                 see https://github.com/ROCm/ROCm/issues/1 and /home/u/x.py";
        assert_eq!(
            kinds(t),
            vec![
                (PathKind::RocmRoot, "/opt/rocm-6.0.0".into()),
                (
                    PathKind::Library,
                    "/usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1.11.0".into()
                ),
                (PathKind::RocmRoot, "/opt/rocm-6.2.0".into()),
                (
                    PathKind::DeviceLibs,
                    "/opt/rocm-6.2.0/amdgcn/bitcode".into()
                ),
            ]
        );
    }

    #[test]
    fn no_paths_in_prose_and_a_bounded_list() {
        assert!(named_paths("clang: error: cannot find ROCm device library").is_empty());
        assert!(named_paths("the clang-format run and libfoo.so /").is_empty());
        let many: String = (0..100)
            .map(|i| format!("/opt/rocm-1.{i}/bin/hipcc\n"))
            .collect();
        assert_eq!(named_paths(&many).len(), MAX_NAMED);
    }

    fn ex() -> Examined {
        Examined {
            compilers: vec![PathBuf::from("/usr/lib/llvm-15/bin/clang")],
            compiler_majors: vec![15],
            other_compilers: vec![PathBuf::from("/usr/lib/llvm-19/bin/clang")],
            roots: vec![PathBuf::from("/usr")],
            ..Default::default()
        }
    }

    #[test]
    fn the_judged_clangs_directory_and_version_are_examined_others_are_not() {
        let named = named_paths(
            "/usr/lib/llvm-15/bin/clang++ clang-15: /usr/lib/llvm-19/bin/clang clang-19: \
                /opt/rocm-6.2.0/llvm/bin/clang",
        );
        let exists = |p: &Path| p.starts_with("/usr/lib/llvm-19");
        let u = unexamined(&named, &ex(), &["toolchain"], &|_| None, &exists);
        let got: Vec<(&str, bool, Option<&str>)> = u
            .iter()
            .map(|u| (u.path.as_str(), u.present, u.how.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "/usr/lib/llvm-19/bin/clang",
                    true,
                    Some("--clang /usr/lib/llvm-19/bin/clang")
                ),
                ("clang-19", true, Some("--clang /usr/lib/llvm-19/bin/clang")),
                ("/opt/rocm-6.2.0/llvm/bin/clang", false, None),
            ]
        );
        assert!(describe(&u[2]).contains("is not on this machine"));
        assert!(describe(&u[0]).contains("judged: /usr/lib/llvm-15/bin/clang"));
        // A GPU check's pass does not depend on which compiler the text names.
        assert!(unexamined(&named, &ex(), &["gpu"], &|_| None, &exists).is_empty());
    }

    #[test]
    fn a_symlink_to_the_judged_clang_counts_as_examined() {
        let named = named_paths("/usr/bin/clang-15: error: x");
        let resolve = |p: &Path| {
            (p == Path::new("/usr/bin/clang-15"))
                .then(|| PathBuf::from("/usr/lib/llvm-15/bin/clang"))
        };
        assert!(unexamined(&named, &ex(), &["toolchain"], &resolve, &|_| true).is_empty());
        assert_eq!(
            unexamined(&named, &ex(), &["toolchain"], &|_| None, &|_| true).len(),
            1
        );
    }

    #[test]
    fn libraries_under_an_examined_root_or_beside_a_resolved_one_are_examined() {
        let e = Examined {
            roots: vec![PathBuf::from("/opt/rocm-6.2.0")],
            libraries: vec![PathBuf::from("/usr/lib/x86_64-linux-gnu/libamdhip64.so.5")],
            ..Default::default()
        };
        let named = named_paths(
            "/opt/rocm-6.2.0/lib/libamdhip64.so.6 /usr/lib/x86_64-linux-gnu/libhsa-runtime64.so.1 \
                /home/u/venv/torch/lib/libamdhip64.so",
        );
        let u = unexamined(&named, &e, &["runtime"], &|_| None, &|_| true);
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].path, "/home/u/venv/torch/lib/libamdhip64.so");
        assert_eq!(
            u[0].how.as_deref(),
            Some("LD_LIBRARY_PATH=/home/u/venv/torch/lib")
        );
    }
}
