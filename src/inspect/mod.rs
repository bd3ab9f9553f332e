//! `rocm-doctor inspect FILE|DIR...`: what GPU code binaries and libraries really carry, and
//! whether the runtime would find a code object for each GPU (or `--isa`). The I/O side:
//! memory-mapped files through `host.fs`, directory walking, Tensile library directories,
//! `--symbols`. The facts about each file come from [`crate::binfacts`] (formats parsed by
//! [`crate::codeobj`]); this module is the report: the walk, the verdicts (`judge`), the kept
//! findings (`kept`) and the output (`output`). docs/inspect.md documents the output.

pub(crate) mod judge;
pub(crate) mod kept;
pub(crate) mod output;

/// The binary facts lived here before they had their own module; their old paths still work.
pub(crate) use crate::binfacts::{file, runtime, symbols, tensile, tensile_path};

use crate::codeobj::{self, blob};
use crate::config::Config;
use crate::host::Host;
use crate::inventory::Inventory;
use crate::isa::TargetId;
use crate::report::Finding;
use file::{FileKind, FileReport};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use tensile::TensileDir;

/// What `inspect` was asked for besides the paths.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options {
    pub symbols: bool,
    pub kernels: bool,
    /// Check the MD5 of every compressed bundle, not only zlib ones.
    pub verify_hash: bool,
    /// Cap on one bundle's decompressed size.
    pub cap: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            symbols: false,
            kernels: false,
            verify_hash: false,
            cap: codeobj::ccob::DEFAULT_CAP,
        }
    }
}

/// A target ISA to judge code objects for, with where it came from.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Target {
    pub target: TargetId,
    pub source: String,
}

/// What stays in memory while the listing streams out: the inputs of the verdicts, never the
/// file reports themselves (a tree of real ROCm wheels held 242 MB of them). Each file is
/// judged as soon as it is read, written out and dropped.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub targets: Vec<Target>,
    /// Installed versions the known issues were evaluated against.
    pub versions: BTreeMap<String, String>,
    /// Tensile directories (one summary each; listed after the files).
    pub tensile: Vec<TensileDir>,
    pub symbols: Vec<symbols::SymbolReport>,
    /// Files seen while walking directories that carry no device code.
    pub files_without_device_code: usize,
    pub walk_errors: Vec<String>,
    /// Directories at [`MAX_DEPTH`] that were not descended (the first [`MAX_NOTED`]) and how
    /// many there were: the listing says it stopped there rather than ending silently.
    pub too_deep: Vec<String>,
    pub too_deep_count: usize,
    /// Files listed so far.
    pub files: usize,
    /// Every finding, in listing order (kept on disk while the tree streams; `kept.rs`).
    pub kept: kept::Kept,
    /// rocBLAS files wait for the Tensile directories before they are judged (slot, copy).
    deferred: Vec<(usize, FileReport)>,
}

/// Targets: `--isa` first, else the visible GPU agents and then the inventory's other targets
/// (the one rule: `inventory::targets::pick`).
pub(crate) fn targets(inv: &Inventory) -> Vec<Target> {
    let explicit = inv.cfg.isas.iter().map(|t| Target {
        target: t.clone(),
        source: "--isa".into(),
    });
    let fallback = std::iter::once_with(|| {
        let agents = inv.gpu().agents.iter().filter(|a| a.visible);
        let agents = agents.filter_map(|a| {
            a.target.clone().map(|t| Target {
                target: t,
                source: format!("agent {}", a.node),
            })
        });
        let others = inv.targets().isas.iter().map(|t| Target {
            target: t.isa.clone(),
            source: t.source.clone(),
        });
        agents.chain(others).collect()
    });
    crate::inventory::targets::pick(
        std::iter::once(explicit.collect()).chain(fallback),
        |t: &Target| t.target.clone(),
        false,
    )
    .isas
}

fn blob_options(o: &Options) -> blob::Options {
    blob::Options {
        cap: o.cap,
        kernel_names: o.kernels,
        verify_hash: o.verify_hash,
        targets_only: false,
    }
}

/// The first bytes of a file (to decide whether to map it).
fn head(host: &Host, p: &Path) -> Vec<u8> {
    let mut b = vec![0u8; 24];
    let n = host
        .fs
        .open(p)
        .and_then(|mut f| f.read(&mut b))
        .unwrap_or(0);
    b.truncate(n);
    b
}

/// The Tensile component a directory is the library of: by path (`.../rocblas/library`,
/// Debian's `.../rocblas/<version>/library`), else `tensile` for any directory holding
/// TensileLibrary catalogs.
fn tensile_component(host: &Host, p: &Path) -> Option<&'static str> {
    if let Some((c, _)) = tensile::component_of_path(p) {
        return Some(c);
    }
    tensile::holds_catalogs(host, p).then_some("tensile")
}

/// Receives each file report once it is read and judged (then it is dropped).
pub(crate) type Emit<'a> = dyn FnMut(FileReport) -> std::io::Result<()> + 'a;

/// Inspects the paths, handing every file report to `emit` as soon as it is judged; what the
/// verdicts need later stays in `tally`. `tick` is told of every file looked at.
pub(crate) fn visit(
    host: &Host,
    paths: &[PathBuf],
    o: &Options,
    tally: &mut Tally,
    emit: &mut Emit<'_>,
    tick: &mut dyn FnMut(&Path, &Tally),
) -> std::io::Result<()> {
    let bo = blob_options(o);
    for p in paths {
        if host.fs.is_dir(p) {
            walk(host, p, &bo, o, tally, emit, tick)?;
        } else {
            tick(p, tally);
            let r = file::inspect_file(host, p, &bo);
            take(host, o, tally, r, emit)?;
        }
    }
    Ok(())
}

/// Judges one file report (or keeps it for later when it is a rocBLAS) and emits it.
fn take(
    host: &Host,
    o: &Options,
    tally: &mut Tally,
    mut r: FileReport,
    emit: &mut Emit<'_>,
) -> std::io::Result<()> {
    if o.symbols && r.kind == FileKind::HostElf {
        tally.symbols.push(symbols::resolve(host, &r.path));
    }
    tally.files += 1;
    if is_rocblas(&r) {
        let slot = tally.kept.reserve();
        tally.deferred.push((slot, without_kernel_names(&mut r)));
    } else {
        let mut f = judge_file(host, &r, tally);
        tally.kept.push(&mut f);
    }
    emit(r)
}

/// Other names of files met under several names (soname links, hard links), keyed by
/// (device, inode): the first pass of a directory walk. Walk order is the order of `Path`
/// (depth first, entries sorted by name), so the first name of a group is its smallest path.
type Aliases = HashMap<(u64, u64), Vec<PathBuf>>;

fn file_id(p: &Path) -> Option<((u64, u64), u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(p)
        .ok()
        .map(|m| ((m.dev(), m.ino()), m.nlink()))
}

/// Deepest directory level walked below an `inspect` argument (real trees are under 20 deep;
/// this bounds a hostile or looping tree).
pub(crate) const MAX_DEPTH: usize = 64;
/// Walk errors and not-descended directories named, each; the rest are counted.
const MAX_NOTED: usize = 50;

fn walker(start: &Path, follow: bool) -> walkdir::WalkDir {
    walkdir::WalkDir::new(start)
        .follow_links(follow)
        .max_depth(MAX_DEPTH)
        .sort_by_file_name()
}

#[allow(clippy::too_many_arguments)]
fn walk(
    host: &Host,
    dir: &Path,
    bo: &blob::Options,
    o: &Options,
    tally: &mut Tally,
    emit: &mut Emit<'_>,
    tick: &mut dyn FnMut(&Path, &Tally),
) -> std::io::Result<()> {
    if let Some(c) = tensile_component(host, dir) {
        tick(dir, tally);
        tally.tensile.push(tensile::inspect_dir(host, dir, c, bo));
        return Ok(());
    }
    let start = host.fs.host_path(
        &host
            .fs
            .canonicalize(dir)
            .unwrap_or_else(|_| dir.to_path_buf()),
    );
    // Following links is loop-safe in walkdir (a loop is an error entry); inside a sysroot an
    // absolute link would leave it, so links are not followed there.
    let follow = host.fs.paths_are_native();
    // First pass, names only: the Tensile directories (not descended) and the files met
    // under several names, so that a file is listed once with all its names without holding
    // the listing until the walk ends.
    let (tensile_dirs, aliases) = first_pass(host, &start, follow);
    let skip: std::collections::HashSet<&Path> =
        tensile_dirs.iter().map(|(p, _)| p.as_path()).collect();
    let it = walker(&start, follow)
        .into_iter()
        .filter_entry(|e| !(e.file_type().is_dir() && skip.contains(e.path())));
    // A group's first name decides: inspected (listed with its other names) or not.
    let mut first_verdict: HashMap<(u64, u64), Option<bool>> = HashMap::new();
    for e in it {
        let e = match e {
            Ok(e) => e,
            Err(err) => {
                if tally.walk_errors.len() < MAX_NOTED {
                    tally.walk_errors.push(err.to_string());
                }
                continue;
            }
        };
        if e.depth() == MAX_DEPTH && e.file_type().is_dir() {
            // walkdir yields nothing below `max_depth`: say where the walk stopped.
            tally.too_deep_count += 1;
            if tally.too_deep.len() < MAX_NOTED {
                let mp = host.fs.machine_path(e.path());
                tally.too_deep.push(mp.display().to_string());
            }
            continue;
        }
        if !e.file_type().is_file() {
            continue;
        }
        let mp = host.fs.machine_path(e.path());
        tick(&mp, tally);
        let id = file_id(e.path()).map(|(id, _)| id);
        let mut others: Vec<PathBuf> = Vec::new();
        if let Some(group) = id.and_then(|id| aliases.get(&id)) {
            let id = id.unwrap_or_default();
            let names = names_of(group, e.path());
            if names[0] != e.path() {
                // A later name: the first one was judged already.
                match first_verdict.get(&id).copied().flatten() {
                    Some(true) | None => {}
                    Some(false) => tally.files_without_device_code += 1,
                }
                continue;
            }
            others = names[1..].iter().map(|p| host.fs.machine_path(p)).collect();
            first_verdict.insert(id, None);
        }
        let h = head(host, &mp);
        if codeobj::sniff(&h) == codeobj::Magic::Unknown {
            continue;
        }
        let mut r = file::inspect_file(host, &mp, bo);
        let interesting = r.has_device_code()
            || matches!(r.kind, FileKind::Bundle | FileKind::CodeObject)
            || !r.problems.is_empty();
        if let Some(id) = id.filter(|_| !others.is_empty()) {
            first_verdict.insert(id, Some(interesting));
        }
        if interesting {
            r.also_named = others;
            take(host, o, tally, r, emit)?;
        } else {
            tally.files_without_device_code += 1;
        }
    }
    for (p, c) in tensile_dirs {
        let mp = host.fs.machine_path(&p);
        tick(&mp, tally);
        tally.tensile.push(tensile::inspect_dir(host, &mp, c, bo));
    }
    Ok(())
}

/// The walk's first pass, names only: the Tensile directories under `start` (not descended)
/// and the files met under several names (symlinks, hard links), by file id.
fn first_pass(host: &Host, start: &Path, follow: bool) -> (Vec<(PathBuf, &'static str)>, Aliases) {
    let mut tensile_dirs: Vec<(PathBuf, &'static str)> = Vec::new();
    let mut aliases: Aliases = HashMap::new();
    let it = walker(start, follow).into_iter().filter_entry(|e| {
        if e.file_type().is_dir() {
            let mp = host.fs.machine_path(e.path());
            if let Some(c) = tensile_component(host, &mp) {
                tensile_dirs.push((e.path().to_path_buf(), c));
                return false;
            }
        }
        true
    });
    for e in it.flatten() {
        if !e.file_type().is_file() {
            continue;
        }
        if let Some((id, nlink)) = file_id(e.path()) {
            if e.path_is_symlink() || nlink > 1 {
                aliases.entry(id).or_default().push(e.path().to_path_buf());
            }
        }
    }
    (tensile_dirs, aliases)
}

/// All names of one file, sorted: the first decides for the group.
fn names_of<'a>(group: &'a [PathBuf], path: &'a Path) -> Vec<&'a Path> {
    let mut names: Vec<&Path> = group.iter().map(|p| p.as_path()).collect();
    names.push(path);
    names.sort();
    names.dedup();
    names
}

/// The code objects of a report (file-level and in bundles).
fn code_objects(
    r: &mut FileReport,
) -> impl Iterator<Item = &mut crate::codeobj::amdgpu::CodeObject> {
    r.bundles
        .iter_mut()
        .flat_map(|b| b.entries.iter_mut())
        .filter_map(|e| e.code_object.as_mut())
        .chain(r.code_object.as_mut())
}

/// A copy to judge later, without the kernel names (never judged; a rocBLAS has tens of
/// thousands): they are moved out for the copy and back, never duplicated.
fn without_kernel_names(r: &mut FileReport) -> FileReport {
    let names: Vec<Vec<String>> = code_objects(r)
        .map(|co| {
            co.metadata
                .as_mut()
                .map(|m| std::mem::take(&mut m.kernels))
                .unwrap_or_default()
        })
        .collect();
    let copy = r.clone();
    for (co, k) in code_objects(r).zip(names) {
        if let Some(m) = co.metadata.as_mut() {
            m.kernels = k;
        }
    }
    copy
}

fn is_rocblas(r: &FileReport) -> bool {
    r.path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("librocblas.so"))
}

/// Whether a file is a rocBLAS whose Tensile library is missing or empty where its loader
/// looks ([`tensile_path::locate`]).
fn rocblas_without_tensile(host: &Host, r: &FileReport, tensile: &[TensileDir]) -> Option<PathBuf> {
    if !is_rocblas(r) {
        return None;
    }
    let loc = tensile_path::locate(host, &tensile_path::ROCBLAS, &r.path);
    let known = tensile.iter().find(|t| t.path == loc.dir);
    let empty = match known {
        Some(t) => t.is_empty(),
        None => !tensile::holds_catalogs(host, &loc.dir),
    };
    empty.then_some(loc.dir)
}

/// The findings of one file: read errors, matches against the targets, known issues.
fn judge_file(host: &Host, r: &FileReport, tally: &Tally) -> Vec<Finding> {
    let env = |k: &str| host.env.get_str(k);
    let mut findings = Vec::new();
    let subject = r.path.display().to_string();
    if let Some(e) = &r.error {
        findings.push(Finding::error(format!("cannot inspect: {e}")).subject(subject));
        return findings;
    }
    findings.extend(judge::read_problems(r));
    if !r.has_device_code() {
        findings.push(
            Finding::skip(
                "carries no HIP device code (.hip_fatbin, offload bundle or code object)",
            )
            .subject(subject.clone()),
        );
    } else if tally.targets.is_empty() {
        findings.push(
            Finding::skip(format!(
                "no GPU agents and no --isa: not matched (carries {})",
                r.isas.join(", ")
            ))
            .subject(subject.clone()),
        );
    } else {
        findings.extend(judge::file_against_targets(r, &tally.targets));
    }
    let mut extra: Vec<crate::binfacts::flags::Flag> = Vec::new();
    if rocblas_without_tensile(host, r, &tally.tensile).is_some() {
        extra.push(crate::binfacts::flags::Flag::TensileMissing);
    }
    let undefined: Vec<String> = tally
        .symbols
        .iter()
        .find(|s| s.path == r.path)
        .map(|s| s.unresolved.clone())
        .unwrap_or_default();
    findings.extend(judge::known_issues_for(
        r,
        &extra,
        &tally.versions,
        &env,
        &undefined,
    ));
    findings
}

/// Completes `tally.kept` once all files were visited: files in listing order (rocBLAS files
/// judged now that the Tensile directories are known), then Tensile directories, then symbols.
pub(crate) fn finish(host: &Host, tally: &mut Tally, o: &Options) {
    for (slot, r) in std::mem::take(&mut tally.deferred) {
        let f = judge_file(host, &r, tally);
        tally.kept.fill(slot, f);
    }
    let mut findings: Vec<Finding> = Vec::new();
    for t in &tally.tensile {
        if tally.targets.is_empty() {
            // The catalogs' ISAs, then the code objects' target ids not already named (a
            // directory with both named every ISA twice).
            let mut isas: Vec<String> = Vec::new();
            for i in t.lazy_isas.iter().chain(&t.code_object_isas) {
                if !isas.contains(i) {
                    isas.push(i.clone());
                }
            }
            findings.push(
                Finding::skip(format!(
                    "no GPU agents and no --isa: not matched (covers {})",
                    isas.join(", ")
                ))
                .subject(t.path.display().to_string()),
            );
        } else {
            findings.extend(judge::tensile_against_targets(t, &tally.targets));
        }
        for e in &t.errors {
            findings.push(
                Finding::warn(format!("cannot read {e}"))
                    .subject(t.path.display().to_string())
                    .fix_text("reinstall the library; the runtime will reject this file too"),
            );
        }
    }
    if o.symbols {
        for s in &tally.symbols {
            findings.push(symbol_finding(s));
        }
    }
    tally.kept.append(findings);
    tally.kept.seal();
}

fn symbol_finding(s: &symbols::SymbolReport) -> Finding {
    let subject = s.path.display().to_string();
    let f = if let Some(e) = &s.error {
        Finding::error(format!("cannot read the dynamic symbols: {e}"))
    } else if !s.not_found.is_empty() || !s.unresolved.is_empty() {
        let mut f = Finding::fail(format!(
            "{} needed libraries not found, {} undefined symbols no \
            needed library defines",
            s.not_found.len(),
            s.unresolved.len()
        ))
        .fix_text(
            "install the missing libraries or fix the RUNPATH/LD_LIBRARY_PATH; \
                undefined symbols mean the library was linked against something it does not list \
                (a packaging bug: rebuild it)",
        );
        for n in &s.not_found {
            f = f.evidence(format!("{n} => not found"));
        }
        for u in s.unresolved.iter().take(50) {
            f = f.evidence(format!("undefined symbol: {u}"));
        }
        if s.unresolved.len() > 50 {
            f = f.evidence(format!("... and {} more", s.unresolved.len() - 50));
        }
        f
    } else {
        Finding::pass(format!(
            "all {} undefined symbols resolve in {} loaded libraries",
            s.undefined_total,
            s.loaded.len()
        ))
    };
    f.subject(subject)
}

/// The findings `inspect` would print for `paths`, without the listing (used by `why
/// --binary`, which judges the failing file as `inspect` does), without their id: the caller
/// stamps them ([`judge::ID`]).
pub(crate) fn findings(host: &Host, cfg: &Config, paths: &[PathBuf], o: &Options) -> Vec<Finding> {
    let inv = Inventory::new(host, cfg);
    let mut tally = Tally {
        targets: targets(&inv),
        versions: runtime::versions(&inv).0,
        ..Default::default()
    };
    let mut drop_report = |_r: FileReport| Ok(());
    if let Err(e) = visit(host, paths, o, &mut tally, &mut drop_report, &mut |_, _| {}) {
        return vec![Finding::error(format!("cannot inspect: {e}"))];
    }
    finish(host, &mut tally, o);
    // Held in memory (the default): a `why --binary` run judges one file.
    tally
        .kept
        .to_vec()
        .unwrap_or_else(|e| vec![Finding::error(format!("cannot inspect: {e}"))])
}

/// How `inspect` prints: `--json`, or the human listing with its colour and `-v`.
pub(crate) struct View {
    pub json: bool,
    pub color: bool,
    pub verbose: u8,
}

/// Inspects `paths` (absolute) and prints the listing and the findings as `view` says; returns
/// the exit code (the command is `commands::inspect`). The findings get their id from `stamp`
/// as they are kept ([`judge::ID`], written by the engine).
pub(crate) fn print(
    host: &Host,
    cfg: &Config,
    paths: &[PathBuf],
    o: &Options,
    view: &View,
    stamp: kept::Stamp,
) -> i32 {
    let inv = Inventory::new(host, cfg);
    let tally = Tally {
        targets: targets(&inv),
        versions: runtime::versions(&inv).0,
        kept: kept::Kept::in_dir(host.temp_dir().ok()).stamped_by(stamp),
        ..Default::default()
    };
    let run = output::Run {
        host,
        paths,
        o,
        strict: cfg.strict,
    };
    if view.json {
        output::json(&run, tally)
    } else {
        output::human(&run, tally, view.color, view.verbose)
    }
}
