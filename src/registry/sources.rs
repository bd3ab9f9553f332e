//! Where packs come from, in this order: the built-in packs (compiled in), the system's
//! `/etc/rocm-doctor/checks.d/*.toml`, the user's `$XDG_CONFIG_HOME/rocm-doctor/checks.d`
//! (`~/.config` when XDG_CONFIG_HOME is unset; skipped silently without HOME, as in a Nix
//! build), then each `--checks DIR|FILE`.
//!
//! These are the operator's configuration, so they are read on the machine the doctor runs on,
//! also with --sysroot (which changes what the checks look at, not which checks run). Packs can
//! run commands, so every file is opened through [`crate::host::trust`] (docs/security.md,
//! section 1): walked from `/` by descriptor, every directory on the way owned by root or the
//! doctor's user and writable by nobody else, the file itself likewise, and read through the
//! descriptor that was judged. As root only root-owned files and directories pass, so another
//! user's `$XDG_CONFIG_HOME` (kept by `sudo -E`) is skipped, with a `packs.load` entry saying why.

use crate::data::DataError;
use crate::host::trust::{self, Either, Owners, Refusal, TrustedDir};
use crate::packs::compile::{self, MAX_FILE_BYTES};
use crate::packs::{Loaded, Origin, PackSet};
use std::path::{Path, PathBuf};

/// The packs shipped with the doctor (`checks/packs/`).
pub(crate) const BUILT_IN: &[(&str, &str)] = &[
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

pub(crate) const SYSTEM_DIR: &str = "/etc/rocm-doctor/checks.d";
const MAX_FILES_PER_DIR: usize = 256;

/// The user's checks.d from the environment (`None` without XDG_CONFIG_HOME and HOME).
pub(crate) fn user_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
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
pub(crate) fn load_all(env: &dyn Fn(&str) -> Option<String>, extra: &[PathBuf]) -> PackSet {
    let mut set = PackSet::default();
    for (name, text) in BUILT_IN.iter().chain(crate::packs::SYMPTOM_PACKS) {
        push(&mut set, Origin::BuiltIn(name), Ok(text.to_string()), name);
    }
    // The known issues, compiled from their own table into pack checks (one engine; the
    // table stays the single source `inspect` and `log` read).
    // A broken table is a broken pack (one `packs.load` finding), not an empty one.
    let origin = Origin::BuiltIn(crate::known_issues::FILE);
    set.loaded.push(match crate::known_issues::catalogue() {
        Ok(_) => Loaded::Ok {
            origin,
            pack: crate::known_issues::pack::pack(),
        },
        Err(errors) => Loaded::Broken {
            origin,
            errors: errors.clone(),
        },
    });
    let owners = Owners::current();
    load_config_dir(&mut set, Path::new(SYSTEM_DIR), owners, false);
    if let Some(d) = user_dir(env) {
        load_config_dir(&mut set, &d, owners, true);
    }
    for p in extra {
        load_path(&mut set, p, owners);
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
pub(crate) fn reference_errors(set: &PackSet, also: &PackSet) -> Vec<(Origin, Vec<DataError>)> {
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
                            "symptom '{}' names check '{c}', which no built-in check or loaded \
                                pack defines{hint}",
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

/// The system or user checks.d: absent is normal (not even a note); present but refused is a
/// broken entry naming the rule.
fn load_config_dir(set: &mut PackSet, d: &Path, owners: Owners, per_user: bool) {
    // Whether it exists at all, by path: a missing directory under a path the rule would
    // refuse (HOME=/tmp in a container) is no reason for a finding. What is read is decided
    // by the walk below.
    if !d.is_dir() {
        return;
    }
    match trust::open_dir(d, owners) {
        Ok(dir) => load_dir(set, d, &dir),
        Err(Refusal::Missing(_)) => {}
        Err(e) if per_user && owners.euid == 0 => broken(
            set,
            d,
            format!(
                "skipped: as root the doctor loads a per-user checks.d only when it and every \
                    directory above it are root's and writable by nobody else (is XDG_CONFIG_HOME \
                    or HOME another user's, kept by sudo -E?); {e}. Fix: install site packs in \
                    {SYSTEM_DIR}"
            ),
        ),
        Err(e) => broken(set, d, e.to_string()),
    }
}

fn load_path(set: &mut PackSet, p: &Path, owners: Owners) {
    match trust::open_any(p, owners) {
        Ok(Either::Dir(dir)) => load_dir(set, p, &dir),
        Ok(Either::File(f)) => {
            let name = p.display().to_string();
            let text = read_opened(f).map_err(|e| DataError::whole(&name, e));
            push(set, Origin::File(p.to_path_buf()), text, &name);
        }
        Err(Refusal::Missing(_)) => broken(
            set,
            p,
            format!(
                "cannot use it: {}",
                std::io::Error::from_raw_os_error(nix::libc::ENOENT)
            ),
        ),
        Err(e) => broken(set, p, e.to_string()),
    }
}

/// Every `*.toml` of a vetted directory, listed and opened through its descriptor; `shown` is
/// the path the user gave (the packs' origins are named under it).
fn load_dir(set: &mut PackSet, shown: &Path, dir: &TrustedDir) {
    let mut names: Vec<std::ffi::OsString> = match dir.names() {
        Ok(n) => n
            .into_iter()
            .filter(|n| Path::new(n).extension().is_some_and(|e| e == "toml"))
            .collect(),
        Err(e) => {
            broken(set, shown, format!("cannot list the directory: {e}"));
            return;
        }
    };
    names.sort();
    if names.len() > MAX_FILES_PER_DIR {
        broken(
            set,
            shown,
            format!(
                "{} pack files; at most {MAX_FILES_PER_DIR} are read",
                names.len()
            ),
        );
        names.truncate(MAX_FILES_PER_DIR);
    }
    for n in names {
        let f = shown.join(&n);
        let name = f.display().to_string();
        let text = dir
            .open_file(&n)
            .map_err(|e| e.to_string())
            .and_then(read_opened)
            .map_err(|e| DataError::whole(&name, e));
        push(set, Origin::File(f), text, &name);
    }
}

fn broken(set: &mut PackSet, p: &Path, msg: String) {
    set.loaded.push(Loaded::Broken {
        origin: Origin::File(p.to_path_buf()),
        errors: vec![DataError::whole(&p.display().to_string(), msg)],
    });
}

/// Reads and checks one pack file (used by `checks lint`; a run loads through the same walk).
pub(crate) fn read_pack_file(p: &Path) -> Result<String, String> {
    let f = trust::open_file(p, Owners::current()).map_err(|e| e.to_string())?;
    read_opened(f)
}

/// The text of a vetted pack file, read through its descriptor with the size cap.
fn read_opened(f: crate::host::open::OpenedFile) -> Result<String, String> {
    if f.meta.len() > MAX_FILE_BYTES as u64 {
        return Err(format!(
            "the file is {} bytes; a pack may have at most {MAX_FILE_BYTES}",
            f.meta.len()
        ));
    }
    let bytes = f
        .read_capped(MAX_FILE_BYTES as u64)
        .map_err(|e| format!("cannot read it: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())
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
pub(crate) fn lint(files: &[std::path::PathBuf]) -> (Vec<String>, bool) {
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
