//! `inspect --symbols`: like `ldd -r`, resolve `DT_NEEDED` as the dynamic loader would and list
//! the undefined symbols of a file that no loaded library defines.
//!
//! Search order (ld.so(8)): a name with `/` is a path; else `DT_RPATH` of the file when it has
//! no `DT_RUNPATH`, `LD_LIBRARY_PATH`, `DT_RUNPATH`, the directories of `/etc/ld.so.conf`
//! (read as text, instead of the binary `ld.so.cache`), then `/lib`, `/usr/lib` and their
//! 64-bit/multiarch variants. `$ORIGIN` expands to the directory of the object. Symbol versions
//! are not compared (names only), and weak undefined symbols never count.

use crate::codeobj::elf;
use crate::host::{io_error_text, Host};
use serde::Serialize;
use std::collections::{BTreeSet, HashSet, VecDeque};
use std::path::{Path, PathBuf};

/// No real dependency closure is larger.
const MAX_LIBS: usize = 1000;

#[derive(Debug, Clone, Default, Serialize)]
pub struct SymbolReport {
    pub path: PathBuf,
    /// `name => path` for every library loaded, in load order.
    pub loaded: Vec<(String, PathBuf)>,
    /// Needed names nothing provides.
    pub not_found: Vec<String>,
    pub undefined_total: usize,
    /// Undefined (non-weak) symbols of the file that no loaded library defines, sorted.
    pub unresolved: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

struct Parsed {
    needed: Vec<String>,
    rpath: Vec<String>,
    runpath: Vec<String>,
    defined: Vec<String>,
    undefined: Vec<String>,
}

fn parse(host: &Host, path: &Path) -> Result<Parsed, String> {
    let f = host.fs.open(path).map_err(|e| io_error_text(&e))?;
    // SAFETY: read-only mapping dropped at the end of this function (see file.rs).
    let map = unsafe { memmap2::Mmap::map(&f) }.map_err(|e| io_error_text(&e))?;
    let elf = elf::Elf::parse(&map).map_err(|e| e.to_string())?;
    let dynamic = elf.dynamic().map_err(|e| e.to_string())?;
    let mut defined = Vec::new();
    let mut undefined = Vec::new();
    for s in elf.dynamic_symbols().map_err(|e| e.to_string())? {
        if s.shndx == 0 {
            if s.bind != elf::STB_WEAK {
                undefined.push(s.name);
            }
        } else if s.bind != elf::STB_LOCAL {
            defined.push(s.name);
        }
    }
    let split = |v: &[String]| {
        v.iter()
            .flat_map(|s| s.split(':'))
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    Ok(Parsed {
        rpath: split(&dynamic.rpath),
        runpath: split(&dynamic.runpath),
        needed: dynamic.needed,
        defined,
        undefined,
    })
}

fn expand(dir: &str, origin: &Path) -> PathBuf {
    let o = origin.display().to_string();
    PathBuf::from(dir.replace("${ORIGIN}", &o).replace("$ORIGIN", &o))
}

/// Resolves `path`'s DT_NEEDED like the loader and lists the undefined symbols no needed
/// library defines (like `ldd -r`).
pub fn resolve(host: &Host, path: &Path) -> SymbolReport {
    let mut r = SymbolReport {
        path: path.to_path_buf(),
        ..Default::default()
    };
    let top = match parse(host, path) {
        Ok(p) => p,
        Err(e) => {
            r.error = Some(e);
            return r;
        }
    };
    // The loader's order (ld.so(8)): LD_LIBRARY_PATH, the object's DT_RUNPATH, then the system
    // directories; the same lists the inventory resolves the runtime with.
    let ld_path = crate::inventory::libraries::ld_library_path(host);
    let system: Vec<PathBuf> = crate::inventory::libraries::system_dirs(host)
        .into_iter()
        .map(|(d, _)| d)
        .collect();
    let mut defined: HashSet<String> = HashSet::new();
    let mut loaded_names: HashSet<String> = HashSet::new();
    let mut queue: VecDeque<(String, PathBuf, Vec<String>, Vec<String>)> = VecDeque::new();
    let origin = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    for n in &top.needed {
        queue.push_back((
            n.clone(),
            origin.clone(),
            top.rpath.clone(),
            top.runpath.clone(),
        ));
    }
    while let Some((name, origin, rpath, runpath)) = queue.pop_front() {
        if !loaded_names.insert(name.clone()) || r.loaded.len() >= MAX_LIBS {
            continue;
        }
        let mut dirs: Vec<PathBuf> = Vec::new();
        if runpath.is_empty() {
            dirs.extend(rpath.iter().map(|d| expand(d, &origin)));
        }
        dirs.extend(ld_path.iter().cloned());
        dirs.extend(runpath.iter().map(|d| expand(d, &origin)));
        dirs.extend(system.iter().cloned());
        let found = if name.contains('/') {
            Some(PathBuf::from(&name)).filter(|p| host.fs.is_file(p))
        } else {
            dirs.iter()
                .map(|d| d.join(&name))
                .find(|p| host.fs.is_file(p))
        };
        let Some(p) = found else {
            r.not_found.push(name);
            continue;
        };
        match parse(host, &p) {
            Ok(lib) => {
                defined.extend(lib.defined);
                let o = p.parent().unwrap_or(Path::new("/")).to_path_buf();
                for n in lib.needed {
                    queue.push_back((n, o.clone(), lib.rpath.clone(), lib.runpath.clone()));
                }
                r.loaded.push((name, p));
            }
            Err(e) => r.not_found.push(format!("{name} ({}: {e})", p.display())),
        }
    }
    r.undefined_total = top.undefined.len();
    let unresolved: BTreeSet<String> = top
        .undefined
        .into_iter()
        .filter(|s| !defined.contains(s))
        .collect();
    r.unresolved = unresolved.into_iter().collect();
    r
}
