//! Where the `python3` on `PATH` would import a package from, found by reading files only.
//!
//! A pack check that asks Python a question (`pytorch.bundled-hip`) costs a process start, and
//! behind a pyenv shim several bash processes (55 ms a run on a machine with pyenv,
//! docs/benchmarks.md). Most machines a packager or a CI runs the doctor on have no torch at
//! all. So before asking, the doctor looks for the package in a *superset* of the directories
//! the interpreter searches; only when it is in none of them is the question skipped. When the
//! interpreter cannot be read without running it (a wrapper script the doctor does not know),
//! the answer is "cannot tell" and the question is asked as before.
//!
//! The directories (Python's `site` module documentation, "site-specific configuration hook";
//! Debian's python3 policy, section "Module path": `/usr/lib/python3/dist-packages` and
//! `/usr/local/lib/python3.X/dist-packages`; PEP 405 for virtual environments, whose
//! `bin/python3` is a link to the base interpreter; pyenv's README, "Understanding Shims":
//! `$PYENV_ROOT/shims/python3` is a bash script that execs `pyenv exec`, and the versions live in
//! `$PYENV_ROOT/versions/<name>/`):
//! - for each prefix (the interpreter's `bin/..`, before and after resolving links, and
//!   `PYTHONHOME`): `lib/python3*/{site,dist}-packages`, `lib64/python3*/site-packages`,
//!   `lib/python3/dist-packages`, `local/lib/python3*/{site,dist}-packages`;
//! - the user site, `${PYTHONUSERBASE:-$HOME/.local}/lib/python3*/site-packages`;
//! - every absolute `PYTHONPATH` entry;
//! - behind a pyenv shim, every `$PYENV_ROOT/versions/*` prefix and the next `python3` on
//!   `PATH` (pyenv's `system` version).
//!
//! A package is "maybe there" when a site directory holds `<name>/`, `<name>.py`, or a `.pth`
//! / `.egg-link` file that mentions the name (editable and development installs point there).

use crate::host::Host;
use std::path::{Path, PathBuf};

/// At most this many `.pth`/`.egg-link` files are read per site directory, each up to 64 KiB.
const MAX_PTH_FILES: usize = 64;
const PTH_LIMIT: u64 = 64 << 10;

/// What the search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PackageSearch {
    /// The package may be importable: the paths that say so.
    Maybe(Vec<PathBuf>),
    /// In none of the directories (listed) the interpreter can import from.
    Absent { looked_in: Vec<PathBuf> },
    /// The interpreter cannot be read without running it; the reason.
    CannotTell(String),
    /// No `python3` on `PATH`.
    NoInterpreter,
}

/// How the file found as `python3` on `PATH` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Launcher {
    /// A real interpreter (an ELF file, after links).
    Binary,
    /// pyenv's shim script.
    PyenvShim,
    /// A script the doctor does not read (conda's wrappers, a site's own launcher).
    OtherScript,
}

/// Classifies an executable by its first bytes (pure).
pub(crate) fn launcher_of(head: &[u8]) -> Launcher {
    if head.starts_with(b"\x7fELF") {
        Launcher::Binary
    } else if head.starts_with(b"#!") && memchr::memmem::find(head, b"pyenv").is_some() {
        Launcher::PyenvShim
    } else {
        Launcher::OtherScript
    }
}

/// The site directories to look in below one prefix (wildcards expanded by
/// `inventory::expand`).
pub(crate) const PREFIX_SITES: &[&str] = &[
    "lib/python3*/site-packages",
    "lib/python3*/dist-packages",
    "lib64/python3*/site-packages",
    "lib/python3/dist-packages",
    "local/lib/python3*/site-packages",
    "local/lib/python3*/dist-packages",
];

/// Whether a `.pth`/`.egg-link` file's text mentions package `name` as a word-ish token (a
/// path component or a module name), not inside another word (`torchvision` is not `torch`).
pub(crate) fn mentions(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        let sep = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        sep(before) && sep(after)
    })
}

/// Looks for package `name` where the `python3` on the machine's `PATH` would import it from.
pub(crate) fn find_package(host: &Host, name: &str) -> PackageSearch {
    let site_dirs = match site_dirs(host) {
        Ok(d) => d,
        Err(answer) => return answer,
    };
    let hits: Vec<PathBuf> = site_dirs
        .iter()
        .flat_map(|d| hits_in(host, d, name))
        .collect();
    if hits.is_empty() {
        PackageSearch::Absent {
            looked_in: site_dirs,
        }
    } else {
        PackageSearch::Maybe(hits)
    }
}

/// The existing site directories the `python3` on `PATH` may import from (the superset of the
/// module doc), or why they cannot be told without running it (`CannotTell`, `NoInterpreter`).
pub(crate) fn site_dirs(host: &Host) -> Result<Vec<PathBuf>, PackageSearch> {
    let candidates = host.which_all("python3");
    let Some(first) = candidates.first() else {
        return Err(PackageSearch::NoInterpreter);
    };
    let mut prefixes: Vec<PathBuf> = Vec::new();
    let mut site_dirs: Vec<PathBuf> = Vec::new();
    match launcher(host, first) {
        Launcher::Binary => add_interpreter(host, first, &mut prefixes),
        Launcher::PyenvShim => {
            let root = pyenv_root(host, first);
            for v in host.fs.list_names(&root.join("versions")) {
                prefixes.push(root.join("versions").join(v));
            }
            // pyenv's `system` version: the next python3 on PATH that is not a shim.
            if let Some(next) = candidates.iter().skip(1).find(|p| !p.starts_with(&root)) {
                match launcher(host, next) {
                    Launcher::Binary => add_interpreter(host, next, &mut prefixes),
                    _ => {
                        return Err(PackageSearch::CannotTell(format!(
                            "{} (pyenv's system python3) is a script",
                            next.display()
                        )))
                    }
                }
            }
        }
        Launcher::OtherScript => {
            return Err(PackageSearch::CannotTell(format!(
                "{} is a script, not an interpreter",
                first.display()
            )))
        }
    }
    if let Some(home) = host.env.get_os("PYTHONHOME") {
        // `PYTHONHOME=prefix[:exec_prefix]`.
        prefixes.extend(std::env::split_paths(home).filter(|p| p.is_absolute()));
    }
    for p in &prefixes {
        for pat in PREFIX_SITES {
            site_dirs.extend(super::expand::expand(host, &p.join(pat)));
        }
    }
    let user_base = host
        .env
        .get_os("PYTHONUSERBASE")
        .map(PathBuf::from)
        .or_else(|| host.env.get_os("HOME").map(|h| Path::new(h).join(".local")));
    if let Some(base) = user_base.filter(|b| b.is_absolute()) {
        site_dirs.extend(super::expand::expand(
            host,
            &base.join("lib/python3*/site-packages"),
        ));
    }
    if let Some(pp) = host.env.get_os("PYTHONPATH") {
        site_dirs.extend(std::env::split_paths(pp).filter(|p| p.is_absolute()));
    }
    site_dirs.sort();
    site_dirs.dedup();
    site_dirs.retain(|d| host.fs.is_dir(d));
    Ok(site_dirs)
}

fn launcher(host: &Host, p: &Path) -> Launcher {
    match host.fs.open(p) {
        Ok(f) => {
            use std::io::Read;
            let mut head = Vec::new();
            let _ = f.take(512).read_to_end(&mut head);
            launcher_of(&head)
        }
        Err(_) => Launcher::OtherScript,
    }
}

/// `bin/..` of the interpreter as found and after resolving links (a virtual environment's
/// `bin/python3` links to the base interpreter: both prefixes are searched).
fn add_interpreter(host: &Host, p: &Path, prefixes: &mut Vec<PathBuf>) {
    let resolved = host.fs.canonicalize(p).ok();
    for exe in std::iter::once(p.to_path_buf()).chain(resolved) {
        if let Some(prefix) = exe.parent().and_then(Path::parent) {
            // A virtual environment made with `--copies` has no link to follow; its
            // `pyvenv.cfg` names the base interpreter's directory (`home = /usr/bin`), whose
            // site directories it may see (`include-system-site-packages`).
            if let Ok(cfg) = host.fs.read_text(&prefix.join("pyvenv.cfg")) {
                if let Some(base) = venv_home(&cfg).and_then(|h| h.parent().map(Path::to_path_buf))
                {
                    prefixes.push(base);
                }
            }
            prefixes.push(prefix.to_path_buf());
        }
    }
}

/// The `home` key of a `pyvenv.cfg` (PEP 405: `key = value` lines), if absolute.
pub(crate) fn venv_home(cfg: &str) -> Option<PathBuf> {
    cfg.lines()
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == "home")
        .map(|(_, v)| PathBuf::from(v.trim()))
        .filter(|p| p.is_absolute())
}

/// `$PYENV_ROOT`, else the directory above the shims directory the shim lives in.
fn pyenv_root(host: &Host, shim: &Path) -> PathBuf {
    host.env
        .get_os("PYENV_ROOT")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| shim.parent().and_then(Path::parent).map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("/"))
}

fn hits_in(host: &Host, dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut hits = Vec::new();
    let mut read = 0;
    for n in host.fs.list_names(dir) {
        let s = n.to_string_lossy();
        if s == name || s == format!("{name}.py") {
            hits.push(dir.join(&n));
        } else if (s.ends_with(".pth") || s.ends_with(".egg-link")) && read < MAX_PTH_FILES {
            read += 1;
            let p = dir.join(&n);
            if s.contains(name) && mentions(&s, name) {
                hits.push(p);
            } else if let Ok(b) = host.fs.read_bytes_limited(&p, PTH_LIMIT) {
                if mentions(&String::from_utf8_lossy(&b), name) {
                    hits.push(p);
                }
            }
        }
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{Env, Limits};
    use std::os::unix::fs::{symlink, PermissionsExt};
    use std::time::Duration;

    #[test]
    fn launchers_by_their_first_bytes() {
        assert_eq!(launcher_of(b"\x7fELF\x02\x01\x01"), Launcher::Binary);
        // pyenv 2.x's shim (pyenv-rehash writes it): a bash script that runs `pyenv exec`.
        let shim = b"#!/usr/bin/env bash\nset -e\n[ -n \"$PYENV_DEBUG\" ] && set \
            -x\n\nprogram=\"${0##*/}\"\n\nexport PYENV_ROOT=\"/home/u/.pyenv\"\nexec \
            \"/home/u/.pyenv/libexec/pyenv\" exec \"$program\" \"$@\"\n";
        assert_eq!(launcher_of(shim), Launcher::PyenvShim);
        assert_eq!(
            launcher_of(b"#!/bin/sh\nexec /opt/x/python \"$@\"\n"),
            Launcher::OtherScript
        );
        assert_eq!(launcher_of(b""), Launcher::OtherScript);
    }

    #[test]
    fn pyvenv_cfg_home() {
        // As `python3 -m venv` writes it (CPython 3.11, Lib/venv/__init__.py).
        let cfg = "home = /usr/bin\ninclude-system-site-packages = false\nversion = \
            3.11.2\nexecutable = /usr/bin/python3.11\ncommand = /usr/bin/python3 -m venv \
            /home/u/venv\n";
        assert_eq!(venv_home(cfg), Some(PathBuf::from("/usr/bin")));
        assert_eq!(venv_home("home = bin\n"), None);
        assert_eq!(venv_home(""), None);
    }

    #[test]
    fn mentions_needs_a_whole_name() {
        assert!(mentions("/home/u/src/pytorch\n", "pytorch"));
        // setuptools' editable install: the file's name says it, its text does not.
        assert!(mentions("__editable__.torch-2.5.0.pth", "torch"));
        assert!(!mentions(
            "import __editable___torch_2_5_0_finder; __editable___torch_2_5_0_finder.install()",
            "torch"
        ));
        assert!(mentions("/home/u/src/torch\n", "torch"));
        assert!(!mentions(
            "/usr/lib/python3/dist-packages/torchvision\n",
            "torch"
        ));
        assert!(mentions("torch-2.5.0.dist-info", "torch"));
    }

    fn exe(p: &Path, text: &[u8]) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn host(root: &Path, env: &[(&str, &str)]) -> Host {
        Host::new(
            root.to_path_buf(),
            Env::from_pairs(env.iter().copied()),
            Limits::new(Duration::from_secs(5), Duration::from_secs(20)),
        )
    }

    #[test]
    fn a_debian_system_python_with_and_without_torch() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        exe(&r.join("usr/bin/python3.11"), b"\x7fELF\x02\x01\x01\0");
        symlink("python3.11", r.join("usr/bin/python3")).unwrap();
        std::fs::create_dir_all(r.join("usr/lib/python3/dist-packages/numpy")).unwrap();
        std::fs::create_dir_all(r.join("usr/local/lib/python3.11/dist-packages")).unwrap();
        let h = host(r, &[("PATH", "/usr/bin")]);
        match find_package(&h, "torch") {
            PackageSearch::Absent { looked_in } => assert_eq!(
                looked_in,
                vec![
                    PathBuf::from("/usr/lib/python3/dist-packages"),
                    PathBuf::from("/usr/local/lib/python3.11/dist-packages")
                ]
            ),
            other => panic!("{other:?}"),
        }
        std::fs::create_dir_all(r.join("usr/local/lib/python3.11/dist-packages/torch")).unwrap();
        assert_eq!(
            find_package(&host(r, &[("PATH", "/usr/bin")]), "torch"),
            PackageSearch::Maybe(vec![PathBuf::from(
                "/usr/local/lib/python3.11/dist-packages/torch"
            )])
        );
    }

    #[test]
    fn a_venv_the_user_site_and_a_development_install() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        exe(&r.join("usr/bin/python3.12"), b"\x7fELF\x02\x01\x01\0");
        std::fs::create_dir_all(r.join("home/u/venv/bin")).unwrap();
        symlink("/usr/bin/python3.12", r.join("home/u/venv/bin/python3")).unwrap();
        let site = r.join("home/u/venv/lib/python3.12/site-packages");
        std::fs::create_dir_all(&site).unwrap();
        let env = [("PATH", "/home/u/venv/bin:/usr/bin"), ("HOME", "/home/u")];
        assert!(matches!(
            find_package(&host(r, &env), "torch"),
            PackageSearch::Absent { .. }
        ));
        // `python setup.py develop` in a PyTorch checkout leaves an egg-link to the source tree.
        std::fs::write(site.join("torch.egg-link"), "/home/u/src/pytorch\n.").unwrap();
        assert!(matches!(
            find_package(&host(r, &env), "torch"),
            PackageSearch::Maybe(_)
        ));
        std::fs::remove_file(site.join("torch.egg-link")).unwrap();
        let user = r.join("home/u/.local/lib/python3.12/site-packages/torch");
        std::fs::create_dir_all(&user).unwrap();
        assert_eq!(
            find_package(&host(r, &env), "torch"),
            PackageSearch::Maybe(vec![PathBuf::from(
                "/home/u/.local/lib/python3.12/site-packages/torch"
            )])
        );
    }

    #[test]
    fn behind_a_pyenv_shim_every_version_and_the_system_python() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        exe(
            &r.join("home/u/.pyenv/shims/python3"),
            b"#!/usr/bin/env bash\nexec \"/home/u/.pyenv/libexec/pyenv\" exec \"$program\" \
                \"$@\"\n",
        );
        exe(
            &r.join("home/u/.pyenv/versions/3.11.7/bin/python3"),
            b"\x7fELF",
        );
        std::fs::create_dir_all(
            r.join("home/u/.pyenv/versions/3.11.7/lib/python3.11/site-packages"),
        )
        .unwrap();
        exe(&r.join("usr/bin/python3"), b"\x7fELF");
        std::fs::create_dir_all(r.join("usr/lib/python3/dist-packages")).unwrap();
        let env = [("PATH", "/home/u/.pyenv/shims:/usr/bin")];
        match find_package(&host(r, &env), "torch") {
            PackageSearch::Absent { looked_in } => assert_eq!(looked_in.len(), 2, "{looked_in:?}"),
            other => panic!("{other:?}"),
        }
        std::fs::create_dir_all(r.join("usr/lib/python3/dist-packages/torch")).unwrap();
        assert!(matches!(
            find_package(&host(r, &env), "torch"),
            PackageSearch::Maybe(_)
        ));
    }

    #[test]
    fn an_unknown_wrapper_or_no_python() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        exe(
            &r.join("opt/x/bin/python3"),
            b"#!/bin/sh\nexec /opt/x/libexec/python3 \"$@\"\n",
        );
        assert!(matches!(
            find_package(&host(r, &[("PATH", "/opt/x/bin")]), "torch"),
            PackageSearch::CannotTell(_)
        ));
        assert_eq!(
            find_package(&host(r, &[("PATH", "/nowhere")]), "torch"),
            PackageSearch::NoInterpreter
        );
    }
}
