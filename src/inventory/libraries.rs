//! Shared libraries resolved as the dynamic loader resolves them: the doctor's one library
//! lookup ([`Search`] + [`find`]), used by the key libraries here, `inspect --symbols`,
//! `inspect`'s component versions, `libs.code-objects`, the packs' `library` fact and
//! `gpu.runtime-init`.
//!
//! Order (ld.so(8), "Search order"): for an object's `DT_NEEDED`, its `DT_RPATH` when it has no
//! `DT_RUNPATH`, then `LD_LIBRARY_PATH`, then its `DT_RUNPATH`, then the directories of
//! `/etc/ld.so.conf` (with its `include` globs), then the default directories; `$ORIGIN` is the
//! object's directory. A program without either tag starts at `LD_LIBRARY_PATH`
//! ([`Search::loader`]). The binary `ld.so.cache` is not parsed: it only indexes the same
//! directories. Relative entries (resolved by the loader against the user's working
//! directory, which the doctor cannot know) are left out.

use super::Inventory;
use crate::codeobj::elf;
use crate::host::Host;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One key library (`libamdhip64`, `libhsa-runtime64`, `libamd_comgr`) as the loader would find it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LibraryResolution {
    /// Short name: `amdhip64`, `hsa-runtime64`, `amd_comgr`.
    pub name: String,
    /// The file the loader would open for `lib<name>.so` (machine path), if any.
    pub path: Option<PathBuf>,
    /// `path` with symlinks resolved (its file name carries the version).
    pub realpath: Option<PathBuf>,
    /// Version from the real file name (`5.2.21153` for `libamdhip64.so.5.2.21153`).
    pub version: Option<String>,
    /// How the loader found it: `LD_LIBRARY_PATH`, `ld.so.conf`, `default dirs`, `RUNPATH of ...`.
    pub how: String,
    /// Other copies found that the loader would not pick.
    pub others: Vec<PathBuf>,
}

pub(crate) const KEY_LIBRARIES: &[&str] = &["amdhip64", "hsa-runtime64", "amd_comgr"];

const DEFAULT_DIRS: &[&str] = &[
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
];

/// Where to look, in order, each directory with why it is searched (`LD_LIBRARY_PATH`,
/// `ld.so.conf`, `default dirs`, `RUNPATH of <lib>`, or a caller's reason for a place the
/// loader does not search).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Search {
    pub dirs: Vec<(PathBuf, String)>,
}

impl Search {
    /// The loader's directories for a program without `DT_RPATH`/`DT_RUNPATH` (and for
    /// `dlopen` from one): `LD_LIBRARY_PATH`, `ld.so.conf`, the default directories.
    pub(crate) fn loader(host: &Host) -> Search {
        let mut dirs = ld_library_path(host);
        dirs.extend(system_dirs(host));
        Search { dirs }
    }

    /// The loader's directories for the `DT_NEEDED` entries of `object` (whose dynamic
    /// section is `d`), from `self` = [`Search::loader`] (read once, used for every object):
    /// `DT_RPATH` only without `DT_RUNPATH`, `LD_LIBRARY_PATH`, `DT_RUNPATH`, the system
    /// directories. `$ORIGIN` expands to `origin` (the object's directory).
    pub(crate) fn for_object(&self, object: &Path, origin: &Path, d: &elf::Dynamic) -> Search {
        let tagged = |lists: &[String], tag: &str| -> Vec<(PathBuf, String)> {
            let why = format!("{tag} of {}", object.display());
            lists
                .iter()
                .flat_map(|l| l.split(':'))
                .map(|e| expand_origin(e, origin))
                .filter(|e| e.is_absolute())
                .map(|e| (e, why.clone()))
                .collect()
        };
        let n_ld = self
            .dirs
            .iter()
            .take_while(|(_, why)| why == LD_LIBRARY_PATH)
            .count();
        let mut dirs = Vec::new();
        if d.runpath.is_empty() {
            dirs.extend(tagged(&d.rpath, "RPATH"));
        }
        dirs.extend_from_slice(&self.dirs[..n_ld]);
        dirs.extend(tagged(&d.runpath, "RUNPATH"));
        dirs.extend_from_slice(&self.dirs[n_ld..]);
        Search { dirs }
    }

    /// These directories, then `more` (places the loader would not search, tried last).
    pub(crate) fn then(mut self, more: impl IntoIterator<Item = (PathBuf, String)>) -> Search {
        self.dirs.extend(more);
        self
    }

    /// The directories alone.
    pub(crate) fn paths(&self) -> Vec<PathBuf> {
        self.dirs.iter().map(|(d, _)| d.clone()).collect()
    }
}

/// `$ORIGIN` and `${ORIGIN}` in a `DT_RPATH`/`DT_RUNPATH` entry (ld.so(8), "Dynamic string
/// tokens").
fn expand_origin(entry: &str, origin: &Path) -> PathBuf {
    let o = origin.to_string_lossy();
    PathBuf::from(entry.replace("${ORIGIN}", &o).replace("$ORIGIN", &o))
}

const LD_LIBRARY_PATH: &str = "LD_LIBRARY_PATH";

/// The absolute directories of `LD_LIBRARY_PATH`.
fn ld_library_path(host: &Host) -> Vec<(PathBuf, String)> {
    host.env
        .get_os("LD_LIBRARY_PATH")
        .map(|llp| {
            std::env::split_paths(llp)
                .filter(|d| d.is_absolute())
                .map(|d| (d, LD_LIBRARY_PATH.to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// The system directories: those of `/etc/ld.so.conf` and its includes, then the default ones.
fn system_dirs(host: &Host) -> Vec<(PathBuf, String)> {
    let mut visited = Vec::new();
    let mut v: Vec<(PathBuf, String)> =
        ld_so_conf_dirs(host, Path::new("/etc/ld.so.conf"), &mut visited)
            .into_iter()
            .map(|d| (d, "ld.so.conf".to_string()))
            .collect();
    v.extend(
        DEFAULT_DIRS
            .iter()
            .map(|d| (PathBuf::from(d), "default dirs".to_string())),
    );
    v
}

fn ld_so_conf_dirs(host: &Host, file: &Path, visited: &mut Vec<PathBuf>) -> Vec<PathBuf> {
    if visited.len() > 64 || visited.iter().any(|p| p == file) {
        return Vec::new();
    }
    visited.push(file.to_path_buf());
    let Ok(text) = host.fs.read_text(file) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(pat) = line.strip_prefix("include") {
            for inc in super::expand::expand(host, Path::new(pat.trim())) {
                out.extend(ld_so_conf_dirs(host, &inc, visited));
            }
        } else if line.starts_with('/') {
            out.push(PathBuf::from(line));
        }
    }
    out
}

/// `libamdhip64.so.5.2.21153` -> `5.2.21153`.
pub(crate) fn version_from_file_name(name: &str, lib: &str) -> Option<String> {
    let v = name.strip_prefix(&format!("lib{lib}.so."))?;
    (!v.is_empty()
        && v.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())))
    .then(|| v.to_string())
}

/// What is looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Name<'a> {
    /// A `DT_NEEDED` name, matched exactly (`libhsa-runtime64.so.1`); one with a `/` is a
    /// path and is not searched (ld.so(8)).
    File(&'a str),
    /// `lib<stem>.so` as a program would ask for it without knowing the version: in each
    /// directory the plain `.so`, else the shortest (least specific) versioned name.
    Stem(&'a str),
}

/// A library found: the file (machine path) and why its directory was searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub path: PathBuf,
    pub how: String,
}

/// The file `name` designates in one directory, if any.
pub(crate) fn find_in_dir(host: &Host, dir: &Path, name: Name) -> Option<PathBuf> {
    match name {
        Name::File(file) => Some(dir.join(file)).filter(|p| host.fs.is_file(p)),
        Name::Stem(stem) => {
            use std::os::unix::ffi::OsStrExt;
            let prefix = format!("lib{stem}.so");
            let dotted = format!("{prefix}.");
            // Compared as bytes, the same answer as comparing the lossy text (both patterns are
            // ASCII), without a copy or conversion of every name: a default run asks this of
            // the 1,135 names of /usr/lib/x86_64-linux-gnu for every library probe, and it was
            // about a third of the doctor's own CPU (docs/benchmarks.md).
            let mut names: Vec<String> = host
                .fs
                .names(dir)
                .iter()
                .filter(|n| {
                    let b = n.as_bytes();
                    b == prefix.as_bytes() || b.starts_with(dotted.as_bytes())
                })
                .map(|n| n.to_string_lossy().into_owned())
                .collect();
            names.sort_by_key(|n| (n.len(), n.clone()));
            names.first().map(|n| dir.join(n))
        }
    }
}

/// The one lookup: the first directory of `search` that has `name` wins, as in the loader.
pub(crate) fn find(host: &Host, search: &Search, name: Name) -> Option<Found> {
    if let Name::File(f) = name {
        if f.contains('/') {
            let p = PathBuf::from(f);
            return host.fs.is_file(&p).then(|| Found {
                path: p,
                how: "a path".to_string(),
            });
        }
    }
    search.dirs.iter().find_map(|(d, why)| {
        find_in_dir(host, d, name).map(|path| Found {
            path,
            how: why.clone(),
        })
    })
}

/// Every directory's copy of `name`, in search order (the first is what [`find`] returns).
pub(crate) fn find_every(host: &Host, search: &Search, name: Name) -> Vec<Found> {
    search
        .dirs
        .iter()
        .filter_map(|(d, why)| {
            find_in_dir(host, d, name).map(|path| Found {
                path,
                how: why.clone(),
            })
        })
        .collect()
}

/// The dynamic section of a library (`None` when it cannot be read or is not ELF).
pub(crate) fn read_dynamic(host: &Host, lib: &Path) -> Option<elf::Dynamic> {
    let file = host.fs.open(lib).ok()?;
    // Read-only, dropped before returning; a concurrent truncation reads as zeros past the new
    // end (host::map, not SIGBUS), which the reader reports as a parse error.
    let map = crate::host::map::SafeMap::map(&file).ok()?;
    elf::Elf::parse(&map).and_then(|e| e.dynamic()).ok()
}

pub(crate) fn resolve_all(inv: &Inventory) -> Vec<LibraryResolution> {
    let host = inv.host;
    let loader = Search::loader(host);
    // Copies inside ROCm roots that the loader may not see.
    let mut in_roots = Search::default();
    for r in inv.roots() {
        for d in &r.parts.lib_dirs {
            in_roots
                .dirs
                .push((d.clone(), format!("ROCm root {}", r.path.display())));
        }
    }
    let mut out = Vec::new();
    // The HIP runtime's dependencies are found the way the loader finds its DT_NEEDED.
    let mut hip_deps: Option<Search> = None;
    for name in KEY_LIBRARIES {
        let search = match (*name != "amdhip64", &hip_deps) {
            (true, Some(s)) => s,
            _ => &loader,
        };
        let mut every = find_every(host, search, Name::Stem(name)).into_iter();
        let hit = every.next();
        let mut others: Vec<PathBuf> = every.map(|f| f.path).collect();
        others.extend(
            find_every(host, &in_roots, Name::Stem(name))
                .into_iter()
                .map(|f| f.path),
        );
        let (path, how) = match hit {
            Some(f) => (Some(f.path), f.how),
            None => (None, "not on the loader's search path".to_string()),
        };
        let realpath = path.as_ref().and_then(|p| host.fs.canonicalize(p).ok());
        let version = realpath
            .as_ref()
            .and_then(|r| r.file_name())
            .and_then(|n| version_from_file_name(&n.to_string_lossy(), name));
        // Other copies count only when they are different files.
        others.retain(|o| host.fs.canonicalize(o).ok() != realpath);
        others.sort();
        others.dedup();
        if *name == "amdhip64" {
            if let Some(rp) = &realpath {
                let d = read_dynamic(host, rp).unwrap_or_default();
                let origin = rp.parent().unwrap_or(Path::new("/"));
                hip_deps = Some(loader.for_object(rp, origin, &d));
            }
        }
        out.push(LibraryResolution {
            name: name.to_string(),
            path,
            realpath,
            version,
            how,
            others,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{Env, Limits};
    use std::time::Duration;

    /// A fixture root with `ld.so.conf` including `ld.so.conf.d/*.conf` (a hidden file the
    /// glob must skip), and libraries in several directories.
    fn fixture(ld_library_path: &str) -> (tempfile::TempDir, Host) {
        let d = tempfile::tempdir().unwrap();
        let w = |rel: &str, text: &str| {
            let p = d.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        w(
            "etc/ld.so.conf",
            "# comment\ninclude /etc/ld.so.conf.d/*.conf\n/conf/top\n",
        );
        w("etc/ld.so.conf.d/b.conf", "/conf/b\n");
        w("etc/ld.so.conf.d/a.conf", "/conf/a # trailing comment\n");
        w("etc/ld.so.conf.d/.hidden.conf", "/conf/hidden\n");
        w("etc/ld.so.conf.d/a.conf.bak", "/conf/bak\n");
        for f in [
            "conf/b/libx.so.1.2",
            "conf/b/libx.so.1",
            "conf/a/libx.so.1.2.3",
            "llp/libdep.so.1",
            "run/libdep.so.1",
            "run/libonly.so.1",
            "usr/lib/libdep.so.1",
            "opt/app/lib/libapp.so",
        ] {
            w(f, "");
        }
        let env = Env::from_pairs([("LD_LIBRARY_PATH", ld_library_path)]);
        let host = Host::new(
            d.path().to_path_buf(),
            env,
            Limits::new(Duration::from_secs(5), Duration::from_secs(30)),
        );
        (d, host)
    }

    fn paths(s: &Search) -> Vec<String> {
        s.paths().iter().map(|p| p.display().to_string()).collect()
    }

    #[test]
    fn the_loader_order_from_ld_so_conf_and_its_include_glob() {
        let (_d, host) = fixture("/llp:relative:");
        let s = Search::loader(&host);
        let p = paths(&s);
        // LD_LIBRARY_PATH (absolute entries), the includes sorted, the file's own lines, then
        // the defaults; `.hidden.conf` and `a.conf.bak` do not match `*.conf`.
        assert_eq!(p[..4], ["/llp", "/conf/a", "/conf/b", "/conf/top"]);
        assert_eq!(p[4..], *DEFAULT_DIRS);
        assert_eq!(s.dirs[0].1, "LD_LIBRARY_PATH");
        assert_eq!(s.dirs[1].1, "ld.so.conf");
        // Stems: the first directory that has one, there the least specific name.
        let f = find(&host, &s, Name::Stem("x")).unwrap();
        assert_eq!(
            (f.path.display().to_string(), f.how.as_str()),
            ("/conf/a/libx.so.1.2.3".to_string(), "ld.so.conf")
        );
        let every = find_every(&host, &s, Name::Stem("x"));
        assert_eq!(every[1].path, Path::new("/conf/b/libx.so.1"));
        assert!(find(&host, &s, Name::Stem("nothing")).is_none());
    }

    #[test]
    fn an_objects_needed_entries_follow_rpath_ld_library_path_runpath() {
        let (_d, host) = fixture("/llp");
        let loader = Search::loader(&host);
        let obj = Path::new("/opt/app/lib/libapp.so");
        let with_runpath = elf::Dynamic {
            needed: vec![],
            rpath: vec!["/ignored".into()],
            runpath: vec!["$ORIGIN/../../../run:rel/dir:${ORIGIN}".into()],
        };
        let s = loader.for_object(obj, Path::new("/opt/app/lib"), &with_runpath);
        let p = paths(&s);
        // DT_RPATH is ignored beside DT_RUNPATH; LD_LIBRARY_PATH comes before DT_RUNPATH;
        // $ORIGIN expands; a relative entry is left out.
        assert_eq!(
            p[..4],
            [
                "/llp",
                "/opt/app/lib/../../../run",
                "/opt/app/lib",
                "/conf/a"
            ]
        );
        assert_eq!(s.dirs[1].1, "RUNPATH of /opt/app/lib/libapp.so");
        let f = find(&host, &s, Name::File("libdep.so.1")).unwrap();
        assert_eq!(f.path, Path::new("/llp/libdep.so.1"));
        let f = find(&host, &s, Name::File("libonly.so.1")).unwrap();
        assert_eq!(f.how, "RUNPATH of /opt/app/lib/libapp.so");
        // Without DT_RUNPATH, DT_RPATH comes before LD_LIBRARY_PATH.
        let rpath_only = elf::Dynamic {
            rpath: vec!["/run".into()],
            ..Default::default()
        };
        let s = loader.for_object(obj, Path::new("/opt/app/lib"), &rpath_only);
        let f = find(&host, &s, Name::File("libdep.so.1")).unwrap();
        assert_eq!(
            (f.path.as_path(), f.how.as_str()),
            (
                Path::new("/run/libdep.so.1"),
                "RPATH of /opt/app/lib/libapp.so"
            )
        );
        // A name with a slash is a path, not searched; an exact name is not a stem.
        assert_eq!(
            find(&host, &s, Name::File("/usr/lib/libdep.so.1"))
                .unwrap()
                .how,
            "a path"
        );
        assert!(find(&host, &s, Name::File("libx.so")).is_none());
    }

    #[test]
    fn versions_from_file_names() {
        assert_eq!(
            version_from_file_name("libamdhip64.so.5.2.21153", "amdhip64").as_deref(),
            Some("5.2.21153")
        );
        assert_eq!(
            version_from_file_name("libamd_comgr.so.2.4.0", "amd_comgr").as_deref(),
            Some("2.4.0")
        );
        assert_eq!(version_from_file_name("libamdhip64.so", "amdhip64"), None);
        assert_eq!(
            version_from_file_name("libamdhip64.so.6.x", "amdhip64"),
            None
        );
    }

    #[test]
    fn a_stem_matches_the_exact_name_or_its_dotted_versions_only() {
        use std::os::unix::ffi::OsStrExt;
        let (d, host) = fixture("");
        // A stable directory (read once per run, shared) and one read afresh: the same answer.
        for dir in ["usr/lib/stems", "var/stems"] {
            let at = d.path().join(dir);
            std::fs::create_dir_all(&at).unwrap();
            for n in [
                "libz.sox",
                "libzz.so.1",
                "libz.so.1.2",
                "libz.so.1",
                "libz.so",
            ] {
                std::fs::write(at.join(n), "").unwrap();
            }
            // A name that is not UTF-8 after the dot still matches, named as its lossy text,
            // as before the look-up compared bytes (the patterns are ASCII).
            std::fs::write(at.join(std::ffi::OsStr::from_bytes(b"libw.so.\xff")), "").unwrap();
            let machine = Path::new("/").join(dir);
            let found = |stem| find_in_dir(&host, &machine, Name::Stem(stem));
            assert_eq!(found("z"), Some(machine.join("libz.so")), "{dir}");
            assert_eq!(found("zz"), Some(machine.join("libzz.so.1")), "{dir}");
            assert_eq!(found("w"), Some(machine.join("libw.so.\u{FFFD}")), "{dir}");
            assert_eq!(found("libz"), None, "{dir}");
            assert_eq!(found("z.so"), None, "{dir}");
        }
    }
}
