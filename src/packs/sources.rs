//! Where packs come from, in this order: the built-in packs (compiled in), the system's
//! `/etc/rocm-doctor/checks.d/*.toml`, the user's `$XDG_CONFIG_HOME/rocm-doctor/checks.d`
//! (`~/.config` when XDG_CONFIG_HOME is unset; skipped silently without HOME, as in a Nix
//! build), then each `--checks DIR|FILE`.
//!
//! These are the operator's configuration, so they are read on the machine the doctor runs on,
//! also with --sysroot (which changes what the checks look at, not which checks run). Packs can
//! run commands: a file that is world-writable or owned by a user other than root and the
//! doctor's own user is refused.

use super::compile::{self, MAX_FILE_BYTES};
use super::{Loaded, Origin, PackSet};
use crate::data::DataError;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// The packs shipped with the doctor (`checks/packs/`).
pub const BUILT_IN: &[(&str, &str)] = &[
    (
        "checks/packs/pytorch.toml",
        include_str!("../../checks/packs/pytorch.toml"),
    ),
    (
        "checks/packs/slurm.toml",
        include_str!("../../checks/packs/slurm.toml"),
    ),
    (
        "checks/packs/nix.toml",
        include_str!("../../checks/packs/nix.toml"),
    ),
    (
        "checks/packs/cmake.toml",
        include_str!("../../checks/packs/cmake.toml"),
    ),
];

pub const SYSTEM_DIR: &str = "/etc/rocm-doctor/checks.d";
const MAX_FILES_PER_DIR: usize = 256;

/// The user's checks.d from the environment (`None` without XDG_CONFIG_HOME and HOME).
pub fn user_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let base = env("XDG_CONFIG_HOME")
        .filter(|v| v.starts_with('/'))
        .map(PathBuf::from)
        .or_else(|| {
            env("HOME")
                .filter(|h| h.starts_with('/'))
                .map(|h| Path::new(&h).join(".config"))
        })?;
    Some(base.join("rocm-doctor/checks.d"))
}

/// Loads every pack: built-in, system, user, then `extra` (`--checks`). A missing system or
/// user directory is normal; a missing `--checks` path is a broken entry.
pub fn load_all(env: &dyn Fn(&str) -> Option<String>, extra: &[PathBuf]) -> PackSet {
    let mut set = PackSet::default();
    for (name, text) in BUILT_IN.iter().chain(super::SYMPTOM_PACKS) {
        push(&mut set, Origin::BuiltIn(name), Ok(text.to_string()), name);
    }
    // The known issues, compiled from their own table into pack checks (one engine; the
    // table stays the single source `inspect` and `log` read).
    set.loaded.push(Loaded::Ok {
        origin: Origin::BuiltIn("checks/known-issues.toml"),
        pack: crate::inspect::known_issues::pack::pack(),
    });
    let mut dirs = vec![PathBuf::from(SYSTEM_DIR)];
    dirs.extend(user_dir(env));
    for d in dirs {
        if d.is_dir() {
            load_path(&mut set, &d);
        }
    }
    for p in extra {
        load_path(&mut set, p);
    }
    check_references(&mut set);
    set
}

/// Every check a symptom names must exist (a built-in check or one of a loaded pack): a
/// misspelt id would silently judge nothing. A pack with such a reference is broken, with
/// `file:line:column` and the nearest id.
fn check_references(set: &mut PackSet) {
    let bad = reference_errors(set, &PackSet::default());
    for l in &mut set.loaded {
        let Loaded::Ok { origin, .. } = l else {
            continue;
        };
        if let Some((_, errors)) = bad.iter().find(|(o, _)| o == origin) {
            *l = Loaded::Broken {
                origin: origin.clone(),
                errors: errors.clone(),
            };
        }
    }
}

/// The symptoms' references to checks that neither the built-in checks, `set` nor `also`
/// define, per pack of `set`.
pub fn reference_errors(set: &PackSet, also: &PackSet) -> Vec<(Origin, Vec<DataError>)> {
    let mut known: Vec<String> = crate::checks::docs().iter().map(|d| d.id.clone()).collect();
    known.extend(set.checks().map(|(_, c)| c.doc.id.clone()));
    known.extend(also.checks().map(|(_, c)| c.doc.id.clone()));
    let ids: Vec<&str> = known.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    for (origin, pack) in set.packs() {
        let mut errors = Vec::new();
        let file = origin.file();
        for sy in &pack.symptoms {
            for (c, at) in sy.checks.iter().zip(&sy.check_locations) {
                if !ids.contains(&c.as_str()) {
                    let hint = crate::data::hint(c, &ids);
                    errors.push(DataError::located(
                        &file,
                        *at,
                        format!(
                            "symptom '{}' names check '{c}', which no built-in check or loaded pack defines{hint}",
                            sy.id
                        ),
                    ));
                }
            }
        }
        if !errors.is_empty() {
            out.push((origin.clone(), errors));
        }
    }
    out
}

/// Only the built-in packs (tests, and `why`'s symptom table when nothing else is wanted).
pub fn built_in() -> PackSet {
    load_all(&|_| None, &[]).only_built_in()
}

impl PackSet {
    fn only_built_in(mut self) -> Self {
        self.loaded.retain(|l| {
            matches!(
                l,
                Loaded::Ok {
                    origin: Origin::BuiltIn(_),
                    ..
                } | Loaded::Broken {
                    origin: Origin::BuiltIn(_),
                    ..
                }
            )
        });
        self
    }
}

fn load_path(set: &mut PackSet, p: &Path) {
    match std::fs::metadata(p) {
        Ok(m) if m.is_dir() => {
            let mut files: Vec<PathBuf> = match std::fs::read_dir(p) {
                Ok(rd) => rd
                    .flatten()
                    .map(|e| e.path())
                    .filter(|f| f.extension().is_some_and(|e| e == "toml"))
                    .collect(),
                Err(e) => {
                    broken(set, p, format!("cannot list the directory: {e}"));
                    return;
                }
            };
            files.sort();
            if files.len() > MAX_FILES_PER_DIR {
                broken(
                    set,
                    p,
                    format!(
                        "{} pack files; at most {MAX_FILES_PER_DIR} are read",
                        files.len()
                    ),
                );
                files.truncate(MAX_FILES_PER_DIR);
            }
            for f in files {
                load_file(set, &f);
            }
        }
        Ok(_) => load_file(set, p),
        Err(e) => broken(set, p, format!("cannot use it: {e}")),
    }
}

fn broken(set: &mut PackSet, p: &Path, msg: String) {
    set.loaded.push(Loaded::Broken {
        origin: Origin::File(p.to_path_buf()),
        errors: vec![DataError::whole(&p.display().to_string(), msg)],
    });
}

/// Why a pack file must not be trusted, if it must not.
pub fn unsafe_owner(meta: &std::fs::Metadata, my_uid: u32) -> Option<String> {
    if meta.mode() & 0o002 != 0 {
        return Some(format!(
            "refused: the file is world-writable (mode {:o}); anyone could make the doctor run their commands. Fix: chmod o-w",
            meta.mode() & 0o7777
        ));
    }
    if meta.uid() != 0 && meta.uid() != my_uid {
        return Some(format!(
            "refused: the file is owned by uid {}, neither root nor the user running the doctor (uid {my_uid}); packs can run commands",
            meta.uid()
        ));
    }
    None
}

/// Reads and checks one pack file (used by loading and by `checks lint`).
pub fn read_pack_file(p: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(p).map_err(|e| format!("cannot read it: {e}"))?;
    if let Some(why) = unsafe_owner(&meta, nix::unistd::geteuid().as_raw()) {
        return Err(why);
    }
    if meta.len() > MAX_FILE_BYTES as u64 {
        return Err(format!(
            "the file is {} bytes; a pack may have at most {MAX_FILE_BYTES}",
            meta.len()
        ));
    }
    let bytes = std::fs::read(p).map_err(|e| format!("cannot read it: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())
}

fn load_file(set: &mut PackSet, p: &Path) {
    let name = p.display().to_string();
    let text = read_pack_file(p).map_err(|e| DataError::whole(&name, e));
    push(set, Origin::File(p.to_path_buf()), text, &name);
}

fn push(set: &mut PackSet, origin: Origin, text: Result<String, DataError>, name: &str) {
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            set.loaded.push(Loaded::Broken {
                origin,
                errors: vec![e],
            });
            return;
        }
    };
    // Built-in packs are tested; their symptoms' regexes wait for their first use.
    let compiled = match origin {
        Origin::BuiltIn(_) => compile::compile_trusted(name, &text),
        Origin::File(_) => compile::compile(name, &text),
    };
    match compiled {
        Ok(pack) => {
            // A check id may be defined once, by the doctor or by one pack.
            let clash = pack.checks.iter().find_map(|c| {
                if crate::checks::doc(&c.doc.id).is_some() {
                    Some(DataError::whole(
                        name,
                        format!("check id '{}' is a built-in check", c.doc.id),
                    ))
                } else {
                    set.check(&c.doc.id).map(|(o, _)| {
                        DataError::whole(
                            name,
                            format!("check id '{}' is already defined by {o}", c.doc.id),
                        )
                    })
                }
            });
            let ns_clash = set
                .packs()
                .find(|(_, p)| p.name == pack.name)
                .map(|(o, _)| {
                    DataError::whole(
                        name,
                        format!("pack name '{}' is already used by {o}", pack.name),
                    )
                });
            match clash.or(ns_clash) {
                Some(e) => set.loaded.push(Loaded::Broken {
                    origin,
                    errors: vec![e],
                }),
                None => set.loaded.push(Loaded::Ok { origin, pack }),
            }
        }
        Err(errors) => set.loaded.push(Loaded::Broken { origin, errors }),
    }
}

/// `checks lint FILE...`: every problem of every file, and whether all are valid.
pub fn lint(files: &[std::path::PathBuf]) -> (Vec<String>, bool) {
    let mut lines = Vec::new();
    let mut ok = true;
    let mut compiled = Vec::new();
    for f in files {
        let name = f.display().to_string();
        let text = match read_pack_file(f) {
            Ok(t) => t,
            Err(e) => {
                ok = false;
                lines.push(DataError::whole(&name, e).to_string());
                continue;
            }
        };
        match compile::compile(&name, &text) {
            Ok(p) => compiled.push((name, p)),
            Err(errs) => {
                ok = false;
                lines.extend(errs.iter().map(|e| e.to_string()));
            }
        }
    }
    // References are judged as a run would: against the built-in checks, the built-in packs'
    // and those of every file linted together.
    let builtin = built_in();
    let mut set = PackSet::default();
    for (name, pack) in compiled {
        set.loaded.push(Loaded::Ok {
            origin: Origin::File(name.into()),
            pack,
        });
    }
    for (_, errors) in reference_errors(&set, &builtin) {
        ok = false;
        lines.extend(errors.iter().map(DataError::to_string));
    }
    for (origin, p) in set.packs() {
        if !lines.iter().any(|l| l.starts_with(&format!("{origin}:"))) {
            lines.push(format!(
                "{origin}: ok: pack {} {} ({} checks, {} symptoms)",
                p.name,
                p.version,
                p.checks.len(),
                p.symptoms.len()
            ));
        }
    }
    (lines, ok)
}
