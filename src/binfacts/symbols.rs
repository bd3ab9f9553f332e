//! `inspect --symbols`: like `ldd -r`, resolve `DT_NEEDED` as the dynamic loader would and list
//! the undefined symbols of a file that no loaded library defines.
//!
//! Each name is looked up by the one library lookup (`inventory::libraries::find`, the
//! loader's order for the object that needs it: `Search::for_object`). Symbol versions are not
//! compared (names only), and weak undefined symbols never count.

use crate::codeobj::elf;
use crate::host::{io_error_text, Host};
use crate::inventory::libraries::{self, Name, Search};
use serde::Serialize;
use std::collections::{BTreeSet, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// No real dependency closure is larger.
const MAX_LIBS: usize = 1000;

#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct SymbolReport {
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
    dynamic: elf::Dynamic,
    defined: Vec<String>,
    undefined: Vec<String>,
}

fn parse(host: &Host, path: &Path) -> Result<Parsed, String> {
    let f = host.fs.open(path).map_err(|e| io_error_text(&e))?;
    // A file shrinking while mapped reads as zeros past its end (host::map), not SIGBUS.
    let map = crate::host::map::SafeMap::map(&f).map_err(|e| io_error_text(&e))?;
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
    Ok(Parsed {
        dynamic,
        defined,
        undefined,
    })
}

/// Resolves `path`'s DT_NEEDED like the loader and lists the undefined symbols no needed
/// library defines (like `ldd -r`).
pub(crate) fn resolve(host: &Host, path: &Path) -> SymbolReport {
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
    let mut defined: HashSet<String> = HashSet::new();
    let mut loaded_names: HashSet<String> = HashSet::new();
    // (needed name, the search of the object that needs it)
    let mut queue: VecDeque<(String, Rc<Search>)> = VecDeque::new();
    let loader = Search::loader(host);
    let search_of = |object: &Path, d: &elf::Dynamic| {
        let origin = object.parent().unwrap_or(Path::new("/"));
        Rc::new(loader.for_object(object, origin, d))
    };
    let top_search = search_of(path, &top.dynamic);
    for n in &top.dynamic.needed {
        queue.push_back((n.clone(), top_search.clone()));
    }
    while let Some((name, search)) = queue.pop_front() {
        if !loaded_names.insert(name.clone()) || r.loaded.len() >= MAX_LIBS {
            continue;
        }
        let Some(p) = libraries::find(host, &search, Name::File(&name)).map(|f| f.path) else {
            r.not_found.push(name);
            continue;
        };
        match parse(host, &p) {
            Ok(lib) => {
                defined.extend(lib.defined);
                let s = search_of(&p, &lib.dynamic);
                for n in lib.dynamic.needed {
                    queue.push_back((n, s.clone()));
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
